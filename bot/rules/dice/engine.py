"""Rolling a parsed expression: results (frozen dataclasses), rendering and the hot path.

The random source is always passed in (``random.Random``, :class:`ManualDice`, a test double).
Every die costs one ``randint(1, sides)`` call, and the calls are bounded: the dice requested
(``MAX_DICE``, checked at parse time) plus ``MAX_EXPLOSIONS`` plus ``MAX_REROLLS``.

Speed notes (the benchmark is ``benchmarks/bench_dice.py``):

* results are frozen dataclasses whose ``__init__`` is written by hand with slot setters, because
  the generated frozen ``__init__`` costs about twice as much;
* dice are immutable, so identical :class:`Die` objects (and their rendering) are shared through a
  bounded cache instead of being rebuilt for every roll;
* ``random.Random.randint`` goes through two Python-level calls per die. For an exact
  ``random.Random`` the engine draws with its public ``getrandbits`` using CPython's own rejection
  loop, which yields the very same values as ``randint(1, sides)`` for the same state; that
  equivalence is checked once at import and the shortcut is only enabled if it holds. Any other
  source (``ManualDice``, ``SystemRandom``, subclasses, test doubles) gets one ``randint(1, sides)``
  call per die, in order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..random_source import RandomSource
from .errors import MAX_EXPLOSIONS, MAX_REROLLS, MAX_RESULT, MAX_SIDES, DiceError
from .syntax import (
    Chain,
    Dice,
    Explode,
    Expression,
    Filter,
    Group,
    KeepDrop,
    Negate,
    Node,
    Number,
    Reroll,
    parse,
)

__all__ = ["DiceGroupResult", "Die", "RollResult", "roll"]


def _setters(cls: type, *names: str) -> tuple[Callable[[object, object], None], ...]:
    """Slot descriptors' ``__set__``: assigning through them bypasses the frozen ``__setattr__``."""
    slots: dict[str, Any] = dict(vars(cls))
    return tuple(slots[name].__set__ for name in names)


@dataclass(frozen=True, slots=True, init=False)
class Die:
    value: int
    kept: bool = True
    exploded: bool = False  # this die triggered an explosion
    from_explosion: bool = False  # this die was added by an explosion
    rerolled: bool = False  # this die was replaced by a reroll (and is therefore not kept)
    success: bool | None = None  # None when the group counts no successes, or the die is not kept

    def __init__(
        self,
        value: int,
        kept: bool = True,
        exploded: bool = False,
        from_explosion: bool = False,
        rerolled: bool = False,
        success: bool | None = None,
    ) -> None:
        _d_value(self, value)
        _d_kept(self, kept)
        _d_exploded(self, exploded)
        _d_from_explosion(self, from_explosion)
        _d_rerolled(self, rerolled)
        _d_success(self, success)

    def to_dict(self) -> dict[str, object]:
        return {
            "value": self.value,
            "kept": self.kept,
            "exploded": self.exploded,
            "from_explosion": self.from_explosion,
            "rerolled": self.rerolled,
            "success": self.success,
        }


(_d_value, _d_kept, _d_exploded, _d_from_explosion, _d_rerolled, _d_success) = _setters(
    Die, "value", "kept", "exploded", "from_explosion", "rerolled", "success"
)


@dataclass(frozen=True, slots=True, init=False)
class DiceGroupResult:
    count: int  # dice requested
    sides: int
    dice: tuple[Die, ...]  # every die rolled, in order; explosion/reroll dice follow their origin
    operations: str  # normalised modifiers, e.g. "kh1", "!", "r1>7"; "" for plain dice
    total: int  # sum of kept dice, or the number of successes when the group counts them
    successes: int | None
    expression: str  # e.g. "2d10kh1"
    rendered: str  # e.g. "2d10kh1 (~~3~~, 8)"

    def __init__(
        self,
        count: int,
        sides: int,
        dice: tuple[Die, ...],
        operations: str,
        total: int,
        successes: int | None,
        expression: str,
        rendered: str,
    ) -> None:
        _g_count(self, count)
        _g_sides(self, sides)
        _g_dice(self, dice)
        _g_operations(self, operations)
        _g_total(self, total)
        _g_successes(self, successes)
        _g_expression(self, expression)
        _g_rendered(self, rendered)

    def to_dict(self) -> dict[str, object]:
        return {
            "expression": self.expression,
            "count": self.count,
            "sides": self.sides,
            "operations": self.operations,
            "total": self.total,
            "successes": self.successes,
            "dice": [die.to_dict() for die in self.dice],
        }


(_g_count, _g_sides, _g_dice, _g_operations, _g_total, _g_successes, _g_expression, _g_rendered) = _setters(
    DiceGroupResult, "count", "sides", "dice", "operations", "total", "successes", "expression", "rendered"
)


