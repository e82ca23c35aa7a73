"""Dice expression syntax: tokenizer, syntax tree (frozen dataclasses) and a hand-written parser.

Grammar (case-insensitive, whitespace allowed between tokens)::

    sum       := product (("+" | "-") product)*
    product   := unary (("*" | "/") unary)*
    unary     := ("-" | "+") unary | primary      (never two signs in a row: "--5", "+-5" refused)
    primary   := "(" sum ")" | dice | INTEGER
    dice      := [INTEGER] "d" (INTEGER | "%") modifier* [condition]
    modifier  := ("kh" | "kl" | "dh" | "dl") [INTEGER]       keep/drop highest/lowest N (default 1)
               | "k" INTEGER                                  keep highest N
               | ("k" | "d") condition                        keep / drop the dice matching
               | ("r" | "rr") (INTEGER | condition)           reroll once / until it no longer matches
               | "!" [INTEGER | condition] | "e" (INTEGER | condition)   explode
    condition := (">" | ">=" | "<" | "<=" | "=") INTEGER

Readings (documented choices):

* ``/`` is integer division rounding down (``7/2`` = 3, ``-7/2`` = -4).
* ``rN``/``rrN`` reroll dice *equal* to N; ``r<N``, ``r>=N``… use the comparison. ``r`` rerolls a
  matching die once and keeps the new value even if it matches again; ``rr`` rerolls until it no
  longer matches.
* ``!`` alone explodes on the maximum face; ``!N`` and ``eN`` explode on N *or more*; ``!>N``,
  ``!=N``, ``e=N``… use the comparison. Each explosion rolls one extra die, which may explode again.
* Modifiers apply in the order written, each to the dice still kept (``4d6r1kh3`` rerolls 1s then
  keeps the best three). A trailing condition (``10d10>7``) counts successes among kept dice: the
  group's value becomes that count. It must come last.
* A label follows ``#`` (``1d100 # Perception``) or is a trailing ``[label]``; it is trimmed and cut
  to 100 characters, never parsed.
* ``d%`` is ``1d100``; ``-`` (U+2212), ``×`` and ``÷`` are read as ``-``, ``*`` and ``/``.
* Draw order (what :class:`ManualDice` values feed): groups left to right; in a group, the requested
  dice first, then each modifier's extra dice (explosions, rerolls) in die order. In results an
  extra die is listed right after the die that caused it.
* ``1d1!``, ``1d6!>0``, ``1d6rr<7`` (every face triggers) are errors rather than capped loops.

The parser recurses only through parentheses and unary signs, and counts that depth itself
(``MAX_DEPTH``), so Python's recursion limit is never reached whatever the input.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from functools import lru_cache

from .errors import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_DIGITS,
    MAX_GROUP_OPERATIONS,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_SIDES,
    MAX_TERMS,
    DiceError,
)

__all__ = [
    "Chain",
    "Condition",
    "Dice",
    "Explode",
    "Expression",
    "Filter",
    "Group",
    "KeepDrop",
    "Negate",
    "Node",
    "Number",
    "Operation",
    "Reroll",
    "parse",
    "split_label",
]

# Bounds that stand for "no limit" in a condition; any die value lies strictly inside them.
_BELOW = -(10**12)
_ABOVE = 10**12


# --- syntax tree -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Condition:
    """A comparison against a die value, stored as the inclusive range ``lo..hi`` it accepts."""

    op: str  # ">", ">=", "<", "<=", "="
    value: int
    lo: int
    hi: int

    @property
    def text(self) -> str:
        return f"{self.op}{self.value}"

    def matches_every_face(self, sides: int) -> bool:
        return self.lo <= 1 and self.hi >= sides


@dataclass(frozen=True, slots=True)
class KeepDrop:
    """``kh``/``kl``/``dh``/``dl`` N: keep or drop the N highest or lowest of the kept dice."""

    kind: str  # "kh", "kl", "dh", "dl"
    count: int
    text: str


@dataclass(frozen=True, slots=True)
class Filter:
    """``k>N`` / ``d<N``…: keep only, or drop, the kept dice matching ``condition``."""

    keep: bool
    condition: Condition
    text: str


@dataclass(frozen=True, slots=True)
class Reroll:
    """``r`` (once) or ``rr`` (recursive) on kept dice matching ``condition``."""

    condition: Condition
    recursive: bool
    text: str


@dataclass(frozen=True, slots=True)
class Explode:
    """``!`` / ``e``: each kept die matching ``condition`` adds one die, which may explode again."""

    condition: Condition
    text: str


Operation = KeepDrop | Filter | Reroll | Explode


@dataclass(frozen=True, slots=True)
class Number:
    value: int
    position: int
    text: str


@dataclass(frozen=True, slots=True)
class Dice:
    count: int
    sides: int
    operations: tuple[Operation, ...]
    success: Condition | None
    position: int
    text: str  # normalised, e.g. "2d10kh1"
    operations_text: str  # e.g. "kh1" ("" for plain dice)
    plain: bool  # no modifier and no success condition: the engine's fastest path
    # The modifier when it is a single keep/drop and there is no success condition (2d10kh1,
    # 4d6kh3): the engine has a shorter path for this frequent case.
    single_keep: KeepDrop | None


@dataclass(frozen=True, slots=True)
class Group:
    """Parentheses, kept so the rendering shows them."""

    inner: Node
    position: int


@dataclass(frozen=True, slots=True)
class Negate:
    operand: Node
    position: int


@dataclass(frozen=True, slots=True)
class Chain:
    """Operands of one precedence level, left-associative: ``first (op operand)*``.

    A flat chain instead of nested binary nodes keeps ``1+1+…+1`` shallow for the evaluator.
    ``rest`` holds ``(operator, operand, operator position)``.
    """

    first: Node
    rest: tuple[tuple[str, Node, int], ...]


Node = Number | Dice | Group | Negate | Chain


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed expression: what :func:`parse` returns and :func:`roll` accepts."""

    root: Node
    text: str  # normalised, e.g. "3d20 + 56"
    label: str | None
    dice_count: int  # dice requested before explosions and rerolls
    # (count, sides, sign, constant) when the expression is exactly NdM, NdM+K or NdM-K (sign "",
    # "+" or "-"): the engine rolls those without walking the tree (same results, tested).
    simple: tuple[int, int, str, int] | None = field(default=None, compare=False)


