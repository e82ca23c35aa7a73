"""Character sheets through the console, in French and in English: a GM's NPC stays hidden from a
player's /oppose, a tavern game reads the sheet, a failed test offers « Relancer (Fortune) »."""

from __future__ import annotations

import json
from typing import Any

from .console_script import console_records

BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"

SCRIPT_FR = f"""
/perso creer nom:"Baron Noir" caracs:"{BARON}" pnj:true
/perso modifier personnage:"Baron Noir" competences:"Perception +10"
@alice /perso creer nom:Hans caracs:"{HANS}"
@alice /perso modifier competences:"Dissimulation, Résistance à l'alcool" caracs:"PD:2 Fortune:1"
@alice /oppose camp_a:Hans competence_a:Dissimulation camp_b:"Baron Noir" jets_a:20 jets_b:30
@alice /perso voir personnage:"Baron Noir"
@alice /taverne boisson joueurs:"Hans, Otto res=40" des:"Hans 10 10 10 10, Otto 90 90 90 90"
@alice /taverne boisson joueurs:"Hans, Otto"
@alice /test carac:CC jet:90
@bob !click Relancer (Fortune)
@alice !click Relancer (Fortune)
"""

SCRIPT_EN = f"""
/character create name:"Baron Noir" stats:"{BARON}" npc:true
/character edit character:"Baron Noir" skills:"Perception +10"
@alice /character create name:Hans stats:"{HANS}"
@alice /character edit skills:"Dissimulation, Consume Alcohol" stats:"PD:2 Fortune:1"
@alice /oppose side_a:Hans skill_a:Dissimulation side_b:"Baron Noir" rolls_a:20 rolls_b:30
@alice /character show character:"Baron Noir"
@alice /tavern drinking players:"Hans, Otto res=40" dice:"Hans 10 10 10 10, Otto 90 90 90 90"
@alice /tavern drinking players:"Hans, Otto"
@alice /test target:CC roll:90
@bob !click Reroll (Fortune)
@alice !click Reroll (Fortune)
"""


def text_of(record: dict[str, Any]) -> str:
    return json.dumps(record.get("embeds"), ensure_ascii=False)


def by_command(records: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("command", "").startswith(prefix)]


def test_sheets_in_french() -> None:
    records = console_records(SCRIPT_FR)
    oppose = by_command(records, "/oppose")
    table = next(r for r in oppose if not r.get("to"))
    assert "30 sous une valeur cachée" in text_of(table) and "57" not in json.dumps(table, ensure_ascii=False)
    assert "Les valeurs de Baron Noir (PNJ du MJ) restent cachées" in text_of(table)
    to_gm = next(r for r in oppose if r.get("to"))
    assert "30 sous 57" in text_of(to_gm)
    shown = by_command(records, "/perso voir")[0]
    assert shown["ephemeral"] and "Baron Noir" in text_of(shown) and "47" not in text_of(shown)
    drink, refused = by_command(records, "/taverne")
    assert "de la fiche : Résistance à l'alcool 41" in text_of(drink)
    assert "à la main : Résistance à l'alcool 40" in text_of(drink)
    assert refused["ephemeral"] and "« Otto » n'est pas une fiche que vous pouvez lire" in text_of(refused)
    (failed,) = by_command(records, "/test")
    labels = [c.get("label") for c in failed["components"]]
    assert labels == ["Relancer (Fortune)"]
    bob, alice = by_command(records, "!click")[:2]
    assert bob["ephemeral"] and "Seul le joueur de Hans" in text_of(bob)
    rerolls = [r for r in by_command(records, "!click") if r["user"] == "alice"]
    assert any("Hans dépense un point de fortune et relance" in text_of(r) for r in rerolls)
    assert alice["user"] == "alice"


def test_sheets_in_english() -> None:
    records = console_records(SCRIPT_EN, "--locale", "en")
    oppose = by_command(records, "/oppose")
    table = next(r for r in oppose if not r.get("to"))
    assert "30 against a hidden target" in text_of(table) and "57" not in json.dumps(table)
    assert "30 against 57" in text_of(next(r for r in oppose if r.get("to")))
    drink, refused = by_command(records, "/tavern")
    assert "from the sheet: Consume Alcohol 41" in text_of(drink) and "typed: Consume Alcohol 40" in text_of(
        drink
    )
    assert refused["ephemeral"] and "is not a sheet you may read" in text_of(refused)
    (failed,) = by_command(records, "/test")
    labels = [c.get("label") for c in failed["components"]]
    assert labels == ["Reroll (Fortune)"]
    clicks = by_command(records, "!click")
    assert any("Only Hans's player" in text_of(r) for r in clicks if r["user"] == "bob")
    assert any(
        "Hans spends a fortune point and rerolls" in text_of(r) for r in clicks if r["user"] == "alice"
    )
