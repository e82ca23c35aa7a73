"""data/skills.json: every WFRP 2e skill on its characteristic, basic or advanced, pinned by hand."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from bot.data_loading import DATA_DIR, DataError, iter_data_files, validate_document
from bot.rules.sheets import SHEETS, fold
from tests.data.pinned import by_id, check_ids_unique, check_owned_table, doc, entries

SEED_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"
# Seed 000, lines 1243-1244: "Baratin, Escamotage, Esquive, Filature, Orientation, Pistage, Torture,
# deviennent des compétences de base."
MADE_BASIC_BY_SEED = {"baratin", "escamotage", "esquive", "filature", "orientation", "pistage", "torture"}
# The code users `used_by` may name (area.feature), each with the module that reads the skill.
FEATURES = {
    "combat.dodge": "bot/services/fights/hits.py",
    "combat.v1_dodge": "bot/services/fights/systems/v1.py",
    "simulation.dodge": "bot/services/simulation.py",
    "interrogation.intimidation": "bot/services/flows/interrogation.py",
    "interrogation.charisme": "bot/services/flows/interrogation.py",
    "interrogation.torture": "bot/services/flows/interrogation.py",
    "tavern.armwrestling": "bot/services/flows/tavern.py",
    "tavern.cards": "bot/services/flows/tavern.py",
    "tavern.dice": "bot/services/flows/tavern.py",
    "tavern.drinking": "bot/services/flows/tavern.py",
    "tavern.knives": "bot/services/flows/tavern.py",
    "infection.amputation": "bot/rules/renove/infection.py",
}


def test_the_table_validates_and_is_picked_up_by_the_generic_test() -> None:
    check_owned_table("skills")
    check_ids_unique("skills")
    assert DATA_DIR / "skills.json" in list(iter_data_files())


def test_it_holds_the_whole_book_list() -> None:
    skills = entries("skills")
    assert len(skills) == 48
    assert sum(e["kind"] == "basic" for e in skills) == 20
    assert sum(e["kind"] == "advanced" for e in skills) == 28


@pytest.mark.parametrize(
    ("skill_id", "name", "characteristic", "kind", "basic_in_renove"),
    [
        ("esquive", "Esquive", "Ag", "advanced", True),
        ("fouille", "Fouille", "Int", "basic", True),
        ("torture", "Torture", "Soc", "advanced", True),
        ("resistance_alcool", "Résistance à l'alcool", "E", "basic", True),
        ("perception", "Perception", "Int", "basic", True),
        ("intimidation", "Intimidation", "F", "basic", True),
        ("jeu", "Jeu", "Int", "basic", True),
        ("soins", "Soins", "Int", "advanced", False),
        ("crochetage", "Crochetage", "Ag", "advanced", False),
        ("charisme", "Charisme", "Soc", "basic", True),
        ("emprise_animaux", "Emprise sur les animaux", "Soc", "advanced", False),
        ("navigation", "Navigation", "Ag", "advanced", False),
        ("orientation", "Orientation", "Int", "advanced", True),
        ("focalisation", "Focalisation", "FM", "advanced", False),
    ],
)
def test_pinned_entries(
    skill_id: str, name: str, characteristic: str, kind: str, basic_in_renove: bool
) -> None:
    entry = by_id("skills")[skill_id]
    assert entry["name"]["fr"] == name
    assert entry["characteristic"] == characteristic
    assert entry["kind"] == kind
    assert entry["basic_in_renove"] is basic_in_renove


def test_english_names() -> None:
    skills = by_id("skills")
    assert skills["esquive"]["name"]["en"] == "Dodge Blow"
    assert skills["resistance_alcool"]["name"]["en"] == "Consume Alcohol"
    assert "Consume Alcohol" not in skills["resistance_alcool"]["aliases"]  # the name, not an alias
    assert "Dodge" in skills["esquive"]["aliases"]


def test_names_and_aliases_are_unambiguous_after_folding() -> None:
    owner: dict[str, str] = {}
    for entry in entries("skills"):
        names = {fold(entry["name"]["fr"]), fold(entry["name"]["en"])}
        names |= {fold(alias) for alias in entry["aliases"]}
        for name in names:
            assert name not in owner, f"{name!r} names both {owner.get(name)} and {entry['id']}"
            owner[name] = entry["id"]


def test_aliases_are_not_the_names_again() -> None:
    for entry in entries("skills"):
        names = {fold(entry["name"]["fr"]), fold(entry["name"]["en"])}
        assert not names & {fold(a) for a in entry["aliases"]}, entry["id"]


def test_exactly_the_seven_seed_skills_are_basic_only_in_renove() -> None:
    made_basic = {e["id"] for e in entries("skills") if e["kind"] == "advanced" and e["basic_in_renove"]}
    assert made_basic == MADE_BASIC_BY_SEED
    for entry in entries("skills"):
        if entry["kind"] == "basic":
            assert entry["basic_in_renove"], entry["id"]


def test_the_seven_match_the_talents_table() -> None:
    names = {fold(n) for n in doc("talents")["skills_made_basic"]}
    skills = by_id("skills")
    assert names == {fold(skills[i]["name"]["fr"]) for i in MADE_BASIC_BY_SEED}


def test_every_characteristic_is_a_renove_code() -> None:
    codes = set(SHEETS["renove"].codes)
    for entry in entries("skills"):
        assert entry["characteristic"] in codes, entry["id"]


def test_specialised_skills() -> None:
    specialised = {e["id"] for e in entries("skills") if e["specialised"]}
    assert specialised == {
        "alphabet_secret",
        "connaissances_academiques",
        "connaissances_generales",
        "expression_artistique",
        "langage_mystique",
        "langage_secret",
        "langue",
        "metier",
    }
    assert [e["id"] for e in entries("skills") if e.get("characteristic_varies")] == ["metier"]


def test_untrained_and_masteries() -> None:
    document = doc("skills")
    untrained = document["untrained"]
    assert (untrained["basic"], untrained["rounding"], untrained["advanced"]) == ("half", "down", "refused")
    assert untrained["note"]["fr"] and untrained["note"]["en"]
    assert document["masteries"] == [0, 10, 20]


def test_sources_are_seeds_or_the_book() -> None:
    seeded = 0
    for entry in entries("skills"):
        source = entry["source"]
        assert set(source) in ({"book"}, {"seed", "lines"}, {"seed", "lines", "printed"}), entry["id"]
        seeded += "seed" in source
    assert 30 <= seeded < 48  # most skills the seeds name; the rest come from the book


@pytest.mark.skipif(not SEED_DIR.is_dir(), reason="the seeds are not on this machine")
def test_each_seed_source_names_the_skill_on_its_lines() -> None:
    for entry in entries("skills"):
        refs = [r for r in [entry["source"], *entry.get("also_in", [])] if "seed" in r]
        for ref in refs:
            lines = (SEED_DIR / ref["seed"]).read_text(encoding="utf-8").splitlines()
            words = [entry["name"]["fr"], *entry["aliases"]]
            if "printed" in ref:
                words += re.split(r"[,()*]", ref["printed"])
            wanted = [fold(w).split()[0][:6] for w in words if w.strip()]
            for part in ref["lines"].split(","):
                first, _, last = part.strip().partition("-")
                span = " ".join(lines[int(first) - 1 : int(last or first)])
                assert any(w in fold(span) for w in wanted), (entry["id"], part)


def test_used_by_points_at_real_tables_entries_and_features() -> None:
    tables = {path.stem: path for path in iter_data_files()}
    for entry in entries("skills"):
        for user in entry["used_by"]:
            if user in FEATURES:
                assert Path(FEATURES[user]).is_file()
                continue
            table, _, entry_id = user.partition("#")
            assert table in tables, (entry["id"], user)
            if entry_id:
                assert entry_id in by_id(table), (entry["id"], user)


def test_the_other_tables_name_skills_by_these_ids() -> None:
    skills = by_id("skills")
    for row in entries("opposed_skills"):
        assert row["skill_id"] in skills
        if row["opposed_by_kind"] == "skill":
            assert row["opposed_by_id"] in skills
    secret = {row["id"] for row in entries("secret_tests")} - {"interrogatoires"}
    assert secret <= set(skills)


def test_a_bad_entry_is_refused() -> None:
    document = copy.deepcopy(doc("skills"))
    document["entries"][0]["characteristic"] = "BF"
    with pytest.raises(DataError):
        validate_document(document)
    document = copy.deepcopy(doc("skills"))
    document["entries"][0]["source"] = {"seed": "000_69d044075d6a247e.txt"}  # no lines
    with pytest.raises(DataError):
        validate_document(document)
    document = copy.deepcopy(doc("skills"))
    document["masteries"] = [0, 10]
    with pytest.raises(DataError):
        validate_document(document)
