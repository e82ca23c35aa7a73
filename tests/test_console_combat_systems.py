"""Scripted fights of the other rulesets through the console (``python -m bot console --json``),
every die entered by hand; every number is recomputed here from the seeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

ALBERT = "CC:45 CT:40 F:3 E:4 B:8 I:40 A:2 Dex:35 Cd:30 Int:30 Cl:30 FM:30 Soc:30"
V1_SCRIPT = f"""
/config systeme systeme:v1 portee:canal
/combat ouvrir nom:Escarmouche
@alice /perso creer nom:Albert caracs:"{ALBERT}"
@alice /perso modifier competences:"Esquive:5"
@alice /combat ajouter qui:Albert armes:"Épée +0, Bouclier bouclier" armure:tout:1
/combat ajouter qui:"2 gobelins" caracs:"CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25" armes:Hache armure:corps:1
/combat round
@alice /combat attaque cible:"Gobelin 1" jet:37 degats:4
!click Encaisser
/combat attaque cible:Albert jet:12
@alice /combat defense choix:esquiver jet:20
/combat attaque cible:Albert jet:90
/combat round des:"Gobelin 2: dague"
@alice /combat attaque cible:"Gobelin 1" jet:11 degats:"6 6 2" effets:"50 50 50" durees:"3 3 3"
!click Encaisser
/combat fin
"""


def run_console(script: str) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--json", "--seed", "5"],
        input=script,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert not [r for r in records if "error" in r and r.get("command")], records
    return [r for r in records if r.get("result") and r["command"].split(" ")[0] in ("/combat", "!click")]


def test_a_v1_fight_through_the_console() -> None:
    results = [r["result"] for r in run_console(V1_SCRIPT)]
    opened = results[0]
    assert opened["ruleset"] == "v1" and opened["options"]["v1_endurance"] == "subtracted"
    rounds = [r for r in results if "initiative" in r]
    # Albert I 40, A 2 → slots ⌈40/2⌉ = 20 apart: 40, 20; goblins I 30; Gobelin 2 draws a dagger: −10
    assert [(s["combatant"], s["value"]) for s in rounds[0]["order"]] == [
        ("albert", 40),
        ("gobelin-1", 30),
        ("gobelin-2", 30),
        ("albert", 20),
    ]
    assert [(s["combatant"], s["value"]) for s in rounds[1]["order"]] == [
        ("albert", 40),
        ("gobelin-1", 30),
        ("albert", 20),
        ("gobelin-2", 20),
    ]
    attacks = [r for r in results if "attack" in r and "choice" not in r]
    first = attacks[0]["attack"]
    # CC 45, 37 → 73 reversed → body (56-80)
    assert (
        first["check"]["target"] == 45 and first["reversed_roll"] == 73 and first["location"]["id"] == "body"
    )
    hits = [r for r in results if "wound" in r]
    # 1d6 4 + F 3 = 7; − armour 1 − E 3 = 3; B 6 → 3
    assert hits[0]["damage"]["total"] == 7 and hits[0]["wound"]["net"] == 3
    assert (hits[0]["wound"]["wounds_before"], hits[0]["wound"]["wounds_after"]) == (6, 3)
    dodge = next(r for r in results if r.get("choice") == "esquiver")
    # the Esquive skill: I 40 + 5 = 45; 20 succeeds → no damage
    assert dodge["defence"]["check"]["target"] == 45 and dodge["defence"]["cancels_damage"]
    # 6, 6, 2 + F 3 = 17; head unarmoured, − E 3 = 14; B 3 → −11: severity 11 (tranchantes, tête)
    crit = hits[1]
    assert crit["damage"]["total"] == 17 and crit["wound"]["net"] == 14 and crit["wound"]["severity"] == 11
    assert crit["wound"]["critical"]["source"] == "criticals.tranchantes.tete.11"
    assert results[-1]["rounds"] == 2
