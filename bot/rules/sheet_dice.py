"""Names inside dice expressions: macros (``frappe``) and the active character's values (``1d10+BF``).

Pure: the macros and the sheet's values are passed in as mappings; the dice engine
(:mod:`bot.rules.dice`) rolls what is left once every name is replaced.

Readings (documented choices):

* A *name* is a run of letters (accents allowed; ``_`` and ``.`` inside: ``HP.tete``,
  ``Langue_Reikspiel``) standing where a number may stand: at the start, after ``+ - * / (`` or
  after a comparison (``1d100<=CC``, ``10d10>=BF``). Letters right after a number or a die
  (``2d10kh1``, ``1d10e10``, ``d%``) stay dice syntax, so ``E`` (Endurance) and the ``e`` of an
  explosion never mix up; ``d6`` where an operand stands is a die.
* Names are compared without case or accents. A macro of the user's wins over the server's of the
  same name, and a macro wins over a skill of the same name; a characteristic's code or alias
  (``CC``, ``BF``, ``SB`` …) cannot name a macro, which would hide it.
* A macro used inside a longer expression is put between parentheses (``frappe+2`` →
  ``(1d10+BF)+2``) and its label dropped; a macro alone keeps its label (``# Frappe``) unless the
  roll names its own. A macro may use other macros, never itself (directly or through others):
  such a loop is refused, as is a chain deeper than :data:`MACRO_DEPTH_MAX`.
* A sheet value replaces its name by the number (a negative one between parentheses); every name
  that is neither a macro nor a value of the sheet is refused, with the sheet's names listed.
* A *roll-under test*: exactly one die of the system (``1d100`` / ``d%`` for renove, v1 and ogl,
  ``1d20`` for d20), ``<=`` or ``<``, then a sum of sheet values and numbers with no die
  (``1d100<=CC+10``): it is resolved as the system's test, with its degrees (°R/°E, margins, MR).
  ``<`` is ``<=`` one less. Any other comparison is the engine's success count.
* The expanded text is held to the engine's limits (:data:`~bot.rules.dice.errors.MAX_LENGTH` …);
  errors are the engine's :class:`~bot.rules.dice.errors.DiceError` with ``dice.names.*`` /
  ``dice.macro.*`` keys.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from bot.rules.checks.common import CheckResult, Modifier, System
from bot.rules.checks.dispatch import die_for, result_from_roll
from bot.rules.dice.engine import roll
from bot.rules.dice.errors import MAX_LENGTH, DiceError
from bot.rules.dice.manual import ManualDice
from bot.rules.dice.syntax import parse, split_label
from bot.rules.random_source import RandomSource
from bot.rules.sheets import SHEETS

__all__ = [
    "MACRO_DEPTH_MAX",
    "MACRO_NAME_MAX",
    "Expanded",
    "Reference",
    "Resolved",
    "SheetTest",
    "SheetValue",
    "SheetValues",
    "check_macro",
    "check_macro_name",
    "expand",
    "fold",
    "references",
    "resolve",
    "roll_test",
    "sheet_values",
]

MACRO_NAME_MAX: Final = 32
MACRO_DEPTH_MAX: Final = 5
KNOWN_SHOWN_MAX: Final = 30  # names listed when one is unknown

# Letters with "_" or "." only between letters.
# Letters only, Latin with accents: « ² » or « ① » are \w without being \d — never a name (#23).
_L = "A-Za-zÀ-ÖØ-öø-ÿŒœ"
_NAME = re.compile(rf"[{_L}]+(?:[._][{_L}]+)*")
_MACRO_NAME = re.compile(rf"[{_L}]+(?:_[{_L}]+)*")
_OPERAND_BEFORE = frozenset("+-*/(<>=\u2212\u2013\u00d7\u00f7")
_DIE_AFTER = re.compile(r"\s*[0-9%]")
_TEST = re.compile(r"\s*(?:1\s*)?[dD]\s*(100|%|20)\s*(<=|<)(.*)", re.DOTALL)
_SYSTEMS: Final = frozenset(system.value for system in System)
_TERM = re.compile(rf"\s*([+\-\u2212]?)\s*([0-9]{{1,9}}|[{_L}]+(?:[._][{_L}]+)*)\s*")


def fold(text: str) -> str:
    """Case- and accent-insensitive key: "Épée" → "epee"; spaces read as ``_``."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return "_".join(stripped.casefold().split())


