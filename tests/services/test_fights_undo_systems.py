"""``/combat annuler`` on the other rulesets: no code of theirs knows about the journal, yet their
actions are undone exactly — a `d20` burst of fire on two targets, an `ogl` grapple and its hits."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.fight_models import Fight
from bot.services.fights.rounds import new_round
from bot.services.fights.systems import d20_fire as fire
from bot.services.fights.systems.ogl_manoeuvres.grapple import grapple
from bot.services.fights.undo import undo

from .test_fights import GM, NoDice, ctx, ok
from .test_fights_d20_fire import ROUND, d20_fight
from .test_fights_ogl_manoeuvres import fight as ogl_fight

__all__ = ["ctx"]


async def _doc(ctx: AppContext) -> dict[str, Any]:
    async with ctx.sessions() as session:
        return fight_journal.document((await session.scalars(select(Fight))).one().state)


async def test_a_d20_burst_of_fire_is_undone_exactly(ctx: AppContext) -> None:
    await d20_fight(ctx)
    ok(await new_round(ctx, GM, dice=ROUND))
    before = await _doc(ctx)
    data = fire.BurstInput(targets="Garde, Bretteur", roll=3, hits="4 3", zones="2 5 1", damage="12 4 9")
    ok(await fire.burst(ctx, GM, data, rng=NoDice()))
    assert (await _doc(ctx)) != before  # the guards took the bullets
    result = await undo(ctx, GM)
    assert result.reply.description.splitlines()[0] == "↩️ Annulé : le tir de Tireur (action n° 5)."
    assert (await _doc(ctx)) == before


async def test_an_ogl_grapple_is_undone_exactly(ctx: AppContext) -> None:
    await ogl_fight(ctx)
    ok(await new_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    before = await _doc(ctx)
    ok(await grapple(ctx, GM, action="saisir", who="Chevalier", target="Orc", roll=30, target_roll=20))
    assert (await _doc(ctx)) != before
    result = await undo(ctx, GM)
    assert result.reply.description.splitlines()[0] == "↩️ Annulé : la manœuvre de Chevalier (action n° 4)."
    assert (await _doc(ctx)) == before
