"""Seed 003 (d20, "Procédures générales") and seed 004 (ogl, "Règles OGL : Combat"): pinned readings."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.data.pinned import by_id, check_ids_unique, check_owned_table, doc, entries

OWNED = [
    "d20_difficulty",
    "d20_simultaneous_actions",
    "d20_opposition",
    "d20_wounds",
    "d20_skills",
    "d20_brawl",
    "d20_armour",
    "d20_ranged",
    "d20_burst_fire",
    "d20_covering_fire",
    "d20_artillery_scatter",
    "d20_air_combat",
    "ogl_fumbles",
    "ogl_wounds",
    "ogl_situational_modifiers",
    "ogl_combat_actions",
    "ogl_hero_points",
]


@pytest.mark.parametrize("name", OWNED)
def test_file_validates_and_has_notes(name: str) -> None:
    table = check_owned_table(name)
    assert table.document["ruleset"] == name.split("_", 1)[0]
    assert table.schema.startswith(("d20_", "ogl_"))


@pytest.mark.parametrize("name", [n for n in OWNED if entries(n) and "id" in entries(n)[0]])
def test_ids_unique(name: str) -> None:
    check_ids_unique(name)


# --- d20: difficulty ladder and simultaneous actions ----------------------------------------------


def test_d20_difficulty_ladder() -> None:
    ladder = {e["id"]: e["modifier"] for e in entries("d20_difficulty")}
    assert ladder == {
        "evidente": 5,
        "assez_difficile": -5,
        "difficile": -10,
        "tres_difficile": -15,
        "pratiquement_impossible": -20,
        "absurde": -25,
        "rigoureusement_impossible": None,
    }
    grades = by_id("d20_difficulty")
    assert grades["rigoureusement_impossible"]["cannot_succeed"] is True
    assert [g["id"] for g in grades.values() if g["cannot_succeed"]] == ["rigoureusement_impossible"]
    assert grades["evidente"]["optional"] is True
    # the maluses grow by 5 each step
    maluses = [e["modifier"] for e in entries("d20_difficulty")[1:-1]]
    assert maluses == [-5, -10, -15, -20, -25]


def test_d20_simultaneous_actions() -> None:
    assert {e["actions"]: e["modifier"] for e in entries("d20_simultaneous_actions")} == {
        2: -5,
        3: -8,
        4: -10,
    }


# --- d20: attack against defence ----------------------------------------------------------------


def _margins(score: int, roll: int) -> dict[str, int]:
    if roll <= score:
        return {"mr": score - roll}
    return {"failure_margin": roll - score}


def resolve(att_score: int, att_roll: int, def_score: int, def_roll: int) -> tuple[str, int | None]:
    """A tiny reference resolver driven only by the data, to check the cases are complete."""
    att, dfn = _margins(att_score, att_roll), _margins(def_score, def_roll)
    values = {
        "attacker_mr": att.get("mr"),
        "attacker_failure_margin": att.get("failure_margin"),
        "defender_mr": dfn.get("mr"),
        "defender_failure_margin": dfn.get("failure_margin"),
    }
    a_ok, d_ok = "mr" in att, "mr" in dfn
    if a_ok and d_ok:
        cmp = (
            "attacker_higher"
            if att["mr"] > dfn["mr"]
            else "attacker_lower"
            if att["mr"] < dfn["mr"]
            else "equal"
        )
    else:
        cmp = "not_compared"
    matches = [
        e
        for e in entries("d20_opposition")
        if (e["attacker"] == "success") == a_ok
        and (e["defender"] == "success") == d_ok
        and e["mr_comparison"] == cmp
    ]
    assert len(matches) == 1
    case = matches[0]
    if case["value"] is None:
        return case["outcome"], None
    total = sum(values[t] for t in case["value"]["plus"]) - sum(values[t] for t in case["value"]["minus"])
    return case["outcome"], total


def test_d20_opposition_cases_as_data() -> None:
    cases = by_id("d20_opposition")
    assert cases["both_succeed_attacker_higher"]["value"] == {
        "plus": ["attacker_mr"],
        "minus": ["defender_mr"],
    }
    assert cases["both_succeed_attacker_lower"]["outcome"] == "attacker_malus"
    assert cases["both_succeed_attacker_lower"]["initiative_to_defender"] is True
    assert cases["both_succeed_equal"]["outcome"] == "blocked"
    assert cases["both_succeed_equal"]["only_retreat_possible"] is True
    assert cases["attacker_succeeds_defender_fails"]["value"]["plus"] == [
        "attacker_mr",
        "defender_failure_margin",
    ]
    assert cases["attacker_fails_defender_succeeds"]["value"]["plus"] == [
        "attacker_failure_margin",
        "defender_mr",
    ]
    assert cases["attacker_fails_defender_succeeds"]["malus_applies_to"] == "attacker_next_action"
    assert cases["both_fail"]["outcome"] == "nothing"
    assert sorted(c["seed_case"] for c in cases.values() if c["seed_case"]) == [1, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("att", "dfn", "expected"),
    [
        ((15, 3), (12, 8), ("damage_index", 8)),  # MR 12 vs MR 4
        ((15, 11), (12, 2), ("attacker_malus", 6)),  # MR 4 vs MR 10
        ((15, 10), (12, 7), ("blocked", None)),  # MR 5 vs MR 5
        ((15, 5), (12, 16), ("damage_index", 14)),  # MR 10 + failure 4
        ((15, 18), (12, 9), ("attacker_malus", 6)),  # failure 3 + MR 3
        ((15, 19), (12, 14), ("nothing", None)),
    ],
)
def test_d20_opposition_worked(
    att: tuple[int, int], dfn: tuple[int, int], expected: tuple[str, int | None]
) -> None:
    assert resolve(*att, *dfn) == expected


def test_d20_manoeuvres_and_defences() -> None:
    doc_ = doc("d20_opposition")
    man = {m["id"]: m for m in doc_["manoeuvres"]}
    assert (man["feinte"]["attacker_modifier"], man["feinte"]["on_success_defender_modifier"]) == (-5, -10)
    assert (man["botte"]["attacker_modifier"], man["botte"]["on_success_defender_modifier"]) == (0, -15)
    assert man["botte"]["own_skill"] is True
    rules = {r["id"]: r for r in doc_["defence_rules"]}
    assert rules["brawl_dodge"]["next_action_modifier"] == -5
    assert rules["brawl_parry"]["modifier"] == -5
    assert rules["thrown_parry_dodge"]["modifier"] == -15
    assert rules["arrow_parry_dodge"]["modifier"] == -20
    assert rules["fired_parry_dodge"]["allowed"] == "no"
    assert rules["bare_hands_parry_weapon"]["allowed"] == "no"
    assert doc_["damage_index_table"]["in_seed"] is False


# --- ogl: fumble tables -------------------------------------------------------------------------


def _faces(rows: list[dict[str, Any]], lo: str, hi: str) -> list[int]:
    return sorted(f for r in rows for f in range(r[lo], r[hi] + 1))


@pytest.mark.parametrize("table", ["weapon", "natural_weapon", "unidentified"])
def test_ogl_fumbles_cover_every_face_once(table: str) -> None:
    rows = [e for e in entries("ogl_fumbles") if e["fumble_table"] == table]
    assert rows
    assert all(r["d20_min"] <= r["d20_max"] for r in rows)
    assert _faces(rows, "d20_min", "d20_max") == list(range(1, 21))
    ordered = sorted(rows, key=lambda r: r["d20_min"])
    assert all(a["d20_max"] + 1 == b["d20_min"] for a, b in itertools.pairwise(ordered))


def test_ogl_fumbles_declared_tables() -> None:
    d = doc("ogl_fumbles")
    assert {t["id"] for t in d["tables"]} == {e["fumble_table"] for e in d["entries"]}
    assert [t["id"] for t in d["tables"] if t["use_by_default"]] == ["weapon", "natural_weapon"]
    for e in d["entries"]:
        if e["status"] == "missing":
            assert e["effects"] == [] and e["name"] is None
        else:
            assert e["effects"]


def _face(table: str, face: int) -> dict[str, Any]:
    (row,) = [
        e
        for e in entries("ogl_fumbles")
        if e["fumble_table"] == table and e["d20_min"] <= face <= e["d20_max"]
    ]
    return row


def test_ogl_fumbles_pinned_faces() -> None:
    assert _face("weapon", 5)["effects"] == [{"kind": "drop_weapon", "distance_m": "1d4"}]
    assert _face("weapon", 16)["effects"] == [
        {"kind": "lose_armour_piece", "piece": "random", "if_no_armour": "reroll"}
    ]
    assert _face("weapon", 17)["effects"][0]["if_no_ally"] == "hit_self"
    assert _face("weapon", 18)["effects"][0] == {
        "kind": "weapon_damaged",
        "damage": "1d10",
        "plus_damage_modifier": True,
        "reduced_by_weapon_ap": True,
    }
    assert _face("weapon", 18)["status"] == "band_inferred"
    assert _face("weapon", 20)["effects"] == [{"kind": "hit_self", "damage": "normal_plus_damage_modifier"}]
    assert _face("weapon", 2)["status"] == "missing"
    assert _face("weapon", 14)["status"] == "partial"
    assert _face("natural_weapon", 2)["effects"] == [{"kind": "lose_combat_actions", "count": 1}]
    assert _face("natural_weapon", 15)["effects"] == [
        {"kind": "limb_hit_points_set", "value": -1, "wound": "serious"}
    ]
    assert _face("natural_weapon", 18)["effects"][0]["if_no_ally"] == "hit_self_random_location"
    assert _face("natural_weapon", 19)["effects"] == [{"kind": "roll_again", "times": 2}]
    assert _face("natural_weapon", 20)["effects"] == [{"kind": "roll_again", "times": 3}]
    assert _face("unidentified", 17)["effects"] == [{"kind": "hit_self", "damage": "normal"}]


# --- ogl: wounds --------------------------------------------------------------------------------


def wound_level(hp_now: int, location_hp: int) -> str | None:
    """Reference reading of the thresholds, driven by the data."""
    level = None
    for e in entries("ogl_wounds"):
        t = e["threshold"]
        bound = (0 if t["base"] == "zero" else -location_hp) + t["offset"]
        if (hp_now <= bound) if t["comparison"] == "at_most" else (hp_now < bound):
            level = e["id"]
    return level


@pytest.mark.parametrize(
    ("hp_now", "location_hp", "expected"),
    [
        (3, 5, None),
        (1, 5, None),
        (0, 5, "minor"),
        (-1, 5, "serious"),
        (-5, 5, "serious"),
        (-6, 5, "major"),
        (-20, 4, "major"),
    ],
)
def test_ogl_wound_thresholds(hp_now: int, location_hp: int, expected: str | None) -> None:
    assert wound_level(hp_now, location_hp) == expected


def test_ogl_wound_effects() -> None:
    levels = by_id("ogl_wounds")
    assert [e["id"] for e in entries("ogl_wounds")] == ["minor", "serious", "major"]
    assert {"kind": "lose_combat_actions", "count": 1} in levels["minor"]["effects"]
    assert {"kind": "lose_combat_actions", "count": "1d4"} in levels["serious"]["effects"]
    trunk = next(b for b in levels["major"]["by_location"] if "head" in b["locations"])["effects"]
    assert trunk[0]["on_failure"] == "death"
    timers = {
        tuple(b["locations"]): next(x for x in b["effects"] if x["kind"] == "death_timer")["combat_actions"]
        for b in levels["major"]["by_location"]
    }
    assert timers[("arm", "leg")] == {"sum_of": ["CON", "POU"], "divide_by": 1, "rounding": "none"}
    assert timers[("abdomen", "chest", "head")]["divide_by"] == 2
    limbs = {x["id"]: x for x in doc("ogl_wounds")["lost_limbs"]}
    assert [x["modifier"] for x in limbs["one_arm"]["effects"] if x["kind"] == "skill_modifier"] == [-20]
    assert [x["modifier"] for x in limbs["one_leg"]["effects"] if x["kind"] == "skill_modifier"] == [-10]


def test_ogl_knockback_and_critical() -> None:
    d = doc("ogl_wounds")
    kb = d["knockback"]
    assert (kb["base_metres"], kb["extra_metre_per_full_points_above"], kb["charge_distance_multiplier"]) == (
        1,
        5,
        2,
    )
    crit = d["critical_hit"]
    assert crit["critical_score"] == {
        "of": "weapon_skill",
        "divide_by": 10,
        "rounding": "down",
        "success_when": "roll_at_most_score",
    }
    assert crit["weapon_damage"] == "maximum"


# --- d20: tests, wounds, brawl, armour ----------------------------------------------------------


def test_d20_skills_and_chance() -> None:
    d = doc("d20_skills")
    assert d["test"]["critical_success"] == {"natural": [1], "margin_above": 20}
    assert d["test"]["critical_failure"] == {"natural": [20]}
    cats = by_id("d20_skills")
    assert (cats["instinct"]["without_skill"], cats["instinct"]["modifier"]) == ("use_inne_with_modifier", -5)
    assert cats["savoir"]["without_skill"] == "impossible"
    assert d["chance_test"]["lucky_when"] == "player_strictly_lower"


def test_d20_wounds_pools_and_malus() -> None:
    d = doc("d20_wounds")
    pools = {p["id"]: p for p in d["pools"]}
    assert pools["PV"]["maximum"] == {"base": 35, "characteristic": "Con", "multiply_by": 1}
    assert pools["PC"]["maximum"] == {"base": 0, "characteristic": "Con", "multiply_by": 2}
    assert pools["PC"]["when_all_lost"] == "overflow_to_PV"
    assert pools["PV"]["when_all_lost"] == "death"
    assert (d["wound_malus"]["per_point"], d["wound_malus"]["threshold"]) == (1, "Con")
    rates = by_id("d20_wounds")
    assert rates["pv_light"]["per"] == {"amount": 5, "unit": "hour"}
    assert rates["pv_heavy_first_half"]["per"] == {"amount": 1, "unit": "hour"}
    assert rates["pv_heavy_second_half"]["per"] == {"amount": 1, "unit": "day"}
    assert rates["pc"]["per"] == {"amount": 1, "unit": "minute"}


def test_d20_brawl_by_location() -> None:
    rows = by_id("d20_brawl")
    assert (rows["tete"]["dice"], rows["tete"]["divide_by"]) == ("1d10", 1)
    assert (rows["buste"]["dice"], rows["buste"]["divide_by"]) == ("1d6", 1)
    assert (rows["membres"]["dice"], rows["membres"]["divide_by"]) == ("1d6", 2)


def test_d20_armour_formulas_and_covers() -> None:
    d = doc("d20_armour")
    f = {(x["weapon_kind"], x["quantity"]): x for x in d["weapon_formulas"]}
    assert f[("edged", "shock")]["divide_total_by"] == 2
    assert f[("blunt", "shock")]["dice"] == "1d20"
    assert [t["divide_by"] for t in f[("blunt", "penetration")]["terms"] if t["term"] == "BF"] == [2]
    assert d["mechanics"]["pierces_when"] == "penetration_greater_than_RP"
    covers = by_id("d20_armour")
    assert covers["mur_madriers"]["sr"] == {"rp_multiplier": 3}
    assert covers["plaque_acier"]["rp"] == {"per_thickness": 10, "unit": "mm"}
    assert covers["gros_animal"]["sr"] == {"equals": "animal_weight"}


# --- d20: ranged, burst, artillery, air combat --------------------------------------------------


def _mr_bands_contiguous(bands: list[dict[str, Any]]) -> None:
    ordered = sorted(bands, key=lambda b: b["mr_min"])
    assert ordered[0]["mr_min"] == 0
    assert ordered[-1]["mr_max"] is None
    assert all(a["mr_max"] + 1 == b["mr_min"] for a, b in itertools.pairwise(ordered))


@pytest.mark.parametrize("name", ["d20_ranged", "d20_artillery_scatter", "d20_air_combat"])
def test_d20_mr_bands(name: str) -> None:
    bands = doc(name)["mr_bands"]
    _mr_bands_contiguous(bands)
    assert [(b["mr_min"], b["mr_max"]) for b in bands] == [(10, None), (5, 9), (0, 4)]


def test_d20_ranged_modifiers() -> None:
    mods = {e["id"]: e["modifier"] for e in entries("d20_ranged")}
    assert mods == {
        "instinctif": -4,
        "cible_rapide": -4,
        "tireur_lent": -4,
        "tireur_rapide": -8,
        "faible_lumiere": -6,
        "tres_faible_lumiere": -8,
        "obscurite_totale": -16,
        "appui_epaule": 4,
        "appui_poing": 2,
    }
    assert [b["die"] for b in doc("d20_ranged")["mr_bands"]] == [None, "1d6", "1d20"]


def test_d20_burst_and_covering_fire() -> None:
    rows = by_id("d20_burst_fire")
    assert rows["several_targets"]["hits"]["dice"] == "1d4-2"
    assert rows["several_targets"]["test_modifier"] == {"per": "target", "value": -1, "group_size": None}
    assert rows["single_target"]["test_modifier"] == {
        "per": "full_group_of_bullets",
        "value": 2,
        "group_size": 10,
    }
    assert rows["single_target"]["hits"]["dice"] == "1d6"
    assert doc("d20_covering_fire")["hit_when"] == "roll_at_most_weapon_score"


def test_d20_artillery_scatter() -> None:
    d = doc("d20_artillery_scatter")
    assert [e["face"] for e in d["entries"]] == list(range(1, 21))
    metres = [e["metres"] for e in d["entries"]]
    assert metres[:13] == list(range(2, 27, 2))
    assert metres[13:] == [27, 28, 30, 35, 40, 45, 50]
    assert _faces(d["directions"], "d20_min", "d20_max") == list(range(1, 21))
    assert {(x["d20_min"], x["direction"]) for x in d["directions"]} == {
        (1, "front"),
        (6, "left"),
        (11, "right"),
        (16, "behind"),
    }


def test_d20_air_combat_hit_table() -> None:
    d = doc("d20_air_combat")
    assert [e["face"] for e in d["entries"]] == list(range(1, 21))
    hits = [e["face"] for e in d["entries"] if e["hit"]]
    assert hits == [1, 2, 3, 4, 7, 8, 9, 13, 14, 19]
    mods = {m["id"]: m for m in d["modifiers"]}
    assert (mods["speed_atmosphere"]["value"], mods["speed_atmosphere"]["step"]) == (-1, 500)
    assert mods["human_size"]["value"] == -10


# --- ogl: situational modifiers, combat actions, hero points ------------------------------------


def test_ogl_situational_modifiers() -> None:
    mods = {e["id"]: e for e in entries("ogl_situational_modifiers")}
    assert mods["hors_de_combat"]["special"] == "automatic_critical"
    assert {
        k: v["modifier"] for k, v in mods.items() if v["context"] == "melee" and v["modifier"] is not None
    } == {
        "cible_surprise": 20,
        "cible_a_terre_ou_de_dos": 20,
        "position_surelevee_ou_monte": 20,
        "a_terre": -30,
        "sol_instable": -20,
        "bras_gene": -10,
        "sous_l_eau": -40,
        "defense_position_basse_ou_contre_monte": -20,
        "obscurite_partielle": -20,
        "obscurite": -40,
        "aveugle_obscurite_totale": -60,
    }
    assert doc("ogl_situational_modifiers")["cumulative"] is True


def test_ogl_combat_actions() -> None:
    d = doc("ogl_combat_actions")
    ar = d["action_ranks"]
    assert (ar["roll"], ar["surprise_modifier"], ar["ties"]) == (
        "1d10",
        -10,
        ["higher_DEX_first", "simultaneous"],
    )
    acts = by_id("ogl_combat_actions")
    assert acts["viser"]["modifiers"][0]["value"] == 10 and acts["viser"]["modifiers"][0]["cap"] == 30
    assert acts["charge"]["min_distance_m"] == 5 and acts["charge"]["modifiers"][0]["value"] == "1d4"
    assert acts["en_defense"]["modifiers"][0]["value"] == 20
    assert acts["courir"]["counter_attack_modifier"] == 20
    assert acts["nuee_de_coups"]["modifiers"][0]["value"] == -20
    assert {r["id"] for r in d["reactions"]} == {"esquiver", "parer", "plonger", "contre_attaquer"}
    assert d["reaction_limits"] == {"per_round": "as_many_as_combat_actions", "per_trigger": 1}
    assert d["precise_attacks"]["modifier"] == -40


def test_ogl_hero_points() -> None:
    points = by_id("ogl_hero_points")
    assert set(points) == {"seconde_chance", "eraflure", "chance_du_heros", "prouesse"}
    assert points["chance_du_heros"]["needs_gm_approval"] is True
