"""The `ogl` free attacks (``/manoeuvre riposte``, ``/manoeuvre deux-armes utilisation:attaque``)
on an ally ask first, like ``/combat attaque`` (issue 18, :mod:`bot.services.fights.sides`): nothing
is rolled or spent until « Confirmer », whose button (``oglfree:<n>:<kind>``) runs the stored
request again through every check; « Annuler » is the shared ``ask:<n>:no``."""

from __future__ import annotations

from typing import Final

from bot.rules.combat.state import Combatant
from bot.services.fights._core import Doc, FightOutcome, FightRefusal, Scope, parse_dice
from bot.services.fights.attacks import AttackInput
from bot.services.fights.sides import ask_friendly_fire, take_ask
from bot.services.fights.systems import ogl_wounds

BUTTON: Final = "oglfree"  # melee:fight:<fight>:oglfree:<ask number>:<kind>
COUNTER: Final = "counter"
OFF_HAND: Final = "off_hand"
KINDS: Final = (COUNTER, OFF_HAND)


def on_ally(c: Combatant, foe: Combatant) -> bool:
    return foe.id != c.id and c.allied_with(foe) and not foe.has("dead")


def question(
    scope: Scope, doc: Doc, c: Combatant, foe: Combatant, request: AttackInput, kind: str
) -> FightOutcome:
    """« Confirmer » / « Annuler » before a free attack on an ally (the request stored, nothing spent).
    What was typed badly (no location, bad dice) is refused now, not after the answer."""
    ogl_wounds.location_request(request.location)
    parse_dice(request.damage, option="damage", sides=100, limit=10)
    parse_dice(request.effects, option="effects", sides=20, limit=10)
    return ask_friendly_fire(scope, doc, c, foe, request, kind=f"ogl_{kind}", confirm=(BUTTON, kind))


def take(scope: Scope, doc: Doc, number: int, kind: str) -> AttackInput:
    """The stored request of the question ``number`` (removed); refused when answered already, not
    the caller's or of another kind."""
    stored = take_ask(scope, doc, number)
    if stored["kind"] != f"ogl_{kind}":
        raise FightRefusal("combat.side.error.answered")
    return AttackInput(**stored["input"])
