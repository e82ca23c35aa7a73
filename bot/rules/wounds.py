"""What a fight leaves on a character sheet: lasting wounds and states, and death.

Pure: standard library and the combat core only. A sheet keeps a :class:`WoundSheet` (the
``wounds`` column): numbered :class:`Wound` s and, when the character died, a :class:`Death`.

Readings:

* A wound is written for each critical whose effects outlast the fight (a condition still running
  once the end-of-combat conditions have ended: bleeding, a death timer, a limb out of use, a
  halving until healed …), for each permanent loss (a ``disabled`` effect with ``lost``: fingers,
  an eye, a limb) and for each open wound.
* Open wound (seed 000, "Infection des blessures": « une plaie ouverte, rarement causée par une
  arme contondante »): a critical of the *tranchantes* or *projectiles* tables of value 2 or more
  (a critical of 1 never calls for the infection test); blunt and unarmed criticals are not open
  (the GM may add one by hand).
* A death timer counted in hours or days gets a deadline: the end of the fight plus what is left
  (the bot has no game clock; the GM may edit it). One counted in rounds stays a state.
* A destiny point avoids death, never the sequel (seed 000, "Points de destin"): reviving keeps
  every wound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final

from bot.rules.combat.effects import Condition

OPEN_KINDS: Final = frozenset({"tranchantes", "projectiles"})
OPEN_MIN: Final = 2
WOUNDS_MAX: Final = 40
NOTE_MAX: Final = 120
CAUSE_MAX: Final = 120
# What no longer matters once the fight is over (the dead condition is the sheet's ``dead``).
_NOT_LASTING: Final = frozenset({"dead", "prone", "lose_time"})
_UNIT_HOURS: Final = {"hour": 1, "day": 24}


class WoundError(ValueError):
    """A wound edit the sheet cannot take: a catalogue key and its parameters."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class Wound:
    number: int
    source: str  # criticals.<kind>.<zone>.<value>, or "gm" for a wound written by hand
    zone: str | None = None
    kind: str | None = None
    value: int | None = None  # the critical's value (1-15): the infection test's wound type
    fight: str = ""
    date: str = ""  # ISO date of the fight's end
    open: bool = False
    lost: tuple[str, ...] = ()  # body parts lost for good (fingers, eye, hand, arm, foot, leg, ear)
    states: tuple[Condition, ...] = ()  # conditions still running after the fight
    deadline: str | None = None  # ISO date-time: dies unless healed before it
    note: str = ""
    infection: str | None = None  # infection test done: "clean" or the outcome's id

    @property
    def to_test(self) -> bool:
        """An open wound whose infection test is still to roll."""
        return self.open and self.infection is None and (self.value or 0) >= OPEN_MIN

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "source": self.source,
            "zone": self.zone,
            "kind": self.kind,
            "value": self.value,
            "fight": self.fight,
            "date": self.date,
            "open": self.open,
            "lost": list(self.lost),
            "states": [c.to_dict() for c in self.states],
            "deadline": self.deadline,
            "note": self.note,
            "infection": self.infection,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Wound:
        value = data.get("value")
        return cls(
            number=int(data.get("number", 0)),
            source=str(data.get("source") or "gm"),
            zone=data.get("zone"),
            kind=data.get("kind"),
            value=int(value) if value is not None else None,
            fight=str(data.get("fight") or ""),
            date=str(data.get("date") or ""),
            open=bool(data.get("open", False)),
            lost=tuple(str(x) for x in data.get("lost") or ()),
            states=tuple(Condition.from_dict(c) for c in data.get("states") or ()),
            deadline=data.get("deadline"),
            note=str(data.get("note") or ""),
            infection=data.get("infection"),
        )


@dataclass(frozen=True, slots=True)
class Death:
    cause: str  # a critical's source, "death_timer", "mort_subite", "gm" …
    fight: str = ""
    date: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"cause": self.cause, "fight": self.fight, "date": self.date}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Death:
        return cls(str(data.get("cause") or "gm"), str(data.get("fight") or ""), str(data.get("date") or ""))


