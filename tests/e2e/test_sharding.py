"""Sharding: the emulator serves shards like Discord; two bot processes share one PostgreSQL.

The multi-process test plays in guilds of every shard at once, SIGKILLs one process in the
middle and starts it again, then checks that nothing accepted was lost and that nothing was
served twice or by a process that does not own the guild's shard.

To add a kind of activity (fights, flows...), append a ``Scenario`` to ``SCENARIOS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url

from bot.config import load_settings
from bot.db.characters import MAX_CHARACTERS_PER_USER
from bot.db.models import Character, RollLog
from bot.db.session import create_engine
from bot.emulator.client import Player, Result, Table
from bot.emulator.gateway import CLOSE_ALREADY_AUTHENTICATED, CLOSE_INVALID_SHARD
from bot.emulator.server import Emulator, EmulatorConfig

from .harness import BotProcess
from .multi import Cluster, Node, shard_of

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL")
NO_POSTGRES = (
    "TEST_POSTGRES_URL not set: several processes share one database only on PostgreSQL "
    "(scripts/test.sh starts one)"
)

STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
# Discord's deadline for the first callback is 3 s: after that an interaction is lost anyway.
ANSWER_TIMEOUT = 3.5
# The roll log commits each roll before /roll answers (group commit): a SIGKILL loses no answered roll.
ROLL_LOSS_WINDOW = 0.0


# -- emulator: shards like Discord (no bot process) -----------------------------------------


async def _identify(emu: Emulator, shard: list[int] | None) -> tuple[aiohttp.ClientSession, Any, list[Any]]:
    """Open a raw gateway socket, IDENTIFY, and read until READY's guilds or a close."""
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(emu.gateway_url)
    await ws.receive_json()  # HELLO
    data: dict[str, Any] = {"token": "t", "intents": 1, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await ws.send_json({"op": 2, "d": data})
    frames: list[Any] = []
    while True:
        msg = await asyncio.wait_for(ws.receive(), 5)
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        frames.append(json.loads(msg.data))
        if sum(f.get("t") == "GUILD_CREATE" for f in frames) >= len(frames[0]["d"]["guilds"]):
            break
    return http, ws, frames


async def test_emulator_serves_guilds_by_shard_and_refuses_duplicates() -> None:
    emu = Emulator(EmulatorConfig(shards=4))
    guilds = [emu.add_guild(f"G{s}", shard=(s, 4)) for s in (0, 1, 2, 3, 2)]
    assert [shard_of(g.id, 4) for g in guilds] == [0, 1, 2, 3, 2]
    assert len({g.id for g in guilds}) == 5
    opened: list[aiohttp.ClientSession] = []
    async with emu:
        async with aiohttp.ClientSession() as http:
            headers = {"Authorization": "Bot t"}
            async with http.get(f"{emu.base_url}/api/v10/gateway/bot", headers=headers) as resp:
                body = await resp.json()
        assert body["shards"] == 4 and body["url"] == emu.gateway_url
        assert set(body["session_start_limit"]) >= {"total", "remaining", "reset_after", "max_concurrency"}
        try:
            http2, ws2, frames = await _identify(emu, [2, 4])
            opened.append(http2)
            ready = frames[0]["d"]
            assert ready["shard"] == [2, 4]
            assert sorted(g["id"] for g in ready["guilds"]) == sorted([guilds[2].id, guilds[4].id])
            created = [f["d"]["id"] for f in frames if f.get("t") == "GUILD_CREATE"]
            assert sorted(created) == sorted([guilds[2].id, guilds[4].id])

            # Another process configured with the same shard: refused, fatal for discord.py.
            http3, ws3, _ = await _identify(emu, [2, 4])
            opened.append(http3)
            assert ws3.close_code == CLOSE_INVALID_SHARD
            for bad in ([4, 4], [0, 0], [-1, 2]):
                http4, ws4, _ = await _identify(emu, bad)
                opened.append(http4)
                assert ws4.close_code == CLOSE_INVALID_SHARD, bad
            assert [f.kind for f in emu.failures] == ["duplicate_shard"] + ["invalid_shard"] * 3

            # A second IDENTIFY on one connection: 4005.
            await ws2.send_json({"op": 2, "d": {"token": "t", "intents": 1, "shard": [2, 4]}})
            msg = await asyncio.wait_for(ws2.receive(), 5)
            while msg.type == aiohttp.WSMsgType.TEXT:
                msg = await asyncio.wait_for(ws2.receive(), 5)
            assert ws2.close_code == CLOSE_ALREADY_AUTHENTICATED

            # Once the holder's socket is gone, the shard may be identified again (a restart).
            await emu.wait_until(lambda: not emu.gateway.connected, what="the socket to close")
            http5, ws5, frames5 = await _identify(emu, [2, 4])
            opened.append(http5)
            assert frames5[0]["t"] == "READY" and len(emu.gateway.live_sessions()) == 1
            # Events of a guild go to its shard only: none to shard 2 for a guild on shard 0.
            deliveries = await emu.gateway.dispatch("TYPING_START", {"guild_id": guilds[0].id})
            assert deliveries == []
            deliveries = await emu.gateway.dispatch("TYPING_START", {"guild_id": guilds[4].id})
            assert [d.shard for d in deliveries] == [(2, 4)]
            await ws5.close()
        finally:
            for http in opened:
                await http.close()


def test_shard_settings() -> None:
    settings = load_settings({"SHARD_COUNT": "4", "SHARD_IDS": "2,3"}, dotenv_path=None)
    assert settings.shard_count == 4 and settings.shard_ids == (2, 3)


# -- two processes, one PostgreSQL ----------------------------------------------------------


@pytest.fixture
async def postgres_database() -> AsyncIterator[str]:
    """A fresh PostgreSQL database, dropped afterwards (as tests/conftest.py does)."""
    assert POSTGRES_URL
    name = "melee_shards_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES_URL)
    async with admin.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@dataclass
class Ledger:
    """What the players saw accepted, to check against the database afterwards."""

    sheets: set[tuple[str, str]] = field(default_factory=set)  # (guild id, name)
    attempted_sheets: set[tuple[str, str]] = field(default_factory=set)
    rolls: dict[tuple[str, str], float] = field(default_factory=dict)  # (guild id, label) -> answered at
    roll_nodes: dict[tuple[str, str], str] = field(default_factory=dict)
    tests: Counter[str] = field(default_factory=Counter)  # guild id -> accepted /test
    attempted_tests: Counter[str] = field(default_factory=Counter)
    sheet_owners: dict[tuple[str, str], Player] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)  # unanswered because their process was killed


