"""The pieces every skill test shares: input errors, name folding, sheet lookups, hand-entered dice
and the roll log.

Each use case (one module each) is one function: read the server's settings and the ruleset in
force (:mod:`bot.services.skill_tests.tables`), resolve the target (a number, or the active
character's characteristic/skill: the only database read, and only then), roll with the rules core
(or take the dice entered by hand), log every roll to ``RollLog`` through the group-commit writer
(:mod:`bot.db.roll_log`: committed, all rows of the interaction together, before the reply is
returned), and return a :class:`Reply` in the user's language.

Dice entered by hand: a side (or a participant) with dice entered uses exactly those, and the test
stops as "roll again" when they run out; the others roll with the bot's dice.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.db.characters import find_character, get_active_character
from bot.db.roll_log import log_row
from bot.i18n import default_catalog, language_of
from bot.rules.checks.common import DiceError, Modifier, System, obtain_roll
from bot.rules.checks.dispatch import die_for
from bot.rules.d20 import checks as d20
from bot.rules.grammar import is_int, parse_int
from bot.rules.ogl import combat as ogl_rules
from bot.rules.renove.skills import SkillRefused, skill_score
from bot.rules.sheets import SHEETS, shown_code
from bot.services.caller import Caller
from bot.services.errors import UserError
from bot.services.rolls import ManualDiceError, parse_manual_dice
from bot.services.skill_book import default_skill_book

TARGET_MIN, TARGET_MAX = -200, 300
MODIFIER_MIN, MODIFIER_MAX = -200, 200
NAME_MAX = 40
MOD_LABEL = "tests.modifier.mod"


class TestInputError(UserError):
    """Bad input for a test (shown as an ephemeral error)."""

    __test__ = False  # not a pytest class


@functools.lru_cache(maxsize=4096)  # the same few names (skills, characteristics) again and again
def fold(text: str) -> str:
    """Case- and accent-insensitive: "Évaluation" → "evaluation"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def _int(text: str) -> int | None:
    """A number typed where a name may stand too (``carac:45`` or ``carac:CC``): None when not one."""
    if not is_int(text):
        return None
    return parse_int(text, option="target", lo=-9999, hi=9999)


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


def _renove_skill(sheet: SheetLike, name: str, locale: str | None) -> _Base:
    """A `renove` skill on its characteristic: + the mastery, or half for an untrained basic one."""
    book = default_skill_book()
    try:
        score = skill_score(book, sheet.characteristics, sheet.skills, name)
    except SkillRefused as exc:
        if exc.key == "skills.error.unknown":
            raise TestInputError(
                "tests.error.unknown_stat", name=name[:NAME_MAX], character=sheet.name
            ) from None
        params = {**exc.params, "skill": book.shown(str(exc.params.get("skill", name)), locale)}
        raise TestInputError(exc.key, **params) from None
    label = f"{book.shown(score.label, locale)} ({sheet.name}) · {score.skill.characteristic}"
    parts: tuple[Modifier, ...] = ()
    if score.mastery is None:  # an untrained basic skill: half the characteristic, said as such
        parts = (Modifier("skills.untrained_half", score.target - score.characteristic),)
    elif score.mastery:
        parts = (Modifier("skills.mastery", score.mastery),)
    return _Base(score.characteristic, label, sheet, parts)


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
    return _sheet_value(sheet, name, system, caller.locale)


def _sheet_value(sheet: SheetLike, name: str, system: System, locale: str | None = None) -> _Base:
    ruleset = str(getattr(sheet, "ruleset", "renove"))
    if ruleset in SHEETS:  # an alias: « WS », « SB », « Fel » are the sheet's CC, BF, Soc
        name = SHEETS[ruleset].canonical(name) or name
    found = _lookup(sheet.characteristics, name)
    if found is not None:
        shown = shown_code(found[0], language_of(locale) == "en")
        return _Base(found[1], f"{shown} ({sheet.name})", sheet)
    if system is System.RENOVE and getattr(sheet, "ruleset", "renove") == "renove":
        return _renove_skill(sheet, name, locale)
    found = _lookup(sheet.skills, name)
    if found is None:
        raise TestInputError("tests.error.unknown_stat", name=name[:NAME_MAX], character=sheet.name)
    innate = _innate(sheet, name) if system is System.D20 else None
    if innate is not None:
        knowledge = {fold(k) for k in (getattr(sheet, "profile", None) or {}).get("knowledge") or ()}
        kind = d20.SkillKind.KNOWLEDGE if fold(found[0]) in knowledge else d20.SkillKind.INSTINCT
        try:
            first, *rest = d20.skill_parts(innate, found[1], kind)
        except d20.SkillNotUsable:  # a Savoir without Acquis (seed 003 l. 9)
            raise TestInputError("checks.d20.error.knowledge_untrained", skill=found[0]) from None
        innate_word = default_catalog().t(locale, first.label)  # « Inné », not its catalogue key
        return _Base(first.value, f"{found[0]} ({sheet.name}) · {innate_word}", sheet, tuple(rest))
    if system is System.OGL:
        malus = ogl_rules.skill_limb_malus(sheet_limbs(sheet), fold(found[0]).replace(" ", "_"))
        if malus is not None:
            parts = (Modifier(f"tests.ogl.limb.{malus[0]}", malus[1]),)
            return _Base(found[1], f"{found[0]} ({sheet.name})", sheet, parts)
    return _Base(found[1], f"{found[0]} ({sheet.name})", sheet)


# A sheet's condition that names an arm or a leg and says it is useless or lost (``/perso modifier
# etats:"bras droit inutilisable"``): an `ogl` limb out of use outside fights too (reading).
_LIMB_WORDS: Final = {
    "bras_d": ("bras_d", "bras droit", "right arm"),
    "bras_g": ("bras_g", "bras gauche", "left arm"),
    "jambe_d": ("jambe_d", "jambe droite", "right leg"),
    "jambe_g": ("jambe_g", "jambe gauche", "left leg"),
}
_USELESS_WORDS: Final = (
    "inutilisable",
    "hors d'usage",
    "perdu",
    "manquant",
    "coupe",
    "ampute",
    "useless",
    "lost",
    "missing",
)


def sheet_limbs(sheet: SheetLike) -> frozenset[str]:
    """The `ogl` limbs the sheet's conditions say are useless or lost."""
    out: set[str] = set()
    for text in getattr(sheet, "conditions", None) or ():
        folded = fold(str(text)).replace("’", "'")
        if not any(word in folded for word in _USELESS_WORDS):
            continue
        out.update(loc for loc, names in _LIMB_WORDS.items() if any(n in folded for n in names))
    return frozenset(out)


# --- the interaction's reads, hand-entered dice, the roll log -------------------------------------


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
