"""The fight adapters of the rule systems other than `renove`, one module each, named after it.

Importing this package registers every adapter with :mod:`bot.services.fights.registry`; nothing
else imports it back. `d20` special fire (``/tir``) and the `ogl` manoeuvres (``/manoeuvre``) live
beside their system's adapter (:mod:`.d20_fire`, :mod:`.ogl_manoeuvres`).
"""

from bot.services.fights._core import OTHER_RULESETS
from bot.services.fights.registry import register, registered
from bot.services.fights.systems import d20, ogl, v1

register("v1", v1)
register("d20", d20)
register("ogl", ogl)


def check_complete() -> None:
    """Start-up check: every ruleset a fight may be opened in has its adapter registered."""
    missing = set(OTHER_RULESETS) - registered()
    if missing:
        raise RuntimeError(f"fight systems without an adapter: {sorted(missing)}")
