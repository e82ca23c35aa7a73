"""Shared machinery of the reliability tests: a harness with a few extras, raw interactions,
outcomes of a batch, database dumps, and an oracle for "is this answer in the user's language".

Everything here reads the command tree the bot SYNCED to the emulator, so a command added by a
colleague is fuzzed, checked for rights and language without any change to these tests.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bot.emulator.server import EmulatorConfig
from bot.emulator.state import Channel, Interaction, Json, Message, User
from bot.i18n import default_catalog, language_of
from bot.ui.reply import Colour
from tests.e2e.harness import E2E

ERROR_COLOUR = int(Colour.ERROR)
Dump = dict[str, list[tuple[Any, ...]]]


class Harness(E2E):
    """The e2e harness with extra environment for the bot and checkpoints for per-test checks."""

    def __init__(
        self,
        tmp_path: Path,
        config: EmulatorConfig | None = None,
        *,
        log_level: str = "INFO",
        env: dict[str, str] | None = None,
    ) -> None:
        super().__init__(tmp_path, config, log_level=log_level)
        self.extra_env = dict(env or {})
        self.known_logs: list[str] = []  # regexes of logged tracebacks that are known, reported bugs

    def bot_env(self) -> dict[str, str]:
        env = super().bot_env()
        env.update(self.extra_env)
        return env

    def problems(self) -> list[str]:
        """The e2e checks, less the tracebacks a test declared known (reported bugs, see the report)."""
        log = self.bot.log_text() if self.bot else ""
        if not self.known_logs or "Traceback (most recent call last)" not in log:
            return super().problems()
        records = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", log)
        unknown = [
            r
            for r in records
            if "Traceback (most recent call last)" in r and not any(re.search(k, r) for k in self.known_logs)
        ]
        found = [] if self.expect_failures else [f"emulator refused: {f}" for f in self.failures]
        return found + [f"the bot logged a traceback:\n{r[-3000:]}" for r in unknown]

    @property
    def db_path(self) -> Path:
        return self.tmp_path / "melee.db"

    def checkpoint(self) -> tuple[int, int]:
        return len(self.emu.failures), len(self.bot.log_text() if self.bot else "")

    def problems_since(self, mark: tuple[int, int]) -> list[str]:
        failures, offset = mark
        found = (
            [] if self.expect_failures else [f"emulator refused: {f}" for f in self.emu.failures[failures:]]
        )
        log = (self.bot.log_text() if self.bot else "")[offset:]
        if "Traceback (most recent call last)" in log:
            found.append("the bot logged a traceback:\n" + log[-4000:])
        return found


# -- the synced command tree ------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A runnable command path (``character edit``) with its option definitions."""

    command: Json
    path: tuple[str, ...]  # subcommand names under the command (Discord's names)
    options: tuple[Json, ...]

    @property
    def qualified_name(self) -> str:
        return " ".join((self.command["name"], *self.path))

    def data(self, options: list[Json]) -> Json:
        """The interaction's ``data`` with ``options`` nested under the subcommands."""
        data: Json = {"id": self.command["id"], "name": self.command["name"], "type": 1}
        if self.command.get("guild_id"):
            data["guild_id"] = self.command["guild_id"]
        nested: list[Json] = options
        for name, kind in reversed(list(zip(self.path, self._kinds(), strict=True))):
            nested = [{"name": name, "type": kind, "options": nested}]
        data["options"] = nested
        return data

    def _kinds(self) -> list[int]:
        kinds, definitions = [], self.command.get("options") or []
        for name in self.path:
            sub = next(o for o in definitions if o["name"] == name)
            kinds.append(sub["type"])
            definitions = sub.get("options") or []
        return kinds


def leaves(commands: Iterable[Json]) -> list[Leaf]:
    found: list[Leaf] = []

    def walk(command: Json, path: tuple[str, ...], definitions: list[Json]) -> None:
        subs = [o for o in definitions if o.get("type") in (1, 2)]
        if not subs:
            found.append(Leaf(command, path, tuple(definitions)))
            return
        for sub in subs:
            walk(command, (*path, sub["name"]), sub.get("options") or [])

    for command in commands:
        if command.get("type", 1) == 1:
            walk(command, (), command.get("options") or [])
    return sorted(found, key=lambda leaf: leaf.qualified_name)


def localized(leaf: Leaf, language: str) -> str:
    """``perso modifier`` for French, ``character edit`` for English."""
    names = []
    definitions = [leaf.command]
    node = leaf.command
    for name in (leaf.command["name"], *leaf.path):
        node = next(d for d in definitions if d["name"] == name)
        names.append((node.get("name_localizations") or {}).get(language) or node["name"])
        definitions = node.get("options") or []
    return " ".join(names)


# -- outcomes -----------------------------------------------------------------------------------


def settled(emu_messages: dict[str, Message], interaction: Interaction) -> bool:
    """The bot has answered for good: a failed callback, or anything but a "thinking" message."""
    if not interaction.callbacks:
        return False
    if interaction.callbacks[-1].status != 200:
        return True
    if interaction.response_type == 5:
        message = emu_messages.get(interaction.original_message_id or "")
        return message is not None and not message.loading
    return interaction.response_type is not None


def embed_text(embed: Json) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for item in embed.get("fields") or []:
        parts += [item.get("name") or "", item.get("value") or ""]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(p for p in parts if p)


def message_text(message: Message) -> str:
    return "\n".join([message.content or "", *(embed_text(e) for e in message.embeds)]).strip()


