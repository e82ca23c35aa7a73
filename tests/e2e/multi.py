"""Several bot processes behind one emulator: shards split over processes, one shared database.

``Cluster`` builds a world with guilds on every shard (ids crafted so that Discord's rule
``(guild_id >> 22) % shard_count`` spreads them), starts one ``python -m bot`` per ``Node``
with ``SHARD_COUNT``/``SHARD_IDS``, and gives each process its own emulator port, so every
recorded request, interaction callback and gateway session says which process it came from.

    cluster = Cluster(tmp_path, database_url, shard_count=4, nodes=[(0, 1), (2, 3)])
    await cluster.start()
    table = cluster.tables[0]                        # a Table (guild) on shard 0
    await table.user("alice").slash("lancer", expression="1d100")
    await cluster.restart(cluster.nodes[1])           # SIGKILL + start, same database
    assert cluster.ownership_problems() == []
"""

# ruff: noqa: ASYNC109 -- "within timeout seconds" is the API tests read best.

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.emulator.client import Table
from bot.emulator.server import Emulator, EmulatorConfig
from bot.emulator.state import Guild, Interaction, OffsetClock

from .harness import START_TIMEOUT, BotProcess

COMMAND_SYNC = r"^/applications/\d+(/guilds/\d+)?/commands$"


def shard_of(guild_id: str | int, shard_count: int) -> int:
    """Discord's rule: which shard receives a guild's events."""
    return (int(guild_id) >> 22) % shard_count


@dataclass(eq=False)
class Node:
    """One bot process and the shards it serves."""

    name: str
    shard_ids: tuple[int, ...]
    base_url: str = ""
    process: BotProcess | None = None
    stopping: bool = False
    kills: list[float] = field(default_factory=list)  # perf_counter of each SIGKILL
    up: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1]) if self.base_url else 0

    @property
    def pid(self) -> int | None:
        proc = self.process.proc if self.process else None
        return proc.pid if proc is not None and proc.returncode is None else None