@dataclass(frozen=True, slots=True, init=False)
class RollResult:
    total: int
    expression: str  # normalised, e.g. "3d20 + 56"
    label: str | None
    groups: tuple[DiceGroupResult, ...]  # in order of appearance
    successes: int | None  # summed over the groups that count successes; None if none does
    # Markdown: "3d20 (12, 5, 18) + 56 = 91"; dropped or rerolled dice ~~struck~~, exploding dice
    # followed by "!", successful dice **bold**. The label is not included.
    rendered: str

    def __init__(
        self,
        total: int,
        expression: str,
        label: str | None,
        groups: tuple[DiceGroupResult, ...],
        successes: int | None,
        rendered: str,
    ) -> None:
        _r_total(self, total)
        _r_expression(self, expression)
        _r_label(self, label)
        _r_groups(self, groups)
        _r_successes(self, successes)
        _r_rendered(self, rendered)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready description with every die."""
        return {
            "total": self.total,
            "expression": self.expression,
            "label": self.label,
            "successes": self.successes,
            "rendered": self.rendered,
            "groups": [group.to_dict() for group in self.groups],
        }


(_r_total, _r_expression, _r_label, _r_groups, _r_successes, _r_rendered) = _setters(
    RollResult, "total", "expression", "label", "groups", "successes", "rendered"
)

# Die state while modifiers apply, as bits of an int; a die's cache code is value * 64 + bits.
_KEPT, _EXPLODED, _FROM_EXPLOSION, _REROLLED, _MISS, _HIT = 1, 2, 4, 8, 16, 32
_CACHE_LIMIT = 100_000  # entries; bounds memory whatever dice are rolled


class _PlainDice(dict[int, Die]):
    """Kept, unmodified dice by value."""

    def __missing__(self, value: int) -> Die:
        die = Die(value)
        if 1 <= value <= MAX_SIDES:
            self[value] = die
        return die


def _describe(code: int) -> tuple[Die, str]:
    """The die for a code (value * 64 + state bits) and its Markdown; cached by the two dicts below."""
    value, bits = code >> 6, code & 63
    text = f"{value}!" if bits & _EXPLODED else str(value)
    if bits & _HIT:
        text = f"**{text}**"
    if not bits & _KEPT:
        text = f"~~{text}~~"
    success = None if not bits & (_HIT | _MISS) else bool(bits & _HIT)
    kept, exploded, from_explosion = bool(bits & _KEPT), bool(bits & _EXPLODED), bool(bits & _FROM_EXPLOSION)
    die = Die(value, kept, exploded, from_explosion, bool(bits & _REROLLED), success)
    if 1 <= value <= MAX_SIDES and len(_CODED_DICE) < _CACHE_LIMIT:
        _CODED_DICE[code] = die
        _CODED_TEXT[code] = text
    return die, text


class _CodedDice(dict[int, Die]):
    def __missing__(self, code: int) -> Die:
        return _describe(code)[0]


class _CodedText(dict[int, str]):
    def __missing__(self, code: int) -> str:
        return _describe(code)[1]


_plain = _PlainDice().__getitem__
_CODED_DICE = _CodedDice()
_CODED_TEXT = _CodedText()
_coded_die = _CODED_DICE.__getitem__
_coded_text = _CODED_TEXT.__getitem__


# draw(count, sides) -> `count` values in 1..sides, in the order the source produces them.
_Draw = Callable[[int, int], list[int]]


def _randint_draw(randint: Callable[[int, int], int]) -> _Draw:
    def draw(count: int, sides: int) -> list[int]:
        if count == 1:
            return [randint(1, sides)]
        return [randint(1, sides) for _ in range(count)]

    return draw


def _bits_draw(getrandbits: Callable[[int], int]) -> _Draw:
    # CPython's randint(1, n) is 1 + _randbelow(n): draw n.bit_length() bits, reject values >= n.
    def draw(count: int, sides: int) -> list[int]:
        k = sides.bit_length()
        if count == 1:
            r = getrandbits(k)
            while r >= sides:
                r = getrandbits(k)
            return [r + 1]
        values: list[int] = []
        append = values.append
        for _ in range(count):
            r = getrandbits(k)
            while r >= sides:
                r = getrandbits(k)
            append(r + 1)
        return values

    return draw


def _bits_draw_matches_randint() -> bool:
    reference, candidate = random.Random(20240611), random.Random(20240611)
    draw = _bits_draw(candidate.getrandbits)
    for sides in (1, 2, 3, 6, 8, 10, 20, 100, 1000, 10_000):
        for count in (1, 7):
            if draw(count, sides) != [reference.randint(1, sides) for _ in range(count)]:
                return False
    return reference.getstate() == candidate.getstate()


_BITS_DRAW_OK = _bits_draw_matches_randint()


def _drawer(rng: RandomSource) -> _Draw:
    if _BITS_DRAW_OK and type(rng) is random.Random:
        return _bits_draw(rng.getrandbits)
    return _randint_draw(rng.randint)


def _roll_plain(node: Dice, draw: _Draw) -> DiceGroupResult:
    sides = node.sides
    if node.count == 1:
        value = draw(1, sides)[0]
        return DiceGroupResult(
            1, sides, (_plain(value),), "", value, None, node.text, f"{node.text} ({value})"
        )
    values = draw(node.count, sides)
    return DiceGroupResult(
        node.count,
        sides,
        tuple(map(_plain, values)),
        "",
        sum(values),
        None,
        node.text,
        f"{node.text} ({', '.join(map(str, values))})",
    )


def _roll_keep(node: Dice, keep: KeepDrop, draw: _Draw) -> DiceGroupResult:
    """One keep/drop and nothing else (2d10kh1, 4d6kh3): same result as :func:`_roll_modified`."""
    count = node.count
    values = draw(count, node.sides)
    kind = keep.kind
    # sorted() is stable (also with reverse=True): among equal values the earlier die wins.
    order = sorted(range(count), key=values.__getitem__, reverse=kind[1] == "h")
    dropped = order[keep.count :] if kind[0] == "k" else order[: keep.count]
    codes = [v * 64 + _KEPT for v in values]
    total = sum(values)
    for i in dropped:
        codes[i] -= _KEPT
        total -= values[i]
    return DiceGroupResult(
        count,
        node.sides,
        tuple(map(_coded_die, codes)),
        node.operations_text,
        total,
        None,
        node.text,
        f"{node.text} ({', '.join(map(_coded_text, codes))})",
    )


def _roll_modified(node: Dice, draw: _Draw, budget: list[int]) -> DiceGroupResult:
    """``budget`` is [explosions left, rerolls left] for the whole expression."""
    sides = node.sides
    values = draw(node.count, sides)
    bits = [_KEPT] * node.count
    for operation in node.operations:
        if isinstance(operation, KeepDrop):
            kind = operation.kind
            order = [i for i, b in enumerate(bits) if b & _KEPT]
            # list.sort is stable (also with reverse=True): among equal values the earlier die wins.
            order.sort(key=values.__getitem__, reverse=kind[1] == "h")
            for i in order[operation.count :] if kind[0] == "k" else order[: operation.count]:
                bits[i] &= ~_KEPT
            continue
        lo, hi = operation.condition.lo, operation.condition.hi
        if isinstance(operation, Filter):
            keep = operation.keep
            for i, b in enumerate(bits):
                if b & _KEPT and (lo <= values[i] <= hi) is not keep:
                    bits[i] = b & ~_KEPT
            continue
        # Explode or reroll: most rolls trigger neither, so look for a first matching die before
        # rebuilding the lists.
        for start, v in enumerate(values):
            if lo <= v <= hi and bits[start] & _KEPT:
                break
        else:
            continue
        new_values = values[:start]
        new_bits = bits[:start]
        if isinstance(operation, Explode):
            for i in range(start, len(values)):
                v, b = values[i], bits[i]
                while b & _KEPT and lo <= v <= hi:
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise DiceError("dice.error.too_many_explosions", {"limit": MAX_EXPLOSIONS})
                    new_values.append(v)
                    new_bits.append(b | _EXPLODED)
                    v = draw(1, sides)[0]
                    b = _KEPT | _FROM_EXPLOSION
                new_values.append(v)
                new_bits.append(b)
        else:
            assert isinstance(operation, Reroll)
            recursive = operation.recursive
            for i in range(start, len(values)):
                v, b = values[i], bits[i]
                if b & _KEPT and lo <= v <= hi:
                    # The replacement keeps the explosion origin of the die it replaces.
                    origin = b & _FROM_EXPLOSION
                    while True:
                        budget[1] -= 1
                        if budget[1] < 0:
                            raise DiceError("dice.error.too_many_rerolls", {"limit": MAX_REROLLS})
                        new_values.append(v)
                        new_bits.append((b & ~_KEPT) | _REROLLED)
                        v = draw(1, sides)[0]
                        b = _KEPT | origin
                        if not (recursive and lo <= v <= hi):
                            break
                new_values.append(v)
                new_bits.append(b)
        values, bits = new_values, new_bits

    success = node.success
    successes: int | None = None
    total = 0
    codes: list[int] = []
    append = codes.append
    if success is None:
        for v, b in zip(values, bits, strict=True):
            if b & _KEPT:
                total += v
            append(v * 64 + b)
    else:
        lo, hi = success.lo, success.hi
        for v, b in zip(values, bits, strict=True):
            if not b & _KEPT:
                append(v * 64 + b)
            elif lo <= v <= hi:
                total += 1
                append(v * 64 + b + _HIT)
            else:
                append(v * 64 + b + _MISS)
        successes = total
    return DiceGroupResult(
        node.count,
        sides,
        tuple(map(_coded_die, codes)),
        node.operations_text,
        total,
        successes,
        node.text,
        f"{node.text} ({', '.join(map(_coded_text, codes))})",
    )


def _eval(node: Node, draw: _Draw, budget: list[int], groups: list[DiceGroupResult]) -> tuple[int, str]:
    """Value and rendering of ``node``; recursion depth is bounded by the parser's limits."""
    if type(node) is Dice:
        if node.plain:
            group = _roll_plain(node, draw)
        elif node.single_keep is not None:
            group = _roll_keep(node, node.single_keep, draw)
        else:
            group = _roll_modified(node, draw, budget)
        groups.append(group)
        return group.total, group.rendered
    if type(node) is Number:
        return node.value, node.text
    if type(node) is Chain:
        value, text = _eval(node.first, draw, budget, groups)
        parts = [text]
        for op, operand, position in node.rest:
            right, text = _eval(operand, draw, budget, groups)
            parts.append(op)
            parts.append(text)
            if op == "+":
                value += right
            elif op == "-":
                value -= right
            elif op == "*":
                value *= right
                if not -MAX_RESULT <= value <= MAX_RESULT:
                    raise DiceError("dice.error.result_too_large", {"limit": MAX_RESULT}, position)
            else:
                if right == 0:
                    raise DiceError("dice.error.division_by_zero", {"column": position + 1}, position)
                value //= right  # floor division: rounds down, also for negative values
        return value, " ".join(parts)
    if type(node) is Group:
        value, text = _eval(node.inner, draw, budget, groups)
        return value, f"({text})"
    assert isinstance(node, Negate)
    value, text = _eval(node.operand, draw, budget, groups)
    return -value, f"-{text}"


