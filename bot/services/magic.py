"""``/cast`` (``/sort``): the casting roll with the seed's chaos die, in one transaction.

In a fight's thread (an open `renove` fight), the caster is a fighter: the spell takes its time
from his round (½ round or a full round, :mod:`bot.rules.renove.magic`), only on his turn; each
critical he took adds a chaos die, a critical to his voice forbids the spell; the tracker shows it
and ``/combat annuler`` can take it back (the fight journal). Elsewhere it is a plain roll for the
active (or named) character, or for a Mag given by hand.

Every casting die showing 1: the FM test is rolled (on the fighter's current FM, the sheet's FM
outside a fight) and a failure writes one Point de Folie (PF) on the character's sheet. Each roll
goes to the roll log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import select

from bot.context import AppContext
from bot.db import characters as repo
from bot.db.fight_models import Fight
from bot.db.models import Character
from bot.rules.renove import magic as rules
from bot.rules.renove.magic import Casting, MagicError, SpellLength
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    new_event,
    outcome,
    parse_dice,
    run,
)
from bot.services.fights.rounds import _actor, _pass_turn, _turn_line
from bot.services.fights.text import Words
from bot.services.fights.waiting import turn_of
from bot.ui.reply import Colour, Reply

TABLE: Final = "magic"
PF: Final = "PF"
DICE_MAX: Final = rules.MAGIC_MAX + rules.CHAOS_DICE_MAX


@dataclass(frozen=True, slots=True)
class CastRequest:
    difficulty: int
    magic: int | None = None
    dice: str | None = None
    length: str = SpellLength.HALF.value
    spell: str | None = None
    character: str | None = None
    fm_roll: int | None = None


@dataclass(frozen=True, slots=True)
class _Caster:
    name: str
    magic: int
    fm: int | None
    row: Character | None  # the sheet a Point de Folie is written on
    chaos: int  # chaos dice: the seed's one, plus one per critical taken in the fight


# -- who casts --------------------------------------------------------------------------------


async def _fight_in_thread(scope: Scope) -> Doc | None:
    """The open fight of the caller's thread (a fight's own thread only), if any."""
    row = (
        await scope.session.scalars(
            select(Fight).where(
                Fight.guild_id == scope.guild_id,
                Fight.status == "open",
                Fight.thread_id == scope.caller.channel_id,
            )
        )
    ).first()
    return Doc.load(row) if row is not None else None


async def _sheet(scope: Scope, name: str | None) -> Character | None:
    if name and name.strip():
        row = await repo.find_row(scope.session, scope.guild_id, name)
        if row is None:
            raise FightRefusal("magic.error.character_not_found", name=name.strip()[:64])
        if row.owner_id != scope.caller.user_id and not scope.gm:
            raise FightRefusal("magic.error.character_not_yours", name=row.name)
        return row
    return await repo.active_row(scope.session, scope.guild_id, scope.caller.user_id)


def _magic_of(scope: Scope, given: int | None, known: int, name: str | None) -> int:
    """The casting dice: ``magie:`` (at most the caster's Mag when he has one, unless the GM says
    so), else his Mag."""
    if given is not None and name and 1 <= known < given and not scope.gm:
        raise FightRefusal("magic.error.above_mag", name=name, mag=known)
    magic = given if given is not None else known
    if magic < 1:
        if name:
            raise FightRefusal("magic.error.no_magic", name=name)
        raise FightRefusal("magic.error.magic_needed")
    return magic


def magic_state(doc: Doc, cid: str) -> dict[str, Any]:
    """What the fight remembers of a fighter against mages: criticals taken, voice lost."""
    value: dict[str, Any] = doc.data.get("magic", {}).get(cid, {})
    return value


# -- the use case ------------------------------------------------------------------------------


def _length(value: str) -> SpellLength:
    try:
        return SpellLength(value)
    except ValueError:
        raise FightRefusal("magic.error.bad_length") from None


def _dice(text: str | None) -> list[int] | None:
    if not text:
        return None
    return parse_dice(text, option="dice", sides=rules.DIE, limit=DICE_MAX)


async def cast_spell(ctx: AppContext, caller: Caller, request: CastRequest) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        length = _length(request.length)
        dice = _dice(request.dice)
        doc = await _fight_in_thread(scope)
        if doc is not None and doc.row.ruleset not in OTHER_RULESETS:
            return await _in_fight(scope, doc, request, length, dice)
        row = await _sheet(scope, request.character)
        known = int((row.characteristics or {}).get("Mag", 0)) if row is not None else 0
        fm = (row.characteristics or {}).get("FM") if row is not None else None
        caster = _Caster(
            name=row.name if row is not None else "",
            magic=_magic_of(scope, request.magic, known, row.name if row is not None else None),
            fm=int(fm) if fm is not None else None,
            row=row,
            chaos=rules.BASE_CHAOS_DICE,
        )
        casting = _roll(scope, caster, request, dice)
        lines = _casting_lines(scope.words, caster, casting, request)
        payload = _payload(caster, casting, request, length, dice)
        _note(scope, caster, casting, payload)
        return FightOutcome(_reply(scope, caster, casting, request, lines, payload))

    return await run(ctx, caller, work)


async def _in_fight(
    scope: Scope, doc: Doc, request: CastRequest, length: SpellLength, dice: list[int] | None
) -> FightOutcome:
    c = _actor(scope, doc, request.character)
    state = magic_state(doc, c.id)
    if state.get("voice"):  # said first: whatever the turn, no more spells this fight
        raise FightRefusal("magic.refusal.voice", name=c.name)
    if doc.data.get("round_over") or not doc.state.round:
        raise FightRefusal("combat.error.round_not_started")
    slot = doc.state.current_slot
    if slot is None or slot.combatant != c.id:
        raise FightRefusal("magic.error.not_your_turn", name=c.name)
    if doc.data.get("slot_done"):
        raise FightRefusal("combat.error.slot_spent", name=c.name, turn=turn_of(scope.words, doc))
    updated = rules.take_cast(c, length, voice_lost=bool(state.get("voice")))
    character_id = doc.meta.get(c.id, {}).get("character_id")
    row = await repo.get_row(scope.session, scope.guild_id, int(character_id)) if character_id else None
    caster = _Caster(
        name=c.name,
        magic=_magic_of(scope, request.magic, c.stat("Mag"), c.name),
        fm=c.stat("FM") if "FM" in c.characteristics else None,
        row=row,
        chaos=rules.BASE_CHAOS_DICE + int(state.get("criticals", 0)),
    )
    casting = _roll(scope, caster, request, dice)
    lines = _casting_lines(scope.words, caster, casting, request)
    doc.state = doc.state.put(updated)
    acts = updated.actions
    second = 1 if updated.off_hand is not None or acts.second_weapon_used else 0
    lines.append(
        scope.t(
            f"magic.fight.half.{acts.cast}" if length is SpellLength.HALF else "magic.fight.full",
            name=c.name,
            half=acts.cast,
            used=acts.used + (1 if acts.second_weapon_used else 0),
            total=updated.attacks + second,
        )
    )
    notes: list[str] = []
    if rules.turn_passes(updated):
        notes = _pass_turn(scope, doc)
    else:
        lines.append(scope.t("magic.fight.second_half", name=c.name))
    payload = _payload(caster, casting, request, length, dice)
    payload.update(fight_id=doc.row.id, combatant=c.id, half_rounds=acts.cast)
    _note(scope, caster, casting, payload)
    new_event(scope, doc, "spell", c.id, payload)
    doc.save()
    reply = _reply(scope, caster, casting, request, [*lines, *notes, _turn_line(scope, doc)], payload)
    return outcome(scope, doc, reply)


def _roll(scope: Scope, caster: _Caster, request: CastRequest, dice: list[int] | None) -> Casting:
    try:
        return rules.cast(
            caster.magic,
            request.difficulty,
            chaos_dice=caster.chaos,
            rng=scope.rng,
            dice=dice,
            fm=caster.fm,
            fm_roll=_d100(request.fm_roll),
        )
    except MagicError as exc:
        params = dict(exc.params)
        if exc.code == "dice_count":  # « les 2 dés d'incantation d'abord, puis le dé du chaos »
            words = scope.words
            magic, chaos = int(params["magic"]), int(params["chaos"])
            params["magic"] = words.t("magic.dice.casting." + ("one" if magic == 1 else "many"), n=magic)
            params["chaos"] = words.t("magic.dice.chaos." + ("one" if chaos == 1 else "many"), n=chaos)
        raise FightRefusal(f"magic.error.{exc.code}", **params) from None


def _d100(value: int | None) -> int | None:
    if value is None:
        return None
    if value == 0:
        return 100
    if not 1 <= value <= 100:
        raise FightRefusal("magic.error.fm_roll_range", value=value)
    return value


# -- the reply ---------------------------------------------------------------------------------


def _faces(words: Words, values: tuple[int, ...]) -> str:
    return " + ".join(f"**{v}**" for v in values)


def _casting_lines(words: Words, caster: _Caster, casting: Casting, request: CastRequest) -> list[str]:
    t = words.t
    outcome_key = "magic.outcome.success" if casting.success else "magic.outcome.failure"
    lines = [
        t(
            "magic.line.casting",
            dice=_faces(words, casting.casting),
            total=casting.total,
            difficulty=casting.difficulty,
            outcome=t(outcome_key),
        )
    ]
    chaos = ", ".join(f"**{v}**" for v in casting.chaos)
    if len(casting.chaos) == 1:
        lines.append(t("magic.line.chaos_one", dice=chaos))
    else:
        extra = len(casting.chaos) - rules.BASE_CHAOS_DICE
        lines.append(t("magic.line.chaos_many." + ("one" if extra == 1 else "many"), dice=chaos, n=extra))
    if casting.all_ones:
        lines.append(t("magic.line.all_ones"))
        name = caster.name or t("magic.the_caster")
        if casting.fm_test is not None:
            head = t("magic.line.fm_test", target=casting.fm_test.target)
            lines.append(head + " " + words.check(casting.fm_test))
            if casting.insanity:
                if caster.row is not None:
                    pf = _pf(caster.row) + casting.insanity
                    lines.append(t("magic.line.insanity", name=name, pf=pf))
                else:
                    lines.append(t("magic.line.insanity_no_sheet", name=name))
            else:
                lines.append(t("magic.line.sane", name=name))
        else:
            lines.append(t("magic.line.fm_test_due"))
    if casting.curse is not None:
        shape = {2: "double", 3: "triple", 4: "quadruple"}.get(casting.curse_count, "more")
        lines.append(
            "⚠️ "
            + t(
                "magic.line.curse",
                shape=t(f"magic.shape.{shape}", face=casting.curse_face, n=casting.curse_count),
                level=t(f"magic.curse.{casting.curse.value}"),
            )
        )
    return lines


def _pf(row: Character) -> int:
    return int((row.characteristics or {}).get(PF, 0))


def _title(words: Words, caster: _Caster, request: CastRequest) -> str:
    spell = (request.spell or "").strip()[:80]
    if caster.name:
        key = "magic.title.named_spell" if spell else "magic.title.named"
        return "🔮 " + words.t(key, name=caster.name, spell=spell)
    return "🔮 " + words.t("magic.title.spell" if spell else "magic.title.plain", spell=spell)


def _reply(
    scope: Scope,
    caster: _Caster,
    casting: Casting,
    request: CastRequest,
    lines: list[str],
    payload: dict[str, Any],
) -> Reply:
    if casting.insanity and caster.row is not None:
        values = dict(caster.row.characteristics or {})
        values[PF] = int(values.get(PF, 0)) + casting.insanity
        caster.row.characteristics = values  # a new dict: written with the transaction
        payload["pf"] = values[PF]
    colour = Colour.SUCCESS if casting.success else Colour.FAILURE
    if casting.curse is not None:
        colour = Colour.CRITICAL_FAILURE
    footer = scope.t("magic.footer.manual") if request.dice else scope.t("magic.footer")
    return Reply(
        title=_title(scope.words, caster, request),
        description="\n".join(line for line in lines if line).strip()[:3900],
        footer=footer,
        colour=colour,
        kind="spell",
        result=payload,
    )


def _payload(
    caster: _Caster, casting: Casting, request: CastRequest, length: SpellLength, dice: list[int] | None
) -> dict[str, Any]:
    return {
        **casting.to_dict(),
        "character": caster.row.name if caster.row is not None else (caster.name or None),
        "spell": (request.spell or "").strip()[:80] or None,
        "length": length.value,
        "manual": dice is not None,
    }


def _note(scope: Scope, caster: _Caster, casting: Casting, payload: dict[str, Any]) -> None:
    expression = f"{casting.magic}d10 + {len(casting.chaos)} chaos ≥ {casting.difficulty}"
    scope.rolls.append(RollNote("spell", expression, casting.total, dict(payload)))
    if casting.fm_test is not None:
        scope.rolls.append(
            RollNote("spell.fm_test", "1d100", casting.fm_test.roll, {**casting.fm_test.to_dict()})
        )
