"""The emulator's Gateway: HELLO, heartbeats, IDENTIFY/READY, RESUME with replay, op 8 chunks.

A session outlives its websocket: dispatches sent while the bot is disconnected are kept
with their sequence numbers and replayed on RESUME, as Discord does.

Sharding as on Discord: IDENTIFY carries ``shard: [id, count]``; each guild's events go only
to the session of shard ``(guild_id >> 22) % count`` (DMs to shard 0). An invalid shard, or a
shard already held by another open session (two processes configured with the same
``SHARD_IDS``), is closed with 4010, which discord.py treats as fatal; a second IDENTIFY on
one connection gets 4005.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .state import Delivery, Intents, Json

if TYPE_CHECKING:
    from .server import Emulator

log = logging.getLogger(__name__)

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

CLOSE_UNKNOWN_ERROR = 4000
CLOSE_AUTH_FAILED = 4004
CLOSE_ALREADY_AUTHENTICATED = 4005
CLOSE_INVALID_SHARD = 4010
CLOSE_DISALLOWED_INTENTS = 4014

REPLAY_BUFFER = 5000


def _dumps(data: Json) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass
class GatewaySession:
    session_id: str
    intents: int
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    buffer: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=REPLAY_BUFFER))
    identified: asyncio.Event = field(default_factory=asyncio.Event)
    resumes: int = 0
    shard: tuple[int, int] = (0, 1)
    port: int = 0  # the emulator port the bot connected to (one per process in sharding tests)

    @property
    def live(self) -> bool:
        return self.ws is not None and not self.ws.closed

    def owns(self, guild_id: str | None) -> bool:
        # Discord's rule: shard_id = (guild_id >> 22) % num_shards; DMs go to shard 0.
        if guild_id is None:
            return self.shard[0] == 0
        return (int(guild_id) >> 22) % self.shard[1] == self.shard[0]


class Gateway:
    def __init__(self, emulator: Emulator) -> None:
        self.emu = emulator
        self.sessions: dict[str, GatewaySession] = {}
        self.sockets: set[web.WebSocketResponse] = set()
        self.closed_codes: list[int] = []
        self.on_frame: list[Callable[[Json], None]] = []

    # -- connection ----------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        port = local_port(request)
        resume_url = f"ws://{request.host}/gateway" if request.host else self.emu.gateway_url
        await ws.prepare(request)
        self.sockets.add(ws)
        session: GatewaySession | None = None
        try:
            await ws.send_str(
                _dumps({"op": OP_HELLO, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                for hook in self.on_frame:
                    hook(frame)
                op = frame.get("op")
                data = frame.get("d")
                if op == OP_HEARTBEAT:
                    await ws.send_str(_dumps({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None}))
                elif op == OP_IDENTIFY:
                    if session is not None:
                        await self._close(ws, CLOSE_ALREADY_AUTHENTICATED, "Already authenticated.")
                        break
                    session = await self._identify(ws, data, port=port, resume_url=resume_url)
                    if session is None:
                        break
                elif op == OP_RESUME:
                    session = await self._resume(ws, data, port=port)
                elif op == OP_REQUEST_MEMBERS and session is not None:
                    await self._request_members(session, data)
                # Presence and voice updates change nothing the tests look at.
        finally:
            self.sockets.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, data: Json, *, port: int = 0, resume_url: str = ""
    ) -> GatewaySession | None:
        intents = int(data.get("intents", 0))
        if not data.get("token"):
            await self._close(ws, CLOSE_AUTH_FAILED, "Authentication failed.")
            return None
        refused = intents & Intents.PRIVILEGED & ~self.emu.config.granted_intents
        if refused:
            self.emu.record_failure(
                "privileged_intent", f"IDENTIFY asked for intents {refused:#x} not granted"
            )
            await self._close(ws, CLOSE_DISALLOWED_INTENTS, "Disallowed intent(s).")
            return None
        shard = parse_shard(data.get("shard"))
        if shard is None:
            self.emu.record_failure("invalid_shard", f"IDENTIFY with shard {data.get('shard')!r}")
            await self._close(ws, CLOSE_INVALID_SHARD, "Invalid shard.")
            return None
        holder = next((s for s in self.sessions.values() if s.shard == shard and s.live), None)
        if holder is not None:
            self.emu.record_failure(
                "duplicate_shard",
                f"IDENTIFY for shard {list(shard)} already held by an open session (port {holder.port})",
            )
            await self._close(ws, CLOSE_INVALID_SHARD, "Invalid shard.")
            return None
        session = GatewaySession(
            session_id=secrets.token_hex(16), intents=intents, ws=ws, shard=shard, port=port
        )
        guilds = [g for g in self.emu.guilds.values() if session.owns(g.id)]
        # A fresh IDENTIFY for a shard replaces its old, closed session (a restarted bot process).
        for old_id, old in list(self.sessions.items()):
            if old.shard == session.shard:
                del self.sessions[old_id]
        self.sessions[session.session_id] = session
        app = self.emu.application_id
        await self._dispatch_to(
            session,
            "READY",
            {
                "v": 10,
                "user": self.emu.bot_user.payload(),
                "user_settings": {},
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": resume_url or self.emu.gateway_url,
                "guilds": [{"id": g.id, "unavailable": True} for g in guilds],
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "geo_ordered_rtc_regions": [],
                "guild_join_requests": [],
                "application": {"id": app, "flags": self.emu.config.application_flags},
                "shard": list(session.shard),
                "_trace": ['["melee-emulator"]'],
            },
        )
        active = self.emu.active_threads()
        for guild in guilds:
            payload = self.emu.guild_create_payload(
                guild, all_members=bool(intents & Intents.MEMBERS), threads=active.get(guild.id, [])
            )
            await self._dispatch_to(session, "GUILD_CREATE", payload)
        session.identified.set()
        self.emu.notify()
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: Json, *, port: int = 0) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None:
            await ws.send_str(_dumps({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None}))
            return None
        session.ws = ws
        session.port = port
        session.resumes += 1
        last = int(data.get("seq") or 0)
        # Replay what the bot missed, in order, then confirm (Discord's order).
        for seq, frame in list(session.buffer):
            if seq > last:
                await ws.send_str(frame)
        await self._dispatch_to(session, "RESUMED", {"_trace": ['["melee-emulator"]']})
        self.emu.notify()
        return session

    async def _request_members(self, session: GatewaySession, data: Json) -> None:
        guild = self.emu.guilds.get(str(data.get("guild_id")))
        if guild is None:
            return
        members = list(guild.members.values())
        query = data.get("query")
        user_ids = data.get("user_ids")
        if user_ids is not None:
            ids = {str(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])}
            members = [m for m in members if m.user.id in ids]
        elif query:
            members = [m for m in members if m.user.username.lower().startswith(str(query).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": guild.id,
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("presences"):
            chunk["presences"] = []
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        await self._dispatch_to(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _close(self, ws: web.WebSocketResponse, code: int, message: str) -> None:
        self.closed_codes.append(code)
        await ws.close(code=code, message=message.encode())

    # -- dispatch ------------------------------------------------------------------------

    async def _dispatch_to(self, session: GatewaySession, event: str, data: Json) -> None:
        session.seq += 1
        frame = _dumps({"op": OP_DISPATCH, "t": event, "s": session.seq, "d": data})
        session.buffer.append((session.seq, frame))
        ws = session.ws
        if ws is not None and not ws.closed:
            try:
                await ws.send_str(frame)
            except ConnectionError:
                # The socket died under us: the frame stays buffered for RESUME.
                session.ws = None

    async def dispatch(self, event: str, data: Json, *, intent: int = 0) -> list[Delivery]:
        """Send an event to the sessions whose intents cover it (``intent`` 0: always) and shard."""
        guild_id = data.get("guild_id")
        deliveries: list[Delivery] = []
        for session in list(self.sessions.values()):
            if intent and not session.intents & intent:
                continue
            if not session.owns(guild_id):
                continue
            deliveries.append(Delivery(session.session_id, session.shard, session.port, session.live))
            await self._dispatch_to(session, event, data)
        return deliveries

    @property
    def connected(self) -> bool:
        return any(s.live for s in self.sessions.values())

    def live_sessions(self, port: int | None = None) -> list[GatewaySession]:
        """Identified sessions with an open socket (on one emulator port if given)."""
        return [
            s
            for s in self.sessions.values()
            if s.live and s.identified.is_set() and (port is None or s.port == port)
        ]

    async def drop(self, code: int = CLOSE_UNKNOWN_ERROR) -> int:
        """Close every bot socket with a resumable code; returns how many were closed."""
        count = 0
        for session in self.sessions.values():
            ws = session.ws
            if ws is not None and not ws.closed:
                session.ws = None
                self.closed_codes.append(code)
                await ws.close(code=code, message=b"emulator dropped the connection")
                count += 1
        return count

    async def close_all(self) -> None:
        for ws in list(self.sockets):
            await ws.close(code=1001, message=b"emulator shutting down")

    def frames_for_test(self) -> list[Any]:
        return [json.loads(frame) for s in self.sessions.values() for _, frame in s.buffer]


def parse_shard(raw: Any) -> tuple[int, int] | None:
    """IDENTIFY's ``shard`` as (id, count); absent means (0, 1); None if invalid."""
    if raw is None:
        return (0, 1)
    try:
        shard_id, count = (int(part) for part in raw)
    except (TypeError, ValueError):
        return None
    if count < 1 or not 0 <= shard_id < count:
        return None
    return (shard_id, count)


def local_port(request: web.Request) -> int:
    """The emulator port a request came in on."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return int(sockname[1]) if sockname else 0
