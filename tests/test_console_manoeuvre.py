"""`/manoeuvre` in an ogl fight through the console (``python -m bot console --json``), every die by
hand; the numbers are recomputed here from seed 004 (mounted ±20 %, wound levels, lost combat actions,
grapple, the throw's 2 m and 1d6, hero points)."""

from __future__ import annotations

from typing import Any

from .console_script import answers, console_records
from .test_console_combat_systems import OGL_BODY, ogl_level, ogl_location_hp, ogl_opposed

KNIGHT = f'caracs:"{OGL_BODY} DEX:14 PH:2 Bagarre:50" armes:"Épée 1d8+1 60%, Bouclier 1d4 40%"'
SCRIPT = f"""
/config systeme systeme:ogl portee:canal
/combat ouvrir nom:Lice
/combat ajouter qui:Chevalier {KNIGHT}
/combat ajouter qui:Orc caracs:"{OGL_BODY} DEX:14 RA:2 Bagarre:40" armes:"Hache 1d8 50%" camp:Orcs
/manoeuvre monture monte:oui qui:Chevalier
/combat round des:"Chevalier: 5; Orc: 1"
/combat attaque cible:Orc jet:75 localisation:bras_d degats:4 effets:3
/combat defense choix:parer jet:35
/combat attaque cible:Chevalier jet:10 localisation:tete
/combat suivant
!click "Passer le tour d'Orc"
/combat round des:"Chevalier: 5; Orc: 1"
/manoeuvre lutte action:saisir cible:Orc jet:30 jet_adverse:20
/combat suivant
!click "Passer le tour d'Orc"
/combat round des:"Chevalier: 5; Orc: 1"
/manoeuvre lutte action:projeter cible:Orc jet:10 localisation:tete degats:5 effets:1
/combat test qui:Orc jet:20
/manoeuvre heroisme usage:chance_du_heros qui:Chevalier note:"la lance tient"
/combat voir
/combat fin
"""


def run(script: str) -> list[dict[str, Any]]:
    return answers(console_records(script), ("/combat", "/manoeuvre", "!click"))


def test_manoeuvres_in_an_ogl_fight_through_the_console() -> None:
    records = run(SCRIPT)
    errors = [r for r in records if r["result"].get("error")]
    # only the Orc's attack on the combat action he lost is refused
    assert [r["command"].split(" ")[:2] for r in errors] == [["/combat", "attaque"]]
    assert "encore 3" in errors[0]["result"]["message"]
    results = [r["result"] for r in records if not r["result"].get("error")]
    hp = ogl_location_hp(12, 12)
    assert results[3] == {"fight_id": 1, "combatant": "chevalier", "mounted": True}
    # rider against a foe on foot: Épée 60 + 20 = 80 (75 hits); the Orc's parry 50 − 20 = 30 (35 fails)
    parried = next(r for r in results if r.get("choice") == "parer")
    assert (
        parried["exchange"]["attack"]["target"] == 60 + 20
        and parried["exchange"]["defence"]["target"] == 50 - 20
    )
    assert parried["outcome"] == ogl_opposed(80, 75, 30, 35) == "hit"
    # 1d8 4 + 1 = 5 on the right arm 3 → −2: serious, 1d4 (3) combat actions lost
    after = hp["bras_d"] - 5
    assert (
        parried["wound"]["hp_after"] == after
        and parried["wound"]["level"] == ogl_level(after, 3) == "serious"
    )
    lost = [c["remaining"] for c in parried["wound"]["conditions"] if c["kind"] == "lose_combat_actions"]
    assert lost == [3]
    # each of the Orc's slots passed under the condition counts one down: 3 → 2 → 1
    nexts = [r for r in records if r["command"].startswith("!click Passer le tour")]
    texts = [n["embeds"][0]["description"] for n in nexts]
    assert "encore 2 actions de combat perdues" in texts[0] and "encore 1 action de combat perdue" in texts[1]
    grapples = [r for r in results if r.get("action") in ("saisir", "projeter")]
    # grab: Bagarre 50 (30) against 40 (20): both succeed, the higher roll wins
    grab = grapples[0]
    assert grab["success"] and grab["opposed"]["verdict"] == "a" and 20 <= 40 and 30 <= 50 and 30 > 20
    # throw: 10 ≤ 50; 2 m and 1d6 (5) on the head 4 → −1: serious; the 1d4 (1) lost; an Endurance test
    throw = grapples[1]
    assert throw["throw"] == {"metres": 2, "die": 5, "location": "tete", "location_roll": None}
    assert throw["wound"]["hp_after"] == hp["tete"] - 5 and throw["wound"]["level"] == ogl_level(-1, 4)
    assert throw["wound"]["endurance_tests"] == ["unconscious"]
    test = next(r for r in results if r.get("prompt"))
    assert test["check"]["target"] == 12 * 5 and test["check"]["success"]
    luck = next(r for r in results if r.get("spend"))
    assert luck["spend"]["points_before"] == 2 and luck["spend"]["points_after"] == 1
    shown = next(r for r in records if r["command"] == "/combat voir")
    fields = {
        f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
        for f in shown["embeds"][0]["fields"]
    }
    assert "PH 1 · monté" in fields["Chevalier"]
    # the arm's counter is spent (1 left after round 2, this slot started under it) and the head's 1
    assert "actions perdues : 1" in fields["Orc"] and "Bras D **-2/3**" in fields["Orc"]
