"""Skill and characteristic tests for the four rulesets (pure: stdlib only, random source passed in).

System-specific entry points live in :mod:`.renove`, :mod:`.v1`, :mod:`.d20` and :mod:`.ogl`;
:func:`check` dispatches a plain "base + modifiers" test by ruleset key.
"""
