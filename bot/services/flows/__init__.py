"""The seed's table flows, one module each: :mod:`.interrogation`, :mod:`.chase`, :mod:`.infection`,
:mod:`.tavern`, :mod:`.fortune`; what they share (the transaction, refusals, hand-typed d100s, the
caller's character) is :mod:`.common`.
"""
