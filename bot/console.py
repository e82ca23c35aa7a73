"""The offline console: the real bot and the local Discord emulator in one process.

Each line of standard input is a slash command typed by a user (``@alice /roll expression:1d100``),
a button press (``!click Parer``), a select menu (``!select Cible Gobelin``), a form
(``!modal nom:Albert``) or a console instruction (``!in combat``, ``!pins``, ``!autocomplete …``,
``!wait 10m``, ``!role @dave MJ``). The emulator turns it into the same INTERACTION_CREATE Discord
would send, the bot answers through discord.py's real HTTP code, and the console prints what the
emulator received — so the console exercises exactly the command definitions users get on Discord.

Option values are typed as on Discord: ``@bob`` or ``<@id>`` for a user, ``@MJ`` / ``@&MJ`` for a
role, ``#mj`` for a channel, ``fichier:@path/file.json`` for an attachment, ``oui``/``non`` for a
boolean; each becomes the option type the command declares. A line the console cannot send is
refused in one line (``!! …``) and the session goes on; the exit status is 1 if any line was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import mimetypes
import random
import re
import shlex
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from bot.config import Settings
from bot.i18n import Catalog
from bot.ui.reply import Reply

READY_TIMEOUT = 30.0
REPLY_TIMEOUT = 15.0
# What Discord lets a user upload without Nitro (the ``attachment_size_limit`` it sends the bot).
UPLOAD_LIMIT = 10 * 1024 * 1024
_TRUE = {"true", "oui", "yes", "vrai", "1", "on"}
_FALSE = {"false", "non", "no", "faux", "0", "off"}
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)")
_USER_MENTION = re.compile(r"<@!?([0-9]+)>")
_ROLE_MENTION = re.compile(r"<@&([0-9]+)>")
_CHANNEL_MENTION = re.compile(r"<#([0-9]+)>")
_DURATION = re.compile(r"([0-9]+(?:[.,][0-9]+)?)\s*(s|sec|m|min|h|j|d)?", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "j": 86400, "d": 86400}
_FIGHT_THREAD_WORDS = {"combat", "fight"}
# The tasks discord.py and the bot run an interaction in: a line is over when none is left (the
# reply is sent first, then a fight's tracker edit, thread archive…).
_HANDLER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-dynamic-item",
    "discord.py: on_interaction",
    "melee-",
)


class ConsoleInputError(ValueError):
    """A line the console cannot understand (shown to the user in the console's language, the session
    goes on): a catalogue key (``console.error.*``) and its parameters."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key, self.params = key, params

    def render(self, catalog: Catalog, locale: str) -> str:
        params = dict(self.params)
        for name in ("size", "limit"):  # byte counts: « 10.0 MiB » / « 10,0 Mio »
            if isinstance(params.get(name), int):
                params[name] = _size(params[name], locale)
        return catalog.t(locale, self.key, **params)

    def __str__(self) -> str:
        from bot.i18n import default_catalog

        return self.render(default_catalog(), "en")


@dataclass(frozen=True, slots=True)
class ConsoleLine:
    user: str | None
    # "slash", "click", "select", "modal", "in", "pins", "autocomplete", "wait", "role", "empty"
    kind: str
    command: str = ""
    options: dict[str, str] = field(default_factory=dict)
    target: str = ""
    channel: str | None = None


def _is_comment(text: str) -> bool:
    """``# …`` is a comment; ``#channel /cmd …`` (a channel, then a command) is not."""
    if not text.startswith("#"):
        return False
    parts = text.split(None, 2)
    return parts[0] == "#" or len(parts) < 2 or parts[1][0] not in "/!@"