@dataclass(frozen=True, slots=True)
class WoundSheet:
    wounds: tuple[Wound, ...] = ()
    dead: Death | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "wounds": [w.to_dict() for w in self.wounds],
            "dead": self.dead.to_dict() if self.dead else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> WoundSheet:
        data = data or {}
        dead = data.get("dead")
        return cls(
            tuple(Wound.from_dict(w) for w in data.get("wounds") or ()),
            Death.from_dict(dead) if isinstance(dead, Mapping) else None,
        )

    @property
    def empty(self) -> bool:
        return not self.wounds and self.dead is None

    def to_test(self) -> tuple[Wound, ...]:
        return tuple(w for w in self.wounds if w.to_test)

    def add(self, new: Iterable[Wound]) -> WoundSheet:
        """Append ``new``, numbered after the last wound (at most :data:`WOUNDS_MAX` kept, newest)."""
        wounds = list(self.wounds)
        number = max((w.number for w in wounds), default=0)
        for wound in new:
            number += 1
            wounds.append(replace(wound, number=number))
        return replace(self, wounds=tuple(wounds[-WOUNDS_MAX:]))

    def put(self, wound: Wound) -> WoundSheet:
        return replace(self, wounds=tuple(wound if w.number == wound.number else w for w in self.wounds))


def empty_record() -> dict[str, Any]:
    return WoundSheet().to_dict()


def is_open(kind: str | None, value: int | None) -> bool:
    return kind in OPEN_KINDS and (value or 0) >= OPEN_MIN


# -- what a fight leaves --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CriticalTaken:
    """A critical a fighter took, as the fight's log has it."""

    source: str
    kind: str
    zone: str
    value: int


def _deadline(condition: Condition, at: datetime) -> str | None:
    if condition.kind != "death_timer" or condition.unit not in _UNIT_HOURS or condition.remaining is None:
        return None
    return (at + timedelta(hours=condition.remaining * _UNIT_HOURS[condition.unit])).isoformat(
        timespec="minutes"
    )


def wounds_from_fight(
    criticals: Sequence[CriticalTaken], conditions: Sequence[Condition], *, fight: str, at: datetime
) -> list[Wound]:
    """The wounds a fighter takes away: one per critical that left something (its conditions still
    running after the end of combat, a part lost for good, an open wound); numbered 0 (see
    :meth:`WoundSheet.add`). ``conditions`` are the fighter's once the end-of-combat ones ended."""
    out: list[Wound] = []
    claimed: set[str] = set()
    for crit in criticals:
        mine: tuple[Condition, ...] = ()
        if crit.source not in claimed:
            claimed.add(crit.source)
            mine = tuple(c for c in conditions if c.source == crit.source and c.kind not in _NOT_LASTING)
        lost = tuple(
            dict.fromkeys(
                str(c.params.get("part")) for c in mine if c.kind == "disabled" and c.params.get("lost")
            )
        )
        states = tuple(c for c in mine if not (c.kind == "disabled" and c.params.get("lost")))
        deadline = next((d for d in (_deadline(c, at) for c in states) if d), None)
        states = tuple(c for c in states if _deadline(c, at) is None)
        opened = is_open(crit.kind, crit.value)
        if not (opened or lost or states or deadline):
            continue
        out.append(
            Wound(
                0,
                crit.source,
                zone=crit.zone,
                kind=crit.kind,
                value=crit.value,
                fight=fight,
                date=at.date().isoformat(),
                open=opened,
                lost=lost,
                states=states,
                deadline=deadline,
            )
        )
    return out


# -- the GM's edits -------------------------------------------------------------------------

_REMOVE = re.compile(r"-\s*([0-9]{1,3})", re.ASCII)
_NOTE = re.compile(r"([0-9]{1,3})\s*:\s*(.*)", re.ASCII | re.S)
ALL_WORDS: Final = frozenset({"tout", "toutes", "all"})
CLOSED_WORDS: Final = frozenset({"fermee", "fermée", "closed", "soignee", "soignée", "healed"})