# --- tokenizer ---------------------------------------------------------------------------------

# One-to-one mapping so that character offsets stay those of the original text.
_NORMALISE = str.maketrans(
    string.ascii_uppercase + "\u2212\u2013\u00d7\u00f7",
    string.ascii_lowercase + "--*/",
)

# Digits are spelled [0-9]: `\d` would accept other scripts' digits.
_TOKEN = re.compile(r"\s*(?:([0-9]+)|(kh|kl|dh|dl|rr|[kdre])|(>=|<=|[-+*/()%!<>=])|(\S))")

_NUM, _WORD, _SYM, _END = 1, 2, 3, 4

_Token = tuple[int, str, int]  # kind, text, position


def _tokenize(text: str, offset: int) -> list[_Token]:
    tokens: list[_Token] = []
    append = tokens.append
    match = _TOKEN.match
    pos = 0
    end = len(text)
    while pos < end:
        m = match(text, pos)
        if m is None:  # only whitespace left
            break
        kind = m.lastindex
        assert kind is not None
        start = m.start(kind)
        value = m.group(kind)
        if kind == 4:
            raise DiceError(
                "dice.error.unexpected_character",
                {"char": value, "column": offset + start + 1},
                offset + start,
            )
        if kind == _NUM and len(value) > MAX_DIGITS:
            raise DiceError(
                "dice.error.number_too_long",
                {"digits": len(value), "limit": MAX_DIGITS, "column": offset + start + 1},
                offset + start,
            )
        append((kind, value, offset + start))
        pos = m.end()
    append((_END, "", offset + len(text.rstrip())))
    return tokens


