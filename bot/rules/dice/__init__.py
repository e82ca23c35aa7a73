"""Dice engine: parse and roll expressions like ``3d20+56``, ``2d10kh1``, ``1d6!``, ``10d10>7``.

Pure core (standard library only); the random source is passed in. The syntax and its readings
are documented in :mod:`bot.rules.dice.syntax`, the limits in :mod:`bot.rules.dice.errors`.
"""
