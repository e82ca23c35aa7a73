"""`v1` tests (seed 001, "Tests standard"): d100 ≤ characteristic + skill bonus ± modifier.

Seed: margin bands (success 0 "de justesse", 20+ "brillante", 50+ "éblouissante"; failure
0 "rageant", 20+ "cuisant / inquiétant", 50+ "retentissant / tragique"); "01-05 est toujours une
réussite critique", "96-00 est toujours un échec critique".

Readings:
* The margin is target − roll on a success and roll − target on a failure; a forced result
  (01-05 above the target, 96-00 under it) has margin 0, so the lowest band.
* Standard-test rows whose "test sous…" is a formula the bot cannot compute (``Dex - diff.
  serrure``, ``cf. WJRF p69`` …) need a target given by the GM (``target_override``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import (
    BASE_LABEL,
    CheckResult,
    Modifier,
    System,
    build_target,
    obtain_roll,
)
from bot.rules.random_source import RandomSource

DIE = 100
CRITICAL_SUCCESS_MAX = 5
CRITICAL_FAILURE_MIN = 96


class Band(StrEnum):
    """Margin band; catalogue key ``checks.band.<value>``."""

    NARROW_SUCCESS = "narrow_success"  # de justesse
    BRILLIANT_SUCCESS = "brilliant_success"  # brillante
    DAZZLING_SUCCESS = "dazzling_success"  # éblouissante
    ANNOYING_FAILURE = "annoying_failure"  # rageant
    SEVERE_FAILURE = "severe_failure"  # cuisant / inquiétant
    RESOUNDING_FAILURE = "resounding_failure"  # retentissant / tragique

    @property
    def key(self) -> str:
        return f"checks.band.{self.value}"


def band_for(success: bool, margin: int) -> Band:
    if success:
        if margin >= 50:
            return Band.DAZZLING_SUCCESS
        return Band.BRILLIANT_SUCCESS if margin >= 20 else Band.NARROW_SUCCESS
    if margin >= 50:
        return Band.RESOUNDING_FAILURE
    return Band.SEVERE_FAILURE if margin >= 20 else Band.ANNOYING_FAILURE


def result_from_roll(
    target: int, modifiers: tuple[Modifier, ...], roll: int, notes: tuple[str, ...] = ()
) -> CheckResult:
    crit_s = roll <= CRITICAL_SUCCESS_MAX
    crit_f = roll >= CRITICAL_FAILURE_MIN
    success = crit_s or (not crit_f and roll <= target)
    margin = max(0, target - roll) if success else max(0, roll - target)
    extra: tuple[str, ...] = ()
    if crit_s and roll > target:
        extra = ("checks.note.v1.forced_success",)
    elif crit_f and roll <= target:
        extra = ("checks.note.v1.forced_failure",)
    return CheckResult(
        system=System.V1,
        roll=roll,
        die=DIE,
        target=target,
        modifiers=modifiers,
        success=success,
        critical_success=crit_s,
        critical_failure=crit_f,
        margin=margin,
        band=band_for(success, margin).key,
        notes=notes + extra,
    )


def check(
    base: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    base_label: str = BASE_LABEL,
) -> CheckResult:
    """Resolve a `v1` test: ``base`` is the characteristic % (skill bonuses go in ``modifiers``)."""
    target, items = build_target(base, modifiers, base_label)
    return result_from_roll(target, items, obtain_roll(DIE, rng, roll))


# --- standard tests table (data lives in data/*.json, passed in as plain rows) ------------------


class StandardTestNotComputable(ValueError):
    """The row's target is a formula or a book reference: the GM must give the target."""


