"""Dice engine: parse and roll expressions like ``3d20+56``, ``2d10kh1``, ``1d6!``, ``10d10>7``.

Pure core (standard library only); the random source is passed in. The syntax and its readings
are documented in :mod:`bot.rules.dice.syntax`, the limits in :mod:`bot.rules.dice.errors`.
"""

from .engine import DiceGroupResult, Die, RollResult, roll
from .errors import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_DIGITS,
    MAX_EXPLOSIONS,
    MAX_GROUP_OPERATIONS,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_REROLLS,
    MAX_RESULT,
    MAX_SIDES,
    MAX_TERMS,
    DiceError,
)
from .manual import ManualDice
from .syntax import Expression, parse

__all__ = [
    "MAX_DEPTH",
    "MAX_DICE",
    "MAX_DIGITS",
    "MAX_EXPLOSIONS",
    "MAX_GROUP_OPERATIONS",
    "MAX_LABEL",
    "MAX_LENGTH",
    "MAX_REROLLS",
    "MAX_RESULT",
    "MAX_SIDES",
    "MAX_TERMS",
    "DiceError",
    "DiceGroupResult",
    "Die",
    "Expression",
    "ManualDice",
    "RollResult",
    "parse",
    "roll",
]
