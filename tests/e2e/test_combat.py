"""A fight in a thread through the real bot: tracker pinned and edited, hand-entered dice, a
defence button pressed before a SIGKILL of the bot still works after the restart, the end archives."""

from __future__ import annotations

from typing import Any

from .harness import E2E
from .turns import next_round

INITIATIVE = "Albert: 15 12 10; Bertha: 10 10 10; Gobelin: 5 5 5; Gobelin 2: 4 4 4; Gobelin 3: 3 3 3"


def _sum_ok(check: dict[str, Any]) -> None:
    assert check["target"] == sum(m["value"] for m in check["modifiers"])


async def test_fight_in_a_thread_survives_a_restart(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Albert", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="epee")
    await bob.slash("perso creer", nom="Bertha", caracs="CC:30 CT:45 F:30 E:35 Ag:40 Int:31 FM:35 Soc:33")
    await bob.slash("perso equiper", arme="arc_simple")

    opened = await gm.slash("combat ouvrir", nom="Embuscade")
    await opened.wait_followup()
    thread = emu.thread("Embuscade")
    [tracker] = emu.pins(thread)
    assert tracker.embeds[0]["title"] == "🛡️ Embuscade"

    refused = await bob.slash("combat ajouter", qui="3 gobelins", channel=thread)
    assert refused.ephemeral and "MJ" in refused.embed["description"]
    await alice.slash("combat ajouter", qui="Albert", channel=thread)
    await bob.slash("combat ajouter", qui="Bertha", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="gobelin",
        armes="hache_pic, bouclier",
        armure="matelassee_gambison_court",
        channel=thread,
    )
    added = await gm.slash(
        "combat ajouter", qui="2 gobelins", armure="matelassee_gambison_court", channel=thread
    )
    assert "Gobelin 3" in added.embed["description"]
    choices = await gm.autocomplete("combat attaque", "cible", "gob", channel=thread)
    assert [c["value"] for c in choices] == ["Gobelin", "Gobelin 2", "Gobelin 3"]

    round1 = await next_round(gm, thread, des=INITIATIVE)
    assert "**75**" in round1.embed["description"]
    await alice.click("Téméraire", message=round1.message)
    attack = await alice.slash("combat attaque", cible="Gobelin", jet=34, degats="7", channel=thread)
    # CC 45 + (50 − 30) + 10 (téméraire) = 75 %
    assert "**75 %**" in attack.embed["description"] and "corps" in attack.embed["description"]
    assert [b["label"] for b in attack.components[0]["components"]] == [
        "Parer",
        "Esquiver",
        "Encaisser",
        "Défense auto",
    ]
    # Bob is not the goblin's owner
    wrong = await bob.click("Parer", message=attack.message)
    assert wrong.ephemeral

    # The bot dies mid-round with the defence pending; the button still works after the restart.
    await emu.restart_bot()
    parried = await gm.click("Parer", message=attack.message)
    assert not parried.ephemeral, parried.embed
    assert "pare" in parried.embed["description"]
    stale = await gm.click("Encaisser", message=attack.message)
    assert stale.ephemeral and "déjà résolue" in stale.embed["description"]

    # Bertha's arrow at the head: 9 damage, critical d100 65 → 11 → a bleeding wound
    shot = await bob.slash(
        "combat attaque",
        cible="Gobelin 2",
        distance=10.0,
        jet=10,
        degats="9",
        critique=65,
        effets="20",
        durees="3 3",  # both durations typed: the death timer too (no bot roll)
        channel=thread,
    )
    assert "tête" in shot.embed["description"]
    taken = await gm.click("Encaisser", message=shot.message)
    text = taken.embed["description"]
    assert "**9**" in text and "**11**" in text and "saigne" in text

    def tracker_fields() -> dict[str, str]:
        pinned = emu.pins(thread)[0]
        return {
            f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
            for f in pinned.embeds[0]["fields"]
        }

    # the bot edits the pinned tracker right after its reply
    await emu.emu.wait_until(
        lambda: "saigne" in tracker_fields().get("Gobelin 2", ""), what="the tracker edit"
    )
    assert "Bouclier" in tracker_fields()["Gobelin"]
    english = await emu.user("dave", locale="en-US").slash("combat show", channel=thread)
    assert english.ephemeral and "Order" in [f["name"] for f in english.embed["fields"]]

    ended = await gm.slash("combat fin", channel=thread)
    assert "Embuscade" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_quick_npcs_of_any_name_and_forgiven_creature_names(emu: E2E) -> None:
    """« 3 bandits » with their stats (Bandit 1 … 3, then Bandit 4), the stats missing named, a
    creature found under a plural with hyphens, the lone « Homme bête » answering to « Homme bête 1 »
    (as the help's examples write it), « Bandit » refused as naming three fighters; in English too."""
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Albert", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33")
    opened = await gm.slash("combat ouvrir", nom="Col")
    await opened.wait_followup()
    thread = emu.thread("Col")
    await alice.slash("combat ajouter", qui="Albert", channel=thread)

    missing = await gm.slash("combat ajouter", qui="Bandit", cc=35, channel=thread)
    assert missing.ephemeral
    assert "donnez `f:` (ou `bf:`) et `caracs:E:…` (ou `be:`)." in missing.embed["description"]
    bandits = await gm.slash(
        "combat ajouter", qui="3 bandits", cc=35, f=35, caracs="E:30", armes="epee", channel=thread
    )
    assert bandits.embed["title"] == "➕ 3 combattants ajoutés"
    text = bandits.embed["description"]
    assert "**Bandit 3** — CC 35 · CT 25 · F 35 · Ag 30 · A 1 · BF 6 · BE 6" in text
    assert "Par défaut : CT 25, Ag 30, A 1 (à préciser avec `ct:`, `ag:`, `a:`)." in text
    beast = await gm.slash("combat ajouter", qui="hommes-bêtes", channel=thread)
    assert beast.embed["title"] == "➕ 1 combattant ajouté"
    assert "**Homme bête** — CC 30 · CT 25 · F 35 · Ag 30 · A 1 · BF 7 · BE 7" in beast.embed["description"]
    assert "F 35 tirée du BF 7 de la table des créatures." in beast.embed["description"]

    english = emu.user("gm", locale="en-US")
    more = await english.slash("combat add", who="Bandit", ws=40, s=40, tb=5, channel=thread)
    assert more.embed["title"] == "➕ 1 fighter added" and "**Bandit 4**" in more.embed["description"]
    defaults = "Defaults: BS 25, T 20, Ag 30, A 1 (set them with `bs:`, `stats:E:…`, `ag:`, `attacks:`)."
    assert defaults in more.embed["description"]

    dice = "Albert: 15 12 10; Homme bête 1: 5 5 5; Bandit 1: 4 4 4; Bandit 2: 3 3 3; Bandit 3: 2 2 2"
    await next_round(gm, thread, des=dice + "; Bandit 4: 1 1 1")
    hit = await alice.slash("combat attaque", cible="homme-bete 1", jet=34, degats="7", channel=thread)
    assert not hit.ephemeral and "Homme bête" in hit.embed["description"]
    vague = await alice.slash("combat attaque", cible="Bandit", jet=34, channel=thread)
    assert vague.ephemeral
    assert vague.embed["description"] == (
        "« Bandit » désigne plusieurs combattants : Bandit 1, Bandit 2, Bandit 3, Bandit 4."
        " Donnez le nom entier."
    )
    # End the fight and wait for its archive: nothing of it is still in flight when the bot stops.
    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
