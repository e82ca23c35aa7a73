"""« Les actions se feront en dernier » (head criticals 1-2) through the console, a GM and two
players, French and English: the Orc's blow dazes Albert (tranchantes, tête, 1), whose slot moves
after Bruno's this round, and whose round-2 slot comes last although his initiative is the best."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:Epée
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
/combat ouvrir nom:Sonne
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Orque: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat posture posture:normale qui:Orque
/combat attaque cible:Albert jet:5 zone:tete degats:1 critique:75
@alice !click Encaisser
/combat voir
@bob /combat posture posture:normale
@bob /combat attaque cible:Orque jet:95
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:95
/combat round des:"Orque: 1 1 1; Albert: 10 10 10; Bruno: 5 5 5"
/combat voir
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Epée
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
/combat open name:Sonne
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc cc:50 ag:30 side:orcs
/combat round dice:"Orc: 10 10 10; Albert: 5 5 5; Bruno: 1 1 1"
/combat posture posture:normale who:Orc
/combat attack target:Albert roll:5 zone:tete damage:1 critical:75
@alice !click Take it
/combat show
@bob /combat posture posture:normale
@bob /combat attack target:Orc roll:95
@alice /combat posture posture:normale
@alice /combat attack target:Orc roll:95
/combat round dice:"Orc: 1 1 1; Albert: 10 10 10; Bruno: 5 5 5"
/combat show
"""


def texts(records: list[dict[str, Any]], command: str) -> list[str]:
    return [
        "\n".join(
            (e.get("title") or "")
            + "\n"
            + (e.get("description") or "")
            + "".join(f"\n{f['name']}: {f['value']}" for f in e.get("fields", []))
            for e in r["embeds"]
        )
        for r in records
        if r.get("command") == command
    ]


def order(text: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(("Ordre", "Order")))
    rows = [line, *text.splitlines()[text.splitlines().index(line) + 1 :]]
    return [r.split("— ")[1].split(" (")[0] for r in rows if "— " in r]


def test_acting_last_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    [dazed] = texts(records, "!click Encaisser")
    assert (
        "• Albert agit en dernier ce round et le suivant : ses créneaux passent après ceux de tous." in dazed
    )
    assert "Le MJ tranche" not in dazed
    round_1, round_2 = (order(t) for t in texts(records, "/combat voir"))
    assert round_1 == ["Orque", "Bruno", "Albert"]
    assert round_2 == ["Bruno", "Orque", "Albert"]  # initiative 70, 60, 33: Albert still last
    assert "agit en dernier · 1 round" in texts(records, "/combat voir")[1]
    assert (
        "Albert agit en dernier ce round (critique) : ses créneaux viennent après ceux de tous."
        in (texts(records, "/combat round")[1])
    )


def test_acting_last_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    [dazed] = texts(records, "!click Take it")
    assert "Albert acts last this round and the next" in dazed
    assert order(texts(records, "/combat show")[1]) == ["Bruno", "Orc", "Albert"]
