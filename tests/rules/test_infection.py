"""Wound infection: modifiers from data/infection.json, margins 1-20 / 21-40 / 41+, durations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.rules.renove.infection import InfectionError, amputation_test, infection_test, modifiers_for

DATA = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "infection.json").read_text(encoding="utf-8")
)
ENTRIES, OUTCOMES = DATA["entries"], DATA["outcomes"]


def _test(critical: int, roll: int, **kwargs: object) -> dict[str, object]:
    chosen = kwargs.pop("chosen", {})
    result = infection_test(
        OUTCOMES, ENTRIES, toughness=40, be=4, critical=critical, chosen=chosen, roll=roll, **kwargs
    )  # type: ignore[arg-type]
    return result.to_dict()


@pytest.mark.parametrize(
    ("critical", "value"),
    [(2, 20), (3, 20), (4, 10), (5, 10), (6, 0), (7, 0), (8, -10), (9, -10), (10, -20), (15, -20)],
)
def test_wound_type_from_the_critical_value(critical: int, value: int) -> None:
    assert modifiers_for(ENTRIES, critical, {})[0].value == value


def test_critical_1_needs_no_test() -> None:
    assert _test(1, 100)["exempt"] is True


def test_modifiers_add_up_and_exclusive_ones_are_refused() -> None:
    mods = modifiers_for(
        ENTRIES,
        6,
        {
            "fragment_arme": True,
            "arme_sale": True,
            "blessure_lavee": True,
            "blessure_suturee_reussie": True,
            "environnement_infect": -30,
        },
    )
    assert sum(m.value for m in mods) == 0 - 20 - 10 + 10 + 20 - 30
    with pytest.raises(InfectionError):
        modifiers_for(ENTRIES, 6, {"arme_sale": True, "arme_propre": True})
    with pytest.raises(InfectionError):
        modifiers_for(ENTRIES, 6, {"environnement_infect": -15})
    with pytest.raises(InfectionError):
        modifiers_for(ENTRIES, 16, {})


@pytest.mark.parametrize(
    ("roll", "outcome"),
    [
        (40, None),
        (41, "fievre"),
        (60, "fievre"),
        (61, "infection_grave"),
        (80, "infection_grave"),
        (81, "gangrene"),
    ],
)
def test_failure_margin_picks_the_effect(roll: int, outcome: str | None) -> None:
    # Critical 6-7: +0, target 40.
    assert _test(6, roll)["outcome"] == outcome


def test_durations_use_be_and_double_out_of_bed() -> None:
    fever = _test(6, 50)
    assert fever["phases"] == [{"all_tests_modifier": -10, "days": 6, "incapacitated": False}]
    serious = _test(6, 70, bedridden=False)
    assert [p["days"] for p in serious["phases"]] == [2, 12, 12]  # type: ignore[union-attr]
    gangrene = _test(6, 95)
    assert gangrene["death_after_days"] == 9


def test_amputation_soins_bonus() -> None:
    result = amputation_test(toughness=30, soins_success=True, soins_degrees=2, roll=55)
    assert result.target == 60 and result.success
