"""The words of a sheet's wound record (``bot.rules.wounds``): one line per wound, the death line,
the « Inscrit sur la fiche de … » line of a fight's end. Used by ``/perso voir``, ``/combat fin``,
``/infection`` and ``/destin``."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, Final

from bot.context import AppContext
from bot.rules.combat.effects import Condition
from bot.rules.wounds import Death, Wound, WoundSheet
from bot.services.fights.text import Words

FIELD_MAX: Final = 1000


def joined(words: Words, parts: list[str] | tuple[str, ...]) -> str:
    """Parts of a list: « a ; b » in French (a space before the semicolon), "a; b" in English."""
    return ("; " if words.en else " ; ").join(parts)


def colon(words: Words) -> str:
    return ": " if words.en else " : "


def _plural(words: Words, key: str, n: int, **params: Any) -> str:
    return words.t(f"{key}.{'one' if n == 1 else 'many'}", n=n, **params)


def state_text(words: Words, c: Condition, who: str | None = None) -> str:
    """A condition still running after the fight, without the tracker's « round(s) »."""
    if c.kind == "bleeding":
        return words.t("wounds.state.bleeding", who=who)
    if c.kind == "death_timer":
        if c.remaining is not None and c.unit:
            return _plural(words, f"wounds.state.death_timer.{c.unit}", c.remaining, who=who)
        return words.t("combat.condition_kind.death_timer", who=who)
    base = words.condition(replace(c, remaining=None, unit=None, until=None), who)
    if c.until and c.until != "permanent":
        return base + " " + words.t(f"combat.until.{c.until}")
    if c.remaining is not None and c.unit:
        return base + " · " + _plural(words, f"wounds.unit.{c.unit}", c.remaining)
    return base


def deadline_text(words: Words, deadline: str, who: str | None = None) -> str:
    try:
        moment = datetime.fromisoformat(deadline)
    except ValueError:
        return deadline
    return words.t(
        "wounds.deadline",
        date=moment.strftime("%Y-%m-%d" if words.en else "%d/%m/%Y"),
        time=moment.strftime("%H:%M" if words.en else "%H h %M"),
        who=who,
    )


def wound_parts(words: Words, wound: Wound, who: str | None = None) -> list[str]:
    """What a wound left, each part on its own: « doigts perdus », « plaie ouverte au bras » …"""
    parts = [words.t(f"wounds.lost.{part}") for part in wound.lost]
    if wound.open:
        text = words.t(f"wounds.open.{wound.zone}") if wound.zone else words.t("wounds.open.any")
        if wound.infection:
            text += " (" + words.t(f"wounds.infection.{wound.infection}") + ")"
        parts.append(text)
    parts.extend(state_text(words, c, who) for c in wound.states)
    if wound.deadline:
        parts.append(deadline_text(words, wound.deadline, who))
    if wound.note:
        parts.append(wound.note)
    return parts


def wound_line(words: Words, wound: Wound, who: str | None = None) -> str:
    """``**1** · bras (tranchantes 11, Embuscade) : doigts perdus ; plaie ouverte au bras``."""
    where = words.zone(wound.zone) if wound.zone else words.t("wounds.by_gm")
    origin = []
    if wound.kind and wound.value is not None:
        origin.append(f"{words.t(f'combat.kind.{wound.kind}')} {wound.value}")
    if wound.fight:
        origin.append(wound.fight)
    head = f"**{wound.number}** · {where}" + (f" ({', '.join(origin)})" if origin else "")
    parts = wound_parts(words, wound, who)
    return head + colon(words) + joined(words, parts) if parts else head


def cause_text(words: Words, cause: str) -> str:
    if words.ctx.catalog.has(f"wounds.cause.{cause}"):
        return words.t(f"wounds.cause.{cause}")
    return words.source(cause)


def death_line(words: Words, death: Death) -> str:
    where = ", ".join(x for x in (death.fight, death.date) if x)
    return words.t("wounds.dead", cause=cause_text(words, death.cause)) + (f" ({where})" if where else "")


def record_text(words: Words, record: WoundSheet, who: str | None = None) -> str:
    """The sheet's « Blessures et séquelles » field: the death first, then a line per wound."""
    lines = [death_line(words, record.dead)] if record.dead else []
    lines.extend(wound_line(words, w, who) for w in record.wounds)
    text = "\n".join(lines)
    if len(text) > FIELD_MAX:
        text = text[: FIELD_MAX - 1].rsplit("\n", 1)[0] + "\n…"
    return text


def words_for(ctx: AppContext, locale: str) -> Words:
    return Words(ctx, locale, {})
