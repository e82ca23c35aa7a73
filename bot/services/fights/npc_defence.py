"""NPCs that defend by themselves, and the defence buttons a defender may really use.

Each NPC defends in one *mode*: its own (``/combat ajouter defense:`` or ``/combat defense_pnj
qui:``), else the fight's (``/combat ouvrir defense_pnj:``, ``/combat defense_pnj``), else
``manuel``. Modes:

* ``auto``: when an attack hits him, the bot answers at once with the legal defence that has the
  best chance of success for him (his parry with his CC and the parry modifiers, his dodge with Ag
  and Esquive, else « encaisser »), rolled with the fight's random source and shown in the attack's
  reply like any defence;
* ``parer`` / ``esquiver`` / ``encaisser``: the same, always that choice (the best legal one when
  the rules forbid it then, and the reply says so);
* ``manuel``: the GM answers with the buttons (only the legal ones, and « Défense auto » for the
  bot's best choice) or ``/combat defense choix:auto jet:…`` with the die rolled by hand. When the
  wait lapses (3 minutes), the attacker's player may press any button: the NPC then defends with
  his best choice (not « encaisser »), so a slow GM costs his NPCs nothing and blocks no one.

Every ruleset has it: `renove` reads its chances from :func:`bot.services.fights.hits.defence_chances`,
`v1`, `d20` and `ogl` from their adapter's ``defence_chances`` (the same legality checks and targets
as their ``resolve``: the v1 parry needs a prepared parry or an off-hand weapon or shield, the dodge
the Esquive skill; the d20 bare hands cannot parry a weapon; the ogl reactions left this round, the
En Défense bonus, aiming …). A d20 chance is its score on the d20 (× 5 %), the others a d100's %.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.context import AppContext
from bot.rules.combat.state import Combatant
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    fight_here,
    new_event,
    outcome,
    require_gm,
    run,
)
from bot.services.fights.hits import defence_chances
from bot.services.fights.registry import system_of
from bot.services.fights.roster import _list
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

FIGHT_MODES: Final = ("auto", "manuel")
NPC_MODES: Final = ("auto", "parer", "esquiver", "encaisser", "manuel", "defaut")
AUTO: Final = "auto"
# what a GM may type for a mode, in either language
_MODE_WORDS: Final = {
    "auto": "auto",
    "automatique": "auto",
    "automatic": "auto",
    "manuel": "manuel",
    "manual": "manuel",
    "parer": "parer",
    "parry": "parer",
    "esquiver": "esquiver",
    "dodge": "esquiver",
    "encaisser": "encaisser",
    "take": "encaisser",
    "defaut": "defaut",
    "default": "defaut",
}


def parse_mode(text: str | None, allowed: tuple[str, ...]) -> str | None:
    if text is None or not text.strip():
        return None
    mode = _MODE_WORDS.get(fold(text).replace("é", "e"))
    if mode is None or mode not in allowed:
        raise FightRefusal("combat.npcdef.error.bad_mode", modes=", ".join(allowed))
    return mode


def check_ruleset(doc_ruleset: str | None, mode: str | None) -> None:
    """Every ruleset has NPC defence modes now (kept for the callers: nothing to refuse)."""


def fight_mode(doc: Doc) -> str:
    return str((doc.data.get("options") or {}).get("npc_defence") or "manuel")


def mode_of(doc: Doc, c: Combatant) -> str:
    """How ``c`` defends: a PC always by hand; an NPC by his own mode, else the fight's."""
    if not c.npc:
        return "manuel"
    own = doc.meta.get(c.id, {}).get("defence")
    return str(own) if own else fight_mode(doc)


def best_choice(chances: Mapping[str, int]) -> str:
    """The legal defence with the best chance (a parry before a dodge when equal), else « encaisser »."""
    legal = [(choice, chances[choice]) for choice in ("parer", "esquiver") if chances.get(choice, 0) > 0]
    if not legal:
        return "encaisser"
    return max(legal, key=lambda item: item[1])[0]


async def chances_of(scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
    """The legal defences of ``pending``'s defender and their chances, by the fight's ruleset."""
    if (doc.row.ruleset or "renove") in OTHER_RULESETS:
        return await system_of(doc.row.ruleset).defence_chances(scope, doc, pending)
    return defence_chances(scope, doc, pending)


def pick(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    mode: str,
    chances: Mapping[str, int] | None = None,
) -> tuple[str, str, dict[str, Any]]:
    """The choice the bot makes for the defender in ``mode``, the line that says it, and what it
    was made from (for the reply's result: the mode, the legal choices and their chances).
    ``chances``: from :func:`chances_of` (another ruleset's); omitted, renove's."""
    chances = dict(chances) if chances is not None else defence_chances(scope, doc, pending)
    choice, line = _pick(scope, doc, pending, mode, chances)
    return choice, line, {"choice": choice, "mode": mode, "chances": chances}


def _pick(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], mode: str, chances: Mapping[str, int]
) -> tuple[str, str]:
    defender = doc.state.get(pending["defender"])
    best = best_choice(chances)
    word = scope.t(f"combat.npcdef.choice.{best}")
    name = defender.name
    if mode in ("parer", "esquiver", "encaisser"):
        if mode in chances:
            return mode, scope.t(
                "combat.npcdef.fixed", name=name, choice=scope.t(f"combat.npcdef.choice.{mode}")
            )
        fixed = scope.t(f"combat.npcdef.choice.{mode}")
        if best == "encaisser":
            return best, scope.t("combat.npcdef.fixed_none", name=name, fixed=fixed)
        return best, scope.t(
            "combat.npcdef.fixed_illegal", name=name, fixed=fixed, choice=word, chance=chances[best]
        )
    if best == "encaisser":
        return best, scope.t("combat.npcdef.no_defence", name=name)
    return best, scope.t("combat.npcdef.best", name=name, choice=word, chance=chances[best])


