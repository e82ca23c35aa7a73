"""Concurrent writers on one fight (SQLite and PostgreSQL): a writer that lost the race writes
nothing and is told to retry; use cases on the same thread of one process queue up instead."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from sqlalchemy import func, select

from bot.context import AppContext
from bot.db.fight_models import Fight, FightEvent
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome, Scope, fight_by_id, new_event, run
from bot.services.fights.conditions import correct
from bot.services.fights.opening import add_combatants, open_fight
from bot.ui.reply import Reply

from .fight_context import ctx

__all__ = ["ctx"]

GUILD, CHANNEL = 800, 42
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
GM_EN = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="en-US", manage_guild=True)


async def _fight(ctx: AppContext) -> int:
    opened = await open_fight(ctx, GM, name="Rixe")
    assert not opened.reply.is_error and opened.fight_id is not None
    added = await add_combatants(ctx, GM, who="gobelin")
    assert not added.reply.is_error, added.reply.description
    return opened.fight_id


async def _rows(ctx: AppContext, fight_id: int) -> tuple[int, int, dict[str, object]]:
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None
        events = await session.scalar(select(func.count()).where(FightEvent.fight_id == fight_id))
        return row.version, int(events or 0), dict(row.state)


@pytest.mark.parametrize("caller", [GM, GM_EN], ids=["fr", "en"])
async def test_a_writer_that_lost_the_race_writes_nothing_and_is_told_to_retry(
    ctx: AppContext, caller: Caller
) -> None:
    fight_id = await _fight(ctx)
    version, events, _ = await _rows(ctx, fight_id)

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_by_id(scope, fight_id)
        # Another process writes the fight between our read and our write.
        async with ctx.sessions.begin() as other:
            row = await other.get(Fight, fight_id)
            assert row is not None
            row.state = {**row.state, "by_the_other": True}
        new_event(scope, doc, "correct", None, {"field": "Int", "before": 20, "after": 99})
        doc.data["ours"] = True
        doc.save()
        return FightOutcome(Reply(description="written"))

    outcome = await run(ctx, caller, work)
    assert outcome.reply.is_error and outcome.reply.ephemeral
    language = "en" if caller.locale.startswith("en") else "fr"
    assert outcome.reply.description == ctx.catalog.t(language, "combat.error.stale")
    after_version, after_events, state = await _rows(ctx, fight_id)
    # Only the other writer's change: no event, no state of ours, one version more (theirs).
    assert (after_version, after_events) == (version + 1, events)
    assert state.get("by_the_other") is True and "ours" not in state


async def test_use_cases_on_one_thread_queue_up_and_all_go_through(ctx: AppContext) -> None:
    """30 GM fixes at once in one process: none refused as stale, each saw the one before."""
    fight_id = await _fight(ctx)
    version, events, _ = await _rows(ctx, fight_id)
    values = list(range(100, 130))
    outcomes = await asyncio.gather(
        *(correct(ctx, GM, who="Gobelin", field_name="Int", value=v) for v in values)
    )
    assert [o.reply.description for o in outcomes if o.reply.is_error] == []
    async with ctx.sessions() as session:
        fixes = [
            e.payload
            for e in await session.scalars(
                select(FightEvent).where(FightEvent.fight_id == fight_id).order_by(FightEvent.seq)
            )
            if e.kind == "correct"
        ]
    # One order: each fix saw the one before it; every value landed exactly once.
    assert sorted(f["after"] for f in fixes) == values
    assert all(b["before"] == a["after"] for a, b in itertools.pairwise(fixes))
    after_version, after_events, state = await _rows(ctx, fight_id)
    assert (after_version, after_events) == (version + len(values), events + len(values))
    gobelin = state["fight"]["combatants"][0]  # type: ignore[index]
    assert gobelin["characteristics"]["Int"] == fixes[-1]["after"]
