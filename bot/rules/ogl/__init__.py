"""`ogl` — RuneQuest-like d100 combat (seed 004).

:mod:`.checks` (its tests) and :mod:`.combat` (its fights).
"""