@dataclass
class Play:
    """One player in one guild, acting through the cluster."""

    cluster: Cluster
    table: Table
    player: Player
    ledger: Ledger

    @property
    def guild_id(self) -> str:
        return self.table.guild.id

    @property
    def node(self) -> Node:
        return self.cluster.owner(self.table)

    async def act(self, command: str, *, who: Player | None = None, **options: Any) -> Result | None:
        """Run a command; None if its process was killed before answering (the user saw an error)."""
        node = self.node
        await node.up.wait()  # users of a down shard see "the application did not respond"; skip
        kills = len(node.kills)
        try:
            return await (who or self.player).slash(command, timeout=ANSWER_TIMEOUT, **options)
        except TimeoutError:
            if len(node.kills) > kills or not node.up.is_set():
                self.ledger.lost.append(f"/{command} in {self.table.guild.name}")
                return None
            raise


async def roll(play: Play, i: int) -> None:
    label = f"g{play.cluster.shard_of(play.table)}-r{i}"
    result = await play.act("lancer", expression=f"1d100 # {label}")
    if result is None:
        return
    assert result.callback_type == 4 and label in result.embed.get("title", ""), result.embed
    key = (play.guild_id, label)
    play.ledger.rolls[key] = asyncio.get_running_loop().time()
    node = play.cluster.answered_by(result.interaction)
    play.ledger.roll_nodes[key] = node.name if node else "?"


