"""Issue #19's weapon rules through the real bot: Élise's dagger (her second weapon) attacks in the slot
her sword's attack left open, then the turn passes; the end archives the thread."""

from __future__ import annotations

from .harness import E2E
from .turns import next_round, skip_turn

DICE = "Élise: 20 20 20; Bandit: 1 1 1"


async def test_the_second_weapons_attack_is_accepted(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="epee", main_gauche="dague")
    opened = await gm.slash("combat ouvrir", nom="Ruelle")
    await opened.wait_followup()
    thread = emu.thread("Ruelle")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Bandit",
        cc=50,
        f=35,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        channel=thread,
    )
    await gm.slash("combat round", des=DICE, channel=thread)

    sword = await alice.slash("combat attaque", cible="Bandit", arme="epee", jet=95, channel=thread)
    assert sword.embed["title"] == "⚔️ Élise → Bandit (Epée)"
    assert "Élise a encore l'A de sa seconde arme" in sword.embed["description"]
    dagger = await alice.slash("combat attaque", cible="Bandit", arme="dague", jet=95, channel=thread)
    assert not dagger.ephemeral and dagger.embed["title"] == "⚔️ Élise → Bandit (Dague)"
    assert "main non directrice -20 = **10 %**" in dagger.embed["description"]
    assert "▶ Au tour de **Bandit**." in dagger.embed["description"]
    third = await alice.slash("combat attaque", cible="Bandit", jet=95, channel=thread)
    assert third.ephemeral and "Plus d'attaque disponible ce round." in third.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_the_halberd_attacks_as_a_pike(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="hallebarde")
    opened = await gm.slash("combat ouvrir", nom="Pont")
    await opened.wait_followup()
    thread = emu.thread("Pont")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Bandit",
        cc=50,
        f=35,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        channel=thread,
    )
    await gm.slash("combat round", des=DICE, channel=thread)

    asked = await alice.slash("combat attaque", cible="Bandit", jet=95, channel=thread)
    assert (
        asked.ephemeral and "« Hallebarde (hache) » ou « Hallebarde (pique) »" in asked.embed["description"]
    )
    pike = await alice.slash(
        "combat attaque", cible="Bandit", arme="Hallebarde (pique)", jet=95, channel=thread
    )
    assert not pike.ephemeral and pike.embed["title"] == "⚔️ Élise → Bandit · Hallebarde (pique)"

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_an_archer_aims_in_round_1_and_shoots_beyond_long_range_in_round_2(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="arc court")
    opened = await gm.slash("combat ouvrir", nom="Colline")
    await opened.wait_followup()
    thread = emu.thread("Colline")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Bandit",
        cc=50,
        f=35,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        channel=thread,
    )
    await gm.slash("combat round", des=DICE, channel=thread)
    aimed = await alice.slash("combat action", action="viser", visee="precision", channel=thread)
    assert not aimed.ephemeral
    await skip_turn(gm, thread)
    await next_round(gm, thread, des=DICE)
    shot = await alice.slash("combat attaque", cible="Bandit", distance=46, jet=95, channel=thread)
    assert not shot.ephemeral, shot.embed
    assert "visée (précision) +10 · portée > max -30 = **20 %**" in shot.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_a_net_captures_the_bandit_who_then_breaks_free(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="filet")
    opened = await gm.slash("combat ouvrir", nom="Arène")
    await opened.wait_followup()
    thread = emu.thread("Arène")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Bandit",
        cc=50,
        f=35,
        ag=40,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        defense="manuel",
        channel=thread,
    )
    await gm.slash("combat round", des=DICE, channel=thread)
    thrown = await alice.slash("combat attaque", cible="Bandit", distance=4, jet=10, channel=thread)
    assert not thrown.ephemeral
    took = await gm.click("Encaisser", message=thrown.message)
    assert "Bandit est capturé (Filet)" in took.embed["description"], took.embed
    await next_round(gm, thread, des=DICE)
    await skip_turn(gm, thread)
    refused = await gm.slash("combat attaque", cible="Élise", jet=5, channel=thread)
    assert refused.ephemeral and refused.embed["description"].startswith(
        "Capturé : il faut d'abord se libérer"
    )
    freed = await gm.slash("combat action", action="se_liberer", jet=10, channel=thread)
    assert "Bandit se libère." in freed.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
