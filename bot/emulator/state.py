"""In-memory Discord world of the emulator: guilds, channels, members, messages, interactions.

Everything the REST server and the gateway hand to the bot is built here, as the JSON
payloads Discord sends, so that discord.py's parsers see what production would give them.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

Json = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000

# Channel types (https://discord.com/developers/docs/resources/channel#channel-object-channel-types).
GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7


class Perm:
    """Permission bits used by the default world (Discord's numbering)."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    STREAM = 1 << 9
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    USE_VAD = 1 << 25
    CHANGE_NICKNAME = 1 << 26
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38
    PIN_MESSAGES = 1 << 51
    ALL = (1 << 52) - 1

    # What a fresh server gives @everyone (text and voice basics, threads, app commands).
    EVERYONE_DEFAULT = (
        CREATE_INSTANT_INVITE
        | ADD_REACTIONS
        | STREAM
        | VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | MENTION_EVERYONE
        | USE_EXTERNAL_EMOJIS
        | CONNECT
        | SPEAK
        | USE_VAD
        | CHANGE_NICKNAME
        | USE_APPLICATION_COMMANDS
        | CREATE_PUBLIC_THREADS
        | CREATE_PRIVATE_THREADS
        | SEND_MESSAGES_IN_THREADS
    )
    # What the README's invite asks for: post, thread, pin (Pin Messages, not Manage Messages).
    BOT_DEFAULT = (
        VIEW_CHANNEL
        | SEND_MESSAGES
        | SEND_MESSAGES_IN_THREADS
        | CREATE_PUBLIC_THREADS
        | MANAGE_THREADS
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | PIN_MESSAGES
    )
    # The invite the README asked for before Pin Messages existed (Manage Messages no longer pins).
    OLD_INVITE = (BOT_DEFAULT & ~PIN_MESSAGES) | MANAGE_MESSAGES


class Intents:
    GUILDS = 1 << 0
    MEMBERS = 1 << 1
    GUILD_MESSAGES = 1 << 9
    PRESENCES = 1 << 8
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = MEMBERS | PRESENCES | MESSAGE_CONTENT


class Snowflakes:
    """Time-based snowflake ids, strictly increasing, so ``created_at`` and ordering are realistic.

    ``wall`` gives the time in seconds since 1970 (the emulator's, which a test may push forward)."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self.wall = wall
        self._lock = threading.Lock()
        self._last = 0
        self._increment = itertools.count()
        self._process = os.getpid() & 0x1F

    def next(self) -> str:
        with self._lock:
            ms = int(self.wall() * 1000) - DISCORD_EPOCH_MS
            value = (ms << 22) | (1 << 17) | (self._process << 12) | (next(self._increment) & 0xFFF)
            # Several ids in one millisecond could wrap the 12-bit increment: never go backwards.
            value = max(value, self._last + 1)
            self._last = value
            return str(value)

    def next_on_shard(self, shard_id: int, shard_count: int) -> str:
        """An id that Discord's rule ``(id >> 22) % shard_count`` puts on ``shard_id`` (for guilds).

        The timestamp is moved back by less than ``shard_count`` milliseconds; the increment bits
        still come from the shared counter, so the id stays unique.
        """
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} is not in 0..{shard_count - 1}")
        with self._lock:
            ms = int(self.wall() * 1000) - DISCORD_EPOCH_MS
            ms -= (ms - shard_id) % shard_count
            value = (ms << 22) | (1 << 17) | (self._process << 12) | (next(self._increment) & 0xFFF)
            return str(value)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class User:
    id: str
    username: str
    global_name: str | None = None
    bot: bool = False
    locale: str = "fr"

    def payload(self) -> Json:
        data: Json = {
            "id": self.id,
            "username": self.username,
            "global_name": self.global_name or self.username.capitalize(),
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class Role:
    id: str
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    color: int = 0

    def payload(self) -> Json:
        return {
            "id": self.id,
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
            "description": None,
        }


@dataclass
class Member:
    user: User
    role_ids: list[str]
    joined_at: str = field(default_factory=iso_now)
    nick: str | None = None

    def payload(self, permissions: int | None = None) -> Json:
        data: Json = {
            "user": self.user.payload(),
            "roles": list(self.role_ids),
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class Attachment:
    id: str
    filename: str
    data: bytes
    url: str
    content_type: str = "application/octet-stream"
    description: str | None = None

    def payload(self) -> Json:
        out: Json = {
            "id": self.id,
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            out["description"] = self.description
        return out

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


@dataclass
class Channel:
    id: str
    type: int
    name: str | None = None
    guild_id: str | None = None
    position: int = 0
    parent_id: str | None = None
    topic: str | None = None
    # Threads.
    owner_id: str | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    created_at: str = field(default_factory=iso_now)
    thread_member_ids: list[str] = field(default_factory=list)
    starter_message_id: str | None = None
    # Threads: the emulator clock at the last activity (a message, unarchiving, a new duration).
    last_activity: float = 0.0
    archive_timestamp: str | None = None
    # Guild channels: role and member permission overwrites, Discord's shape
    # ({"id", "type": 0 role / 1 member, "allow", "deny"} with the bit fields as strings).
    overwrites: list[Json] = field(default_factory=list)
    # DMs.
    recipient: User | None = None
    last_message_id: str | None = None

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    def payload(self, message_count: int = 0) -> Json:
        if self.type == DM:
            assert self.recipient is not None
            return {
                "id": self.id,
                "type": DM,
                "last_message_id": self.last_message_id,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        if self.is_thread:
            return {
                "id": self.id,
                "type": self.type,
                "guild_id": self.guild_id,
                "parent_id": self.parent_id,
                "owner_id": self.owner_id,
                "name": self.name,
                "last_message_id": self.last_message_id,
                "rate_limit_per_user": 0,
                "message_count": message_count,
                "total_message_sent": message_count,
                "member_count": len(self.thread_member_ids),
                "flags": 0,
                "applied_tags": [],
                "thread_metadata": {
                    "archived": self.archived,
                    "locked": self.locked,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.archive_timestamp or self.created_at,
                    "create_timestamp": self.created_at,
                    "invitable": self.invitable,
                },
            }
        return {
            "id": self.id,
            "type": self.type,
            "guild_id": self.guild_id,
            "name": self.name,
            "position": self.position,
            "parent_id": self.parent_id,
            "topic": self.topic,
            "nsfw": False,
            "last_message_id": self.last_message_id,
            "rate_limit_per_user": 0,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "flags": 0,
        }


@dataclass
class Guild:
    id: str
    name: str
    owner_id: str
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    members: dict[str, Member] = field(default_factory=dict)
    preferred_locale: str = "fr"
    # Custom emojis, Discord's shape (id, name, roles, require_colons, managed, animated, available).
    emojis: list[Json] = field(default_factory=list)

    @property
    def everyone(self) -> Role:
        return self.roles[0]

    def role(self, name: str) -> Role:
        for role in self.roles:
            if role.name == name or role.id == name:
                return role
        raise KeyError(f"no role {name!r} in guild {self.name!r}")

    def permissions_of(self, user_id: str) -> int:
        """Guild-level permissions (``permissions_in`` adds a channel's overwrites)."""
        if user_id == self.owner_id:
            return Perm.ALL
        member = self.members.get(user_id)
        if member is None:
            return 0
        perms = self.everyone.permissions
        for role in self.roles:
            if role.id in member.role_ids:
                perms |= role.permissions
        return Perm.ALL if perms & Perm.ADMINISTRATOR else perms

    def permissions_in(self, channel: Channel, user_id: str, parent: Channel | None = None) -> int:
        """Discord's computation: base permissions, then the channel's @everyone, role and member
        overwrites, in that order; no View Channel means no permission at all there. A thread uses
        its parent's overwrites (``parent``)."""
        base = self.permissions_of(user_id)
        if base & Perm.ADMINISTRATOR or base == Perm.ALL:
            return Perm.ALL
        source = parent if channel.is_thread and parent is not None else channel
        member = self.members.get(user_id)
        if member is None:
            return 0
        perms = base
        by_id = {str(o["id"]): o for o in source.overwrites}
        everyone = by_id.get(self.id)
        if everyone is not None:
            perms = (perms & ~int(everyone.get("deny") or 0)) | int(everyone.get("allow") or 0)
        allow = deny = 0
        for role_id in member.role_ids:
            overwrite = by_id.get(role_id)
            if overwrite is not None and int(overwrite.get("type", 0)) == 0:
                allow |= int(overwrite.get("allow") or 0)
                deny |= int(overwrite.get("deny") or 0)
        perms = (perms & ~deny) | allow
        own = by_id.get(user_id)
        if own is not None and int(own.get("type", 1)) == 1:
            perms = (perms & ~int(own.get("deny") or 0)) | int(own.get("allow") or 0)
        if not perms & Perm.VIEW_CHANNEL:
            return 0
        return perms

    def payload(self, threads: list[Json]) -> Json:
        return {
            "id": self.id,
            "name": self.name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": self.owner_id,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 1,
            "default_message_notifications": 1,
            "explicit_content_filter": 2,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": self.channels[0].id if self.channels else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": self.preferred_locale,
            "features": [],
            "max_members": 500000,
            "max_video_channel_users": 25,
            "application_id": None,
            "roles": [r.payload() for r in self.roles],
            "emojis": list(self.emojis),
            "stickers": [],
            "channels": [c.payload() for c in self.channels],
            "threads": threads,
            "members": [m.payload() for m in self.members.values()],
            "member_count": len(self.members),
            "large": False,
            "unavailable": False,
            "joined_at": iso_now(),
            "lazy": True,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "incidents_data": None,
        }


@dataclass
class Message:
    """A message as the emulator stores it; ``payload()`` is what Discord would answer."""

    id: str
    channel_id: str
    author: User
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    allowed_mentions: Json | None = None
    guild_id: str | None = None
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    pinned: bool = False
    tts: bool = False
    webhook_id: str | None = None
    application_id: str | None = None
    interaction_metadata: Json | None = None
    message_reference: Json | None = None
    thread_id: str | None = None
    # Who may see it: ephemeral interaction responses exist only for the invoking user.
    visible_to: str | None = None
    deleted: bool = False
    # Earlier versions, oldest first, so tests can check what an edit replaced.
    history: list[Json] = field(default_factory=list)
    # The emulator clock when it was posted, and its edits once an hour old (error 30046).
    created_clock: float = 0.0
    old_edits: int = 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    def iter_components(self) -> list[Json]:
        """Every interactive component, flattened out of rows and containers."""
        found: list[Json] = []

        def walk(items: list[Json]) -> None:
            for item in items:
                if item.get("custom_id") or item.get("type") in (2, 3, 5, 6, 7, 8):
                    found.append(item)
                for key in ("components",):
                    if isinstance(item.get(key), list):
                        walk(item[key])
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]])
                if isinstance(item.get("component"), dict):
                    walk([item["component"]])

        walk(self.components)
        return found

    @property
    def buttons(self) -> list[Json]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    def payload(self, thread: Json | None = None) -> Json:
        data: Json = {
            "id": self.id,
            "type": 20 if self.interaction_metadata else (19 if self.message_reference else 0),
            "channel_id": self.channel_id,
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "mention_channels": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": list(self.embeds),
            "reactions": [],
            "pinned": self.pinned,
            "flags": self.flags,
            "components": list(self.components),
        }
        if self.guild_id is not None:
            data["guild_id"] = self.guild_id
        if self.webhook_id is not None:
            data["webhook_id"] = self.webhook_id
        if self.application_id is not None:
            data["application_id"] = self.application_id
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if thread is not None:
            data["thread"] = thread
        return data


