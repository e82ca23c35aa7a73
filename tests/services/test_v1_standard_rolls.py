"""`v1` standard tests of issue 20 (item 14), seed 001 l. 16-47, dice typed by hand: Bond, Chute and
Saut are rolls (« 2 x M -1d6 (min 2m) », « Dmg = h x 2 -1d6 », « Dmg = h -1d6 »), with the helpful
skill's points (« Acrobatie (+2) », « Acrobatie, Pitreries (-2) »); the helpful skills' % bonuses
apply when the character has them (« Corruption (+20%) », « Calcul mental (+10%), Triche (+Int%) »)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.context import AppContext
from bot.db.characters import new_row, set_active
from bot.db.repositories import set_channel_ruleset
from bot.rules.sheets import SheetData
from bot.rules.v1.checks import standard_roll
from bot.services.skill_tests.single import TestRequest, skill_test

from .test_fights import ALICE, BOB, CHANNEL, GUILD, ctx

__all__ = ["ctx"]

BOND = {"quantity": "jump_distance_m", "expression": "2*M-1d6", "minimum": 2}
CHUTE = {"quantity": "falling_damage", "expression": "h*2-1d6", "minimum": None}
SAUT = {"quantity": "falling_damage", "expression": "h-1d6", "minimum": None}


@pytest.mark.parametrize(
    ("formula", "value", "skill", "die", "total"),
    [
        (BOND, 4, 0, 3, 5),  # 2 × 4 − 3
        (BOND, 4, 2, 3, 7),  # Acrobatie +2 m
        (BOND, 2, 0, 6, 2),  # 4 − 6 = −2: « min 2m »
        (CHUTE, 5, 0, 4, 6),  # 5 × 2 − 4
        (CHUTE, 5, -2, 4, 4),  # Acrobatie −2
        (CHUTE, 1, 0, 6, 0),  # 2 − 6: no damage below 0 (reading)
        (SAUT, 5, 0, 1, 4),
        (SAUT, 5, -2, 1, 2),
    ],
)
def test_the_seeds_rolls(formula: dict[str, Any], value: int, skill: int, die: int, total: int) -> None:
    rolled = standard_roll(formula, value, skill=skill, roll=die)
    assert (rolled.die, rolled.total) == (die, total)


async def sheets(ctx: AppContext) -> None:
    """Albert (Alice: Acrobatie, Corruption, Calcul mental, Triche) and Bruno (Bob: no skill), each
    his player's active sheet."""
    values = {"CC": 40, "CT": 30, "F": 3, "E": 3, "B": 8, "I": 40, "A": 1, "M": 4, "Dex": 30}
    values.update({"Cd": 30, "Int": 35, "Cl": 30, "FM": 30, "Soc": 30})
    skilled = {"Acrobatie": 0, "Corruption": 0, "Calcul mental": 0, "Triche": 0}
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "v1")
        for owner, name, skills in ((ALICE.user_id, "Albert", skilled), (BOB.user_id, "Bruno", {})):
            row = new_row(
                GUILD, owner, SheetData(name=name, ruleset="v1", characteristics=values, skills=skills)
            )
            session.add(row)
            await session.flush()
            await set_active(session, GUILD, owner, row.id)


async def test_bond_chute_saut_with_and_without_acrobatie(ctx: AppContext) -> None:
    await sheets(ctx)
    leap = await skill_test(ctx, ALICE, TestRequest(action="Bond", roll=3))
    assert leap.result is not None and leap.result["standard_roll"]["total"] == 2 * 4 - 3 + 2
    assert leap.title == "🎲 Bond" and "2 × M 4 − 1d6 **3** + 2 (Acrobatie) = **7 m**" in (
        leap.description or ""
    )
    plain = await skill_test(ctx, BOB, TestRequest(action="Bond", roll=3))
    assert plain.result is not None and plain.result["standard_roll"]["total"] == 5
    fall = await skill_test(ctx, BOB, TestRequest(action="Chute", carac="5", roll=4))
    assert fall.result is not None and fall.result["standard_roll"]["total"] == 6
    assert fall.title == "🎲 Fall" and "2 × h 5 − 1d6 **4** = **6** points of damage" in (
        fall.description or ""
    )
    jump = await skill_test(ctx, ALICE, TestRequest(action="Saut", carac="5", roll=1))
    assert jump.result is not None and jump.result["standard_roll"]["total"] == 5 - 1 - 2
    no_height = await skill_test(ctx, ALICE, TestRequest(action="Chute", roll=4))
    assert no_height.is_error and "hauteur" in (no_height.description or "")
    bad = await skill_test(ctx, ALICE, TestRequest(action="Saut", carac="3", roll=7))
    assert bad.is_error


async def test_helpful_skills_add_their_percent(ctx: AppContext) -> None:
    await sheets(ctx)
    # Corruption: 100 % − the target's Vol (the GM gives 60), + 20 % with the skill
    bribe = await skill_test(ctx, ALICE, TestRequest(action="Corruption", carac="60", roll=75))
    assert bribe.result is not None and bribe.result["target"] == 80 and bribe.result["success"]
    plain = await skill_test(ctx, BOB, TestRequest(action="Corruption", carac="60", roll=75))
    assert plain.result is not None and plain.result["target"] == 60 and not plain.result["success"]
    # Jeu (the GM's 40): Calcul mental +10 %, Triche + Int 35 %
    game = await skill_test(ctx, ALICE, TestRequest(action="Jeu", carac="40", roll=50))
    assert game.result is not None and game.result["target"] == 40 + 10 + 35


async def test_a_failed_terreur_writes_a_folie_point_on_the_sheet(ctx: AppContext) -> None:
    """Seed 001 l. 47: « Terreur | Cl | Cible inerte, +1 pts Folie » (reading: on a failure)."""
    from sqlalchemy import select

    from bot.db.models import Character

    await sheets(ctx)
    kept = await skill_test(ctx, ALICE, TestRequest(action="Terreur", roll=10))  # Cl 30: 10 succeeds
    assert kept.result is not None and kept.result["success"]
    assert not [f for f in kept.fields if f.name == "Folie"]
    frozen = await skill_test(ctx, ALICE, TestRequest(action="Terreur", roll=80))
    [madness] = [f.value for f in frozen.fields if f.name == "Folie"]
    assert madness == "Cible inerte ; +1 point de Folie sur la fiche d'Albert : 0 → 1."
    again = await skill_test(ctx, ALICE, TestRequest(action="Terreur", roll=95))
    assert [f.value for f in again.fields if f.name == "Folie"] == [
        "Cible inerte ; +1 point de Folie sur la fiche d'Albert : 1 → 2."
    ]
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Albert"))).one()
        assert row.characteristics["PF"] == 2
    # a number typed (Bob, in English): nothing is written, the reply says to note it
    typed = await skill_test(ctx, BOB, TestRequest(action="Terreur", carac="30", roll=90))
    assert [f.value for f in typed.fields if f.name == "Insanity"] == [
        "Frozen; +1 Insanity point to note on the sheet."
    ]
