"""Special actions that do not wound (`renove`, seed l. 1191-1236): what replaces the damage.

* ``deals_damage: false`` in special_actions.json (Coup assommant, Désarmement, Frappe de
  bouclier): when such an attack gets through (not parried, not dodged), no damage die, no
  critical: the action's own opposed test is rolled instead.
* *Coup assommant* (l. 1212-1219): attacker's F against the victim's E (renove opposed test, rerolls
  included); +10 % F with an Assommante weapon (l. 304), +5 % E per armour point on the zone hit
  (reading: the PA of the layers covering the whole zone; a partial layer is not rolled for);
  at range F = (weapon BF − 3) × 10. Won: the victim is stunned (« sonné ») 1d10 rounds.
  In melee it needs the talent Coups assommants.
* *Désarmement* (l. 1233-1236): opposed Ag; won: the victim drops his weapon. Needs the talent.
* *Manœuvrer* (l. 993-994): opposed CC (the combat WS of both); won: the foe is pushed
  °R × 2 m (the winner's °R) and tests Ag +20 % not to fall.
* *Frappe de bouclier* (l. 1206-1208): an opposed CC test at +10 % (the combat WS of both), not an
  attack; won: the next attack against the bashed fighter is harder to defend, −20 % to his parry
  (CC) or dodge (Ag).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.rules import opposed
from bot.rules.checks.common import CheckResult, Modifier, System
from bot.rules.combat.basics import Refusal, mod
from bot.rules.combat.tables import CombatTables, Weapon
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

STUN: Final = "coup_assommant"
DISARM: Final = "desarmement"
SHIELD_BASH: Final = "frappe_de_bouclier"
ASSOMMANTE_F: Final = 10  # « +10 % F si l'attaquant possède une arme assommante »
E_PER_PA: Final = 5  # « +5 % E par point d'armure sur la zone touchée »
FALL_AG: Final = 20  # « un test d'Ag +20 % pour ne pas tomber »
PUSH_PER_DEGREE: Final = 2  # « déplacer l'ennemi de °R X 2 mètres »


def deals_damage(tables: CombatTables, special: str | None) -> bool:
    """False for the special actions the data marks ``deals_damage: false``."""
    if not special:
        return True
    return bool(tables.special_actions.get(special, {}).get("deals_damage", True))


def talent_refusal(
    tables: CombatTables, special: str | None, talents: frozenset[str], *, ranged: bool
) -> Refusal | None:
    """The talent a special action requires (Coups assommants in melee, Désarmement)."""
    if not special:
        return None
    needed = tables.special_actions.get(special, {}).get("requires_talent")
    if not needed or (needed.get("melee_only") and ranged) or needed["id"] in talents:
        return None
    return Refusal("combat.refusal.special_needs_talent", (("special", special), ("talent", needed["id"])))


@dataclass(frozen=True, slots=True)
class SpecialTest:
    """One special action's opposed test and what it did."""

    special: str
    test: opposed.OpposedResult
    won: bool
    stunned_rounds: int | None = None
    degrees: int = 0  # the winner's °R on the last round (Manœuvrer's push)
    fall: CheckResult | None = None  # Manœuvrer: the pushed fighter's Ag +20 % test

    @property
    def metres(self) -> int:
        return self.degrees * PUSH_PER_DEGREE if self.won else 0

    @property
    def fell(self) -> bool:
        return self.fall is not None and not self.fall.success

    def to_dict(self) -> dict[str, Any]:
        return {
            "special": self.special,
            "test": self.test.to_dict(),
            "won": self.won,
            "stunned_rounds": self.stunned_rounds,
            "metres": self.metres,
            "fall": self.fall.to_dict() if self.fall else None,
            "fell": self.fell,
        }


def _run(
    a: opposed.Contestant,
    b: opposed.Contestant,
    rng: RandomSource,
    rolls: Sequence[int],
) -> opposed.OpposedResult:
    """A renove opposed test; ``rolls`` typed by hand alternate attacker, defender (then the rng)."""
    return opposed.opposed_test(
        a, b, system=System.RENOVE, rng=rng, rolls_a=list(rolls[0::2]), rolls_b=list(rolls[1::2])
    )


def _won(result: opposed.OpposedResult) -> bool:
    final = result.final
    return final is not None and final.verdict is opposed.Verdict.A


