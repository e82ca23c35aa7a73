"""Wound infection (seed 000, "Infection des blessures"; data/infection.json).

The day after an open wound, one E test per wound, modified by the wound type (from the critical
value), fragments, barbed arrows, the weapon's cleanliness, the treatment, the surroundings,
hygiene and the character's traits. A success: no infection. A failure: the failure margin in
points picks the effect — 1-20 fever, 21-40 serious infection, 41+ gangrene. A critical value of
1 never calls for the test. Durations in days use BE (10 − BE, 5 + BE; at least 1 — a reading);
the 21-40 durations double when the patient does not stay in bed. All modifiers add up (reading).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

CRITICAL_MIN, CRITICAL_MAX = 1, 15


class InfectionError(ValueError):
    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class Phase:
    modifier: int | None  # −10, −30 … to every roll; None = incapacitated
    days: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "all_tests_modifier": self.modifier,
            "days": self.days,
            "incapacitated": self.modifier is None,
        }


@dataclass(frozen=True, slots=True)
class Infection:
    test: CheckResult | None  # None: a critical of 1 needs no test
    outcome: str | None  # data id: fievre, infection_grave, gangrene; None: no infection
    phases: tuple[Phase, ...] = ()
    death_after_days: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test.to_dict() if self.test is not None else None,
            "exempt": self.test is None,
            "infected": self.outcome is not None,
            "outcome": self.outcome,
            "phases": [p.to_dict() for p in self.phases],
            "death_after_days": self.death_after_days,
        }


def _days(spec: Any, be: int) -> int:
    if isinstance(spec, int):
        return spec
    value = int(spec["base"]) + int(spec.get("sign", 1)) * be
    return max(int(spec.get("minimum", 1)), value)


def wound_type(entries: Sequence[Mapping[str, Any]], critical: int) -> Mapping[str, Any] | None:
    for entry in entries:
        if entry.get("group") == "wound_type" and entry["critical_min"] <= critical <= entry["critical_max"]:
            return entry
    return None


def modifiers_for(
    entries: Sequence[Mapping[str, Any]], critical: int, chosen: Mapping[str, int | bool]
) -> tuple[Modifier, ...]:
    """The itemised modifiers: the wound type from ``critical``, then each chosen entry id.

    ``chosen`` maps an entry id to True (its fixed value) or to a value for a range entry
    (``environnement_infect``: −10, −20 or −30). Mutually exclusive entries are refused.
    """
    if not CRITICAL_MIN <= critical <= CRITICAL_MAX:
        raise InfectionError("critical_range")
    by_id = {str(e["id"]): e for e in entries}
    items: list[Modifier] = []
    kind = wound_type(entries, critical)
    if kind is not None:
        items.append(Modifier(f"flows.infection.entry.{kind['id']}", int(kind["value"])))
    picked = [key for key, value in chosen.items() if value is not False and value is not None]
    for key in picked:
        entry = by_id.get(key)
        if entry is None or entry.get("group") == "wound_type":
            raise InfectionError("unknown_modifier", id=key)
        clash = set(entry.get("exclusive_with", [])) & set(picked)
        if clash:
            raise InfectionError("exclusive", a=key, b=sorted(clash)[0])
        value = chosen[key]
        if "value_range" in entry:
            span = entry["value_range"]
            if value is True or not isinstance(value, int) or not span["min"] <= value <= span["max"]:
                raise InfectionError("range", id=key, min=span["min"], max=span["max"])
            if (value - span["min"]) % span.get("step", 1):
                raise InfectionError("range", id=key, min=span["min"], max=span["max"])
            items.append(Modifier(f"flows.infection.entry.{key}", value))
        else:
            items.append(Modifier(f"flows.infection.entry.{key}", int(entry["value"])))
    return tuple(items)


def infection_test(
    outcomes: Sequence[Mapping[str, Any]],
    entries: Sequence[Mapping[str, Any]],
    *,
    toughness: int,
    be: int,
    critical: int,
    chosen: Mapping[str, int | bool],
    bedridden: bool = True,
    extra: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> Infection:
    modifiers = modifiers_for(entries, critical, chosen)
    if critical == 1:
        return Infection(None, None)
    if extra:
        modifiers = (*modifiers, Modifier("flows.infection.entry.extra", extra))
    test = renove.check(toughness, modifiers, rng=rng, roll=roll, base_label="flows.infection.base")
    if test.success:
        return Infection(test, None)
    margin = max(1, test.margin)
    outcome = next(
        o
        for o in outcomes
        if o["margin_min"] <= margin and (o["margin_max"] is None or margin <= o["margin_max"])
    )
    factor = 2 if outcome.get("durations_doubled_unless_bedridden") and not bedridden else 1
    phases = tuple(
        Phase(
            None if p.get("incapacitated") else int(p["all_tests_modifier"]),
            _days(p["days"], be) * factor,
        )
        for p in outcome["phases"]
    )
    death = outcome.get("death")
    death_days = _days(death["after_days"], be) if death else None
    return Infection(test, str(outcome["id"]), phases, death_days)


def amputation_test(
    *,
    toughness: int,
    soins_success: bool = False,
    soins_degrees: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> CheckResult:
    """After amputating a gangrenous limb: an E test, +10 % and +10 % per °R of a successful Soins."""
    modifiers: tuple[Modifier, ...] = ()
    if soins_success:
        modifiers = (Modifier("flows.infection.entry.soins", 10 + 10 * max(0, soins_degrees)),)
    return renove.check(toughness, modifiers, rng=rng, roll=roll, base_label="flows.infection.base")
