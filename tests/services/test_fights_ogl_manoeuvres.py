"""`ogl` manoeuvres through the services (seed 004), every die by hand: combat actions lost (no
action, no reaction, counted down as the fighter's slots pass), mounted modifiers, two weapons,
the counter-attack reaction, grapple and hero points. Numbers are recomputed from the seed."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls, FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import roll_due_test
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems.ogl_manoeuvres.counter import counter_attack
from bot.services.fights.systems.ogl_manoeuvres.grapple import grapple
from bot.services.fights.systems.ogl_manoeuvres.hero import hero_point
from bot.services.fights.systems.ogl_manoeuvres.mount import set_mount
from bot.services.fights.systems.ogl_manoeuvres.two_weapons import two_weapons

from .fight_context import next_round, skip_turn
from .test_fights import ALICE, CHANNEL, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx"]

# STR 13, CON 12, SIZ 12, DEX 14 → 12 HP: legs 4, abdomen 4, chest 5, arms 3, head 4
BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"
SWORD = 60  # Épée 1d8+1 60%
AXE = 50  # Hache 1d8 50%


async def fight(ctx: AppContext, *, orc_ca: int = 1) -> int:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "ogl")
    fight_id = int(ok(await open_fight(ctx, GM, name="Lice"))["fight_id"])
    knight = NpcStats(caracs=BODY + " PH:3 Bagarre:50", weapons="Épée 1d8+1 60%, Bouclier 1d4 40%")
    ok(await add_combatants(ctx, GM, who="Chevalier", stats=knight, side="Ordre"))
    orc = NpcStats(caracs=BODY + f" RA:2 CA:{orc_ca} PH:1 Bagarre:40", weapons="Hache 1d8 50%")
    ok(await add_combatants(ctx, GM, who="Orc", stats=orc))
    return fight_id


def refused(outcome: FightOutcome) -> str:
    assert outcome.reply.is_error
    return outcome.reply.description or ""


async def hit(
    ctx: AppContext, fight_id: int, data: AttackInput, choice: str = "encaisser", roll: int | None = None
) -> dict[str, Any]:
    out = ok(await fights_attacks.attack(ctx, GM, data, rng=NoDice()))
    return ok(
        await defend(
            ctx,
            GM,
            choice=choice,
            fight_id=fight_id,
            seq=out["seq"],
            rolls=DefenceRolls(roll=roll),
            rng=NoDice(),
        )
    )


def orc_conditions(ctx_result: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in ctx_result["wound"]["conditions"] if c["kind"] == "lose_combat_actions"]


async def test_lost_combat_actions_stop_actions_and_reactions_and_count_down(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    # ranks: Chevalier 5 + 0 = 5, Orc 1 + 2 = 3 → Chevalier first
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # left arm 3 HP: 1d8 4 + 1 = 5 → −2: serious, the 1d4 (3) next combat actions lost (the left arm:
    # the axe stays in the right hand — seed line 33, a useless arm drops what it holds)
    taken = await hit(
        ctx,
        fight_id,
        AttackInput(target="Orc", attacker="Chevalier", roll=30, location="bras_g", damage="4", effects="3"),
    )
    assert taken["wound"]["hp_after"] == 3 - 5 and taken["wound"]["level"] == "serious"
    assert [c["remaining"] for c in orc_conditions(taken)] == [3]
    # the Orc's slot had begun; he has not acted: he may not attack on it
    text = refused(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=10, location="tete")
        )
    )
    assert "Orc" in text and "encore 3" in text
    nxt = ok(await skip_turn(ctx, GM))
    assert nxt["round_over"]
    assert "actions perdues : 2" in tracker_field(await show(ctx, GM), "Orc")
    # round 2: the Orc's slot starts under the condition; no reaction either
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Orc", attacker="Chevalier", roll=30, location="tete", damage="1")
        )
    )
    text = refused(
        await defend(
            ctx, GM, choice="parer", fight_id=fight_id, seq=attack["seq"], rolls=DefenceRolls(roll=20)
        )
    )
    assert "encore 2" in text
    ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice()))
    assert ok(await skip_turn(ctx, GM))["round_over"]  # the lost slot passes: 1 left
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    ok(await skip_turn(ctx, GM))  # the Chevalier passes
    text = refused(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=10, location="tete")
        )
    )
    assert "encore 1" in text
    over = await skip_turn(ctx, GM)
    assert "Orc peut de nouveau agir" in (over.reply.description or "")
    # round 4: free again
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    ok(await skip_turn(ctx, GM))
    ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=99, location="tete")
        )
    )


async def test_mounted_modifiers_apply_to_attacks_and_reactions(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await set_mount(ctx, GM, mounted_now=True, who="Chevalier"))
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # rider against a foe on foot: Épée 60 + 20 = 80, so 75 hits; the Orc's parry 50 − 20 = 30, 35 fails
    out = await hit(
        ctx,
        fight_id,
        AttackInput(target="Orc", attacker="Chevalier", roll=75, location="jambe_g", damage="2"),
        "parer",
        35,
    )
    assert (
        out["exchange"]["attack"]["target"] == SWORD + 20 and out["exchange"]["defence"]["target"] == AXE - 20
    )
    assert out["outcome"] == "hit"
    # the Orc's turn (8 ≤ 50): the rider dodges at 40 − 30 = 10; 9 succeeds and beats 8
    dodge = await hit(
        ctx,
        fight_id,
        AttackInput(target="Chevalier", attacker="Orc", roll=8, location="tete", damage="1"),
        "esquiver",
        9,
    )
    assert dodge["exchange"]["defence"]["target"] == 40 - 30 and dodge["outcome"] == "defended"
    shown = ok(await set_mount(ctx, GM, mounted_now=False, who="Chevalier"))
    assert shown["mounted"] is False


async def test_two_weapons_once_a_round_and_the_counter_attack(ctx: AppContext) -> None:
    fight_id = await fight(ctx, orc_ca=2)
    # Orc 8 + 2 = 10 before the Chevalier's 5; the Orc has 2 combat actions: slots Orc, Chevalier, Orc
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 8"))
    ok(await two_weapons(ctx, GM, use="parade", who="Chevalier"))
    first = await hit(
        ctx,
        fight_id,
        AttackInput(target="Chevalier", attacker="Orc", roll=30, location="tete", damage="1"),
        "parer",
        40,
    )
    assert first["outcome"] == "defended"  # both succeed, 40 > 30
    again = refused(
        await two_weapons(ctx, GM, use="attaque", who="Chevalier", target="Orc", roll=10, location="tete")
    )
    assert "seconde arme" in again
    ok(await skip_turn(ctx, GM))  # the Chevalier's slot
    # one reaction a round (1 combat action) — the second parry is the off hand's
    # the off hand parries with the Bouclier's 40 %: 35 ≤ 40 and 35 > 30
    second = await hit(
        ctx,
        fight_id,
        AttackInput(target="Chevalier", attacker="Orc", roll=30, location="tete", damage="1"),
        "parer",
        35,
    )
    assert second["outcome"] == "defended" and second["exchange"]["defence"]["target"] == 40
    assert second["off_hand_parry"]
    # round 2: the off hand's extra attack (Bouclier 1d4 40 %): 20 hits; left arm 3 → 0: minor wound
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 8"))
    extra = ok(
        await two_weapons(
            ctx, GM, use="attaque", who="Chevalier", target="Orc", roll=20, location="bras_g", damage="3"
        )
    )
    took = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=extra["seq"], rng=NoDice()))
    assert took["wound"]["hp_after"] == 3 - 3 and took["wound"]["level"] == "minor"
    # the Orc runs past: a counter-attack at 60 + 20 = 80 (70 hits); the Orc has lost his next action
    # (minor wound) so he cannot dodge; he takes it: 1d8 2 + 1 = 3 on the chest 5 → 2
    counter = ok(
        await counter_attack(
            ctx, GM, target="Orc", trigger="court", who="Chevalier", roll=70, location="poitrine", damage="2"
        )
    )
    assert counter["attack"]["check"]["target"] == SWORD + 20 and counter["pending"]
    text = refused(
        await defend(
            ctx, GM, choice="esquiver", fight_id=fight_id, seq=counter["seq"], rolls=DefenceRolls(roll=10)
        )
    )
    assert "encore 1" in text
    chest = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=counter["seq"], rng=NoDice()))
    assert chest["wound"]["hp_after"] == 5 - 3
    # one reaction per triggering event; a counter-attack is a melee attack
    text = refused(
        await counter_attack(ctx, GM, target="Orc", trigger="court", who="Chevalier", roll=5, location="tete")
    )
    assert "Une seule réaction" in text


async def test_grapple_grab_immobilise_escape_throw(ctx: AppContext) -> None:
    await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # grab: Bagarre 50 (30) against 40 (20): both succeed, the higher roll (30) wins
    grab = ok(await grapple(ctx, GM, action="saisir", who="Chevalier", target="Orc", roll=30, target_roll=20))
    assert grab["success"] and grab["opposed"]["verdict"] == "a"
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # immobilise: 50 − (DEX 14 + STR 13) = 23; 20 succeeds
    pin = ok(await grapple(ctx, GM, action="immobiliser", who="Chevalier", target="Orc", roll=20))
    assert pin["check"]["target"] == 50 - (14 + 13) and pin["success"]
    text = refused(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=10, location="tete")
        )
    )
    assert "immobilisé" in text
    # escape: 40 − (STR 13 + SIZ 12) = 15; 50 fails
    escape = ok(await grapple(ctx, GM, action="se_degager", who="Orc", roll=50))
    assert escape["check"]["target"] == 40 - (13 + 12) and not escape["success"]
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # throw: Bagarre 10 ≤ 50; 2 m and 1d6 (5) on the head 4 → −1: serious, 1d4 (1) action lost
    throw = ok(
        await grapple(
            ctx,
            GM,
            action="projeter",
            who="Chevalier",
            target="Orc",
            roll=10,
            location="tete",
            damage=5,
            effects="1",
        )
    )
    assert throw["throw"] == {"metres": 2, "die": 5, "location": "tete", "location_roll": None}
    assert throw["wound"]["hp_after"] == 4 - 5 and throw["wound"]["level"] == "serious"
    text = refused(await grapple(ctx, GM, action="immobiliser", who="Chevalier", target="Orc", roll=5))
    assert "n'empoigne pas" in text


async def test_hero_points(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    # second chance on a missed attack (90 > 60): the new 25 hits, the Orc may react now
    miss = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Orc", attacker="Chevalier", roll=90, location="jambe_d", damage="3")
        )
    )
    assert miss["outcome"] == "miss"
    again = ok(await hero_point(ctx, GM, use="seconde_chance", who="Chevalier", roll=25))
    assert again["reroll"]["outcome"] == "hit" and again["pending"] and again["spend"]["points_after"] == 2
    leg = ok(
        await defend(
            ctx,
            GM,
            choice="parer",
            fight_id=fight_id,
            seq=again["seq"],
            rolls=DefenceRolls(roll=70),
            rng=NoDice(),
        )
    )
    assert leg["wound"]["hp_after"] == 4 - 4  # 1d8 3 + 1
    # the Orc rerolls his failed parry: 45 ≤ 50 and 45 > 25 → defended, the wound is undone
    saved = ok(await hero_point(ctx, GM, use="seconde_chance", who="Orc", roll=45))
    assert saved["reroll"]["before"] == "hit" and saved["reroll"]["outcome"] == "defended"
    orc = tracker_field(await show(ctx, GM), "Orc")
    assert "Jambe D 4/4" in orc and "PH" not in orc  # the Orc's only point is spent
    text = refused(await hero_point(ctx, GM, use="eraflure", who="Orc"))
    assert "Plus de point d'héroïsme" in text
    # graze: the Orc's critical (5 ≤ ⌊50/10⌋): 1d8 at its maximum 8 on the left arm 3 → −5 < −3: major;
    # the graze cuts the damage to 3 + 3 = 6 so the arm ends at −3: a serious wound, 1d4 (2) actions lost
    ok(await next_round(ctx, GM, dice="Chevalier: 1; Orc: 9"))
    crit = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=5, location="bras_g")
        )
    )
    major = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=crit["seq"], rng=NoDice()))
    assert (
        major["damage"]["total"] == 8
        and major["wound"]["hp_after"] == 3 - 8
        and major["wound"]["level"] == "major"
    )
    graze = ok(await hero_point(ctx, GM, use="eraflure", who="Chevalier", roll=2))
    assert graze["spend"]["detail"] == {"damage_before": 8, "damage_after": 6, "hp_after": -3}
    assert graze["graze"]["hp_after"] == -3 and graze["graze"]["level"] == "serious"
    assert [c["remaining"] for c in graze["graze"]["conditions"] if c["kind"] == "lose_combat_actions"] == [2]
    knight = tracker_field(await show(ctx, GM), "Chevalier")
    assert "Bras G **-3/3**" in knight and "PH 1" in knight and "actions perdues : 2" in knight
    # hero's luck needs the GM: a player is refused, the GM may
    text = refused(await hero_point(ctx, ALICE, use="chance_du_heros", who="Chevalier"))
    assert "Chevalier" in text
    luck = ok(await hero_point(ctx, GM, use="chance_du_heros", who="Chevalier", note="la lance se brise"))
    assert luck["spend"]["points_after"] == 0
    assert "Plus de point" in refused(await hero_point(ctx, GM, use="chance_du_heros", who="Chevalier"))


def tracker_field(outcome: FightOutcome, name: str) -> str:
    tracker = outcome.tracker or outcome.reply  # /combat voir answers with the tracker itself
    return next(f.value for f in tracker.fields if name in f.name)


async def test_refused_outside_ogl(ctx: AppContext) -> None:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    ok(await open_fight(ctx, GM, name="Autre"))
    text = refused(await set_mount(ctx, GM, mounted_now=True, who="X"))
    assert "ogl" in text and "d20" in text
    text = refused(await hero_point(ctx, ALICE, use="chance_du_heros"))
    assert "ogl" in text


async def test_second_chance_on_a_failed_endurance_test(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1"))
    text = refused(await hero_point(ctx, GM, use="seconde_chance", who="Orc", roll=20))
    assert "pas de jet à relancer" in text
    # chest 5: 1d8 5 + 1 = 6 → −1: serious, an Endurance test (CON 12 × 5 = 60) or unconscious
    chest = await hit(
        ctx,
        fight_id,
        AttackInput(
            target="Orc", attacker="Chevalier", roll=30, location="poitrine", damage="5", effects="1"
        ),
    )
    assert chest["wound"]["hp_after"] == 5 - 6 and chest["wound"]["endurance_tests"] == ["unconscious"]
    failed = ok(await roll_due_test(ctx, GM, who="Orc", roll=75))
    assert failed["check"]["target"] == 60 and not failed["check"]["success"]
    assert asleep(await show(ctx, GM), "Orc")
    saved = ok(await hero_point(ctx, GM, use="seconde_chance", who="Orc", roll=20))
    assert saved["reroll"]["check"]["success"] and saved["spend"]["points_after"] == 0
    assert not asleep(await show(ctx, GM), "Orc")


def asleep(outcome: FightOutcome, name: str) -> bool:
    tracker = outcome.tracker or outcome.reply
    return next(f.name for f in tracker.fields if name in f.name).startswith("💤")


async def test_free_attacks_on_an_ally_ask_first(ctx: AppContext) -> None:
    """Issue 18: the counter-attack and the off hand's extra attack on an ally ask « Confirmer » /
    « Annuler » like ``/combat attaque``; nothing is rolled or spent until confirmed (the reaction,
    the off hand's use this round), « Annuler » leaves the fight as it was."""
    from bot.services.fights.attacks import answer_ask
    from bot.services.fights.systems.ogl_manoeuvres.free_ask import BUTTON

    fight_id = await fight(ctx)
    squire = NpcStats(caracs=BODY, weapons="Épée 1d8+1 60%")
    ok(await add_combatants(ctx, GM, who="Écuyer", stats=squire, side="Ordre"))
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1; Écuyer: 1"))
    before = ok(await show(ctx, GM))
    asked = await two_weapons(
        ctx, GM, use="attaque", who="Chevalier", target="Écuyer", roll=10, location="tete", rng=NoDice()
    )
    result = ok(asked)
    assert asked.reply.ephemeral and result["kind"] == "ogl_off_hand" and result["target"] == "ecuyer"
    confirm, cancel = (b.custom_id for row in asked.reply.buttons for b in row)
    assert confirm == f"melee:fight:{fight_id}:{BUTTON}:{result['ask']}:off_hand"
    assert cancel == f"melee:fight:{fight_id}:ask:{result['ask']}:no"
    assert ok(await show(ctx, GM))["state"] == before["state"]
    # « Annuler »: nothing moved, the off hand still free this round
    ok(await answer_ask(ctx, GM, fight_id=fight_id, number=result["ask"], accept=False))
    assert ok(await show(ctx, GM))["state"] == before["state"]
    # the counter-attack on the ally asks too; « Confirmer » spends the reaction and rolls
    asked = await counter_attack(
        ctx, GM, target="Écuyer", trigger="court", who="Chevalier", roll=95, location="tete", rng=NoDice()
    )
    number = ok(asked)["ask"]
    assert ok(asked)["kind"] == "ogl_counter" and ok(await show(ctx, GM))["state"] == before["state"]
    done = ok(
        await counter_attack(ctx, GM, target="", trigger="", fight_id=fight_id, ask=number, rng=NoDice())
    )
    assert done["tag"] == "counter" and done["attack"]["check"]["roll"] == 95
    # the question answered once only
    again = await counter_attack(ctx, GM, target="", trigger="", fight_id=fight_id, ask=number)
    assert refused(again) == "Cette question a déjà reçu sa réponse."
    # an enemy: no question
    straight = ok(
        await two_weapons(
            ctx, GM, use="attaque", who="Chevalier", target="Orc", roll=95, location="tete", rng=NoDice()
        )
    )
    assert "ask" not in straight and straight["tag"] == "off_hand"


async def ogl_pc(ctx: AppContext, name: str, owner: int) -> None:
    from bot.db.characters import new_row
    from bot.rules.sheets import SheetData

    values = {"STR": 13, "CON": 12, "SIZ": 12, "INT": 10, "POW": 10, "DEX": 14, "CHA": 10}
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, owner, SheetData(name=name, ruleset="ogl", characteristics=values)))


