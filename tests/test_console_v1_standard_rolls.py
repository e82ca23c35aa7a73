"""`v1` standard tests that are rolls, and helpful skills, through the console, a GM and two
players, in French and in English (issue 20, item 14; seed 001 l. 16-47): Albert (Acrobatie,
Corruption on his sheet) leaps 2 × M 4 − 3 + 2 = 7 m, Bruno 5 m; Bruno falls 5 m: 10 − 4 = 6
damage; Albert's Corruption (the GM's 60) gets +20 %, Bruno's not; the GM's Saut without a height
is refused privately."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import console_records

REST = "CT:30 F:3 E:4 B:8 I:40 A:1 M:4 Dex:35 Cd:30 Int:35 Cl:30 FM:30 Soc:30"
SCRIPT = f"""
/config systeme systeme:v1 portee:canal
@alice /perso creer nom:Albert caracs:"CC:45 {REST}"
@alice /perso modifier competences:"Acrobatie:5, Corruption:5"
@bob /perso creer nom:Bruno caracs:"CC:35 {REST}"
@alice /test action:Bond jet:3
@bob /test action:Bond jet:3
@bob /test action:Chute carac:5 jet:4
@alice /test action:Corruption carac:60 jet:75
@bob /test action:Corruption carac:60 jet:75
/test action:Saut jet:2
"""
WORDS = {
    "fr": {
        "leap": "2 × M 4 − 1d6 **3** + 2 (Acrobatie) = **7 m**",
        "plain": "2 × M 4 − 1d6 **3** = **5 m**",
        "fall": "2 × h 5 − 1d6 **4** = **6** points de dégâts",
        "no_height": "« Saut » : donnez la hauteur en mètres (carac:5).",
    },
    "en": {
        "leap": "2 × M 4 − 1d6 **3** + 2 (Acrobatie) = **7 m**",
        "plain": "2 × M 4 − 1d6 **3** = **5 m**",
        "fall": "2 × h 5 − 1d6 **4** = **6** points of damage",
        "no_height": "« Saut »: give the height in metres (carac:5).",
    },
}


def text(record: dict[str, Any]) -> str:
    return "\n".join(str(e.get("description") or "") for e in record.get("embeds") or [])


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_v1_rolls_and_helpful_skills(locale: str) -> None:
    words = WORDS[locale]
    records = console_records(SCRIPT, locale=locale)
    tests = [r for r in records if r.get("command") == "/test"]
    leap, plain, fall, bribe, no_bribe, no_height = tests
    assert words["leap"] in text(leap) and words["plain"] in text(plain) and words["fall"] in text(fall)
    assert bribe["result"]["target"] == 80 and no_bribe["result"]["target"] == 60
    assert no_height["ephemeral"] and text(no_height).strip() == words["no_height"]