async def sheet(play: Play, i: int) -> None:
    name = f"Heros{i}"
    # A new player every few sheets: a player may own only MAX_CHARACTERS_PER_USER characters.
    who = play.table.user(f"{play.player.name}-{i // (4 * MAX_CHARACTERS_PER_USER)}")
    play.ledger.attempted_sheets.add((play.guild_id, name))
    created = await play.act("perso creer", who=who, nom=name, caracs=STATS)
    if created is None:
        return
    assert created.embed.get("title") == f"📜 {name}", created.embed
    play.ledger.sheets.add((play.guild_id, name))
    play.ledger.sheet_owners[(play.guild_id, name)] = who
    shown = await play.act("perso voir", who=who, personnage=name)
    if shown is not None:
        assert shown.embed.get("title") == f"📜 {name}", shown.embed


async def skill_test(play: Play, i: int) -> None:
    jet = 1 + (i * 37) % 100
    play.ledger.attempted_tests[play.guild_id] += 1
    result = await play.act("test", carac="40", jet=jet)
    if result is None:
        return
    embed = result.embed
    shown = [embed.get("title") or "", embed.get("description") or ""]
    shown += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    assert ("Réussite" if jet <= 40 else "Échec") in "\n".join(shown), result
    play.ledger.tests[play.guild_id] += 1


Scenario = Callable[[Play, int], Awaitable[None]]
# Each guild runs these in turn; add fights (/combat) here when they exist.
SCENARIOS: list[Scenario] = [roll, sheet, skill_test, roll]


async def _play_guild(play: Play, stop: asyncio.Event, min_rounds: int) -> int:
    i = 0
    while i < min_rounds or not stop.is_set():
        await SCENARIOS[i % len(SCENARIOS)](play, i)
        i += 1
    return i


