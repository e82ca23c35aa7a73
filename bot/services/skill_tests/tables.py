"""The data tables in force for the skill tests, the server's setting that says which ones it
overrides, and the autocomplete choices drawn from them.

The settings and the ruleset in force come from the process cache
(:class:`bot.services.config.ConfigCache`), channel/thread override first. House rules
(``/regles importer``) of ``secret_tests``, ``opposed_skills``, ``v1_standard_tests`` and
``extended_tests`` apply to the tests (the merged document, :mod:`bot.services.house_rules`); the
d20 difficulty ladder, simultaneous actions, wounds and v1 margin bands are the rules core's
constants (their data tables are checked against them), so uploads of those do not change tests.
Which tables a server overrides comes with its settings (:class:`ConfigCache`): a server without
house rules reads nothing more.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.db.repositories import ServerConfig
from bot.rules import opposed
from bot.rules.checks.common import System
from bot.rules.renove import checks as renove
from bot.services import house_rules
from bot.services.caller import Caller
from bot.services.config import HouseRuleStamp, config_cache
from bot.services.skill_tests.common import _Reads, fold

# The tables the skill tests read (their documents: the base, or merged with a server's house rules).
SKILL_TABLES = ("secret_tests", "opposed_skills", "v1_standard_tests", "extended_tests")
Documents = Mapping[str, Mapping[str, Any]]
_EMPTY: Mapping[str, Any] = {}
_T = TypeVar("_T")

# Structures derived from a document, built once per document (the base tables are loaded at
# start; a merged document is one object per house-rule stamp, see house_rules._CACHE). Keyed by
# the document's identity; the entry holds the document, so the id cannot be reused meanwhile.
_DERIVED_MAX = 512
_derived: dict[tuple[str, int], tuple[Mapping[str, Any], Any]] = {}


def _derive(kind: str, document: Mapping[str, Any], build: Callable[[Mapping[str, Any]], _T]) -> _T:
    key = (kind, id(document))
    hit = _derived.get(key)
    if hit is not None and hit[0] is document:
        value: _T = hit[1]
        return value
    if len(_derived) >= _DERIVED_MAX:  # many servers' house rules: start over (cheap to rebuild)
        _derived.clear()
    value = build(document)
    _derived[key] = (document, value)
    return value


def _document(ctx: AppContext, name: str, documents: Documents | None) -> Mapping[str, Any]:
    if documents is not None and name in documents:
        return documents[name]
    table = ctx.tables.get(name)
    return table.document if table is not None else _EMPTY


def _build_entries(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [e for e in document.get("entries") or () if isinstance(e, dict)]


def _entries(ctx: AppContext, name: str, documents: Documents | None = None) -> list[dict[str, Any]]:
    """The entries of ``name`` in force (``documents``: this server's, else the base). Read only."""
    return _derive("entries", _document(ctx, name, documents), _build_entries)


async def tables_in_force(
    ctx: AppContext,
    guild_id: int | None,
    overrides: Mapping[str, HouseRuleStamp],
    session: Callable[[], Awaitable[AsyncSession]],
    names: Sequence[str],
) -> Documents | None:
    """The merged documents of those of ``names`` this server overrides (``overrides``: from
    ConfigCache); None when it overrides none of them — the common case, no read at all."""
    if guild_id is None or not overrides:
        return None
    out: dict[str, Mapping[str, Any]] = {}
    for name in names:
        stamp = overrides.get(name)
        if stamp is None or name not in ctx.tables:
            continue
        document = house_rules.cached_in_force(ctx, guild_id, name, stamp)
        if document is None:
            document = await house_rules.table_in_force(await session(), ctx, guild_id, name)
        out[name] = document
    return out or None


def _build_secret_rows(document: Mapping[str, Any]) -> list[renove.SecretTest]:
    rows = []
    for entry in _build_entries(document):
        always = bool(entry.get("always", True))
        for key in ("skill", "skill_en"):
            if entry.get(key):
                rows.append(renove.SecretTest(fold(str(entry[key])), always))
    return rows


def secret_rows(ctx: AppContext, documents: Documents | None = None) -> list[renove.SecretTest]:
    return _derive("secret", _document(ctx, "secret_tests", documents), _build_secret_rows)


def secret_entries(ctx: AppContext, documents: Documents | None = None) -> list[dict[str, Any]]:
    """The secret-tests list in force (the seed's, or merged with the server's house rules)."""
    return _entries(ctx, "secret_tests", documents)


def secrecy_of(ctx: AppContext, skill: str | None, documents: Documents | None = None) -> renove.Secrecy:
    if not skill:
        return renove.Secrecy.NEVER
    return renove.secrecy(fold(skill), secret_rows(ctx, documents))


def _build_opposition_rows(document: Mapping[str, Any]) -> list[opposed.OppositionEntry]:
    rows = []
    for entry in _build_entries(document):
        rows.append(opposed.OppositionEntry(str(entry["skill"]), str(entry["opposed_by"])))
        if entry.get("skill_en") and entry.get("opposed_by_en"):
            rows.append(opposed.OppositionEntry(str(entry["skill_en"]), str(entry["opposed_by_en"])))
    return rows


def opposition_rows(ctx: AppContext, documents: Documents | None = None) -> list[opposed.OppositionEntry]:
    return _derive("opposition", _document(ctx, "opposed_skills", documents), _build_opposition_rows)


def suggested_opposition(ctx: AppContext, skill: str, documents: Documents | None = None) -> str | None:
    """The first skill the table in force opposes to ``skill`` (read both ways, accents ignored)."""
    wanted = fold(skill)
    for row in opposition_rows(ctx, documents):
        if fold(row.skill) == wanted:
            return row.opposed_by
        if fold(row.opposed_by) == wanted:
            return row.skill
    return None


def standard_test_rows(ctx: AppContext, documents: Documents | None = None) -> list[dict[str, Any]]:
    return _entries(ctx, "v1_standard_tests", documents)


def find_standard_row(
    ctx: AppContext, action: str, documents: Documents | None = None
) -> dict[str, Any] | None:
    wanted = fold(action)
    for row in standard_test_rows(ctx, documents):
        names = (row.get("id"), row.get("action"), row.get("action_en"))
        if any(isinstance(n, str) and fold(n) == wanted for n in names):
            return row
    return None


def standard_test_choices(
    ctx: AppContext, locale: str, typed: str, documents: Documents | None = None
) -> list[tuple[str, str]]:
    """(name, value) pairs for the ``action`` autocomplete: "Bluff — Soc", "Force — F × 10"."""
    english = locale.lower().startswith("en")
    wanted = fold(typed)
    out = []
    for row in standard_test_rows(ctx, documents):
        name = str(row.get("action_en") if english and row.get("action_en") else row.get("action"))
        if wanted and wanted not in fold(name) and wanted not in fold(str(row.get("action"))):
            continue
        under = str(row.get("test_under") or "")
        out.append((f"{name} — {under}"[:100], str(row.get("id"))))
    return out[:25]


def extended_row(
    ctx: AppContext, skill: str | None, documents: Documents | None = None
) -> dict[str, Any] | None:
    if not skill:
        return None
    wanted = fold(skill)
    for row in _entries(ctx, "extended_tests", documents):
        names = [row.get("id"), row.get("name"), row.get("name_en"), *(row.get("skills") or [])]
        if any(isinstance(n, str) and fold(n) == wanted for n in names):
            return row
    return None


def known_skill_names(ctx: AppContext, documents: Documents | None = None) -> list[str]:
    names: list[str] = []
    for entry in _entries(ctx, "secret_tests", documents):
        names.append(str(entry["skill"]))
    for entry in _entries(ctx, "opposed_skills", documents):
        names += [str(entry["skill"]), str(entry["opposed_by"])]
    for entry in _entries(ctx, "extended_tests", documents):
        names += [str(s) for s in entry.get("skills") or []]
    return sorted(dict.fromkeys(names), key=fold)


# --- the server's setting -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setting:
    config: ServerConfig | None
    ruleset: System
    is_gm: bool
    guild_id: int | None
    house_rules: Mapping[str, HouseRuleStamp]  # the tables the server overrides (usually none)

    async def tables(self, ctx: AppContext, session: _Reads, names: Sequence[str]) -> Documents | None:
        """The documents in force of those of ``names`` the server overrides (see tables_in_force)."""
        return await tables_in_force(ctx, self.guild_id, self.house_rules, session.get, names)


async def _setting(ctx: AppContext, caller: Caller) -> Setting:
    """The server's settings, the ruleset in force and the tables the server overrides, from the
    process cache (see ConfigCache)."""
    found = await config_cache(ctx).settings(ctx.sessions, caller.guild_id, caller.channel_chain)
    return Setting(
        found.config, System(found.ruleset), caller.is_gm(found.config), caller.guild_id, found.house_rules
    )


# --- choices (autocomplete) -----------------------------------------------------------------------


async def skill_names_here(ctx: AppContext, caller: Caller) -> list[str]:
    """:func:`known_skill_names` with this server's house rules (the ``skill`` autocomplete)."""
    setting = await _setting(ctx, caller)
    async with _Reads(ctx) as session:
        documents = await setting.tables(ctx, session, ("secret_tests", "opposed_skills", "extended_tests"))
    return known_skill_names(ctx, documents)


async def standard_test_choices_here(
    ctx: AppContext, caller: Caller, locale: str, typed: str
) -> list[tuple[str, str]]:
    """:func:`standard_test_choices` with this server's house rules (the ``action`` autocomplete)."""
    setting = await _setting(ctx, caller)
    async with _Reads(ctx) as session:
        documents = await setting.tables(ctx, session, ("v1_standard_tests",))
    return standard_test_choices(ctx, locale, typed, documents)