_STAT_NAMES: Final = frozenset(
    fold(name) for sheet in SHEETS.values() for stat in sheet.stats for name in (stat.code, *stat.aliases)
)


# --- names in an expression ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reference:
    """A name where an operand stands: ``text`` as typed, ``position`` its 0-based offset."""

    text: str
    position: int

    @property
    def end(self) -> int:
        return self.position + len(self.text)


def references(body: str) -> list[Reference]:
    """The names in ``body`` (an expression without its label), left to right."""
    found: list[Reference] = []
    for match in _NAME.finditer(body):
        start = match.start()
        before = body[:start].rstrip()
        if before and before[-1] not in _OPERAND_BEFORE:
            continue  # dice syntax: 2d10kh1, 1d10e10, 4d6dl1
        text = match.group()
        if text in ("d", "D") and _DIE_AFTER.match(body, match.end()):
            continue  # d6, d% where an operand stands
        found.append(Reference(text, start))
    return found


def _replace(body: str, parts: Iterable[tuple[Reference, str]]) -> str:
    out: list[str] = []
    last = 0
    for ref, text in parts:
        out.append(body[last : ref.position])
        out.append(text)
        last = ref.end
    out.append(body[last:])
    return "".join(out)


# --- macros -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expanded:
    """An expression once its macros are replaced: ``body`` without label, the label kept."""

    body: str
    label: str | None
    macros: tuple[str, ...]  # the macros used, as typed, in order


def _too_long(length: int) -> DiceError:
    return DiceError("dice.error.too_long", {"length": length, "limit": MAX_LENGTH})


def _expand_body(
    body: str, macros: Mapping[str, str], stack: tuple[str, ...], used: list[str], *, top: bool
) -> str:
    refs = references(body)
    alone = top and len(refs) == 1 and body.strip() == refs[0].text
    parts: list[tuple[Reference, str]] = []
    for ref in refs:
        key = fold(ref.text)
        stored = macros.get(key)
        if stored is None:
            continue
        where = ref.position if top else None  # a place in the text typed, not inside a macro
        if key in stack:
            chain = " → ".join((*stack[stack.index(key) :], key))
            raise DiceError("dice.macro.loop", {"name": ref.text, "chain": chain}, where)
        if len(stack) >= MACRO_DEPTH_MAX:
            raise DiceError("dice.macro.too_deep", {"name": ref.text, "limit": MACRO_DEPTH_MAX}, where)
        used.append(ref.text)
        inner = _expand_body(split_label(stored)[0], macros, (*stack, key), used, top=False).strip()
        parts.append((ref, inner if alone else f"({inner})"))
    text = _replace(body, parts) if parts else body
    if len(text) > MAX_LENGTH:
        raise _too_long(len(text))
    return text


def expand(text: str, macros: Mapping[str, str]) -> Expanded:
    """Replace the macros (``macros``: folded name → stored expression) used in ``text``."""
    if len(text) > MAX_LENGTH:
        raise _too_long(len(text))
    body, label = split_label(text)
    used: list[str] = []
    expanded = _expand_body(body, macros, (), used, top=True)
    if label is None and used and body.strip() == used[0]:
        label = split_label(macros[fold(used[0])])[1]
    return Expanded(expanded, label, tuple(used))


