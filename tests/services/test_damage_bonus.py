"""Combattant virevoltant (seed 000 l. 1250-1252): the blow's bonus is BA instead of BF, only with
the weapons the talent names (the talent table lists them)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.rules.combat.state import Combatant
from bot.services.fights.damage import damage_bonus


@dataclass(frozen=True)
class Blade:
    name: str


@pytest.mark.parametrize(
    ("talents", "weapon", "bonus"),
    [
        (frozenset({"combattant_virevoltant"}), "Fleuret", 8),
        (frozenset({"combattant_virevoltant"}), "Bâton", 8),
        (frozenset({"combattant_virevoltant"}), "Epée", 6),  # not one of the talent's weapons
        (frozenset(), "Fleuret", 6),
    ],
)
def test_the_whirling_fighter_strikes_with_ba(talents: frozenset[str], weapon: str, bonus: int) -> None:
    fencer = Combatant("f", "Fencer", {"BF": 6, "BA": 8}, talents=talents)
    assert damage_bonus(fencer, Blade(weapon)) == bonus
