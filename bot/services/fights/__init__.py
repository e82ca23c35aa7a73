"""Fights in threads (``/combat``): the `renove` combat loop, one transaction per use case.

Every use case loads the fight row, rebuilds the pure :class:`FightState` from its JSON, runs the
combat core (``bot.rules.combat``), saves the new state (the ``version`` column guards it: a
concurrent writer raises ``StaleDataError`` and nothing is written), appends :class:`FightEvent`
rows and returns a :class:`FightOutcome` (a reply, plus the tracker to edit). Rolls go to the roll
log after the transaction committed.

The fight document (``Fight.state``)::

    {"fight": FightState.to_dict(), "meta": {combatant id: {owner_id, character_id, kind, …}},
     "pending": {seq: pending attack}, "prompts": [due tests], "proposals": {n: permanent change},
     "aim": {combatant: option}, "feint": {combatant: target}, "seq": last event seq,
     "options": {"mort_subite": bool}, "round_over": bool, "slot_done": bool}

Readings (besides the core's):

* A-costing actions are taken on one's own slot, one per slot; the turn then passes on by itself.
  Free actions, dodges and parries are taken any time. The GM may act for anyone.
* A parry with an A still unspent this round spends it as a prepared parry (the seed's "préparer
  une parade"); without any A left it is a reactive parry (−10 %, one A of next round).
* Quick NPCs from ``creatures_bf``: the table gives BF only; the other characteristics default to
  :data:`QUICK_NPC_DEFAULTS` (GM options override them) and BE defaults to BF (monsters double F
  and E alike). Characters of a playable race add ``playable_bonus`` (+3) to BF and BE.
* A death timer that runs out kills (the GM may undo it with ``/combat etat``).
* Holding a shield or a second weapon (or carrying a Lourdes weapon / a flail) costs −5 Ag
  (shields.json ``port_seconde_arme``; Ambidextre waives it for one-handed weapons): applied, itemised,
  to the initiative and the dodge; the Ag tests of effects (a fall …) keep the sheet's Ag.
* A defender on the ground (the ``prone`` condition) parries and dodges with ``def_a_terre``
  (combat_modifiers.json); ``/combat defense situation:`` adds others (mud, snow).
* Every die of a fight goes to the roll log, typed or rolled: initiative, attack, parry/dodge, the
  damage die, the partial-armour coverage d100s, the side effect, the critical, effect tests, durations.
* The Parer / Esquiver / Encaisser buttons take no dice: the bot rolls the parry or dodge d100 and the
  side effect itself (all logged); to type them, answer with ``/combat defense`` instead.
* A permanent change confirmed by the GM goes onto the sheet through the characters repository: a
  characteristic of the sheet's ruleset, else a skill already on the sheet (else refused, kept open).

Other rulesets: the ruleset of a fight is the one in force in the channel when ``/combat ouvrir``
runs (``Fight.ruleset``). The shared machinery (thread, tracker, turns, pending defences, buttons,
events, optimistic locking) stays here; each use case hands a `v1`, `d20` or `ogl` fight to its
adapter (:mod:`bot.services.fight_v1`, :mod:`~bot.services.fight_d20`,
:mod:`~bot.services.fight_ogl`), which calls the system's rules module. Their GM options (given
with ``/combat ouvrir options:…``) live in the fight document's ``options``.

The package is split by use case: :mod:`._core` (scope, transaction, document, events, refusals),
:mod:`.roster` (building combatants), :mod:`.opening` (open, add, remove), :mod:`.rounds` (rounds,
postures, turns), :mod:`.actions`, :mod:`.attacks`, :mod:`.hits` (an attack against its defence),
:mod:`.defence`, :mod:`.damage` (damage, criticals, proposals), :mod:`.conditions` (due tests,
conditions, corrections), :mod:`.ending` (show, end), :mod:`.choices` (autocomplete) and
:mod:`.systems` (the pieces the other rulesets' adapters share). Every name other modules use is
re-exported here.
"""

from __future__ import annotations

