"""Fights of the other rulesets in a thread through the real bot: the channel's ruleset picks the
system, the tracker shows each system's pools, buttons answer the pending defences."""

from __future__ import annotations

from .harness import E2E


async def test_a_v1_fight_in_a_thread(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await gm.slash("config systeme", systeme="v1", portee="canal")
    await alice.slash(
        "perso creer",
        nom="Albert",
        caracs="CC:45 CT:40 F:3 E:4 B:8 I:40 A:2 Dex:35 Cd:30 Int:30 Cl:30 FM:30 Soc:30",
    )
    opened = await gm.slash("combat ouvrir", nom="Escarmouche", options="endurance:seuil")
    await opened.wait_followup()
    thread = emu.thread("Escarmouche")
    await alice.slash("combat ajouter", qui="Albert", armes="Épée +0, Bouclier bouclier", channel=thread)
    bad = await gm.slash("combat ajouter", qui="3 gobelins", channel=thread)
    assert bad.ephemeral and "caracs" in bad.embed["description"]
    await gm.slash(
        "combat ajouter",
        qui="gobelin",
        caracs="CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25",
        armes="Hache",
        armure="corps:1",
        channel=thread,
    )
    round1 = await gm.slash("combat round", channel=thread)
    assert "I 40, A 2 → 40 · 20" in round1.embed["description"]
    # CC 45, 37 → 73 → body; 1d6 4 + F 3 = 7, seed reading: armour 1 only → 6; B 6 → 0
    attack = await alice.slash("combat attaque", cible="Gobelin", jet=37, degats="4", channel=thread)
    assert "**73**" in attack.embed["description"]
    assert [b["label"] for b in attack.components[0]["components"]] == ["Parer", "Esquiver", "Encaisser"]
    refused = await gm.click("Esquiver", message=attack.message)
    assert refused.ephemeral and "Esquive" in refused.embed["description"]
    taken = await gm.click("Encaisser", message=attack.message)
    assert "6 → **0**" in taken.embed["description"]

    def tracker_fields() -> dict[str, str]:
        pinned = emu.pins(thread)[0]
        return {f["name"].lstrip("▶💀💤 "): f["value"] for f in pinned.embeds[0]["fields"]}

    await emu.emu.wait_until(
        lambda: "Blessures 0/6" in tracker_fields().get("Gobelin", ""), what="the tracker edit"
    )
    ended = await gm.slash("combat fin", channel=thread)
    assert "Escarmouche" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
