"""NPCs that defend by themselves in a `v1` fight, through the console, a GM and two players, in
French and in English (issue 18): the goblin (``defense_pnj:auto``) dodges Albert's blow at his best
chance (I 30 + Esquive 10 = 40 %), then has no defence left against Bruno's (one dodge a round, no
shield: he takes it, the reply says why); Bruno, attacked, is offered only what the rules allow him
(his shield's parry, no dodge without Esquive) and parries: 35 + 20 = 55 %."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import assert_no_errors, console_records

SCRIPT = """
/config systeme systeme:v1 portee:canal
/combat ouvrir nom:Escarmouche defense_pnj:auto
@alice /perso creer nom:Albert caracs:"CC:45 CT:40 F:3 E:4 B:8 I:40 {rest}"
@alice /combat ajouter qui:Albert armes:"Épée +0"
@bob /perso creer nom:Bruno caracs:"CC:35 CT:30 F:4 E:4 B:9 I:35 {rest}"
@bob /combat ajouter qui:Bruno armes:"Épée +0, Bouclier bouclier"
/combat ajouter qui:Gobelin caracs:"{goblin}" armes:Hache camp:Gobelins
/combat round
@alice /combat attaque cible:Gobelin jet:37 degats:2
@bob /combat attaque cible:Gobelin jet:20 degats:3
/combat attaque cible:Bruno jet:10 degats:2
@bob !click {parry}
/combat fin
"""
REST = "A:1 Dex:30 Cd:30 Int:30 Cl:30 FM:30 Soc:30"
GOBLIN = "CC:25 CT:25 F:3 E:3 B:9 I:30 A:1 Dex:25 Esquive:10"
WORDS = {
    "fr": {
        "parry": "Parer",
        "take": "Encaisser",
        "dodge": "🤖 Gobelin, défense automatique : esquiver (40 %, la meilleure chance).",
        "none": "🤖 Gobelin, défense automatique : ni parade ni esquive possible, encaisser.",
    },
    "en": {
        "parry": "Parry",
        "take": "Take it",
        "dodge": "🤖 Gobelin, automatic defence: dodge (40%, the best chance).",
        "none": "🤖 Gobelin, automatic defence: neither parry nor dodge is possible, take the blow.",
    },
}


def text(record: dict[str, Any]) -> str:
    return "\n".join(str(e.get("description") or "") for e in record.get("embeds") or [])


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_v1_npcs_defend_by_themselves_and_pcs_see_only_legal_buttons(locale: str) -> None:
    words = WORDS[locale]
    records = console_records(SCRIPT.format(parry=words["parry"], rest=REST, goblin=GOBLIN), locale=locale)
    assert_no_errors(records)
    attacks = [r for r in records if r.get("command") == "/combat attaque"]
    assert len(attacks) == 3
    albert, bruno, goblin = attacks
    assert words["dodge"] in text(albert)
    assert albert["result"]["auto_defence"] == {
        "choice": "esquiver",
        "mode": "auto",
        "chances": {"esquiver": 40, "encaisser": 0},
    }
    assert words["none"] in text(bruno) and bruno["result"]["auto_defence"]["chances"] == {"encaisser": 0}
    # Bruno (a PC) is asked: his shield's parry and « Encaisser », no dodge, no « Défense auto »
    labels = [b["label"] for b in goblin.get("components") or []]
    assert labels == [words["parry"], words["take"]], goblin.get("components")
    parried = next(r for r in records if str(r.get("command")).startswith("!click"))
    assert parried["result"]["defence"]["check"]["target"] == 55


BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"
OGL = """
/config systeme systeme:ogl portee:canal
/combat ouvrir nom:Lice
/combat ajouter qui:Chevalier caracs:"{body}" armes:"Épée 1d8+1 60%, Bouclier 1d4 40%" camp:Ordre
/combat ajouter qui:Écuyer caracs:"{body}" armes:"Épée 1d8+1 60%" camp:Ordre
/combat ajouter qui:Orc caracs:"{body}" armes:"Hache 1d8 50%" camp:Orcs
/combat round des:"Chevalier: 5; Orc: 1; Écuyer: 1"
/manoeuvre deux-armes usage:attaque qui:Chevalier cible:Écuyer jet:95 localisation:tete
!click {cancel}
/manoeuvre riposte qui:Chevalier cible:Écuyer declencheur:court jet:95 localisation:tete
!click {confirm}
/combat fin
"""
OGL_WORDS = {
    "fr": {"cancel": "Annuler", "confirm": "Confirmer", "ask": "⚠️ Chevalier attaque un allié : confirmer ?"},
    "en": {"cancel": "Cancel", "confirm": "Confirm", "ask": "⚠️ Chevalier attacks an ally: confirm?"},
}


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_ogl_free_attacks_on_an_ally_ask_first(locale: str) -> None:
    """The off hand's attack on the squire asks and is cancelled (nothing spent); the counter-attack
    asks and, confirmed, is rolled: 60 % + 20 % on a runner, 95 misses."""
    words = OGL_WORDS[locale]
    records = console_records(OGL.format(body=BODY, **words), locale=locale)
    assert_no_errors(records)
    asked = [r for r in records if r.get("command", "").startswith("/manoeuvre")]
    assert [r["embeds"][0]["title"] for r in asked] == [words["ask"], words["ask"]]
    assert all(r["ephemeral"] for r in asked)
    clicks = [r for r in records if str(r.get("command")).startswith("!click")]
    assert clicks[0]["result"]["ask"] == asked[0]["result"]["ask"]
    counter = clicks[1]["result"]
    assert counter["tag"] == "counter" and counter["attack"]["check"]["target"] == 80
