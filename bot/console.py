"""The offline console: the real bot and the local Discord emulator in one process.

Each line of standard input is a slash command typed by a user (``@alice /roll expression:1d100``),
a button press (``!click Parer``) or a form (``!modal nom:Albert``). The emulator turns it into
the same INTERACTION_CREATE Discord would send, the bot answers through discord.py's real HTTP
code, and the console prints what the emulator received — so the console exercises exactly the
command definitions users get on Discord.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bot.config import Settings
from bot.ui.reply import Reply

READY_TIMEOUT = 30.0
REPLY_TIMEOUT = 15.0
_TRUE = {"true", "oui", "yes", "vrai", "1", "on"}
_FALSE = {"false", "non", "no", "faux", "0", "off"}


class ConsoleInputError(ValueError):
    """A line the console cannot understand (shown to the user, the session goes on)."""


@dataclass(frozen=True, slots=True)
class ConsoleLine:
    user: str | None
    kind: str  # "slash", "click", "select", "modal", "empty"
    command: str = ""
    options: dict[str, str] = field(default_factory=dict)
    target: str = ""


def parse_line(line: str) -> ConsoleLine:
    """``[@user] /cmd [sub …] name:value …`` | ``[@user] !click TARGET`` | ``[@user] !modal f:v …``."""
    text = line.strip()
    if not text or text.startswith("#"):
        return ConsoleLine(user=None, kind="empty")
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise ConsoleInputError(f"unbalanced quotes: {exc}") from None
    user: str | None = None
    if tokens and tokens[0].startswith("@"):
        user = tokens.pop(0)[1:]
        if not user:
            raise ConsoleInputError("'@' must be followed by a user name")
    if not tokens:
        raise ConsoleInputError("nothing after the user name")
    head = tokens.pop(0)
    if head in ("!click", "!clic"):
        if not tokens:
            raise ConsoleInputError("!click needs a button label or custom id")
        return ConsoleLine(user=user, kind="click", target=" ".join(tokens))
    if head in ("!select", "!choisir"):
        if len(tokens) < 2:
            raise ConsoleInputError(
                '!select needs the menu (placeholder or custom id) and a choice: !select Cible "Gobelin 1"'
            )
        return ConsoleLine(
            user=user, kind="select", target=tokens[0], options={"values": "\n".join(tokens[1:])}
        )
    if head == "!modal":
        return ConsoleLine(user=user, kind="modal", options=_options(tokens))
    if not head.startswith("/"):
        raise ConsoleInputError("a line starts with /command, !click, !select or !modal")
    words = [head[1:]]
    while tokens and ":" not in tokens[0]:
        words.append(tokens.pop(0))
    if not words[0]:
        raise ConsoleInputError("a command name must follow '/'")
    return ConsoleLine(user=user, kind="slash", command=" ".join(words), options=_options(tokens))


def _options(tokens: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for token in tokens:
        name, sep, value = token.partition(":")
        if not sep or not name:
            raise ConsoleInputError(f"options are written name:value, got {token!r}")
        options[name] = value
    return options


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
    }


def render_text(record: dict[str, Any]) -> str:
    head = f"── {record['user']} · {record['command']}"
    if record.get("ephemeral"):
        head += " (visible only to them)"
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
            lines.append(f"{name}: {item['value']}" if name else item["value"])
        if embed.get("footer"):
            lines.append(f"[{embed['footer']}]")
    buttons = [c["label"] for c in record.get("components", []) if c.get("label")]
    if buttons:
        lines.append("Buttons: " + " | ".join(f"[{b}]" for b in buttons))
    for select in record.get("selects", []):
        lines.append(
            f"Select « {select['placeholder'] or select['custom_id']} »: " + " | ".join(select["options"])
        )
    return "\n".join(lines)


class Console:
    def __init__(self, *, seed: int | None, db: str | None, locale: str, gm: str, as_json: bool, out: TextIO):
        self.seed = seed
        self.db = db
        self.locale = locale
        self.gm = gm
        self.as_json = as_json
        self.out = out
        self.observed: dict[int, list[Reply]] = {}

    def _observe(self, interaction_id: int, reply: Reply) -> None:
        self.observed.setdefault(interaction_id, []).append(reply)

    def emit(self, record: dict[str, Any]) -> None:
        if self.as_json:
            self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            self.out.write(render_text(record) + "\n\n")
        self.out.flush()

    async def run(self, lines: Callable[[], Any]) -> int:
        from bot.app import MeleeBot
        from bot.discord_target import point_at
        from bot.emulator.client import Table
        from bot.emulator.server import Emulator

        emu = Emulator()
        guild = emu.add_default_world()
        if self.gm != "gm":
            gm_user = emu.add_user(self.gm, locale=self.locale)
            from bot.emulator.state import Member

            guild.members[gm_user.id] = Member(user=gm_user, role_ids=[guild.role("MJ").id])
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
        bot = MeleeBot(settings, rng=random.Random(self.seed), guild_ready_timeout=0.05)
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
            status = 0
            while True:
                line = await lines()
                if line is None:
                    break
                try:
                    await self.handle(table, line)
                except ConsoleInputError as exc:
                    self.emit_error(line, str(exc))
                    status = 1
            return status
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner
            await emu.stop()
            scratch.cleanup()

    def emit_error(self, line: str, message: str) -> None:
        if self.as_json:
            self.emit({"command": line.strip(), "error": message})
        else:
            self.out.write(f"!! {message}\n\n")
            self.out.flush()

    async def handle(self, table: Any, raw: str) -> None:
        from bot.emulator.client import ClientRefused

        line = parse_line(raw)
        if line.kind == "empty":
            return
        name = line.user or self.gm
        player = table.user(name, locale=self.locale if self.locale == "fr" else "en-US")
        try:
            if line.kind == "slash":
                options = self._typed_options(player, line)
                result = await player.slash(line.command, timeout=REPLY_TIMEOUT, **options)
                label = "/" + line.command
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
            raise ConsoleInputError(str(exc)) from None
        await self._print_result(table, player, result, label)

    def _typed_options(self, player: Any, line: ConsoleLine) -> dict[str, Any]:
        _, _, _, definitions = player._resolve(line.command, player._channel(None))
        by_name: dict[str, dict[str, Any]] = {}
        for definition in definitions:
            names = {definition["name"], *(definition.get("name_localizations") or {}).values()}
            for option_name in names:
                by_name[option_name.lower()] = definition
        typed: dict[str, Any] = {}
        for key, value in line.options.items():
            definition = by_name.get(key.lower())
            if definition is not None and definition.get("type") == 5:
                lowered = value.lower()
                if lowered not in _TRUE | _FALSE:
                    raise ConsoleInputError(f"{key} takes true or false, got {value!r}")
                typed[key] = lowered in _TRUE
            else:
                typed[key] = value
        return typed

    async def _print_result(self, table: Any, player: Any, result: Any, label: str) -> None:
        interaction_id = int(result.interaction.id)
        emu = result.emu
        if result.modal is not None:
            modal = result.modal
            fields = [
                (c.get("component") or (c.get("components") or [{}])[0]).get("label")
                for c in modal.get("components", [])
            ]
            self.emit(
                {
                    "command": label,
                    "user": player.name,
                    "ephemeral": True,
                    "content": None,
                    "embeds": [],
                    "components": [],
                    "modal": {"title": modal.get("title"), "fields": fields},
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
        if result.message is not None:
            messages.append(result.message)
        messages.extend(result.followups)
        primary = list(replies)
        for index, message in enumerate(messages):
            reply = primary[index] if index < len(primary) else None
            record = {"command": label, "user": player.name, "ephemeral": bool(message.ephemeral)}
            record.update(message_json(message))
            record["result"] = reply.result if reply is not None else None
            self.emit(record)
            if reply is not None:
                for delivery in reply.also:
                    self._emit_delivery(table, label, player, delivery)
        for failure in result.failures:
            self.emit_error(label, "Discord would refuse this: " + failure)

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
        seed=args.seed, db=args.db, locale=args.locale, gm=args.gm, as_json=args.json, out=sys.stdout
    )

    async def next_line() -> str | None:
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        return line if line else None

    try:
        return asyncio.run(console.run(next_line))
    except KeyboardInterrupt:
        return 130
