"""A whole fight through the real bot and the emulator (issue 18), the scenario of
``tests/test_console_full_fight.py``: the GM and three players (alice: Élise, bob: Grimli, carol:
Gunther) against two bandits from the GM's bestiary (side « Bandits ») and two goblins (side PNJ), four
rounds, every die typed by hand. Grimli's attack on his ally is cancelled, Gunther's attack on the
wrong goblin is undone by his player, the GM skips Grimli's turn and starts rounds 3 and 4 mid-round
(both confirmed), plays Gunther for his absent player (« Qui agit ? »), Bandit 1's critical kills
Élise and her player spends her last destiny point. After every step the pinned tracker's first line
says what the table waits for; the fight ends and its thread is archived."""

from __future__ import annotations

from typing import Any

from .harness import E2E
from .turns import next_round, skip_turn

INIT = (
    "Élise: 20 20 20; Grimli: 18 18 18; Gunther: 16 16 16; Bandit 1: 10 10 10; Bandit 2: 8 8 8; "
    "Gobelin 1: 5 5 5; Gobelin 2: 3 3 3"
)


def _posture(name: str) -> str:
    return f"⏳ {name} choisit sa posture (c'est son tour)"


async def test_a_full_fight_with_three_players(emu: E2E) -> None:
    gm, alice, bob, carol = emu.user("gm"), emu.user("alice"), emu.user("bob"), emu.user("carol")
    saved = await gm.slash(
        "pnj enregistrer", nom="Bandit", cc=65, f=75, e=30, armes="Epée", armure="Chemise de mailles"
    )
    assert saved.embed["title"] == "Modèle « Bandit » enregistré"
    await alice.slash(
        "perso creer", nom="Élise", caracs="CC:45 CT:30 F:35 E:25 Ag:40 Int:31 FM:29 Soc:33 PD:1"
    )
    await alice.slash("perso equiper", arme="epee")
    await bob.slash(
        "perso creer", nom="Grimli", caracs="CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33 PD:2"
    )
    await bob.slash("perso equiper", arme="hache_pic")
    await carol.slash(
        "perso creer", nom="Gunther", caracs="CC:42 CT:30 F:38 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:2"
    )
    await carol.slash("perso equiper", arme="epee")
    opened = await gm.slash("combat ouvrir", nom="Grand combat")
    await opened.wait_followup()
    thread = emu.thread("Grand combat")
    await alice.slash("combat ajouter", qui="Élise", channel=thread)
    await bob.slash("combat ajouter", qui="Grimli", channel=thread)
    await carol.slash("combat ajouter", qui="Gunther", channel=thread)
    bandits = await gm.slash("combat ajouter", qui="2 Bandits", camp="Bandits", channel=thread)
    assert "D'après le modèle « Bandit » du serveur." in bandits.embed["description"]
    assert "Camp : Bandits" in bandits.embed["description"]
    goblins = await gm.slash("combat ajouter", qui="2 gobelins", channel=thread)
    assert "Camp : PNJ" in goblins.embed["description"]

    def pinned() -> dict[str, Any]:
        return emu.pins(thread)[0].embeds[0]

    def fields() -> dict[str, str]:
        return {f["name"]: f["value"] for f in pinned().get("fields", [])}

    def snapshot() -> tuple[Any, ...]:
        return pinned().get("description"), tuple(fields().items())

    def waiting() -> str:
        return str(pinned().get("description") or "").split("\n")[0].strip("*")

    async def waits(line: str) -> None:
        await emu.emu.wait_until(lambda: waiting() == line, what=f"the tracker saying {line!r}")

    # -- round 1 ------------------------------------------------------------------------------
    started = await gm.slash("combat round", des=INIT, channel=thread)
    assert started.content == f"<@{alice.user.id}> ▶ Au tour d'Élise."
    await waits(_posture("Élise"))
    assert list(fields())[1:] == [
        "▶ Élise · PJ",
        "Grimli · PJ",
        "Gunther · PJ",
        "Bandit 1 · Bandits",
        "Bandit 2 · Bandits",
        "Gobelin 1 · PNJ",
        "Gobelin 2 · PNJ",
    ]
    assert fields()["Ordre"].split("\n")[0] == "▶ 100 — Élise (A1)"
    assert fields()["▶ Élise · PJ"] == "Attaques : 0 sur 1"
    await alice.click("prudente", message=started.message)
    await waits("⏳ Au tour d'Élise")
    assert fields()["▶ Élise · PJ"] == "Posture : prudente\nAttaques : 0 sur 1"

    hit = await alice.slash("combat attaque", cible="Gobelin 1", jet=20, degats="3", channel=thread)
    assert hit.embed["description"].endswith(
        "⏳ En attente de la défense : Gobelin 1 — le tour passe ensuite."
    )
    await waits("⏳ Gobelin 1 doit se défendre contre Élise (attaque n° 9)")
    assert fields()["▶ Élise · PJ"] == "Posture : prudente\nAttaques : 1 sur 1"
    parried = await gm.slash("combat defense", choix="parer", jet=5, contrecoup=1, channel=thread)
    assert parried.content == f"<@{bob.user.id}> ▶ Au tour de Grimli."
    await waits(_posture("Grimli"))

    # Grimli's attack on his ally Gunther: asked privately, cancelled, nothing changed
    before = snapshot()
    asked = await bob.slash("combat attaque", cible="Gunther", jet=20, channel=thread)
    assert asked.ephemeral and asked.embed["title"] == "⚠️ Grimli attaque un allié : confirmer ?"
    cancelled = await bob.click("Annuler", message=asked.message)
    assert cancelled.ephemeral and cancelled.embed["description"] == "Attaque annulée : rien n'a changé."
    shown = await gm.slash("combat voir", channel=thread)
    assert shown.embed["description"].startswith(f"**{_posture('Grimli')}**")
    assert snapshot() == before

    missed = await bob.slash("combat attaque", cible="Bandit 1", jet=90, channel=thread)
    assert missed.content == f"<@{carol.user.id}> ▶ Au tour de Gunther."
    await waits(_posture("Gunther"))

    # Gunther attacks the wrong goblin; his player takes it back: the tracker of before
    before = snapshot()
    await carol.slash("combat attaque", cible="Gobelin 2", jet=10, channel=thread)
    await waits("⏳ Gobelin 2 doit se défendre contre Gunther (attaque n° 12)")
    undone = await carol.slash("combat annuler", channel=thread)
    assert not undone.ephemeral
    assert undone.embed["description"] == (
        "↩️ Annulé : l'attaque de Gunther sur Gobelin 2 (action n° 11).\n▶ Au tour de **Gunther**."
    )
    await emu.emu.wait_until(lambda: snapshot() == before, what="the tracker back to before the attack")
    await carol.slash("combat attaque", cible="Gobelin 1", jet=10, channel=thread)
    await waits("⏳ Gobelin 1 doit se défendre contre Gunther (attaque n° 13)")
    await gm.slash("combat defense", choix="esquiver", jet=5, channel=thread)
    await waits(_posture("Bandit 1"))

    await gm.slash("combat attaque", cible="Élise", jet=30, channel=thread)
    await emu.emu.wait_until(
        lambda: waiting().startswith("⏳ Élise doit se défendre contre Bandit 1 (attaque n° "),
        what="the tracker naming Élise's defence",
    )
    await alice.slash("combat defense", choix="esquiver", jet=5, channel=thread)
    await waits(_posture("Bandit 2"))
    await gm.slash("combat attaque", cible="Grimli", jet=90, channel=thread)
    await waits(_posture("Gobelin 2"))  # Gobelin 1 spent his action parrying
    await gm.slash("combat attaque", cible="Gunther", jet=90, channel=thread)
    await waits("Le round 1 est fini : le MJ lance le round 2")

    # -- round 2: Grimli's turn skipped, Élise killed and saved by destiny ----------------------
    await next_round(gm, thread, des=INIT)
    await waits(_posture("Élise"))
    await alice.slash("combat attaque", cible="Gobelin 1", jet=95, channel=thread)
    await waits(_posture("Grimli"))
    passed = await skip_turn(gm, thread)
    assert passed.content == f"<@{carol.user.id}> ▶ Au tour de Gunther."
    await waits(_posture("Gunther"))
    await carol.slash("combat attaque", cible="Bandit 2", jet=95, channel=thread)
    await waits(_posture("Bandit 1"))
    blow = await gm.slash(
        "combat attaque", cible="Élise", zone="tete", jet=5, degats="10", critique=100, channel=thread
    )
    taken = await alice.click("Encaisser", message=blow.message)
    assert "💀 Élise est mort" in taken.embed["description"]
    await waits(_posture("Bandit 2"))
    assert "~~Élise~~" in fields()["Ordre"] and "Élise · PJ" not in fields()
    button = "Dépenser un point de destin (Élise)"
    refused = await bob.click(button, message=taken.message)
    assert refused.ephemeral and "Seul le joueur du personnage" in refused.embed["description"]
    spent = await alice.click(button, message=taken.message)
    assert not spent.ephemeral and "points de destin 1 → 0" in spent.embed["description"]
    await emu.emu.wait_until(lambda: "~~Élise~~" not in fields()["Ordre"], what="Élise alive again")
    assert fields()["Élise · PJ"] == "Posture : normale\nAttaques : 1 sur 1"

    # -- round 3, started mid-round; the GM plays Gunther for his absent player -----------------
    asked = await gm.slash("combat round", des=INIT, channel=thread)
    assert asked.ephemeral and "Pas encore agi : Bandit 2, Gobelin 1, Gobelin 2" in asked.embed["description"]
    third = await gm.click("Lancer le round 3", message=asked.message)
    assert third.content == f"<@{alice.user.id}> ▶ Au tour d'Élise."
    await waits(_posture("Élise"))
    await alice.slash("combat attaque", cible="Bandit 1", jet=10, degats="3", channel=thread)
    await gm.slash("combat defense", choix="parer", jet=5, contrecoup=1, channel=thread)
    await waits(_posture("Grimli"))
    await bob.slash("combat attaque", cible="Bandit 2", jet=90, channel=thread)
    await waits(_posture("Gunther"))
    who = await gm.slash("combat attaque", cible="Gobelin 2", jet=10, channel=thread)
    assert (
        who.ephemeral and who.embed["description"] == "C'est le tour du PJ Gunther. Qui attaque Gobelin 2 ?"
    )
    played = await gm.select("Qui agit ?", "Gunther", message=who.message)
    assert played.embed["title"].startswith("⚔️ Gunther → Gobelin 2")
    await waits("⏳ Gobelin 2 doit se défendre contre Gunther (attaque n° 32)")
    await gm.slash("combat defense", choix="esquiver", jet=5, channel=thread)
    await waits(_posture("Bandit 2"))  # Bandit 1 spent his action parrying

    # -- round 4, started mid-round and played to its end --------------------------------------
    fourth = await next_round(gm, thread, des=INIT)
    assert fourth.content == f"<@{alice.user.id}> ▶ Au tour d'Élise."
    await waits(_posture("Élise"))
    which = await gm.click("prudente", message=emu.pins(thread)[0])
    assert which.ephemeral
    await gm.select("Posture prudente pour…", "Gobelin 1", message=which.message)
    await emu.emu.wait_until(
        lambda: fields()["Gobelin 1 · PNJ"] == "Posture : prudente\nAttaques : 0 sur 1",
        what="Gobelin 1's posture on the tracker",
    )
    await alice.slash("combat attaque", cible="Gobelin 2", jet=90, channel=thread)
    await waits(_posture("Grimli"))
    await bob.slash("combat attaque", cible="Bandit 1", jet=90, channel=thread)
    await carol.slash("combat attaque", cible="Bandit 2", jet=90, channel=thread)
    await gm.slash("combat attaque", cible="Grimli", jet=90, channel=thread)
    await gm.slash("combat attaque", cible="Gunther", jet=90, channel=thread)
    await waits("⏳ Au tour de Gobelin 1")
    await gm.slash("combat attaque", cible="Élise", jet=90, channel=thread)
    await waits(_posture("Gobelin 2"))
    await gm.slash("combat attaque", cible="Grimli", jet=90, channel=thread)
    await waits("Le round 4 est fini : le MJ lance le round 5")
    assert [v for k, v in fields().items() if k != "Ordre"] == ["Attaques : 1 sur 1"] * 7

    ended = await gm.slash("combat fin", channel=thread)
    assert "Grand combat" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
    sheet = await alice.slash("perso voir", personnage="Élise")
    assert "PD 0" in str(sheet.embed["fields"])
