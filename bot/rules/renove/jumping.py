"""Jumping (seed 000, « Actions spéciales de combat — Sauter », l. 1716-1720; « Règles de sauts en
hauteur », l. 1778-1815; data/jumps.json).

* Long jump: with a run-up of M to 2 × M metres (1 round) a character jumps at most (BF + M)/2 m;
  an Ag test: a failure costs 0.5 m plus 0.5 m per °E. Without a run-up (½ round) the distance,
  after that loss, is halved. A success reaches the full distance (« au maximum » read as what a
  success gives). The distance never goes below 0 (a reading).
* Jumping down: the height picks a row of the table: 0-2 m succeeds without a test, 5.5 m and more
  fails without one; between them the Ag test takes the row's modifier, and a failure deals the
  row's damage. Only light armour reduces it, by 1 point (« Seules les armures légères réduisent
  les dégâts de chute ») — so the Toughness bonus does not (a reading). « 6+ » is applied as 6,
  the GM may add more (``damage_open_ended``). These are ordinary damage points (the usual
  critical roll follows, read in the data file's notes).

Distances are exact fractions (halves and quarters of a metre); the renderer writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

HEIGHT_MODIFIER_LABEL = "jumping.modifier.height"


class JumpError(ValueError):
    """A jump that cannot be worked out; ``code`` is a catalogue key suffix."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def metres(value: Fraction) -> dict[str, Any]:
    """A distance for the structured result: exact (``"7/4"``) and as a number."""
    return {"m": float(value), "exact": str(value)}


@dataclass(frozen=True, slots=True)
class LongJump:
    bf: int
    m: int
    run_up: bool
    max_distance: Fraction  # (BF + M)/2
    test: CheckResult
    lost: Fraction  # 0 on a success; 0.5 + 0.5 per °E on a failure
    distance: Fraction  # after the loss, halved without a run-up

    @property
    def run_up_min(self) -> int:
        return self.m

    @property
    def run_up_max(self) -> int:
        return self.m * 2

    @property
    def time(self) -> str:
        """``round`` with a run-up, ``half_round`` without (catalogue ``jumping.time.<value>``)."""
        return "round" if self.run_up else "half_round"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "long",
            "BF": self.bf,
            "M": self.m,
            "run_up": self.run_up,
            "run_up_m": {"min": self.run_up_min, "max": self.run_up_max},
            "time": self.time,
            "max_distance": metres(self.max_distance),
            "test": self.test.to_dict(),
            "lost": metres(self.lost),
            "distance": metres(self.distance),
        }


def _fraction(value: Any) -> Fraction:
    return Fraction(str(value))


def long_jump(
    document: Mapping[str, Any],
    *,
    bf: int,
    m: int,
    ag: int,
    run_up: bool = True,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> LongJump:
    """The long jump of a character with these BF, M and Ag (seed l. 1716-1720)."""
    if bf < 0 or m < 0:
        raise JumpError("negative_stat")
    rule = document.get("long_jump", {})
    on_failure = rule.get("on_failure", {})
    lose = _fraction(on_failure.get("lose_m", "0.5"))
    per_degree = _fraction(on_failure.get("lose_m_per_degree", "0.5"))
    divisor = int(rule.get("without_run_up_divisor", 2)) or 2
    full = Fraction(bf + m, 2)
    test = renove.check(ag, modifiers, rng=rng, roll=roll)
    lost = Fraction(0) if test.success else lose + per_degree * int(test.degrees or 0)
    distance = max(Fraction(0), full - lost)
    if not run_up:
        distance /= divisor
    return LongJump(bf, m, run_up, full, test, min(lost, full), distance)


@dataclass(frozen=True, slots=True)
class HeightRow:
    id: str
    printed: str
    low: Fraction
    high: Fraction | None  # exclusive; None: no upper bound
    outcome: str  # auto_success, test, auto_failure
    ag_modifier: int | None
    damage: int | None
    open_ended: bool


def height_rows(document: Mapping[str, Any]) -> tuple[HeightRow, ...]:
    rows = []
    for entry in document.get("entries", ()):
        high = entry.get("height_max_m")
        rows.append(
            HeightRow(
                id=str(entry["id"]),
                printed=str(entry.get("printed", entry["id"])),
                low=_fraction(entry["height_min_m"]),
                high=None if high is None else _fraction(high),
                outcome=str(entry["outcome"]),
                ag_modifier=None if entry.get("ag_modifier") is None else int(entry["ag_modifier"]),
                damage=None if entry.get("damage_on_failure") is None else int(entry["damage_on_failure"]),
                open_ended=bool(entry.get("damage_open_ended", False)),
            )
        )
    return tuple(sorted(rows, key=lambda r: r.low))


def height_row(rows: Sequence[HeightRow], height: Fraction) -> HeightRow:
    if height < 0:
        raise JumpError("negative_height")
    for row in rows:
        if row.low <= height and (row.high is None or height < row.high):
            return row
    raise JumpError("no_row", height=str(height))


@dataclass(frozen=True, slots=True)
class HeightJump:
    height: Fraction
    row: HeightRow
    test: CheckResult | None  # None for an automatic success or failure
    light_armour: bool
    armour_reduction: int  # the light armour's 1 point, when it applies

    @property
    def landed(self) -> bool:
        """Whether the character lands unhurt (the test, or the row, succeeds)."""
        if self.test is None:
            return self.row.outcome == "auto_success"
        return self.test.success

    @property
    def damage_rolled(self) -> int | None:
        """The row's damage on a failure, before armour; None when the jump succeeds."""
        return None if self.landed else self.row.damage

    @property
    def damage(self) -> int | None:
        rolled = self.damage_rolled
        if rolled is None:
            return None
        return max(0, rolled - self.armour_reduction)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "height",
            "height": metres(self.height),
            "row": self.row.id,
            "printed": self.row.printed,
            "outcome": self.row.outcome,
            "ag_modifier": self.row.ag_modifier,
            "test": self.test.to_dict() if self.test is not None else None,
            "landed": self.landed,
            "damage_on_failure": self.damage_rolled,
            "damage_open_ended": self.row.open_ended and not self.landed,
            "light_armour": self.light_armour,
            "armour_reduction": self.armour_reduction,
            "damage": self.damage,
        }


def height_jump(
    document: Mapping[str, Any],
    *,
    height: Fraction,
    ag: int,
    light_armour: bool = False,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> HeightJump:
    """Jumping down from ``height`` metres (seed l. 1778-1815)."""
    row = height_row(height_rows(document), height)
    test = None
    if row.outcome == "test":
        items = [Modifier(HEIGHT_MODIFIER_LABEL, int(row.ag_modifier or 0)), *modifiers]
        test = renove.check(ag, items, rng=rng, roll=roll)
    reduction = int(document.get("light_armour_damage_reduction", 1)) if light_armour else 0
    return HeightJump(height, row, test, light_armour, reduction)
