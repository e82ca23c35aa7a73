"""Server house rules: a GM's overrides of a data table, and the table in force on a server.

Upload format (``/regles importer fichier:<x.json>``), at most 256 KiB of UTF-8 JSON::

    {"table": "weapons_melee", "entries": [{"id": "epee", ...a complete entry...}, ...]}

* ``table`` names the base table (``data/<table>.json``, or an upload-only table whose schema
  gives an empty base: ``d20_damage_by_location``, see :mod:`bot.data_loading`); it is required.
* ``entries`` are merged into the base table by entry key: ``id`` — or ``zone`` + ``value``
  for the critical tables (``"jambes 5"``), ``label`` for ``critical_matrix``, ``zone`` for
  ``hit_location`` … (:func:`entry_key`). An entry whose key exists replaces the base entry
  *entirely*; a new key is appended. Entries cannot be deleted.
* Any other top-level field (``title``, ``notes``, ``rules`` …) replaces the base's field;
  ``schema`` and ``ruleset``, if given, must equal the base's.
* The MERGED document is validated against the base table's schema; problems are reported
  as ``path: message`` with paths in the uploaded file (``entries/3/damage``).

A full table document (what ``/regles exporter`` gives) is therefore accepted as well. A new
import replaces the server's previous override of that table (export, edit, import again to
build on it); ``/regles reinitialiser`` removes it.

:func:`table_in_force` is what the other features read: the base document merged with the
server's override, cached in process memory per (guild, table) and keyed by the row's
(id, version, upload time), so an import or reset made by another process is seen too.
The hot skill tests first ask :class:`bot.services.config.ConfigCache` which tables the server
overrides (with those stamps; imports and resets clear it) and read nothing more for a server
without house rules; :func:`cached_in_force` then serves the merged document without a read.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.data_loading import DataError, Table, validate_document
from bot.db.base import utcnow
from bot.db.house_rules_models import HouseRuleTable
from bot.db.repositories import get_server_config
from bot.i18n import language_of
from bot.services.caller import Caller
from bot.services.config import HouseRuleStamp, config_cache
from bot.services.errors import UserError, refusal_reply, user_error_reply
from bot.services.json_input import JsonLimit, loads_bounded
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 256 * 1024
MAX_PROBLEMS_SHOWN = 15
PROBLEM_MAX_CHARS = 180
RESET_CUSTOM_ID_PREFIX = "melee:rules:reset:"
# Top-level fields an upload may not change.
FIXED_FIELDS = ("schema", "ruleset")
# For tables without ``id``: the first of these an entry has is its key (``min``: the lower bound of
# a row of an upload-only index table such as ``d20_damage_by_location``).
KEY_FIELDS = ("id", "zone", "quality", "face", "label", "min")


class HouseRuleError(UserError):
    """An upload that cannot become a house rule: a catalogue key, and problems if any."""

    def __init__(self, key: str, /, problems: list[str] | None = None, **params: Any) -> None:
        super().__init__(key, **params)
        self.problems = problems or []


# -- entry keys -------------------------------------------------------------------------------


def entry_key(schema: str, entry: Any) -> str | None:
    """The identity of an entry in its table: ``"jambes 5"``, ``"epee"``, ``"01-10"`` …"""
    if not isinstance(entry, Mapping):
        return None
    if schema == "criticals":
        zone, value = entry.get("zone"), entry.get("value")
        if isinstance(zone, str) and isinstance(value, int) and not isinstance(value, bool):
            return f"{zone} {value}"
        return None
    for name in KEY_FIELDS:
        value = entry.get(name)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return str(value)
    return None


def key_description(schema: str) -> str:
    if schema == "criticals":
        return "zone + value"
    return "min" if schema == "d20_damage_by_location" else "id"


# -- parsing, merging, validating ---------------------------------------------------------------


def parse_upload(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_UPLOAD_BYTES:
        raise HouseRuleError("rules.import.too_big", limit=MAX_UPLOAD_BYTES // 1024)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HouseRuleError("rules.import.not_utf8", position=exc.start) from None
    try:
        document = loads_bounded(text)
    except JsonLimit as exc:
        raise HouseRuleError(f"rules.import.limit.{exc.kind}", limit=exc.limit, sample=exc.sample) from None
    except json.JSONDecodeError as exc:
        raise HouseRuleError(
            "rules.import.bad_json", line=exc.lineno, column=exc.colno, error=exc.msg
        ) from None
    except RecursionError:
        raise HouseRuleError("rules.import.bad_json", line=1, column=1, error="nesting too deep") from None
    if not isinstance(document, dict):
        raise HouseRuleError("rules.import.not_object")
    return document


def _cut(text: str, limit: int = PROBLEM_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Merged:
    document: dict[str, Any]
    # merged entry index → index in the uploaded document (absent: a base entry)
    origin: dict[int, int]
    replaced: int
    added: int


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Merged:
    """Merge an (already checked) override into a base document; see the module docstring."""
    schema = str(base.get("schema", ""))
    merged: dict[str, Any] = {key: value for key, value in base.items()}
    for key, value in override.items():
        if key not in ("entries", "table"):
            merged[key] = value
    origin: dict[int, int] = {}
    replaced = added = 0
    if "entries" in override:
        entries = list(base.get("entries") or [])
        position: dict[str | None, int] = {
            entry_key(schema, entry): index for index, entry in enumerate(entries)
        }
        for upload_index, entry in enumerate(override["entries"]):
            identity = entry_key(schema, entry)
            if identity is not None and identity in position:
                entries[position[identity]] = entry
                origin[position[identity]] = upload_index
                replaced += 1
            else:
                position[identity] = len(entries)
                origin[len(entries)] = upload_index
                entries.append(entry)
                added += 1
        merged["entries"] = entries
    return Merged(document=merged, origin=origin, replaced=replaced, added=added)


def _structural_problems(base: Table, override: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    for name in FIXED_FIELDS:
        if name in override and override[name] != base.document.get(name):
            problems.append(f"{name}: must be {json.dumps(base.document.get(name))} (the base table's)")
    if "entries" not in override:
        return problems
    entries = override["entries"]
    if "entries" not in base.document:
        return [*problems, "entries: this table has no entries (override its other fields)"]
    if not isinstance(entries, list):
        return [*problems, "entries: must be a list"]
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.append(f"entries/{index}: must be an object")
            continue
        key = entry_key(base.schema, entry)
        if key is None:
            problems.append(f"entries/{index}: no key ({key_description(base.schema)}) to merge it by")
        elif key in seen:
            problems.append(f"entries/{index}: duplicate key {key!r} (also entries/{seen[key]})")
        else:
            seen[key] = index
    return problems


_ENTRY_PATH = re.compile(r"^entries/([0-9]+)(.*)$", re.DOTALL)


def _upload_path(problem: str, origin: Mapping[int, int]) -> str:
    """Rewrite ``entries/<merged index>…`` to the uploaded file's index; base entries say so."""
    match = _ENTRY_PATH.match(problem)
    if match is None:
        return problem
    index, rest = int(match.group(1)), match.group(2)
    if index in origin:
        return f"entries/{origin[index]}{rest}"
    return f"(base) entries/{index}{rest}"


