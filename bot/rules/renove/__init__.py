"""`renove` — *Rénovation approfondie des règles de Warhammer JDR* (seed 000), the default system.

:mod:`.checks` (d100 tests, °R/°E), :mod:`.attack` (combat WS, attack, parry, dodge), :mod:`.damage`
(damage, armour, criticals, parry side effects), and the seed's other rules: :mod:`.chase`,
:mod:`.infection`, :mod:`.tavern`, :mod:`.interrogation`, :mod:`.fortune`, and the duel simulator
(:mod:`.simulation`).
"""
