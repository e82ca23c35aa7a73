"""The pinned tracker's « Annuler » button and ``/pnj voir`` through the real bot: the GM presses
« Annuler » on the tracker, is asked privately to confirm the action it names, confirms, and the
tracker shows the fight of before; a player pressing it is refused privately; a template is shown
to a player; the fight ends and the thread is archived."""

from __future__ import annotations

from typing import Any

from .harness import E2E


async def test_the_trackers_undo_button_and_a_template_shown(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await gm.slash("pnj enregistrer", nom="Bretteur", cc=45, f=35, e=35, armes="Epée")
    shown = await alice.slash("pnj voir", nom="bretteur")
    assert shown.ephemeral and "Bretteur" in str(shown.embed), shown.embed
    opened = await gm.slash("combat ouvrir", nom="Pont")
    await opened.wait_followup()
    thread = emu.thread("Pont")
    await gm.slash("combat ajouter", qui="Bretteur", camp="Bretteurs", channel=thread)
    await gm.slash("combat ajouter", qui="gobelin", channel=thread)
    await gm.slash("combat round", des="Bretteur: 10 10 10; Gobelin: 1 1 1", channel=thread)

    def tracker() -> tuple[Any, ...]:
        embed = emu.pins(thread)[0].embeds[0]
        return embed.get("description"), tuple((f["name"], f["value"]) for f in embed.get("fields", []))

    await emu.emu.wait_until(lambda: "Round 1" in str(tracker()), what="the tracker of round 1")
    before = tracker()
    await gm.slash("combat posture", posture="prudente", qui="Bretteur", channel=thread)
    await emu.emu.wait_until(lambda: tracker() != before, what="the tracker after the posture")

    pinned = emu.pins(thread)[0]
    refused = await alice.click("Annuler", message=pinned)
    assert refused.ephemeral and "Seul le MJ annule depuis le suivi" in refused.embed["description"]
    asked = await gm.click("Annuler", message=pinned)
    assert asked.ephemeral and asked.embed["description"].startswith("Annuler l'action n° ")
    assert "la posture de Bretteur" in asked.embed["description"]
    undone = await gm.click("Confirmer l'annulation", message=asked.message)
    assert not undone.ephemeral
    assert undone.embed["description"].startswith("↩️ Annulé : la posture de Bretteur (action n° ")
    await emu.emu.wait_until(lambda: tracker() == before, what="the tracker back to before the posture")

    ended = await gm.slash("combat fin", channel=thread)
    assert "Pont" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
