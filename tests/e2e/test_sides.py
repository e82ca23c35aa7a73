"""Sides and NPCs that defend by themselves through the real bot: Grimli's attack on his ally Élise
asks him privately and « Annuler » leaves the fight as it was; the bandits (``defense_pnj:auto``)
parry by themselves, no button to press; the GM on Élise's turn picks the fighter in a select menu;
the end archives the thread."""

from __future__ import annotations

from .harness import E2E

DICE = "Grimli: 20 20 20; Élise: 10 10 10; Bandit 1: 5 5 5; Bandit 2: 1 1 1"


async def test_friendly_fire_cancelled_and_npcs_defending_themselves(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="epee")
    await bob.slash("perso creer", nom="Grimli", caracs="CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25")
    await bob.slash("perso equiper", arme="epee")
    opened = await gm.slash("combat ouvrir", nom="Sentier", defense_pnj="auto")
    await opened.wait_followup()
    thread = emu.thread("Sentier")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await bob.slash("combat ajouter", qui="Grimli", channel=thread)
    bandits = await gm.slash(
        "combat ajouter",
        qui="2 bandits",
        cc=50,
        f=35,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        channel=thread,
    )
    assert "Camp : Bandits" in bandits.embed["description"]
    await gm.slash("combat round", des=DICE, channel=thread)

    # Grimli at Élise: asked privately, nothing rolled; « Annuler » leaves everything as it was
    asked = await bob.slash("combat attaque", cible="Élise", jet=20, channel=thread)
    assert asked.ephemeral and asked.embed["title"] == "⚠️ Grimli attaque un allié : confirmer ?"
    assert [b["label"] for b in asked.components[0]["components"]] == ["Confirmer", "Annuler"]
    cancelled = await bob.click("Annuler", message=asked.message)
    assert cancelled.ephemeral and cancelled.embed["description"] == "Attaque annulée : rien n'a changé."
    again = await bob.click("Confirmer", message=asked.message)
    assert again.ephemeral and "déjà reçu sa réponse" in again.embed["description"]
    shown = await gm.slash("combat voir", channel=thread)
    # still Grimli's turn, nothing spent (he has not even chosen his posture)
    assert shown.embed["description"].startswith("**⏳ Grimli choisit sa posture (c'est son tour)**")

    # Grimli at Bandit 1: the bandit parries by himself, the reply shows it, no defence button
    blow = await bob.slash("combat attaque", cible="Bandit 1", jet=5, degats="3", channel=thread)
    text = blow.embed["description"]
    assert not blow.ephemeral and "🤖 Bandit 1, défense automatique : parer (" in text
    assert "Bandit 1 pare" in text
    # no defence button; the turn passed, so the reply offers Élise's target select (phone play)
    assert blow.message is not None
    assert [c.get("type") for c in blow.message.iter_components()] == [3]

    # Élise's turn: the GM's attack without `attaquant:` asks who acts, in a select menu
    who = await gm.slash("combat attaque", cible="Bandit 2", jet=5, degats="2", channel=thread)
    assert who.ephemeral and who.embed["description"] == "C'est le tour du PJ Élise. Qui attaque Bandit 2 ?"
    [menu] = [c for row in who.components for c in row["components"] if c["type"] == 3]
    assert [o["label"] for o in menu["options"]] == ["Élise", "Bandit 1"]  # not the target
    played = await gm.select("Qui agit ?", "Élise", message=who.message)
    assert not played.ephemeral and played.embed["title"].startswith("⚔️ Élise → Bandit 2")
    assert "🤖 Bandit 2, défense automatique : " in played.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
