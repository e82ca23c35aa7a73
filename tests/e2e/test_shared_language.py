"""Shared messages in the server's language, personal replies in the user's (#22 item 12, #21): an
English player acting in a French server's fight gets his replies in English, while the pinned
tracker stays French; and ``/combat etat`` offers its operations and states as Discord's own choices
(#22 item 13: a static list served by autocomplete before)."""

from __future__ import annotations

from .harness import E2E


async def test_the_tracker_follows_the_server_and_replies_the_user(emu: E2E) -> None:
    gm, erin = emu.user("gm"), emu.user("erin", locale="en-US")
    await erin.slash("character create", name="Erin", stats="CC:40 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33")
    opened = await gm.slash("combat ouvrir", nom="Gué")
    await opened.wait_followup()
    thread = emu.thread("Gué")
    joined = await erin.slash("combat add", who="Erin", channel=thread)
    assert "fighter added" in str(joined.embed) and "ajouté" not in str(joined.embed), joined.embed
    await gm.slash("combat ajouter", qui="gobelin", channel=thread)
    await gm.slash("combat round", des="Erin: 10 10 10; Gobelin: 1 1 1", channel=thread)
    posture = await erin.slash("combat posture", posture="prudente", channel=thread)
    assert "careful" in str(posture.embed).lower(), posture.embed

    def tracker() -> str:
        return str(emu.pins(thread)[0].embeds[0])

    await emu.emu.wait_until(lambda: "prudente" in tracker(), what="the tracker after Erin's posture")
    assert "Round 1" in tracker() and "careful" not in tracker().lower()  # French: the server's

    condition = next(
        sub
        for command in emu.emu.commands[emu.guild.id]
        if command["name"] == "combat"
        for sub in command["options"]
        if sub["name"] == "condition"
    )
    options = {o["name"]: o for o in condition["options"]}
    assert [c["value"] for c in options["op"]["choices"]] == [
        "add",
        "remove",
        "treated",
        "healed",
        "stands_up",
        "revive",
    ]
    assert not options["op"].get("autocomplete") and len(options["kind"]["choices"]) == 5
    ended = await gm.slash("combat fin", channel=thread)
    assert "Gué" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