# --- parser ------------------------------------------------------------------------------------

_COMPARISONS = frozenset((">", ">=", "<", "<=", "="))
_MODIFIER_WORDS = frozenset(("kh", "kl", "dh", "dl", "k", "d", "r", "rr", "e"))


def _condition(op: str, value: int) -> Condition:
    if op == ">":
        return Condition(op, value, value + 1, _ABOVE)
    if op == ">=":
        return Condition(op, value, value, _ABOVE)
    if op == "<":
        return Condition(op, value, _BELOW, value - 1)
    if op == "<=":
        return Condition(op, value, _BELOW, value)
    return Condition(op, value, value, value)


class _Parser:
    def __init__(self, tokens: list[_Token]):
        self.tokens = tokens
        self.index = 0
        self.depth = 0
        self.terms = 0
        self.dice_total = 0

    # helpers

    def peek(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def unexpected(self, token: _Token) -> DiceError:
        kind, text, pos = token
        if kind == _END:
            return DiceError("dice.error.unexpected_end", {"column": pos + 1}, pos)
        if text == ")" and self.depth == 0:
            return DiceError("dice.error.unbalanced_parenthesis", {"column": pos + 1}, pos)
        return DiceError("dice.error.unexpected_token", {"token": text, "column": pos + 1}, pos)

    def integer(self, after: str) -> int:
        kind, text, pos = self.peek()
        if kind != _NUM:
            raise DiceError("dice.error.number_expected", {"after": after, "column": pos + 1}, pos)
        self.index += 1
        return int(text)

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise DiceError("dice.error.too_deep", {"limit": MAX_DEPTH, "column": pos + 1}, pos)

    # grammar

    def parse(self) -> Node:
        node = self.sum()
        token = self.peek()
        if token[0] != _END:
            raise self.trailing(token, node)
        return node

    def trailing(self, token: _Token, last: Node) -> DiceError:
        """The error for a token that cannot follow a complete operand."""
        kind, text, pos = token
        if (kind == _WORD and text in _MODIFIER_WORDS) or text == "!" or text in _COMPARISONS:
            while isinstance(last, Chain):
                last = last.rest[-1][1] if last.rest else last.first
            if isinstance(last, Dice) and last.success is not None:
                return DiceError("dice.error.condition_not_last", {"modifier": text, "column": pos + 1}, pos)
            return DiceError("dice.error.modifier_needs_dice", {"modifier": text, "column": pos + 1}, pos)
        return self.unexpected(token)

    def sum(self) -> Node:
        first = self.product()
        rest: list[tuple[str, Node, int]] = []
        while True:
            _, text, pos = self.peek()
            if text != "+" and text != "-":
                break
            self.index += 1
            self.single_sign()
            rest.append((text, self.product(), pos))
        return Chain(first, tuple(rest)) if rest else first

    def product(self) -> Node:
        first = self.unary()
        rest: list[tuple[str, Node, int]] = []
        while True:
            _, text, pos = self.peek()
            if text != "*" and text != "/":
                break
            self.index += 1
            rest.append((text, self.unary(), pos))
        return Chain(first, tuple(rest)) if rest else first

    def single_sign(self) -> None:
        """One sign at a time (the input grammar's rule): ``--5``, ``+-5``, ``1d20+-2`` are refused."""
        _, text, pos = self.peek()
        if text == "-" or text == "+":
            raise DiceError("dice.error.double_sign", {"column": pos + 1}, pos)

    def unary(self) -> Node:
        _, text, pos = self.peek()
        if text == "-" or text == "+":
            self.index += 1
            self.single_sign()
            self.enter(pos)
            operand = self.unary()
            self.depth -= 1
            return Negate(operand, pos) if text == "-" else operand
        return self.primary()

    def primary(self) -> Node:
        kind, text, pos = self.peek()
        if text == "(":
            self.index += 1
            self.enter(pos)
            inner = self.sum()
            self.depth -= 1
            closing = self.peek()
            if closing[1] != ")":
                if closing[0] == _END:
                    raise DiceError("dice.error.missing_parenthesis", {"column": pos + 1}, pos)
                raise self.trailing(closing, inner)
            self.index += 1
            return Group(inner, pos)
        if kind == _NUM:
            self.index += 1
            if self.peek()[1] == "d":
                self.index += 1
                return self.dice(int(text), pos)
            self.count_term(pos)
            value = int(text)
            return Number(value, pos, str(value))
        if text == "d":
            self.index += 1
            return self.dice(1, pos)
        raise self.unexpected(self.peek())

    def count_term(self, pos: int) -> None:
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise DiceError("dice.error.too_many_terms", {"limit": MAX_TERMS, "column": pos + 1}, pos)

    def dice(self, count: int, pos: int) -> Dice:
        self.count_term(pos)
        # Limits are checked as soon as the numbers are read: nothing is allocated for 10**6 dice.
        if count < 1:
            raise DiceError("dice.error.no_dice", {"column": pos + 1}, pos)
        self.dice_total += count
        if self.dice_total > MAX_DICE:
            raise DiceError(
                "dice.error.too_many_dice",
                {"count": self.dice_total, "limit": MAX_DICE, "column": pos + 1},
                pos,
            )
        sides_token = self.peek()
        if sides_token[1] == "%":
            self.index += 1
            sides = 100
        else:
            sides = self.integer("d")
        if not 1 <= sides <= MAX_SIDES:
            raise DiceError(
                "dice.error.sides_out_of_range",
                {"sides": sides, "limit": MAX_SIDES, "column": sides_token[2] + 1},
                sides_token[2],
            )
        operations: list[Operation] = []
        texts: list[str] = []
        success: Condition | None = None
        while True:
            kind, text, op_pos = self.peek()
            if not (kind == _WORD or text == "!" or text in _COMPARISONS):
                break
            if len(operations) + (success is not None) >= MAX_GROUP_OPERATIONS:
                raise DiceError(
                    "dice.error.too_many_operations",
                    {"limit": MAX_GROUP_OPERATIONS, "column": op_pos + 1},
                    op_pos,
                )
            if success is not None:
                raise DiceError(
                    "dice.error.condition_not_last", {"modifier": text, "column": op_pos + 1}, op_pos
                )
            self.index += 1
            if text in _COMPARISONS:
                success = _condition(text, self.integer(text))
                texts.append(success.text)
                continue
            operation = self.modifier(text, sides, op_pos)
            operations.append(operation)
            texts.append(operation.text)
        operations_text = "".join(texts)
        return Dice(
            count,
            sides,
            tuple(operations),
            success,
            pos,
            f"{count}d{sides}{operations_text}",
            operations_text,
            not operations and success is None,
            operations[0]
            if len(operations) == 1 and isinstance(operations[0], KeepDrop) and success is None
            else None,
        )

    def comparison(self, after: str) -> Condition | None:
        _, text, _ = self.peek()
        if text in _COMPARISONS:
            self.index += 1
            return _condition(text, self.integer(after + text))
        return None

    def modifier(self, word: str, sides: int, pos: int) -> Operation:
        if word in ("kh", "kl", "dh", "dl"):
            count = self.integer(word) if self.peek()[0] == _NUM else 1
            return KeepDrop(word, count, f"{word}{count}")
        if word == "k":
            condition = self.comparison(word)
            if condition is None:
                count = self.integer(word)
                return KeepDrop("kh", count, f"kh{count}")
            return Filter(True, condition, f"k{condition.text}")
        if word == "d":
            condition = self.comparison(word)
            if condition is None:
                _, _, at = self.peek()
                raise DiceError("dice.error.comparison_expected", {"after": word, "column": at + 1}, at)
            return Filter(False, condition, f"d{condition.text}")
        if word == "r" or word == "rr":
            condition = self.comparison(word)
            if condition is None:
                condition = _condition("=", self.integer(word))
            recursive = word == "rr"
            if recursive and condition.matches_every_face(sides):
                raise DiceError("dice.error.reroll_always", {"sides": sides, "column": pos + 1}, pos)
            shown = condition.text[1:] if condition.op == "=" else condition.text
            return Reroll(condition, recursive, f"{word}{shown}")
        # "!" or "e"
        condition = self.comparison(word)
        if condition is None:
            if word == "!" and self.peek()[0] != _NUM:
                condition = _condition("=", sides)
                shown = ""
            else:
                condition = _condition(">=", self.integer(word))
                shown = str(condition.value)
        else:
            shown = condition.text
        if condition.matches_every_face(sides):
            raise DiceError("dice.error.explode_always", {"sides": sides, "column": pos + 1}, pos)
        return Explode(condition, f"{word}{shown}")


def _render(node: Node) -> str:
    """Normalised text of a tree; depth is bounded by the parser's limits."""
    if isinstance(node, Number | Dice):
        return node.text
    if isinstance(node, Group):
        return f"({_render(node.inner)})"
    if isinstance(node, Negate):
        return f"-{_render(node.operand)}"
    parts = [_render(node.first)]
    for op, operand, _ in node.rest:
        parts.append(op)
        parts.append(_render(operand))
    return " ".join(parts)


def _simple(node: Node) -> tuple[int, int, str, int] | None:
    """(count, sides, sign, constant) for NdM, NdM+K and NdM-K with plain dice, else None."""
    if isinstance(node, Dice):
        return (node.count, node.sides, "", 0) if not node.operations and node.success is None else None
    if isinstance(node, Chain) and len(node.rest) == 1:
        op, operand, _ = node.rest[0]
        first = node.first
        if (
            isinstance(first, Dice)
            and not first.operations
            and first.success is None
            and isinstance(operand, Number)
            and op in ("+", "-")
        ):
            return (first.count, first.sides, op, operand.value)
    return None


def split_label(text: str) -> tuple[str, str | None]:
    """``"1d10+4 # Frappe"`` → ``("1d10+4 ", "Frappe")``: the expression and its trimmed label."""
    hash_at = text.find("#")
    if hash_at >= 0:
        body, label = text[:hash_at], text[hash_at + 1 :]
    else:
        stripped = text.rstrip()
        open_at = stripped.rfind("[")
        if not stripped.endswith("]") or open_at < 0:
            return text, None
        body, label = text[:open_at], stripped[open_at + 1 : -1]
    label = " ".join(label.split())[:MAX_LABEL].strip()
    return body, label or None


@lru_cache(maxsize=1024)
def _parse_body(body: str) -> tuple[Node, str, int, tuple[int, int, str, int] | None]:
    tokens = _tokenize(body.translate(_NORMALISE), 0)
    if tokens[0][0] == _END:
        raise DiceError("dice.error.empty")
    parser = _Parser(tokens)
    root = parser.parse()
    return root, _render(root), parser.dice_total, _simple(root)


@lru_cache(maxsize=1024)
def parse(text: str) -> Expression:
    """Parse ``text`` into an :class:`Expression`, raising :class:`DiceError` on bad input.

    Results are cached on the text; the expression part is cached separately so that the same
    roll under many labels parses once.
    """
    if len(text) > MAX_LENGTH:
        raise DiceError("dice.error.too_long", {"length": len(text), "limit": MAX_LENGTH})
    body, label = split_label(text)
    root, normalised, dice_count, simple = _parse_body(body)
    return Expression(root, normalised, label, dice_count, simple)