@dataclass
class Callback:
    """One interaction callback the bot sent (accepted or refused)."""

    type: int
    data: Json | None
    status: int
    at: float
    port: int = 0  # the emulator port it came in on (one port per bot process in sharding tests)


@dataclass
class Interaction:
    id: str
    token: str
    type: int
    user: User
    channel_id: str
    guild_id: str | None
    payload: Json
    created_at: float  # emulator clock, for the 3 s / 15 min deadlines
    dispatched_perf: float = 0.0  # perf_counter when the frame went out (benchmarks)
    callbacks: list[Callback] = field(default_factory=list)
    first_callback_perf: float | None = None
    response_type: int | None = None
    original_message_id: str | None = None
    source_message_id: str | None = None  # component interactions: the message holding the component
    followup_ids: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    modal: Json | None = None
    choices: list[Json] | None = None
    deliveries: list[Delivery] = field(default_factory=list)  # the gateway sessions it went to

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None


@dataclass(frozen=True)
class Delivery:
    """One gateway session an event was dispatched to, and whether its socket was open then."""

    session_id: str
    shard: tuple[int, int]
    port: int
    live: bool


@dataclass
class RecordedRequest:
    method: str
    path: str
    route: str
    status: int
    body: Any
    response: Any
    at: float
    port: int = 0  # the emulator port the request came in on


@dataclass
class Failure:
    """Something the bot did that Discord would have refused; tests assert there are none."""

    kind: str
    detail: str
    interaction_id: str | None = None


def new_token() -> str:
    return "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)


Clock = Callable[[], float]


class FakeClock:
    """A clock for deadline tests: time moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class OffsetClock:
    """Real monotonic time that a test can push forward (e.g. past the 3 s deadline)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds
