"""Shared messages in the server's language (issue 21 / 22 item 12): the pinned tracker follows the
server (its setting, else Discord's server locale, else French) whoever acted; the caller's own
reply and ``/combat voir`` follow the caller."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from bot.cogs._common import guild_locale_of
from bot.context import AppContext
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round, set_posture

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL = 830, 45
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
NPC = NpcStats(cc=40, f=30, e=30, ag=30, weapons="epee")


def field_names(outcome: FightOutcome) -> list[str]:
    assert outcome.tracker is not None
    return [f.name for f in outcome.tracker.fields]


async def fight(ctx: AppContext, gm: Caller) -> None:
    ok(await open_fight(ctx, gm, name="Embuscade"))
    ok(await add_combatants(ctx, gm, who="Bretteur", stats=NPC))
    ok(await add_combatants(ctx, gm, who="Sentinelle", stats=replace(NPC, gender="f")))
    ok(await new_round(ctx, gm, dice="Bretteur: 20 20 20; Sentinelle: 1 1 1"))


async def test_an_english_gm_on_a_french_server_gets_english_replies_and_a_french_tracker(
    ctx: AppContext,
) -> None:
    english = replace(GM, locale="en-US", guild_locale="fr")
    await fight(ctx, english)
    moved = await set_posture(ctx, english, posture="prudente", who="Bretteur")
    assert ok(moved) is not None
    assert "careful" in (moved.reply.description or "")  # the caller's own reply: English
    names = field_names(moved)
    assert names[0] == "Ordre" and "Sentinelle · PNJ" in names  # the table's tracker: French
    mine = await show(ctx, english)  # a copy for the caller alone: English
    assert mine.reply.fields[0].name == "Order"


async def test_a_french_player_on_an_english_server_gets_an_english_tracker(ctx: AppContext) -> None:
    french = replace(GM, guild_locale="en-GB")
    await fight(ctx, french)
    moved = await set_posture(ctx, french, posture="prudente", who="Bretteur")
    assert "prudente" in (moved.reply.description or "")
    assert field_names(moved)[0] == "Order"


async def test_without_a_server_locale_the_tracker_is_french(ctx: AppContext) -> None:
    english = replace(GM, locale="en-US")
    await fight(ctx, english)
    assert field_names(await set_posture(ctx, english, posture="prudente", who="Bretteur"))[0] == "Ordre"


def interaction(locale: str | None, features: list[str] | None) -> Any:
    guild = None if features is None else SimpleNamespace(features=features)
    return SimpleNamespace(guild_locale=locale, guild=guild)


def test_discord_default_en_us_counts_only_for_a_community_server() -> None:
    assert guild_locale_of(interaction("fr", [])) == "fr"
    assert guild_locale_of(interaction("en-GB", [])) == "en-GB"
    assert guild_locale_of(interaction("en-US", [])) is None  # every non-Community server says en-US
    assert guild_locale_of(interaction("en-US", ["COMMUNITY"])) == "en-US"
    assert guild_locale_of(interaction("en-US", None)) is None
    assert guild_locale_of(interaction(None, ["COMMUNITY"])) is None