def parse_line(line: str) -> ConsoleLine:
    """``[@user] [#channel] /cmd [sub …] name:value …`` | ``[@user] !click TARGET`` | ``!modal f:v …`` …"""
    text = line.strip()
    if not text or _is_comment(text):
        return ConsoleLine(user=None, kind="empty")
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise ConsoleInputError("console.error.quotes", error=str(exc)) from None
    user: str | None = None
    channel: str | None = None
    while tokens and tokens[0][:1] in ("@", "#") and not tokens[0].startswith(("/", "!")):
        token = tokens.pop(0)
        if token.startswith("@"):
            if user is not None:
                raise ConsoleInputError("console.error.one_user")
            user = token[1:]
            if not user:
                raise ConsoleInputError("console.error.user_name")
        else:
            if channel is not None:
                raise ConsoleInputError("console.error.one_channel")
            channel = token[1:]
            if not channel:
                raise ConsoleInputError("console.error.channel_name")
    if not tokens:
        raise ConsoleInputError("console.error.nothing_after")
    head = tokens.pop(0)
    lowered = head.lower()
    if lowered in ("!click", "!clic"):
        if not tokens:
            raise ConsoleInputError("console.error.click")
        return ConsoleLine(user=user, kind="click", target=" ".join(tokens), channel=channel)
    if lowered in ("!select", "!choisir"):
        if len(tokens) < 2:
            raise ConsoleInputError("console.error.select")
        return ConsoleLine(
            user=user,
            kind="select",
            target=tokens[0],
            options={"values": "\n".join(tokens[1:])},
            channel=channel,
        )
    if lowered == "!modal":
        return ConsoleLine(user=user, kind="modal", options=_options(tokens), channel=channel)
    if lowered in ("!in", "!dans"):
        if not tokens:
            raise ConsoleInputError("console.error.in")
        return ConsoleLine(user=user, kind="in", target=" ".join(tokens).lstrip("#"))
    if lowered in ("!pins", "!epingles", "!épingles"):
        target = " ".join(tokens).lstrip("#") if tokens else ""
        return ConsoleLine(user=user, kind="pins", target=target, channel=channel)
    if lowered in ("!wait", "!attendre"):
        return ConsoleLine(user=user, kind="wait", target=" ".join(tokens))
    if lowered == "!role":
        if len(tokens) != 2 or not tokens[0].startswith("@"):
            raise ConsoleInputError("console.error.role")
        role = tokens[1]
        add = not role.startswith("-")
        return ConsoleLine(
            user=user,
            kind="role",
            target=tokens[0][1:],
            options={"role": role.lstrip("-+@&"), "add": "1" if add else ""},
        )
    if lowered in ("!autocomplete", "!auto"):
        if not tokens or not tokens[0].startswith("/"):
            raise ConsoleInputError("console.error.autocomplete")
        command, options = _command_and_options(tokens)
        if not options:
            raise ConsoleInputError("console.error.autocomplete_option")
        return ConsoleLine(
            user=user,
            kind="autocomplete",
            command=command,
            options=options,
            target=list(options)[-1],
            channel=channel,
        )
    if lowered.startswith("!"):
        raise ConsoleInputError("console.error.unknown_instruction", head=head)
    if not head.startswith("/"):
        raise ConsoleInputError("console.error.line_start")
    command, options = _command_and_options([head, *tokens])
    return ConsoleLine(user=user, kind="slash", command=command, options=options, channel=channel)


def _command_and_options(tokens: list[str]) -> tuple[str, dict[str, str]]:
    words = [tokens[0][1:]]
    rest = tokens[1:]
    while rest and ":" not in rest[0]:
        words.append(rest.pop(0))
    if not words[0]:
        raise ConsoleInputError("console.error.command_name")
    return " ".join(words), _options(rest)