async def test_a_major_wound_offers_the_pc_his_graze(ctx: AppContext) -> None:
    """Issue 18, seed 004 l. 40 (Éraflure): a major wound on a player's PC offers his player the
    hero point's button; the GM's press is refused, his player's turns it into a serious wound (the
    chest at −5, its HP) and PH 1 → 0; a PC without a point is told so, without a button."""
    from bot.services.fights.systems.ogl_manoeuvres.hero import spend_offer

    from .test_fights import BOB

    fight_id = await fight(ctx)
    await ogl_pc(ctx, "Aude", ALICE.user_id)
    await ogl_pc(ctx, "Bruno", BOB.user_id)
    ok(
        await add_combatants(
            ctx, ALICE, who="Aude", stats=NpcStats(caracs="PH:1 Esquive:40", weapons="Épée 1d8+1 60%")
        )
    )
    ok(
        await add_combatants(
            ctx, BOB, who="Bruno", stats=NpcStats(caracs="Esquive:40", weapons="Épée 1d8+1 60%")
        )
    )
    ok(await next_round(ctx, GM, dice="Chevalier: 1; Orc: 9; Aude: 1; Bruno: 1"))
    # the Orc's axe, 8 typed, on the chest (5 HP, no armour): 5 − 8 = −3, serious; the second blow
    # makes it −11, below −5: major
    out = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(target="Aude", roll=10, location="poitrine", damage="8", effects="2"),
            rng=NoDice(),
        )
    )
    first = await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=out["seq"], rng=NoDice())
    assert not [b for row in first.reply.buttons for b in row if ":hero:" in b.custom_id]
    ok(await next_round(ctx, GM, dice="Chevalier: 1; Orc: 9; Aude: 1; Bruno: 1"))
    out = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(target="Aude", roll=10, location="poitrine", damage="8", effects="2"),
            rng=NoDice(),
        )
    )
    second = await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=out["seq"], rng=NoDice())
    assert ok(second)["wound"]["level"] == "major"
    text = second.reply.description or ""
    assert (
        "🦸 Blessure grave pour Aude : un point d'héroïsme (Éraflure) la ramène à une blessure "
        "sérieuse (il lui en reste un) ; le bouton ci-dessous est pour son joueur."
    ) in text
    [button] = [b for row in second.reply.buttons for b in row if ":hero:" in b.custom_id]
    assert button.label == "Éraflure : dépenser un point d'héroïsme (Aude)"
    number = int(button.custom_id.rsplit(":", 1)[1])
    assert "Seul le joueur" in refused(await spend_offer(ctx, GM, fight_id=fight_id, number=number))
    import random

    # the serious wound's combat actions lost (1d4) rolled by the bot: a button types no die
    spent = ok(await spend_offer(ctx, ALICE, fight_id=fight_id, number=number, rng=random.Random(3)))
    assert spent["spend"]["points_after"] == 0 and spent["graze"]["hp_after"] == -5
    assert spent["graze"]["level"] == "serious"
    assert "plus proposée" in refused(await spend_offer(ctx, ALICE, fight_id=fight_id, number=number))