class Cluster:
    """The emulator, ``guilds_per_shard`` guilds on each shard, one bot process per node."""

    def __init__(
        self,
        tmp_path: Path,
        database_url: str,
        *,
        shard_count: int,
        nodes: Sequence[Iterable[int]],
        guilds_per_shard: int = 1,
        log_level: str = "INFO",
        config: EmulatorConfig | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        owned = [shard for ids in nodes for shard in ids]
        if sorted(owned) != list(range(shard_count)):
            raise ValueError(f"nodes must split shards 0..{shard_count - 1} between them, got {nodes}")
        self.tmp_path = tmp_path
        self.database_url = database_url
        self.shard_count = shard_count
        self.log_level = log_level
        self.extra_env = dict(extra_env or {})
        self.clock = OffsetClock()
        config = config or EmulatorConfig()
        config.shards = shard_count
        self.emu = Emulator(config, clock=self.clock)
        self.tables: list[Table] = []
        for index in range(guilds_per_shard):
            for shard in range(shard_count):
                guild = self.emu.add_guild(
                    f"Table {shard}.{index}",
                    channels=("général", "partie", "hors-jeu"),
                    roles=(("MJ", 0),),
                    members=((f"mj-{shard}-{index}", ["MJ"]),),
                    shard=(shard, shard_count),
                )
                self.tables.append(Table(self.emu, guild, channel=guild.channels[1].id))
        self.nodes = [Node(f"bot{i}", tuple(ids)) for i, ids in enumerate(nodes)]
        self.emu.health_checks.append(self._health)

    # -- who owns what -------------------------------------------------------------------

    def shard_of(self, guild: Guild | Table | str) -> int:
        guild_id = (
            guild.guild.id if isinstance(guild, Table) else guild.id if isinstance(guild, Guild) else guild
        )
        return shard_of(guild_id, self.shard_count)

    def owner(self, guild: Guild | Table | str) -> Node:
        shard = self.shard_of(guild)
        return next(node for node in self.nodes if shard in node.shard_ids)

    def tables_of(self, node: Node) -> list[Table]:
        return [table for table in self.tables if self.owner(table) is node]

    # -- lifecycle -----------------------------------------------------------------------

    def env(self, node: Node) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SHARD_", "DEV_GUILD"))}
        env.update(
            DISCORD_TOKEN="emulator-token",
            DISCORD_API_BASE=node.base_url,
            DATABASE_URL=self.database_url,
            SHARD_COUNT=str(self.shard_count),
            SHARD_IDS=",".join(str(i) for i in node.shard_ids),
            LOG_LEVEL=self.log_level,
            MELEE_HEALTH_FILE=str(self.tmp_path / f"{node.name}.health"),
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
        )
        env.update(self.extra_env)
        return env

    async def start(self, *, timeout: float = START_TIMEOUT) -> None:
        """Start the emulator, then every node at once (they migrate the same database together)."""
        await self.emu.start()
        for node in self.nodes:
            node.base_url = await self.emu.add_listener()
            node.process = BotProcess(self.env(node), self.tmp_path / f"{node.name}.log")
        await asyncio.gather(*(self.start_node(node, timeout=timeout) for node in self.nodes))

    async def start_node(self, node: Node, *, timeout: float = START_TIMEOUT) -> None:
        assert node.process is not None, "start the cluster first"
        mark = len(self.emu.requests)
        await node.process.start()
        # Only now: until the new process exists, ``proc`` is the killed one (exit code -9), which
        # the health check must not take for a crash.
        node.stopping = False
        # Commands are synced before the gateway connects, by one process only when the tree
        # changed (the processes share the database that records the last sync).
        await self.emu.wait_until(
            lambda: self._all_shards_live(node), timeout=timeout, what=f"{node.name}'s shards to connect"
        )
        self._check_synced(node, mark)
        node.up.set()

    def _check_synced(self, node: Node, mark: int) -> None:
        for req in self.emu.requests[mark:]:
            if (
                req.port == node.port
                and req.method == "PUT"
                and "/commands" in req.path
                and req.status != 200
            ):
                raise AssertionError(f"{node.name}: command sync refused ({req.status}): {req.response}")

    def _all_shards_live(self, node: Node) -> bool:
        live = {s.shard[0] for s in self.emu.gateway.live_sessions(node.port)}
        return live >= set(node.shard_ids)

    async def kill(self, node: Node) -> None:
        """SIGKILL one process (a crash); wait until the emulator has seen its sockets close."""
        node.stopping = True
        node.up.clear()
        node.kills.append(asyncio.get_running_loop().time())
        if node.process is not None:
            await node.process.kill()
        await self.emu.wait_until(
            lambda: not self.emu.gateway.live_sessions(node.port), what=f"{node.name}'s sockets to close"
        )

    async def restart(self, node: Node, *, timeout: float = START_TIMEOUT) -> None:
        await self.kill(node)
        await self.start_node(node, timeout=timeout)

    async def close(self) -> None:
        for node in self.nodes:
            node.stopping = True
        try:
            await asyncio.gather(*(n.process.stop() for n in self.nodes if n.process is not None))
        finally:
            await self.emu.stop()

    def _health(self) -> str | None:
        for node in self.nodes:
            proc = node.process.proc if node.process else None
            if proc is not None and proc.returncode is not None and not node.stopping:
                assert node.process is not None
                return f"{node.name} exited with code {proc.returncode}:\n{node.process.log_tail()}"
        return None

    # -- checks --------------------------------------------------------------------------

    def node_at(self, port: int) -> Node | None:
        return next((node for node in self.nodes if node.port == port), None)

    def _port_name(self, port: int) -> str:
        node = self.node_at(port)
        return node.name if node is not None else f"port {port}"

    def answered_by(self, interaction: Interaction) -> Node | None:
        """The process that sent the interaction's first callback."""
        if not interaction.callbacks:
            return None
        return self.node_at(interaction.callbacks[0].port)

    def ownership_problems(self, interactions: Iterable[Interaction] | None = None) -> list[str]:
        """Interactions served twice, by the wrong process, or not sent to exactly one open session.

        An interaction sent while its process was down (no open session) is not served at all,
        as on Discord; it is reported only if something answered it anyway.
        """
        problems: list[str] = []
        chosen = list(self.emu.interactions.values()) if interactions is None else list(interactions)
        by_token: dict[str, set[int]] = {}
        for req in self.emu.requests:
            if req.route.startswith(("/interactions/", "/webhooks/")):
                token = req.path.split("/")[3]
                by_token.setdefault(token, set()).add(req.port)
        for interaction in chosen:
            if interaction.guild_id is None:
                continue
            owner = self.owner(interaction.guild_id)
            where = f"interaction {interaction.id} in guild shard {self.shard_of(interaction.guild_id)}"
            live = [d for d in interaction.deliveries if d.live]
            if len(live) > 1:
                problems.append(f"{where}: dispatched to {len(live)} open sessions")
            if any(d.port != owner.port for d in live):
                problems.append(f"{where}: dispatched to a session of another process")
            accepted = [c for c in interaction.callbacks if c.status == 200]
            if len(accepted) > 1:
                problems.append(f"{where}: {len(accepted)} accepted initial callbacks")
            if interaction.callbacks and not live:
                problems.append(f"{where}: answered although no open session received it")
            ports = by_token.get(interaction.token, set())
            strangers = {self._port_name(p) for p in ports - {owner.port}}
            if strangers:
                problems.append(f"{where}: answered by {strangers}, owner is {owner.name}")
        return problems

    def log_problems(self) -> list[str]:
        found = []
        for node in self.nodes:
            text = node.process.log_text() if node.process else ""
            if "Traceback (most recent call last)" in text:
                assert node.process is not None
                found.append(f"{node.name} logged a traceback:\n{node.process.log_tail()}")
        return found
