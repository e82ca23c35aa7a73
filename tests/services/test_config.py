"""``/config`` use cases: rights, ruleset per server and per channel/thread, GM role and channel."""

from __future__ import annotations

import pytest

from bot.context import AppContext
from bot.db.repositories import ServerConfig, get_server_config
from bot.services import config as svc
from bot.services.caller import Caller

GUILD = 800


def caller(user_id: int, **kwargs: object) -> Caller:
    base: dict[str, object] = {"guild_id": GUILD, "channel_id": 10, "locale": "fr"}
    base.update(kwargs)
    return Caller(user_id=user_id, **base)  # type: ignore[arg-type]


PLAYER = caller(1)
ADMIN = caller(2, manage_guild=True)
GM = caller(3, role_names=frozenset({"MJ"}), role_ids=frozenset({55}))
IN_THREAD = caller(3, role_names=frozenset({"MJ"}), channel_id=11, parent_channel_id=10)


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


async def test_default_is_renove_and_players_cannot_change_it(ctx: AppContext) -> None:
    shown = await svc.show_config(ctx, PLAYER)
    assert shown.result is not None and shown.result["in_force"] == "renove" and shown.ephemeral
    refused = await svc.set_ruleset(ctx, PLAYER, ruleset="d20")
    assert refused.is_error and refused.ephemeral and "MJ" in (refused.description or "")


async def test_server_then_channel_override_then_thread_inherits(ctx: AppContext) -> None:
    assert not (await svc.set_ruleset(ctx, ADMIN, ruleset="v1")).is_error
    assert not (await svc.set_ruleset(ctx, GM, ruleset="d20", scope="channel")).is_error
    here = await svc.show_config(ctx, GM)
    assert here.result is not None and here.result["in_force"] == "d20" and here.result["ruleset"] == "v1"
    thread = await svc.show_config(ctx, IN_THREAD)
    assert thread.result is not None and thread.result["in_force"] == "d20"
    # Setting the channel back to the server's ruleset removes the override.
    cleared = await svc.set_ruleset(ctx, GM, ruleset="v1", scope="channel")
    assert cleared.result is not None and cleared.result["channel_override"] is None


async def test_gm_role_then_only_that_role_counts(ctx: AppContext) -> None:
    assert not (await svc.set_gm_role(ctx, GM, role_id=77)).is_error
    # GM's roles do not include 77: the "MJ" name no longer counts once a role is configured.
    assert (await svc.set_ruleset(ctx, GM, ruleset="ogl")).is_error
    assert not (await svc.set_ruleset(ctx, caller(4, role_ids=frozenset({77})), ruleset="ogl")).is_error


async def test_gm_channel_set_and_cleared(ctx: AppContext) -> None:
    assert not (await svc.set_gm_channel(ctx, GM, channel_id=99)).is_error
    shown = await svc.show_config(ctx, GM)
    assert shown.result is not None and shown.result["gm_channel_id"] == 99
    assert not (await svc.set_gm_channel(ctx, GM, channel_id=None)).is_error
    shown = await svc.show_config(ctx, GM)
    assert shown.result is not None and shown.result["gm_channel_id"] is None


async def test_errors_in_english_and_outside_servers(ctx: AppContext) -> None:
    english = await svc.set_ruleset(ctx, caller(1, locale="en-US"), ruleset="d20")
    assert english.is_error and "Only a GM" in (english.description or "")
    dm = await svc.show_config(ctx, caller(1, guild_id=None))
    assert dm.is_error


def test_secret_destination_rule() -> None:
    assert svc.secret_destination(ServerConfig(GUILD, gm_channel_id=5), 9) == svc.SecretDestination(
        channel_id=5
    )
    assert svc.secret_destination(ServerConfig(GUILD), 9) == svc.SecretDestination(user_id=9)
    assert not svc.secret_destination(None, None).known


def test_secret_results_go_to_the_gm_channel_then_the_recorded_gm_then_the_owner() -> None:
    both = ServerConfig(GUILD, gm_channel_id=5, gm_user_id=7)
    assert svc.secret_destination(both, 9) == svc.SecretDestination(channel_id=5)
    assert svc.secret_destination(ServerConfig(GUILD, gm_user_id=7), 9) == svc.SecretDestination(user_id=7)


async def test_setting_the_gm_role_records_who_receives_secret_results(ctx: AppContext) -> None:
    reply = await svc.set_gm_role(ctx, GM, role_id=77)
    assert reply.result is not None and reply.result["gm_user_id"] == GM.user_id
    chosen = await svc.set_gm_role(ctx, caller(4, role_ids=frozenset({77})), role_id=77, recipient_id=42)
    assert chosen.result is not None and chosen.result["gm_user_id"] == 42
    async with ctx.sessions() as session:
        config = await get_server_config(session, GUILD)
    assert config.gm_user_id == 42