@dataclass(frozen=True, slots=True)
class StandardTest:
    """A row of the standard tests table (seed 001, "cf. WJRF p66").

    Exactly one of: ``characteristic`` (× ``multiplier``, e.g. F × 10 or Soc × 1), or
    ``fixed_target`` (e.g. Discrétion 30 %), or neither (a formula: ``note`` says how, and the GM
    supplies the target). ``characteristic`` may list alternatives with "/" ("Vol / FM"): the
    first one the character has is used.
    """

    action: str
    characteristic: str | None = None
    multiplier: int = 1
    fixed_target: int | None = None
    helpful_skills: tuple[str, ...] = ()
    note: str | None = None

    @property
    def computable(self) -> bool:
        return self.characteristic is not None or self.fixed_target is not None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> StandardTest:
        return cls(
            action=str(raw["action"]),
            characteristic=raw.get("characteristic"),
            multiplier=int(raw.get("multiplier", 1)),
            fixed_target=raw.get("fixed_target"),
            helpful_skills=tuple(raw.get("helpful_skills", ())),
            note=raw.get("note"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "characteristic": self.characteristic,
            "multiplier": self.multiplier,
            "fixed_target": self.fixed_target,
            "helpful_skills": list(self.helpful_skills),
            "note": self.note,
        }

    def base(self, characteristics: Mapping[str, int]) -> tuple[int, str]:
        """Return (base target, base label) for a character, e.g. (40, "F × 10")."""
        if self.fixed_target is not None:
            return self.fixed_target, f"{self.action} {self.fixed_target} %"
        if self.characteristic is None:
            raise StandardTestNotComputable(self.action)
        lowered = {k.casefold(): (k, v) for k, v in characteristics.items()}
        for name in (c.strip() for c in self.characteristic.split("/")):
            found = lowered.get(name.casefold())
            if found is not None:
                label = found[0] if self.multiplier == 1 else f"{found[0]} × {self.multiplier}"
                return found[1] * self.multiplier, label
        raise KeyError(f"characteristic {self.characteristic!r} missing for {self.action!r}")


def find_standard_test(action: str, table: Sequence[StandardTest]) -> StandardTest | None:
    wanted = action.casefold().strip()
    return next((row for row in table if row.action.casefold().strip() == wanted), None)


def standard_check(
    test: StandardTest,
    characteristics: Mapping[str, int],
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    target_override: int | None = None,
) -> CheckResult:
    """Resolve a standard-test row for a character (``characteristics`` by abbreviation)."""
    if target_override is not None:
        base, label = target_override, test.action
    else:
        base, label = test.base(characteristics)
    return check(base, modifiers, rng=rng, roll=roll, base_label=label)


# --- the standard rows that are rolls, not % tests: Bond, Chute, Saut (seed 001 l. 16, 17, 45) ---


class StandardRollError(ValueError):
    """The row's roll needs a value the caller did not give (M for Bond, the height for Chute/Saut)."""


_ROLL_EXPRESSION = re.compile(r"^(?:([0-9]+)\*)?([Mh])(?:\*([0-9]+))?-1d6$")


@dataclass(frozen=True, slots=True)
class StandardRoll:
    """``2 × M − 1d6`` metres (Bond, at least 2 m), ``h × 2 − 1d6`` (Chute) or ``h − 1d6`` (Saut)
    damage; ``skill`` the helpful skill's points (Acrobatie +2 m to a Bond, −2 damage to a fall)."""

    quantity: str
    variable: str
    value: int
    factor: int
    die: int
    skill: int
    minimum: int | None
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "quantity": self.quantity,
            "variable": self.variable,
            "value": self.value,
            "factor": self.factor,
            "die": self.die,
            "skill": self.skill,
            "minimum": self.minimum,
            "total": self.total,
        }


def standard_roll(
    formula: Mapping[str, Any],
    value: int | None,
    *,
    skill: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> StandardRoll:
    """Roll a ``roll_formula`` of ``v1_standard_tests`` (``2*M-1d6``, ``h*2-1d6``, ``h-1d6``) with
    ``value`` for its M or h. Readings (data notes): h in metres; a fall's damage is not below 0;
    the helpful skill's points are added (Bond +2) or taken (Chute, Saut −2, given as −2)."""
    expression = str(formula["expression"]).replace(" ", "")
    found = _ROLL_EXPRESSION.match(expression)
    if found is None:
        raise StandardRollError(expression)
    variable = found.group(2)
    if value is None:
        raise StandardRollError(variable)
    factor = int(found.group(1) or found.group(3) or 1)
    die = obtain_roll(6, rng, roll)
    minimum = formula.get("minimum")
    floor = int(minimum) if minimum is not None else 0
    total = max(floor, factor * value - die + skill)
    return StandardRoll(
        str(formula["quantity"]),
        variable,
        value,
        factor,
        die,
        skill,
        None if minimum is None else floor,
        total,
    )
