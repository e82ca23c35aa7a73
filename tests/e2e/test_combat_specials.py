"""Special actions that do not wound, through the real bot (issue 19): Albert's Coup assommant gets
through — no damage, F against E, the Orc stunned 4 rounds, counted down on the tracker — then his
Frappe de bouclier wins an opposed CC test and the Orc's next parry is at −20 %."""

from __future__ import annotations

from .harness import E2E
from .turns import next_round

INITIATIVE = "Albert: 10 10 10; Orque: 1 1 1; Gobelin: 2 2 2"


async def test_a_stunning_blow_then_a_shield_bash(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Albert", caracs="CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33")
    await alice.slash("perso modifier", talents="Coups assommants")
    await alice.slash("perso equiper", arme="Gourdin, Bouclier")
    opened = await gm.slash("combat ouvrir", nom="Assommer")
    await opened.wait_followup()
    thread = emu.thread("Assommer")
    await alice.slash("combat ajouter", qui="Albert", channel=thread)
    await gm.slash("combat ajouter", qui="Orque", cc=50, ag=30, camp="orques", channel=thread)
    await gm.slash("combat ajouter", qui="Gobelin", cc=50, ag=30, camp="gobelins", channel=thread)

    def orc_field() -> str:
        pinned = emu.pins(thread)[0]
        return next(f["value"] for f in pinned.embeds[0]["fields"] if "Orque" in f["name"])

    await next_round(gm, thread, des=INITIATIVE)
    await alice.slash("combat posture", posture="normale", channel=thread)
    blow = await alice.slash(
        "combat attaque",
        cible="Orque",
        jet=20,
        speciale="Coup assommant",
        effets="30 60",
        durees="4",
        channel=thread,
    )
    taken = await gm.click("Encaisser", message=blow.message)
    text = taken.embed["description"]
    assert "Coup assommant : pas de dégâts, un test opposé à la place." in text
    assert "Orque subit l'état « sonné » pendant 4 rounds." in text and "Dégâts" not in text
    await emu.emu.wait_until(lambda: "sonné · 4" in orc_field(), what="the Orc stunned on the tracker")

    await next_round(gm, thread, des=INITIATIVE)
    await emu.emu.wait_until(lambda: "sonné · 3" in orc_field(), what="one stunned round counted")
    await alice.slash("combat posture", posture="normale", channel=thread)
    bash = await alice.slash(
        "combat attaque", cible="Gobelin", jet=25, speciale="Frappe de bouclier", effets="48", channel=thread
    )
    assert (
        "Prochaine attaque contre Gobelin : -20 % pour la parer ou l'esquiver." in bash.embed["description"]
    )

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_a_parry_prepared_at_the_start_of_the_round(emu: E2E) -> None:
    """Bruno announces a prepared parry before his slot, parries the Orc with it (no reactive
    −10 %), then still chooses his posture; his slot passes (his A is spent)."""
    gm, bob = emu.user("gm"), emu.user("bob")
    await bob.slash("perso creer", nom="Bruno", caracs="CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33")
    await bob.slash("perso equiper", arme="Epée")
    opened = await gm.slash("combat ouvrir", nom="Garde")
    await opened.wait_followup()
    thread = emu.thread("Garde")
    await bob.slash("combat ajouter", qui="Bruno", channel=thread)
    await gm.slash("combat ajouter", qui="Orque", cc=50, ag=30, camp="orques", channel=thread)
    await next_round(gm, thread, des="Orque: 10 10 10; Bruno: 1 1 1")
    prepared = await bob.slash("combat action", action="preparer_parade", channel=thread)
    assert "Bruno : préparer une parade." in prepared.embed["description"]
    await gm.slash("combat posture", posture="normale", qui="Orque", channel=thread)
    attack = await gm.slash("combat attaque", cible="Bruno", jet=20, zone="bras", degats="1", channel=thread)
    assert "parer, esquiver ou encaisser" in attack.embed["description"]
    parried = await bob.slash("combat defense", choix="parer", jet=20, contrecoup=5, channel=thread)
    text = parried.embed["description"]
    assert "Bruno pare (parade préparée, Epée)" in text and "parade réactive" not in text
    assert "Bruno ne peut pas agir : son créneau passe." in text
    posture = await bob.slash("combat posture", posture="prudente", channel=thread)
    assert "Bruno : posture prudente." in posture.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
