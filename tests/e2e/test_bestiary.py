"""The GM's bestiary and a destiny point through the real bot: the GM saves « Bandit » and completes
« Homme-bête », adds « 3 Bandits » and « 2 hommes-bêtes » from them; a deadly critical offers Grimli's
player « Dépenser un point de destin » (another player's click is refused privately); his click gets
Grimli back up on the pinned tracker and takes the point off his sheet."""

from __future__ import annotations

from .harness import E2E

INITIATIVE = "Homme-bête 1: 10 10 10; Homme-bête 2: 9 9 9; Grimli: 1 1 1; Bandit 1: 1 1 1; Bandit 2: 1 1 1"


async def test_templates_in_a_fight_and_a_death_saved_by_destiny(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    saved = await gm.slash(
        "pnj enregistrer", nom="Bandit", cc=35, f=35, e=30, armes="Epée", armure="Chemise de mailles"
    )
    assert saved.embed["title"] == "Modèle « Bandit » enregistré"
    refused = await bob.slash("pnj supprimer", nom="Bandit")
    assert refused.ephemeral and "Seul le MJ" in refused.embed["description"]
    await gm.slash("pnj enregistrer", nom="Homme-bête", cc=65, e=40)
    listing = await bob.slash("pnj liste")
    assert listing.ephemeral and "• **Troll** — monstre · BF 10 · à compléter" in listing.embed["description"]
    await alice.slash(
        "perso creer", nom="Grimli", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:2"
    )
    opened = await gm.slash("combat ouvrir", nom="Bestiaire")
    await opened.wait_followup()
    thread = emu.thread("Bestiaire")
    await alice.slash("combat ajouter", qui="Grimli", channel=thread)
    bandits = await gm.slash("combat ajouter", qui="3 Bandits", channel=thread)
    assert "D'après le modèle « Bandit » du serveur." in bandits.embed["description"]
    assert "**Bandit 3** — CC 35" in bandits.embed["description"]
    beasts = await gm.slash("combat ajouter", qui="2 hommes-bêtes", bf=12, channel=thread)
    assert "**Homme-bête 2** — CC 65" in beasts.embed["description"]

    def grimli_field() -> str:
        pinned = emu.pins(thread)[0]
        return next(f["name"] for f in pinned.embeds[0]["fields"] if "Grimli" in f["name"])

    await gm.slash("combat round", des=INITIATIVE + "; Bandit 3: 1 1 1", channel=thread)
    blow = await gm.slash(
        "combat attaque",
        attaquant="Homme-bête 1",
        cible="Grimli",
        zone="tete",
        jet=5,
        degats="10",
        critique=100,
        channel=thread,
    )
    taken = await alice.click("Encaisser", message=blow.message)
    assert "💫 Grimli peut dépenser un point de destin pour échapper à la mort" in taken.embed["description"]
    await emu.emu.wait_until(lambda: "💀" in grimli_field(), what="Grimli dead on the tracker")
    button = "Dépenser un point de destin (Grimli)"
    other = await bob.click(button, message=taken.message)
    assert other.ephemeral and "Seul le joueur du personnage" in other.embed["description"]
    spent = await alice.click(button, message=taken.message)
    assert not spent.ephemeral and spent.embed["title"] == "💫 Point de destin : Grimli"
    assert "points de destin 2 → 1" in spent.embed["description"]
    await emu.emu.wait_until(lambda: "💀" not in grimli_field(), what="Grimli alive on the tracker")
    again = await alice.click(button, message=taken.message)
    assert again.ephemeral and "n'est plus proposé" in again.embed["description"]

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
    sheet = await alice.slash("perso voir", personnage="Grimli")
    assert "PD 1" in str(sheet.embed["fields"])
