"""A `v1` fight through the console (seed 001), every die entered by hand, in French and in English:
a slow fighter's prepared parry kept for the next round's attack, an aimed shot and an extreme-range
shot that cost their preparation round before they go off, a shot given up by another attack. The
numbers are restated here from the seed, independently of ``bot.rules``."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import answers, console_records

SCRIPT = """
/config systeme systeme:v1 portee:canal
/combat ouvrir nom:Escarmouche
/combat ajouter qui:Albert caracs:"CC:45 CT:40 F:3 E:4 B:8 I:20 A:1 Dex:35" armes:"Épée +0, Arc tir"
/combat ajouter qui:Gobelin caracs:"CC:25 CT:25 F:3 E:3 B:6 I:40 A:1 Dex:25" armes:Hache camp:Gobelins
/combat round
/combat attaque cible:Albert jet:90
/combat action action:preparer_parade
/combat round
/combat attaque cible:Albert jet:12
/combat defense choix:parer jet:30
/combat attaque cible:Gobelin arme:Arc localisation:tete jet:20
/combat round
/combat attaque cible:Albert jet:95
/combat attaque cible:Gobelin arme:Arc localisation:tete jet:20 degats:4
/combat round
/combat attaque cible:Albert jet:95
/combat attaque cible:Gobelin arme:Arc situation:extreme jet:20
/combat attaque attaquant:Albert cible:Gobelin arme:Arc situation:extreme jet:20
/combat round
/combat attaque cible:Albert jet:95
/combat attaque cible:Gobelin arme:Arc situation:extreme jet:30 degats:5
/combat fin
"""
WORDS = {
    "fr": {"not_ready": "Albert prépare encore son tir : il part au round 5.", "released": "Le tir préparé"},
    "en": {
        "not_ready": "Albert is still preparing the shot: it goes off in round 5.",
        "released": "The shot",
    },
}


def texts(record: dict[str, Any]) -> str:
    return "\n".join(
        [record.get("content") or "", *(e.get("description") or "" for e in record.get("embeds") or [])]
    )


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_v1_preparations_follow_the_seed(locale: str) -> None:
    records = console_records(SCRIPT, locale=locale)
    refusals = [
        texts(r) for r in records if r.get("ephemeral") and r.get("command", "").startswith("/combat")
    ]
    # l. 93: the extreme-range shot declared in round 4 is not ready again in the same round
    assert [t.strip() for t in refusals] == [WORDS[locale]["not_ready"]]
    fight = [r for r in answers(records, ("/combat",)) if not r.get("ephemeral")]
    parry = next(r["result"] for r in fight if r["command"].startswith("/combat defense"))
    # l. 64: the parry prepared at the end of round 1 (Albert I 20 acts after the goblin's I 40) is
    # still there in round 2: CC 45, roll 30 → parried
    assert parry["defence"]["check"]["target"] == 45 and parry["defence"]["check"]["success"]
    declared = [r["result"]["declared_shot"] for r in fight if "declared_shot" in r["result"]]
    # l. 87: the aimed shot declared in round 2 goes off in round 3; l. 93: the extreme one in round 5
    assert [(d["declared"], d["ready"], d["band"]) for d in declared] == [(2, 3, "short"), (4, 5, "extreme")]
    shots = [r for r in fight if r["command"].startswith("/combat attaque") and "attack" in r["result"]]
    aimed = next(r for r in shots if r["result"]["attack"].get("aimed"))
    # head −20 % (l. 88): CT 40 − 20 = 20, roll 20 → hit; 1d6 4 + F 3 − E 3 = 4
    assert aimed["result"]["attack"]["check"]["target"] == 40 - 20
    assert WORDS[locale]["released"] in texts(aimed)
    extreme = shots[-1]["result"]
    # l. 93: −2 damage at extreme range: 1d6 5 + F 3 − 2, then − E 3
    assert extreme["attack"]["check"]["target"] == 40 and extreme["damage"]["total"] == 5 + 3 - 2
