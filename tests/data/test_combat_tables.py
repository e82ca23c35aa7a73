"""Combat tables of seed 000 (renove), section III – Combat: schema validity, pinned entries, consistency."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bot.data_loading import DATA_DIR, validate_file

COMBAT_TABLES = [
    "critical_matrix",
    "hit_location",
    "combat_actions",
    "postures",
    "combat_modifiers",
    "special_actions",
    "parry_side_effects",
    "range_bands",
    "talents",
    "creatures_bf",
    "mort_subite",
    "infection",
    "combat_rules",
]


def _load(name: str) -> dict:
    table = validate_file(DATA_DIR / f"{name}.json")
    assert table.name == name
    assert table.document["ruleset"] == "renove"
    assert table.document["source"]["seed"] == "000_69d044075d6a247e.txt"
    return dict(table.document)


def _ids(entries: list[dict]) -> list[str]:
    return [e["id"] for e in entries]


@pytest.mark.parametrize("name", COMBAT_TABLES)
def test_file_validates_and_has_notes(name: str) -> None:
    doc = _load(name)
    assert doc["notes"], f"{name}: every scrambled reading must be recorded in notes"
    raw = json.loads(Path(DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert raw["table"] == name


@pytest.mark.parametrize("name", COMBAT_TABLES)
def test_entry_ids_are_unique(name: str) -> None:
    entries = _load(name).get("entries", [])
    ids = [e["id"] for e in entries if isinstance(e, dict) and "id" in e]
    assert len(ids) == len(set(ids))


# --- critical matrix -------------------------------------------------------------------------


def _critical(doc: dict, d100: int, damage: int, *, precise: bool = False, hardy: bool = False) -> int:
    row = next(r for r in doc["entries"] if r["d100_min"] <= d100 <= r["d100_max"])
    value = row["values"][min(damage, 10) - 1] + max(0, damage - 10) * row["overflow_per_point"]
    mods = {m["id"]: m["value"] for m in doc["modifiers"]}
    value += mods["precise"] if precise else 0
    value += mods["dur_a_cuire"] if hardy else 0
    return max(doc["clamp"]["min"], min(doc["clamp"]["max"], value))


def test_critical_matrix_is_complete_and_contiguous() -> None:
    doc = _load("critical_matrix")
    rows = doc["entries"]
    assert [r["label"] for r in rows] == [
        "01-10", "11-20", "21-30", "31-40", "41-50", "51-60", "61-70", "71-80", "81-90", "91-00"
    ]  # fmt: skip
    assert rows[0]["d100_min"] == 1 and rows[-1]["d100_max"] == 100
    for before, after in itertools.pairwise(rows):
        assert after["d100_min"] == before["d100_max"] + 1
    for row in rows:
        assert len(row["values"]) == 10
        assert row["values"] == sorted(row["values"]), "a row never decreases with more damage"
        assert row["overflow_per_point"] == 1
    assert doc["damage_columns"] == list(range(1, 11))
    assert doc["clamp"] == {"min": 1, "max": 15}


def test_critical_matrix_pinned_rows_and_columns() -> None:
    doc = _load("critical_matrix")
    rows = doc["entries"]
    assert rows[0]["values"] == [5, 5, 6, 6, 7, 9, 11, 14, 15, 15]
    assert rows[-1]["values"] == [1, 1, 1, 2, 2, 3, 4, 6, 8, 12]
    assert [r["values"][0] for r in rows] == [5, 4, 4, 3, 3, 2, 2, 1, 1, 1]
    assert [r["values"][9] for r in rows] == [15, 14, 15, 14, 15, 14, 15, 14, 13, 12]


def test_critical_matrix_six_damage_matches_the_seed() -> None:
    doc = _load("critical_matrix")
    column = [r["values"][5] for r in doc["entries"]]
    assert column == [9, 8, 7, 6, 6, 5, 5, 4, 4, 3]
    assert min(column) == doc["seed_check"]["stated_min"] == 3
    assert max(column) == doc["seed_check"]["stated_max"] == 9
    assert sum(column) / 10 == pytest.approx(5.7)
    assert int(sum(column) / 10) == doc["seed_check"]["stated_mean"]


def test_critical_value_overflow_modifiers_and_clamp() -> None:
    doc = _load("critical_matrix")
    assert _critical(doc, 1, 6) == 9
    assert _critical(doc, 100, 10) == 12
    assert _critical(doc, 95, 12) == 14  # +++ : +1 per point above 10
    assert _critical(doc, 95, 14) == 15  # clamped
    assert _critical(doc, 5, 10, precise=True) == 15
    assert _critical(doc, 55, 6, precise=True) == 6
    assert _critical(doc, 99, 1, hardy=True) == 1  # never below 1
    assert _critical(doc, 15, 6, hardy=True) == 7


# --- hit location ------------------------------------------------------------------------------


def _zone(doc: dict, degrees: int, *, precise: bool = False) -> str:
    degrees += doc["degree_bonuses"][0]["degrees"] if precise else 0
    for entry in doc["entries"]:
        top = entry["max_degrees"]
        if entry["min_degrees"] <= degrees and (top is None or degrees <= top):
            return entry["zone"]
    raise AssertionError(degrees)


def test_hit_location_bands() -> None:
    doc = _load("hit_location")
    entries = doc["entries"]
    assert [(e["zone"], e["min_degrees"], e["max_degrees"]) for e in entries] == [
        ("jambes", 0, 1),
        ("bras", 2, 2),
        ("corps", 3, 3),
        ("tete", 4, None),
    ]
    for before, after in itertools.pairwise(entries):
        assert after["min_degrees"] == before["max_degrees"] + 1
    assert [_zone(doc, d) for d in range(7)] == ["jambes", "jambes", "bras", "corps", "tete", "tete", "tete"]
    assert _zone(doc, 3, precise=True) == "tete"
    assert doc["degree_bonuses"] == [
        {"talent_id": "coups_precis", "name": "Coups précis", "degrees": 1, "attack": "melee"},
        {"talent_id": "tir_precis", "name": "Tir précis", "degrees": 1, "attack": "ranged"},
    ]
    assert doc["attacker_may_choose_lower_zone"] is True
    assert doc["location_ignores_malus_of"] == ["coup_perforant"]


def test_hit_location_natural_01_02() -> None:
    doc = _load("hit_location")
    rolls = {r["roll"]: r for r in doc["natural_rolls"]}
    one, two = rolls[1], rolls[2]
    assert one["auto_success"] and one["cannot_be_parried"] and one["cannot_be_dodged"]
    assert one["zone"] == "tete" and one["damage_die_fixed"] == 10
    assert two["damage_die_minimum_unless_rolled"] == 9
    assert "zone" not in two and "auto_success" not in two
    assert rolls[99]["kind"] == rolls[100]["kind"] == "critical_failure"


# --- actions, postures, initiative ---------------------------------------------------------------


def test_combat_actions_pinned() -> None:
    doc = _load("combat_actions")
    actions = {a["id"]: a for a in doc["entries"]}
    assert set(actions) >= {
        "attaquer", "feinter", "charger", "viser", "manoeuvrer", "preparer_parade", "parade_reactive",
        "action_speciale", "se_positionner", "esquiver", "se_deplacer", "prendre_objet", "lancer_sort",
        "utiliser_competence", "recharger", "se_relever", "sauter", "desengagement",
    }  # fmt: skip
    attack = actions["attaquer"]
    assert attack["repeatable"] is True
    assert {(m["who"], m["stat"], m["value"]) for m in attack["modifiers"]} == {
        ("self", "attack", -10),
        ("opponent", "parry_dodge", 10),
    }
    charge = actions["charger"]
    assert charge["cost"] == {"unit": "all_A"} and charge["posture_allowed"] is False
    assert {(m["stat"], m["value"]) for m in charge["modifiers"]} == {("CC", 10), ("BF", 1)}
    aim = {o["id"]: o["effects"] for o in actions["viser"]["options"]}
    assert aim["puissance"] == [
        {"type": "modifier", "who": "self", "stat": "damage", "value": 1, "scope": "next_attack"}
    ]
    assert {(e["stat"], e["value"]) for e in aim["precision"]} == {("CC_CT", 10), ("parry_dodge", -10)}
    manoeuvre = actions["manoeuvrer"]["effects"]
    assert manoeuvre[0]["metres_per_degree"] == 2
    assert manoeuvre[1]["characteristic"] == "Ag" and manoeuvre[1]["modifier"] == 20
    assert actions["se_positionner"]["effects"] == [{"type": "move", "who": "self", "metres": 2}]
    assert actions["esquiver"]["test"]["without_skill"] == {
        "skill": "Esquive",
        "characteristic_divided_by": 2,
    }
    reactive = actions["parade_reactive"]
    assert reactive["cost"] == {"unit": "next_round_A", "amount": 1}
    assert reactive["modifiers"][0]["value"] == -10
    assert actions["se_relever"]["cost"] == {"unit": "half_round", "amount": 1}
    assert actions["desengagement"]["cost"] == {"unit": "half_round", "amount": 1}
    draw = {v["id"]: v["cost"] for v in actions["prendre_objet"]["variants"]}
    assert draw == {
        "arc_bouclier_deux_mains": {"unit": "round", "amount": 1},
        "arme_une_main": {"unit": "half_round", "amount": 1},
        "dague_couteau": {"unit": "free"},
    }
    moves = {v["id"]: v["metres"] for v in actions["se_deplacer"]["variants"]}
    assert moves["course"] == {"characteristic": "M", "multiply_by": 6}
    assert moves["marche_rapide"] == {"characteristic": "M", "multiply_by": 3}


def test_weapons_in_hands() -> None:
    doc = _load("combat_actions")
    hands = doc["weapons_in_hands"]
    off = {o["id"]: o for o in hands["off_hand"]}
    assert off["main_gauche_sans_malus"]["effects"] == []
    assert off["main_gauche_gene"]["effects"][0]["stat"] == "Ag"
    assert off["main_gauche_gene"]["effects"][0]["value"] == -5
    assert off["arme_non_equilibree"]["effects"][0]["stat"] == "CC"
    assert off["arme_non_equilibree"]["effects"][0]["value"] == -20
    extra = hands["two_weapons"]["effects"][0]
    assert extra["amount"] == 1 and "viser" not in extra["usable_for"]
    ids = set(_ids(doc["entries"]))
    assert set(extra["usable_for"]) <= ids
    assert hands["one_handed_weapon_in_both_hands"]["effects"][0]["value"] == 5


def _initiative_slots(initiative: int, attacks: int) -> list[float]:
    return [initiative / k for k in range(1, attacks + 1)]


def test_initiative_seed_example() -> None:
    ini = _load("combat_actions")["initiative"]
    ex = ini["example"]
    assert ex == {"Ag": 56, "roll_3d20": 24, "A": 2, "I": 80, "slots": [80, 40]}
    assert ex["Ag"] + ex["roll_3d20"] == ex["I"]
    assert _initiative_slots(ex["I"], ex["A"]) == ex["slots"]
    assert ini["dice"] == "3d20" and ini["add"] == "Ag"
    assert ini["second_weapon_a_counts"] is False
    assert ini["bonuses"] == [{"talent_id": "sur_ses_gardes", "name": "Sur ses gardes", "dice": "1d20"}]


def test_postures_pinned_and_reference_actions() -> None:
    doc = _load("postures")
    postures = {p["id"]: p for p in doc["entries"]}
    assert list(postures) == ["suicidaire", "defensive", "temeraire", "prudente", "normale"]

    def mods(pid: str) -> set[tuple[str, int]]:
        return {(m["stat"], m["value"]) for m in postures[pid]["modifiers"]}

    assert mods("defensive") == {("parry", 20)}
    assert mods("temeraire") == {("attack", 10), ("parry", -10)}
    assert mods("prudente") == {("parry", 10), ("attack", -10)}
    assert mods("normale") == set()
    options = {o["id"]: o["effects"][0] for o in postures["suicidaire"]["options"]}
    assert (options["attaque"]["stat"], options["attaque"]["value"]) == ("attack", 20)
    assert (options["degats"]["stat"], options["degats"]["value"]) == ("damage", 2)

    action_ids = set(_ids(_load("combat_actions")["entries"]))
    for posture in postures.values():
        assert set(posture["allowed_actions"]) <= action_ids, posture["id"]
        assert "action_speciale" in posture["allowed_actions"]
        assert "charger" not in posture["allowed_actions"]
    assert set(postures["defensive"]["allowed_actions"]) == {
        "preparer_parade", "parade_reactive", "esquiver", "se_positionner", "action_speciale",
        "autre_action_gratuite",
    }  # fmt: skip
    defences = {"preparer_parade", "parade_reactive", "esquiver"}
    assert not defences & set(postures["suicidaire"]["allowed_actions"])
    assert "attaquer" not in postures["defensive"]["allowed_actions"]
    assert postures["prudente"]["allowed_actions"] == postures["temeraire"]["allowed_actions"]


# --- situation modifiers ---------------------------------------------------------------------


def test_combat_modifiers_anchors_and_groups() -> None:
    doc = _load("combat_modifiers")
    by_id = {e["id"]: e for e in doc["entries"]}
    assert by_id["ct_cible_au_corps_a_corps"]["value"] == -20
    assert by_id["cc_main_non_directrice"]["value"] == -20
    assert by_id["ct_cible_avec_bouclier"]["value"] == -10
    assert by_id["cc_adversaire_desarme"]["value"] == 30
    assert by_id["cc_neige_epaisse"]["value"] == -30
    counts: dict[tuple[str, int], int] = {}
    for e in doc["entries"]:
        counts[(e["applies_to"], e["value"])] = counts.get((e["applies_to"], e["value"]), 0) + 1
    assert counts == {
        ("CC", 30): 2, ("CC", 20): 3, ("CC", 10): 5, ("CC", -10): 4, ("CC", -20): 1, ("CC", -30): 1,
        ("CT", 30): 2, ("CT", 20): 2, ("CT", 10): 3, ("CT", -10): 5, ("CT", -20): 4, ("CT", -30): 2,
        ("defence", -10): 1, ("defence", -20): 1, ("defence", -30): 1,
    }  # fmt: skip
    ambiguous = {e["id"] for e in doc["entries"] if e["reading"] == "ambiguous"}
    assert ambiguous == {"cc_dans_le_dos", "cc_adversaire_qui_court"}


def test_combat_modifiers_follow_seed_line_order() -> None:
    """Each column is a run of lines in decreasing bonus order: values never go up along the seed lines."""
    doc = _load("combat_modifiers")
    for column in ("CC", "CT", "defence"):
        rows = sorted((e for e in doc["entries"] if e["applies_to"] == column), key=lambda e: e["seed_line"])
        values = [e["value"] for e in rows]
        assert values == sorted(values, reverse=True), column
        assert len({e["seed_line"] for e in rows}) == len(rows)


# --- special actions ---------------------------------------------------------------------------


def test_special_actions_pinned() -> None:
    doc = _load("special_actions")
    actions = {a["id"]: a for a in doc["entries"]}
    assert list(actions) == [
        "coup_perforant", "par_dessus_les_defenses", "allonge_surprise", "frappe_de_bouclier",
        "coup_assommant", "empalement", "posture_du_piquier", "desarmement",
    ]  # fmt: skip
    piercing = actions["coup_perforant"]
    assert piercing["weapons"] == ["Fleuret", "Dague", "Lances", "Epées"]
    assert piercing["modifiers"] == [
        {"type": "modifier", "who": "self", "stat": "CC", "value": -10, "per": "K", "scope": "this_attack"}
    ]
    assert piercing["effects"][0]["per"] == "K"
    assert piercing["effects"][0]["extra_if_attribute"] == {"attribute": "Perforante", "points": 1}
    assert piercing["location_ignores_own_malus"] is True
    over = actions["par_dessus_les_defenses"]
    assert over["weapons"] == ["Fléaux"]
    assert (over["modifiers"][0]["value"], over["effects"][0]["value"]) == (-10, -20)
    assert actions["allonge_surprise"]["weapons"] == ["Epée batarde"]
    bash = actions["frappe_de_bouclier"]
    assert bash["cost"] == {"unit": "shield_A"} and bash["roll"] == "opposed_cc"
    assert bash["effects"][0]["stat"] == "parry_dodge" and bash["effects"][0]["value"] == -20
    stun = actions["coup_assommant"]
    assert stun["ranged_weapons"] == ["Fronde", "Flèches/Carreaux matras"]
    assert stun["requires_talent"]["id"] == "coups_assommants"
    assert stun["effects"][0]["on_success"][0]["duration"] == {"amount": "1d10", "unit": "round"}
    assert actions["posture_du_piquier"]["modifiers"][0]["value"] == 10
    assert (
        actions["empalement"]["trigger"]
        == actions["posture_du_piquier"]["trigger"]
        == "opponent_charge_reaches"
    )
    talents = set(_ids(_load("talents")["entries"]))
    for action in actions.values():
        if "requires_talent" in action:
            assert action["requires_talent"]["id"] in talents
    assert set(_load("hit_location")["location_ignores_malus_of"]) <= set(actions)


# --- parry side effects ------------------------------------------------------------------------


def _parry_band(doc: dict, total: int) -> dict:
    for band in doc["entries"]:
        if (band["min"] is None or band["min"] <= total) and (band["max"] is None or total <= band["max"]):
            return band
    raise AssertionError(total)


def test_parry_side_effect_bands() -> None:
    doc = _load("parry_side_effects")
    bands = doc["entries"]
    assert [b["label"] for b in bands] == [
        "01-60",
        "61-70",
        "71-80",
        "81-90",
        "91-100",
        "101-110",
        "111-999+",
    ]
    assert bands[0]["min"] is None and bands[-1]["max"] is None
    for before, after in itertools.pairwise(bands):
        assert after["min"] == before["max"] + 1
    assert _parry_band(doc, -15)["id"] == "tout_va_bien"
    assert _parry_band(doc, 61)["effects"][0]["metres"] == 1
    assert _parry_band(doc, 61)["effects"][1]["modifier"] == 30
    assert _parry_band(doc, 80)["effects"][0]["metres"] == 2
    assert _parry_band(doc, 80)["effects"][1]["modifier"] == 10
    shares = {b["label"]: e["fraction"] for b in bands for e in b["effects"] if e["type"] == "take_damage"}
    assert shares == {"91-100": "1/4", "101-110": "1/2", "111-999+": "1"}
    assert _parry_band(doc, 250)["effects"][0]["type"] == "weapon_breaks"
    assert doc["roll"]["add"] == ["F_attacker", "attack_damage_vs_parry_weapon_BE"]
    assert doc["roll"]["subtract"] == ["F_defender"]


# --- ranges --------------------------------------------------------------------------------------


def _range_band(doc: dict, distance: float, short: float, long: float) -> dict:
    for band in doc["entries"]:
        up_to = band["up_to"]
        if up_to is None:
            return band
        base = short if up_to["range"] == "short" else long
        if distance <= base * up_to["numerator"] / up_to["denominator"]:
            return band
    raise AssertionError(distance)


def test_range_bands() -> None:
    doc = _load("range_bands")
    rows = [(b["ct_modifier"], b["damage_modifier"], b["aim_required"]) for b in doc["entries"]]
    assert rows == [(10, 0, False), (0, 0, False), (-10, -1, False), (-20, -1, False), (-30, -2, True)]
    # a bow (24 ; 48): 12 m point blank, 24 m short, 36 m three quarters, 48 m long
    assert _range_band(doc, 12, 24, 48)["id"] == "bout_portant"
    assert _range_band(doc, 13, 24, 48)["id"] == "courte"
    assert _range_band(doc, 36, 24, 48)["id"] == "moyenne"
    assert _range_band(doc, 48, 24, 48)["id"] == "longue"
    assert _range_band(doc, 49, 24, 48)["id"] == "hors_portee"
    melee = doc["firing_into_melee"]
    assert melee["ct_modifier"] == -20
    assert melee["stray_hit"]["pick_target_die"] == "1d10"
    modifiers = {e["id"]: e["value"] for e in _load("combat_modifiers")["entries"]}
    assert modifiers[melee["modifier_id"]] == melee["ct_modifier"]


# --- talents, creatures, sudden death ------------------------------------------------------------


def test_talents_pinned() -> None:
    doc = _load("talents")
    talents = {t["id"]: t for t in doc["entries"]}
    modified = [t["id"] for t in doc["entries"] if t["listed_in"] == "talent_modifications"]
    assert modified == [
        "dur_a_cuire", "combattant_virevoltant", "tireur_d_elite", "sur_ses_gardes", "coups_precis",
        "tir_precis", "robuste", "parade_eclair",
    ]  # fmt: skip
    assert talents["dur_a_cuire"]["effects"][0]["stat"] == "critical_value"
    assert talents["dur_a_cuire"]["effects"][0]["value"] == -1
    assert talents["sur_ses_gardes"]["effects"][0]["dice"] == "1d20"
    assert talents["coups_precis"]["effects"][0]["value"] == 1
    assert talents["tir_precis"]["effects"][0]["scope"] == "ranged_attack"
    assert talents["parade_eclair"]["effects"] == [
        {"type": "cancel_malus", "what": "reactive_parry", "value": 10}
    ]
    assert {e["what"] for e in talents["robuste"]["effects"]} == {"armour_wearing_ag", "armour_wearing_cc"}
    assert talents["combattant_virevoltant"]["effects"][0]["weapons"] == [
        "Epée courte",
        "Fleuret",
        "Rapière",
        "Bâton",
    ]
    assert talents["tireur_d_elite"]["effects"][0]["value"] == 5
    assert doc["skills_made_basic"] == [
        "Baratin", "Escamotage", "Esquive", "Filature", "Orientation", "Pistage", "Torture"
    ]  # fmt: skip
    critical = _load("critical_matrix")
    assert {m["id"]: m["value"] for m in critical["modifiers"]}["dur_a_cuire"] == -1
    referenced = {b["talent_id"] for b in _load("combat_actions")["initiative"]["bonuses"]}
    referenced |= {b["talent_id"] for b in _load("hit_location")["degree_bonuses"]}
    assert referenced <= set(talents)


def test_creatures_bf() -> None:
    doc = _load("creatures_bf")
    rows = [(e["label"], e["BF"]) for e in doc["entries"]]
    assert rows == [
        ("Halfling", 5),
        ("Humain – Gobelin", 6),
        ("Orque – Spadassin – Homme bête", 7),
        ("Orque noir – Champion", 8),
        ("Minotaure – Tueur", 9),
        ("Troll", 10),
    ]
    creature_ids = [c["id"] for e in doc["entries"] for c in e["creatures"]]
    assert len(creature_ids) == len(set(creature_ids)) == 11
    assert doc["rule"]["monster_characteristics_multiplier"] == {"F": 2, "E": 2}
    assert doc["rule"]["playable_bonus"] == {"BF": 3, "BE": 3, "BA": 3}
    # reading: the playable races and the human fighters are characters (+3), the rest monsters (F × 2)
    characters = {c["id"] for e in doc["entries"] for c in e["creatures"] if c["kind"] == "character"}
    assert characters == {"halfling", "humain", "spadassin", "champion", "tueur"}


def test_mort_subite_covers_1_to_15() -> None:
    doc = _load("mort_subite")
    bands = [(e["min"], e["max"], e["outcome"]) for e in doc["entries"]]
    assert bands == [(1, 7, "fights_on"), (8, 12, "tries_to_flee"), (13, 15, "dies")]
    for before, after in itertools.pairwise(doc["entries"]):
        assert after["min"] == before["max"] + 1


# --- infection -----------------------------------------------------------------------------------


def test_infection_modifiers() -> None:
    doc = _load("infection")
    mods = {e["id"]: e for e in doc["entries"]}
    wounds = [
        (e["critical_min"], e["critical_max"], e["value"])
        for e in doc["entries"]
        if e["group"] == "wound_type"
    ]
    assert wounds == [(2, 3, 20), (4, 5, 10), (6, 7, 0), (8, 9, -10), (10, 15, -20)]
    for before, after in itertools.pairwise(wounds):
        assert after[0] == before[1] + 1
    assert doc["test"]["exempt_critical_values"] == [1]
    assert mods["fragment_arme"]["value"] == -20
    assert mods["fleche_barbelee"]["value"] == -10
    cleanliness = [e["value"] for e in doc["entries"] if e["group"] == "weapon_cleanliness"]
    assert cleanliness == [10, 0, -10, -20]
    assert mods["blessure_lavee"]["value"] == 10
    assert mods["blessure_suturee_ratee"]["value"] == 10
    assert mods["blessure_suturee_reussie"]["value"] == 20
    assert mods["onguent"]["value"] == 20
    assert mods["environnement_infect"]["value_range"] == {"min": -30, "max": -10, "step": 10}
    assert mods["mauvaise_hygiene"]["value"] == -10
    assert [mods[i]["value"] for i in ("dur_a_cuire", "resistance_aux_maladies", "nain_ou_halfling")] == [
        10,
        10,
        10,
    ]


def test_infection_outcomes() -> None:
    doc = _load("infection")
    outcomes = doc["outcomes"]
    assert [(o["margin_min"], o["margin_max"]) for o in outcomes] == [(1, 20), (21, 40), (41, None)]
    ten_minus_be = {"base": 10, "characteristic": "BE", "sign": -1, "minimum": 1}
    assert outcomes[0]["phases"] == [{"all_tests_modifier": -10, "days": ten_minus_be}]
    assert [p["all_tests_modifier"] for p in outcomes[1]["phases"]] == [-10, -30, -10]
    assert outcomes[1]["phases"][0]["days"] == 1
    assert outcomes[1]["durations_doubled_unless_bedridden"] is True
    death = outcomes[2]["death"]
    assert death["after_days"] == {"base": 5, "characteristic": "BE", "sign": 1}
    assert death["after_amputation"]["soins_bonus"] == {"base": 10, "per_degree": 10}


# --- combat WS -----------------------------------------------------------------------------------


def test_combat_ws_examples() -> None:
    ws = _load("combat_rules")["combat_ws"]
    constant = ws["formula"]["add_constant"]
    assert constant == 50
    for example in ws["examples"]:
        a, b = example["fighters"]
        assert a["cc_combat"] == a["cc_base"] + (constant - b["cc_base"])
        assert b["cc_combat"] == b["cc_base"] + (constant - a["cc_base"])
    albert, rudolf = ws["examples"][0]["fighters"]
    assert (albert["name"], albert["cc_base"], albert["cc_combat"]) == ("Albert", 40, 60)
    assert (rudolf["name"], rudolf["cc_base"], rudolf["cc_combat"]) == ("Rudolf", 30, 40)
    # the seed's shortcut: Albert loses 10 CC → Albert −10, Rudolf +10 on the combat values
    after = ws["examples"][1]["fighters"]
    assert [f["cc_combat"] for f in after] == [60 - 10, 40 + 10]


def test_see_references_resolve() -> None:
    doc = _load("combat_actions")
    for action in doc["entries"]:
        target = action.get("see")
        if target is None:
            continue
        path = DATA_DIR / f"{target}.json"
        if target in COMBAT_TABLES:
            assert path.is_file(), target
        elif not path.is_file():
            pytest.skip(f"{target}.json belongs to another table set and is not there yet")


@pytest.mark.parametrize("weapons_table", ["weapons_melee", "weapons_ranged"])
def test_weapon_tables_reference_existing_special_actions(weapons_table: str) -> None:
    path = DATA_DIR / f"{weapons_table}.json"
    if not path.is_file():
        pytest.skip(f"{weapons_table}.json is not there yet")
    special = set(_ids(_load("special_actions")["entries"]))
    weapons = json.loads(path.read_text(encoding="utf-8")).get("entries", [])
    for weapon in weapons:
        assert set(weapon.get("special_actions", [])) <= special, weapon.get("id")
