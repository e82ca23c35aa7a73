"""Shooting at a shield bearer (seed l. 296-297, 1392) through the console, a GM and two players,
French and English: a shot at the Orc carrying a Bouclier is at −10 % CT without typing it, and once
only when the shooter types the situation too; the Goblin's Rondache gives no such malus."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:"Arc court"
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:"Arc court"
/combat ouvrir nom:Tir
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques armes:"Epée, Bouclier"
/combat ajouter qui:Gobelin cc:50 ag:30 camp:gobelins armes:"Epée, Rondache"
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1; Gobelin: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:90 distance:10
@bob /combat posture posture:normale
@bob /combat attaque cible:Orque jet:90 distance:10 situation:"Tirer sur une cible possédant un bouclier"
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1; Gobelin: 2 2 2"
!click Lancer le round 2
@alice /combat posture posture:normale
@alice /combat attaque cible:Gobelin jet:90 distance:10
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:"Arc court"
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:"Arc court"
/combat open name:Tir
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs weapons:"Epée, Bouclier"
/combat add who:Goblin cc:50 ag:30 side:goblins weapons:"Epée, Rondache"
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1; Goblin: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attack target:Orc roll:90 distance:10
@bob /combat posture posture:normale
@bob /combat attack target:Orc roll:90 distance:10 situation:ct_cible_avec_bouclier
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1; Goblin: 2 2 2"
!click Start round 2
@alice /combat posture posture:normale
@alice /combat attack target:Goblin roll:90 distance:10
"""


def shots(records: list[dict[str, Any]], command: str) -> list[str]:
    return [r["embeds"][0]["description"] for r in records if r.get("command") == command and r.get("embeds")]


def test_shooting_at_a_shield_bearer_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    auto, typed, rondache = (s.splitlines()[0] for s in shots(records, "/combat attaque"))
    assert auto == typed == "Test de CT : CT 40 · Tirer sur une cible possédant un bouclier -10 = **30 %**"
    assert rondache == "Test de CT : CT 40 = **40 %**"


def test_shooting_at_a_shield_bearer_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    auto, typed, rondache = (s.splitlines()[0] for s in shots(records, "/combat attack"))
    assert auto == typed and auto.endswith("-10 = **30 %**") and "Shoot at a target with a shield" in auto
    assert rondache.endswith("BS 40 = **40 %**")
