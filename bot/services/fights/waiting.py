"""What the table waits for: the line at the top of the tracker (« Gobelin 2 doit se défendre contre
Gunther (attaque n° 4) », « Élise choisit sa posture », « Au tour de Grimli »), the turn line of the
replies, the ping of the player whose turn comes, postures chosen this round, and the phone controls
(the tracker's buttons, the target select of the fighter whose turn it is).

Readings:

* A posture is chosen each round (seed III – Combat: « A chaque nouveau round, il faut choisir une
  posture »): until it is, the tracker shows none and the fighter acts in the normal posture; a
  posture chosen between two rounds counts for the next one.
* The turn passes once the action is fully resolved: while a defence is awaited the slot is held
  (``slot_done``) and the table waits for that defender.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from bot.rules.combat.state import Combatant
from bot.ui.reply import Button, ButtonStyle, Select, SelectOption
from bot.ui.tracker import in_initiative_order

if TYPE_CHECKING:
    from bot.services.fights._core import Doc, Scope
    from bot.services.fights.text import Words

PREFIX: Final = "melee:fight"
PENDING_LINES: Final = 4
POSTURE_ROW: Final = ("normale", "prudente", "temeraire", "defensive")


def said(w: Words, key: str, name: str, **params: Any) -> str:
    """``key`` with ``name`` (the catalogue's format elides « de » before a vowel: « au tour d'Élise »)."""
    return w.t(key, name=name, **params)


def fid_id(fight_id: int, kind: str, *parts: str | int) -> str:
    value = ":".join([PREFIX, str(fight_id), kind, *(str(p) for p in parts)])
    assert len(value) <= 100, value
    return value


def _name(doc: Doc, cid: str) -> str:
    try:
        return doc.state.get(cid).name
    except KeyError:
        return cid


def running(doc: Doc) -> bool:
    return bool(doc.state.round) and not doc.data.get("round_over")


def current(doc: Doc) -> Combatant | None:
    slot = doc.state.current_slot
    if slot is None or not running(doc):
        return None
    return doc.state.get(slot.combatant)


# -- postures ---------------------------------------------------------------------------------


def posture_round(doc: Doc) -> int:
    """The round a posture chosen now counts for: this one, or the next between two rounds."""
    return doc.state.round + (0 if running(doc) else 1)


def acted(c: Combatant) -> bool:
    """``c`` took an action this round (the A a reactive parry owed from the last round is not one)."""
    acts = c.actions
    return bool(
        acts.attacks_made or acts.kinds_used or acts.second_weapon_used or acts.parry_prepared or acts.parried
    )


DEFENDING: Final = frozenset({"esquiver", "parade_reactive", "preparer_parade"})


def own_action_taken(c: Combatant) -> bool:
    """``c`` took an action of his own this round (an attack, a special action, a feint, an aim …).
    Defending — a dodge, a reactive parry, a parry prepared or made — is not one (seed l. 965: « A
    chaque nouveau round, il faut choisir une posture »; l. 991: the prepared parry is announced at
    the start of the round, with the posture)."""
    acts = c.actions
    return bool(acts.attacks_made or any(k not in DEFENDING for k in acts.kinds_used))


def posture_shown(doc: Doc, c: Combatant) -> bool:
    """Whether the tracker shows ``c``'s posture: chosen for this round, or fixed by acting (an
    action of his own: a defence leaves it to choose)."""
    if c.has("dead"):
        return False
    chosen = doc.data.get("postures") or {}
    return chosen.get(c.id) == posture_round(doc) or (running(doc) and own_action_taken(c))


def must_choose(doc: Doc, c: Combatant) -> bool:
    """``c`` still has a posture to choose this round (renove; alive, able to act, not acted yet)."""
    if (doc.row.ruleset or "renove") != "renove" or not running(doc):
        return False
    if c.has("dead", "unconscious", "no_action", "stunned"):
        return False
    if any(x.kind == "lose_time" and x.unit == "round" for x in c.conditions):
        return False  # a lost round keeps the normal posture
    return not posture_shown(doc, c)


# -- what the table waits for ---------------------------------------------------------------


def pending_lines(w: Words, doc: Doc) -> list[str]:
    """« Gobelin 2 doit se défendre contre Gunther (attaque n° 4) », oldest first."""
    out = []
    for p in sorted(doc.pending.values(), key=lambda p: int(p["seq"])):
        attacker = p.get("label") or _name(doc, str(p["attacker"]))
        out.append(
            w.t(
                "turns.wait.defence", defender=_name(doc, str(p["defender"])), attacker=attacker, seq=p["seq"]
            )
        )
    if len(out) > PENDING_LINES:
        out = [*out[:PENDING_LINES], w.t("combat.tracker.more", n=len(out) - PENDING_LINES)]
    return out


def waiting(w: Words, doc: Doc) -> tuple[str, ...]:
    """The tracker's first lines: what the table waits for, never empty."""
    state = doc.state
    if doc.row.status != "open":
        return (w.t("combat.tracker.closed"),)
    if state.round == 0:
        return (w.t("turns.wait.not_started"),)
    if doc.pending:
        return tuple("⏳ " + line for line in pending_lines(w, doc))
    c = current(doc)
    if c is None:
        return (w.t("turns.wait.round_over", round=state.round, next=state.round + 1),)
    key = "turns.wait.posture" if must_choose(doc, c) else "turns.wait.turn"
    lines = [said(w, key, c.name)]
    others = [x.name for x in in_initiative_order(state) if x.id != c.id and must_choose(doc, x)]
    if others:
        lines.append(w.t("turns.wait.postures", names=", ".join(others[:12])))
    return tuple(lines)


