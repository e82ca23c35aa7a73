"""One reading of what users type: integers, modifiers and dice rolled by hand.

Grammar (whitespace = any Unicode space, NBSP and narrow NBSP included; trimmed at both ends)::

    integer   := sign? digit{1,9}            sign := "+" | "-" | "−" (U+2212)   digit := [0-9]
    modifier  := ("mod" space? ":" space?)? integer space? "%"?      ("mod" in any case)
    rolls     := roll (sep roll)*            roll := digit{1,3}       sep := (space | "," | ";" | "/")+
    named     := entry ((";" | newline) entry)*                        entry := name (":" | "=") rolls?

Only ASCII digits are digits: "²", "①" and "٣" are not numbers. Any text longer than
:data:`MAX_TEXT` characters (:data:`MAX_NAMED_TEXT` for named rolls) is refused before it is read.
Every refusal is an :class:`InputError` whose ``key`` is a catalogue key under ``input.error.`` and
whose ``params`` always hold ``option`` (the option id given by the caller) and, where something was
read, ``value``: a short, markdown-safe :func:`excerpt` of what was typed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

MAX_DIGITS: Final = 9
MAX_TEXT: Final = 200
MAX_NAMED_TEXT: Final = 2000  # "Albert: 12 5 18; Gobelin 1: 3 4 5 …" for a whole table of combatants
MAX_NAME: Final = 64
MAX_ROLL_DIGITS: Final = 3
EXCERPT_MAX: Final = 20

_INT = re.compile(r"([+\-−]?)([0-9]+)", re.ASCII)
_MODIFIER = re.compile(r"(?:mod ?: ?)?([+\-−]?)([0-9]+) ?%?", re.ASCII | re.IGNORECASE)
_ROLL = re.compile(r"[0-9]+", re.ASCII)
_SEPARATORS = re.compile(r"[\s,;/]+")
_ENTRIES = re.compile(r"[;\n\r\u2028\u2029\x85]")
_NAME_SEPARATOR = re.compile(r"[:=]")

# Markdown and mention characters are replaced by inert look-alikes, so that the excerpt stays
# readable ("＠everyone" does not ping, "∗bold∗" is not bold) instead of silently losing characters.
_NEUTRAL: Final = str.maketrans(
    {
        "`": "ˋ",  # U+02CB modifier letter grave accent
        "*": "∗",  # U+2217 asterisk operator
        "_": "＿",  # U+FF3F fullwidth low line
        "~": "∼",  # U+223C tilde operator
        "|": "∣",  # U+2223 divides
        "@": "＠",  # U+FF20 fullwidth commercial at
        "<": "‹",  # U+2039
        ">": "›",  # U+203A
        "\\": "⧵",  # U+29F5 reverse solidus operator: no escaping of the message around it
    }
)


class InputError(ValueError):
    """What was typed cannot be read; ``key`` is an ``input.error.*`` catalogue key."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params: dict[str, Any] = params

    def __str__(self) -> str:
        return f"{self.key} {self.params!r}"


def excerpt(text: str, limit: int = EXCERPT_MAX) -> str:
    """At most ``limit`` characters of ``text`` (the last one "…" when cut), safe to quote in a reply.

    Spaces and control characters become single spaces, invisible format characters (zero-width,
    bidirectional overrides) are dropped, and markdown or mention characters (`` ` * _ ~ | @ < > \\ ``)
    become look-alikes that Discord does not interpret.
    """
    text = text.strip()
    head = text[: limit * 4]
    chars: list[str] = []
    for ch in head:
        category = unicodedata.category(ch)
        if category in ("Cc", "Zl", "Zp"):
            chars.append(" ")
        elif category not in ("Cf", "Cs"):
            chars.append(ch)
    cleaned = " ".join("".join(chars).translate(_NEUTRAL).split())
    if len(cleaned) > limit or len(head) < len(text):
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


def _refuse_long(text: str, option: str, maximum: int = MAX_TEXT) -> None:
    if len(text) > maximum:
        raise InputError("input.error.too_long", option=option, value=excerpt(text), max=maximum)


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


