"""Casting a spell (seed 000, « Magie », l. 1524-1528; « Lancer un sort », l. 1067-1068; « Contre
les mages », l. 1300-1303; data/magic.json).

The casting roll is Mag d10 (the caster's Magic characteristic, or fewer dice if he chooses) added
up against the difficulty the GM gives (the spell's casting number: equal or higher succeeds, WFRP
2e). The seed adds **a chaos die to every spell cast**:

* it is not added to the casting total (it never makes a spell easier);
* it does not count for the « all the casting dice show 1 » rule: the spell fails and the caster
  must pass a Force Mentale (FM) test or gain a Point de Folie;
* it does count for doubles, triples and quadruples — the curse of Tzeentch (minor, major,
  catastrophic manifestation of Chaos, rolled by the GM on the rulebook's tables, which the seed
  does not give).

Against mages, each critical hit he took adds one more chaos die, and a critical to his voice stops
him casting (the list of criticals that reach the voice is a reading, data/magic.json).

In a fight, two ½-round spells or one full-round spell fit in a round. Reading (as a lost
half-round, :mod:`bot.rules.combat.state`): the first half of a round is ⌈A/2⌉ of its A, the second
half the rest; a full-round spell takes the whole round, so it needs every A still unspent.

Pure: no I/O, the random source is passed in, every die may be entered by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.state import Combatant
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

DIE: Final = 10
MAGIC_MAX: Final = 10
DIFFICULTY_MAX: Final = 100
BASE_CHAOS_DICE: Final = 1  # the seed: one chaos die for every spell cast
CHAOS_DICE_MAX: Final = 20
HALVES_PER_ROUND: Final = 2
FM: Final = "FM"


class MagicError(ValueError):
    """Bad input for a casting roll; ``code`` names the message (``magic.error.<code>``)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class Curse(StrEnum):
    """The curse of Tzeentch, by the most dice showing the same face."""

    MINOR = "minor"  # a double
    MAJOR = "major"  # a triple
    CATASTROPHIC = "catastrophic"  # a quadruple (or more)


class SpellLength(StrEnum):
    HALF = "half"  # ½ round: two per round
    FULL = "full"  # a full round


def curse_of(dice: Iterable[int]) -> tuple[Curse | None, int | None, int]:
    """The curse the dice call (all of them, the chaos dice included): its level, the face and how
    many dice show it. The most dice on one face decide; on a tie, the higher face is named."""
    counts = Counter(dice)
    if not counts:
        return None, None, 0
    face, count = max(counts.items(), key=lambda item: (item[1], item[0]))
    if count < 2:
        return None, None, count
    level = Curse.MINOR if count == 2 else Curse.MAJOR if count == 3 else Curse.CATASTROPHIC
    return level, face, count


@dataclass(frozen=True, slots=True)
class Casting:
    magic: int
    difficulty: int
    casting: tuple[int, ...]
    chaos: tuple[int, ...]
    total: int
    success: bool
    all_ones: bool
    curse: Curse | None
    curse_face: int | None
    curse_count: int
    fm_test: CheckResult | None = None  # all ones: the FM test against a Point de Folie

    @property
    def insanity(self) -> int:
        """Points de Folie gained: one when every casting die shows 1 and the FM test failed."""
        return 1 if self.all_ones and self.fm_test is not None and not self.fm_test.success else 0

    @property
    def fm_test_due(self) -> bool:
        """Every casting die shows 1 but no FM was known to roll the test: the GM has it rolled."""
        return self.all_ones and self.fm_test is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "magic": self.magic,
            "difficulty": self.difficulty,
            "casting": list(self.casting),
            "chaos": list(self.chaos),
            "total": self.total,
            "success": self.success,
            "all_ones": self.all_ones,
            "curse": self.curse.value if self.curse else None,
            "curse_face": self.curse_face,
            "curse_count": self.curse_count,
            "fm_test": self.fm_test.to_dict() if self.fm_test else None,
            "insanity": self.insanity,
        }


def _dice(
    count: int, given: Sequence[int] | None, rng: RandomSource | None, *, offset: int
) -> tuple[int, ...]:
    if given is not None:
        return tuple(given[offset : offset + count])
    if rng is None:
        raise MagicError("no_dice")
    return tuple(rng.randint(1, DIE) for _ in range(count))


