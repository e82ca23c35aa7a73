"""What the fight service tests share: the ``ctx`` fixture (the services' context on a fresh migrated
database, each of ``database_url``'s, with every data table and a seeded random source) and
:func:`ok`."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.context import AppContext, migrated_context
from bot.data_loading import load_all
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome
from bot.services.fights.rounds import advance, new_round


@pytest.fixture
async def ctx(database_url: str) -> AsyncIterator[AppContext]:
    async with migrated_context(database_url, rng=random.Random(3), tables=load_all()) as context:
        yield context


def ok(outcome: FightOutcome) -> dict[str, Any]:
    """The result of a use case that must have succeeded."""
    reply = outcome.reply
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


async def skip_turn(ctx: AppContext, gm: Caller) -> FightOutcome:
    """The GM's ``/combat suivant`` and its confirmation (the fighter whose turn it is skips it)."""
    asked = ok(await advance(ctx, gm))
    assert asked["confirm"], asked
    return await advance(
        ctx, gm, fight_id=int(asked["fight_id"]), confirmed=(asked["turn"][0], asked["turn"][1])
    )


async def next_round(ctx: AppContext, gm: Caller, dice: str | None = None) -> FightOutcome:
    """The GM's ``/combat round``, confirmed when the round still had fighters or defences to come."""
    first = await new_round(ctx, gm, dice=dice)
    result = ok(first)
    if not result.get("confirm"):
        return first
    return await new_round(ctx, gm, fight_id=int(result["fight_id"]), confirmed=int(result["round"]))
