"""JSON from users' files, bounded before it is parsed: a hostile document (a 990-level nesting, a
5 000-digit number, ``NaN``) is refused with what was wrong, never a ``RecursionError`` or a
``ValueError`` deep in the parser."""

from __future__ import annotations

import json
import re
from typing import Any, Final

MAX_DEPTH: Final = 32  # sheets and house rules nest 5-6 levels; far below Python's recursion limit
MAX_NUMBER_CHARS: Final = 24  # a 64-bit integer has 20 digits; a float fits with its sign and exponent

_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_BRACKET = re.compile(r"[\[\]{}]")


class JsonLimit(ValueError):
    """The document passes a bound: ``kind`` is ``depth``, ``number`` or ``constant``."""

    def __init__(self, kind: str, limit: int, sample: str = "") -> None:
        super().__init__(kind, limit, sample)
        self.kind, self.limit, self.sample = kind, limit, sample


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects, brackets inside strings not counted."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonLimit("number", MAX_NUMBER_CHARS, text[:12] + "…")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonLimit("number", MAX_NUMBER_CHARS, text[:12] + "…")
    return float(text)


def _constant(text: str) -> Any:
    raise JsonLimit("constant", 0, text)


def loads_bounded(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` with the bounds above; raises :class:`JsonLimit` or ``json.JSONDecodeError``."""
    if nesting_depth(text) > max_depth:
        raise JsonLimit("depth", max_depth)
    return json.loads(text, parse_int=_integer, parse_float=_float, parse_constant=_constant)
