"""Test-side API: players at a table typing slash commands, clicking buttons, filling modals.

Reads like a session of play::

    alice = table.user("alice")
    r = await alice.slash("lancer", expression="1d100")      # French name or "roll"
    await gm.slash("combat ouvrir", name="Embuscade")         # subcommands by (localised) path
    await bob.click("Parer")                                   # last visible message holding it
    await gm.submit_modal(nom="Gork", pv="12")                 # last modal gm received

What a real Discord client would refuse to send (a missing required option, a value
outside the choices, a disabled button) raises ``ClientRefused`` instead of reaching
the bot; what Discord's servers refuse is the bot's failure, recorded by the emulator.
"""

# ruff: noqa: ASYNC109 -- waiting "within timeout seconds" is the API tests read best.

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .server import Emulator
from .state import DM, Channel, Guild, Interaction, Json, Member, Message, Role, User

DEFAULT_TIMEOUT = 5.0


class ClientRefused(ValueError):
    """The Discord client itself would not let the user send this."""


@dataclass
class Upload:
    """A file a user attaches to a slash command option of type 11 (attachment)."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


def normalise(text: str) -> str:
    """Key used to match option, field and label names: "Points de vie" -> "points_de_vie"."""
    stripped = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in stripped if not unicodedata.combining(ch))
    return re.sub(r"[^a-z0-9]+", "_", stripped.lower()).strip("_")


def _names(entry: Json) -> set[str]:
    names = {entry.get("name", "")}
    names.update((entry.get("name_localizations") or {}).values())
    return {normalise(n) for n in names if n}


class Result:
    """What became of one interaction: its callbacks, response message and followups."""

    def __init__(self, emu: Emulator, interaction: Interaction) -> None:
        self.emu = emu
        self.interaction = interaction

    def __repr__(self) -> str:
        return f"<Result type={self.callback_type} content={self.content!r} failures={self.failures}>"

    @property
    def callback_type(self) -> int | None:
        return self.interaction.callbacks[0].type if self.interaction.callbacks else None

    @property
    def failures(self) -> list[str]:
        mine = [f"{f.kind}: {f.detail}" for f in self.emu.failures if f.interaction_id == self.interaction.id]
        return mine

    @property
    def failed(self) -> bool:
        return bool(self.failures) or not self.interaction.acknowledged

    @property
    def message(self) -> Message | None:
        """The response message (for type 6/7 on a component: the message that was updated); if
        the bot deleted it (a public "thinking" message before a private answer), the first
        followup, which is what the user sees instead."""
        mid = self.interaction.original_message_id
        message = self.emu.messages.get(mid) if mid else None
        if message is not None and message.deleted:
            live = [m for m in self.followups if not m.deleted]
            return live[0] if live else message
        return message

    def _msg(self) -> Message:
        message = self.message
        if message is None:
            raise AssertionError(
                f"interaction has no response message (callbacks: {self.interaction.callbacks})"
            )
        return message

    @property
    def content(self) -> str | None:
        return self.message.content if self.message else None

    @property
    def embeds(self) -> list[Json]:
        return self._msg().embeds

    @property
    def embed(self) -> Json:
        embeds = self.embeds
        assert embeds, "response has no embed"
        return embeds[0]

    @property
    def components(self) -> list[Json]:
        return self._msg().components

    @property
    def flags(self) -> int:
        return self._msg().flags

    @property
    def ephemeral(self) -> bool:
        return self._msg().ephemeral

    @property
    def deferred(self) -> bool:
        return self.callback_type in (5, 6)

    @property
    def modal(self) -> Json | None:
        return self.interaction.modal

    @property
    def choices(self) -> list[Json] | None:
        return self.interaction.choices

    @property
    def followups(self) -> list[Message]:
        return [self.emu.messages[i] for i in self.interaction.followup_ids]

    async def wait_followup(self, count: int = 1, *, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The ``count``-th followup, once sent."""
        await self.emu.wait_until(
            lambda: len(self.interaction.followup_ids) >= count,
            timeout=timeout,
            what=f"followup #{count} of interaction {self.interaction.id}",
        )
        return self.followups[count - 1]

    async def wait_response(self, *, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The response message once it is no longer "thinking" (after a deferred type 5)."""

        def ready() -> Message | None:
            message = self.message
            return message if message is not None and not message.loading else None

        return await self.emu.wait_until(ready, timeout=timeout, what="the deferred response to be edited")

    async def wait_edit(self, *, count: int = 1, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The response message after ``count`` edits."""
        message = self._msg()
        await self.emu.wait_until(lambda: len(message.history) >= count, timeout=timeout, what="an edit")
        return message


class Player:
    """One user at the table."""

    def __init__(self, table: Table, user: User, locale: str) -> None:
        self.table = table
        self.emu = table.emu
        self.user = user
        self.locale = locale

    def __repr__(self) -> str:
        return f"<Player {self.user.username} ({self.locale})>"

    @property
    def id(self) -> str:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.username

    @property
    def mention(self) -> str:
        return f"<@{self.user.id}>"

    @property
    def member(self) -> Member:
        return self.table.guild.members[self.user.id]

    @property
    def dm_messages(self) -> list[Message]:
        return self.emu.dms(self.user)

    def _channel(self, channel: str | Channel | None) -> Channel:
        if channel is None:
            return self.table.default_channel
        if channel == "dm":
            return self.emu.dm_channel(self.user)
        return self.emu.channel(channel)

    async def _send(
        self,
        kind: int,
        data: Json,
        channel: Channel,
        *,
        message: Message | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        what: str,
    ) -> Result:
        interaction = await self.emu.dispatch_interaction(
            self.user, kind, data, channel, message=message, locale=self.locale
        )
        await self.emu.wait_until(
            lambda: interaction.callbacks, timeout=timeout, what=f"the bot to answer {what}"
        )
        return Result(self.emu, interaction)

    # -- slash commands and autocomplete -------------------------------------------------

    def _resolve(self, path: str, channel: Channel) -> tuple[Json, Json, list[Json], list[Json]]:
        """(command, data, innermost option list of data, innermost option definitions)."""
        tokens = path.strip().lstrip("/").split()
        if not tokens:
            raise ClientRefused("empty command")
        guild_id = channel.guild_id
        commands = [c for c in self.emu.command_scopes(guild_id) if c.get("type", 1) == 1]
        head = normalise(tokens[0])
        command = next((c for c in commands if head in _names(c)), None)
        if command is None:
            known = sorted(c["name"] for c in commands)
            raise ClientRefused(f"no command /{tokens[0]} (synced: {known})")
        if channel.type == DM and (
            command.get("dm_permission") is False
            or (command.get("contexts") is not None and 1 not in command["contexts"])
        ):
            raise ClientRefused(f"/{command['name']} is offered in servers only")
        data: Json = {"id": command["id"], "name": command["name"], "type": 1, "options": []}
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        options_out: list[Json] = data["options"]
        definitions: list[Json] = command.get("options") or []
        for token in tokens[1:]:
            key = normalise(token)
            sub = next((o for o in definitions if o.get("type") in (1, 2) and key in _names(o)), None)
            if sub is None:
                subs = [o["name"] for o in definitions if o.get("type") in (1, 2)]
                raise ClientRefused(f"/{command['name']} has no subcommand {token!r} (has {subs})")
            nested: Json = {"name": sub["name"], "type": sub["type"], "options": []}
            options_out.append(nested)
            options_out = nested["options"]
            definitions = sub.get("options") or []
        if any(o.get("type") in (1, 2) for o in definitions):
            subs = [o["name"] for o in definitions if o.get("type") in (1, 2)]
            raise ClientRefused(f"/{path} needs a subcommand: {subs}")
        return command, data, options_out, definitions

    def _option_value(self, definition: Json, value: Any, resolved: Json, channel: Channel) -> Any:
        kind = definition.get("type")
        name = definition["name"]
        guild = self.emu.guild_of(channel)
        if kind == 3:
            value = str(value)
            if "min_length" in definition and len(value) < definition["min_length"]:
                raise ClientRefused(f"{name}: shorter than {definition['min_length']}")
            if "max_length" in definition and len(value) > definition["max_length"]:
                raise ClientRefused(f"{name}: longer than {definition['max_length']}")
            if len(value) > 6000:
                raise ClientRefused(f"{name}: too long")
        elif kind == 4:
            value = int(value)
        elif kind == 5:
            value = bool(value)
        elif kind == 10:
            value = float(value)
        if kind in (4, 10):
            if "min_value" in definition and value < definition["min_value"]:
                raise ClientRefused(f"{name}: below {definition['min_value']}")
            if "max_value" in definition and value > definition["max_value"]:
                raise ClientRefused(f"{name}: above {definition['max_value']}")
        if kind == 6 or (kind == 9 and not isinstance(value, Role)):
            user = value.user if isinstance(value, Player) else value
            if isinstance(user, str):
                user = self.emu.user_named(user)
            if isinstance(user, User):
                resolved.setdefault("users", {})[user.id] = user.payload()
                if guild is not None and user.id in guild.members:
                    member = guild.members[user.id].payload(permissions=guild.permissions_of(user.id))
                    member.pop("user")
                    resolved.setdefault("members", {})[user.id] = member
                return user.id
            if kind == 6:
                raise ClientRefused(f"{name}: not a user: {value!r}")
        if kind in (8, 9):
            assert guild is not None, "role options need a guild"
            role = value if isinstance(value, Role) else guild.role(str(value))
            resolved.setdefault("roles", {})[role.id] = role.payload()
            return role.id
        if kind == 7:
            target = self.emu.channel(value)
            resolved.setdefault("channels", {})[target.id] = {
                **self.emu._channel_payload(target),
                "permissions": str(guild.permissions_of(self.user.id) if guild else 0),
            }
            return target.id
        if kind == 11:
            upload = value if isinstance(value, Upload) else Upload(*value)
            attachment = self.emu.make_attachment(
                channel.id, upload.filename, upload.data, upload.content_type
            )
            payload = attachment.payload()
            payload["ephemeral"] = True
            resolved.setdefault("attachments", {})[attachment.id] = payload
            return attachment.id
        choices = definition.get("choices")
        if choices:
            for choice in choices:
                if choice["value"] == value:
                    return value
            for choice in choices:
                if isinstance(value, str) and normalise(value) in _names(choice):
                    return choice["value"]
            raise ClientRefused(f"{name}: {value!r} is not one of {[c['value'] for c in choices]}")
        return value

    def _fill_options(
        self,
        definitions: list[Json],
        given: Mapping[str, Any],
        out: list[Json],
        channel: Channel,
        *,
        focused: str | None = None,
    ) -> Json:
        resolved: Json = {}
        remaining = {normalise(k): (k, v) for k, v in given.items()}
        for definition in definitions:
            match = next((n for n in _names(definition) if n in remaining), None)
            if match is None:
                if definition.get("required") and focused is None:
                    raise ClientRefused(f"missing required option {definition['name']!r}")
                continue
            _, value = remaining.pop(match)
            entry: Json = {"name": definition["name"], "type": definition["type"]}
            if focused is not None and match == focused:
                entry["value"] = str(value)
                entry["focused"] = True
            else:
                entry["value"] = self._option_value(definition, value, resolved, channel)
            out.append(entry)
        if remaining:
            unknown = [k for k, _ in remaining.values()]
            raise ClientRefused(f"unknown option(s) {unknown}; expected {[d['name'] for d in definitions]}")
        return resolved

    async def slash(
        self,
        command: str,
        /,
        *,
        channel: str | Channel | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        option_values: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Result:
        """Run ``/command [sub [subsub]]`` with options by (localised) name; waits for the first callback.
        ``option_values``: options whose names clash with this method's (``/config gm-channel
        channel:#gm``)."""
        options = {**(option_values or {}), **options}
        target = self._channel(channel)
        if target.is_thread and target.archived:
            # Discord: "Users cannot ... use application commands ... in archived threads".
            raise ClientRefused(f"#{target.name} is archived: commands cannot be used there")
        _, data, out, definitions = self._resolve(command, target)
        resolved = self._fill_options(definitions, options, out, target)
        if resolved:
            data["resolved"] = resolved
        return await self._send(2, data, target, timeout=timeout, what=f"/{command}")

    async def autocomplete(
        self,
        command: str,
        option: str,
        value: str,
        /,
        *,
        channel: str | Channel | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        **options: Any,
    ) -> list[Json]:
        """Type ``value`` into ``option`` of ``command``; returns the choices the bot offered."""
        target = self._channel(channel)
        _, data, out, definitions = self._resolve(command, target)
        key = normalise(option)
        definition = next((d for d in definitions if key in _names(d)), None)
        if definition is None or not definition.get("autocomplete"):
            raise ClientRefused(f"option {option!r} of /{command} has no autocomplete")
        self._fill_options(definitions, {**options, option: value}, out, target, focused=key)
        result = await self._send(
            4, data, target, timeout=timeout, what=f"autocomplete of /{command} {option}"
        )
        if result.choices is None:
            raise AssertionError(f"autocomplete answered with callback type {result.callback_type}, not 8")
        return result.choices

    # -- components ----------------------------------------------------------------------

    def visible_messages(self) -> list[Message]:
        """Messages this user can see, newest first (ephemeral ones only if meant for them)."""
        return sorted(
            (
                m
                for m in self.emu.messages.values()
                if not m.deleted
                and (m.visible_to is None or m.visible_to == self.user.id)
                and self._can_see(m)
            ),
            key=lambda m: int(m.id),
            reverse=True,
        )

    def _can_see(self, message: Message) -> bool:
        channel = self.emu.channels[message.channel_id]
        if channel.type == DM:
            return channel.recipient is not None and channel.recipient.id == self.user.id
        guild = self.emu.guild_of(channel)
        return guild is not None and self.user.id in guild.members

    def _find_component(
        self, target: str, kinds: Iterable[int], message: Message | None
    ) -> tuple[Message, Json]:
        kinds = set(kinds)
        candidates = [message] if message is not None else self.visible_messages()
        for msg in candidates:
            for component in msg.iter_components():
                if component.get("type") not in kinds:
                    continue
                labels = {component.get("custom_id"), component.get("label"), component.get("placeholder")}
                if target in labels or normalise(target) in {normalise(x) for x in labels if x}:
                    return msg, component
        raise ClientRefused(f"{self.name} sees no component {target!r}")

    async def click(
        self, target: str, /, *, message: Message | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> Result:
        """Click a button by label or custom_id, on ``message`` or the newest visible message holding it."""
        msg, button = self._find_component(target, (2,), message)
        if button.get("disabled"):
            raise ClientRefused(f"button {target!r} is disabled")
        if button.get("style") in (5, 6) or "custom_id" not in button:
            raise ClientRefused(f"button {target!r} is a link/premium button")
        data: Json = {"custom_id": button["custom_id"], "component_type": 2}
        if "id" in button:
            data["id"] = button["id"]
        channel = self.emu.channels[msg.channel_id]
        return await self._send(3, data, channel, message=msg, timeout=timeout, what=f"click on {target!r}")

    async def select(
        self,
        target: str,
        values: str | Player | User | Iterable[str | Player | User],
        /,
        *,
        message: Message | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """Pick ``values`` (labels or values; users for a user select) in a select menu."""
        msg, select = self._find_component(target, (3, 5, 6, 7, 8), message)
        if select.get("disabled"):
            raise ClientRefused(f"select {target!r} is disabled")
        items = [values] if isinstance(values, str | Player | User) else list(values)
        data: Json = {"custom_id": select["custom_id"], "component_type": select["type"], "values": []}
        if "id" in select:
            data["id"] = select["id"]
        channel = self.emu.channels[msg.channel_id]
        if select["type"] == 3:
            options = select.get("options") or []
            for item in items:
                key = normalise(str(item))
                option = next(
                    (
                        o
                        for o in options
                        if item in (o.get("value"), o.get("label"))
                        or key in (normalise(o.get("value", "")), normalise(o.get("label", "")))
                    ),
                    None,
                )
                if option is None:
                    raise ClientRefused(f"{item!r} is not an option of {target!r}")
                data["values"].append(option["value"])
        else:
            resolved: Json = {}
            definition = {"name": target, "type": {5: 6, 6: 8, 7: 9, 8: 7}[select["type"]]}
            for item in items:
                data["values"].append(self._option_value(definition, item, resolved, channel))
            data["resolved"] = resolved
        low, high = select.get("min_values", 1), select.get("max_values", 1)
        if not low <= len(data["values"]) <= high:
            raise ClientRefused(f"{target!r} takes {low}..{high} values, got {len(data['values'])}")
        return await self._send(3, data, channel, message=msg, timeout=timeout, what=f"select in {target!r}")

    # -- modals --------------------------------------------------------------------------

    @property
    def open_modal(self) -> Json | None:
        pending = self.emu.modals.get(self.user.id)
        return pending[1] if pending else None

    async def submit_modal(
        self, values: Mapping[str, Any] | None = None, /, *, timeout: float = DEFAULT_TIMEOUT, **fields: Any
    ) -> Result:
        """Fill and submit the last modal this user was shown; fields by custom_id or label."""
        pending = self.emu.modals.pop(self.user.id, None)
        if pending is None:
            raise ClientRefused(f"{self.name} has no modal open")
        origin, modal = pending
        given = {normalise(k): v for k, v in {**(values or {}), **fields}.items()}
        used: set[str] = set()

        def answer(child: Json, label: str | None) -> Json:
            keys = {normalise(x) for x in (child.get("custom_id"), label, child.get("label")) if x}
            key = next((k for k in keys if k in given), None)
            out: Json = {"type": child["type"], "custom_id": child.get("custom_id")}
            if "id" in child:
                out["id"] = child["id"]
            if child["type"] == 4:
                value = str(given[key]) if key is not None else str(child.get("value") or "")
                if key is not None:
                    used.add(key)
                if child.get("required", True) and not value:
                    raise ClientRefused(f"modal field {label or child.get('custom_id')!r} is required")
                if value and len(value) < int(child.get("min_length") or 0):
                    raise ClientRefused(f"modal field {label!r}: shorter than {child['min_length']}")
                if len(value) > int(child.get("max_length") or 4000):
                    raise ClientRefused(
                        f"modal field {label!r}: longer than {child.get('max_length') or 4000}"
                    )
                out["value"] = value
            elif child["type"] in (3, 5, 6, 7, 8):
                chosen = given.get(key) if key is not None else None
                if key is not None:
                    used.add(key)
                out["values"] = (
                    [] if chosen is None else ([chosen] if isinstance(chosen, str) else list(chosen))
                )
            return out

        components: list[Json] = []
        for row in modal.get("components") or []:
            if row.get("type") == 1:
                children = row.get("components") or []
                children[0].get("label") if children else None
                components.append({"type": 1, "components": [answer(c, c.get("label")) for c in children]})
                if "id" in row:
                    components[-1]["id"] = row["id"]
            elif row.get("type") == 18:
                entry: Json = {"type": 18, "component": answer(row["component"], row.get("label"))}
                if "id" in row:
                    entry["id"] = row["id"]
                components.append(entry)
            elif "id" in row:
                components.append({"type": row["type"], "id": row["id"]})
        unknown = set(given) - used
        if unknown:
            raise ClientRefused(f"modal {modal.get('title')!r} has no field(s) {sorted(unknown)}")
        data: Json = {"custom_id": modal["custom_id"], "components": components}
        channel = self.emu.channels[origin.channel_id]
        source = self.emu.messages.get(origin.source_message_id or "")
        return await self._send(5, data, channel, message=source, timeout=timeout, what="the modal submit")

    # -- plain messages ------------------------------------------------------------------

    async def say(self, content: str, *, channel: str | Channel | None = None) -> Message:
        """Post a plain message as this user (the bot sees it if its intents allow)."""
        target = self._channel(channel)
        message = Message(
            id=self.emu.ids.next(),
            channel_id=target.id,
            author=self.user,
            content=content,
            guild_id=target.guild_id,
        )
        self.emu._store_message(message, dispatch=False)
        await self.emu._dispatch_message("MESSAGE_CREATE", message, target)
        return message

    async def start_thread(
        self, name: str, *, channel: str | Channel | None = None, auto_archive_duration: int = 1440
    ) -> Channel:
        """Create a public thread as this user (THREAD_CREATE), as a player does in the client."""
        return await self.emu.add_thread(
            self._channel(channel), name, owner=self.user, auto_archive_duration=auto_archive_duration
        )


class Table:
    """A guild seen from the tests: users, channels, threads, DMs, pins."""

    def __init__(self, emu: Emulator, guild: Guild | None = None, *, channel: str | None = None) -> None:
        self.emu = emu
        self.guild = guild or emu.guild
        text_channels = [c for c in self.guild.channels if c.type == 0]
        self.default_channel = emu.channel(channel) if channel else text_channels[0]
        self._players: dict[str, Player] = {}

    def user(self, name: str, *, locale: str | None = None) -> Player:
        """The player ``name`` (created and added to the guild if new); locale defaults to "fr"."""
        try:
            user = self.emu.user_named(name)
        except KeyError:
            user = self.emu.add_user(name, locale=locale or "fr")
        if user.id not in self.guild.members:
            self.guild.members[user.id] = Member(user=user, role_ids=[])
        player = self._players.get(name)
        if player is None or (locale is not None and player.locale != locale):
            player = Player(self, user, locale or (player.locale if player else user.locale))
            self._players[name] = player
        return player

    def channel_messages(
        self, channel: str | Channel | None = None, *, include_ephemeral: bool = False
    ) -> list[Message]:
        return self.emu.channel_messages(channel or self.default_channel, include_ephemeral=include_ephemeral)

    @property
    def threads(self) -> list[Channel]:
        return self.emu.threads

    def thread(self, name: str) -> Channel:
        for thread in reversed(self.emu.threads):
            if thread.name == name:
                return thread
        raise KeyError(f"no thread {name!r} (threads: {[t.name for t in self.emu.threads]})")

    def dms(self, user: str | Player | User) -> list[Message]:
        target = user.user if isinstance(user, Player) else user
        return self.emu.dms(target)

    def pins(self, channel: str | Channel | None = None) -> list[Message]:
        return self.emu.pins(channel or self.default_channel)

    @property
    def failures(self) -> list[str]:
        return [f"{f.kind}: {f.detail}" for f in self.emu.failures]

    def assert_no_failures(self) -> None:
        assert not self.emu.failures, "Discord would have refused: " + "; ".join(self.failures)

    def pinged_everyone(self) -> list[Message]:
        """Messages that would really ping @everyone/@here or a role (given allowed_mentions)."""
        out = []
        for message in self.emu.messages.values():
            payload = self.emu.message_payload(message)
            if payload["mention_everyone"] or payload["mention_roles"]:
                out.append(message)
        return out
