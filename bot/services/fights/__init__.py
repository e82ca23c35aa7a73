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
     "options": {"mort_subite": bool, "npc_defence": "auto" | "manuel"}, "round_over": bool,
     "slot_done": bool, "asks": {n: question before an attack (:mod:`.sides`)}, "ask_seq": last n}

A combatant's side is ``Combatant.side`` (None: PJ / PNJ); an NPC's own defence mode is
``meta[id]["defence"]`` (:mod:`.npc_defence`).

Readings (besides the core's):

* A-costing actions are taken on one's own slot, one per slot; the turn then passes on by itself.
  Free actions, dodges and parries are taken any time. The GM may act for anyone.
* A parry with an A still unspent this round spends it as a prepared parry (the seed's "préparer
  une parade"); without any A left it is a reactive parry (−10 %, one A of next round).
* Quick NPCs from ``creatures_bf``: the table gives BF only; the other characteristics default to
  :data:`QUICK_NPC_DEFAULTS` (GM options override them) and BE defaults to BF (monsters double F
  and E alike). Characters of a playable race carry the +3 to BF, BE and BA on their sheet.
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
adapter (:mod:`bot.services.fights.systems.v1`, :mod:`~bot.services.fights.systems.d20`,
:mod:`~bot.services.fights.systems.ogl`), which calls the system's rules module. Their GM options (given
with ``/combat ouvrir options:…``) live in the fight document's ``options``.

The package is split by use case: :mod:`._core` (scope, transaction, document, events, refusals),
:mod:`.roster` (building combatants), :mod:`.opening` (open, add, remove), :mod:`.rounds` (rounds,
postures, turns), :mod:`.actions`, :mod:`.attacks`, :mod:`.hits` (an attack against its defence),
:mod:`.defence`, :mod:`.sides` (sides, questions before an attack), :mod:`.npc_defence` (NPCs
that defend by themselves, the legal defence buttons), :mod:`.damage` (damage, criticals,
proposals), :mod:`.conditions` (due tests, conditions, corrections), :mod:`.ending` (show,
end), :mod:`.choices` (autocomplete), :mod:`.undo` (``/combat annuler`` over the journal of
actions, :mod:`bot.db.fight_journal`) and
:mod:`.kit` (the pieces the other rulesets' adapters share), :mod:`.registry` (the
:class:`~.registry.FightSystem` protocol and the lookup by ruleset) and :mod:`.systems` (one adapter per
other ruleset). Nothing is re-exported here: import a name from the module that defines it.
"""
