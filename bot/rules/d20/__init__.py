"""`d20` — a generic d20 roll-under system with margins (seed 003).

:mod:`.checks` (its tests) and :mod:`.combat` (its fights).
"""
