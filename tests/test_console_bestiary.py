"""The GM's bestiary and a destiny point in the flow, played through the console by a GM and two
players, in French and in English, every die entered by hand: the GM saves « Bandit » (a player may
not), adds « 3 Bandits » from it and « 2 hommes-bêtes » from his completed creature row; a deadly
critical offers Grimli's player « Dépenser un point de destin » (the other player and the GM are
refused), the click saves him on the tracker and takes the point off his sheet; Élise, with no point
left, is told so and offered nothing."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

FRENCH = """
/pnj liste
/pnj enregistrer nom:Bandit cc:35 f:35 e:30 armes:Epée armure:"Chemise de mailles"
@bob /pnj enregistrer nom:Bandit cc:99
@bob /pnj voir nom:bandits
/pnj enregistrer nom:Homme-bête cc:65 e:40
/combat ouvrir nom:Embuscade
@alice /perso creer nom:Grimli caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:2"
@bob /perso creer nom:Élise caracs:"CC:42 CT:35 F:30 E:35 Ag:40 Int:35 FM:30 Soc:35"
@alice /combat ajouter qui:Grimli
@bob /combat ajouter qui:Élise
/combat ajouter qui:"3 Bandits"
/combat ajouter qui:"2 hommes-bêtes" bf:12
/combat round des:"Homme-bête 1: 10 10 10; Homme-bête 2: 9 9 9; Élise: 1 1 3; Grimli: 1 1 1; {BANDITS}"
/combat attaque attaquant:"Homme-bête 1" cible:Grimli zone:tete jet:5 degats:10 critique:100
@alice !click Encaisser
@bob !click Dépenser un point de destin (Grimli)
!click Dépenser un point de destin (Grimli)
@alice !click Dépenser un point de destin (Grimli)
@alice !click Dépenser un point de destin (Grimli)
/combat attaque attaquant:"Homme-bête 2" cible:Élise zone:tete jet:5 degats:10 critique:100
@bob !click Encaisser
/combat voir
@alice /perso voir personnage:Grimli
""".replace("{BANDITS}", "Bandit 1: 1 1 1; Bandit 2: 1 1 1; Bandit 3: 1 1 1")

ENGLISH = """
/npc save name:Bandit ws:35 s:35 t:30 weapons:Epée armour:"Chemise de mailles"
/npc save name:Beastman ws:65 t:40
/combat open name:Ambush
@alice /character create name:Grimli stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:1"
@bob /character create name:Elise stats:"CC:42 CT:35 F:30 E:35 Ag:40 Int:35 FM:30 Soc:35"
@alice /combat add who:Grimli
@bob /combat add who:Elise
/combat add who:"3 Bandits"
/combat add who:"2 hommes-bêtes" sb:12
/combat round dice:"Beastman 1: 10 10 10; Beastman 2: 9 9 9; Elise: 1 1 3; Grimli: 1 1 1; {BANDITS}"
/combat attack attacker:"Beastman 1" target:Grimli zone:tete roll:5 damage:10 critical:100
@alice !click Take it
@bob !click Spend a fate point (Grimli)
@alice !click Spend a fate point (Grimli)
/npc list
/npc delete name:bandits
""".replace("{BANDITS}", "Bandit 1: 1 1 1; Bandit 2: 1 1 1; Bandit 3: 1 1 1")


def text(record: dict[str, Any]) -> str:
    return "\n".join(
        f"{e.get('title') or ''}\n{e.get('description') or ''}\n"
        + "\n".join(f"{f['name']}: {f['value']}" for f in e.get("fields", []))
        for e in record["embeds"]
    )


def of(found: list[dict[str, Any]], command: str, user: str | None = None) -> list[dict[str, Any]]:
    return [r for r in found if r.get("command", "") == command and (user is None or r.get("user") == user)]


def labels(record: dict[str, Any]) -> list[str]:
    return [c["label"] for c in record.get("components", [])]


def test_bestiary_and_destiny_in_french() -> None:
    found = console_records(FRENCH)
    [listing] = of(found, "/pnj liste")
    assert listing["ephemeral"] and "• **Troll** — monstre · BF 10 · à compléter" in text(listing)
    saved = of(found, "/pnj enregistrer")
    assert [r["user"] for r in saved] == ["gm", "bob", "gm"]
    assert "Modèle « Bandit » enregistré" in text(saved[0]) and "Seul le MJ" in text(saved[1])
    [shown] = of(found, "/pnj voir")
    assert "**Bandit** — personnage · CC 35 · CT 25 · F 35 · E 30" in text(shown)
    bandits, beasts = of(found, "/combat ajouter", "gm")
    assert [c["name"] for c in bandits["result"]["added"]] == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert "D'après le modèle « Bandit » du serveur." in text(bandits)
    assert "Epée · PA corps 2, bras 2" in text(bandits)
    added = beasts["result"]["added"]
    assert [c["name"] for c in added] == ["Homme-bête 1", "Homme-bête 2"]
    assert added[0]["characteristics"]["CC"] == 65 and added[0]["characteristics"]["BF"] == 12
    [death] = of(found, "!click Encaisser", "alice")
    assert "💀 Grimli est mort." in text(death)
    assert (
        "💫 Grimli peut dépenser un point de destin pour échapper à la mort (il lui en reste 2) :"
        " le bouton ci-dessous est pour son joueur." in text(death)
    )
    assert labels(death) == ["Dépenser un point de destin (Grimli)"]
    clicks = of(found, "!click Dépenser un point de destin (Grimli)")
    assert [(r["user"], r["ephemeral"]) for r in clicks] == [
        ("bob", True),
        ("gm", True),
        ("alice", False),
        ("alice", True),
    ]
    assert "Seul le joueur du personnage" in text(clicks[0]) and "Seul le joueur" in text(clicks[1])
    assert text(clicks[2]).startswith("💫 Point de destin : Grimli\nGrimli dépense un point de destin")
    assert "Fiche mise à jour : points de destin 2 → 1, Fortune 2 → 1." in text(clicks[2])
    assert "n'est plus proposé" in text(clicks[3])
    [elise] = of(found, "!click Encaisser", "bob")
    assert "Élise n'a plus de point de destin pour échapper à la mort." in text(elise)
    assert not any("destin" in label for label in labels(elise))
    [tracker] = of(found, "/combat voir")
    assert "💀 ~~Élise~~" in text(tracker) and "💀 ~~Grimli~~" not in text(tracker)
    assert "Grimli · PJ" in text(tracker)
    [sheet] = of(found, "/perso voir")
    assert "PD 1" in text(sheet)


def test_bestiary_and_destiny_in_english() -> None:
    found = console_records(ENGLISH, locale="en")
    saved, beastman = of(found, "/npc save")
    assert "Template “Bandit” saved" in text(saved)
    assert "**Beastman** — monster · CC 65" in text(beastman)
    bandits, beasts = of(found, "/combat add", "gm")
    assert "From this server's template “Bandit”." in text(bandits)
    # « 2 hommes-bêtes »: the French name finds the template « Beastman »
    assert [c["name"] for c in beasts["result"]["added"]] == ["Beastman 1", "Beastman 2"]
    [death] = of(found, "!click Take it", "alice")
    assert "💫 Grimli may spend a fate point to escape death (one left)" in text(death)
    assert labels(death) == ["Spend a fate point (Grimli)"]
    refused, spent = of(found, "!click Spend a fate point (Grimli)")
    assert refused["user"] == "bob" and refused["ephemeral"]
    assert "Only the character's player may spend this fate point (Grimli)." in text(refused)
    assert "Sheet updated: fate points 1 → 0, Fortune 1 → 0." in text(spent)
    [listing] = of(found, "/npc list")
    assert "• **Beastman** — monster · CC 65" in text(
        listing
    ) and "**Beastman** — monster · BF 7" not in text(listing)
    [deleted] = of(found, "/npc delete")
    assert text(deleted).strip() == "Template “Bandit” deleted."
