"""Skill and characteristic tests for the four rulesets (pure: stdlib only, random source passed in).

What they share is :mod:`.common`; each system's own resolver is ``bot.rules.<system>.checks``;
:func:`.dispatch.check` dispatches a plain "base + modifiers" test by ruleset key.
"""
