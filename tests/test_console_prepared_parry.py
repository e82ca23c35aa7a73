"""Postures and prepared parries (seed l. 965, 991) through the console, a GM and two players, French
and English: Bruno announces a prepared parry at the start of the round, before his slot; he parries
the Orc with it (no reactive −10 %), still chooses his posture after defending, and his slot passes
(his one A went into the parry). In round 2 Albert dodges before his slot and still chooses his
posture (« A chaque nouveau round, il faut choisir une posture »)."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:Epée
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
/combat ouvrir nom:Garde
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Orque: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
@bob /combat action action:preparer_parade
/combat posture posture:normale qui:Orque
/combat attaque cible:Bruno jet:20 zone:bras degats:1
@bob /combat defense choix:parer jet:20 contrecoup:5
@bob /combat posture posture:prudente
@alice /combat action action:preparer_parade
/combat round des:"Orque: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat posture posture:normale qui:Orque
/combat attaque cible:Albert jet:20 zone:bras degats:1 critique:5 effets:"5 5 5" durees:"1 1 1"
@alice /combat defense choix:esquiver jet:5
@alice /combat posture posture:prudente
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Epée
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
/combat open name:Garde
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs
/combat round dice:"Orc: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
@bob /combat action action:preparer_parade
/combat posture posture:normale who:Orc
/combat attack target:Bruno roll:20 zone:bras damage:1
@bob /combat defend choice:parer roll:20 side_effect:5
@bob /combat posture posture:prudente
@alice /combat action action:preparer_parade
/combat round dice:"Orc: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat posture posture:normale who:Orc
/combat attack target:Albert roll:20 zone:bras damage:1 critical:5 effects:"5 5 5" durations:"1 1 1"
@alice /combat defend choice:esquiver roll:5
@alice /combat posture posture:prudente
"""


def texts(records: list[dict[str, Any]], command: str) -> list[str]:
    return [
        "\n".join(
            [
                r.get("content") or "",
                *((e.get("title") or "") + "\n" + (e.get("description") or "") for e in r["embeds"]),
            ]
        )
        for r in records
        if r.get("command") == command
    ]


def test_a_parry_prepared_at_the_start_of_the_round_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    prepared = texts(records, "/combat action")[0]
    assert "Bruno : préparer une parade." in prepared and "Au tour d'**Orque**" in prepared
    parry = texts(records, "/combat defense")[0]
    assert "Bruno pare (parade préparée, Epée) : CC 45 · ajustement (50 − CC adverse) +0" in parry
    assert "parade réactive" not in parry
    posture = texts(records, "/combat posture")[1]
    assert "Bruno : posture prudente." in posture
    assert "Bruno ne peut pas agir : son créneau passe." in texts(records, "/combat action")[1]
    # round 2: Albert dodges the Orc before his slot, then still chooses his posture
    assert "Albert esquive" in texts(records, "/combat defense")[1]
    assert "Albert : posture prudente." in texts(records, "/combat posture")[-1]


def test_a_parry_prepared_at_the_start_of_the_round_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    parry = texts(records, "/combat defend")[0]
    assert "prepared parry" in parry and "reactive" not in parry
    assert "careful" in texts(records, "/combat posture")[1]
    assert "Albert: careful posture." in texts(records, "/combat posture")[-1]
