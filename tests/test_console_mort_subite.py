"""Mort subite (seed l. 1305-1310) through the console, a GM and two players, French and English:
for an NPC under the fight's option the band replaces the critical table's effects — a 7 leaves
Gobelin 1 fighting with no effect of the table, a 15 kills Gobelin 2."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:Epée
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:Epée
/combat ouvrir nom:Melee mort_subite:oui
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:"2 gobelins" camp:gobelins
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Gobelin 1: 1 1 1; Gobelin 2: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attaque cible:"Gobelin 1" jet:30 zone:corps degats:5 critique:45
!click Encaisser
@bob /combat posture posture:normale
@bob /combat attaque cible:"Gobelin 2" jet:30 zone:corps degats:9 critique:45
!click Encaisser
/combat voir
"""

ENGLISH = """@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Epée
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character equip weapon:Epée
/combat open name:Melee sudden_death:true
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:"2 goblins" side:goblins
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Goblin 1: 1 1 1; Goblin 2: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attack target:"Goblin 1" roll:30 zone:corps damage:5 critical:45
!click Take it
@bob /combat posture posture:normale
@bob /combat attack target:"Goblin 2" roll:30 zone:corps damage:9 critical:45
!click Take it
/combat show
"""


def texts(records: list[dict[str, Any]], command: str) -> list[str]:
    return [
        "\n".join(
            (e.get("description") or "") + "\n".join(f["value"] for f in e.get("fields", []))
            for e in r["embeds"]
        )
        for r in records
        if r.get("command") == command
    ]


def test_mort_subite_replaces_the_critical_effects_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    seven, fifteen = texts(records, "!click Encaisser")
    assert "Critique : d100 45 (ligne 41-50), 7 dégâts → table 7 = **7** — tranchantes, corps" in seven
    assert "Mort subite (7) : Gobelin 1 continue le combat." in seven
    assert "> " not in seven and "•" not in seven  # neither the narration nor the effects of the table
    assert "Mort subite (15) : Gobelin 2 meurt." in fifteen
    [tracker] = texts(records, "/combat voir")
    assert "💀 mort" in tracker and tracker.count("💀 mort") == 1


def test_mort_subite_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    seven, fifteen = texts(records, "!click Take it")
    assert "Sudden death (7): Goblin 1 fights on." in seven and "> " not in seven and "•" not in seven
    assert "Sudden death (15): Goblin 2 dies." in fifteen
