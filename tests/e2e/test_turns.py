"""Turns through the real bot (issue 18): the turn waits for the defence, then the player whose
turn comes is pinged in the reply's content with exactly that user in ``allowed_mentions``; the
pinned tracker says what the table waits for and carries its buttons; « Suivant » asks first."""

from __future__ import annotations

from bot.emulator.server import effective_mentions

from .harness import E2E
from .turns import skip_turn

DICE = "Élise: 15 12 10; Grimli: 10 10 10; Gobelin: 5 5 5"


async def test_the_next_player_is_pinged_once_the_defence_is_answered(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Élise", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="epee")
    await bob.slash("perso creer", nom="Grimli", caracs="CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33")
    opened = await gm.slash("combat ouvrir", nom="Tours")
    await opened.wait_followup()
    thread = emu.thread("Tours")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await bob.slash("combat ajouter", qui="Grimli", channel=thread)
    await gm.slash("combat ajouter", qui="gobelin", channel=thread)

    def pinned_lines() -> list[str]:
        return str(emu.pins(thread)[0].embeds[0].get("description") or "").split("\n")

    started = await gm.slash("combat round", des=DICE, channel=thread)
    assert started.message is not None
    assert started.content == f"<@{alice.user.id}> ▶ Au tour d'Élise."
    assert effective_mentions(started.content, started.message.allowed_mentions)[2] == [alice.user.id], (
        started.message.allowed_mentions
    )
    await emu.emu.wait_until(
        lambda: pinned_lines()[0] == "**⏳ Élise choisit sa posture (c'est son tour)**", what="the tracker"
    )
    labels = [c.get("label") for c in emu.pins(thread)[0].iter_components() if c.get("type") == 2]
    assert {"téméraire", "Suivant", "Nouveau round", "Annuler"} <= set(labels)

    attack = await alice.slash("combat attaque", cible="Gobelin", jet=34, degats="7", channel=thread)
    assert not attack.content and "Au tour" not in attack.embed["description"]
    await emu.emu.wait_until(
        lambda: pinned_lines()[0].startswith("**⏳ Gobelin doit se défendre contre Élise (attaque n° "),
        what="the tracker naming the defence",
    )
    # the goblin dodges (a d100 typed: 5 succeeds), untouched: it can act on its slot
    taken = await gm.slash("combat defense", choix="esquiver", jet=5, channel=thread)
    assert taken.message is not None and not taken.ephemeral
    assert taken.content == f"<@{bob.user.id}> ▶ Au tour de Grimli."
    assert taken.message.allowed_mentions is not None
    assert [str(u) for u in taken.message.allowed_mentions.get("users") or []] == [bob.user.id]
    assert effective_mentions(taken.content, taken.message.allowed_mentions) == (False, [], [bob.user.id])
    assert taken.embed["description"].endswith("▶ Au tour de **Grimli**.")
    await emu.emu.wait_until(
        lambda: pinned_lines()[0] == "**⏳ Grimli choisit sa posture (c'est son tour)**", what="the tracker"
    )

    # Grimli does nothing: « Suivant » asks first, then the goblin's turn (the GM's NPC: nobody pinged)
    passed = await skip_turn(gm, thread)
    assert passed.message is not None and not passed.content
    assert passed.embed["description"].split("\n") == ["Grimli passe son tour.", "▶ Au tour de **Gobelin**."]
    # the goblin's dodge did not fix his posture (« A chaque nouveau round, il faut choisir une posture »)
    await emu.emu.wait_until(
        lambda: pinned_lines()[0] == "**⏳ Gobelin choisit sa posture (c'est son tour)**", what="the tracker"
    )

    ended = await gm.slash("combat fin", channel=thread)
    assert "Tours" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
