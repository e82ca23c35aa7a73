"""« Les actions engagées se feront à -10 % » (head 8 criticals, seed l. 2696, 2993, 3262) through the
console, a GM and two players, French and English: Albert's nose is cut (tranchantes, tête, 8); the
−10 % then weighs on his dodge, on his effect tests and on his attack, after the combat WS."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:Epée
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
/combat ouvrir nom:Tete
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Orque: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat attaque cible:Albert jet:5 zone:tete degats:7 critique:35 durees:1
@alice !click Encaisser
@bob /combat posture posture:normale
@bob /combat attaque cible:Orque jet:90
/combat round des:"Orque: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat attaque cible:Albert jet:30 zone:jambes degats:1 critique:5 effets:"5 5 5" durees:"1 1 1"
@alice /combat defense choix:esquiver jet:50
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:5
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Epée
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
/combat open name:Tete
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs
/combat round dice:"Orc: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat attack target:Albert roll:5 zone:tete damage:7 critical:35 durations:1
@alice !click Take it
@bob /combat posture posture:normale
@bob /combat attack target:Orc roll:90
/combat round dice:"Orc: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat attack target:Albert roll:30 zone:jambes damage:1 critical:5 effects:"5 5 5" durations:"1 1 1"
@alice /combat defend choice:esquiver roll:50
@alice /combat posture posture:normale
@alice /combat attack target:Orc roll:5
"""


def texts(records: list[dict[str, Any]], command: str) -> list[str]:
    return [
        "\n".join((e.get("title") or "") + "\n" + (e.get("description") or "") for e in r["embeds"])
        for r in records
        if r.get("command") == command
    ]


def test_the_head_8_malus_weighs_on_every_action_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    [cut] = texts(records, "!click Encaisser")
    assert "Critique : d100 35 (ligne 31-40), 7 dégâts → table 8 = **8** — tranchantes, tête" in cut
    assert "tous les tests -10 · jusqu'à guérison" in cut
    [dodge] = texts(records, "/combat defense")
    assert (
        "Ag 40 · sans Esquive (Ag/2) -20 · Lente +10 · critique tranchantes, tête, 8 -10 = **20 %**" in dodge
    )
    assert "E 40 · critique tranchantes, tête, 8 -10 · modificateur de l'effet -10 = **20 %**" in dodge
    attack = next(t for t in texts(records, "/combat attaque") if "Albert → Orque" in t)
    assert "CC 20 · ajustement (50 − CC adverse) +0 · critique tranchantes, tête, 8 -10 = **10 %**" in attack


def test_the_head_8_malus_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    attack = next(t for t in texts(records, "/combat attack") if "Albert → Orc" in t)
    assert "= **10 %**" in attack and "8 -10" in attack
