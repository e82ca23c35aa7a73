"""An attack still unanswered when the GM starts a new round (issue 19, item 13) through the
console, a GM and two players, French and English: the GM's « round » asks first and names the
pending attack; confirmed, Albert's Coup assommant is taken as « encaisser » in round 1 (its opposed
test, no damage), round 1 ends — the stun counted once — and only then round 2 starts."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso modifier talents:"Coups assommants"
@alice /perso equiper arme:Gourdin
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
/combat ouvrir nom:Attente
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1"
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:20 speciale:"Coup assommant" effets:"30 60" durees:4
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1"
!click Lancer le round 2
/combat voir
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character edit talents:"Coups assommants"
@alice /character equip weapon:Gourdin
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
/combat open name:Attente
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1"
@alice /combat posture posture:normale
@alice /combat attack target:Orc roll:20 special:"Stunning blow" effects:"30 60" durations:4
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1"
!click Start round 2
/combat show
"""


def texts(records: list[dict[str, Any]], command: str) -> list[str]:
    return [
        "\n".join((e.get("title") or "") + "\n" + (e.get("description") or "") for e in r["embeds"])
        + "\n".join(f["value"] for e in r["embeds"] for f in e.get("fields", []))
        for r in records
        if r.get("command") == command
    ]


def test_a_pending_attack_is_taken_before_the_new_round_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    asked = texts(records, "/combat round")[1]
    assert "Orque doit se défendre contre Albert (attaque n° " in asked
    [started] = texts(records, "!click Lancer le round 2")
    order = [
        "sans défense avant la fin du round, elle est encaissée.",
        "Orque encaisse.",
        "Orque subit l'état « sonné » pendant 4 rounds.",
        "Fin du round 1.",
        "**Albert** : 10+10+10 + Ag 40 = **70**",
    ]
    assert all(part in started for part in order), started
    assert [started.index(part) for part in order] == sorted(started.index(part) for part in order)
    assert "sonné · 3 round" in texts(records, "/combat voir")[0]


def test_a_pending_attack_is_taken_before_the_new_round_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    [started] = texts(records, "!click Start round 2")
    stunned, ended = started.index("Orc is stunned for 4 rounds."), started.index("End of round 1.")
    assert stunned < ended < started.index("**Albert**")
