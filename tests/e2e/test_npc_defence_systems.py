"""Issue 18 in the other rule systems through the real bot: in a `v1` fight opened with
``defense_pnj:auto`` the goblin dodges by himself (I 30 + Esquive 10 = 40 %) and Bruno, attacked,
gets only the buttons his rules allow (his shield's parry, no dodge without Esquive); in an `ogl`
fight the counter-attack on an ally asks first and « Annuler » spends nothing. Each fight ends with
``/combat fin`` and its thread archived."""

from __future__ import annotations

from .harness import E2E
from .turns import next_round

V1_REST = "A:1 Dex:30 Cd:30 Int:30 Cl:30 FM:30 Soc:30"
OGL = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"


async def test_v1_npc_defends_by_himself_and_the_pc_sees_legal_buttons(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await gm.slash("config systeme", systeme="v1", portee="canal")
    await alice.slash("perso creer", nom="Albert", caracs=f"CC:45 CT:40 F:3 E:4 B:8 I:40 {V1_REST}")
    await bob.slash("perso creer", nom="Bruno", caracs=f"CC:35 CT:30 F:4 E:4 B:9 I:35 {V1_REST}")
    opened = await gm.slash("combat ouvrir", nom="Escarmouche", defense_pnj="auto")
    await opened.wait_followup()
    thread = emu.thread("Escarmouche")
    await alice.slash("combat ajouter", qui="Albert", armes="Épée +0", channel=thread)
    await bob.slash("combat ajouter", qui="Bruno", armes="Épée +0, Bouclier bouclier", channel=thread)
    goblin = "CC:25 CT:25 F:3 E:3 B:9 I:30 A:1 Dex:25 Esquive:10"
    await gm.slash(
        "combat ajouter", qui="Gobelin", caracs=goblin, armes="Hache", camp="Gobelins", channel=thread
    )
    await next_round(gm, thread)

    blow = await alice.slash("combat attaque", cible="Gobelin", jet=37, degats="2", channel=thread)
    text = blow.embed["description"]
    assert not blow.ephemeral
    assert "🤖 Gobelin, défense automatique : esquiver (40 %, la meilleure chance)." in text
    assert "Gobelin esquive" in text
    await bob.slash("combat attaque", cible="Gobelin", jet=20, degats="3", channel=thread)
    asked = await gm.slash("combat attaque", cible="Bruno", jet=10, degats="2", channel=thread)
    labels = [b["label"] for row in asked.components for b in row["components"] if b.get("type") == 2]
    assert labels == ["Parer", "Encaisser"]
    parried = await bob.click("Parer", message=asked.message)
    assert "bouclier +20 = **55 %**" in parried.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_ogl_counter_attack_on_an_ally_asks_first(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Lice")
    await opened.wait_followup()
    thread = emu.thread("Lice")
    await gm.slash(
        "combat ajouter", qui="Chevalier", caracs=OGL, armes="Épée 1d8+1 60%", camp="Ordre", channel=thread
    )
    await gm.slash(
        "combat ajouter", qui="Écuyer", caracs=OGL, armes="Épée 1d8+1 60%", camp="Ordre", channel=thread
    )
    await gm.slash(
        "combat ajouter", qui="Orc", caracs=OGL, armes="Hache 1d8 50%", camp="Orcs", channel=thread
    )
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1; Écuyer: 1")

    asked = await gm.slash(
        "manoeuvre riposte",
        qui="Chevalier",
        cible="Écuyer",
        declencheur="court",
        jet=95,
        localisation="tete",
        channel=thread,
    )
    assert asked.ephemeral and asked.embed["title"] == "⚠️ Chevalier attaque un allié : confirmer ?"
    # what was typed badly is refused before the question, not after « Confirmer »
    blind = await gm.slash(
        "manoeuvre riposte",
        qui="Chevalier",
        cible="Écuyer",
        declencheur="court",
        localisation="25",
        channel=thread,
    )
    assert blind.ephemeral and "25 n'est pas un d20" in blind.embed["description"]
    cancelled = await gm.click("Annuler", message=asked.message)
    assert cancelled.embed["description"] == "Attaque annulée : rien n'a changé."
    again = await gm.slash(
        "manoeuvre riposte",
        qui="Chevalier",
        cible="Écuyer",
        declencheur="court",
        jet=95,
        localisation="tete",
        channel=thread,
    )
    done = await gm.click("Confirmer", message=again.message)
    assert not done.ephemeral and done.embed["title"].startswith("⚔️ Chevalier → Écuyer")
    assert "contre-attaque sur une course +20 = **80 %**" in done.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_ogl_pull_out_and_a_wall_through_the_bot(emu: E2E) -> None:
    """``/manoeuvre retirer`` (seed 004 l. 12-13: an impaling spear's critical, a Force Brute test in
    Athlétisme to pull it out, the weapon's damage again at the same place) and a knockback against
    a wall (l. 35, ``situation:mur``: the Esquive test, else 1d4 at a location read on the d20)."""
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Arène")
    await opened.wait_followup()
    thread = emu.thread("Arène")
    spear = "Lance 1d8+1 60% empalant, Masse 2d8 60%"
    await gm.slash("combat ajouter", qui="Guerrier", caracs=OGL, armes=spear, camp="Arène", channel=thread)
    tough = "STR:13 CON:18 SIZ:14 INT:10 POW:10 DEX:12 CHA:10"
    await gm.slash(
        "combat ajouter", qui="Orc", caracs=tough, armes="Dague 1d4+1 50%", camp="Orcs", channel=thread
    )
    small = "STR:10 CON:12 SIZ:8 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"
    await gm.slash(
        "combat ajouter",
        qui="Gobelin",
        caracs=small,
        armes="Dague 1d4+1 50%",
        armure="poitrine:12",
        camp="Orcs",
        channel=thread,
    )
    await next_round(gm, thread, des="Guerrier: 7; Orc: 3; Gobelin: 1")
    # a critical (3 ≤ 60 / 10) with the impaling spear: the maximum, 9, and the spear stays in
    await gm.slash(
        "combat attaque", cible="Orc", arme="Lance", jet=3, localisation="poitrine", channel=thread
    )
    await gm.slash("combat defense", choix="encaisser", channel=thread)
    # no Athlétisme: STR 13 × 5 = 65 % (reading); 80 fails, 30 pulls it out: 1d8 5 + 1 again
    failed = await gm.slash("manoeuvre retirer", victime="Orc", qui="Guerrier", jet=80, channel=thread)
    assert "**65 %**" in failed.embed["description"]
    pulled = await gm.slash(
        "manoeuvre retirer", victime="Orc", qui="Guerrier", jet=30, degats="5 2", channel=thread
    )
    assert not pulled.ephemeral and "PV -2 → **-8**/7" in pulled.embed["description"]

    await next_round(gm, thread, des="Guerrier: 7; Orc: 3; Gobelin: 1")
    await gm.slash(
        "combat attaque",
        cible="Gobelin",
        arme="Masse",
        jet=30,
        localisation="poitrine",
        situation="mur",
        degats="8 4 3 14",
        channel=thread,
    )
    knocked = await gm.slash("combat defense", choix="encaisser", channel=thread)
    assert "projeté contre un mur, doit réussir un test d'Esquive" in knocked.embed["description"]
    await gm.slash("combat test", qui="Gobelin", jet=10, channel=thread)
    wall = await gm.slash("combat test", qui="Gobelin", jet=90, channel=thread)
    text = wall.embed["description"]
    assert "Localisation : d20 **14** → Bras D" in text
    assert "Le choc contre le mur : 3 points de dégâts." in text

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
