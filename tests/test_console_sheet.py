"""A character sheet as a WFRP table keeps it, through the console (``python -m bot console --json``),
played as a French player, the GM and an English player: skills on their characteristic, the seed's
+3 on the sheet, race, career, experience and purse, Fortune refilled by the GM, mistakes refused
with an example and nothing written."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

GUNTHER = 'caracs:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"'

FRENCH = f"""
@alice /perso creer nom:Gunther {GUNTHER} race:nain carriere:Ratier
@alice /perso modifier competences:"Esquive +10, Perception"
@alice /test competence:Esquive jet:43
@alice /test competence:Perception jet:30
@alice /test competence:Crochetage jet:10
@alice /perso modifier competences:"Esquive:45"
@alice /perso modifier px:120/80 bourse:"3 co 5 pa 10 s" caracs:"PD:2"
@alice /perso voir
/fortune usage:refresh
@bob /fortune usage:refresh
"""

ENGLISH = """
@bob /character create name:Hans stats:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28" race:halfling
@bob /character edit skills:"Dodge Blow +20, Perception"
@bob /test skill:Dodge roll:53
@bob /test skill:"Pick Lock" roll:10
@bob /character edit xp:lots
"""


def run(script: str, *args: str) -> list[dict[str, Any]]:
    return console_records(script, *args)


def text(record: dict[str, Any]) -> str:
    parts = []
    for embed in record.get("embeds", []):
        parts.append(embed.get("description") or "")
        parts.extend(f"{f['name']}: {f['value']}" for f in embed.get("fields", []))
    return "\n".join([record.get("content") or "", *parts])


def answers(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # One answer per command line, in order (a secret test's DM to the GM is a record of its own).
    return [r for r in records if r.get("command") and not r.get("to")]


def test_a_french_table_keeps_the_sheet() -> None:
    records = run(FRENCH)
    created, skills, dodge, perception, lockpick, bad, purse, shown, refill, player = answers(records)
    to_gm = [r for r in records if r.get("to")]  # Perception is a secret test: its result goes to the GM
    assert "Nain · Ratier" in text(created) and "BF 6 · BE 7 · BA 6" in text(created)
    assert "Esquive +10 (43) · Perception (29)" in text(skills)
    assert "43 sous 43" in text(dodge) and "maîtrise : +10" in text(dodge)  # Ag 33 + 10
    assert "test secret : Perception" in text(perception)
    assert "30 sous 29" in text(to_gm[0]) and "Échec" in text(to_gm[0])  # Int 29 + 0
    assert lockpick["ephemeral"] and "compétence avancée" in text(lockpick)
    assert bad["ephemeral"] and "+0, +10 ou +20" in text(bad) and "rien n'a été enregistré" in text(bad)
    assert "120 PX (40 à dépenser) · 3 co, 5 pa, 10 s" in text(purse)
    assert shown["ephemeral"] and "Esquive +10 (43)" in text(shown)  # still: the bad edit wrote nothing
    assert "**Gunther** : fortune rechargée à 2" in text(refill)
    assert player["ephemeral"] and "Seul le MJ" in text(player)
    for record in (created, skills, dodge, purse, shown, refill):
        body = text(record)
        assert "(s)" not in body and " de Élise" not in body and "{" not in body


def test_an_english_player_reads_english_names() -> None:
    created, skills, dodge, lockpick, bad = answers(run(ENGLISH, "--locale", "en"))
    assert "Halfling" in text(created) and "**Main**: CC 42" in text(created)
    assert "Dodge Blow +20 (53)" in text(skills)
    assert "53 against 53" in text(dodge) and "Dodge Blow (Hans)" in text(dodge)
    assert lockpick["ephemeral"] and "Pick Lock is an advanced skill" in text(lockpick)
    assert bad["ephemeral"] and "Unreadable experience" in text(bad)
