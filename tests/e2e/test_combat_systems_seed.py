"""Issue #20's scenarios through the real bot in threads: the `d20` javelin and pistol (the ranged
procedure, the vest consulted), the `ogl` charge parried from low ground (the defence at −20, the
attack untouched, +1d4), the `v1` aimed shot that waits for its preparation round."""

from __future__ import annotations

from .harness import E2E
from .turns import next_round, skip_turn

D20_BODY = "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11"
OGL_BODY = "INT:10 POW:10 CHA:10 Esquive:40"


async def test_d20_thrown_and_fired_weapons(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="d20", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Tir")
    await opened.wait_followup()
    thread = emu.thread("Tir")
    arms = "Javelot 14 +1 jet, Pistolet 15 +2 tir pen=25+1d10 choc=12"
    await gm.slash("combat ajouter", qui="Lanceur", caracs=D20_BODY, armes=arms, channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Garde",
        caracs=D20_BODY,
        armes="Épée 14 +3",
        armure="Gilet 30/10/60",
        camp="Garde",
        channel=thread,
    )
    await next_round(gm, thread, des="Lanceur: 15; Garde: 10")
    # seed l. 100-102, 146: MR 14 − 4 = 10 → the thorax exactly; penetration BF 2 + 1 = 3; d20 9 + 1
    attack = await gm.slash(
        "combat attaque",
        cible="Garde",
        arme="Javelot",
        jet=4,
        localisation="thorax",
        degats="9",
        channel=thread,
    )
    taken = await gm.click("Encaisser", message=attack.message)
    text = taken.embed["description"]
    assert "point visé (thorax)" in text and "arme +1 = **10**" in text and "= **3**" in text
    assert "Gilet (RP 30, RC 10) : tient" in text
    # no damage-by-location table on the server: the GM picks the PV lost in the hit's menu
    picked = await gm.select("PV perdus (indice 10) — au MJ", "4", message=taken.message)
    assert "Garde perd 4 PV" in picked.embed["description"]
    await skip_turn(gm, thread)
    await next_round(gm, thread, des="Lanceur: 15; Garde: 10")
    # l. 115, 160-162: 25 + 8 = 33 > RP 30: pierced; shock 12 − RC 10 = 2; MR 7 → a d6 (3)
    shot = await gm.slash(
        "combat attaque",
        cible="Garde",
        arme="Pistolet",
        jet=8,
        localisation="tete",
        degats="7 8",
        effets="3",
        channel=thread,
    )
    text = shot.embed["description"]
    assert "d6 = 3" in text and "= **33**" in text and "percée, choc restant 2" in text
    ended = await gm.slash("combat fin", channel=thread)
    assert "Tir" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_ogl_charge_against_a_defender_on_low_ground(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Charge")
    await opened.wait_followup()
    thread = emu.thread("Charge")
    await gm.slash(
        "combat ajouter",
        qui="Guerrier",
        caracs=f"STR:13 CON:12 SIZ:12 {OGL_BODY} DEX:14",
        armes="Épée 1d8+1 60% md=1d4",
        channel=thread,
    )
    await gm.slash(
        "combat ajouter",
        qui="Cible",
        caracs=f"STR:13 CON:18 SIZ:8 {OGL_BODY} DEX:12",
        armes="Dague 1d4+1 50%",
        camp="Cibles",
        channel=thread,
    )
    await next_round(gm, thread, des="Guerrier: 7; Cible: 3")
    attack = await gm.slash(
        "combat attaque",
        cible="Cible",
        speciale="charge",
        jet=30,
        localisation="jambe_d",
        degats="5 2 3",
        channel=thread,
    )
    assert "arme 60 = **60 %**" in attack.embed["description"]  # the attack is untouched
    parried = await gm.slash(
        "combat defense",
        choix="parer",
        jet=20,
        situation="defense_position_basse_ou_contre_monte",
        channel=thread,
    )
    text = parried.embed["description"]
    # seed l. 10: the parry 50 − 20 = 30; l. 9: 30 > 20, the attack wins; l. 6: +1d4 (3); l. 35: 11 > SIZ 8
    assert "-20 = **30 %**" in text and "charge +3 = **11**" in text
    assert "recule de 2 m (recul doublé par la charge)" in text
    ended = await gm.slash("combat fin", channel=thread)
    assert "Charge" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_v1_aimed_shot_waits_for_its_preparation_round(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="v1", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Visée")
    await opened.wait_followup()
    thread = emu.thread("Visée")
    await gm.slash(
        "combat ajouter",
        qui="Albert",
        caracs="CC:45 CT:40 F:3 E:4 B:8 I:40 A:1 Dex:35",
        armes="Arc tir",
        channel=thread,
    )
    await gm.slash(
        "combat ajouter",
        qui="Gobelin",
        caracs="CC:25 CT:25 F:3 E:3 B:6 I:20 A:1 Dex:25",
        armes="Hache",
        camp="Gobelins",
        channel=thread,
    )
    await next_round(gm, thread)
    declared = await gm.slash("combat attaque", cible="Gobelin", localisation="tete", channel=thread)
    assert "le tir part au round 2" in declared.embed["description"]  # seed l. 87
    await skip_turn(gm, thread)
    await next_round(gm, thread)
    fired = await gm.slash(
        "combat attaque", cible="Gobelin", localisation="tete", jet=20, degats="4", channel=thread
    )
    text = fired.embed["description"]
    assert "Le tir préparé par Albert au round 1 part." in text and "tir visé (tête) -20 = **20 %**" in text
    ended = await gm.slash("combat fin", channel=thread)
    assert "Visée" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