def _natural(problem: str) -> list[Any]:
    path = problem.split(": ", 1)[0]
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"[/]", path)]


def check_override(tables: Mapping[str, Table], override: Mapping[str, Any]) -> tuple[Table, Merged]:
    """The base table and the merged document, or :class:`HouseRuleError` with every problem."""
    name = override.get("table")
    if not isinstance(name, str) or not name:
        raise HouseRuleError("rules.import.no_table")
    base = tables.get(name)
    if base is None:
        raise HouseRuleError("rules.import.unknown_table", table=_cut(name, 60))
    problems = _structural_problems(base, override)
    if problems:
        raise HouseRuleError("rules.import.invalid", problems=[_cut(p) for p in problems], table=name)
    merged = merge(base.document, override)
    try:
        validate_document(merged.document, origin=name)
    except DataError as exc:
        problems = sorted((_upload_path(p, merged.origin) for p in exc.problems), key=_natural)
        problems = [_cut(p) for p in problems]
        raise HouseRuleError("rules.import.invalid", problems=problems, table=name) from None
    return base, merged


# -- the table in force (what the other features read) -------------------------------------------

_CacheKey = tuple[int, str]
_Stamp = tuple[int, int, int, datetime]
_CACHE: dict[_CacheKey, tuple[_Stamp, Mapping[str, Any]]] = {}


def invalidate(guild_id: int, name: str) -> None:
    _CACHE.pop((guild_id, name), None)


def cached_in_force(
    ctx: AppContext, guild_id: int, name: str, stamp: HouseRuleStamp
) -> Mapping[str, Any] | None:
    """The merged document of the override ``stamp`` names (``ConfigCache``'s), if this process
    has it already — else None: ask :func:`table_in_force`."""
    base = ctx.tables.get(name)
    cached = _CACHE.get((guild_id, name))
    if base is None or cached is None or cached[0] != (id(base.document), *stamp):
        return None
    return cached[1]