def check_macro_name(name: str) -> str:
    """The name as saved (trimmed), or a ``DiceError`` saying what a macro name may be."""
    cleaned = name.strip()
    if not 1 <= len(cleaned) <= MACRO_NAME_MAX:
        raise DiceError("dice.macro.name_length", {"length": len(cleaned), "limit": MACRO_NAME_MAX})
    if not _MACRO_NAME.fullmatch(cleaned) or fold(cleaned) == "d":
        raise DiceError("dice.macro.name_letters", {"name": cleaned})
    if fold(cleaned) in _STAT_NAMES:  # it would hide the sheet's value in every expression
        raise DiceError("dice.macro.name_is_stat", {"name": cleaned})
    return cleaned


def check_macro(name: str, expression: str, macros: Mapping[str, str]) -> str:
    """A macro's expression as saved, checked against the engine with every sheet name read as 1:
    ``macros`` are the other macros the owner sees (folded name → expression)."""
    cleaned = expression.strip()
    if not cleaned:
        raise DiceError("dice.error.empty")
    body = split_label(cleaned)[0]
    key = fold(name)
    for ref in references(body):
        if fold(ref.text) == key:
            raise DiceError("dice.macro.self", {"name": name}, ref.position)
    try:
        expanded = expand(name, {**macros, key: cleaned})  # from the macro itself: a → b → a
    except DiceError as exc:
        raise DiceError(exc.key, exc.params) from None  # no place: the text expanded is not the one typed
    # Each name read as 1, padded with spaces so that an error's place is still the one typed.
    placeholder = _replace(
        expanded.body, ((ref, "1".ljust(len(ref.text))) for ref in references(expanded.body))
    )
    try:
        parse(placeholder)
    except DiceError as exc:
        if len(expanded.macros) > 1:  # other macros inside: the place is in the expanded text
            raise DiceError(exc.key, exc.params) from None
        raise
    return cleaned


# --- the sheet's values -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SheetValue:
    name: str  # as the sheet shows it: "BF", "Esquive"
    value: int


@dataclass(frozen=True, slots=True)
class SheetValues:
    """What an expression may name on one character's sheet."""

    character: str
    ruleset: str
    by_key: Mapping[str, SheetValue]
    shown: tuple[str, ...]  # the names listed when one is unknown

    def find(self, name: str) -> SheetValue | None:
        return self.by_key.get(fold(name))


def sheet_values(
    character: str, ruleset: str, characteristics: Mapping[str, int], skills: Mapping[str, int] = {}
) -> SheetValues:
    """The characteristics (their codes and aliases: ``CC``/``WS``, ``BF``/``SB`` …) then the
    ``skills`` (name → the score a test reads), of a sheet of ``ruleset``."""
    by_key: dict[str, SheetValue] = {}
    shown: list[str] = []
    sheet = SHEETS.get(ruleset)
    stats = sheet.stats if sheet is not None else ()
    for stat in stats:
        if stat.code not in characteristics:
            continue
        value = SheetValue(stat.code, int(characteristics[stat.code]))
        shown.append(stat.code)
        for alias in (stat.code, *stat.aliases):
            by_key.setdefault(fold(alias), value)
    for code, number in characteristics.items():  # anything stored beyond the ruleset's list
        if fold(code) not in by_key:
            by_key[fold(code)] = SheetValue(code, int(number))
            shown.append(code)
    for skill, number in skills.items():
        key = fold(skill)
        if key not in by_key:
            by_key[key] = SheetValue(skill, int(number))
            shown.append(skill.replace(" ", "_"))
    return SheetValues(character, ruleset, by_key, tuple(shown))


@dataclass(frozen=True, slots=True)
class SheetTest:
    """A roll-under test of the system's die against a target read from the sheet."""

    die: int
    target: int
    modifiers: tuple[Modifier, ...]
    expression: str  # as shown: "1d100 <= CC + 10"


@dataclass(frozen=True, slots=True)
class Resolved:
    """An expression with its sheet names replaced: ``text`` for the engine, or a ``test``."""

    text: str
    used: tuple[SheetValue, ...]
    test: SheetTest | None = None


