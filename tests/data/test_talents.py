"""data/talents.json: every talent a seed or the bot's rules name, pinned against the seed's lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.rules.sheets import fold
from tests.data.pinned import by_id, check_ids_unique, check_owned_table, doc, entries

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_69d044075d6a247e.txt"


def _seed_lines(spec: str) -> str:
    lines = SEED.read_text(encoding="utf-8").splitlines()
    out = []
    for part in spec.split(", "):
        first, _, last = part.partition("-")
        out.extend(lines[int(first) - 1 : int(last or first)])
    return fold("\n".join(out)).replace("’", "'")


def test_the_table_validates() -> None:
    check_owned_table("talents")
    check_ids_unique("talents")


@pytest.mark.parametrize(
    ("talent_id", "name", "name_en", "printed"),
    [
        ("dur_a_cuire", "Dur à cuire", "Hardy", "-1 a l'effet critique"),
        ("combattant_virevoltant", "Combattant virevoltant", "Whirling fighter", "plutot qu'avec le bf"),
        ("tireur_d_elite", "Tireur d'élite", "Marksman", "modifier le profil de base en consequence"),
        ("sur_ses_gardes", "Sur ses gardes", "On guard", "ajouter 1d20 a son initiative"),
        ("coups_precis", "Coups précis", "Strike to Injure", "coups precis ajoute 1 aux °r"),
        ("tir_precis", "Tir précis", "Sure Shot", "tir/coups precis"),
        ("robuste", "Robuste", "Sturdy", "lies au port d'armure"),
        ("parade_eclair", "Parade éclair", "Lightning parry", "annule le malus lors des parades reactives"),
        ("ambidextre", "Ambidextre", "Ambidextrous", "aucun malus pour le port d'armes a une main"),
        ("coups_assommants", "Coups assommants", "Strike to stun", 'necessite "coups assommants"'),
        ("desarmement", "Désarmement", "Disarm", 'necessite "desarmement"'),
        ("resistance_aux_maladies", "Résistance aux maladies", "Resistance to disease", "maladies : +10 %"),
        ("fuite", "Fuite", "Flee!", "le talent fuite donne +1 m au fuyard"),
        ("maitrise", "Maîtrise", "Specialist Weapon Group", "maitrise (arbaletes)"),
        ("chirurgie", "Chirurgie", "Surgery", "avec le talent chirurgie"),
    ],
)
def test_seed_talents_are_pinned_to_their_lines(
    talent_id: str, name: str, name_en: str, printed: str
) -> None:
    entry = by_id("talents")[talent_id]
    assert (entry["name"], entry["name_en"]) == (name, name_en)
    assert entry["source"]["seed"] == SEED.name
    assert printed in _seed_lines(entry["source"]["lines"]), (talent_id, entry["source"]["lines"])


def _mod(stat: str, value: int, scope: str = "always") -> dict[str, object]:
    return {"type": "modifier", "who": "self", "stat": stat, "value": value, "scope": scope}


@pytest.mark.parametrize(
    ("talent_id", "effect"),
    [
        ("dur_a_cuire", _mod("critical_value", -1)),
        ("dur_a_cuire", _mod("E", 10, "infection_test")),
        ("tireur_d_elite", _mod("CT", 5)),
        ("coups_precis", _mod("location_degrees", 1, "melee_attack")),
        ("tir_precis", _mod("location_degrees", 1, "ranged_attack")),
        (
            "fuite",
            {"type": "chase_bonus", "stat": "M", "value": 1, "role": "fugitive", "rounds": "half_BE_up"},
        ),
        ("resistance_aux_maladies", _mod("E", 10, "infection_test")),
        (
            "coups_assommants",
            {"type": "unlocks", "what": "special_action", "id": "coup_assommant", "melee_only": True},
        ),
        ("resistance_accrue", _mod("E", 5)),
        ("sang_froid", _mod("FM", 5)),
    ],
)
def test_effects_are_structured(talent_id: str, effect: dict[str, object]) -> None:
    assert effect in by_id("talents")[talent_id]["effects"]


def test_book_talents_say_so_and_the_base_profile_ones_are_marked() -> None:
    for entry in entries("talents"):
        if entry["listed_in"] == "book":
            assert entry["source"] == {"book": "WFRP 2e"}, entry["id"]
        else:
            assert entry["source"]["seed"] == SEED.name, entry["id"]
    marked = {e["id"] for e in entries("talents") if e.get("modifies_base_profile")}
    assert marked == {
        "tireur_d_elite", "guerrier_ne", "force_accrue", "resistance_accrue", "reflexes_eclair",
        "intelligent", "sang_froid", "sociable",
    }  # fmt: skip


def test_names_and_aliases_are_unique_once_folded() -> None:
    seen: dict[str, str] = {}
    for entry in entries("talents"):
        for name in (entry["name"], entry["name_en"], *entry.get("aliases", ())):
            key = fold(name)
            assert seen.setdefault(key, entry["id"]) == entry["id"], (name, seen[key], entry["id"])


def test_every_talent_the_other_tables_name_is_in_the_table() -> None:
    talents = by_id("talents")
    named = {a["requires_talent"]["id"] for a in entries("special_actions") if "requires_talent" in a}
    named |= {b["talent_id"] for b in doc("hit_location")["degree_bonuses"]}
    named |= {b["talent_id"] for b in doc("combat_actions")["initiative"]["bonuses"]}
    named |= {r["effect"]["talent"] for r in doc("shields")["rules"] if "talent" in r.get("effect", {})}
    named |= {r["effect"]["talent"] for r in doc("armour")["rules"] if "talent" in r.get("effect", {})}
    assert named <= set(talents)
    infection = {e["id"] for e in entries("infection")}
    for talent_id, entry in talents.items():  # the infection table keys its talent modifiers by id
        if any(e.get("scope") == "infection_test" for e in entry["effects"]):
            assert talent_id in infection