@dataclass
class Outcome:
    interaction: Interaction
    messages: list[Message]  # the response (or updated) message, then followups

    @property
    def answered(self) -> bool:
        return bool(self.interaction.callbacks) and self.interaction.callbacks[-1].status == 200

    @property
    def main(self) -> Message | None:
        return self.messages[0] if self.messages else None

    @property
    def refused(self) -> bool:
        """An error answer (the reply model's error colour)."""
        main = self.main
        return bool(main and main.embeds and main.embeds[0].get("color") == ERROR_COLOUR)

    @property
    def text(self) -> str:
        return "\n".join(message_text(m) for m in self.messages)


def outcome_of(emu_messages: dict[str, Message], interaction: Interaction) -> Outcome:
    messages: list[Message] = []
    for mid in [interaction.original_message_id, *interaction.followup_ids]:
        message = emu_messages.get(mid or "")
        if message is not None and not message.deleted and message not in messages:
            messages.append(message)
    return Outcome(interaction, messages)


# -- the database -------------------------------------------------------------------------------


def dump(path: Path) -> Dump:
    """Every row of every table (but Alembic's), sorted, read through SQLite's own reader."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "AND name != 'alembic_version' ORDER BY name"
            )
        ]
        return {
            table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in tables
        }
    finally:
        connection.close()


def dump_diff(before: Dump, after: Dump) -> list[str]:
    lines: list[str] = []
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, []), after.get(table, [])
        if old != new:
            added = [r for r in new if r not in old][:3]
            removed = [r for r in old if r not in new][:3]
            lines.append(f"{table}: +{added} -{removed}")
    return lines


class DataVersion:
    """SQLite's ``PRAGMA data_version`` on one reader connection: changes when anyone else commits."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, timeout=10, check_same_thread=False
        )

    def __call__(self) -> int:
        return int(self.connection.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        self.connection.close()


# -- the user's language ------------------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_KEYLIKE = re.compile(r"\b[a-z][a-z0-9_]*(?:\.[a-z0-9_-]+){2,}\b")


def _trigrams(text: str) -> set[tuple[str, str, str]]:
    words = [w.casefold() for w in _WORD.findall(text)]
    return {(words[i], words[i + 1], words[i + 2]) for i in range(len(words) - 2)}


def _template_trigrams(language: str) -> set[tuple[str, str, str]]:
    catalog = default_catalog()
    grams: set[tuple[str, str, str]] = set()
    for key in catalog.keys(language):
        if key.startswith("cmd.") or ".choice." in key:
            continue  # command names and choices are Discord's, shown in both languages
        for part in _PLACEHOLDER.split(catalog.raw(language, key) or ""):
            grams |= _trigrams(part)
    return grams


@cache
def foreign_trigrams() -> dict[str, frozenset[tuple[str, str, str]]]:
    """For each language, the word triples found only in the OTHER language's messages."""
    fr, en = _template_trigrams("fr"), _template_trigrams("en")
    return {"fr": frozenset(en - fr), "en": frozenset(fr - en)}


@cache
def catalogue_keys() -> frozenset[str]:
    return frozenset(default_catalog().keys("fr"))


@cache
def unexpected_texts() -> tuple[str, ...]:
    catalog = default_catalog()
    return tuple(catalog.t(lang, "common.error.unexpected")[:40] for lang in ("fr", "en"))


def language_problems(text: str, locale: str, inputs: Sequence[str] = ()) -> list[str]:
    """What is wrong with ``text`` shown to a user with ``locale``: the other language, raw keys, crashes."""
    for given in sorted(inputs, key=len, reverse=True):
        if given and len(given) >= 3:
            text = text.replace(given, " ")
    problems: list[str] = []
    language = language_of(locale)
    foreign = foreign_trigrams()[language] & _trigrams(text)
    if foreign:
        problems.append(
            f"{language} user got {('en' if language == 'fr' else 'fr')} words: {sorted(foreign)[:3]}"
        )
    raw_keys = [k for k in _KEYLIKE.findall(text) if k in catalogue_keys()]
    if raw_keys:
        problems.append(f"untranslated catalogue keys {raw_keys[:3]}")
    if "Traceback" in text or "Exception" in text:
        problems.append("a traceback or exception name reached the user")
    if any(u in text for u in unexpected_texts()):
        problems.append("the 'unexpected error' answer (the command crashed)")
    return problems


# -- the world ----------------------------------------------------------------------------------


def bot_message(emu: Any, channel: Channel, custom_id: str, *, component_type: int = 2) -> Message:
    """A message "the bot posted long ago" holding one component with ``custom_id`` (stale or forged)."""
    if component_type == 2:
        component: Json = {"type": 2, "style": 1, "label": "…", "custom_id": custom_id}
    else:
        component = {
            "type": 3,
            "custom_id": custom_id,
            "options": [{"label": "a", "value": "a"}],
            "min_values": 1,
            "max_values": 1,
        }
    message = Message(
        id=emu.ids.next(),
        channel_id=channel.id,
        author=emu.bot_user,
        content="",
        embeds=[{"title": "…", "color": 0}],
        components=[{"type": 1, "components": [component]}],
        guild_id=channel.guild_id,
        application_id=emu.application_id,
    )
    emu._store_message(message, dispatch=False)
    return message


@dataclass
class Planned:
    """One interaction to send: who, where, what, and the user's own words (echoes are allowed)."""

    kind: int  # 2 slash, 3 component, 4 autocomplete, 5 modal submit
    user: str
    locale: str
    data: Json
    channel: str = "partie"
    inputs: list[str] = field(default_factory=list)
    label: str = ""
    message: Message | None = None
    client_would_send: bool = True


def user_payload(user: User) -> Json:
    return user.payload()
