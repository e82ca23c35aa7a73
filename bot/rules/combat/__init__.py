"""What the four systems' fights share: the serialisable fight state (:mod:`.state`), conditions and
effects (:mod:`.effects`), initiative slots (:mod:`.initiative`), the critical and weapon tables
(:mod:`.tables`), dice typed by hand then drawn (:mod:`.dicefeed`), refusals and labelled modifiers
(:mod:`.basics`) and the helpers the other systems' cores use (:mod:`.common`). The `renove` combat
core itself (combat WS, attack, parry, dodge, damage, armour, criticals) is :mod:`bot.rules.renove`.
Tables come in as documents (:meth:`.tables.CombatTables.from_documents`); every roll can be typed by
hand instead of drawn.
"""
