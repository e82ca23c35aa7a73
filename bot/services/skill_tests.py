"""Skill tests in the four rulesets: ``/test``, ``/oppose``, ``/groupe``, ``/etendu``, ``/chance``.

Each use case is one function: read the server's settings and the ruleset in force (channel/thread
override first; from the process cache, :class:`bot.services.config.ConfigCache`), resolve the
target (a number, or the active character's characteristic/skill: the only database read, and only
then), roll with the rules core (or take the dice entered by hand), log every roll to ``RollLog``
through the group-commit writer (:mod:`bot.db.roll_log`: committed, all rows of the interaction
together, before the reply is returned), and return a :class:`Reply` in the user's language.

Readings and choices (documented for the GM, see also :mod:`bot.services.config`):

* Secret tests. A test is secret when asked (``secret:true``), when the GM rolls for a player
  (``pour:@alice``), or when its skill is in the seed's list (``data/secret_tests.json``, starred
  entries included: the GM may still say ``secret:false``). The GM's own secret test is answered
  privately; a player's secret test shows the table only that a secret test was rolled, and the
  result goes to the GM channel, else by DM to the server owner.
* ``/test action:`` (v1 standard tests) with a number in ``carac``: the number is the
  characteristic the row names (``Force`` with ``carac:4`` → F × 10 = 40); for rows whose target
  is a formula or a book reference the number is the target itself.
* Dice entered by hand: a side (or a participant) with dice entered uses exactly those, and the
  test stops as "roll again" when they run out; the others roll with the bot's dice.
* Difficulty by name exists only where the seed has a ladder (``d20``); elsewhere a plain modifier.
* House rules (``/regles importer``) of ``secret_tests``, ``opposed_skills``, ``v1_standard_tests``
  and ``extended_tests`` apply here (the merged document, :mod:`bot.services.house_rules`); the
  d20 difficulty ladder, simultaneous actions, wounds and v1 margin bands are the rules core's
  constants (their data tables are checked against them), so uploads of those do not change tests.
  Which tables a server overrides comes with its settings (:class:`ConfigCache`): a server
  without house rules reads nothing more.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.db.characters import find_character, get_active_character
from bot.db.repositories import ServerConfig
from bot.db.roll_log import log_row
from bot.rules import extended, opposed
from bot.rules.checks.common import CheckResult, DiceError, Modifier, System, build_target, obtain_roll
from bot.rules.checks.dispatch import die_for
from bot.rules.d20 import checks as d20
from bot.rules.ogl import checks as ogl
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove
from bot.rules.v1 import checks as v1
from bot.services import house_rules
from bot.services.caller import Caller
from bot.services.config import HouseRuleStamp, SecretDestination, config_cache, secret_destination
from bot.services.errors import UserError, refusal_reply, user_error_reply
from bot.services.rolls import ManualDiceError, parse_manual_dice
from bot.ui import checks_render as render
from bot.ui.reply import Button, ButtonStyle, Colour, Delivery, Field, Reply

TARGET_MIN, TARGET_MAX = -200, 300
MODIFIER_MIN, MODIFIER_MAX = -200, 200
ATTEMPTS_MAX = 100
NAME_MAX = 40
PARTICIPANTS_MAX = 12
EXT_PREFIX = "melee:ext:"
MOD_LABEL = "tests.modifier.mod"
_INT = re.compile(r"^[+-−]?\d{1,4}$")
_MENTION = re.compile(r"^<@!?(\d{15,22})>$")


class TestInputError(UserError):
    """Bad input for a test (shown as an ephemeral error)."""

    __test__ = False  # not a pytest class


@functools.lru_cache(maxsize=4096)  # the same few names (skills, characteristics) again and again
def fold(text: str) -> str:
    """Case- and accent-insensitive: "Évaluation" → "evaluation"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def _int(text: str) -> int | None:
    text = text.strip()
    if not _INT.match(text):
        return None
    return int(text.replace("−", "-"))


# --- characters (a colleague's module; used when present) -----------------------------------------


SheetGetter = Callable[[AsyncSession, int, int], Awaitable["SheetLike | None"]]
SheetFinder = Callable[[AsyncSession, int, str], Awaitable["SheetLike | None"]]


