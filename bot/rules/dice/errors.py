"""The one exception the dice engine raises for bad input, and the hard limits it enforces.

Every limit exists so that any text a player can type (Discord messages are at most a few
thousand characters) resolves in bounded time and memory, whatever it contains.
"""

from __future__ import annotations

#: Longest accepted input, label included.
MAX_LENGTH = 500
#: Dice requested by one expression, summed over its groups and checked before anything is rolled.
MAX_DICE = 1000
#: Extra dice produced by explosions in one expression; beyond it the roll fails (`too_many_explosions`)
#: rather than silently stopping, so a displayed total is never a truncated one.
MAX_EXPLOSIONS = 100
#: Extra dice produced by rerolls (``r`` and ``rr``) in one expression.
MAX_REROLLS = 1000
#: Faces of a die: 1..MAX_SIDES.
MAX_SIDES = 10_000
#: Digits of an integer literal (no 400-digit numbers).
MAX_DIGITS = 9
#: Nesting of parentheses and unary signs.
MAX_DEPTH = 20
#: Operands (numbers and dice groups) in one expression.
MAX_TERMS = 100
#: Modifiers (keep/drop/reroll/explode, success comparison included) on one dice group.
MAX_GROUP_OPERATIONS = 8
#: Labels longer than this are cut (not an error: the label is only text).
MAX_LABEL = 100
#: Largest absolute value of a result: 10**15 stays exact as a JSON double and fits a BIGINT.
MAX_RESULT = 10**15


class DiceError(Exception):
    """Bad dice input. ``key`` names a message in ``bot/i18n/locales/*/dice.json``.

    ``params`` fills the message's ``str.format`` placeholders. ``position`` is the 0-based character
    offset in the text given to :func:`parse` when the error points at a place (parse errors), so the
    command layer can draw a caret and append the ``dice.syntax_hint`` message.
    """

    def __init__(self, key: str, params: dict[str, object] | None = None, position: int | None = None):
        super().__init__(key)
        self.key = key
        self.params: dict[str, object] = params if params is not None else {}
        self.position = position

    def __str__(self) -> str:
        where = "" if self.position is None else f" at {self.position}"
        return f"{self.key}{where} {self.params}"

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the error picklable across process boundaries despite the keyword-rich constructor.
        return (DiceError, (self.key, self.params, self.position))
