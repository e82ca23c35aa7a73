"""Seed 003 (d20, "Procédures générales") and seed 004 (ogl, "Règles OGL : Combat") tables: pinned readings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.data_loading import DATA_DIR, validate_file

OWNED = [
    "d20_difficulty",
    "d20_simultaneous_actions",
    "d20_opposition",
]


def doc(name: str) -> dict[str, Any]:
    return dict(validate_file(DATA_DIR / f"{name}.json").document)


def entries(name: str) -> list[dict[str, Any]]:
    return list(doc(name).get("entries", []))


def by_id(name: str) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in entries(name)}


@pytest.mark.parametrize("name", OWNED)
def test_file_validates_and_has_notes(name: str) -> None:
    table = validate_file(DATA_DIR / f"{name}.json")
    assert table.name == name
    assert table.document["ruleset"] == name.split("_", 1)[0]
    assert table.document["notes"], f"{name} records no reading"
    assert Path(DATA_DIR / "schemas" / f"{table.schema}.schema.json").is_file()
    assert table.schema.startswith(("d20_", "ogl_"))


@pytest.mark.parametrize("name", [n for n in OWNED if entries(n) and "id" in entries(n)[0]])
def test_ids_unique(name: str) -> None:
    ids = [e["id"] for e in entries(name)]
    assert len(ids) == len(set(ids))


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
    assert {e["actions"]: e["modifier"] for e in entries("d20_simultaneous_actions")} == {2: -5, 3: -8, 4: -10}


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
        cmp = "attacker_higher" if att["mr"] > dfn["mr"] else "attacker_lower" if att["mr"] < dfn["mr"] else "equal"
    else:
        cmp = "not_compared"
    matches = [
        e
        for e in entries("d20_opposition")
        if (e["attacker"] == "success") == a_ok and (e["defender"] == "success") == d_ok and e["mr_comparison"] == cmp
    ]
    assert len(matches) == 1
    case = matches[0]
    if case["value"] is None:
        return case["outcome"], None
    total = sum(values[t] for t in case["value"]["plus"]) - sum(values[t] for t in case["value"]["minus"])
    return case["outcome"], total


def test_d20_opposition_cases_as_data() -> None:
    cases = by_id("d20_opposition")
    assert cases["both_succeed_attacker_higher"]["value"] == {"plus": ["attacker_mr"], "minus": ["defender_mr"]}
    assert cases["both_succeed_attacker_lower"]["outcome"] == "attacker_malus"
    assert cases["both_succeed_attacker_lower"]["initiative_to_defender"] is True
    assert cases["both_succeed_equal"]["outcome"] == "blocked"
    assert cases["both_succeed_equal"]["only_retreat_possible"] is True
    assert cases["attacker_succeeds_defender_fails"]["value"]["plus"] == ["attacker_mr", "defender_failure_margin"]
    assert cases["attacker_fails_defender_succeeds"]["value"]["plus"] == ["attacker_failure_margin", "defender_mr"]
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
def test_d20_opposition_worked(att: tuple[int, int], dfn: tuple[int, int], expected: tuple[str, int | None]) -> None:
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
