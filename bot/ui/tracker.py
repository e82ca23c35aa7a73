"""A fight's tracker: :class:`FightState` → the pinned message the bot edits as the fight goes.

What the table waits for first (``waiting``: a defence, a posture, whose turn), the round, the
order of the slots with who acts, then each combatant in initiative order: side, posture (none
until chosen this round), attacks used (« 1 sur 2 »), conditions with rounds left, armour and
shield wear; the dead struck through at the end, without posture, actions or conditions. The
service gives the tracker's buttons and select (postures, next, undo, a target). Always within
Discord's limits: ≤ 25 fields, ≤ 1024 characters a field, ≤ 6000 characters in all — a big fight
is cut gracefully ("… and N more").

Other rulesets (`v1`, `d20`, `ogl`): no posture line; the service gives each combatant's pool lines
(Blessures, PV/PC, location HP …) in ``extra``; the pools' own bookkeeping conditions
(source ``<system>.loss.<pool>``) are not listed (their numbers stay those of ``/combat condition``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.i18n import number
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant, FightState
from bot.ui.reply import Button, Colour, Field, Reply, Select

FIELD_MAX = 1024
FIELDS_MAX = 25
EMBED_MAX = 6000
DESCRIPTION_MAX = 4096
ORDER_LINES = 30
BUDGET = 5800  # a margin under 6000 for the title and the footer


class TrackerWords(Protocol):
    locale: str

    def t(self, key: str, /, **params: Any) -> str: ...
    def posture(self, posture: str, option: str | None = None) -> str: ...
    def condition(self, c: Condition, who: str | None = None) -> str: ...
    def zone(self, zone: str | None) -> str: ...
    def weapon(self, weapon_id: str) -> str: ...


@dataclass(frozen=True, slots=True)
class TrackerView:
    name: str
    state: FightState
    round_over: bool = False
    pending: int = 0
    shield_max: Mapping[str, int] = field(default_factory=dict)
    closed: bool = False
    ruleset: str = "renove"
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    waiting: tuple[str, ...] = ()
    postures: frozenset[str] = frozenset()  # the fighters whose posture is shown (chosen this round)
    second_weapon: frozenset[str] = frozenset()  # the fighters a second (or Double) weapon gives an A
    aims: Mapping[str, str] = field(default_factory=dict)  # fighter → aim option, until his next attack
    buttons: tuple[tuple[Button, ...], ...] = ()
    selects: tuple[Select, ...] = ()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _slot_value(value: Any, locale: str) -> str:
    figure = float(value)
    return str(int(figure)) if figure == int(figure) else number(locale, figure, "0.0")  # « 12,5 »


def _order(view: TrackerView, words: TrackerWords) -> str:
    state = view.state
    names = {c.id: (f"~~{c.name}~~" if c.has("dead") else c.name) for c in state.combatants}
    lines = []
    for index, slot in enumerate(state.order):
        mark = "▶" if index == state.turn and not view.round_over else ("✓" if index < state.turn else "·")
        value = _slot_value(slot.value, words.locale)
        lines.append(f"{mark} {value} — {names.get(slot.combatant, slot.combatant)} (A{slot.k})")
    if len(lines) > ORDER_LINES:
        start = max(0, min(state.turn - 5, len(lines) - ORDER_LINES))
        hidden = len(lines) - ORDER_LINES
        lines = [*lines[start : start + ORDER_LINES], words.t("combat.tracker.more", n=hidden)]
    return _cut("\n".join(lines) or words.t("combat.tracker.no_order"), FIELD_MAX)


def _armour(c: Combatant, words: TrackerWords) -> str:
    parts = []
    for zone in ("tete", "corps", "bras", "jambes"):
        for layer in c.armour.get(zone, ()):
            if layer.pv < layer.pv_max or layer.pa_lost:
                lost = f" −{layer.pa_lost} PA" if layer.pa_lost else ""
                parts.append(f"{words.zone(zone)} {layer.pv}/{layer.pv_max}{lost}")
    return ", ".join(parts)


def _side(c: Combatant, words: TrackerWords) -> str:
    if c.side:
        return c.side
    return words.t("turns.side.pnj" if c.npc else "turns.side.pj")


def _combatant(view: TrackerView, c: Combatant, words: TrackerWords, *, acting: bool) -> Field:
    side = _side(c, words)
    if c.has("dead"):
        return Field(
            name=_cut(f"💀 ~~{c.name}~~ · {side}", 256), value=words.t("turns.tracker.dead"), inline=True
        )
    icon = "💤 " if c.has("unconscious") else ("▶ " if acting else "")
    renove = view.ruleset == "renove"
    lines = list(view.extra.get(c.id, ())) if not renove else []
    if renove and c.id in view.postures:
        lines.append(words.t("turns.tracker.posture", posture=words.posture(c.posture, c.posture_option)))
    acts = c.actions
    # a second weapon (or a shield) in the other hand gives one more A per round: count it both ways
    second = 1 if c.off_hand is not None or c.id in view.second_weapon or acts.second_weapon_used else 0
    state = [
        words.t(
            "combat.tracker.actions",
            used=acts.used + (1 if acts.second_weapon_used else 0),
            total=c.attacks + second,
        )
    ]
    if c.id in view.aims:
        state.append(words.t(f"combat.aim.{view.aims[c.id]}"))  # until his next attack
    if acts.parry_prepared and not acts.parried:
        state.append(words.t("combat.tracker.parry_ready"))
    if acts.debt:
        state.append(words.t("combat.tracker.debt", n=acts.debt))
    if acts.cast:
        state.append(words.t("magic.tracker.cast_full" if acts.cast >= 2 else "magic.tracker.cast_half"))
    lines.append(" · ".join(state))
    if renove:
        lines.extend(view.extra.get(c.id, ()))  # a mage's chaos dice and voice (data/magic.json)
    if c.shield_pv is not None:
        maximum = view.shield_max.get(c.id)
        lines.append(
            words.t("combat.tracker.shield", pv=c.shield_pv, max=maximum if maximum is not None else "?")
        )
    armour = _armour(c, words)
    if armour:
        lines.append(words.t("combat.tracker.armour", wear=armour))
    for index, condition in enumerate(c.conditions, 1):
        if condition.kind == "dead":
            continue
        if not renove and condition.source.startswith(f"{view.ruleset}.loss."):
            continue
        lines.append(f"{index}. {words.condition(condition, c.name)}")
    name = _cut(f"{icon}{c.name} · {side}", 256)
    return Field(name=name, value=_cut("\n".join(lines), FIELD_MAX), inline=True)


def in_initiative_order(state: FightState) -> list[Combatant]:
    """The fighters by their first slot of the round (those without one after, the dead last)."""
    first: dict[str, int] = {}
    for index, slot in enumerate(state.order):
        first.setdefault(slot.combatant, index)
    ranked = sorted(
        enumerate(state.combatants),
        key=lambda item: (item[1].has("dead"), first.get(item[1].id, len(state.order)), item[0]),
    )
    return [c for _, c in ranked]


def render_tracker(view: TrackerView, words: TrackerWords) -> Reply:
    state = view.state
    current = state.current_slot
    if view.closed:
        status = words.t("combat.tracker.closed")
    elif state.round == 0:
        status = words.t("combat.tracker.not_started")
    elif view.round_over or current is None:
        status = words.t("combat.tracker.round_over", round=state.round)
    else:
        status = words.t("turns.tracker.round", round=state.round)
    if view.waiting and not view.closed:
        head = "\n".join([f"**{view.waiting[0]}**", *view.waiting[1:]])
        running = state.round and not view.round_over and current is not None
        status = head + ("\n" + status if running else "")
    title = _cut("🛡️ " + view.name, 256)
    footer = words.t("combat.tracker.footer")
    used = len(title) + len(footer) + len(status)
    fields = [Field(name=words.t("combat.tracker.order"), value=_order(view, words))]
    used += len(fields[0].name) + len(fields[0].value)
    combatants = in_initiative_order(state)
    shown = 0
    for c in combatants:
        item = _combatant(
            view, c, words, acting=current is not None and current.combatant == c.id and not view.round_over
        )
        cost = len(item.name) + len(item.value)
        if len(fields) >= FIELDS_MAX - 1 or used + cost > BUDGET - 60:
            break
        fields.append(item)
        used += cost
        shown += 1
    if shown < len(combatants):
        rest = ", ".join(c.name for c in combatants[shown:])
        fields.append(
            Field(
                name=words.t("combat.tracker.more", n=len(combatants) - shown),
                value=_cut(rest, min(FIELD_MAX, max(20, BUDGET - used - 40))),
            )
        )
    return Reply(
        title=title,
        description=_cut(status, DESCRIPTION_MAX),
        fields=tuple(fields),
        footer=footer,
        colour=Colour.NEUTRAL if not view.closed else Colour.INFO,
        buttons=view.buttons,
        selects=view.selects,
        kind="combat.tracker",
        result={
            "round": state.round,
            "turn": state.turn,
            "combatants": len(combatants),
            "shown": shown,
            "waiting": list(view.waiting),
        },
    )
