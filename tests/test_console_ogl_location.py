"""`ogl` hit location through the console, a GM and two players, in French and in English (issue 20,
item 20): Aude's sheet carries the GM's chest HP (6, not the suggested 5); her attack with
``localisation:12`` reads the d20 typed by hand on the hit-location table (a reading: RuneQuest's
d20 bands, 12 → chest); Bruno's attack without a location reads the bot's d20; a « d20 » of 25 is
refused privately."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .console_script import console_records

BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10"
SCRIPT = f"""
/config systeme systeme:ogl portee:canal
/combat ouvrir nom:Lice
@alice /perso creer nom:Aude caracs:"{BODY} HP.poitrine:6"
@alice /combat ajouter qui:Aude armes:"Épée 1d8+1 60%" caracs:"Esquive:40"
@bob /perso creer nom:Bruno caracs:"{BODY}"
@bob /combat ajouter qui:Bruno armes:"Épée 1d8+1 60%" caracs:"Esquive:40"
/combat ajouter qui:Orc caracs:"{BODY} Esquive:30" armes:"Hache 1d8 50%" camp:Orcs
/combat round des:"Aude: 9; Bruno: 5; Orc: 1"
@alice /combat attaque cible:Orc jet:20 localisation:25
@alice /combat attaque cible:Orc jet:20 localisation:12 degats:4
/combat defense choix:encaisser
@bob /combat attaque cible:Orc jet:20 degats:2
/combat defense choix:encaisser
/combat fin
"""
WORDS = {
    "fr": {
        "typed": "Localisation : d20 **12** → Poitrine",
        "bad": "Localisation : 25 n'est pas un d20 (de 1 à 20).",
        "sheet": "Poitrine 6",
    },
    "en": {
        "typed": "Location: d20 **12** → Chest",
        "bad": "Location: 25 is not a d20 (1 to 20).",
        "sheet": "Chest 6",
    },
}
BANDS = [
    (4, "jambe_d"),
    (8, "jambe_g"),
    (11, "abdomen"),
    (12, "poitrine"),
    (15, "bras_d"),
    (18, "bras_g"),
    (20, "tete"),
]


def text(record: dict[str, Any]) -> str:
    return "\n".join(str(e.get("description") or "") for e in record.get("embeds") or [])


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_ogl_hit_location_typed_rolled_and_refused(locale: str) -> None:
    words = WORDS[locale]
    records = console_records(SCRIPT, locale=locale)
    attacks = [r for r in records if r.get("command") == "/combat attaque"]
    refused, typed, rolled = attacks
    assert refused["ephemeral"] and text(refused).strip() == words["bad"]
    assert words["typed"] in text(typed)
    # the GM's HP on Aude's sheet (6), the Orc's suggested share (5)
    added = [r for r in records if r.get("command") == "/combat ajouter"]
    assert words["sheet"] in text(added[0])
    chest = next(r for r in records if r.get("command") == "/combat defense")
    assert chest["result"]["wound"]["location"] == "poitrine" and chest["result"]["wound"]["hp_max"] == 5
    found = re.search(r"d20 \*\*([0-9]+)\*\*", text(rolled))
    assert found is not None
    roll = int(found.group(1))
    where = next(name for top, name in BANDS if roll <= top)
    bruno_hit = [r for r in records if r.get("command") == "/combat defense"][1]
    assert bruno_hit["result"]["wound"]["location"] == where