async def table_in_force(
    session: AsyncSession, ctx: AppContext, guild_id: int | None, name: str
) -> Mapping[str, Any]:
    """The base document of ``name`` merged with the guild's house rules. Do not mutate it.

    Raises ``KeyError`` for an unknown table. An override that no longer validates against
    the base (the data changed since the import) is ignored, with a warning in the log.
    """
    base = ctx.tables[name]
    if guild_id is None:
        return base.document
    row = (
        await session.execute(
            select(HouseRuleTable.id, HouseRuleTable.version, HouseRuleTable.uploaded_at).where(
                HouseRuleTable.guild_id == guild_id, HouseRuleTable.table_name == name
            )
        )
    ).one_or_none()
    if row is None:
        return base.document
    stamp: _Stamp = (id(base.document), row.id, row.version, row.uploaded_at)
    cached = _CACHE.get((guild_id, name))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    document = await session.scalar(select(HouseRuleTable.document).where(HouseRuleTable.id == row.id))
    try:
        _, merged = check_override({name: base}, document or {})
        result: Mapping[str, Any] = merged.document
    except HouseRuleError as exc:
        log.warning("house rules of guild %s for %s no longer validate: %s", guild_id, name, exc.problems[:3])
        result = base.document
    _CACHE[(guild_id, name)] = (stamp, result)
    return result


async def overridden_tables(session: AsyncSession, guild_id: int | None) -> dict[str, datetime]:
    """Names of the tables this server overrides, with the upload time."""
    if guild_id is None:
        return {}
    rows = await session.execute(
        select(HouseRuleTable.table_name, HouseRuleTable.uploaded_at).where(
            HouseRuleTable.guild_id == guild_id
        )
    )
    return {row.table_name: row.uploaded_at for row in rows}


# -- use cases -------------------------------------------------------------------------------------


def _guild_only(ctx: AppContext, caller: Caller) -> Reply:
    return refusal_reply(ctx, caller.locale, "rules.error.guild_only")


def _not_allowed(ctx: AppContext, caller: Caller) -> Reply:
    return refusal_reply(ctx, caller.locale, "rules.error.not_gm")


def unknown_table_reply(ctx: AppContext, caller: Caller, name: str) -> Reply:
    return refusal_reply(
        ctx,
        caller.locale,
        "rules.error.unknown_table",
        table=_cut(name, 60),
        hint="rules.error.unknown_table_hint",
    )


async def _is_gm(ctx: AppContext, caller: Caller, guild_id: int) -> bool:
    if caller.manage_guild:
        return True
    async with ctx.sessions.begin() as session:
        return caller.is_gm(await get_server_config(session, guild_id))


def _problems_reply(ctx: AppContext, caller: Caller, error: HouseRuleError) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    shown = error.problems[:MAX_PROBLEMS_SHOWN]
    lines = [f"• `{p}`" for p in shown]
    if len(error.problems) > len(shown):
        lines.append(t(locale, "rules.import.more_problems", count=len(error.problems) - len(shown)))
    reply = user_error_reply(
        ctx, locale, error, hint="rules.import.hint", title="rules.import.rejected", details=lines
    )
    result = dict(reply.result or {})
    result.update(problems=error.problems, stored=False)
    return replace(reply, result=result)


