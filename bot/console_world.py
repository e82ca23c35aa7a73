"""The console's Discord server: ids derived from names, so a ``--db`` file is a campaign.

Discord gives every server, channel, role and user a snowflake id, and the bot keeps those ids in
its database (a character's owner, the GM role, the GM channel). The emulator draws fresh ids at
every start, so a second console run on the same file would be another server with other users.
Here each id is derived from the server's name and the object's name instead: ``alice`` is the same
user, ``#partie`` the same channel and ``MJ`` the same role at every run. Names used for the first
time (``@dave``, ``#taverne``, ``@&Joueurs``) are created on the spot; with a database file they are
written beside it (``FILE.world.json``) and recreated at the next start, with the roles given to
members by ``!role``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.emulator.server import Emulator
from bot.emulator.state import (
    GUILD_TEXT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Channel,
    Guild,
    Intents,
    Member,
    Perm,
    Role,
    User,
)

DEFAULT_SERVER = "La Taverne"
# The built-in cast (documented in the README).
DEFAULT_CHANNELS = ("général", "partie", "hors-jeu", "mj")
DEFAULT_ROLES: tuple[tuple[str, int], ...] = (
    ("MJ", 0),
    ("Admin", Perm.MANAGE_GUILD | Perm.MANAGE_MESSAGES | Perm.MANAGE_THREADS),
)
DEFAULT_MEMBERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("alice", ()),
    ("bob", ()),
    ("gm", ("MJ",)),
    ("carol", ("Admin",)),
)
OWNER = "carol"

_DISCORD_EPOCH_MS = 1_420_070_400_000
# Derived ids carry a timestamp in January 2021: older than every id the emulator draws at run time,
# so the ordering of snowflakes stays realistic.
_BASE_MS = 1_609_459_200_000 - _DISCORD_EPOCH_MS


def stable_id(*parts: str) -> str:
    """A snowflake that depends only on ``parts`` (``("user", "alice")``)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    value = int.from_bytes(digest[:8], "big")
    ms = _BASE_MS + (value >> 22) % (1 << 31)
    return str((ms << 22) | (value & 0x3FFFFF))


def _key(name: str) -> str:
    return name.strip().casefold()


