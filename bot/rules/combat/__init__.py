"""The pure `renove` combat core: combat WS, initiative, attack, defence, damage, armour, criticals,
effects and a small serialisable fight state. Tables come in as documents
(:meth:`CombatTables.from_documents`); every roll can be typed by hand instead of drawn.
"""