async def import_house_rules(
    ctx: AppContext,
    caller: Caller,
    *,
    filename: str,
    size: int,
    read: Callable[[], Awaitable[bytes]],
) -> Reply:
    """Check the rights, read and validate the upload, then store it (replacing any previous one)."""
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    if not await _is_gm(ctx, caller, guild_id):
        return _not_allowed(ctx, caller)
    t, locale = ctx.catalog.t, caller.locale
    try:
        if size > MAX_UPLOAD_BYTES:
            raise HouseRuleError("rules.import.too_big", limit=MAX_UPLOAD_BYTES // 1024)
        try:
            data = await read()
        except Exception:  # the CDN is Discord's: any failure reads as "could not download"
            log.warning("could not download the house-rules file %r", filename, exc_info=True)
            raise HouseRuleError("rules.import.download_failed") from None
        override = parse_upload(data)
        base, merged = check_override(ctx.tables, override)
    except HouseRuleError as exc:
        return _problems_reply(ctx, caller, exc)
    name = base.name
    try:
        async with ctx.sessions.begin() as session:
            config = await get_server_config(session, guild_id)
            if not caller.is_gm(config):
                return _not_allowed(ctx, caller)
            row = await session.scalar(
                select(HouseRuleTable).where(
                    HouseRuleTable.guild_id == guild_id, HouseRuleTable.table_name == name
                )
            )
            if row is None:
                session.add(
                    HouseRuleTable(
                        guild_id=guild_id, table_name=name, document=override, uploaded_by=caller.user_id
                    )
                )
            else:
                row.document = override
                row.uploaded_by = caller.user_id
                row.uploaded_at = utcnow()
    except IntegrityError:
        return refusal_reply(ctx, locale, "common.error.retry")
    finally:
        invalidate(guild_id, name)
        config_cache(ctx).invalidate()  # the tables this server overrides changed
    title = _title(base.document, locale)
    return Reply(
        title=t(locale, "rules.import.done_title"),
        description=t(
            locale,
            "rules.import.done",
            table=name,
            title=title,
            replaced=merged.replaced,
            added=merged.added,
        ),
        colour=Colour.SUCCESS,
        ephemeral=True,
        kind="rules",
        result={
            "table": name,
            "stored": True,
            "replaced": merged.replaced,
            "added": merged.added,
            "filename": filename,
        },
    )


def _title(document: Mapping[str, Any], locale: str) -> str:
    title = document.get("title")
    if isinstance(title, Mapping):
        return str(title.get(language_of(locale)) or title.get("fr") or document.get("table", ""))
    return str(title or document.get("table", ""))


@dataclass(frozen=True, slots=True)
class Export:
    reply: Reply
    filename: str | None = None
    data: bytes | None = None


async def export_table(ctx: AppContext, caller: Caller, *, name: str) -> Export:
    """The table in force here (base merged with the server's house rules) as a JSON file."""
    if name not in ctx.tables:
        return Export(unknown_table_reply(ctx, caller, name))
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        document = await table_in_force(session, ctx, caller.guild_id, name)
        overridden = name in await overridden_tables(session, caller.guild_id)
    data = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    entries = document.get("entries")
    count = len(entries) if isinstance(entries, list) else 0
    key = "rules.export.with_house_rules" if overridden else "rules.export.base"
    reply = Reply(
        title=t(locale, "rules.export.title", table=name),
        description=t(locale, key, title=_title(document, locale), count=count, size=len(data)),
        colour=Colour.INFO,
        ephemeral=True,
        kind="rules",
        result={"table": name, "house_rules": overridden, "entries": count, "bytes": len(data)},
    )
    return Export(reply, filename=f"{name}.json", data=data)


async def reset_prompt(ctx: AppContext, caller: Caller, *, name: str) -> Reply:
    """Ask the GM to confirm: a button whose click runs :func:`reset_house_rules`."""
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    if name not in ctx.tables:
        return unknown_table_reply(ctx, caller, name)
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        if not caller.is_gm(await get_server_config(session, guild_id)):
            return _not_allowed(ctx, caller)
        overridden = name in await overridden_tables(session, guild_id)
    if not overridden:
        return refusal_reply(ctx, locale, "rules.reset.nothing", table=name)
    button = Button(
        label=t(locale, "rules.reset.confirm_button"),
        custom_id=RESET_CUSTOM_ID_PREFIX + name,
        style=ButtonStyle.DANGER,
    )
    return Reply(
        description=t(locale, "rules.reset.confirm", table=name),
        colour=Colour.INFO,
        ephemeral=True,
        buttons=((button,),),
        kind="rules",
        result={"table": name, "confirm": True},
    )


async def reset_house_rules(ctx: AppContext, caller: Caller, *, name: str) -> Reply:
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    if name not in ctx.tables:
        return unknown_table_reply(ctx, caller, name)
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        if not caller.is_gm(await get_server_config(session, guild_id)):
            return _not_allowed(ctx, caller)
        result = await session.execute(
            delete(HouseRuleTable).where(
                HouseRuleTable.guild_id == guild_id, HouseRuleTable.table_name == name
            )
        )
        removed = int(getattr(result, "rowcount", 0) or 0)
    invalidate(guild_id, name)
    config_cache(ctx).invalidate()  # committed: the next /test reads the base table again
    if not removed:
        return refusal_reply(ctx, locale, "rules.reset.nothing", table=name)
    return Reply(
        description="✅ " + t(locale, "rules.reset.done", table=name),
        colour=Colour.SUCCESS,
        ephemeral=True,
        kind="rules",
        result={"table": name, "reset": True},
    )


def house_rule_fields(ctx: AppContext, caller: Caller, name: str) -> tuple[Field, ...]:
    """A line for replies that show a table this server overrides."""
    return (
        Field(name="\u200b", value=ctx.catalog.t(caller.locale, "rules.house_rules_in_force", table=name)),
    )