def _as_typed(text: str, found: SheetValue) -> SheetValue:
    """The value under the name the player used: « SB = 6 » for an English ``SB``, « BF = 6 » for
    ``bf``; a skill keeps the sheet's spelling."""
    if fold(text) == fold(found.name) or fold(text) == fold(found.name.replace(" ", "_")):
        return found
    return SheetValue(text, found.value)


def _unknown(ref: Reference, values: SheetValues) -> DiceError:
    known = values.shown[:KNOWN_SHOWN_MAX]
    listed = ", ".join(known) + ("…" if len(values.shown) > len(known) else "")
    return DiceError(
        "dice.names.unknown",
        {"name": ref.text, "character": values.character, "known": listed},
        ref.position,
    )


def _substitute(body: str, values: SheetValues, used: dict[str, SheetValue]) -> str:
    parts: list[tuple[Reference, str]] = []
    for ref in references(body):
        found = values.find(ref.text)
        if found is None:
            raise _unknown(ref, values)
        shown = _as_typed(ref.text, found)
        used.setdefault(shown.name, shown)
        parts.append((ref, str(found.value) if found.value >= 0 else f"({found.value})"))
    return _replace(body, parts) if parts else body


def _test(body: str, values: SheetValues, used: dict[str, SheetValue]) -> SheetTest | None:
    match = _TEST.fullmatch(body)
    if match is None:
        return None
    die = 100 if match.group(1) in ("100", "%") else 20
    if values.ruleset not in _SYSTEMS or die != die_for(values.ruleset):
        return None
    right = match.group(3)
    if not references(right):
        return None  # 1d100<=45: the engine's success count, as before
    shift = _substitute(right, values, used)
    expression = parse(shift)
    if expression.dice_count:
        return None  # a die on the right: not a test, the engine reads it
    target = roll(expression, ManualDice(())).total
    modifiers = _itemised(right, values, target)
    if match.group(2) == "<":  # strictly under: the target one less
        target -= 1
        modifiers = (*modifiers, Modifier("<", -1))
    shown = f"1d{die} {match.group(2)} {' '.join(right.split())}"
    return SheetTest(die, target, modifiers, shown)


def _itemised(right: str, values: SheetValues, target: int) -> tuple[Modifier, ...]:
    """``CC+10-5`` → (CC 45, +10, −5); anything more complex is one line, the whole target."""
    items: list[Modifier] = []
    pos = 0
    while pos < len(right):
        match = _TERM.match(right, pos)
        if match is None or match.end() == pos or (items and not match.group(1)):
            return (Modifier(" ".join(right.split()), target),)
        sign = -1 if match.group(1) in ("-", "\u2212") else 1
        word = match.group(2)
        found = None if word.isdigit() else values.find(word)
        number = int(word) if found is None else found.value
        label = _as_typed(word, found).name if found is not None else "checks.modifier.situational"
        items.append(Modifier(label, sign * number))
        pos = match.end()
    if not items or sum(m.value for m in items) != target:
        return (Modifier(" ".join(right.split()), target),)
    return tuple(items)


def resolve(body: str, values: SheetValues) -> Resolved:
    """Replace the sheet names of ``body`` (macros already expanded) by the sheet's values."""
    used: dict[str, SheetValue] = {}
    text = _substitute(body, values, used)  # every name checked here, errors placed in ``body``
    if len(text) > MAX_LENGTH:
        raise _too_long(len(text))
    test = _test(body, values, {})
    return Resolved(text, tuple(used.values()), test)


def roll_test(test: SheetTest, ruleset: str, rng: RandomSource) -> CheckResult:
    """Roll the test's die (``rng`` may be :class:`ManualDice`) and resolve it in ``ruleset``."""
    value = rng.randint(1, test.die)
    return result_from_roll(System(ruleset), test.target, test.modifiers, value)
