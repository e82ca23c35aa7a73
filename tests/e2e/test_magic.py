"""``/sort`` through the real bot: a plain casting roll in the channel (the chaos die not added, a
double the curse of Tzeentch), then in a fight's thread a ½-round spell on the caster's turn, shown
on the pinned tracker, another player refused privately out of turn; the fight ends and the thread
is archived."""

from __future__ import annotations

from .harness import E2E

ELISE = "CC:45 CT:30 F:35 E:45 Ag:40 Int:31 FM:29 Soc:33 A:2 Mag:2 PD:1"
GRIMLI = "CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33 Mag:1 PD:2"


async def test_a_spell_in_the_channel_and_in_a_fight(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Élise", caracs=ELISE)
    await bob.slash("perso creer", nom="Grimli", caracs=GRIMLI)
    plain = await alice.slash("sort", magie=2, difficulte=9, des="3 3 5")
    assert not plain.ephemeral and plain.embed["title"] == "🔮 Élise lance un sort", plain.embed
    text = plain.embed["description"]
    assert "= **6** contre une difficulté de **9** → échec" in text and "Dé du chaos : **5**" in text
    assert "Malédiction de Tzeentch : double de 3 → manifestation mineure du Chaos." in text

    opened = await gm.slash("combat ouvrir", nom="Tour")
    await opened.wait_followup()
    thread = emu.thread("Tour")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await bob.slash("combat ajouter", qui="Grimli", channel=thread)
    await gm.slash("combat round", des="Élise: 10 10 10; Grimli: 1 1 1", channel=thread)
    refused = await bob.slash("sort", difficulte=5, des="2 3", channel=thread)
    assert refused.ephemeral
    assert "Grimli ne lance un sort que pendant son tour" in refused.embed["description"]
    cast = await alice.slash("sort", difficulte=5, des="3 4 9", nom="Éclair", channel=thread)
    assert cast.embed["title"] == "🔮 Élise lance « Éclair »"
    assert "première moitié du round pour Élise (attaques : 1 sur 2)" in cast.embed["description"]
    await emu.emu.wait_until(
        lambda: "sort : ½ round" in str(emu.pins(thread)[0].embeds[0].get("fields")),
        what="the tracker showing the spell",
    )
    ended = await gm.slash("combat fin", channel=thread)
    assert "Tour" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