class SheetLike(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def characteristics(self) -> dict[str, int]: ...
    @property
    def skills(self) -> dict[str, int]: ...


def active_character_getter() -> SheetGetter:
    return get_active_character


def character_finder() -> SheetFinder:
    return find_character


def _lookup(values: Mapping[str, int], name: str) -> tuple[str, int] | None:
    wanted = fold(name)
    for key, value in values.items():
        if fold(key) == wanted:
            return key, value
    return None


def _innate(sheet: SheetLike, skill: str) -> int | None:
    innate = getattr(sheet, "skill_innate", None)
    if isinstance(innate, dict):
        found = _lookup(innate, skill)
        if found is not None:
            return found[1]
    return None


# --- data tables ---------------------------------------------------------------------------------


# The tables this module reads (their documents: the base, or merged with a server's house rules).
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


# --- shared pieces -------------------------------------------------------------------------------


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


class _Reads:
    """The interaction's read-only session, opened on first use: a test on a number, in a server
    whose settings are cached, touches no database until its roll-log row."""

    def __init__(self, ctx: AppContext) -> None:
        self._sessions = ctx.sessions
        self._session: AsyncSession | None = None

    async def get(self) -> AsyncSession:
        if self._session is None:
            self._session = self._sessions()
        return self._session

    async def __aenter__(self) -> _Reads:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()


def _check_target(value: int) -> int:
    if not TARGET_MIN <= value <= TARGET_MAX:
        raise TestInputError("tests.error.target_range", value=value, min=TARGET_MIN, max=TARGET_MAX)
    return value


def _check_modifier(value: int) -> int:
    if not MODIFIER_MIN <= value <= MODIFIER_MAX:
        raise TestInputError("tests.error.modifier_range", value=value, min=MODIFIER_MIN, max=MODIFIER_MAX)
    return value


def _hand_roll(system: System, value: int | None) -> int | None:
    if value is None:
        return None
    die = die_for(system)
    try:
        return obtain_roll(die, None, value)
    except DiceError:
        raise TestInputError("tests.error.bad_roll", value=value, die=die) from None


def _parse_rolls(system: System, text: str | None) -> list[int]:
    if not text:
        return []
    try:
        values = parse_manual_dice(text)
    except ManualDiceError as exc:
        raise TestInputError(exc.key, hint="rolls.manual.hint", **exc.params) from None
    for value in values:
        _hand_roll(system, value)
    return values


def _log(
    caller: Caller,
    *,
    kind: str,
    ruleset: System,
    expression: str,
    label: str | None,
    total: int | None,
    secret: bool,
    result: dict[str, Any],
    character_id: int | None = None,
) -> dict[str, Any]:
    """A roll-log row, written through the group-commit writer once the test is resolved."""
    return log_row(
        guild_id=caller.guild_id,
        channel_id=caller.channel_id,
        user_id=caller.user_id,
        character_id=character_id,
        kind=kind,
        ruleset=ruleset.value,
        expression=expression[:500],
        label=label[:100] if label else None,
        total=total,
        secret=secret,
        result=result,
    )


def _manual_note(ctx: AppContext, locale: str, manual: bool) -> str:
    return ctx.catalog.t(locale, "tests.footer.manual") if manual else ""


# --- /test ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TestRequest:
    __test__ = False  # not a pytest class

    carac: str | None = None
    skill: str | None = None
    modifier: int = 0
    difficulty: str | None = None
    roll: int | None = None
    label: str | None = None
    lenient: bool = False
    action: str | None = None
    simultaneous: int = 1
    wounds: int = 0
    secret: bool | None = None
    for_user_id: int | None = None
    owner_id: int | None = None  # the server owner: where secret results go without a GM channel


@dataclass(slots=True)
class _Base:
    value: int
    label: str
    character: SheetLike | None = None
    parts: tuple[Modifier, ...] = ()  # extra itemised parts of the base (d20 Inné/Acquis)
    standard: dict[str, Any] | None = None


async def _character_value(session: _Reads, caller: Caller, user_id: int, name: str, system: System) -> _Base:
    getter = active_character_getter()
    if caller.guild_id is None:
        raise TestInputError("tests.error.number_needed", name=name[:NAME_MAX])
    sheet = await getter(await session.get(), caller.guild_id, user_id)
    if sheet is None:
        raise TestInputError("tests.error.no_character", name=name[:NAME_MAX])
    return _sheet_value(sheet, name, system)


def _sheet_value(sheet: SheetLike, name: str, system: System) -> _Base:
    found = _lookup(sheet.characteristics, name)
    if found is not None:
        return _Base(found[1], f"{found[0]} ({sheet.name})", sheet)
    found = _lookup(sheet.skills, name)
    if found is None:
        raise TestInputError("tests.error.unknown_stat", name=name[:NAME_MAX], character=sheet.name)
    innate = _innate(sheet, name) if system is System.D20 else None
    if innate is not None:
        try:
            first, *rest = d20.skill_parts(innate, found[1], d20.SkillKind.INSTINCT)
        except d20.SkillNotUsable:  # pragma: no cover - INSTINCT is always usable
            raise TestInputError("checks.d20.error.knowledge_untrained", skill=found[0]) from None
        return _Base(first.value, f"{found[0]} ({sheet.name}) · {first.label}", sheet, tuple(rest))
    return _Base(found[1], f"{found[0]} ({sheet.name})", sheet)


async def _resolve_base(
    ctx: AppContext,
    session: _Reads,
    caller: Caller,
    request: TestRequest,
    system: System,
    documents: Documents | None = None,
) -> _Base:
    subject = request.for_user_id or caller.user_id
    carac = (request.carac or "").strip() or None
    number = _int(carac) if carac else None
    if carac and number is None and not re.search(r"[^\W\d_]", carac):
        raise TestInputError("tests.error.bad_carac", value=carac[:NAME_MAX])
    if request.action:
        if system is not System.V1:
            raise TestInputError("tests.error.action_v1_only", ruleset=system.value)
        row = find_standard_row(ctx, request.action, documents)
        if row is None:
            raise TestInputError("tests.error.unknown_action", action=request.action[:NAME_MAX])
        test = v1.StandardTest.from_dict(row)
        if row.get("kind") == "roll":
            note = row.get("formula_note") or {}
            text = note.get("en" if caller.locale.startswith("en") else "fr", "")
            raise TestInputError("tests.error.not_a_test", action=test.action, note=text)
        if test.fixed_target is not None:
            return _Base(test.fixed_target, test.action, standard=row)
        if not test.computable:
            if number is None:
                note = str(row.get("test_under") or "")
                raise TestInputError("checks.v1.error.not_computable", action=test.action, note=note)
            return _Base(_check_target(number), test.action, standard=row)
        assert test.characteristic is not None
        if number is not None:
            label = test.characteristic.split("/")[-1].strip()
            label = label if test.multiplier == 1 else f"{label} × {test.multiplier}"
            return _Base(_check_target(number * test.multiplier), f"{test.action} ({label})", standard=row)
        getter = active_character_getter()
        sheet = await getter(await session.get(), caller.guild_id, subject) if caller.guild_id else None
        if sheet is None:
            raise TestInputError(
                "tests.error.action_needs_value", action=test.action, under=test.characteristic
            )
        try:
            value, label = test.base(sheet.characteristics)
        except KeyError:
            raise TestInputError(
                "tests.error.unknown_stat", name=test.characteristic, character=sheet.name
            ) from None
        return _Base(_check_target(value), f"{test.action} ({label})", sheet, standard=row)
    if number is not None:
        return _Base(_check_target(number), request.skill or "checks.modifier.base")
    name = carac or request.skill
    if not name:
        raise TestInputError("tests.error.nothing_to_test", hint="tests.hint.test")
    base = await _character_value(session, caller, subject, name, system)
    _check_target(base.value)
    return base


# The ids of data/d20_difficulty.json (the seed's ladder) → the rules core's ladder.
D20_DIFFICULTIES: dict[str, d20.Difficulty] = {
    "evidente": d20.Difficulty.OBVIOUS,
    "assez_difficile": d20.Difficulty.FAIRLY_HARD,
    "difficile": d20.Difficulty.HARD,
    "tres_difficile": d20.Difficulty.VERY_HARD,
    "pratiquement_impossible": d20.Difficulty.NEARLY_IMPOSSIBLE,
    "absurde": d20.Difficulty.ABSURD,
    "rigoureusement_impossible": d20.Difficulty.STRICTLY_IMPOSSIBLE,
}


def _difficulty(system: System, name: str | None) -> d20.Difficulty | None:
    if not name:
        return None
    if system is not System.D20:
        raise TestInputError("tests.error.no_ladder", ruleset=system.value)
    key = fold(name).replace(" ", "_")
    found = D20_DIFFICULTIES.get(key)
    if found is None:
        try:
            found = d20.Difficulty(key)
        except ValueError:
            raise TestInputError("tests.error.unknown_difficulty", name=name[:NAME_MAX]) from None
    return found


def _resolve_check(
    system: System, base: _Base, request: TestRequest, roll: int | None, rng: RandomSource
) -> CheckResult:
    mods = list(base.parts)
    if request.modifier:
        mods.append(Modifier(MOD_LABEL, _check_modifier(request.modifier)))
    if system is not System.D20 and (request.simultaneous != 1 or request.wounds):
        raise TestInputError("tests.error.d20_only_options", ruleset=system.value)
    if system is not System.RENOVE and request.lenient:
        raise TestInputError("tests.error.lenient_renove_only", ruleset=system.value)
    difficulty = _difficulty(system, request.difficulty)
    source = None if roll is not None else rng
    match system:
        case System.RENOVE:
            return renove.check(base.value, mods, rng=source, roll=roll, base_label=base.label)
        case System.V1:
            return v1.check(base.value, mods, rng=source, roll=roll, base_label=base.label)
        case System.D20:
            if not 1 <= request.simultaneous <= 4:
                raise TestInputError("tests.error.simultaneous_range")
            return d20.check(
                base.value,
                mods,
                difficulty=difficulty,
                simultaneous_actions=request.simultaneous,
                wound=-abs(request.wounds),
                rng=source,
                roll=roll,
                base_label=base.label,
            )
        case System.OGL:
            return ogl.check(base.value, mods, rng=source, roll=roll, base_label=base.label)


def _test_title(ctx: AppContext, locale: str, label: str | None, base: _Base) -> str:
    shown = label or (base.standard.get("action") if base.standard else None)
    if not shown:
        return "🎲 " + ctx.catalog.t(locale, "tests.title_plain")
    return "🎲 " + ctx.catalog.t(
        locale, "tests.title", label=render.label_text(ctx.catalog, locale, str(shown))
    )


async def skill_test(
    ctx: AppContext, caller: Caller, request: TestRequest, *, rng: RandomSource | None = None
) -> Reply:
    """``/test``: one check in the ruleset in force; secret as the request and the seed say."""
    t, locale = ctx.catalog.t, caller.locale
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            if request.for_user_id is not None and not setting.is_gm:
                raise TestInputError("tests.error.gm_only_for")
            names = ("secret_tests", "v1_standard_tests") if request.action else ("secret_tests",)
            documents = await setting.tables(ctx, session, names)
            base = await _resolve_base(ctx, session, caller, request, system, documents)
            roll = _hand_roll(system, request.roll)
            result = _resolve_check(system, base, request, roll, rng or ctx.rng)
            skill_name = request.skill or (base.standard or {}).get("action") or request.carac
            listed = secrecy_of(ctx, skill_name, documents)
            if request.secret is not None:
                secret = request.secret
            else:
                secret = request.for_user_id is not None or listed is not renove.Secrecy.NEVER
            label = request.label or (
                str(skill_name) if skill_name and _int(str(skill_name)) is None else None
            )
            payload: dict[str, Any] = {
                **result.to_dict(),
                "ruleset": system.value,
                "label": label,
                "secret": secret,
                "secrecy": listed.value,
                "manual": roll is not None,
                "for_user_id": request.for_user_id,
                "character": base.character.name if base.character else None,
                "lenient_requested": request.lenient,
            }
            if base.standard is not None:
                payload["standard_test"] = {
                    "id": base.standard.get("id"),
                    "action": base.standard.get("action"),
                    "test_under": base.standard.get("test_under"),
                    "helpful_skills": list(base.standard.get("helpful_skills") or []),
                }
            rows.append(
                _log(
                    caller,
                    kind="test",
                    ruleset=system,
                    expression=f"d{result.die} ≤ {result.target}",
                    label=label,
                    total=result.roll,
                    secret=secret,
                    result=payload,
                    character_id=base.character.id if base.character else None,
                )
            )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown

    fields = list(render.check_fields(ctx.catalog, locale, result, lenient=request.lenient))
    if base.standard is not None:
        skills = ", ".join(base.standard.get("helpful_skills") or []) or t(locale, "tests.none")
        fields.append(Field(t(locale, "tests.field.helpful_skills"), skills))
        remarks = base.standard.get("remarks") or {}
        if isinstance(remarks, dict) and remarks:
            fields.append(
                Field(
                    t(locale, "tests.field.remarks"),
                    str(remarks.get("en" if locale.startswith("en") else "fr", "")),
                )
            )
    title = _test_title(ctx, locale, label, base)
    who = f"<@{request.for_user_id}>" if request.for_user_id else f"<@{caller.user_id}>"
    footer = render.ruleset_footer(
        ctx.catalog, locale, system.value, _manual_note(ctx, locale, roll is not None)
    )
    full = Reply(
        title=title,
        description=render.check_line(ctx.catalog, locale, result) + "\n" + who,
        fields=tuple(fields),
        footer=footer,
        colour=render.colour_of(result),
        result=payload,
        kind="test",
    )
    if not secret:
        return full
    secret_footer = footer + " · " + t(locale, "tests.secret.footer")
    if setting.is_gm or caller.guild_id is None:
        return Reply(
            title="🔒 " + title,
            description=full.description,
            fields=full.fields,
            footer=secret_footer,
            colour=full.colour,
            result=payload,
            kind="test",
            ephemeral=True,
        )
    destination = secret_destination(setting.config, request.owner_id)
    for_gm = Reply(
        title="🔒 " + title,
        description=full.description,
        fields=full.fields,
        footer=secret_footer,
        colour=full.colour,
        result=payload,
        kind="test",
    )
    shown = (
        render.label_text(ctx.catalog, locale, str(skill_name))
        if skill_name
        else t(locale, "tests.secret.a_test")
    )
    notice = Reply(
        description="🔒 " + t(locale, "tests.secret.rolled", user=f"<@{caller.user_id}>", skill=shown),
        footer=render.ruleset_footer(ctx.catalog, locale, system.value),
        colour=Colour.SECRET,
        kind="test_secret",
        result={"secret": True, "ruleset": system.value, "label": label, "sent_to": _sent_to(destination)},
    )
    if not destination.known:
        return replace(for_gm, ephemeral=True)
    delivery = Delivery(for_gm, user_id=destination.user_id, channel_id=destination.channel_id)
    return replace(notice, also=(delivery,))


def _sent_to(destination: SecretDestination) -> dict[str, int | None]:
    return {"channel_id": destination.channel_id, "user_id": destination.user_id}


# --- participants (/oppose, /groupe) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Participant:
    name: str
    base: int
    base_label: str
    character_id: int | None = None


async def _participant(
    session: _Reads,
    caller: Caller,
    text: str,
    skill: str | None,
    system: System,
    default_name: str,
) -> Participant:
    """``Name=40``, ``40``, ``@user`` (active character) or a character's name."""
    raw = text.strip()
    if not raw:
        raise TestInputError("tests.error.empty_side")
    name, _, value_text = raw.partition("=")
    if value_text:
        number = _int(value_text)
        name = name.strip()[:NAME_MAX]
        if number is None or not name:
            raise TestInputError("tests.error.bad_participant", text=raw[:NAME_MAX])
        return Participant(name, _check_target(number), skill or name)
    number = _int(raw)
    if number is not None:
        return Participant(default_name, _check_target(number), skill or default_name)
    if not skill:
        raise TestInputError("tests.error.skill_needed", name=raw[:NAME_MAX])
    mention = _MENTION.match(raw)
    if mention:
        base = await _character_value(session, caller, int(mention.group(1)), skill, system)
    else:
        finder = character_finder()
        if caller.guild_id is None:
            raise TestInputError("tests.error.number_needed", name=raw[:NAME_MAX])
        sheet = await finder(await session.get(), caller.guild_id, raw)
        if sheet is None:
            raise TestInputError("tests.error.unknown_character", name=raw[:NAME_MAX])
        base = _sheet_value(sheet, skill, system)
    assert base.character is not None
    return Participant(
        base.character.name[:NAME_MAX], _check_target(base.value), base.label, base.character.id
    )


def _contestant(p: Participant, modifier: int) -> opposed.Contestant:
    mods = (Modifier(MOD_LABEL, _check_modifier(modifier)),) if modifier else ()
    return opposed.Contestant(p.name, p.base, mods, p.base_label)


def _bot_rolls(system: System, rng: RandomSource, count: int) -> list[int]:
    die = die_for(system)
    return [rng.randint(1, die) for _ in range(count)]


async def _second_skill(
    ctx: AppContext, setting: Setting, session: _Reads, skill_a: str | None, skill_b: str | None
) -> tuple[str | None, bool]:
    """The second side's skill: the one given, else the opposition table's (and whether suggested)."""
    if skill_a and not skill_b:
        documents = await setting.tables(ctx, session, ("opposed_skills",))
        suggestion = suggested_opposition(ctx, skill_a, documents)
        return suggestion, suggestion is not None
    return skill_b, False


def _log_opposed(
    rows: list[dict[str, Any]],
    caller: Caller,
    *,
    kind: str,
    system: System,
    expression: str,
    outcome: dict[str, Any],
    skills: tuple[str | None, str | None],
    suggested: bool,
    manual: bool,
    label: str | None,
) -> dict[str, Any]:
    """The result of an opposed or group test, added to the roll log; returned for the reply."""
    payload = {
        **outcome,
        "ruleset": system.value,
        "skills": list(skills),
        "suggested_skill_b": suggested,
        "manual": manual,
        "label": label,
    }
    rows.append(
        _log(
            caller,
            kind=kind,
            ruleset=system,
            expression=expression,
            label=label,
            total=None,
            secret=False,
            result=payload,
        )
    )
    return payload


def _skills_field(
    ctx: AppContext,
    locale: str,
    side_a: tuple[str, str | None],
    side_b: tuple[str, str | None],
    suggested: bool,
) -> list[Field]:
    """Who tests which skill (each side: its names and its skill), when a skill is named at all."""
    (names_a, skill_a), (names_b, skill_b) = side_a, side_b
    if not (skill_a or skill_b):
        return []
    t = ctx.catalog.t
    skills = f"{names_a} : {skill_a or '—'}\n{names_b} : {skill_b or '—'}"
    if suggested:
        skills += "\n" + t(locale, "tests.opposed.suggested", skill=skill_b)
    return [Field(t(locale, "tests.field.skills"), skills)]


# --- /oppose -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpposeRequest:
    side_a: str
    side_b: str
    skill_a: str | None = None
    skill_b: str | None = None
    modifier_a: int = 0
    modifier_b: int = 0
    rolls_a: str | None = None
    rolls_b: str | None = None
    label: str | None = None


async def opposed_check(
    ctx: AppContext, caller: Caller, request: OpposeRequest, *, rng: RandomSource | None = None
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    source = rng or ctx.rng
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            skill_b, suggested = await _second_skill(ctx, setting, session, request.skill_a, request.skill_b)
            a = await _participant(session, caller, request.side_a, request.skill_a, system, "A")
            b = await _participant(session, caller, request.side_b, skill_b, system, "B")
            if a.name == b.name:
                b = Participant(f"{b.name} (2)", b.base, b.base_label, b.character_id)
            rolls_a = _parse_rolls(system, request.rolls_a)
            rolls_b = _parse_rolls(system, request.rolls_b)
            rules = opposed.rules_for(system)
            manual = bool(rolls_a or rolls_b)
            if manual:
                rolls_a = rolls_a or _bot_rolls(system, source, rules.max_rounds)
                rolls_b = rolls_b or _bot_rolls(system, source, rules.max_rounds)
            result = opposed.opposed_test(
                _contestant(a, request.modifier_a),
                _contestant(b, request.modifier_b),
                system=system,
                rules=rules,
                rng=None if manual else source,
                rolls_a=rolls_a,
                rolls_b=rolls_b,
            )
            payload = _log_opposed(
                rows,
                caller,
                kind="opposed",
                system=system,
                expression=f"{a.name} vs {b.name}",
                outcome=result.to_dict(),
                skills=(request.skill_a, skill_b),
                suggested=suggested,
                manual=manual,
                label=request.label,
            )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    fields = _skills_field(ctx, locale, (a.name, request.skill_a), (b.name, skill_b), suggested)
    fields += [render.opposed_round_field(ctx.catalog, locale, rnd, a.name, b.name) for rnd in result.rounds]
    title = t(locale, "checks.opposed.title") + (f" : {request.label}" if request.label else "")
    return Reply(
        title="⚔️ " + title,
        description=render.opposed_summary(ctx.catalog, locale, result),
        fields=tuple(fields[:25]),
        footer=render.ruleset_footer(ctx.catalog, locale, system.value, _manual_note(ctx, locale, manual)),
        colour=render.opposed_colour(result),
        result=payload,
        kind="opposed",
    )


# --- /groupe -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupRequest:
    side_a: str
    side_b: str
    skill_a: str | None = None
    skill_b: str | None = None
    modifier_a: int = 0
    modifier_b: int = 0
    rolls: str | None = None
    label: str | None = None


def _split_members(text: str) -> list[str]:
    return [part for part in (p.strip() for p in re.split(r"[,;]", text)) if part]


def _parse_group_rolls(system: System, text: str | None) -> dict[str, list[int]]:
    if not text:
        return {}
    out: dict[str, list[int]] = {}
    for part in _split_members(text):
        name, sep, values = part.partition("=")
        if not sep:
            name, sep, values = part.partition(":")
        if not sep or not name.strip():
            raise TestInputError(
                "tests.error.bad_group_rolls", text=part[:NAME_MAX], hint="tests.hint.group_rolls"
            )
        out.setdefault(name.strip(), []).extend(_parse_rolls(system, values))
    return out


async def group_opposed_check(
    ctx: AppContext, caller: Caller, request: GroupRequest, *, rng: RandomSource | None = None
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    source = rng or ctx.rng
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            skill_b, suggested = await _second_skill(ctx, setting, session, request.skill_a, request.skill_b)
            members_a, members_b = _split_members(request.side_a), _split_members(request.side_b)
            if not members_a or not members_b:
                raise TestInputError("tests.error.empty_side")
            if len(members_a) + len(members_b) > PARTICIPANTS_MAX:
                raise TestInputError("tests.error.too_many_participants", limit=PARTICIPANTS_MAX)
            side_a = [
                await _participant(session, caller, m, request.skill_a, system, f"A{i}")
                for i, m in enumerate(members_a, start=1)
            ]
            side_b = [
                await _participant(session, caller, m, skill_b, system, f"B{i}")
                for i, m in enumerate(members_b, start=1)
            ]
            names = [p.name for p in (*side_a, *side_b)]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise TestInputError("tests.error.duplicate_names", names=", ".join(duplicates))
            entered = _parse_group_rolls(system, request.rolls)
            folded = {fold(n): n for n in names}
            rolls: dict[str, list[int]] = {}
            for given, values in entered.items():
                real = folded.get(fold(given))
                if real is None:
                    raise TestInputError(
                        "tests.error.unknown_participant", name=given[:NAME_MAX], names=", ".join(names)
                    )
                rolls[real] = values
            rules = opposed.rules_for(system)
            manual = bool(rolls)
            if manual:
                for name in names:
                    if name not in rolls:
                        rolls[name] = _bot_rolls(system, source, rules.max_rounds)
            result = opposed.group_opposed_test(
                [_contestant(p, request.modifier_a) for p in side_a],
                [_contestant(p, request.modifier_b) for p in side_b],
                system=system,
                rules=rules,
                rng=None if manual else source,
                rolls=rolls,
            )
            names_a, names_b = ", ".join(p.name for p in side_a), ", ".join(p.name for p in side_b)
            payload = _log_opposed(
                rows,
                caller,
                kind="group_opposed",
                system=system,
                expression=f"{names_a} vs {names_b}",
                outcome=result.to_dict(),
                skills=(request.skill_a, skill_b),
                suggested=suggested,
                manual=manual,
                label=request.label,
            )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    fields = _skills_field(ctx, locale, (names_a, request.skill_a), (names_b, skill_b), suggested)
    fields += [
        render.group_round_field(ctx.catalog, locale, rnd.results, rnd.number) for rnd in result.rounds
    ]
    title = t(locale, "checks.opposed.group_title") + (f" : {request.label}" if request.label else "")
    return Reply(
        title="⚔️ " + title,
        description="\n".join(render.group_summary_lines(ctx.catalog, locale, result)),
        fields=tuple(fields[:25]),
        footer=render.ruleset_footer(ctx.catalog, locale, system.value, _manual_note(ctx, locale, manual)),
        colour=Colour.SUCCESS if result.complete else Colour.INFO,
        result=payload,
        kind="group_opposed",
    )


# --- /etendu -------------------------------------------------------------------------------------

_SYSTEM_CODES = {System.RENOVE: "r", System.V1: "v", System.D20: "d", System.OGL: "o"}
_UNIT_CODES = {
    extended.TimeUnit.ROUND: "r",
    extended.TimeUnit.SECOND: "s",
    extended.TimeUnit.MINUTE: "m",
    extended.TimeUnit.HOUR: "h",
    extended.TimeUnit.DAY: "d",
}
EXT_PATTERN = (
    r"melee:ext:(?P<sys>[rvdo]):(?P<target>-?\d{1,4}):(?P<n>\d{1,3}):(?P<k>\d{1,3}):"
    r"(?P<amount>\d{1,4})(?P<unit>[rsmhd]):(?P<count>\d{1,3}):(?P<bits>[0-9a-f]{1,26}):(?P<user>\d{1,22})"
)
_EXT_RE = re.compile("^" + EXT_PATTERN + "$")


def encode_extended(state: extended.ExtendedState, target: int, user_id: int) -> str:
    """The state a step button carries: ruleset, target, N, K, time, outcomes so far, roller."""
    test = state.test
    bits = sum(1 << i for i, r in enumerate(state.attempts) if r.success)
    time = test.time_per_attempt
    return (
        f"{EXT_PREFIX}{_SYSTEM_CODES[test.system]}:{target}:{test.max_attempts}:{test.successes_needed}:"
        f"{time.amount}{_UNIT_CODES[time.unit]}:{len(state.attempts)}:{bits:x}:{user_id}"
    )


@dataclass(frozen=True, slots=True)
class ExtendedToken:
    system: System
    target: int
    max_attempts: int
    successes_needed: int
    time: extended.Duration
    outcomes: tuple[bool, ...]
    user_id: int


def decode_extended(custom_id: str) -> ExtendedToken | None:
    match = _EXT_RE.match(custom_id)
    if match is None:
        return None
    systems = {v: k for k, v in _SYSTEM_CODES.items()}
    units = {v: k for k, v in _UNIT_CODES.items()}
    count, bits = int(match["count"]), int(match["bits"], 16)
    n, k = int(match["n"]), int(match["k"])
    if not (1 <= n <= ATTEMPTS_MAX and 1 <= k <= n and count <= n and bits < (1 << max(count, 1))):
        return None
    return ExtendedToken(
        system=systems[match["sys"]],
        target=int(match["target"]),
        max_attempts=n,
        successes_needed=k,
        time=extended.Duration(max(1, int(match["amount"])), units[match["unit"]]),
        outcomes=tuple(bool(bits >> i & 1) for i in range(count)),
        user_id=int(match["user"]),
    )


def _placeholder(system: System, target: int, success: bool) -> CheckResult:
    # Past attempts travel in the button as their outcome only (the message shows their dice).
    return CheckResult(system, 0, die_for(system), target, (), success)


@dataclass(frozen=True, slots=True)
class ExtendedRequest:
    carac: str | None = None
    skill: str | None = None
    attempts: int | None = None
    successes: int | None = None
    time_amount: int | None = None
    time_unit: str | None = None
    modifier: int = 0
    rolls: str | None = None
    step: bool = False
    label: str | None = None


def _extended_reply(
    ctx: AppContext,
    locale: str,
    state: extended.ExtendedState,
    new: Sequence[CheckResult],
    *,
    title: str,
    target: int,
    user_id: int,
    payload: dict[str, Any],
    manual: bool,
    modifiers: Sequence[Modifier] = (),
) -> Reply:
    t = ctx.catalog.t
    outcomes = [r.success for r in state.attempts]
    fields = [Field(t(locale, "tests.extended.attempts"), render.attempt_marks(outcomes))]
    if new:
        lines = [
            f"{len(state.attempts) - len(new) + i + 1}. {render.check_line(ctx.catalog, locale, r)}"
            for i, r in enumerate(new)
        ]
        fields.append(Field(t(locale, "tests.extended.rolls"), "\n".join(lines[-20:])))
    if modifiers:
        fields.append(
            Field(
                t(locale, "tests.field.modifiers"),
                render.modifiers_text(ctx.catalog, locale, modifiers, target),
            )
        )
    fields.append(
        Field(
            t(locale, "tests.extended.time_per_attempt"),
            render.duration_text(ctx.catalog, locale, state.test.time_per_attempt),
            inline=True,
        )
    )
    buttons: tuple[tuple[Button, ...], ...] = ()
    if not state.finished:
        buttons = (
            (
                Button(
                    label=t(locale, "tests.extended.button"),
                    custom_id=encode_extended(state, target, user_id),
                    style=ButtonStyle.PRIMARY,
                    emoji="🎲",
                ),
            ),
        )
    return Reply(
        title=title,
        description=render.extended_progress(ctx.catalog, locale, state),
        fields=tuple(fields),
        footer=render.ruleset_footer(
            ctx.catalog, locale, state.test.system.value, _manual_note(ctx, locale, manual)
        ),
        colour=render.extended_colour(state),
        buttons=buttons,
        result=payload,
        kind="extended",
    )


async def extended_check(
    ctx: AppContext, caller: Caller, request: ExtendedRequest, *, rng: RandomSource | None = None
) -> Reply:
    """``/etendu``: K successes in N attempts; all at once, or one attempt per button press."""
    t, locale = ctx.catalog.t, caller.locale
    source = rng or ctx.rng
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            documents = await setting.tables(ctx, session, ("extended_tests",))
            row = extended_row(ctx, request.skill, documents)
            attempts = request.attempts or (row or {}).get("attempts")
            needed = request.successes or (row or {}).get("successes_needed")
            if not attempts or not needed:
                raise TestInputError("tests.error.extended_counts", hint="tests.hint.extended")
            if not 1 <= attempts <= ATTEMPTS_MAX or not 1 <= needed <= ATTEMPTS_MAX:
                raise TestInputError("tests.error.attempts_range", max=ATTEMPTS_MAX)
            if needed > attempts:
                raise TestInputError(
                    "tests.error.successes_over_attempts", successes=needed, attempts=attempts
                )
            row_time = (row or {}).get("time_per_test") or {}
            unit_name = request.time_unit or row_time.get("unit") or "round"
            amount = request.time_amount or row_time.get("amount") or 1
            try:
                unit = extended.TimeUnit(unit_name)
            except ValueError:
                raise TestInputError("tests.error.unknown_unit", unit=str(unit_name)[:20]) from None
            base = await _resolve_base(
                ctx, session, caller, TestRequest(carac=request.carac, skill=request.skill), system
            )
            mods = list(base.parts)
            if request.modifier:
                mods.append(Modifier(MOD_LABEL, _check_modifier(request.modifier)))
            test = extended.ExtendedTest(
                system=system,
                base=base.value,
                max_attempts=attempts,
                successes_needed=needed,
                modifiers=tuple(mods),
                base_label=base.label,
                time_per_attempt=extended.Duration(int(amount), unit),
            )
            target, items = build_target(test.base, test.modifiers, test.base_label)
            rolls = _parse_rolls(system, request.rolls)
            manual = bool(rolls)
            if request.step and not manual:
                state = extended.start(test)
            else:
                state = extended.run(test, rng=None if manual else source, rolls=rolls)
            payload = {**state.to_dict(), "ruleset": system.value, "target": target, "manual": manual}
            payload["label"] = request.label or request.skill
            for index, attempt in enumerate(state.attempts, start=1):
                rows.append(
                    _log(
                        caller,
                        kind="extended",
                        ruleset=system,
                        expression=f"d{attempt.die} ≤ {attempt.target} #{index}/{attempts}",
                        label=request.label or request.skill,
                        total=attempt.roll,
                        secret=False,
                        result={**attempt.to_dict(), "attempt": index, "status": state.status.value},
                        character_id=base.character.id if base.character else None,
                    )
                )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    shown = request.label or request.skill or render.label_text(ctx.catalog, locale, base.label)
    title = "⏳ " + t(locale, "tests.extended.title", label=shown)
    return _extended_reply(
        ctx,
        locale,
        state,
        state.attempts,
        title=title,
        target=target,
        user_id=caller.user_id,
        payload=payload,
        manual=manual,
        modifiers=items,
    )


async def extended_step(
    ctx: AppContext,
    caller: Caller,
    custom_id: str,
    *,
    title: str | None = None,
    rng: RandomSource | None = None,
) -> Reply:
    """One more attempt of an extended test, from the state its button carries."""
    t, locale = ctx.catalog.t, caller.locale
    token = decode_extended(custom_id)
    if token is None:
        return refusal_reply(ctx, locale, "tests.error.extended_state")
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        if caller.user_id != token.user_id and not setting.is_gm:
            raise TestInputError("tests.error.not_your_test", user=f"<@{token.user_id}>")
        test = extended.ExtendedTest(
            system=token.system,
            base=token.target,
            max_attempts=token.max_attempts,
            successes_needed=token.successes_needed,
            time_per_attempt=token.time,
        )
        state = extended.ExtendedState(
            test, tuple(_placeholder(token.system, token.target, ok) for ok in token.outcomes)
        )
        if state.finished:
            raise TestInputError("tests.error.extended_over")
        state = extended.attempt(state, rng=rng or ctx.rng)
        latest = state.attempts[-1]
        payload = {
            "ruleset": token.system.value,
            "target": token.target,
            "attempt": len(state.attempts),
            "latest": latest.to_dict(),
            "outcomes": [r.success for r in state.attempts],
            "successes": state.successes,
            "attempts_left": state.attempts_left,
            "status": state.status.value,
            "status_key": state.status.key,
            "elapsed": state.elapsed.to_dict(),
            "manual": False,
        }
        rows.append(
            _log(
                caller,
                kind="extended",
                ruleset=token.system,
                expression=f"d{latest.die} ≤ {latest.target} #{len(state.attempts)}/{token.max_attempts}",
                label=None,
                total=latest.roll,
                secret=False,
                result={**latest.to_dict(), "attempt": len(state.attempts), "status": state.status.value},
            )
        )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    return _extended_reply(
        ctx,
        locale,
        state,
        (latest,),
        title=title or "⏳ " + t(locale, "checks.extended.title"),
        target=token.target,
        user_id=token.user_id,
        payload=payload,
        manual=False,
    )


# --- /chance (d20) -------------------------------------------------------------------------------


async def chance_check(
    ctx: AppContext,
    caller: Caller,
    *,
    player_roll: int | None = None,
    gm_roll: int | None = None,
    gm_malus: int = 0,
    rng: RandomSource | None = None,
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        if setting.ruleset is not System.D20:
            raise TestInputError(
                "tests.error.chance_d20_only",
                ruleset=render.ruleset_name(ctx.catalog, locale, setting.ruleset.value),
            )
        _hand_roll(System.D20, player_roll)
        _hand_roll(System.D20, gm_roll)
        if gm_malus < 0:
            raise TestInputError("tests.error.modifier_range", value=gm_malus, min=0, max=20)
        result = d20.chance_test(
            rng=rng or ctx.rng, player_roll=player_roll, gm_roll=gm_roll, gm_malus=gm_malus
        )
        payload = {**result.to_dict(), "ruleset": System.D20.value, "manual": player_roll is not None}
        rows.append(
            _log(
                caller,
                kind="chance",
                ruleset=System.D20,
                expression="d20 < d20",
                label=None,
                total=result.player_roll,
                secret=False,
                result=payload,
            )
        )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    return Reply(
        title="🍀 " + t(locale, "checks.chance.title"),
        description=t(
            locale, "checks.chance.line", player=result.player_roll, gm=result.gm_roll + result.gm_malus
        ),
        fields=render.chance_fields(ctx.catalog, locale, result),
        footer=render.ruleset_footer(ctx.catalog, locale, System.D20.value, t(locale, "tests.chance.rule")),
        colour=Colour.SUCCESS if result.lucky else Colour.FAILURE,
        result=payload,
        kind="chance",
    )


__all__ = [
    "EXT_PATTERN",
    "ExtendedRequest",
    "GroupRequest",
    "OpposeRequest",
    "Participant",
    "TestInputError",
    "TestRequest",
    "chance_check",
    "decode_extended",
    "encode_extended",
    "extended_check",
    "extended_step",
    "group_opposed_check",
    "known_skill_names",
    "opposed_check",
    "skill_names_here",
    "skill_test",
    "standard_test_choices",
    "standard_test_choices_here",
    "tables_in_force",
]