def turn_line(w: Words, doc: Doc) -> str:
    """The turn line of a reply: whose turn, what holds it, or the end of the round."""
    if not doc.state.round:
        return ""
    if doc.pending:
        names = ", ".join(dict.fromkeys(_name(doc, str(p["defender"])) for p in doc.pending.values()))
        return w.t("turns.held", names=names)
    if doc.data.get("round_over"):
        return w.t("combat.turn.round_over", round=doc.state.round, next=doc.state.round + 1)
    c = current(doc)
    return said(w, "combat.turn.now", c.name) if c is not None else ""


def turn_of(w: Words, doc: Doc) -> str:
    """For a refusal: whose turn it is, or what the table waits for first."""
    if not doc.state.round:
        return w.t("turns.whose_none")
    if doc.pending:
        return pending_lines(w, doc)[0]
    c = current(doc)
    if c is None:
        return w.t("turns.whose_over", round=doc.state.round, next=doc.state.round + 1)
    return said(w, "turns.whose", c.name)


def ping(scope: Scope, doc: Doc) -> tuple[str, int] | None:
    """The content that pings the player whose turn has come (not the GM's NPCs, not the caller)."""
    c = current(doc)
    if c is None or doc.pending:
        return None
    meta = doc.meta.get(c.id, {})
    owner = meta.get("owner_id")
    if meta.get("kind") != "pc" or owner is None or int(owner) == scope.caller.user_id:
        return None
    # addressed to another player: in the server's language, as the tracker
    return said(scope.shared_words, "turns.ping", c.name, mention=f"<@{int(owner)}>"), int(owner)


# -- the phone controls -----------------------------------------------------------------------


def target_select(w: Words, doc: Doc) -> Select | None:
    """« Cible de Grimli… »: the living fighters of the other sides, for the fighter whose turn it is."""
    c = current(doc)
    if c is None or doc.pending or doc.data.get("slot_done"):
        return None
    index = {x.id: i for i, x in enumerate(doc.state.combatants)}
    foes = [x for x in doc.state.combatants if x.id != c.id and not x.has("dead") and not x.allied_with(c)]
    if not foes:
        return None
    options = tuple(
        SelectOption(label=x.name[:100], value=x.id[:100], description=side_label(w, x)) for x in foes[:25]
    )
    return Select(
        custom_id=fid_id(doc.row.id, "tgt", index[c.id]),
        options=options,
        placeholder=said(w, "turns.select.target", c.name)[:150],
    )


def side_label(w: Words, c: Combatant) -> str:
    if c.side:
        return c.side[:40]
    return w.t("turns.side.pnj" if c.npc else "turns.side.pj")


def posture_buttons(w: Words, doc: Doc, postures: Mapping[str, Any]) -> tuple[tuple[Button, ...], ...]:
    """The posture buttons (``pos:<posture>[:<option>]``) of the postures in force."""
    fid = doc.row.id
    row1 = tuple(
        Button(w.posture(p), fid_id(fid, "pos", p), ButtonStyle.SECONDARY)
        for p in POSTURE_ROW
        if p in postures
    )
    suicidal = postures.get("suicidaire")
    row2 = (
        tuple(
            Button(w.posture("suicidaire", o), fid_id(fid, "pos", "suicidaire", o), ButtonStyle.DANGER)
            for o in getattr(suicidal, "options", ())
        )
        if suicidal is not None
        else ()
    )
    return tuple(r for r in (row1, row2) if r)


def tracker_controls(
    w: Words, doc: Doc, postures: Mapping[str, Any]
) -> tuple[tuple[tuple[Button, ...], ...], tuple[Select, ...]]:
    """The tracker's buttons: postures (renove, a round running), « Suivant », « Nouveau round » and
    « Annuler » (GM); and the target select of the fighter whose turn it is."""
    if doc.row.status != "open":
        return (), ()
    fid = doc.row.id
    rows: list[tuple[Button, ...]] = []
    if (doc.row.ruleset or "renove") == "renove" and doc.state.combatants:
        rows.extend(posture_buttons(w, doc, postures))  # before round 1 too: it counts for round 1
    gm: list[Button] = []
    if running(doc):
        gm.append(Button(w.t("turns.button.next"), fid_id(fid, "next"), ButtonStyle.PRIMARY))
    if doc.state.combatants:
        gm.append(Button(w.t("turns.button.round"), fid_id(fid, "round"), ButtonStyle.SECONDARY))
    gm.append(Button(w.t("turns.button.undo"), fid_id(fid, "undo"), ButtonStyle.SECONDARY))
    rows.append(tuple(gm))
    select = target_select(w, doc)
    return tuple(rows), ((select,) if select is not None else ())
