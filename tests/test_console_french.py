"""French that a French GM would have written (issue 21), played through the console: Élise, a
female character whose name starts with a vowel (« genre:f » on her sheet), a quick female NPC
(« Orque », ``genre:f`` on ``/combat ajouter``) and two goblins. Every reply elides before Élise
(« Au tour d'Élise », « Cible d'Élise… », « Test d'E d'Orque »), agrees with her (« Élise n'est
pas touchée », « mourra si elle n'est pas soignée », « Humaine »), counts in real plurals
(« 1 round », « 2 rounds ») and never writes « (s) ». The same fight runs in English."""

from __future__ import annotations

import re
from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
/config mj role:@MJ
@alice /perso creer nom:Élise genre:f caracs:"CC:45 CT:30 F:35 E:25 Ag:40 Int:31 FM:29 Soc:33 PD:1"
@alice /perso equiper arme:epee
/combat ouvrir nom:Embuscade
@alice /combat ajouter qui:Élise
/combat ajouter qui:Orque genre:f
/combat ajouter qui:"2 gobelins"
/combat round des:"Élise: 20 20 20; Orque: 10 10 10; Gobelin 1: 5 5 5; Gobelin 2: 3 3 3"
@alice !click prudente
@alice /combat attaque cible:Orque jet:20 degats:3
/combat defense choix:esquiver jet:95
/combat attaque cible:Élise jet:95
/combat attaque cible:Élise jet:1 degats:10 critique:100
!pins Embuscade
/combat fin
@alice /perso voir personnage:Élise
"""

ENGLISH = (
    FRENCH.replace("Orque", "Orc")
    .replace("Gobelin", "Goblin")
    .replace("2 gobelins", "2 goblins")
    .replace("!click prudente", "!click careful")
)


def text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for e in record.get("embeds", []):
        parts += [str(e.get("title") or ""), str(e.get("description") or ""), str(e.get("footer") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in e.get("fields", [])]
    return "\n".join(parts)


def replies(records: list[dict[str, Any]], command: str, user: str = "gm") -> list[str]:
    return [text(r) for r in records if r.get("command", "").startswith(command) and r.get("user") == user]


def test_a_fight_with_elise_reads_as_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    everything = "\n".join(text(r) for r in records)
    # nothing a French GM would not write
    assert "(s)" not in everything
    assert not re.search(r"\b[Dd]e \**[AEIOUÉ]", everything), everything
    assert not re.search(r"\d\.\d", everything)
    [created] = replies(records, "/perso creer", "alice")
    assert "✅ **Élise** est créée." in created and "Humaine ·" in created
    [round_1] = replies(records, "/combat round")
    assert "▶ Au tour d'Élise." in round_1 and "▶ Au tour d'**Élise**." in round_1
    [defence] = replies(records, "/combat defense")
    assert "Test d'E d'Orque" in defence and "• perd du temps · 1 round" in defence
    assert "• CC -5 · 2 rounds" in defence
    missed, critical = replies(records, "/combat attaque")
    assert "Élise n'est pas touchée." in missed
    assert "• mourra si elle n'est pas soignée · 3 rounds" in critical
    [pin] = replies(records, "!pins")
    assert "1. mourra si elle n'est pas soignée · 2 rounds" in pin and "1. CC -5 · 1 round" in pin
    [end] = replies(records, "/combat fin")
    assert "1 round." in end and "Inscrit sur la fiche d'Élise" in end
    assert "mourra si elle n'est pas soignée dans 2 rounds" in end
    [sheet] = replies(records, "/perso voir", "alice")
    assert "si elle n'est pas soignée" in sheet and "s'il" not in sheet


def test_the_same_fight_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    everything = "\n".join(text(r) for r in records)
    assert "(s)" not in everything
    [round_1] = replies(records, "/combat round")
    assert "▶ Élise's turn." in round_1
    missed, critical = replies(records, "/combat attaque")
    assert "Élise is not hit." in missed and "• will die unless treated · 3 rounds" in critical
    [pin] = replies(records, "!pins")
    assert "1. will die unless treated · 2 rounds" in pin and "1. WS -5 · 1 round" in pin
    [end] = replies(records, "/combat fin")
    assert "1 round." in end and "Written on Élise's sheet" in end
