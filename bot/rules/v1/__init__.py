"""`v1` — *Compléments aux règles Warhammer (v1)* (seed 001): WFRP 1e complements.

:mod:`.checks` (its tests) and :mod:`.combat` (its fights).
"""
