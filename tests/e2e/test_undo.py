"""``/combat annuler`` through the real bot and the emulator: a player's attack on his ally (confirmed
by mistake) taken back, the pinned tracker edited back to what it showed before, the undone attack's
defence button refused, another player refused an undo that is not his; the fight ends and the
thread is archived."""

from __future__ import annotations

from typing import Any

from .harness import E2E


async def test_a_wrong_attack_undone_in_a_thread(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob", locale="en-US")
    await alice.slash("perso creer", nom="Gunther", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30")
    await bob.slash("perso creer", nom="Élise", caracs="CC:35 CT:30 F:35 E:35 Ag:38 Int:30 FM:30 Soc:30")
    opened = await gm.slash("combat ouvrir", nom="Auberge")
    await opened.wait_followup()
    thread = emu.thread("Auberge")
    await alice.slash("combat ajouter", qui="Gunther", channel=thread)
    await bob.slash("combat ajouter", qui="Élise", channel=thread)
    await gm.slash("combat ajouter", qui="gobelin", channel=thread)
    await gm.slash("combat round", des="Gunther: 10 10 10; Élise: 5 5 5; Gobelin: 1 1 1", channel=thread)

    def tracker() -> tuple[Any, ...]:
        embed = emu.pins(thread)[0].embeds[0]
        return embed.get("description"), tuple((f["name"], f["value"]) for f in embed.get("fields", []))

    await emu.emu.wait_until(lambda: "Round 1" in str(tracker()), what="the tracker edit")
    before = tracker()
    asked = await alice.slash("combat attaque", cible="Élise", jet=20, channel=thread)
    assert asked.ephemeral and asked.embed["title"] == "⚠️ Gunther attaque un allié : confirmer ?"
    wrong = await alice.click("Confirmer", message=asked.message)  # confirmed by mistake
    assert "Gunther → Élise" in wrong.embed["title"] and not wrong.ephemeral
    await emu.emu.wait_until(lambda: tracker() != before, what="the tracker edit after the attack")

    refused = await bob.slash("combat annuler", channel=thread)
    assert refused.ephemeral and "You can only undo your own action" in refused.embed["description"]
    undone = await alice.slash("combat annuler", channel=thread)
    assert not undone.ephemeral
    assert (
        undone.embed["description"]
        == "↩️ Annulé : l'attaque de Gunther sur Élise (action n° 5).\n▶ Au tour de **Gunther**."
    )
    await emu.emu.wait_until(lambda: tracker() == before, what="the tracker back to before the attack")

    late = await bob.click("Parer", message=wrong.message)  # the message speaks its author's French
    assert late.ephemeral and "This attack was undone" in late.embed["description"]

    ended = await gm.slash("combat fin", channel=thread)
    assert "Auberge" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
