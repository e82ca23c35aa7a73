"""The fight systems the shared machinery hands a fight to, looked up by ruleset.

Each rule system other than `renove` (whose loop *is* the shared machinery) has one adapter module
under :mod:`bot.services.fights.systems`, which satisfies :class:`FightSystem` and is registered by
name when :mod:`bot.services.fights.systems` is imported (the bot's start-up and the tests do). The
shared modules only ever call :func:`system_of`: they never import an adapter, so the adapters may
import the shared machinery without a circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bot.rules.combat.state import Combatant
    from bot.services.fights._core import DefenceRolls, Doc, FightOutcome, Scope
    from bot.services.fights.attacks import AttackInput
    from bot.services.fights.kit import Recruit


class FightSystem(Protocol):
    """What a rule system's fight adapter provides (a module: each name is a module-level function)."""

    def parse_options(self, text: str | None) -> dict[str, Any]: ...

    def options_line(self, scope: Scope, options: Mapping[str, Any]) -> str: ...

    def build(self, scope: Scope, doc: Doc, r: Recruit) -> tuple[Combatant, dict[str, Any]]: ...

    def profile_line(self, scope: Scope, doc: Doc, c: Combatant) -> str: ...

    def tracker_lines(self, scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]: ...

    async def new_round(self, scope: Scope, doc: Doc, dice: str | None) -> FightOutcome: ...

    def on_slot(self, scope: Scope, doc: Doc) -> list[str]: ...

    async def simple_action(
        self,
        scope: Scope,
        doc: Doc,
        action: str,
        *,
        who: str | None,
        option: str | None,
        target: str | None,
        roll: int | None,
        target_roll: int | None,
    ) -> FightOutcome: ...

    async def attack(self, scope: Scope, doc: Doc, data: AttackInput) -> FightOutcome: ...

    async def resolve(
        self,
        scope: Scope,
        doc: Doc,
        pending: Mapping[str, Any],
        choice: str,
        rolls: DefenceRolls,
        payload: dict[str, Any],
    ) -> list[str]: ...

    async def defence_chances(self, scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
        """The defences the rules allow ``pending``'s defender now, each with its chance of success
        in % (nothing rolled or spent); « encaisser » always there (0)."""
        ...

    def due_test(
        self, scope: Scope, doc: Doc, c: Combatant, prompt: Mapping[str, Any], roll: int | None
    ) -> FightOutcome: ...

    def correct_pool(
        self, scope: Scope, doc: Doc, c: Combatant, key: str, value: int
    ) -> tuple[str, int] | None: ...


_SYSTEMS: dict[str, FightSystem] = {}


def register(ruleset: str, system: FightSystem) -> None:
    _SYSTEMS[ruleset] = system


def system_of(ruleset: str) -> FightSystem:
    """The adapter of ``ruleset`` (``v1``, ``d20``, ``ogl``); a missing one is a wiring bug."""
    try:
        return _SYSTEMS[ruleset]
    except KeyError:
        raise LookupError(
            f"no fight system registered for {ruleset!r}: import bot.services.fights.systems first"
        ) from None


def registered() -> frozenset[str]:
    return frozenset(_SYSTEMS)