def _number(sign: str, digits: str, text: str, option: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise InputError("input.error.too_long", option=option, value=excerpt(text), max=MAX_DIGITS)
    value = int(digits)
    return -value if sign in ("-", "−") else value


def _bounded(value: int, text: str, option: str, lo: int | None, hi: int | None) -> int:
    too_small = lo is not None and value < lo
    too_large = hi is not None and value > hi
    if too_small or too_large:
        shown = excerpt(text)
        if lo is not None and hi is not None:
            raise InputError("input.error.out_of_range", option=option, value=shown, lo=lo, hi=hi)
        if too_small:
            raise InputError("input.error.too_small", option=option, value=shown, lo=lo)
        raise InputError("input.error.too_large", option=option, value=shown, hi=hi)
    return value


def _integer(token: str, option: str) -> int:
    """One trimmed, non-blank integer token (no bounds)."""
    match = _INT.fullmatch(token)
    if match is None:
        raise InputError("input.error.not_an_integer", option=option, value=excerpt(token))
    return _number(match[1], match[2], token, option)


def parse_int(text: str | None, *, option: str, lo: int | None = None, hi: int | None = None) -> int:
    """``"12"``, ``"+3"``, ``"-5"``, ``"−5"`` → an int within ``lo..hi`` (either bound optional)."""
    if text is not None:
        _refuse_long(text, option)
    if text is None or _blank(text):
        raise InputError("input.error.empty", option=option)
    token = text.strip()
    return _bounded(_integer(token, option), token, option, lo, hi)


def optional_int(
    text: str | None, *, option: str, lo: int | None = None, hi: int | None = None
) -> int | None:
    """:func:`parse_int`, except that nothing typed (None or blank) is None."""
    if text is not None:
        _refuse_long(text, option)
    if _blank(text):
        return None
    return parse_int(text, option=option, lo=lo, hi=hi)


def is_digits(text: str, most: int = MAX_DIGITS) -> bool:
    """1 to ``most`` ASCII digits, no sign (``"²".isdigit()`` is true, yet ``int("²")`` fails)."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def is_int(text: str) -> bool:
    """Whether ``text`` is an integer of the grammar (any value, no bounds); never raises."""
    if len(text) > MAX_TEXT:
        return False
    match = _INT.fullmatch(text.strip())
    return match is not None and len(match[2]) <= MAX_DIGITS


def parse_modifier(text: str | None, *, option: str, lo: int = -200, hi: int = 200) -> int:
    """``"+10"``, ``"-10 %"``, ``"−10"``, ``"mod:+10%"``, ``"MOD : -5"`` → an int within ``lo..hi``."""
    if text is not None:
        _refuse_long(text, option)
    if text is None or _blank(text):
        raise InputError("input.error.empty", option=option)
    token = " ".join(text.split())
    match = _MODIFIER.fullmatch(token)
    if match is None:
        raise InputError("input.error.not_a_modifier", option=option, value=excerpt(token))
    return _bounded(_number(match[1], match[2], token, option), token, option, lo, hi)


def optional_modifier(text: str | None, *, option: str, lo: int = -200, hi: int = 200) -> int | None:
    """:func:`parse_modifier`, except that nothing typed (None or blank) is None."""
    if text is not None:
        _refuse_long(text, option)
    if _blank(text):
        return None
    return parse_modifier(text, option=option, lo=lo, hi=hi)


def _tokens(text: str) -> list[str]:
    return [part for part in _SEPARATORS.split(text) if part]


def parse_rolls(
    text: str | None, *, option: str, sides: int = 100, limit: int = 30, low: int = 1
) -> list[int]:
    """Dice rolled by hand: ``"12 5 18"``, ``"12,5,18"``, ``"12, 5; 18"``, ``"12/5/18"`` → ``[12, 5, 18]``.

    Nothing typed is ``[]``. Each die has 1 to 3 digits and lies within ``low..sides``; on a d100,
    ``0``, ``00`` and ``000`` read as 100 (the percentile dice both showing 0).
    """
    if text is None:
        return []
    _refuse_long(text, option)
    values: list[int] = []
    for token in _tokens(text):
        if len(values) == limit:
            raise InputError("input.error.too_many_rolls", option=option, value=excerpt(text), max=limit)
        if _ROLL.fullmatch(token) is None or len(token) > MAX_ROLL_DIGITS:
            raise InputError("input.error.not_a_roll", option=option, value=excerpt(token))
        value = int(token)
        if sides == 100 and value == 0:
            value = 100
        if not low <= value <= sides:
            raise InputError(
                "input.error.roll_range", option=option, value=excerpt(token), lo=low, sides=sides
            )
        values.append(value)
    return values


def parse_int_list(text: str | None, *, option: str, lo: int, hi: int, limit: int) -> list[int]:
    """Integers that are not dice: ``"3 -5 +12"`` (separators as for :func:`parse_rolls`) → ``[3, -5, 12]``.

    Nothing typed is ``[]``; each value follows :func:`parse_int` and lies within ``lo..hi``.
    """
    if text is None:
        return []
    _refuse_long(text, option)
    values: list[int] = []
    for token in _tokens(text):
        if len(values) == limit:
            raise InputError("input.error.too_many_values", option=option, value=excerpt(text), max=limit)
        values.append(_bounded(_integer(token, option), token, option, lo, hi))
    return values


def _fold(name: str) -> str:
    """Case- and accent-insensitive form of a name (``"Élodie"`` and ``"elodie"`` are the same)."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def parse_named_rolls(
    text: str | None, *, option: str, sides: int, limit: int = 30, names: int = 50
) -> list[tuple[str, list[int]]]:
    """``"Albert: 12 5 18; Gobelin 1: 3 4 5"`` → ``[("Albert", [12, 5, 18]), ("Gobelin 1", [3, 4, 5])]``.

    Entries are separated by ``;`` or new lines, a name from its dice by ``:`` or ``=``; names are
    trimmed (inner spaces collapsed), 1 to 64 characters, unique regardless of case and accents; the
    dice of each entry are read with :func:`parse_rolls`. Nothing typed is ``[]``.
    """
    if text is None:
        return []
    _refuse_long(text, option, MAX_NAMED_TEXT)
    out: list[tuple[str, list[int]]] = []
    seen: set[str] = set()
    for entry in _ENTRIES.split(text):
        if not entry.strip():
            continue
        if len(out) == names:
            raise InputError("input.error.too_many_names", option=option, value=excerpt(text), max=names)
        separator = _NAME_SEPARATOR.search(entry)
        name = " ".join(entry[: separator.start()].split()) if separator else ""
        if separator is None or not name:
            raise InputError("input.error.named_rolls_syntax", option=option, value=excerpt(entry))
        if len(name) > MAX_NAME:
            raise InputError("input.error.too_long", option=option, value=excerpt(name), max=MAX_NAME)
        folded = _fold(name)
        if folded in seen:
            raise InputError("input.error.duplicate_name", option=option, value=excerpt(name))
        seen.add(folded)
        out.append((name, parse_rolls(entry[separator.end() :], option=option, sides=sides, limit=limit)))
    return out