@pytest.mark.timeout(180)
@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
async def test_two_processes_four_shards_survive_a_kill(tmp_path: Path, postgres_database: str) -> None:
    started = time.perf_counter()
    cluster = Cluster(
        tmp_path,
        postgres_database,
        shard_count=4,
        nodes=[(0, 1), (2, 3)],
        # Players here type faster than the per-user limits allow; the limits are not under test.
        extra_env={"MELEE_RATE_LIMITS": "off"},
    )
    ledger = Ledger()
    victim, survivor = cluster.nodes[1], cluster.nodes[0]
    stop = asyncio.Event()
    players: list[asyncio.Task[int]] = []
    try:
        await cluster.start()  # both at once: their migrations must not collide
        # Each process holds exactly its shards.
        for node in cluster.nodes:
            shards = sorted(s.shard for s in cluster.emu.gateway.live_sessions(node.port))
            assert shards == [(i, 4) for i in node.shard_ids], (node.name, shards)

        plays = [
            Play(cluster, table, table.user(f"joueur-{n}"), ledger) for n, table in enumerate(cluster.tables)
        ]
        players = [asyncio.create_task(_play_guild(p, stop, min_rounds=8)) for p in plays]

        # Mid-activity: SIGKILL the process of shards 2-3 and start it again.
        await cluster.emu.wait_until(
            lambda: len(ledger.rolls) + len(ledger.sheets) >= 12, timeout=30, what="activity"
        )
        answered_before = len([i for i in cluster.emu.interactions.values() if i.callbacks])
        await cluster.kill(victim)
        killed_at = victim.kills[-1]
        during = len(cluster.emu.interactions)
        await cluster.start_node(victim)
        served_while_down = [
            i for i in list(cluster.emu.interactions.values())[during:] if cluster.answered_by(i) is survivor
        ]
        await cluster.emu.wait_until(
            lambda: sum(bool(i.callbacks) for i in cluster.emu.interactions.values()) > answered_before + 24,
            timeout=30,
            what="activity after the restart",
        )
        stop.set()
        rounds = await asyncio.gather(*players)

        # Sheets made before the crash are served by the restarted process.
        for play in plays:
            if play.node is victim:
                before = sorted(name for g, name in ledger.sheets if g == play.guild_id)
                if before:
                    owner = ledger.sheet_owners[(play.guild_id, before[0])]
                    shown = await play.act("perso voir", who=owner, personnage=before[0])
                    assert shown is not None and shown.embed["title"] == f"📜 {before[0]}"

        # A third process configured with shard 0, already held: refused (4010), it exits.
        intruder_env = cluster.env(survivor)
        intruder_env.update(
            SHARD_IDS="0",
            DISCORD_API_BASE=await cluster.emu.add_listener(),
            MELEE_HEALTH_FILE=str(tmp_path / "intruder.health"),
        )
        intruder = BotProcess(intruder_env, tmp_path / "intruder.log")
        await intruder.start()
        assert intruder.proc is not None
        code = await asyncio.wait_for(intruder.proc.wait(), 30)
        await intruder.stop()
        assert code != 0 and "4010" in intruder.log_text(), intruder.log_tail()
        assert [f.kind for f in cluster.emu.failures] == ["duplicate_shard"]
        cluster.emu.failures.clear()

        # Nothing served twice, nothing served by a process that does not own the shard.
        assert cluster.ownership_problems() == []
        assert served_while_down, "the surviving process kept serving its shards"
        for node in cluster.nodes:
            answered = [i for i in cluster.emu.interactions.values() if cluster.answered_by(i) is node]
            assert answered, f"{node.name} answered nothing"
            assert {cluster.owner(i.guild_id or "") for i in answered} == {node}
        assert not cluster.emu.failures, cluster.emu.failures

        # Nothing accepted was lost: every sheet, every /test, every roll (but see ROLL_LOSS_WINDOW).
        engine = create_engine(postgres_database)
        try:
            async with engine.connect() as conn:
                rows = (await conn.execute(select(Character.guild_id, Character.name))).all()
                stored = {(str(g), n) for g, n in rows}
                assert ledger.sheets <= stored, ledger.sheets - stored
                assert stored <= ledger.attempted_sheets, stored - ledger.attempted_sheets
                tests = (
                    await conn.execute(
                        select(RollLog.guild_id, func.count())
                        .where(RollLog.kind == "test")
                        .group_by(RollLog.guild_id)
                    )
                ).all()
                stored_tests = {str(g): c for g, c in tests}
                for guild_id, accepted in ledger.tests.items():
                    assert accepted <= stored_tests.get(guild_id, 0) <= ledger.attempted_tests[guild_id]

            async def logged() -> set[tuple[str, str]]:
                async with engine.connect() as conn:
                    found = await conn.execute(
                        select(RollLog.guild_id, RollLog.label).where(RollLog.kind == "roll")
                    )
                    return {(str(g), str(label)) for g, label in found.all()}

            # Answered rolls are already committed; the loop only absorbs clock skew between processes.
            deadline = asyncio.get_running_loop().time() + 5
            while True:
                missing = set(ledger.rolls) - await logged()
                unexplained = {
                    key
                    for key in missing
                    if not (
                        ledger.roll_nodes[key] == victim.name
                        and killed_at - ROLL_LOSS_WINDOW <= ledger.rolls[key] <= killed_at
                    )
                }
                if not unexplained or asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert not unexplained, f"accepted rolls missing from the roll log: {sorted(unexplained)}"
        finally:
            await engine.dispose()
        problems = cluster.log_problems()
        assert not problems, problems
        print(
            f"\n{sum(rounds)} rounds in {len(plays)} guilds, {len(cluster.emu.interactions)} interactions, "
            f"{len(ledger.lost)} lost in the crash, {len(missing)} rolls lost from the log, "
            f"{len(served_while_down)} served by {survivor.name} while {victim.name} was down, "
            f"{time.perf_counter() - started:.1f} s"
        )
    finally:
        stop.set()
        for task in players:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*players, return_exceptions=True)
        await cluster.close()