@dataclass
class ConsoleWorld:
    """The one server the console plays on, and its users, roles and channels."""

    emu: Emulator
    server: str = DEFAULT_SERVER
    locale: str = "fr"
    store: Path | None = None
    guild: Guild = field(init=False)
    # What was added beyond the built-in cast (what the store file keeps).
    extra_users: list[str] = field(default_factory=list)
    extra_roles: list[str] = field(default_factory=list)
    extra_channels: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        gid = stable_id("guild", self.server)
        # An English table plays on an English server: the shared messages (the tracker) follow it.
        self.guild = Guild(
            id=gid, name=self.server, owner_id="", preferred_locale="en-GB" if self.locale == "en" else "fr"
        )
        self.guild.roles.append(Role(id=gid, name="@everyone", permissions=Perm.EVERYONE_DEFAULT))
        bot_role = Role(
            id=stable_id("role", self.server, self.emu.config.bot_name),
            name=self.emu.config.bot_name,
            permissions=self.emu.config.bot_permissions,
            position=1,
            managed=True,
        )
        self.guild.roles.append(bot_role)
        self.emu.guilds[gid] = self.guild
        self.guild.members[self.emu.bot_user.id] = Member(user=self.emu.bot_user, role_ids=[bot_role.id])
        for role_name, perms in DEFAULT_ROLES:
            self._new_role(role_name, perms)
        for channel_name in DEFAULT_CHANNELS:
            self._new_channel(channel_name)
        for username, role_names in DEFAULT_MEMBERS:
            member = self._new_member(username)
            member.role_ids.extend(self.role(r).id for r in role_names)
        self.guild.owner_id = self.user(OWNER).id
        self._load()

    # -- look-ups that create on first use ----------------------------------------------------

    def find_user(self, name: str) -> User | None:
        key = _key(name)
        for user in self.emu.users.values():
            if _key(user.username) == key and not user.bot:
                return user
        return None

    def user(self, name: str) -> User:
        """The member called ``name``, created (and kept) if new."""
        user = self.find_user(name)
        if user is not None and user.id in self.guild.members:
            return user
        self._new_member(name)
        self.extra_users.append(name)
        self._save()
        return self.guild.members[stable_id("user", _key(name))].user

    def user_by_id(self, user_id: str) -> User | None:
        user = self.emu.users.get(user_id)
        return user if user is not None and user.id in self.guild.members else None

    def find_role(self, name: str) -> Role | None:
        key = _key(name)
        return next((r for r in self.guild.roles if _key(r.name) == key or r.id == name), None)

    def role(self, name: str) -> Role:
        role = self.find_role(name)
        if role is None:
            raise KeyError(f"no role {name!r}")
        return role

    def find_channel(self, name: str) -> Channel | None:
        key = _key(name.lstrip("#"))
        # The newest first: a fight's thread shadows an older one of the same name.
        for channel in reversed(list(self.emu.channels.values())):
            if channel.guild_id == self.guild.id and channel.name and _key(channel.name) == key:
                return channel
            if channel.id == name:
                return channel
        return None

    async def ensure_role(self, name: str) -> tuple[Role, bool]:
        """The role ``name``; a new one is created, announced to the bot and kept."""
        role = self.find_role(name)
        if role is not None:
            return role, False
        role = self._new_role(name, 0)
        self.extra_roles.append(name)
        self._save()
        await self.emu.gateway.dispatch(
            "GUILD_ROLE_CREATE", {"guild_id": self.guild.id, "role": role.payload()}, intent=Intents.GUILDS
        )
        return role, True

    async def ensure_channel(self, name: str) -> tuple[Channel, bool]:
        """The channel or thread ``name``; a new text channel is created, announced and kept."""
        channel = self.find_channel(name)
        if channel is not None:
            return channel, False
        channel = self._new_channel(name.lstrip("#"))
        self.extra_channels.append(channel.name or "")
        self._save()
        await self.emu.gateway.dispatch(
            "CHANNEL_CREATE", self.emu._channel_payload(channel), intent=Intents.GUILDS
        )
        return channel, True

    async def give_role(self, user: User, role: Role, *, add: bool) -> None:
        member = self.guild.members[user.id]
        if add and role.id not in member.role_ids:
            member.role_ids.append(role.id)
        elif not add and role.id in member.role_ids:
            member.role_ids.remove(role.id)
        else:
            return
        self._save()
        payload = member.payload()
        payload["guild_id"] = self.guild.id
        await self.emu.gateway.dispatch("GUILD_MEMBER_UPDATE", payload, intent=Intents.MEMBERS)

    # -- building -------------------------------------------------------------------------------

    def _new_member(self, name: str) -> Member:
        uid = stable_id("user", _key(name))
        user = self.emu.users.get(uid)
        if user is None:
            user = User(id=uid, username=name, locale=self.locale)
            self.emu.users[uid] = user
        member = self.guild.members.get(uid)
        if member is None:
            member = self.guild.members[uid] = Member(user=user, role_ids=[])
        return member

    def _new_role(self, name: str, permissions: int) -> Role:
        role = Role(
            id=stable_id("role", self.server, _key(name)),
            name=name,
            permissions=permissions,
            position=len(self.guild.roles),
        )
        self.guild.roles.append(role)
        return role

    def _new_channel(self, name: str) -> Channel:
        channel = Channel(
            id=stable_id("channel", self.server, _key(name)),
            type=GUILD_TEXT,
            name=name,
            guild_id=self.guild.id,
            position=len(self.guild.channels),
        )
        self.guild.channels.append(channel)
        self.emu.channels[channel.id] = channel
        return channel

    # -- the store file ---------------------------------------------------------------------------

    def _load(self) -> None:
        if self.store is None or not self.store.exists():
            return
        try:
            data: dict[str, Any] = json.loads(self.store.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # a damaged side file: the built-in cast still works
        for name in data.get("roles", []):
            if isinstance(name, str) and self.find_role(name) is None:
                self._new_role(name, 0)
                self.extra_roles.append(name)
        for name in data.get("channels", []):
            if isinstance(name, str) and self.find_channel(name) is None:
                self._new_channel(name)
                self.extra_channels.append(name)
        for name in data.get("users", []):
            if isinstance(name, str) and self.find_user(name) is None:
                self._new_member(name)
                self.extra_users.append(name)
        for entry in data.get("threads", []):
            self._restore_thread(entry)
        for name, role_names in (data.get("member_roles") or {}).items():
            user = self.find_user(name)
            if user is None or not isinstance(role_names, list):
                continue
            member = self.guild.members[user.id]
            member.role_ids = [r.id for r in (self.find_role(n) for n in role_names) if r is not None]

    def _restore_thread(self, entry: Any) -> None:
        """A fight's thread from an earlier run (its messages are gone, the bot's rows still name it)."""
        if not isinstance(entry, dict) or entry.get("type") not in (PUBLIC_THREAD, PRIVATE_THREAD):
            return
        parent = self.find_channel(str(entry.get("parent", "")))
        thread_id = str(entry.get("id", ""))
        if parent is None or not thread_id.isdigit() or thread_id in self.emu.channels:
            return
        self.emu.channels[thread_id] = Channel(
            id=thread_id,
            type=int(entry["type"]),
            name=str(entry.get("name") or "thread"),
            guild_id=self.guild.id,
            parent_id=parent.id,
            owner_id=self.emu.bot_user.id,
            archived=bool(entry.get("archived")),
            locked=bool(entry.get("locked")),
            auto_archive_duration=int(entry.get("auto_archive_duration") or 1440),
            thread_member_ids=[self.emu.bot_user.id],
        )

    def save(self) -> None:
        """Write the store file (the console calls it at the end of a run, for the threads)."""
        self._save()

    def _save(self) -> None:
        if self.store is None:
            return
        everyone = self.guild.everyone.id
        data = {
            "server": self.server,
            "users": self.extra_users,
            "roles": self.extra_roles,
            "channels": self.extra_channels,
            "member_roles": {
                m.user.username: [r.name for r in self.guild.roles if r.id in m.role_ids and r.id != everyone]
                for m in self.guild.members.values()
                if not m.user.bot
            },
            "threads": [
                {
                    "id": c.id,
                    "type": c.type,
                    "name": c.name,
                    "parent": self.emu.channels[c.parent_id].name
                    if c.parent_id in self.emu.channels
                    else None,
                    "archived": c.archived,
                    "locked": c.locked,
                    "auto_archive_duration": c.auto_archive_duration,
                }
                for c in self.emu.channels.values()
                if c.is_thread and c.guild_id == self.guild.id
            ],
        }
        self.store.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