from bot.services.fights._core import (
    DEFENCE_CHOICES,
    DEFENCE_TIMEOUT,
    EXTRA_DEFENCE_CHOICES,
    MAX_COMBATANTS,
    MAX_QUICK,
    NAME_MAX,
    OTHER_RULESETS,
    PREFIX,
    QUICK_NPC_DEFAULTS,
    QUICK_NPC_WEAPON,
    TEXT_TABLES,
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    Work,
    attack_payload,
    custom_id,
    d100_or_none,
    fight_by_id,
    fight_here,
    may_control,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
    require_gm,
    run,
    slug,
    system_of,
    tables_for,
    tracker_of,
)
from bot.services.fights.actions import SIMPLE_ACTIONS, take_simple_action
from bot.services.fights.attacks import AttackInput, attack
from bot.services.fights.choices import active_name, combatant_choices, who_choices
from bot.services.fights.conditions import CONDITION_OPS, correct, edit_condition, roll_due_test
from bot.services.fights.damage import answer_proposal
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight, show
from bot.services.fights.hits import CONDITION_SITUATIONS
from bot.services.fights.opening import abandon, add_combatants, attach_thread, open_fight, remove_combatant
from bot.services.fights.roster import NpcStats, _list, find_preset, preset_choices
from bot.services.fights.rounds import (
    advance,
    close_open_round,
    named_entries,
    new_round,
    round_outcome,
    set_posture,
    start_system_round,
)
from bot.services.fights.systems import (
    ARMS_MAX,
    BARE_HANDS,
    RANGED_KINDS,
    Recruit,
    action_reply,
    actor,
    add_other,
    application_lines,
    arms_from_sheet,
    check_line,
    generic_action,
    mention,
    parse_arms,
    parse_caracs,
    parse_option_tokens,
    pass_turn,
    pending_buttons,
    pick_arm,
    set_dead,
    settle,
    situation_tokens,
    spend,
    system_tables,
)

__all__ = [
    "ARMS_MAX",
    "BARE_HANDS",
    "CONDITION_OPS",
    "CONDITION_SITUATIONS",
    "DEFENCE_CHOICES",
    "DEFENCE_TIMEOUT",
    "EXTRA_DEFENCE_CHOICES",
    "MAX_COMBATANTS",
    "MAX_QUICK",
    "NAME_MAX",
    "OTHER_RULESETS",
    "PREFIX",
    "QUICK_NPC_DEFAULTS",
    "QUICK_NPC_WEAPON",
    "RANGED_KINDS",
    "SIMPLE_ACTIONS",
    "TEXT_TABLES",
    "AttackInput",
    "DefenceRolls",
    "Doc",
    "FightOutcome",
    "FightRefusal",
    "NpcStats",
    "Recruit",
    "RollNote",
    "Scope",
    "Work",
    "_list",
    "abandon",
    "action_reply",
    "active_name",
    "actor",
    "add_combatants",
    "add_other",
    "advance",
    "answer_proposal",
    "application_lines",
    "arms_from_sheet",
    "attach_thread",
    "attack",
    "attack_payload",
    "check_line",
    "close_open_round",
    "combatant_choices",
    "correct",
    "custom_id",
    "d100_or_none",
    "defend",
    "edit_condition",
    "end_fight",
    "fight_by_id",
    "fight_here",
    "find_preset",
    "generic_action",
    "may_control",
    "mention",
    "named_entries",
    "new_event",
    "new_round",
    "open_fight",
    "outcome",
    "parse_arms",
    "parse_caracs",
    "parse_dice",
    "parse_option_tokens",
    "pass_turn",
    "pending_buttons",
    "pending_defence",
    "pick_arm",
    "preset_choices",
    "remove_combatant",
    "require_gm",
    "roll_due_test",
    "round_outcome",
    "run",
    "set_dead",
    "set_posture",
    "settle",
    "show",
    "situation_tokens",
    "slug",
    "spend",
    "start_system_round",
    "system_of",
    "system_tables",
    "tables_for",
    "take_simple_action",
    "tracker_of",
    "who_choices",
]