def defence_prompt(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], owner: str, chances: Mapping[str, int] | None = None
) -> str:
    """« 🛡️ Gobelin 2 @MJ : esquiver ou encaisser ? » — the same legal choices as the buttons."""
    if chances is None:
        chances = defence_chances(scope, doc, pending)
    verbs = [scope.t(f"combat.defence.verb.{c}") for c in ("parer", "esquiver", "encaisser") if c in chances]
    name = doc.state.get(pending["defender"]).name
    if len(verbs) <= 1:  # nothing but « encaisser »: no question to ask
        return scope.t("combat.defence.take_only", name=name, owner=owner)
    choices = ", ".join(verbs[:-1]) + f" {scope.t('combat.word.or')} " + verbs[-1]
    return scope.t("combat.defence.choices", name=name, owner=owner, choices=choices)


def defence_buttons(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], chances: Mapping[str, int] | None = None
) -> tuple[tuple[Button, ...], ...]:
    """The buttons of a pending defence: only the defences the rules allow the defender now (his
    posture, his actions left), « Encaisser », and « Défense auto » for an NPC. ``chances``: from
    :func:`chances_of` (another ruleset's); omitted, renove's."""
    if chances is None:
        chances = defence_chances(scope, doc, pending)
    defender = doc.state.get(pending["defender"])
    seq = pending["seq"]
    row = [
        Button(scope.t(f"combat.defence.button.{choice}"), custom_id(doc.row.id, "def", seq, choice), style)
        for choice, style in (
            ("parer", ButtonStyle.PRIMARY),
            ("esquiver", ButtonStyle.PRIMARY),
            ("encaisser", ButtonStyle.SECONDARY),
        )
        if choice in chances
    ]
    if defender.npc:
        row.append(
            Button(
                scope.t("combat.defence.button.auto"),
                custom_id(doc.row.id, "def", seq, AUTO),
                ButtonStyle.SUCCESS,
            )
        )
    return (tuple(row),)


def set_for(doc: Doc, added: list[Combatant], mode: str | None) -> None:
    """The mode of fighters just added (``/combat ajouter defense:``): NPCs only."""
    if mode is None:
        return
    check_ruleset(doc.row.ruleset, mode)
    for c in added:
        if not c.npc:
            raise FightRefusal("combat.npcdef.error.pc", name=c.name)
        if mode == "defaut":
            doc.meta[c.id].pop("defence", None)
        else:
            doc.meta[c.id]["defence"] = mode


def mode_line(scope: Scope, mode: str | None) -> str | None:
    if mode is None or mode == "defaut":
        return None
    return scope.t("combat.npcdef.line", mode=scope.t(f"combat.npcdef.mode.{mode}"))


async def set_npc_defence(
    ctx: AppContext, caller: Caller, *, mode: str, who: str | None = None
) -> FightOutcome:
    """GM: how the fight's NPCs defend (``who`` omitted: the fight's mode; else those NPCs')."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        if who:
            value = parse_mode(mode, NPC_MODES)
            assert value is not None
            check_ruleset(doc.row.ruleset, value)
            targets = [doc.find(part) for part in _list(who)]
            set_for(doc, targets, value)
            text = scope.t(
                "combat.npcdef.done_npcs",
                names=", ".join(c.name for c in targets),
                mode=scope.t(f"combat.npcdef.mode.{value}"),
            )
            result: dict[str, Any] = {"mode": value, "combatants": [c.id for c in targets]}
        else:
            value = parse_mode(mode, FIGHT_MODES)
            assert value is not None
            check_ruleset(doc.row.ruleset, value)
            doc.data["options"] = {**(doc.data.get("options") or {}), "npc_defence": value}
            text = scope.t("combat.npcdef.done_fight", mode=scope.t(f"combat.npcdef.mode.{value}"))
            result = {"mode": value, "fight": True}
        new_event(scope, doc, "npc_defence", None, result)
        doc.save()
        return outcome(
            scope, doc, Reply(description=text, colour=Colour.INFO, kind="combat.npc_defence", result=result)
        )

    return await run(ctx, caller, work)