def _options(tokens: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for token in tokens:
        name, sep, value = token.partition(":")
        if not sep or not name:
            raise ConsoleInputError("console.error.option_form", token=repr(token))
        if name in options:
            raise ConsoleInputError("console.error.option_twice", name=name)
        options[name] = value
    return options


def parse_duration(text: str) -> float:
    """``10m``, ``90s``, ``2h``, ``1j``/``1d``, ``1h30m`` or a number of seconds."""
    compact = text.replace(" ", "")
    if not compact:
        raise ConsoleInputError("console.error.wait")
    total = 0.0
    position = 0
    for match in _DURATION.finditer(compact):
        if match.start() != position:
            break
        total += float(match.group(1).replace(",", ".")) * _UNIT_SECONDS[(match.group(2) or "s").lower()]
        position = match.end()
    if position != len(compact):
        raise ConsoleInputError("console.error.wait_form", text=repr(text))
    return total


def embed_record(embed: Mapping[str, Any]) -> dict[str, Any]:
    footer = embed.get("footer") or {}
    return {
        "title": embed.get("title"),
        "description": embed.get("description"),
        "fields": [
            {"name": f.get("name"), "value": f.get("value"), "inline": bool(f.get("inline"))}
            for f in embed.get("fields", [])
        ],
        "footer": footer.get("text"),
    }


def message_json(message: Any) -> dict[str, Any]:
    return {
        "content": message.content or None,
        "embeds": [embed_record(e) for e in message.embeds],
        "components": [
            {"label": c.get("label"), "custom_id": c.get("custom_id"), "disabled": bool(c.get("disabled"))}
            for c in message.iter_components()
            if c.get("type") == 2
        ],
        "selects": [
            {
                "placeholder": c.get("placeholder"),
                "custom_id": c.get("custom_id"),
                "options": [o.get("label") for o in c.get("options") or []],
                "disabled": bool(c.get("disabled")),
            }
            for c in message.iter_components()
            if c.get("type") == 3
        ],
        "attachments": [
            {"filename": a.filename, "size": len(a.data), "content_type": a.content_type}
            for a in message.attachments
        ],
    }


def _size(size: int, locale: str = "en") -> str:
    french = locale == "fr"
    if size < 1024:
        return f"{size} o" if french else f"{size} B"
    value, unit = (size / 1024, "Kio" if french else "KiB")
    if size >= 1024 * 1024:
        value, unit = (size / 1024 / 1024, "Mio" if french else "MiB")
    text = f"{value:.1f}"
    return f"{text.replace('.', ',') if french else text} {unit}"


def render_text(record: dict[str, Any], words: Callable[..., str], locale: str) -> str:
    """A reply as the console prints it; its own words (« visible de lui seul », « Boutons ») from
    the console's catalogue through ``words``, in the console's locale."""
    colon = " : " if locale == "fr" else ": "
    if "choices" in record:
        head = f"── {record['user']} · {record['command']}"
        choices = record["choices"]
        listed = " | ".join(c["name"] for c in choices) if choices else words("console.render.none")
        return "\n".join([head, words("console.render.choices") + colon + listed])
    head = f"── {record['user']} · {record['command']}"
    if record.get("ephemeral"):
        head += " " + words("console.render.ephemeral")
    if record.get("to"):
        head += f" → {record['to']}"
    lines = [head]
    if record.get("content"):
        lines.append(record["content"])
    for embed in record.get("embeds", []):
        if embed.get("title"):
            lines.append(f"**{embed['title']}**")
        if embed.get("description"):
            lines.append(embed["description"])
        for item in embed.get("fields", []):
            name = item["name"] if item["name"] != "\u200b" else ""
            lines.append(f"{name}{colon}{item['value']}" if name else item["value"])
        if embed.get("footer"):
            lines.append(f"[{embed['footer']}]")
    if record.get("modal"):
        form = record["modal"]
        names = [
            f"{ident} ({label})" if label and ident and label != ident else str(ident or label)
            for ident, label in zip(form.get("ids") or form["fields"], form["fields"], strict=False)
        ]
        lines.append(words("console.render.form", title=form["title"]) + colon + " | ".join(names))
        lines.append(words("console.render.form_answer"))
    buttons = [c["label"] for c in record.get("components", []) if c.get("label")]
    if buttons:
        lines.append(words("console.render.buttons") + colon + " | ".join(f"[{b}]" for b in buttons))
    for select in record.get("selects", []):
        menu = words("console.render.select", name=select["placeholder"] or select["custom_id"])
        lines.append(menu + colon + " | ".join(select["options"]))
    for attachment in record.get("attachments", []):
        saved = f" → {attachment['saved']}" if attachment.get("saved") else ""
        size = _size(attachment["size"], locale)
        file = words("console.render.file")
        lines.append(f"{file}{colon}{attachment['filename']} ({size}, {attachment['content_type']}){saved}")
    return "\n".join(lines)


class Console:
    def __init__(
        self,
        *,
        seed: int | None,
        db: str | None,
        locale: str,
        gm: str,
        as_json: bool,
        out: TextIO,
        server: str | None = None,
        rate_limits: bool = False,
        save_files: str | None = None,
        show_tracker: bool = False,
    ):
        self.seed = seed
        self.db = db
        self.locale = locale
        self.gm = gm
        self.as_json = as_json
        self.out = out
        self.server = server
        self.rate_limits = rate_limits
        self.save_files = Path(save_files) if save_files else None
        self.show_tracker = show_tracker
        self.observed: dict[int, list[Reply]] = {}
        self._notify: Callable[[], None] = lambda: None
        self._shown_pins: dict[str, str] = {}
        self._thread_activity: dict[str, tuple[int, float]] = {}
        self._saved_names: set[str] = set()
        from bot.i18n import default_catalog

        self.catalog = default_catalog()

    def _observe(self, interaction_id: int, reply: Reply) -> None:
        self.observed.setdefault(interaction_id, []).append(reply)
        self._notify()  # wake the waiter now, not at its next poll

    def emit(self, record: dict[str, Any]) -> None:
        if self.as_json:
            self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            self.out.write(self._names(render_text(record, self._t, self.locale)) + "\n\n")
        self.out.flush()

    def _names(self, text: str) -> str:
        """Mentions as Discord's client shows them: ``<@id>`` → ``@alice``, ``<#id>`` → ``#partie``."""
        world = getattr(self, "world", None)
        if world is None or "<" not in text:
            return text

        def user(match: re.Match[str]) -> str:
            found = self.emu.users.get(match.group(1))
            return f"@{found.username}" if found else match.group(0)

        def role(match: re.Match[str]) -> str:
            found = world.find_role(match.group(1))
            return f"@{found.name}" if found else match.group(0)

        def channel(match: re.Match[str]) -> str:
            found = self.emu.channels.get(match.group(1))
            return f"#{found.name}" if found and found.name else match.group(0)

        text = _USER_MENTION.sub(user, text)
        text = _ROLE_MENTION.sub(role, text)
        return _CHANNEL_MENTION.sub(channel, text)

    async def run(self, lines: Callable[[], Any]) -> int:
        from bot.app import MeleeBot
        from bot.cogs._guard import set_limiter
        from bot.console_world import DEFAULT_SERVER, ConsoleWorld
        from bot.discord_target import point_at
        from bot.emulator.client import Table
        from bot.emulator.server import Emulator
        from bot.emulator.state import OffsetClock
        from bot.services.rate_limit import RateLimiter

        self.clock = OffsetClock()
        emu = Emulator(clock=self.clock)
        self.emu = emu
        self._notify = emu.notify
        store = Path(self.db).with_suffix(".world.json") if self.db else None
        world = ConsoleWorld(emu, server=self.server or DEFAULT_SERVER, locale=self.locale, store=store)
        self.world = world
        guild = world.guild
        gm_user = world.user(self.gm)
        mj = world.role("MJ")
        if mj.id not in guild.members[gm_user.id].role_ids:
            guild.members[gm_user.id].role_ids.append(mj.id)
        base = await emu.start()
        point_at(base)
        # Without --db: a throw-away file, not ":memory:" — an in-memory SQLite is one shared
        # connection, and the roll log writer's batches would interleave with a use case's transaction.
        scratch = tempfile.TemporaryDirectory(prefix="melee-console-")
        database_url = f"sqlite+aiosqlite:///{self.db or Path(scratch.name) / 'console.db'}"
        settings = Settings(
            discord_token="console",  # the emulator accepts any token
            database_url=database_url,
            dev_guild_id=int(guild.id),
            log_level="WARNING",
            discord_api_base=base,
        )
        clock = self.clock

        def game_now() -> datetime:  # `!wait` moves the bot's game time too (defence waits, wounds)
            return datetime.now(UTC) + timedelta(seconds=clock.offset)

        bot = MeleeBot(settings, rng=random.Random(self.seed), guild_ready_timeout=0.05, now=game_now)
        if not self.rate_limits:
            # One person typing a long script is not a burst of commands to slow down.
            set_limiter(bot, RateLimiter(enabled=False))
        runner = asyncio.create_task(bot.start("console"))
        try:
            await emu.wait_until(
                lambda: (bool(emu.command_scopes(guild.id)) and bot.is_ready()) or runner.done(),
                timeout=READY_TIMEOUT,
                what="the bot to sync its commands",
            )
            if runner.done():
                runner.result()
            bot.ctx.reply_observers.append(self._observe)
            table = Table(emu, guild)
            self.channel = table.default_channel
            status = 0
            while True:
                line = await lines()
                if line is None:
                    break
                try:
                    await self.handle(table, line)
                except ConsoleInputError as exc:
                    self.emit_error(line, exc.render(self.catalog, self.locale))
                    status = 1
                except TimeoutError:
                    self.emit_error(line, self._t("console.error.timeout", seconds=f"{REPLY_TIMEOUT:.0f}"))
                    status = 1
                except Exception as exc:  # never a traceback: say what broke and go on
                    self.emit_error(
                        line, self._t("console.error.broken", error=f"{type(exc).__name__}: {exc}")
                    )
                    status = 1
                await self._settle()
                if self._refused:
                    status = 1
                    self._refused = False
                if self.show_tracker and self._acted:
                    self._print_all_pins(self._acted)
                self._acted = ""
                self._note_thread_activity()
            return status
        finally:
            with contextlib.suppress(Exception):
                await self._settle()
            with contextlib.suppress(OSError):
                world.save()  # the fights' threads, for the next run on this file
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner
            await emu.stop()
            scratch.cleanup()

    _refused = False

    def _t(self, key: str, **params: Any) -> str:
        """The console's own words, in its ``--locale`` (French unless ``--locale en``)."""
        return self.catalog.t(self.locale, key, **params)

    _acted = ""  # who played the last line (for --show-tracker)

    async def _settle(self) -> None:
        """Wait until the bot has finished with the line (its handlers' tasks are done)."""
        current = asyncio.current_task()
        for _ in range(5):
            busy = [
                t
                for t in asyncio.all_tasks()
                if t is not current and not t.done() and t.get_name().startswith(_HANDLER_TASKS)
            ]
            if not busy:
                return
            await asyncio.wait(busy, timeout=REPLY_TIMEOUT)

    def emit_error(self, line: str, message: str) -> None:
        if self.as_json:
            self.emit({"command": line.strip(), "error": message})
        else:
            self.out.write(f"!! {message}\n\n")
            self.out.flush()

    # -- one line ----------------------------------------------------------------------------

    async def handle(self, table: Any, raw: str) -> None:
        from bot.emulator.client import ClientRefused

        line = parse_line(raw)
        if line.kind == "empty":
            return
        if line.kind == "in":
            self.channel = await self._channel_named(line.target, context=True)
            return
        if line.kind == "wait":
            await self._wait(parse_duration(line.target))
            return
        if line.kind == "role":
            role, _ = await self.world.ensure_role(line.options["role"])
            await self.world.give_role(self._user(line.target), role, add=bool(line.options["add"]))
            return
        channel = await self._channel_named(line.channel) if line.channel else self.channel
        player = self._player(table, line.user or self.gm)
        if line.kind == "pins":
            target = await self._channel_named(line.target, create=False) if line.target else channel
            self._print_pins(target, player.name, only_changed=False)
            return
        try:
            if line.kind == "slash":
                options = await self._typed_options(player, line.command, line.options, channel)
                try:
                    result = await player.slash(
                        line.command, channel=channel, timeout=REPLY_TIMEOUT, option_values=options
                    )
                except ClientRefused as exc:
                    raise ConsoleInputError(
                        "console.error.discord_usage",
                        refusal=str(exc),
                        usage=self._usage(player, line.command, channel),
                    ) from None
                label = "/" + line.command
            elif line.kind == "autocomplete":
                focused = line.target
                others = {k: v for k, v in line.options.items() if k != focused}
                typed = await self._typed_options(player, line.command, others, channel)
                choices = await player.autocomplete(
                    line.command,
                    focused,
                    line.options[focused],
                    channel=channel,
                    timeout=REPLY_TIMEOUT,
                    **typed,
                )
                self.emit(
                    {
                        "command": f"!autocomplete /{line.command} {focused}:{line.options[focused]}",
                        "user": player.name,
                        "choices": [{"name": c.get("name"), "value": c.get("value")} for c in choices],
                    }
                )
                return
            elif line.kind == "click":
                result = await player.click(line.target, timeout=REPLY_TIMEOUT)
                label = f"!click {line.target}"
            elif line.kind == "select":
                values = line.options["values"].split("\n")
                result = await player.select(line.target, values, timeout=REPLY_TIMEOUT)
                label = f"!select {line.target} {' '.join(values)}"
            else:
                result = await player.submit_modal(line.options, timeout=REPLY_TIMEOUT)
                label = "!modal"
        except ClientRefused as exc:
            raise ConsoleInputError("console.error.discord", refusal=str(exc)) from None
        await self._print_result(table, player, result, label)
        self._acted = player.name

    def _user(self, name: str) -> Any:
        mention = _USER_MENTION.fullmatch(name)
        if mention:
            user = self.world.user_by_id(mention.group(1))
            if user is None:
                raise ConsoleInputError("console.error.no_member_id", id=mention.group(1))
            return user
        name = name.lstrip("@")
        if not name:
            raise ConsoleInputError("console.error.user_form")
        return self.world.user(name)

    def _player(self, table: Any, name: str) -> Any:
        user = self._user(name)
        return table.user(user.username, locale=self.locale if self.locale == "fr" else "en-US")

    async def _channel_named(self, name: str, *, context: bool = False, create: bool = True) -> Any:
        mention = _CHANNEL_MENTION.fullmatch(name)
        if mention:
            found = self.emu.channels.get(mention.group(1))
            if found is None or found.guild_id != self.world.guild.id:
                raise ConsoleInputError("console.error.no_channel_id", id=mention.group(1))
            return found
        bare = name.lstrip("#").strip()
        if not bare:
            raise ConsoleInputError("console.error.channel_form")
        if context and bare.lower() in _FIGHT_THREAD_WORDS:
            threads = [t for t in self.emu.threads if t.guild_id == self.world.guild.id and not t.archived]
            if not threads:
                raise ConsoleInputError("console.error.no_fight_thread")
            return max(threads, key=lambda t: int(t.id))
        if not create:
            found = self.world.find_channel(bare)
            if found is None:
                known = ", ".join(f"#{c.name}" for c in self.world.guild.channels)
                raise ConsoleInputError("console.error.no_channel", name=bare, known=known)
            return found
        channel, _ = await self.world.ensure_channel(bare)
        return channel

    def _usage(self, player: Any, command: str, channel: Any) -> str:
        from bot.emulator.client import ClientRefused

        try:
            _, _, _, definitions = player._resolve(command, channel)
        except ClientRefused:
            return self._t("console.usage.see_help")
        hints = {
            6: "@user",
            7: "#channel",
            8: "@role",
            9: "@user",
            11: "@file",
            5: "oui|non",
            4: "number",
            10: "number",
        }
        parts = []
        for definition in definitions:
            name = (
                definition["name_localizations"].get("fr", definition["name"])
                if (self.locale == "fr" and definition.get("name_localizations"))
                else definition["name"]
            )
            hint = hints.get(definition.get("type", 3), "…")
            text = f"{name}:{hint}"
            parts.append(text if definition.get("required") else f"[{text}]")
        return self._t("console.usage.line", command=command, options=" ".join(parts)).rstrip()

    # -- option values as Discord's client builds them ---------------------------------------------

    async def _typed_options(
        self, player: Any, command: str, given: Mapping[str, str], channel: Any
    ) -> dict[str, Any]:
        from bot.emulator.client import ClientRefused, normalise

        try:
            _, _, _, definitions = player._resolve(command, channel)
        except ClientRefused as exc:
            head = command.split()[0]
            hint = self._usage(player, head, channel) if head != command else ""
            if hint.startswith("usage:"):
                raise ConsoleInputError("console.error.options_usage", refusal=str(exc), usage=hint) from None
            raise ConsoleInputError("console.error.discord", refusal=str(exc)) from None
        by_name: dict[str, dict[str, Any]] = {}
        for definition in definitions:
            names = {definition["name"], *(definition.get("name_localizations") or {}).values()}
            for option_name in names:
                by_name[normalise(option_name)] = definition
        typed: dict[str, Any] = {}
        for key, value in given.items():
            definition = by_name.get(normalise(key))
            typed[key] = value if definition is None else await self._typed(key, value, definition)
        return typed

    async def _typed(self, key: str, value: str, definition: Mapping[str, Any]) -> Any:
        kind = definition.get("type")
        if kind == 5:
            lowered = value.lower()
            if lowered not in _TRUE | _FALSE:
                raise ConsoleInputError("console.error.boolean", option=key, value=repr(value))
            return lowered in _TRUE
        if kind == 4:
            if not _INTEGER.fullmatch(value):
                raise ConsoleInputError("console.error.integer", option=key, value=repr(value))
            return int(value)
        if kind == 10:
            if not _NUMBER.fullmatch(value):
                raise ConsoleInputError("console.error.number", option=key, value=repr(value))
            return float(value.replace(",", "."))
        if kind == 6:
            return self._user(value)
        if kind == 8:
            return await self._role(key, value)
        if kind == 9:
            if _ROLE_MENTION.fullmatch(value) or value.startswith("@&"):
                return await self._role(key, value)
            bare = value.lstrip("@")
            if not _USER_MENTION.fullmatch(value) and self.world.find_user(bare) is None:
                role = self.world.find_role(bare)
                if role is not None:
                    return role
            return self._user(value)
        if kind == 7:
            return await self._channel_named(value)
        if kind == 11:
            return self._upload(key, value)
        return value

    async def _role(self, key: str, value: str) -> Any:
        mention = _ROLE_MENTION.fullmatch(value)
        if mention:
            role = self.world.find_role(mention.group(1))
            if role is None:
                raise ConsoleInputError("console.error.no_role_id", option=key, id=mention.group(1))
            return role
        name = value[2:] if value.startswith("@&") else value.lstrip("@")
        if not name:
            raise ConsoleInputError("console.error.role_form", option=key)
        if name.lower() in ("everyone", "here"):
            return self.world.guild.everyone
        role, _ = await self.world.ensure_role(name)
        return role

    def _upload(self, key: str, value: str) -> Any:
        from bot.emulator.client import Upload

        path = Path(value[1:] if value.startswith("@") else value).expanduser()
        if not value.lstrip("@"):
            raise ConsoleInputError("console.error.file_form", option=key)
        if not path.is_file():
            raise ConsoleInputError("console.error.no_file", option=key, path=repr(str(path)))
        size = path.stat().st_size
        if size > UPLOAD_LIMIT:
            raise ConsoleInputError(
                "console.error.file_too_big", option=key, name=path.name, size=size, limit=UPLOAD_LIMIT
            )
        if size == 0:
            raise ConsoleInputError("console.error.file_empty", option=key, name=path.name)
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type == "application/json":
            content_type += "; charset=utf-8"
        return Upload(path.name, path.read_bytes(), content_type)

    # -- context: time, pins ----------------------------------------------------------------------

    def _note_thread_activity(self) -> None:
        now = self.clock()
        for thread in self.emu.threads:
            count = len(self.emu.channel_message_ids.get(thread.id, []))
            previous = self._thread_activity.get(thread.id)
            if previous is None or previous[0] != count:
                self._thread_activity[thread.id] = (count, now)

    async def _wait(self, seconds: float) -> None:
        """Move Discord's clock: interaction tokens age, inactive threads archive themselves."""
        from bot.emulator.state import Intents

        self._note_thread_activity()
        self.clock.advance(seconds)
        now = self.clock()
        for thread in self.emu.threads:
            last = self._thread_activity.get(thread.id, (0, now))[1]
            if not thread.archived and now - last >= thread.auto_archive_duration * 60:
                thread.archived = True
                await self.emu.gateway.dispatch(
                    "THREAD_UPDATE", self.emu._channel_payload(thread), intent=Intents.GUILDS
                )
        self.emu.notify()

    def _pin_record(self, message: Any, user: str, channel: Any) -> dict[str, Any]:
        record = {"command": "!pins", "user": user, "ephemeral": False, "to": f"📌 #{channel.name}"}
        record.update(message_json(message))
        return record

    def _print_pins(self, channel: Any, user: str, *, only_changed: bool) -> None:
        pins = self.emu.pins(channel)
        if not pins and not only_changed:
            self.emit(
                {
                    "command": "!pins",
                    "user": user,
                    "ephemeral": False,
                    "to": f"📌 #{channel.name}",
                    "content": self._t("console.render.no_pins"),
                    "embeds": [],
                }
            )
        for message in pins:
            record = self._pin_record(message, user, channel)
            fingerprint = json.dumps(record["embeds"], ensure_ascii=False) + (record["content"] or "")
            if only_changed and self._shown_pins.get(message.id) == fingerprint:
                continue
            self._shown_pins[message.id] = fingerprint
            self.emit(record)

    def _print_all_pins(self, user: str) -> None:
        for channel in list(self.emu.channels.values()):
            if channel.guild_id == self.world.guild.id:
                self._print_pins(channel, user, only_changed=True)

    # -- printing ---------------------------------------------------------------------------------

    def _attachments(self, message: Any, record: dict[str, Any]) -> None:
        if self.save_files is None:
            return
        self.save_files.mkdir(parents=True, exist_ok=True)
        for attachment, entry in zip(message.attachments, record["attachments"], strict=True):
            stem, suffix = Path(attachment.filename).stem, Path(attachment.filename).suffix
            name, number = attachment.filename, 1
            while name in self._saved_names:
                number += 1
                name = f"{stem}-{number}{suffix}"
            self._saved_names.add(name)
            target = self.save_files / name
            target.write_bytes(attachment.data)
            entry["saved"] = str(target)

    async def _print_result(self, table: Any, player: Any, result: Any, label: str) -> None:
        interaction_id = int(result.interaction.id)
        emu = result.emu
        if result.modal is not None:
            modal = result.modal
            inputs = [
                c.get("component") or (c.get("components") or [{}])[0] for c in modal.get("components", [])
            ]
            labels = [c.get("label") for c in modal.get("components", [])]
            fields = [inner.get("label") or label for inner, label in zip(inputs, labels, strict=True)]
            ids = [inner.get("custom_id") for inner in inputs]
            self.emit(
                {
                    "command": label,
                    "user": player.name,
                    "ephemeral": True,
                    "content": None,
                    "embeds": [],
                    "components": [],
                    "modal": {"title": modal.get("title"), "fields": fields, "ids": ids},
                    "result": None,
                }
            )
            return
        with contextlib.suppress(TimeoutError):
            await emu.wait_until(
                lambda: interaction_id in self.observed, timeout=REPLY_TIMEOUT, what="the reply"
            )
        replies = self.observed.pop(interaction_id, [])
        messages = []
        seen: set[str] = set()
        # After a deferral the first followup is the response message itself: print it once.
        for message in [result.message, *result.followups]:
            if message is not None and message.id not in seen:
                seen.add(message.id)
                messages.append(message)
        primary = list(replies)
        for index, message in enumerate(messages):
            reply = primary[index] if index < len(primary) else None
            record = {"command": label, "user": player.name, "ephemeral": bool(message.ephemeral)}
            record.update(message_json(message))
            record["result"] = reply.result if reply is not None else None
            self._attachments(message, record)
            self.emit(record)
            if reply is not None:
                for delivery in reply.also:
                    self._emit_delivery(table, label, player, delivery)
        for failure in result.failures:
            self.emit_error(label, self._t("console.error.discord_would_refuse", failure=failure))
            self._refused = True

    def _emit_delivery(self, table: Any, label: str, player: Any, delivery: Any) -> None:
        to = None
        if delivery.user_id is not None:
            user = table.emu.users.get(str(delivery.user_id))
            to = f"DM {user.username if user else delivery.user_id}"
        elif delivery.channel_id is not None:
            channel = table.emu.channels.get(str(delivery.channel_id))
            to = f"#{channel.name if channel else delivery.channel_id}"
        reply = delivery.reply
        from bot.ui.discord_render import to_embed

        embed = to_embed(reply)
        embeds = [embed_record(dict(embed.to_dict()))] if embed is not None else []
        self.emit(
            {
                "command": label,
                "user": player.name,
                "ephemeral": False,
                "to": to,
                "content": reply.content,
                "embeds": embeds,
                "components": [],
                "result": reply.result,
            }
        )


def main(args: argparse.Namespace) -> int:
    # The console prints replies, not the bot's logs.
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    console = Console(
        seed=args.seed,
        db=args.db,
        locale=args.locale,
        gm=args.gm,
        as_json=args.json,
        out=sys.stdout,
        server=getattr(args, "server", None),
        rate_limits=getattr(args, "rate_limits", False),
        save_files=getattr(args, "save_files", None),
        show_tracker=getattr(args, "show_tracker", False),
    )

    async def play() -> int:
        # A reader thread keeps the next lines ready while the bot answers the current one.
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | None] = asyncio.Queue()

        def read() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed first (Ctrl-C)
                for line in sys.stdin:
                    loop.call_soon_threadsafe(queue.put_nowait, line)
                loop.call_soon_threadsafe(queue.put_nowait, None)

        threading.Thread(target=read, name="console-stdin", daemon=True).start()
        return await console.run(queue.get)

    try:
        return asyncio.run(play())
    except KeyboardInterrupt:
        return 130