def apply_wound_edits(sheet: WoundSheet, text: str, *, fight: str = "", date: str = "") -> WoundSheet:
    """The GM's ``blessures:`` option, parts separated by ``;``:

    * ``-2`` clears wound 2 (healed, or written by mistake); ``-tout`` clears them all;
    * ``2:deux doigts, main gauche`` sets wound 2's note; ``2:fermee`` closes it (no infection test);
    * ``+plaie ouverte au bras`` writes a wound by hand (an open one when the text says « ouverte »).
    """
    for raw in text.split(";"):
        part = raw.strip()
        if not part:
            continue
        if part.startswith("-") and part[1:].strip().lower() in ALL_WORDS:
            sheet = replace(sheet, wounds=())
            continue
        removed = _REMOVE.fullmatch(part)
        if removed:
            number = int(removed.group(1))
            if not any(w.number == number for w in sheet.wounds):
                raise WoundError("characters.wounds.no_such", number=number)
            sheet = replace(sheet, wounds=tuple(w for w in sheet.wounds if w.number != number))
            continue
        noted = _NOTE.fullmatch(part)
        if noted:
            number, note = int(noted.group(1)), " ".join(noted.group(2).split())
            wound = next((w for w in sheet.wounds if w.number == number), None)
            if wound is None:
                raise WoundError("characters.wounds.no_such", number=number)
            if note.lower() in CLOSED_WORDS:
                sheet = sheet.put(replace(wound, open=False))
                continue
            if len(note) > NOTE_MAX:
                raise WoundError("characters.wounds.too_long", max=NOTE_MAX)
            sheet = sheet.put(replace(wound, note=note))
            continue
        if part.startswith("+"):
            note = " ".join(part[1:].split())
            if not note:
                raise WoundError("characters.wounds.unreadable", text=part[:40])
            if len(note) > NOTE_MAX:
                raise WoundError("characters.wounds.too_long", max=NOTE_MAX)
            if len(sheet.wounds) >= WOUNDS_MAX:
                raise WoundError("characters.wounds.too_many", max=WOUNDS_MAX)
            opened = "ouvert" in note.lower() or "open" in note.lower()
            sheet = sheet.add([Wound(0, "gm", fight=fight, date=date, open=opened, note=note)])
            continue
        raise WoundError("characters.wounds.unreadable", text=part[:40])
    return sheet


# -- import ---------------------------------------------------------------------------------


def read_record(value: Any) -> tuple[WoundSheet, list[tuple[str, dict[str, Any]]]]:
    """An exported ``wounds`` record, checked; the problems as (catalogue key, parameters)."""
    problems: list[tuple[str, dict[str, Any]]] = []
    if value is None:
        return WoundSheet(), problems
    if not isinstance(value, dict):
        return WoundSheet(), [("characters.import.not_object", {"field": "wounds"})]
    items = value.get("wounds", [])
    dead = value.get("dead")
    if not isinstance(items, list) or len(items) > WOUNDS_MAX:
        problems.append(("characters.import.not_object", {"field": "wounds.wounds"}))
        items = []
    wounds: list[Wound] = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise TypeError(item)
            wound = Wound.from_dict(item)
            if len(wound.note) > NOTE_MAX or not isinstance(item.get("lost", []), list):
                raise ValueError(item)
            wounds.append(wound)
        except (TypeError, ValueError, KeyError):
            problems.append(("characters.import.not_object", {"field": f"wounds.wounds.{index}"}))
    death = None
    if dead is not None:
        if not isinstance(dead, dict) or len(str(dead.get("cause", ""))) > CAUSE_MAX:
            problems.append(("characters.import.not_object", {"field": "wounds.dead"}))
        else:
            death = Death.from_dict(dead)
    return WoundSheet(tuple(wounds), death), problems
