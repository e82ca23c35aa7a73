"""The emulator's REST API and the object tests hold: ``Emulator``.

Serves ``/api/v10/...`` and ``/gateway`` on 127.0.0.1 (ephemeral port) well enough for
discord.py's real HTTP and websocket code, keeps every message, thread, DM, pin and
interaction in memory, and refuses what Discord would refuse (see ``limits``).
"""

# ruff: noqa: ASYNC109 -- waiting "within timeout seconds" is the API tests read best.

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import BodyPartReader, web

from bot.emulator import limits

from .gateway import Gateway, local_port
from .limits import ValidationErrors
from .state import (
    DM,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    GUILD_TEXT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Attachment,
    Callback,
    Channel,
    Clock,
    Failure,
    Guild,
    Intents,
    Interaction,
    Json,
    Member,
    Message,
    Perm,
    RecordedRequest,
    Role,
    Snowflakes,
    User,
    iso_now,
    new_token,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

INITIAL_RESPONSE_DEADLINE = 3.0
OLD_MESSAGE_SECONDS = 3600.0
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
TOKEN_LIFETIME = 15 * 60.0
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


@dataclass
class EmulatorConfig:
    bot_name: str = "Mêlée"
    # Privileged intents the "developer portal" grants; IDENTIFY asking for more gets 4014.
    granted_intents: int = 0
    application_flags: int = 0
    bot_permissions: int = Perm.BOT_DEFAULT
    # Users whose DMs are closed: sending them a DM fails with 50007, as on Discord.
    dm_closed: set[str] = field(default_factory=set)
    # The shard count GET /gateway/bot recommends (bots that set SHARD_COUNT never ask).
    shards: int = 1
    # Per-route rate limits, off by default so the suite stays fast: "METHOD template" (e.g.
    # "PATCH /channels/{cid}/messages/{mid}") -> (requests, per seconds), counted per channel (or
    # interaction token, or application); every answer on such a route carries X-RateLimit-*
    # headers, and one over the limit gets 429 with retry_after, as on Discord.
    rate_limits: dict[str, tuple[int, float]] = field(default_factory=dict)
    # Seconds added before every REST answer (interaction callbacks included): a distant Discord.
    latency: float = 0.0
    # Edits allowed per message once it is an hour old (Discord's limit is undisclosed: error
    # 30046 past it); None: unlimited.
    old_message_edits: int | None = None


class ApiError(Exception):
    """An error answered with Discord's JSON body."""

    def __init__(self, status: int, code: int, message: str, errors: Json | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: Json = {"message": message, "code": code}
        if errors is not None:
            self.body["errors"] = errors

    @classmethod
    def invalid(cls, errors: ValidationErrors) -> ApiError:
        body = errors.body()
        return cls(400, body["code"], body["message"], body["errors"])


class RateLimited(Exception):
    """Over a route's limit: 429 with Discord's body and headers."""

    def __init__(self, retry_after: float, headers: dict[str, str]) -> None:
        super().__init__(f"rate limited for {retry_after:.3f}s")
        self.retry_after = retry_after
        self.headers = headers
        self.body: Json = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": False,
        }


def unknown(what: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {what}")


@dataclass
class Body:
    json: Any
    files: dict[str, tuple[str, bytes, str]]  # form field -> (filename, data, content type)


def json_response(data: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": discord.py compares the header with ==.
    headers = {"Content-Type": "application/json"}
    if status == 429:
        # Discord's rate limits come through its proxy; discord.py treats a 429 without `Via`
        # as a Cloudflare ban and does not retry it.
        headers["Via"] = "1.1 google"
    return web.Response(status=status, body=json.dumps(data, ensure_ascii=False).encode(), headers=headers)


Handler = Callable[[web.Request, Body], Awaitable[Any]]

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def effective_mentions(content: str, allowed: Json | None) -> tuple[bool, list[str], list[str]]:
    """Who a message really pings: (everyone/here, role ids, user ids), per allowed_mentions."""
    parse = {"everyone", "roles", "users"} if allowed is None else set(allowed.get("parse") or [])
    everyone = "everyone" in parse and ("@everyone" in content or "@here" in content)
    # snowflakes arrive as strings or as integers (discord.py sends ints): Discord takes both
    listed_roles = {str(r) for r in (allowed or {}).get("roles") or []}
    listed_users = {str(u) for u in (allowed or {}).get("users") or []}
    roles = [r for r in _ROLE_MENTION.findall(content) if "roles" in parse or r in listed_roles]
    users = [u for u in _USER_MENTION.findall(content) if "users" in parse or u in listed_users]
    return everyone, roles, users


class Emulator:
    """A local Discord: REST + Gateway + an in-memory world, for one bot application."""

    def __init__(self, config: EmulatorConfig | None = None, *, clock: Clock = time.monotonic) -> None:
        self.config = config or EmulatorConfig()
        self.clock = clock
        self._clock_origin = clock()
        self._wall_origin = time.time()
        # Ids (and so created_at) follow the emulator clock: a test that advances it ages messages.
        self.ids = Snowflakes(wall=self.wall)
        self.application_id = self.ids.next()
        self.bot_user = User(id=self.application_id, username=self.config.bot_name, bot=True)
        self.owner_user = User(id=self.ids.next(), username="dev")
        self.users: dict[str, User] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[str, Guild] = {}
        self.channels: dict[str, Channel] = {}
        self.messages: dict[str, Message] = {}
        self.channel_message_ids: dict[str, list[str]] = {}
        self.commands: dict[str | None, list[Json]] = {}
        self.command_syncs: list[RecordedRequest] = []
        self.interactions: dict[str, Interaction] = {}
        self.interactions_by_token: dict[str, Interaction] = {}
        self.modals: dict[str, tuple[Interaction, Json]] = {}
        self.attachments: dict[str, Attachment] = {}
        self.requests: list[RecordedRequest] = []
        self.failures: list[Failure] = []
        self.dm_channels: dict[str, str] = {}  # user id -> DM channel id
        self.interaction_hooks: list[Callable[[Interaction], None]] = []
        # Errors to inject: (method, route template) -> ApiError, used once each.
        self.injected: dict[tuple[str, str], list[ApiError]] = {}
        self.health_checks: list[Callable[[], str | None]] = []
        # Rate-limit windows: (route key, resource) -> [reset at (clock), remaining].
        self.buckets: dict[tuple[str, str], list[float]] = {}
        self.deleted_channels: dict[str, Channel] = {}
        self.gateway = Gateway(self)
        self._waiters: list[asyncio.Future[None]] = []
        self._background: set[asyncio.Future[None]] = set()
        self._runner: web.AppRunner | None = None
        self._host = "127.0.0.1"
        self.base_url = ""
        self.gateway_url = ""
        self.app = self._build_app()

    # -- world ---------------------------------------------------------------------------

    def wall(self) -> float:
        """Seconds since 1970 by the emulator's clock (real time plus what a test advanced)."""
        return self._wall_origin + (self.clock() - self._clock_origin)

    def iso(self) -> str:
        return datetime.fromtimestamp(self.wall(), UTC).isoformat()

    def permissions_in(self, channel: Channel, user_id: str) -> int:
        """A user's permissions in a channel (overwrites included; a thread follows its parent)."""
        guild = self.guild_of(channel)
        if guild is None:
            return Perm.BOT_DEFAULT
        parent = self.channels.get(channel.parent_id or "") if channel.is_thread else None
        return guild.permissions_in(channel, user_id, parent)

    def set_overwrite(
        self, channel: str | Channel, target: str | User | Role, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Add or replace a permission overwrite on a guild channel (a role, or a member)."""
        ch = self.channel(channel)
        if isinstance(target, User):
            target_id, kind = target.id, 1
        elif isinstance(target, Role):
            target_id, kind = target.id, 0
        else:
            guild = self.guild_of(ch)
            assert guild is not None
            try:
                target_id, kind = guild.role(target).id, 0
            except KeyError:
                target_id, kind = self.user_named(target).id, 1
        ch.overwrites = [o for o in ch.overwrites if o["id"] != target_id]
        ch.overwrites.append({"id": target_id, "type": kind, "allow": str(allow), "deny": str(deny)})
        self.notify()

    async def update_channel(self, channel: str | Channel) -> None:
        """Tell the bot about a changed channel (its overwrites, say): CHANNEL_UPDATE."""
        ch = self.channel(channel)
        await self.gateway.dispatch("CHANNEL_UPDATE", self._channel_payload(ch), intent=Intents.GUILDS)

    async def delete_channel(self, channel: str | Channel) -> None:
        """Delete a channel (and its threads) as a server admin would: CHANNEL_DELETE / THREAD_DELETE."""
        ch = self.channel(channel)
        for thread in [c for c in self.channels.values() if c.is_thread and c.parent_id == ch.id]:
            await self.delete_channel(thread)
        self.channels.pop(ch.id, None)
        self.deleted_channels[ch.id] = ch
        guild = self.guild_of(ch)
        if guild is not None and ch in guild.channels:
            guild.channels.remove(ch)
        self.notify()
        if ch.is_thread:
            data = {"id": ch.id, "guild_id": ch.guild_id, "parent_id": ch.parent_id, "type": ch.type}
            await self.gateway.dispatch("THREAD_DELETE", data, intent=Intents.GUILDS)
        else:
            await self.gateway.dispatch("CHANNEL_DELETE", ch.payload(), intent=Intents.GUILDS)

    async def advance(self, seconds: float) -> None:
        """Move the emulator clock on (an OffsetClock or FakeClock), then archive idle threads."""
        advance = getattr(self.clock, "advance", None)
        assert advance is not None, "this emulator's clock cannot be advanced"
        advance(seconds)
        await self.archive_idle_threads()

    async def archive_idle_threads(self) -> list[Channel]:
        """Archive every thread without activity for its auto-archive duration (THREAD_UPDATE)."""
        now = self.clock()
        done = []
        for thread in list(self.channels.values()):
            if (
                thread.is_thread
                and not thread.archived
                and now - thread.last_activity >= thread.auto_archive_duration * 60
            ):
                await self._set_archived(thread, True)
                done.append(thread)
        return done

    async def _set_archived(self, thread: Channel, archived: bool) -> None:
        thread.archived = archived
        thread.archive_timestamp = self.iso()
        if not archived:
            thread.last_activity = self.clock()
        self.notify()
        await self.gateway.dispatch("THREAD_UPDATE", self._channel_payload(thread), intent=Intents.GUILDS)

    def add_user(self, username: str, *, locale: str = "fr") -> User:
        user = User(id=self.ids.next(), username=username, locale=locale)
        self.users[user.id] = user
        return user

    def user_named(self, username: str) -> User:
        for user in self.users.values():
            if user.username == username:
                return user
        raise KeyError(f"no user {username!r}")

    def add_guild(
        self,
        name: str,
        *,
        channels: Iterable[str] = ("général", "partie"),
        members: Iterable[tuple[str, list[str]]] = (),
        roles: Iterable[tuple[str, int]] = (),
        owner: str | None = None,
        shard: tuple[int, int] | None = None,
        emojis: Iterable[str] = (),
        threads: int = 0,
    ) -> Guild:
        """Create a guild; ``members`` are (username, [role names]); the bot is always a member.

        ``shard`` (id, count) picks an id that Discord's rule puts on that shard; ``emojis``: the
        names of its custom emojis; ``threads``: that many active public threads, spread over its
        text channels (a realistic server for the cache benchmark).
        """
        guild_id = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = Guild(id=guild_id, name=name, owner_id="")
        guild.roles.append(Role(id=guild_id, name="@everyone", permissions=Perm.EVERYONE_DEFAULT))
        bot_role = Role(
            id=self.ids.next(),
            name=self.config.bot_name,
            permissions=self.config.bot_permissions,
            position=1,
            managed=True,
        )
        guild.roles.append(bot_role)
        for position, (role_name, perms) in enumerate(roles, start=2):
            guild.roles.append(Role(id=self.ids.next(), name=role_name, permissions=perms, position=position))
        for position, channel_name in enumerate(channels):
            channel = Channel(
                id=self.ids.next(), type=GUILD_TEXT, name=channel_name, guild_id=guild_id, position=position
            )
            guild.channels.append(channel)
            self.channels[channel.id] = channel
        guild.members[self.bot_user.id] = Member(user=self.bot_user, role_ids=[bot_role.id])
        for username, role_names in members:
            try:
                user = self.user_named(username)
            except KeyError:
                user = self.add_user(username)
            guild.members[user.id] = Member(user=user, role_ids=[guild.role(r).id for r in role_names])
        for name in emojis:
            guild.emojis.append(
                {
                    "id": self.ids.next(),
                    "name": name,
                    "roles": [],
                    "require_colons": True,
                    "managed": False,
                    "animated": False,
                    "available": True,
                }
            )
        parents = [c for c in guild.channels if c.type == GUILD_TEXT]
        for n in range(threads if parents else 0):
            parent = parents[n % len(parents)]
            thread = Channel(
                id=self.ids.next(),
                type=PUBLIC_THREAD,
                name=f"fil-{n + 1}",
                guild_id=guild_id,
                parent_id=parent.id,
                owner_id=self.bot_user.id,
                last_activity=self.clock(),
            )
            self.channels[thread.id] = thread
        guild.owner_id = self.user_named(owner).id if owner else self.owner_user.id
        if owner is None:
            self.users[self.owner_user.id] = self.owner_user
            guild.members[self.owner_user.id] = Member(user=self.owner_user, role_ids=[])
        self.guilds[guild_id] = guild
        return guild

    def add_default_world(self) -> Guild:
        """The table every e2e test starts from: "La Taverne", a GM with the MJ role, players."""
        return self.add_guild(
            "La Taverne",
            channels=("général", "partie", "hors-jeu"),
            roles=(("MJ", 0), ("Admin", Perm.MANAGE_GUILD | Perm.MANAGE_MESSAGES | Perm.MANAGE_THREADS)),
            members=(("alice", []), ("bob", []), ("gm", ["MJ"]), ("carol", ["Admin"])),
            owner="carol",
        )

    @property
    def guild(self) -> Guild:
        """The first guild (most tests have one)."""
        return next(iter(self.guilds.values()))

    def channel(self, ref: str | Channel) -> Channel:
        if isinstance(ref, Channel):
            return ref
        if ref in self.channels:
            return self.channels[ref]
        name = ref.lstrip("#")
        # Most recent first so a thread shadows an older one with the same name.
        for channel in reversed(list(self.channels.values())):
            if channel.name == name:
                return channel
        raise KeyError(f"no channel {ref!r}")

    def guild_of(self, channel: Channel) -> Guild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    def active_threads(self) -> dict[str, list[Channel]]:
        """Every guild's active threads, in one pass over the channels (a READY's guild stream
        asks for all of them: one scan, not one per guild)."""
        out: dict[str, list[Channel]] = {}
        for c in self.channels.values():
            if c.guild_id and c.is_thread and not c.archived:
                out.setdefault(c.guild_id, []).append(c)
        return out

    def guild_create_payload(
        self, guild: Guild, *, all_members: bool = True, threads: Sequence[Channel] | None = None
    ) -> Json:
        """``threads``: the guild's active threads when the caller has them (:meth:`active_threads`)."""
        if threads is None:
            threads = self.active_threads().get(guild.id, [])
        payload = guild.payload([self._channel_payload(c) for c in threads])
        if not all_members:
            # Without the members intent Discord sends only the bot itself (and voice members).
            payload["members"] = [guild.members[self.bot_user.id].payload()]
        return payload

    def _channel_payload(self, channel: Channel) -> Json:
        return channel.payload(message_count=len(self.channel_message_ids.get(channel.id, [])))

    # -- waiting -------------------------------------------------------------------------

    def notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_until(
        self, predicate: Callable[[], T | None], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait for ``predicate()`` to be truthy, woken by every change in the emulator."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            for check in self.health_checks:
                problem = check()
                if problem:
                    raise RuntimeError(f"while waiting for {what}: {problem}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            # Wake at least every 250 ms to run the health checks (a dead bot process).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fut, min(remaining, 0.25))

    async def wait_for_request(
        self,
        method: str,
        route_pattern: str,
        *,
        status: int | None = None,
        after: int = 0,
        timeout: float = 10.0,
    ) -> RecordedRequest:
        """First recorded request (index >= ``after``) whose route matches the regex."""
        pattern = re.compile(route_pattern)

        def find() -> RecordedRequest | None:
            for req in self.requests[after:]:
                if (
                    req.method == method
                    and pattern.search(req.path)
                    and (status is None or req.status == status)
                ):
                    return req
            return None

        return await self.wait_until(find, timeout=timeout, what=f"{method} {route_pattern}")

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        assert server is not None and getattr(server, "sockets", None)
        real_port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        self._host = host
        self.base_url = f"http://{host}:{real_port}"
        self.gateway_url = f"ws://{host}:{real_port}/gateway"
        return self.base_url

    async def add_listener(self) -> str:
        """Serve the same API on one more port; returns its base URL.

        Give each bot process its own port and the recorded requests, callbacks and gateway
        sessions tell which process did what (``port`` fields).
        """
        assert self._runner is not None, "start the emulator first"
        site = web.TCPSite(self._runner, self._host, 0)
        await site.start()
        server = site._server
        assert server is not None and getattr(server, "sockets", None)
        port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return f"http://{self._host}:{port}"

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Emulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def record_failure(self, kind: str, detail: str, interaction_id: str | None = None) -> None:
        log.warning("emulator refused: %s: %s", kind, detail)
        self.failures.append(Failure(kind, detail, interaction_id))

    def inject_error(self, method: str, route: str, status: int, code: int, message: str) -> None:
        """Make the next ``method route`` (template, e.g. "/channels/{channel_id}/messages") fail."""
        self.injected.setdefault((method, route), []).append(ApiError(status, code, message))

    # -- app / plumbing ------------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        api = "/api/v10"
        r = app.router
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", self.get_me),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway),
            ("GET", "/applications/{app}/commands", self.get_commands),
            ("PUT", "/applications/{app}/commands", self.put_commands),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self.get_commands),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self.put_commands),
            ("POST", "/interactions/{iid}/{token}/callback", self.interaction_callback),
            ("POST", "/webhooks/{app}/{token}", self.create_followup),
            ("GET", "/webhooks/{app}/{token}/messages/{mid}", self.get_webhook_message),
            ("PATCH", "/webhooks/{app}/{token}/messages/{mid}", self.edit_webhook_message),
            ("DELETE", "/webhooks/{app}/{token}/messages/{mid}", self.delete_webhook_message),
            ("GET", "/channels/{cid}", self.get_channel),
            ("PATCH", "/channels/{cid}", self.edit_channel),
            ("GET", "/channels/{cid}/messages", self.get_history),
            ("POST", "/channels/{cid}/messages", self.post_message),
            ("GET", "/channels/{cid}/messages/pins", self.get_pins_new),
            ("PUT", "/channels/{cid}/messages/pins/{mid}", self.pin),
            ("DELETE", "/channels/{cid}/messages/pins/{mid}", self.unpin),
            ("GET", "/channels/{cid}/messages/{mid}", self.get_message),
            ("PATCH", "/channels/{cid}/messages/{mid}", self.edit_message),
            ("DELETE", "/channels/{cid}/messages/{mid}", self.delete_message),
            ("GET", "/channels/{cid}/pins", self.get_pins_old),
            ("PUT", "/channels/{cid}/pins/{mid}", self.pin),
            ("DELETE", "/channels/{cid}/pins/{mid}", self.unpin),
            ("POST", "/channels/{cid}/threads", self.create_thread),
            ("POST", "/channels/{cid}/messages/{mid}/threads", self.create_thread),
            ("GET", "/channels/{cid}/thread-members", self.get_thread_members),
            ("GET", "/channels/{cid}/thread-members/{uid}", self.get_thread_member),
            ("PUT", "/channels/{cid}/thread-members/{uid}", self.add_thread_member),
            ("DELETE", "/channels/{cid}/thread-members/{uid}", self.remove_thread_member),
            ("PUT", "/channels/{cid}/messages/{mid}/reactions/{emoji}/{who}", self.no_content),
            ("DELETE", "/channels/{cid}/messages/{mid}/reactions/{emoji}/{who}", self.no_content),
            ("POST", "/channels/{cid}/typing", self.no_content),
            ("POST", "/users/@me/channels", self.open_dm),
            ("GET", "/users/{uid}", self.get_user),
            ("GET", "/guilds/{gid}", self.get_guild),
            ("GET", "/guilds/{gid}/channels", self.get_guild_channels),
            ("GET", "/guilds/{gid}/roles", self.get_roles),
            ("GET", "/guilds/{gid}/members", self.get_members),
            ("GET", "/guilds/{gid}/members/{uid}", self.get_member),
        ]
        for method, path, handler in routes:
            r.add_route(method, api + path, self._wrap(handler, path))
        r.add_route("*", api + "/{tail:.*}", self._wrap(self.not_found, "*"))
        r.add_get("/gateway", self.gateway.handle)
        r.add_get("/attachments/{cid}/{aid}/{filename}", self.cdn)
        return app

    def _wrap(
        self, handler: Handler, template: str
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        public = template.startswith(("/interactions/", "/webhooks/"))

        async def run(request: web.Request) -> web.StreamResponse:
            body = await self._read_body(request)
            if self.config.latency:
                await asyncio.sleep(self.config.latency)
            await self.archive_idle_threads()
            status = 200
            result: Any = None
            limit_headers: dict[str, str] = {}
            try:
                if (
                    not public
                    and template != "*"
                    and not request.headers.get("Authorization", "").startswith("Bot ")
                ):
                    raise ApiError(401, 0, "401: Unauthorized")
                limit_headers = self._rate_limit(request, template)
                injected = self.injected.get((request.method, template))
                if injected:
                    raise injected.pop(0)
                result = await handler(request, body)
                response: web.StreamResponse = (
                    web.Response(status=204) if result is None else json_response(result)
                )
                status = response.status
            except RateLimited as exc:
                status, result = 429, exc.body
                limit_headers = exc.headers
                response = json_response(exc.body, 429)
                response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
            except ApiError as exc:
                status, result = exc.status, exc.body
                response = json_response(exc.body, exc.status)
            response.headers.update(limit_headers)
            self.requests.append(
                RecordedRequest(
                    method=request.method,
                    path=request.path.removeprefix("/api/v10"),
                    route=template,
                    status=status,
                    body=body.json,
                    response=result,
                    at=self.clock(),
                    port=local_port(request),
                )
            )
            self.notify()
            return response

        return run

    def _rate_limit(self, request: web.Request, template: str) -> dict[str, str]:
        """Count the request in its route's window; raise RateLimited past the limit."""
        key = f"{request.method} {template}"
        rule = self.config.rate_limits.get(key)
        if rule is None:
            return {}
        limit, per = rule
        info = request.match_info
        resource = info.get("cid") or info.get("token") or info.get("app") or ""
        now = self.clock()
        bucket = self.buckets.get((key, resource))
        if bucket is None or now >= bucket[0]:
            bucket = [now + per, float(limit)]
            self.buckets[(key, resource)] = bucket
        reset_after = max(bucket[0] - now, 0.001)
        if bucket[1] <= 0:
            raise RateLimited(reset_after, self._limit_headers(key, limit, 0, reset_after))
        bucket[1] -= 1
        return self._limit_headers(key, limit, int(bucket[1]), reset_after)

    def _limit_headers(self, key: str, limit: int, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{self.wall() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"{abs(hash(key)):x}",
        }

    async def _read_body(self, request: web.Request) -> Body:
        files: dict[str, tuple[str, bytes, str]] = {}
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue
                data = await part.read(decode=False)
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(data)
                else:
                    ctype = part.headers.get("Content-Type", "application/octet-stream")
                    files[name] = (part.filename or name, bytes(data), ctype)
            return Body(payload, files)
        if request.can_read_body:
            raw = await request.read()
            if raw:
                try:
                    return Body(json.loads(raw), files)
                except ValueError as exc:
                    raise web.HTTPBadRequest(text="invalid JSON") from exc
        return Body(None, files)

    async def not_found(self, request: web.Request, body: Body) -> Any:
        self.record_failure("unknown_route", f"{request.method} {request.path}")
        raise ApiError(404, 0, "404: Not Found")

    async def no_content(self, request: web.Request, body: Body) -> Any:
        return None

    async def cdn(self, request: web.Request) -> web.StreamResponse:
        attachment = self.attachments.get(request.match_info["aid"])
        if attachment is None:
            return web.Response(status=404)
        return web.Response(body=attachment.data, headers={"Content-Type": attachment.content_type})

    # -- login ---------------------------------------------------------------------------

    async def get_me(self, request: web.Request, body: Body) -> Any:
        data = self.bot_user.payload()
        data.update({"verified": True, "mfa_enabled": False, "email": None, "flags": 0, "locale": "en-US"})
        return data

    async def get_application(self, request: web.Request, body: Body) -> Any:
        return {
            "id": self.application_id,
            "name": self.config.bot_name,
            "description": "",
            "icon": None,
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner_user.payload(),
            "summary": "",
            "verify_key": "0" * 64,
            "team": None,
            "flags": self.config.application_flags,
            "bot": self.bot_user.payload(),
            "interactions_endpoint_url": None,
            "tags": [],
            "install_params": None,
            "integration_types_config": {},
            "custom_install_url": None,
            "approximate_guild_count": len(self.guilds),
        }

    async def get_gateway(self, request: web.Request, body: Body) -> Any:
        # The URL of the port asked, so a process given its own port keeps to it.
        url = f"ws://{request.host}/gateway" if request.host else self.gateway_url
        if not request.path.endswith("/bot"):
            return {"url": url}
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return {"url": url, "shards": self.config.shards, "session_start_limit": limit}

    # -- commands ------------------------------------------------------------------------

    def _check_app(self, request: web.Request) -> None:
        if request.match_info.get("app") != self.application_id:
            raise ApiError(403, 50001, "Missing Access")

    async def get_commands(self, request: web.Request, body: Body) -> Any:
        self._check_app(request)
        return self.commands.get(request.match_info.get("guild"), [])

    async def put_commands(self, request: web.Request, body: Body) -> Any:
        self._check_app(request)
        guild_id = request.match_info.get("guild")
        if guild_id is not None and guild_id not in self.guilds:
            raise ApiError(403, 50001, "Missing Access")
        errors = limits.validate_commands(body.json)
        if errors:
            self.record_failure("command_sync", "; ".join(errors.messages))
            raise ApiError.invalid(errors)
        previous = {(c["type"], c["name"]): c["id"] for c in self.commands.get(guild_id, [])}
        synced: list[Json] = []
        for command in body.json:
            kind = int(command.get("type", 1))
            echoed: Json = {
                "type": kind,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "dm_permission": True,
                "nsfw": False,
                "contexts": None,
                "integration_types": [0],
                **command,
                # Discord keeps ids stable across overwrites of the same (type, name).
                "id": previous.get((kind, command["name"])) or self.ids.next(),
                "application_id": self.application_id,
                "version": self.ids.next(),
            }
            if guild_id is not None:
                echoed["guild_id"] = guild_id
            synced.append(echoed)
        self.commands[guild_id] = synced
        return synced

    def command_scopes(self, guild_id: str | None) -> list[Json]:
        """Commands usable in a guild: its own then the global ones."""
        return (
            [*self.commands.get(guild_id, []), *self.commands.get(None, [])]
            if guild_id
            else list(self.commands.get(None, []))
        )

    # -- interactions --------------------------------------------------------------------

    async def dispatch_interaction(
        self,
        user: User,
        kind: int,
        data: Json,
        channel: Channel,
        *,
        message: Message | None = None,
        locale: str | None = None,
    ) -> Interaction:
        """Send INTERACTION_CREATE as Discord would for ``user`` acting in ``channel``."""
        await self.archive_idle_threads()
        interaction_id = self.ids.next()
        token = new_token()
        guild = self.guild_of(channel)
        payload: Json = {
            "id": interaction_id,
            "application_id": self.application_id,
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "locale": locale or user.locale,
            # The bot's permissions in this channel (overwrites included), as Discord sends them.
            "app_permissions": str(
                self.permissions_in(channel, self.bot_user.id) if guild else Perm.BOT_DEFAULT
            ),
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "entitlements": [],
            "authorizing_integration_owners": {"0": guild.id} if guild else {"1": user.id},
            "context": 0 if guild else 1,
            "channel_id": channel.id,
            "channel": self._channel_payload(channel),
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise KeyError(f"{user.username} is not a member of {guild.name}")
            payload["guild_id"] = guild.id
            payload["guild"] = {"id": guild.id, "locale": guild.preferred_locale, "features": []}
            payload["guild_locale"] = guild.preferred_locale
            payload["member"] = member.payload(permissions=self.permissions_in(channel, user.id))
        else:
            payload["user"] = user.payload()
        if message is not None:
            payload["message"] = self.message_payload(message)
        interaction = Interaction(
            id=interaction_id,
            token=token,
            type=kind,
            user=user,
            channel_id=channel.id,
            guild_id=guild.id if guild else None,
            payload=payload,
            created_at=self.clock(),
            source_message_id=message.id if message else None,
        )
        self.interactions[interaction_id] = interaction
        self.interactions_by_token[token] = interaction
        interaction.dispatched_perf = time.perf_counter()
        interaction.deliveries = await self.gateway.dispatch("INTERACTION_CREATE", payload)
        for hook in self.interaction_hooks:
            hook(interaction)
        self.notify()
        return interaction

    def _interaction(self, request: web.Request) -> Interaction:
        interaction = self.interactions.get(request.match_info["iid"])
        if interaction is None or interaction.token != request.match_info["token"]:
            raise unknown("interaction", 10062)
        return interaction

    async def interaction_callback(self, request: web.Request, body: Body) -> Any:
        arrived = time.perf_counter()
        interaction = self._interaction(request)
        payload: Json = body.json or {}
        kind = int(payload.get("type", 0))
        data: Json | None = payload.get("data")
        callback = Callback(type=kind, data=data, status=200, at=self.clock(), port=local_port(request))
        interaction.callbacks.append(callback)
        try:
            result = self._apply_callback(interaction, kind, data or {}, body, arrived)
        except ApiError as exc:
            callback.status = exc.status
            self.notify()
            raise
        self.notify()
        return result

    def _apply_callback(
        self, interaction: Interaction, kind: int, data: Json, body: Body, arrived: float
    ) -> Json:
        if interaction.acknowledged:
            self.record_failure(
                "already_acknowledged", f"second initial callback (type {kind})", interaction.id
            )
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        late = self.clock() - interaction.created_at
        if late > INITIAL_RESPONSE_DEADLINE:
            interaction.failures.append(f"late callback after {late:.2f}s")
            self.record_failure("late_callback", f"first callback {late:.2f}s after dispatch", interaction.id)
            raise unknown("interaction", 10062)
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}.get(interaction.type, set())
        if kind not in allowed:
            self.record_failure(
                "bad_callback_type", f"type {kind} for interaction type {interaction.type}", interaction.id
            )
            errors = ValidationErrors()
            errors.add(("type",), "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type is invalid")
            raise ApiError.invalid(errors)
        if (kind == 6 or kind == 7) and interaction.source_message_id is None:
            self.record_failure("bad_callback_type", f"type {kind} without a message", interaction.id)
            raise ApiError(400, 50035, "Invalid Form Body")
        message: Message | None = None
        if kind in (4, 7):
            errors = limits.prefix(limits.validate_message(data), ("data",))
            if errors:
                self.record_failure("invalid_message", "; ".join(errors.messages), interaction.id)
                raise ApiError.invalid(errors)
        if kind == 8:
            errors = limits.validate_choices(data.get("choices"))
            if errors:
                self.record_failure("invalid_choices", "; ".join(errors.messages), interaction.id)
                raise ApiError.invalid(errors)
            interaction.choices = list(data["choices"])
        elif kind == 9:
            errors = limits.validate_modal(data)
            if errors:
                self.record_failure("invalid_modal", "; ".join(errors.messages), interaction.id)
                raise ApiError.invalid(errors)
            interaction.modal = data
            self.modals[interaction.user.id] = (interaction, data)
        elif kind == 4:
            message = self._interaction_message(interaction, data, body)
        elif kind == 5:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            message = self._interaction_message(interaction, {"flags": flags}, body)
        elif kind == 6:
            interaction.original_message_id = interaction.source_message_id
        elif kind == 7:
            assert interaction.source_message_id is not None
            message = self.messages[interaction.source_message_id]
            self._edit(message, data, body)
            interaction.original_message_id = message.id
        interaction.response_type = kind
        interaction.first_callback_perf = arrived
        info: Json = {"id": interaction.id, "type": interaction.type}
        result: Json = {"interaction": info}
        if message is not None:
            info["response_message_id"] = message.id
            info["response_message_loading"] = message.loading
            info["response_message_ephemeral"] = message.ephemeral
            result["resource"] = {"type": kind, "message": self.message_payload(message)}
        elif kind == 6 and interaction.source_message_id:
            info["response_message_id"] = interaction.source_message_id
            info["response_message_loading"] = False
            info["response_message_ephemeral"] = self.messages[interaction.source_message_id].ephemeral
        return result

    def _interaction_message(self, interaction: Interaction, data: Json, body: Body) -> Message:
        channel = self.channels[interaction.channel_id]
        message = self._new_message(
            channel,
            data,
            body,
            author=self.bot_user,
            webhook_id=self.application_id,
            interaction=interaction,
        )
        interaction.original_message_id = message.id
        self._store_message(message, dispatch=True)
        return message

    def _interaction_by_webhook(self, request: web.Request) -> Interaction:
        interaction = self.interactions_by_token.get(request.match_info["token"])
        if interaction is None or request.match_info["app"] != self.application_id:
            raise unknown("webhook", 10015)
        if self.clock() - interaction.created_at > TOKEN_LIFETIME:
            self.record_failure("expired_token", "interaction token used after 15 minutes", interaction.id)
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return interaction

    async def create_followup(self, request: web.Request, body: Body) -> Any:
        interaction = self._interaction_by_webhook(request)
        if not interaction.acknowledged:
            self.record_failure(
                "followup_before_response", "followup sent before any callback", interaction.id
            )
            raise unknown("webhook", 10015)
        data: Json = body.json or {}
        errors = limits.validate_message(data)
        if errors:
            self.record_failure("invalid_message", "; ".join(errors.messages), interaction.id)
            raise ApiError.invalid(errors)
        original = self.messages.get(interaction.original_message_id or "")
        if (
            original is not None
            and original.loading
            and not original.deleted
            and interaction.response_type == 5
        ):
            # After a "thinking" defer the first followup replaces the loading message (Discord).
            self._edit(original, data, body)
            interaction.followup_ids.append(original.id)
            message = original
        else:
            channel = self.channels[request.query.get("thread_id") or interaction.channel_id]
            message = self._new_message(
                channel,
                data,
                body,
                author=self.bot_user,
                webhook_id=self.application_id,
                interaction=interaction,
            )
            interaction.followup_ids.append(message.id)
            self._store_message(message, dispatch=True)
        if request.query.get("wait") in ("1", "true", "True"):
            return self.message_payload(message)
        return None

    def _webhook_message(self, request: web.Request) -> tuple[Interaction, Message]:
        interaction = self._interaction_by_webhook(request)
        mid = request.match_info["mid"]
        if mid == "@original":
            if not interaction.acknowledged:
                raise unknown("webhook", 10015)
            mid = interaction.original_message_id or ""
        message = self.messages.get(mid)
        if message is None or message.deleted:
            raise unknown("message", 10008)
        return interaction, message

    async def get_webhook_message(self, request: web.Request, body: Body) -> Any:
        _, message = self._webhook_message(request)
        return self.message_payload(message)

    async def edit_webhook_message(self, request: web.Request, body: Body) -> Any:
        interaction, message = self._webhook_message(request)
        if not message.ephemeral:
            self._refuse_if_archived(message, "edit interaction message")
            self._count_old_edit(message)
        data: Json = body.json or {}
        errors = limits.validate_message(data)
        if errors:
            self.record_failure("invalid_message", "; ".join(errors.messages), interaction.id)
            raise ApiError.invalid(errors)
        self._edit(message, data, body)
        return self.message_payload(message)

    async def delete_webhook_message(self, request: web.Request, body: Body) -> Any:
        _, message = self._webhook_message(request)
        await self._delete(message)
        return None

    # -- messages ------------------------------------------------------------------------

    def message_payload(self, message: Message) -> Json:
        thread = self.channels.get(message.thread_id or "")
        data = message.payload(self._channel_payload(thread) if thread else None)
        everyone, roles, users = effective_mentions(message.content, message.allowed_mentions)
        data["mention_everyone"] = everyone
        data["mention_roles"] = roles
        data["mentions"] = [self.users[u].payload() for u in users if u in self.users]
        return data

    def _attachments(
        self, channel_id: str, data: Json, body: Body, keep: list[Attachment]
    ) -> list[Attachment]:
        """New attachments from multipart ``files[n]`` parts, plus kept existing ones."""
        result: list[Attachment] = []
        specs = data.get("attachments")
        if specs is None:
            specs = [{"id": i} for i in range(len(body.files))]
        by_id = {a.id: a for a in keep}
        for spec in specs:
            spec_id = str(spec.get("id"))
            if spec_id in by_id:
                result.append(by_id[spec_id])
                continue
            part = body.files.get(f"files[{spec_id}]")
            if part is None:
                continue
            filename = spec.get("filename") or part[0]
            attachment = self.make_attachment(channel_id, filename, part[1], part[2], spec.get("description"))
            result.append(attachment)
        return result

    def make_attachment(
        self,
        channel_id: str,
        filename: str,
        data: bytes,
        content_type: str = "application/octet-stream",
        description: str | None = None,
    ) -> Attachment:
        """Store a file on the emulator's "CDN" (also used for users' uploads, option type 11)."""
        attachment_id = self.ids.next()
        attachment = Attachment(
            id=attachment_id,
            filename=filename,
            data=data,
            url=f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{filename}",
            content_type=content_type,
            description=description,
        )
        self.attachments[attachment_id] = attachment
        return attachment

    def _new_message(
        self,
        channel: Channel,
        data: Json,
        body: Body,
        *,
        author: User,
        webhook_id: str | None = None,
        interaction: Interaction | None = None,
    ) -> Message:
        flags = int(data.get("flags") or 0)
        message = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            author=author,
            content=str(data.get("content") or ""),
            embeds=list(data.get("embeds") or []),
            components=list(data.get("components") or []),
            flags=flags,
            allowed_mentions=data.get("allowed_mentions"),
            guild_id=channel.guild_id,
            tts=bool(data.get("tts")),
            webhook_id=webhook_id,
            application_id=self.application_id if interaction else None,
        )
        message.attachments = self._attachments(channel.id, data, body, [])
        if interaction is not None:
            message.interaction_metadata = {
                "id": interaction.id,
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": interaction.payload["authorizing_integration_owners"],
            }
            if interaction.type == 2:
                message.interaction_metadata["name"] = interaction.payload["data"].get("name")
            if message.ephemeral:
                message.visible_to = interaction.user.id
        reference = data.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id"):
            message.message_reference = {
                "type": 0,
                "message_id": str(reference["message_id"]),
                "channel_id": str(reference.get("channel_id") or channel.id),
                "guild_id": channel.guild_id,
            }
        return message

    def _store_message(self, message: Message, *, dispatch: bool) -> None:
        message.created_clock = self.clock()
        message.timestamp = self.iso()
        self.messages[message.id] = message
        self.channel_message_ids.setdefault(message.channel_id, []).append(message.id)
        channel = self.channels[message.channel_id]
        if channel.is_thread:
            # A new message is activity, and unarchives an unlocked thread (Discord).
            channel.last_activity = self.clock()
            if channel.archived and not channel.locked:
                self._spawn(self._set_archived(channel, False))
                channel.archived = False
        if not message.ephemeral:
            channel.last_message_id = message.id
        if dispatch and not message.ephemeral:
            self._spawn(self._dispatch_message("MESSAGE_CREATE", message, channel))

    def _edit(self, message: Message, data: Json, body: Body) -> None:
        message.history.append(self.message_payload(message))
        if "content" in data:
            message.content = str(data["content"] or "")
        if "embeds" in data:
            message.embeds = list(data["embeds"] or [])
        if "components" in data:
            message.components = list(data["components"] or [])
        if "allowed_mentions" in data:
            message.allowed_mentions = data["allowed_mentions"]
        if "attachments" in data or body.files:
            message.attachments = self._attachments(message.channel_id, data, body, message.attachments)
        if "flags" in data and data["flags"] is not None:
            # Only SUPPRESS_EMBEDS (and friends) may change; ephemeral is fixed at creation.
            message.flags = (message.flags & FLAG_EPHEMERAL) | (
                int(data["flags"]) & ~FLAG_EPHEMERAL & ~FLAG_LOADING
            )
        message.flags &= ~FLAG_LOADING
        message.edited_timestamp = self.iso()
        if not message.ephemeral:
            self._spawn(self._dispatch_message("MESSAGE_UPDATE", message, self.channels[message.channel_id]))
        self.notify()

    async def _delete(self, message: Message) -> None:
        message.deleted = True
        self.notify()
        if not message.ephemeral:
            data: Json = {"id": message.id, "channel_id": message.channel_id}
            if message.guild_id:
                data["guild_id"] = message.guild_id
            await self.gateway.dispatch("MESSAGE_DELETE", data, intent=self._message_intent(message))

    @staticmethod
    def _message_intent(message: Message) -> int:
        return Intents.GUILD_MESSAGES if message.guild_id else Intents.DIRECT_MESSAGES

    async def _dispatch_message(self, event: str, message: Message, channel: Channel) -> None:
        data = self.message_payload(message)
        guild = self.guild_of(channel)
        if guild is not None and message.author.id in guild.members:
            member = guild.members[message.author.id].payload()
            member.pop("user")
            data["member"] = member
        await self.gateway.dispatch(event, data, intent=self._message_intent(message))

    def _spawn(self, coro: Awaitable[None]) -> None:
        # Gateway events follow the REST answer, as on Discord; keep a reference until done.
        task: asyncio.Future[None] = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _get_channel(self, request: web.Request) -> Channel:
        channel = self.channels.get(request.match_info["cid"])
        if channel is None:
            raise unknown("channel", 10003)
        if channel.guild_id is not None and not self.permissions_in(channel, self.bot_user.id):
            # A channel the bot cannot view: every REST call there is refused, as on Discord.
            self.record_failure("missing_access", f"{request.method} in #{channel.name} (no View Channel)")
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _require(self, channel: Channel, permission: int, what: str) -> None:
        """The bot needs every bit of ``permission`` in ``channel`` (its overwrites included)."""
        if self.guild_of(channel) is None:
            return
        perms = self.permissions_in(channel, self.bot_user.id)
        if not perms & Perm.VIEW_CHANNEL:
            self.record_failure("missing_access", f"{what} in #{channel.name}")
            raise ApiError(403, 50001, "Missing Access")
        if perms & permission != permission:
            self.record_failure("missing_permissions", f"{what} in #{channel.name}")
            raise ApiError(403, 50013, "Missing Permissions")

    def _refuse_if_archived(self, message: Message, what: str) -> None:
        """Discord: nobody edits messages in an archived thread (400 50083), the bot included."""
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.is_thread and channel.archived:
            raise ApiError(400, 50083, "Thread is archived")

    def _count_old_edit(self, message: Message) -> None:
        limit = self.config.old_message_edits
        if limit is None or self.clock() - message.created_clock < OLD_MESSAGE_SECONDS:
            return
        if message.old_edits >= limit:
            raise ApiError(
                400, 30046, "Maximum number of edits to messages older than 1 hour reached. Try again later"
            )
        message.old_edits += 1

    async def post_message(self, request: web.Request, body: Body) -> Any:
        channel = self._get_channel(request)
        data: Json = body.json or {}
        if channel.is_thread:
            self._require(channel, Perm.SEND_MESSAGES_IN_THREADS, "send message")
            if channel.locked and channel.archived:
                raise ApiError(400, 50083, "Thread is archived")
        else:
            self._require(channel, Perm.SEND_MESSAGES, "send message")
        if channel.type == DM and channel.recipient and channel.recipient.id in self.config.dm_closed:
            self.record_failure("dm_closed", f"DM to {channel.recipient.username} refused")
            raise ApiError(403, 50007, "Cannot send messages to this user")
        errors = limits.validate_message(data)
        if errors:
            self.record_failure("invalid_message", "; ".join(errors.messages))
            raise ApiError.invalid(errors)
        if not (
            data.get("content")
            or data.get("embeds")
            or data.get("components")
            or body.files
            or data.get("sticker_ids")
            or data.get("poll")
        ):
            self.record_failure("empty_message", f"empty message to {channel.name or channel.id}")
            raise ApiError(400, 50006, "Cannot send an empty message")
        message = self._new_message(channel, data, body, author=self.bot_user)
        self._store_message(message, dispatch=True)
        return self.message_payload(message)

    def _get_message(self, request: web.Request) -> Message:
        channel = self._get_channel(request)
        message = self.messages.get(request.match_info["mid"])
        if message is None or message.deleted or message.channel_id != channel.id:
            raise unknown("message", 10008)
        return message

    async def get_message(self, request: web.Request, body: Body) -> Any:
        return self.message_payload(self._get_message(request))

    async def edit_message(self, request: web.Request, body: Body) -> Any:
        message = self._get_message(request)
        if message.author.id != self.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._refuse_if_archived(message, "edit message")
        self._count_old_edit(message)
        data: Json = body.json or {}
        errors = limits.validate_message(data)
        if errors:
            self.record_failure("invalid_message", "; ".join(errors.messages))
            raise ApiError.invalid(errors)
        self._edit(message, data, body)
        return self.message_payload(message)

    async def delete_message(self, request: web.Request, body: Body) -> Any:
        message = self._get_message(request)
        if message.author.id != self.bot_user.id:
            self._require(self.channels[message.channel_id], Perm.MANAGE_MESSAGES, "delete message")
        await self._delete(message)
        return None

    async def get_history(self, request: web.Request, body: Body) -> Any:
        channel = self._get_channel(request)
        limit = min(int(request.query.get("limit", "50")), 100)
        before = request.query.get("before")
        after = request.query.get("after")
        found = [
            m
            for m in (self.messages[i] for i in self.channel_message_ids.get(channel.id, []))
            if not m.deleted and not m.ephemeral
        ]
        if before:
            found = [m for m in found if int(m.id) < int(before)]
        if after:
            found = [m for m in found if int(m.id) > int(after)]
            found = found[:limit]
        else:
            found = found[-limit:]
        return [self.message_payload(m) for m in reversed(found)]

    # -- pins ----------------------------------------------------------------------------

    async def pin(self, request: web.Request, body: Body) -> Any:
        message = self._get_message(request)
        channel = self.channels[message.channel_id]
        # Since 2026-02-23 only Pin Messages allows it (Manage Messages alone no longer does).
        self._require(channel, Perm.PIN_MESSAGES, "pin")
        if len(self.pins(channel)) >= 250 and not message.pinned:
            raise ApiError(400, 30003, "Maximum number of pins reached (250)")
        await self._set_pinned(message, True)
        return None

    async def unpin(self, request: web.Request, body: Body) -> Any:
        message = self._get_message(request)
        self._require(self.channels[message.channel_id], Perm.PIN_MESSAGES, "unpin")
        await self._set_pinned(message, False)
        return None

    async def _set_pinned(self, message: Message, pinned: bool) -> None:
        message.pinned = pinned
        self.notify()
        data: Json = {"channel_id": message.channel_id, "last_pin_timestamp": iso_now() if pinned else None}
        if message.guild_id:
            data["guild_id"] = message.guild_id
        await self.gateway.dispatch("CHANNEL_PINS_UPDATE", data, intent=Intents.GUILDS)

    def pins(self, channel: str | Channel) -> list[Message]:
        ch = self.channel(channel)
        return [
            m
            for m in (self.messages[i] for i in self.channel_message_ids.get(ch.id, []))
            if m.pinned and not m.deleted
        ]

    async def get_pins_old(self, request: web.Request, body: Body) -> Any:
        return [self.message_payload(m) for m in reversed(self.pins(self._get_channel(request)))]

    async def get_pins_new(self, request: web.Request, body: Body) -> Any:
        items = [
            {"pinned_at": iso_now(), "message": self.message_payload(m)}
            for m in reversed(self.pins(self._get_channel(request)))
        ]
        return {"items": items, "has_more": False}

    # -- channels and threads ------------------------------------------------------------

    async def get_channel(self, request: web.Request, body: Body) -> Any:
        return self._channel_payload(self._get_channel(request))

    async def edit_channel(self, request: web.Request, body: Body) -> Any:
        channel = self._get_channel(request)
        data: Json = body.json or {}
        errors = ValidationErrors()
        if "name" in data:
            limits._length(errors, ("name",), data["name"], 1, 100)
        if errors:
            raise ApiError.invalid(errors)
        if channel.is_thread:
            if channel.owner_id != self.bot_user.id:
                self._require(channel, Perm.MANAGE_THREADS, "edit thread")
            if "locked" in data:
                self._require(channel, Perm.MANAGE_THREADS, "lock thread")
                channel.locked = bool(data["locked"])
            if "archived" in data:
                was = channel.archived
                channel.archived = bool(data["archived"])
                if was and not channel.archived:
                    channel.last_activity = self.clock()  # unarchiving is activity
                if channel.archived != was:
                    channel.archive_timestamp = self.iso()
            if "auto_archive_duration" in data:
                if int(data["auto_archive_duration"]) not in ARCHIVE_DURATIONS:
                    raise ApiError(400, 50035, "Invalid Form Body")
                channel.auto_archive_duration = int(data["auto_archive_duration"])
                channel.last_activity = self.clock()
            if "invitable" in data:
                channel.invitable = bool(data["invitable"])
        else:
            self._require(channel, Perm.MANAGE_CHANNELS, "edit channel")
            if "topic" in data:
                channel.topic = data["topic"]
        if "name" in data:
            channel.name = data["name"]
        self.notify()
        payload = self._channel_payload(channel)
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        await self.gateway.dispatch(event, payload, intent=Intents.GUILDS)
        return payload

    async def create_thread(self, request: web.Request, body: Body) -> Any:
        parent = self._get_channel(request)
        data: Json = body.json or {}
        starter: Message | None = None
        if "mid" in request.match_info:
            starter = self._get_message(request)
            if starter.thread_id:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            kind = PUBLIC_THREAD
        else:
            kind = int(data.get("type") or PRIVATE_THREAD)
        if parent.type != GUILD_TEXT:
            self.record_failure("thread_in_thread", f"thread created inside #{parent.name}")
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._require(
            parent,
            Perm.CREATE_PRIVATE_THREADS if kind == PRIVATE_THREAD else Perm.CREATE_PUBLIC_THREADS,
            "create thread",
        )
        errors = ValidationErrors()
        limits._length(errors, ("name",), data.get("name"), 1, 100)
        if data.get("auto_archive_duration") not in (None, 60, 1440, 4320, 10080):
            errors.add(
                ("auto_archive_duration",),
                "BASE_TYPE_CHOICES",
                "Value must be one of {60, 1440, 4320, 10080}.",
            )
        if errors:
            self.record_failure("invalid_thread", "; ".join(errors.messages))
            raise ApiError.invalid(errors)
        thread = Channel(
            # A thread started from a message takes the message's id, as on Discord.
            id=starter.id if starter else self.ids.next(),
            type=kind,
            name=data["name"],
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(data.get("auto_archive_duration") or 1440),
            invitable=bool(data.get("invitable", True)),
            thread_member_ids=[self.bot_user.id],
            last_activity=self.clock(),
            starter_message_id=starter.id if starter else None,
        )
        self.channels[thread.id] = thread
        if starter is not None:
            starter.thread_id = thread.id
        self.notify()
        payload = self._channel_payload(thread)
        await self.gateway.dispatch(
            "THREAD_CREATE", {**payload, "newly_created": True}, intent=Intents.GUILDS
        )
        return payload

    async def add_thread(
        self, parent: Channel, name: str, *, owner: User, auto_archive_duration: int = 1440
    ) -> Channel:
        """A public thread a user created (not the bot): THREAD_CREATE, the owner a member."""
        thread = Channel(
            id=self.ids.next(),
            type=PUBLIC_THREAD,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
            thread_member_ids=[owner.id],
            last_activity=self.clock(),
        )
        self.channels[thread.id] = thread
        self.notify()
        payload = self._channel_payload(thread)
        await self.gateway.dispatch(
            "THREAD_CREATE", {**payload, "newly_created": True}, intent=Intents.GUILDS
        )
        return thread

    def _thread(self, request: web.Request) -> Channel:
        channel = self._get_channel(request)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return channel

    def _thread_member(self, thread: Channel, user_id: str) -> Json:
        return {"id": thread.id, "user_id": user_id, "join_timestamp": thread.created_at, "flags": 0}

    async def get_thread_members(self, request: web.Request, body: Body) -> Any:
        thread = self._thread(request)
        return [self._thread_member(thread, u) for u in thread.thread_member_ids]

    async def get_thread_member(self, request: web.Request, body: Body) -> Any:
        thread = self._thread(request)
        uid = self._uid(request)
        if uid not in thread.thread_member_ids:
            raise unknown("member", 10007)
        return self._thread_member(thread, uid)

    def _uid(self, request: web.Request) -> str:
        uid = request.match_info["uid"]
        return self.bot_user.id if uid == "@me" else uid

    async def add_thread_member(self, request: web.Request, body: Body) -> Any:
        thread = self._thread(request)
        uid = self._uid(request)
        guild = self.guild_of(thread)
        if guild is None or uid not in guild.members:
            raise unknown("member", 10007)
        if thread.archived:
            raise ApiError(400, 50083, "Thread is archived")
        if uid not in thread.thread_member_ids:
            thread.thread_member_ids.append(uid)
            await self._thread_members_update(thread, added=[uid], removed=[])
        return None

    async def remove_thread_member(self, request: web.Request, body: Body) -> Any:
        thread = self._thread(request)
        uid = self._uid(request)
        if uid in thread.thread_member_ids:
            thread.thread_member_ids.remove(uid)
            await self._thread_members_update(thread, added=[], removed=[uid])
        return None

    async def _thread_members_update(self, thread: Channel, *, added: list[str], removed: list[str]) -> None:
        self.notify()
        guild = self.guild_of(thread)
        assert guild is not None
        added_members = []
        for uid in added:
            member = self._thread_member(thread, uid)
            member["member"] = guild.members[uid].payload()
            added_members.append(member)
        data: Json = {
            "id": thread.id,
            "guild_id": guild.id,
            "member_count": len(thread.thread_member_ids),
            "added_members": added_members,
            "removed_member_ids": removed,
        }
        await self.gateway.dispatch("THREAD_MEMBERS_UPDATE", data, intent=Intents.GUILDS)

    # -- users, DMs, guilds --------------------------------------------------------------

    async def open_dm(self, request: web.Request, body: Body) -> Any:
        recipient_id = str((body.json or {}).get("recipient_id"))
        user = self.users.get(recipient_id)
        if user is None:
            raise unknown("user", 10013)
        return self._channel_payload(self.dm_channel(user))

    def dm_channel(self, user: User) -> Channel:
        channel_id = self.dm_channels.get(user.id)
        if channel_id is None:
            channel = Channel(id=self.ids.next(), type=DM, recipient=user)
            self.channels[channel.id] = channel
            self.dm_channels[user.id] = channel.id
            return channel
        return self.channels[channel_id]

    async def get_user(self, request: web.Request, body: Body) -> Any:
        user = self.users.get(self._uid(request))
        if user is None:
            raise unknown("user", 10013)
        return user.payload()

    def _guild(self, request: web.Request) -> Guild:
        guild = self.guilds.get(request.match_info["gid"])
        if guild is None:
            raise unknown("guild", 10004)
        return guild

    async def get_guild(self, request: web.Request, body: Body) -> Any:
        payload = self.guild_create_payload(self._guild(request))
        for key in ("channels", "threads", "members", "voice_states", "presences"):
            payload.pop(key, None)
        return payload

    async def get_guild_channels(self, request: web.Request, body: Body) -> Any:
        return [c.payload() for c in self._guild(request).channels]

    async def get_roles(self, request: web.Request, body: Body) -> Any:
        return [r.payload() for r in self._guild(request).roles]

    async def get_members(self, request: web.Request, body: Body) -> Any:
        if not self.config.granted_intents & Intents.MEMBERS:
            # Listing members needs the privileged members intent enabled for the app.
            self.record_failure("missing_access", "GET guild members without the members intent")
            raise ApiError(403, 50001, "Missing Access")
        return [m.payload() for m in self._guild(request).members.values()]

    async def get_member(self, request: web.Request, body: Body) -> Any:
        member = self._guild(request).members.get(self._uid(request))
        if member is None:
            raise unknown("member", 10007)
        return member.payload()

    # -- what tests read -----------------------------------------------------------------

    def channel_messages(self, channel: str | Channel, *, include_ephemeral: bool = False) -> list[Message]:
        ch = self.channel(channel)
        return [
            m
            for m in (self.messages[i] for i in self.channel_message_ids.get(ch.id, []))
            if not m.deleted and (include_ephemeral or not m.ephemeral)
        ]

    @property
    def threads(self) -> list[Channel]:
        return [c for c in self.channels.values() if c.is_thread]

    def dms(self, user: str | User) -> list[Message]:
        target = user if isinstance(user, User) else self.user_named(user)
        channel_id = self.dm_channels.get(target.id)
        return self.channel_messages(channel_id) if channel_id else []
