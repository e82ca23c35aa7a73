"""Where the emulator is as strict as Discord's documentation (../shared/DISCORD_EMULATOR.md):
per-channel permissions, Pin Messages, threads that auto-archive, closed DMs, deleted channels,
per-route rate limits, latency, hour-old edits, the first-followup ephemeral rule."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import pytest

from bot.emulator.client import ClientRefused, Table
from bot.emulator.server import Emulator, EmulatorConfig
from bot.emulator.state import FLAG_EPHEMERAL, FakeClock, Perm

Answer = tuple[int, Any, dict[str, str]]


async def _api(emu: Emulator, method: str, path: str, payload: Any = None) -> Answer:
    headers = {"Authorization": "Bot x"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{emu.base_url}/api/v10{path}", json=payload, headers=headers) as resp,
    ):
        body = await resp.json() if resp.status != 204 else None
        return resp.status, body, dict(resp.headers)


async def _started(config: EmulatorConfig | None = None, clock: FakeClock | None = None) -> Emulator:
    emu = Emulator(config or EmulatorConfig(), clock=clock or FakeClock())
    emu.add_default_world()
    await emu.start()
    return emu


async def test_channel_overwrites_decide_what_the_bot_may_do_there(emu: Emulator) -> None:
    bot_role = emu.guild.role(emu.config.bot_name)
    hidden = emu.channel("hors-jeu")
    emu.set_overwrite(hidden, emu.guild.everyone, deny=Perm.VIEW_CHANNEL)
    status, body, _ = await _api(emu, "POST", f"/channels/{hidden.id}/messages", {"content": "x"})
    assert (status, body["code"]) == (403, 50001)
    # Its own role allowed back in, but told not to speak: Missing Permissions, not Missing Access.
    emu.set_overwrite(hidden, bot_role, allow=Perm.VIEW_CHANNEL, deny=Perm.SEND_MESSAGES)
    status, body, _ = await _api(emu, "POST", f"/channels/{hidden.id}/messages", {"content": "x"})
    assert (status, body["code"]) == (403, 50013)
    # A member overwrite beats the role's.
    emu.set_overwrite(hidden, emu.bot_user, allow=Perm.SEND_MESSAGES)
    status, _, _ = await _api(emu, "POST", f"/channels/{hidden.id}/messages", {"content": "x"})
    assert status == 200
    # The interaction payload carries the bot's permissions in the channel it came from.
    gm = emu.user_named("gm")
    emu.set_overwrite(hidden, bot_role, allow=Perm.VIEW_CHANNEL, deny=Perm.EMBED_LINKS)
    interaction = await emu.dispatch_interaction(gm, 2, {"id": "1", "name": "x", "type": 1}, hidden)
    app_permissions = int(interaction.payload["app_permissions"])
    assert not app_permissions & Perm.EMBED_LINKS and app_permissions & Perm.SEND_MESSAGES
    elsewhere = await emu.dispatch_interaction(
        gm, 2, {"id": "1", "name": "x", "type": 1}, emu.channel("partie")
    )
    assert int(elsewhere.payload["app_permissions"]) & Perm.EMBED_LINKS
    assert hidden.payload()["permission_overwrites"]


async def test_pinning_needs_pin_messages_not_manage_messages() -> None:
    emu = await _started(EmulatorConfig(bot_permissions=Perm.OLD_INVITE))
    try:
        channel = emu.channel("partie")
        _, message, _ = await _api(emu, "POST", f"/channels/{channel.id}/messages", {"content": "x"})
        status, body, _ = await _api(emu, "PUT", f"/channels/{channel.id}/pins/{message['id']}")
        assert (status, body["code"]) == (403, 50013)
        emu.guild.role(emu.config.bot_name).permissions |= Perm.PIN_MESSAGES
        status, _, _ = await _api(emu, "PUT", f"/channels/{channel.id}/pins/{message['id']}")
        assert status == 204 and emu.pins(channel)[0].id == message["id"]
    finally:
        await emu.stop()


async def test_threads_archive_after_their_duration_and_refuse_edits(emu: Emulator, clock: FakeClock) -> None:
    parent = emu.channel("partie")
    _, thread, _ = await _api(
        emu,
        "POST",
        f"/channels/{parent.id}/threads",
        {"name": "Duel", "type": 11, "auto_archive_duration": 60},
    )
    _, message, _ = await _api(emu, "POST", f"/channels/{thread['id']}/messages", {"content": "1"})
    await emu.advance(59 * 60)
    # An edit is no activity: it does not hold the archiving off.
    status, _, _ = await _api(
        emu, "PATCH", f"/channels/{thread['id']}/messages/{message['id']}", {"content": "2"}
    )
    assert status == 200 and not emu.channel(thread["id"]).archived
    await emu.advance(60)
    assert emu.channel(thread["id"]).archived
    status, body, _ = await _api(
        emu, "PATCH", f"/channels/{thread['id']}/messages/{message['id']}", {"content": "3"}
    )
    assert (status, body["code"]) == (400, 50083)
    # Sending unarchives it, and the clock starts again.
    status, _, _ = await _api(emu, "POST", f"/channels/{thread['id']}/messages", {"content": "4"})
    assert status == 200 and not emu.channel(thread["id"]).archived
    await emu.advance(30 * 60)
    assert not emu.channel(thread["id"]).archived
    # Longer durations are honoured; odd ones refused.
    status, _, _ = await _api(emu, "PATCH", f"/channels/{thread['id']}", {"auto_archive_duration": 10080})
    assert status == 200
    await emu.advance(6 * 24 * 3600)
    assert not emu.channel(thread["id"]).archived
    status, _, _ = await _api(emu, "PATCH", f"/channels/{thread['id']}", {"auto_archive_duration": 100})
    assert status == 400


async def test_closed_dms_and_deleted_channels(emu: Emulator) -> None:
    gm = emu.user_named("gm")
    _, dm, _ = await _api(emu, "POST", "/users/@me/channels", {"recipient_id": gm.id})
    status, _, _ = await _api(emu, "POST", f"/channels/{dm['id']}/messages", {"content": "psst"})
    assert status == 200
    emu.config.dm_closed.add(gm.id)
    status, body, _ = await _api(emu, "POST", f"/channels/{dm['id']}/messages", {"content": "psst"})
    assert (status, body["code"]) == (403, 50007)
    emu.failures.clear()
    gone = emu.channel("hors-jeu")
    await emu.delete_channel(gone)
    status, body, _ = await _api(emu, "POST", f"/channels/{gone.id}/messages", {"content": "x"})
    assert (status, body["code"]) == (404, 10003)
    assert gone not in emu.guild.channels and gone.id in emu.deleted_channels


async def test_rate_limits_per_route_and_channel_with_headers() -> None:
    clock = FakeClock()
    config = EmulatorConfig(rate_limits={"PATCH /channels/{cid}/messages/{mid}": (2, 5.0)})
    emu = await _started(config, clock)
    try:
        ids = {}
        for name in ("partie", "général"):
            channel = emu.channel(name)
            _, message, _ = await _api(emu, "POST", f"/channels/{channel.id}/messages", {"content": "x"})
            ids[name] = (channel.id, message["id"])
        cid, mid = ids["partie"]
        remaining = []
        for _ in range(2):
            status, _, headers = await _api(emu, "PATCH", f"/channels/{cid}/messages/{mid}", {"content": "y"})
            assert status == 200 and headers["X-RateLimit-Limit"] == "2"
            remaining.append(headers["X-RateLimit-Remaining"])
        assert remaining == ["1", "0"]
        status, body, headers = await _api(emu, "PATCH", f"/channels/{cid}/messages/{mid}", {"content": "z"})
        assert status == 429 and body["retry_after"] > 0 and body["global"] is False
        assert "Retry-After" in headers and headers["X-RateLimit-Remaining"] == "0"
        # Another channel has its own bucket; the window ends with the clock.
        other_cid, other_mid = ids["général"]
        status, _, _ = await _api(
            emu, "PATCH", f"/channels/{other_cid}/messages/{other_mid}", {"content": "y"}
        )
        assert status == 200
        clock.advance(5.0)
        status, _, _ = await _api(emu, "PATCH", f"/channels/{cid}/messages/{mid}", {"content": "z"})
        assert status == 200
        # Routes without a rule carry no rate-limit headers.
        _, _, headers = await _api(emu, "POST", f"/channels/{cid}/messages", {"content": "x"})
        assert "X-RateLimit-Limit" not in headers
    finally:
        await emu.stop()


async def test_latency_and_hour_old_edits() -> None:
    clock = FakeClock()
    emu = await _started(EmulatorConfig(latency=0.2, old_message_edits=1), clock)
    try:
        cid = emu.channel("partie").id
        started = time.perf_counter()
        _, message, _ = await _api(emu, "POST", f"/channels/{cid}/messages", {"content": "x"})
        assert time.perf_counter() - started >= 0.2
        clock.advance(3601)
        status, _, _ = await _api(emu, "PATCH", f"/channels/{cid}/messages/{message['id']}", {"content": "y"})
        assert status == 200
        status, body, _ = await _api(
            emu, "PATCH", f"/channels/{cid}/messages/{message['id']}", {"content": "z"}
        )
        assert (status, body["code"]) == (400, 30046)
        # Ids follow the emulator clock: a message posted now is an hour younger than the first.
        _, fresh, _ = await _api(emu, "POST", f"/channels/{cid}/messages", {"content": "x"})
        age_ms = (int(fresh["id"]) >> 22) - (int(message["id"]) >> 22)
        assert 3_600_000 <= age_ms < 3_700_000
    finally:
        await emu.stop()


async def test_first_followup_after_a_public_defer_ignores_the_ephemeral_flag(emu: Emulator) -> None:
    gm = emu.user_named("gm")
    interaction = await emu.dispatch_interaction(
        gm, 2, {"id": "1", "name": "x", "type": 1}, emu.channel("partie")
    )
    base = f"/interactions/{interaction.id}/{interaction.token}/callback"
    status, _, _ = await _api(emu, "POST", base, {"type": 5})
    assert status == 200
    hook = f"/webhooks/{emu.application_id}/{interaction.token}?wait=1"
    _, first, _ = await _api(emu, "POST", hook, {"content": "refused", "flags": FLAG_EPHEMERAL})
    assert not first["flags"] & FLAG_EPHEMERAL  # public, as the defer was
    _, second, _ = await _api(emu, "POST", hook, {"content": "private", "flags": FLAG_EPHEMERAL})
    assert second["flags"] & FLAG_EPHEMERAL


async def test_no_command_in_an_archived_thread(emu: Emulator) -> None:
    table = Table(emu, channel="partie")
    gm = table.user("gm")
    thread = await gm.start_thread("Vieux fil", auto_archive_duration=60)
    await emu.advance(3600)
    assert thread.archived
    with pytest.raises(ClientRefused, match="archived"):
        await gm.slash("lancer", expression="1d6", channel=thread)
