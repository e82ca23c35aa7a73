"""`d20` weapons of mass destruction through the console, in French and in English (issue 20, item
10; seed 003 l. 188-195): the guard's suit (RDM 2) stops the disintegrator's 2 DM, the unprotected
pilot is destroyed and shown dead at the end."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import assert_no_errors, console_records

BODY = "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11"
ORDER = "Tireur: 20; Garde: 1; Pilote: 1"
SCRIPT = f"""
/config systeme systeme:d20 portee:canal
/combat ouvrir nom:Station
/combat ajouter qui:Tireur caracs:"{BODY}" armes:"Désintégrateur 15 tir massif=2" camp:Pirates
/combat ajouter qui:Garde caracs:"{BODY}" armure:"Scaphandre 30/10/60 rdm=2 pr=5"
/combat ajouter qui:Pilote caracs:"{BODY}"
/combat round des:"{ORDER}"
/combat attaque cible:Garde jet:5 localisation:thorax
/combat round des:"{ORDER}"
!click "{{start}}"
/combat attaque attaquant:Tireur cible:Pilote jet:5 localisation:thorax
/combat fin
"""
WORDS = {
    "fr": {
        "start": "Lancer le round 2",
        "stopped": "Garde : la protection résiste, aucun effet.",
        "destroyed": "💀 Pilote : désintégration, vitrification ou, au mieux, carbonisation.",
    },
    "en": {
        "start": "Start round 2",
        "stopped": "Garde: the protection holds, no effect.",
        "destroyed": "💀 Pilote: disintegrated, vitrified or, at best, charred.",
    },
}


def text(record: dict[str, Any]) -> str:
    return "\n".join(str(e.get("description") or "") for e in record.get("embeds") or [])


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_mass_destruction_against_rdm(locale: str) -> None:
    words = WORDS[locale]
    records = console_records(SCRIPT.format(start=words["start"]), locale=locale)
    assert_no_errors(records)
    shots = [r for r in records if r.get("command") == "/combat attaque"]
    stopped, destroyed = shots
    assert words["stopped"] in text(stopped) and stopped["result"]["massive"]["rdm"] == 2
    assert words["destroyed"] in text(destroyed) and destroyed["result"]["massive"]["destroyed"]
