"""The charge's distance (seed l. 986, « Cible entre M et M*3 mètres ») through the console, French
and English, a GM and two players: Albert (M 4) is refused a charge at 2,5 m or 13 m, in his
language and with a decimal comma in French; at 8 m it goes, +10 % CC; Bruno charges without a
distance (the GM's word)."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:Epée
/combat ouvrir nom:Charge
@alice /combat ajouter qui:Albert
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1"
@alice /combat attaque cible:Orque jet:95 charge:oui distance:2.5
@alice /combat attaque cible:Orque jet:95 charge:oui distance:13
@alice /combat attaque cible:Orque jet:95 charge:oui distance:8
@bob /combat attaque cible:Orque jet:95 charge:oui
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Epée
/combat open name:Charge
@alice /combat add who:Albert
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1"
@alice /combat attack target:Orc roll:95 charge:true distance:2.5
@alice /combat attack target:Orc roll:95 charge:true distance:13
@alice /combat attack target:Orc roll:95 charge:true distance:8
@bob /combat attack target:Orc roll:95 charge:true
"""


def replies(records: list[dict[str, Any]]) -> list[str]:
    return [
        r["embeds"][0]["description"] for r in records if str(r.get("command", "")).startswith("/combat att")
    ]


def test_the_charge_distance_in_french() -> None:
    near, far, fine, free = replies(console_records(FRENCH))
    assert near == "Une charge vise une cible entre M et 3 × M mètres : pour Albert, de 4 à 12 m, pas 2,5 m."
    assert far.endswith("de 4 à 12 m, pas 13 m.")
    assert "charge +10 = **60 %**" in fine
    assert "charge +10" in free


def test_the_charge_distance_in_english() -> None:
    near, far, fine, free = replies(console_records(ENGLISH, locale="en"))
    assert far.endswith("4 to 12 m, not 13 m.")
    assert (
        near == "A charge is aimed at a target between M and 3 × M metres: for Albert, 4 to 12 m, not 2.5 m."
    )
    assert "charge +10" in fine and "charge +10" in free
