"""Turns that make sense and a tracker that leads (issue 18): the turn passes only once the action is
resolved (the defence answered or its delay run out), « Suivant » and a mid-round « round » ask first
and say what happens, a pending attack is taken before the new round, refusals name whose turn it is,
the player whose turn comes is pinged, and the tracker says what the table waits for in every state,
in initiative order, with sides, postures chosen this round, « 1 sur 2 » and the dead struck through."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.context import AppContext
from bot.db.fight_models import Fight
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import correct, edit_condition
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight, show
from bot.services.fights.opening import add_combatants
from bot.services.fights.phone import attack_button, choose_target
from bot.services.fights.rounds import advance, new_round, set_posture
from bot.ui.reply import Reply

from .fight_context import ctx, ok
from .test_fights import ALICE, BOB, GM, NoDice, character, opened

__all__ = ["ctx"]

DICE = "Élise: 15 12 10; Grimli: 10 10 10; Gobelin 1: 5 5 5; Gobelin 2: 4 4 4"


async def table(ctx: AppContext) -> int:
    """Élise (Alice's), Grimli (Bob's) and two goblins, added goblins first; round 1 begun."""
    await character(ctx, ALICE.user_id, "Élise", 45)
    await character(ctx, BOB.user_id, "Grimli", 40)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, GM, who="2 gobelins"))
    ok(await add_combatants(ctx, ALICE, who="Élise"))
    ok(await add_combatants(ctx, BOB, who="Grimli"))
    ok(await new_round(ctx, GM, dice=DICE))
    return fight_id


async def tracker(ctx: AppContext) -> Reply:
    return (await show(ctx, GM)).reply


def waiting(reply: Reply) -> list[str]:
    return list((reply.result or {})["waiting"])


def field(reply: Reply, name: str) -> Any:
    return next(f for f in reply.fields if name in f.name)


async def state(ctx: AppContext) -> dict[str, Any]:
    return dict(ok(await show(ctx, GM))["state"])


def turn_of(s: dict[str, Any]) -> str:
    return str(s["order"][s["turn"]]["combatant"])


async def test_the_turn_waits_for_the_defence_then_passes_and_pings_the_next_player(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    assert waiting(await tracker(ctx)) == [
        "⏳ Élise choisit sa posture (c'est son tour)",
        "Postures à choisir : Grimli, Gobelin 1, Gobelin 2",
    ]
    attack = await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 1", roll=34, damage="7"))
    text = attack.reply.description or ""
    assert ok(attack)["pending"] and "Au tour" not in text
    assert text.endswith("⏳ En attente de la défense : Gobelin 1 — le tour passe ensuite.")
    assert attack.reply.content is None and attack.reply.mentions == ()
    # the turn is still Élise's: Grimli may not act, and is told what the table waits for
    s = await state(ctx)
    assert turn_of(s) == "elise"
    early = await fights_attacks.attack(ctx, BOB, AttackInput(target="Gobelin 2", attacker="Grimli", roll=50))
    assert early.reply.is_error
    assert early.reply.description == (  # Bob reads English
        f"It is not Grimli's turn: Gobelin 1 must defend against Élise (attack no. {ok(attack)['seq']})."
    )
    again = await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 2", roll=50))
    assert again.reply.is_error and "Plus d'attaque" in (again.reply.description or "")
    assert waiting(await tracker(ctx)) == [
        f"⏳ Gobelin 1 doit se défendre contre Élise (attaque n° {ok(attack)['seq']})"
    ]
    # the defence answered: the turn passes to Grimli, whose player is pinged (and only him)
    taken = await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=ok(attack)["seq"])
    assert (taken.reply.description or "").split("\n")[-1] == "▶ Au tour de **Grimli**."
    assert taken.reply.content == f"<@{BOB.user_id}> ▶ Au tour de Grimli."
    assert taken.reply.mentions == (BOB.user_id,)
    assert turn_of(await state(ctx)) == "grimli"
    # the phone's target select of Grimli offers the other side only
    [select] = taken.reply.selects
    assert [o.label for o in select.options] == ["Gobelin 1", "Gobelin 2"]
    assert select.placeholder == "🎯 Cible de Grimli…"


async def test_an_unanswered_defence_taken_by_the_attacker_after_the_delay_passes_the_turn(
    ctx: AppContext,
) -> None:
    fight_id = await table(ctx)
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 1", roll=34, damage="7")))
    seq = attack["seq"]
    early = await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=seq)
    assert early.reply.is_error and turn_of(await state(ctx)) == "elise"
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None
        data = dict(row.state)
        pending = dict(data["pending"])
        pending[str(seq)] = {
            **pending[str(seq)],
            "expires_at": (datetime.now(UTC) - timedelta(seconds=1)).isoformat(),
        }
        row.state = {**data, "pending": pending}
    late = ok(await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=seq))
    # the wait lapsed: the goblin (an NPC) defends at his best instead of taking it (issue 18, NPC
    # defence), and the turn passes once that defence is resolved
    assert late["choice"] == "parer" and late["auto_defence"]["choice"] == "parer"
    assert turn_of(await state(ctx)) == "grimli"


async def test_next_names_who_has_not_acted_and_asks_first(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    asked = await advance(ctx, GM)
    assert asked.reply.ephemeral and not asked.reply.is_error and asked.tracker is None
    assert asked.reply.description == (
        "Élise n'a pas encore agi sur ce créneau (attaques : 0 sur 1). Passer son tour ? "
        "L'action de ce créneau est perdue."
    )
    [[button]] = asked.reply.buttons
    assert button.label == "Passer le tour d'Élise" and button.custom_id == f"melee:fight:{fight_id}:next:1:0"
    assert turn_of(await state(ctx)) == "elise"  # nothing moved yet
    refused = await advance(ctx, ALICE, fight_id=fight_id, confirmed=(1, 0))
    assert refused.reply.is_error
    passed = await advance(ctx, GM, fight_id=fight_id, confirmed=(1, 0))
    assert (passed.reply.description or "").split("\n") == [
        "Élise passe son tour.",
        "▶ Au tour de **Grimli**.",
    ]
    assert passed.reply.mentions == (BOB.user_id,)
    stale = await advance(ctx, GM, fight_id=fight_id, confirmed=(1, 0))
    assert stale.reply.description == "Ce bouton n'est plus valable : c'est au tour de Grimli."
    # while a defence is awaited, « Suivant » is refused and says why (never an empty message)
    attack = ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Gobelin 2", roll=20, damage="3")))
    held = await advance(ctx, GM)
    assert held.reply.is_error and held.reply.description == (
        f"Le tour passe de lui-même une fois la défense répondue : Gobelin 2 doit se défendre contre "
        f"Grimli (attaque n° {attack['seq']}). Le MJ peut répondre avec les boutons de l'attaque."
    )


async def test_a_new_round_mid_round_asks_and_takes_the_pending_attack_before_it(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    attack = ok(
        await fights_attacks.attack(
            ctx, ALICE, AttackInput(target="Gobelin 1", roll=34, damage="7", critical=45), rng=NoDice()
        )
    )
    seq = attack["seq"]
    asked = await new_round(ctx, GM, dice=DICE)
    assert asked.reply.ephemeral and (asked.reply.result or {})["confirm"]
    assert (asked.reply.description or "").split("\n") == [
        "Le round 1 n'est pas fini.",
        "Pas encore agi : Grimli, Gobelin 1, Gobelin 2 — leurs actions de ce round sont perdues.",
        f"Gobelin 1 doit se défendre contre Élise (attaque n° {seq}) : sans réponse, l'attaque est "
        "encaissée (dégâts et critique tirés par le bot) avant le nouveau round.",
    ]
    [[button]] = asked.reply.buttons
    assert button.label == "Lancer le round 2" and button.custom_id == f"melee:fight:{fight_id}:round:1"
    assert (await state(ctx))["round"] == 1
    # confirmed: the attack is taken in round 1 (the dice typed with the first ask are used), then round 2
    started = await new_round(ctx, GM, fight_id=fight_id, confirmed=1)
    text = started.reply.description or ""
    assert text.startswith(
        f"Attaque n° {seq}, Élise contre Gobelin 1 : sans défense avant la fin du round, elle est encaissée."
    )
    assert "Gobelin 1 encaisse." in text and text.index("encaisse.") < text.index("Fin du round 1.")
    assert ok(started)["round"] == 2, started.reply.description
    assert ok(started)["order"][0]["value"] == 15 + 12 + 10 + 35, ok(started)["order"]
    # the round-1 attack can no longer be parried in round 2, nor eat round 2's action
    late = await defend(ctx, GM, choice="parer", fight_id=fight_id, seq=seq)
    assert late.reply.is_error and "déjà résolue" in (late.reply.description or "")
    goblin = next(c for c in (await state(ctx))["combatants"] if c["id"] == "gobelin-1")
    assert goblin["actions"]["used"] == 0
    # an old confirmation button does nothing
    stale = await new_round(ctx, GM, fight_id=fight_id, confirmed=1)
    assert stale.reply.is_error and "déjà fini" in (stale.reply.description or "")


async def test_a_round_that_has_ended_starts_the_next_without_asking(ctx: AppContext) -> None:
    await table(ctx)
    for who in ("Élise", "Grimli", "Gobelin 1", "Gobelin 2"):
        asked = ok(await advance(ctx, GM))
        assert asked["not_acted"] == [who]
        ok(await advance(ctx, GM, fight_id=asked["fight_id"], confirmed=tuple(asked["turn"])))
    assert waiting(await tracker(ctx)) == ["Le round 1 est fini : le MJ lance le round 2"]
    started = ok(await new_round(ctx, GM, dice=DICE))
    assert started["round"] == 2 and not started.get("confirm")


async def test_the_waiting_line_in_every_state(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Élise", 45)
    fight_id = await opened(ctx)
    assert waiting(await tracker(ctx)) == [
        "Le MJ ajoute les combattants, puis lance le round 1 (/combat round)."
    ]
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await add_combatants(ctx, ALICE, who="Élise"))
    ok(await new_round(ctx, GM, dice="Élise: 15 12 10; Gobelin: 5 5 5"))
    first = await tracker(ctx)
    assert waiting(first) == ["⏳ Élise choisit sa posture (c'est son tour)", "Postures à choisir : Gobelin"]
    assert (first.description or "").startswith("**⏳ Élise choisit sa posture (c'est son tour)**\n")
    ok(await set_posture(ctx, ALICE, posture="temeraire"))
    assert waiting(await tracker(ctx)) == ["⏳ Au tour d'Élise", "Postures à choisir : Gobelin"]
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin", roll=34, damage="7")))
    assert waiting(await tracker(ctx)) == [
        f"⏳ Gobelin doit se défendre contre Élise (attaque n° {attack['seq']})"
    ]
    ok(await defend(ctx, GM, choice="esquiver", fight_id=fight_id, seq=attack["seq"], rolls=None))
    after = waiting(await tracker(ctx))
    assert after in (
        ["⏳ Gobelin choisit sa posture (c'est son tour)"],
        ["Le round 1 est fini : le MJ lance le round 2"],
    )
    ok(await end_fight(ctx, GM))
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None and row.status != "open"


async def test_the_tracker_in_initiative_order_with_sides_postures_attacks_and_the_dead(
    ctx: AppContext,
) -> None:
    await table(ctx)
    ok(await correct(ctx, GM, who="Grimli", field_name="A", value=2))
    board = await tracker(ctx)
    fighters = [f.name for f in board.fields[1:]]
    # added goblins first, listed by initiative: Élise 75, Grimli 60, Gobelin 1 45, Gobelin 2 42
    assert fighters == ["▶ Élise · PJ", "Grimli · PJ", "Gobelin 1 · PNJ", "Gobelin 2 · PNJ"]
    # no posture shown until one is chosen; attacks as « 0 sur 2 »
    assert field(board, "Grimli").value == "Attaques : 0 sur 2"
    ok(await set_posture(ctx, BOB, posture="prudente"))
    assert field(await tracker(ctx), "Grimli").value.split("\n") == [
        "Posture : prudente",
        "Attaques : 0 sur 2",
    ]
    # Gobelin 2 dies with a ticking condition: struck through, no posture, no actions, no conditions
    ok(await edit_condition(ctx, GM, who="Gobelin 2", op="add", stat="CC", value=-10, rounds=3))
    ok(await set_posture(ctx, GM, posture="defensive", who="Gobelin 2"))
    ok(await edit_condition(ctx, GM, who="Gobelin 2", op="add", kind="dead"))
    board = await tracker(ctx)
    dead = board.fields[-1]
    assert (dead.name, dead.value) == ("💀 ~~Gobelin 2~~ · PNJ", "💀 mort")
    assert "~~Gobelin 2~~" in board.fields[0].value  # the order too
    # his conditions do not tick at the end of the round
    before = next(c for c in (await state(ctx))["combatants"] if c["id"] == "gobelin-2")["conditions"]
    await finish_round(ctx)
    after = next(c for c in (await state(ctx))["combatants"] if c["id"] == "gobelin-2")["conditions"]
    assert after == before


async def finish_round(ctx: AppContext) -> None:
    """« Suivant », confirmed, until the round is over."""
    while not waiting(await tracker(ctx))[0].startswith("Le round"):
        asked = ok(await advance(ctx, GM))
        ok(await advance(ctx, GM, fight_id=asked["fight_id"], confirmed=tuple(asked["turn"])))


async def test_one_of_two_attacks_reads_one_of_two(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    ok(await correct(ctx, GM, who="Élise", field_name="A", value=2))
    assert ok(await new_round(ctx, GM, dice=DICE))["confirm"]
    ok(await new_round(ctx, GM, fight_id=fight_id, confirmed=1))
    ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 1", roll=95), rng=NoDice()))
    assert "Attaques : 1 sur 2" in field(await tracker(ctx), "Élise").value.split("\n")


async def test_a_gm_posture_button_asks_which_npc(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    asked = await set_posture(ctx, GM, posture="defensive", fight_id=fight_id)
    assert asked.reply.ephemeral and not asked.reply.is_error
    [select] = asked.reply.selects
    assert [o.value for o in select.options] == ["gobelin-1", "gobelin-2"] and select.max_values == 2
    set_one = ok(await set_posture(ctx, GM, posture="defensive", fight_id=fight_id, chosen=("gobelin-2",)))
    assert set_one["combatants"] == ["gobelin-2"]
    goblins = {c["id"]: c["posture"] for c in (await state(ctx))["combatants"] if c["id"].startswith("gob")}
    assert goblins == {"gobelin-1": "normale", "gobelin-2": "defensive"}
    # a player's button sets his one fighter
    assert ok(await set_posture(ctx, BOB, posture="prudente", fight_id=fight_id))["combatants"] == ["grimli"]
    # postures are chosen each round: not chosen for round 2 → none shown, the normal one applies
    ok(await new_round(ctx, GM, dice=DICE))
    ok(await new_round(ctx, GM, fight_id=fight_id, confirmed=1))
    assert {c["id"]: c["posture"] for c in (await state(ctx))["combatants"]}["grimli"] == "normale"
    assert "Posture" not in field(await tracker(ctx), "Grimli").value


async def test_a_whole_turn_from_the_phone(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    # Élise is fighter 2 (after the two goblins): her select, then her sword's button; the bot rolls
    picked = await choose_target(ctx, ALICE, fight_id=fight_id, attacker=2, values=("gobelin-1",))
    assert picked.reply.ephemeral and picked.reply.description == "🎯 Élise vise Gobelin 1 : attaquer avec…"
    [[sword]] = picked.reply.buttons
    assert sword.label == "⚔️ Epée" and sword.custom_id == f"melee:fight:{fight_id}:atk:2:0-0"
    wrong = await choose_target(ctx, BOB, fight_id=fight_id, attacker=2, values=("gobelin-1",))
    assert wrong.reply.is_error
    not_yet = await attack_button(ctx, BOB, fight_id=fight_id, attacker=3, target=0, weapon=0)
    assert not_yet.reply.description == "It is not Grimli's turn: it is Élise's turn."  # Bob reads English
    struck = ok(await attack_button(ctx, ALICE, fight_id=fight_id, attacker=2, target=0, weapon=0))
    assert struck["attacker"] == "elise" and struck["target"] == "gobelin-1"


async def test_a_held_slot_refuses_its_fighters_second_attack_naming_the_defence(ctx: AppContext) -> None:
    fight_id = await table(ctx)
    ok(await correct(ctx, GM, who="Élise", field_name="A", value=2))
    ok(await new_round(ctx, GM, dice=DICE))
    ok(await new_round(ctx, GM, fight_id=fight_id, confirmed=1))
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 1", roll=34, damage="7")))
    again = await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin 2", roll=20))
    assert again.reply.is_error and again.reply.description == (
        "Élise a déjà agi sur ce créneau : Gobelin 1 doit se défendre contre Élise "
        f"(attaque n° {attack['seq']})."
    )
    # answered, the turn passes to the next slot (Grimli at 65; Élise's second slot comes at I/2)
    ok(await defend(ctx, GM, choice="esquiver", fight_id=fight_id, seq=attack["seq"]))
    assert turn_of(await state(ctx)) == "grimli"


async def test_the_gms_typed_posture_without_who_asks_which_npc(ctx: AppContext) -> None:
    """Issue 18: ``/combat posture`` typed by the GM, who controls both goblins, asks which one
    (the select the button shows) instead of setting them all; ``qui:`` still sets one at once."""
    fight_id = await table(ctx)
    asked = await set_posture(ctx, GM, posture="defensive")
    assert asked.reply.ephemeral and not asked.reply.is_error and asked.reply.kind == "combat.posture.which"
    [select] = asked.reply.selects
    assert [o.value for o in select.options] == ["gobelin-1", "gobelin-2"]
    postures = {c["id"]: c["posture"] for c in (await state(ctx))["combatants"]}
    assert postures["gobelin-1"] == postures["gobelin-2"] == "normale"  # nothing set by the question
    ok(await set_posture(ctx, GM, posture="defensive", fight_id=fight_id, chosen=("gobelin-1",)))
    postures = {c["id"]: c["posture"] for c in (await state(ctx))["combatants"]}
    assert (postures["gobelin-1"], postures["gobelin-2"]) == ("defensive", "normale")
    assert ok(await set_posture(ctx, GM, posture="temeraire", who="Gobelin 2"))["combatants"] == ["gobelin-2"]