def stun_contestants(
    weapon: Weapon, attacker_f: int, defender_e: int, zone_pa: int, *, ranged: bool, weapon_bf: int = 0
) -> tuple[opposed.Contestant, opposed.Contestant]:
    base_a = (weapon_bf - 3) * 10 if ranged else attacker_f
    mods_a: tuple[Modifier, ...] = (
        (mod("stun.assommante", ASSOMMANTE_F),) if "assommante" in weapon.attributes else ()
    )
    mods_b: tuple[Modifier, ...] = (mod("stun.armour", E_PER_PA * zone_pa),) if zone_pa > 0 else ()
    label_a = "combat.modifier.stun.ranged_f" if ranged else "combat.modifier.f"
    return (
        opposed.Contestant("attacker", base_a, mods_a, base_label=label_a),
        opposed.Contestant("defender", defender_e, mods_b, base_label="combat.modifier.e"),
    )


def stun_blow(
    weapon: Weapon,
    attacker_f: int,
    defender_e: int,
    zone_pa: int,
    *,
    rng: RandomSource,
    ranged: bool = False,
    weapon_bf: int = 0,
    rolls: Sequence[int] = (),
    duration_roll: int | None = None,
) -> SpecialTest:
    """Coup assommant once the blow got through: F (+10 Assommante) against E (+5 per PA)."""
    a, b = stun_contestants(weapon, attacker_f, defender_e, zone_pa, ranged=ranged, weapon_bf=weapon_bf)
    result = _run(a, b, rng, rolls)
    won = _won(result)
    rounds = None
    if won:
        rounds = duration_roll if duration_roll is not None else rng.randint(1, 10)
        if not 1 <= rounds <= 10:
            raise ValueError("stun duration is a d10")
    return SpecialTest(STUN, result, won, stunned_rounds=rounds)


def disarm(
    attacker_ag: int, defender_ag: int, *, rng: RandomSource, rolls: Sequence[int] = ()
) -> SpecialTest:
    """Désarmement once the attack got through: opposed Ag."""
    a = opposed.Contestant("attacker", attacker_ag, base_label="combat.modifier.ag")
    b = opposed.Contestant("defender", defender_ag, base_label="combat.modifier.ag")
    result = _run(a, b, rng, rolls)
    return SpecialTest(DISARM, result, _won(result))


def _ws_contestant(name: str, cc: int, ws: int, extra: Sequence[Modifier] = ()) -> opposed.Contestant:
    terms = (mod("combat_ws_adjustment", ws - cc),) if ws != cc else ()
    return opposed.Contestant(name, cc, (*terms, *extra), base_label="combat.modifier.cc")


def shield_bash(
    cc: int,
    ws: int,
    foe_cc: int,
    foe_ws: int,
    *,
    rng: RandomSource,
    rolls: Sequence[int] = (),
    extra_a: Sequence[Modifier] = (),
    extra_b: Sequence[Modifier] = (),
) -> SpecialTest:
    """Frappe de bouclier: opposed CC at +10 % (combat WS on both sides; ``extra_*``: the armour's
    CC malus and the like)."""
    bonus = [mod(f"special.{SHIELD_BASH}", 10), *extra_a]
    result = _run(
        _ws_contestant("attacker", cc, ws, bonus),
        _ws_contestant("defender", foe_cc, foe_ws, extra_b),
        rng,
        rolls,
    )
    return SpecialTest(SHIELD_BASH, result, _won(result))


def manoeuvre(
    cc: int,
    ws: int,
    foe_cc: int,
    foe_ws: int,
    foe_ag: int,
    *,
    rng: RandomSource,
    rolls: Sequence[int] = (),
    fall_roll: int | None = None,
    foe_ag_terms: Sequence[Modifier] = (),
    extra_a: Sequence[Modifier] = (),
    extra_b: Sequence[Modifier] = (),
) -> SpecialTest:
    """Manœuvrer: opposed CC; won → push °R × 2 m and the foe's Ag +20 % test not to fall (its d100:
    ``fall_roll``, else the first typed roll the opposed test left, else the random source)."""
    result = _run(
        _ws_contestant("attacker", cc, ws, extra_a),
        _ws_contestant("defender", foe_cc, foe_ws, extra_b),
        rng,
        rolls,
    )
    won = _won(result)
    final = result.final
    degrees = (final.a.degrees or 0) if won and final is not None else 0
    fall = None
    if won:
        left = list(rolls[2 * len(result.rounds) :])
        roll = fall_roll if fall_roll is not None else (left[0] if left else rng.randint(1, 100))
        terms = (*foe_ag_terms, mod("manoeuvre.fall", FALL_AG))
        fall = renove.result_from_roll(
            foe_ag + sum(m.value for m in terms), (Modifier("combat.modifier.ag", foe_ag), *terms), roll
        )
    return SpecialTest("manoeuvrer", result, won, degrees=degrees, fall=fall)


def outcome_key(test: SpecialTest) -> str:
    """The catalogue key of what the test did (``combat.special.<id>.<won|lost|reroll>``)."""
    status = "won" if test.won else ("pending" if test.test.status is not opposed.Status.DECIDED else "lost")
    return f"combat.special.{test.special}.{status}"