def cast(
    magic: int,
    difficulty: int,
    *,
    chaos_dice: int = BASE_CHAOS_DICE,
    rng: RandomSource | None = None,
    dice: Sequence[int] | None = None,
    fm: int | None = None,
    fm_roll: int | None = None,
    fm_modifiers: Sequence[Modifier] = (),
) -> Casting:
    """The casting roll: ``magic`` d10 then ``chaos_dice`` chaos dice (``dice`` entered by hand: the
    casting dice first, the chaos dice last, exactly that many), against ``difficulty``. When every
    casting die shows 1 and the caster's ``fm`` is known, the FM test is rolled (``fm_roll`` by
    hand; ``fm_modifiers``: the maluses a GM adds against mages)."""
    if not 1 <= magic <= MAGIC_MAX:
        raise MagicError("magic_range", value=magic, max=MAGIC_MAX)
    if not 1 <= difficulty <= DIFFICULTY_MAX:
        raise MagicError("difficulty_range", value=difficulty, max=DIFFICULTY_MAX)
    if not 1 <= chaos_dice <= CHAOS_DICE_MAX:
        raise MagicError("chaos_range", value=chaos_dice, max=CHAOS_DICE_MAX)
    if dice is not None:
        wanted = magic + chaos_dice
        if len(dice) != wanted:
            raise MagicError("dice_count", given=len(dice), wanted=wanted, magic=magic, chaos=chaos_dice)
        bad = [d for d in dice if not 1 <= d <= DIE]
        if bad:
            raise MagicError("die_range", value=bad[0])
    casting = _dice(magic, dice, rng, offset=0)
    chaos = _dice(chaos_dice, dice, rng, offset=magic)
    total = sum(casting)
    all_ones = all(d == 1 for d in casting)
    success = total >= difficulty and not all_ones
    curse, face, count = curse_of((*casting, *chaos))
    fm_test = None
    if all_ones and fm is not None:
        fm_test = renove.check(fm, fm_modifiers, rng=None if fm_roll is not None else rng, roll=fm_roll,
                               base_label="magic.fm")  # fmt: skip
    return Casting(magic, difficulty, casting, chaos, total, success, all_ones, curse, face, count, fm_test)


# -- in a fight: the round's time -------------------------------------------------------------


def half_cost(attacks: int, half: int) -> int:
    """The A that the ``half``-th half of the round (1 or 2) takes: ⌈A/2⌉, then the rest."""
    first = -(-attacks // 2)
    return first if half == 1 else attacks - first


def can_cast(combatant: Combatant, length: SpellLength, *, voice_lost: bool = False) -> Refusal | None:
    """Whether ``combatant`` may cast a spell of ``length`` now; the reason if not."""
    if voice_lost:
        return Refusal("magic.refusal.voice", (("name", combatant.name),))
    if combatant.has("dead"):
        return Refusal("combat.refusal.dead")
    if combatant.has("unconscious"):
        return Refusal("combat.refusal.unconscious")
    if combatant.has("no_action", "stunned"):
        return Refusal("combat.refusal.no_action")
    if any(c.kind == "lose_time" and c.unit == "round" for c in combatant.conditions):
        return Refusal("combat.refusal.lost_round")
    acts = combatant.actions
    if acts.charged:
        return Refusal("combat.refusal.charged")
    if length is SpellLength.FULL:
        if acts.cast or acts.used or acts.second_weapon_used or combatant.lost_attacks():
            return Refusal("magic.refusal.full_round_needs_round", (("name", combatant.name),))
        return None
    if acts.cast >= HALVES_PER_ROUND:
        return Refusal("magic.refusal.round_spent", (("name", combatant.name),))
    cost = half_cost(combatant.attacks, acts.cast + 1)
    if combatant.attacks_left() < max(cost, 1 if acts.cast == 0 else 0):
        return Refusal("magic.refusal.no_time", (("name", combatant.name),))
    return None


def take_cast(combatant: Combatant, length: SpellLength, *, voice_lost: bool = False) -> Combatant:
    """Spend the round's time the spell takes (raises :class:`RefusedError` when refused)."""
    refusal = can_cast(combatant, length, voice_lost=voice_lost)
    if refusal:
        raise RefusedError(refusal)
    acts = combatant.actions
    if length is SpellLength.FULL:
        acts = replace(acts, used=combatant.attacks, cast=HALVES_PER_ROUND)
    else:
        cost = half_cost(combatant.attacks, acts.cast + 1)
        acts = replace(acts, used=acts.used + cost, cast=acts.cast + 1)
    return replace(combatant, actions=acts)


def turn_passes(combatant: Combatant) -> bool:
    """After a spell the turn passes, unless the caster still has a ½ round that costs no A (one
    A: the first ½-round spell took it, the second ½ round is cast on the same turn)."""
    acts = combatant.actions
    if acts.cast == 0 or acts.cast >= HALVES_PER_ROUND:
        return True
    return half_cost(combatant.attacks, acts.cast + 1) > 0 or combatant.attacks_left() > 0


# -- against mages ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VoiceCritical:
    kind: str  # the critical table's kind (tranchantes, contondantes, projectiles, pugilat)
    zone: str
    value: int


def hits_voice(voice: Iterable[VoiceCritical], kind: str, zone: str, value: int) -> bool:
    return any(v.kind == kind and v.zone == zone and v.value == value for v in voice)


def mirror_on_fm(conditions: Iterable[Any], stat: str = "CC") -> tuple[Any, ...]:
    """The optional FM maluses against mages (reading): every malus a critical puts on ``stat``
    (the CC) is put on FM as well, for as long."""
    return tuple(
        replace(c, stat=FM, source=f"{c.source}.fm")
        for c in conditions
        if getattr(c, "kind", None) == "modifier" and getattr(c, "stat", None) == stat and (c.value or 0) < 0
    )