def roll(expr: str | Expression, rng: RandomSource) -> RollResult:
    """Roll ``expr`` (text or a parsed :class:`Expression`) with ``rng``.

    Raises :class:`DiceError` for bad input, exceeded limits, or a :class:`ManualDice` that runs out
    of values or holds one outside the die's faces.
    """
    expression = parse(expr) if isinstance(expr, str) else expr
    draw = _drawer(rng)
    simple = expression.simple
    if simple is not None:
        # NdM, NdM+K, NdM-K: same dice, same order and same text as the general path (tested).
        count, sides, sign, constant = simple
        if count == 1:
            subtotal = draw(1, sides)[0]
            dice: tuple[Die, ...] = (_plain(subtotal),)
            group_rendered = f"1d{sides} ({subtotal})"
        else:
            values = draw(count, sides)
            dice = tuple(map(_plain, values))
            subtotal = sum(values)
            group_rendered = f"{count}d{sides} ({', '.join(map(str, values))})"
        if sign == "+":
            total = subtotal + constant
            rendered = f"{group_rendered} + {constant} = {total}"
        elif sign == "-":
            total = subtotal - constant
            rendered = f"{group_rendered} - {constant} = {total}"
        else:
            total = subtotal
            rendered = f"{group_rendered} = {total}"
        group = DiceGroupResult(count, sides, dice, "", subtotal, None, f"{count}d{sides}", group_rendered)
        return RollResult(total, expression.text, expression.label, (group,), None, rendered)

    root = expression.root
    if type(root) is Dice:
        # A lone dice group (2d10kh1, 1d6!, 10d10>7): no tree to walk.
        if root.single_keep is not None:
            group = _roll_keep(root, root.single_keep, draw)
        else:
            group = _roll_modified(root, draw, [MAX_EXPLOSIONS, MAX_REROLLS])
        total = group.total
        return RollResult(
            total, expression.text, expression.label, (group,), group.successes, f"{group.rendered} = {total}"
        )

    groups: list[DiceGroupResult] = []
    total, text = _eval(expression.root, draw, [MAX_EXPLOSIONS, MAX_REROLLS], groups)
    if not -MAX_RESULT <= total <= MAX_RESULT:
        raise DiceError("dice.error.result_too_large", {"limit": MAX_RESULT})
    successes: int | None = None
    for group in groups:
        if group.successes is not None:
            successes = (successes or 0) + group.successes
    return RollResult(total, expression.text, expression.label, tuple(groups), successes, f"{text} = {total}")
