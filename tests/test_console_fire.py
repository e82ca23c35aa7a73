"""The `d20` special fire (``/tir``) through the console (``python -m bot console --json``), every
die entered by hand. The functions below restate the seed's rules (seed 003, lines 121-127,
196-262) independently of ``bot.rules``; the tables they use are checked against the seed text
when it is available."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .console_script import console_records
from .test_console_combat_systems import D20_BODY, d20_pool_max, d20_test

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_c73e3509b1d8e1b4.txt"

# Artillery distance table, lines 206-225 (d-face → metres), as printed.
SEED_DISTANCES = (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 27, 28, 30, 35, 40, 45, 50)
# Artillery direction d20, lines 201-205: 1-5 front, 6-10 left, 11-15 right, 16-20 behind.
SEED_DIRECTIONS = ((5, "front"), (10, "left"), (15, "right"), (20, "behind"))
# Fighter gunnery hit table, lines 243-262: the faces that read "Touché !".
SEED_AIR_HITS = frozenset({1, 2, 3, 4, 7, 8, 9, 13, 14, 19})


def burst_several(targets: int, d4s: list[int]) -> tuple[int, list[int]]:
    """Line 123: one test at −(number of targets); 1d4 − 2 bullets hit each (none below 0)."""
    return -targets, [max(0, x - 2) for x in d4s]


def burst_single(bullets: int, d6s: list[int]) -> tuple[int, int]:
    """Line 125: +2 per (full) ten bullets; 1d6 bullets hit per ten."""
    tens = bullets // 10
    return 2 * tens, sum(d6s[:tens])


def band_die(mr: int) -> int | None:
    """Lines 146-148 (and 240-242): MR ≥ 10 exact, 5-9 a d6, 0-4 a d20."""
    return None if mr >= 10 else (6 if mr >= 5 else 20)


def artillery(
    mr: int, direction: int, distance: int, *, printed: bool = False
) -> tuple[str, int, int] | None:
    """Lines 198-225: MR ≥ 10 on target (None); else the d20 direction and the distance die (d6 at
    MR 5-9; at 0-4 the seed prints a d6 again, the bot's reading is a d20 — ``printed`` keeps the d6)."""
    if mr >= 10:
        return None
    die = 6 if mr >= 5 or printed else 20
    assert 1 <= distance <= die
    name = next(label for top, label in SEED_DIRECTIONS if direction <= top)
    return name, die, SEED_DISTANCES[distance - 1]


@pytest.mark.skipif(not SEED.is_file(), reason="seed text not available")
def test_the_restated_tables_are_the_seeds() -> None:
    lines = SEED.read_text(encoding="utf-8").splitlines()[:269]  # the text is printed twice
    distances = [
        (int(m[1]), int(m[2]))
        for line in lines
        if (m := re.match(r"^(\d+) Le projectile touche à (\d+)m", line))
    ]
    assert distances == list(enumerate(SEED_DISTANCES, start=1))
    directions = [
        line for line in lines if re.match(r"^\d+ à \d+ : (Devant|A gauche|A droite|Derrière)", line)
    ]
    assert [int(line.split(" à ")[1].split(" ")[0]) for line in directions] == [5, 10, 15, 20]
    hits = {int(m[1]) for line in lines if (m := re.match(r"^(\d+) Touché !$", line))}
    misses = {int(m[1]) for line in lines if (m := re.match(r"^(\d+) Raté !$", line))}
    assert hits == SEED_AIR_HITS and hits | misses == set(range(1, 21))
    assert any("viser 8 cibles se fait en un seul tir avec un malus de 8" in line for line in lines)


GUN = "Mitraillette 13 +2 tir, Mortier 14 tir, Canon 20 +3 tir"
LOW_LIGHT = "faible_lumiere"
ROUND = '/combat round des:"Tireur: 15; Garde: 10; Bretteur: 8"'
FIRE_SCRIPT = f"""
/config systeme systeme:d20 portee:canal
/combat ouvrir nom:Feu
/combat ajouter qui:Tireur caracs:"FOR:12 CON:14 AGI:15 DEX:13" armes:"{GUN}"
/combat ajouter qui:Garde caracs:"{D20_BODY}" armes:"Épée 14 +3 tranchant par=13"
/combat ajouter qui:Bretteur caracs:"{D20_BODY}" armes:"Épée 14 +3 tranchant par=13"
{ROUND}
/tir rafale cibles:"Garde, Bretteur" jet:3 touches:"4 3" zones:"2 5 1" degats:"12 4 9" situation:{LOW_LIGHT}
{ROUND}
!click Lancer le round 2
/tir rafale cibles:Garde balles:25 jet:5 touches:"2 1" degats:"12 4 19"
{ROUND}
!click Lancer le round 3
/tir couverture cibles:"Garde, Bretteur" jet:12 tirage:2 degats:9
{ROUND}
!click Lancer le round 4
/tir artillerie cible:Garde arme:Mortier jet:12 direction:7 distance:14
{ROUND}
!click Lancer le round 5
/tir chasse cible:Bretteur arme:Canon jet:4 de:19 situation:"vitesse:2000, taille_humaine" degats:11
/combat voir
/combat fin
"""


def run_console(script: str) -> list[dict[str, Any]]:
    records = console_records(script)
    errors = [
        r for r in records if r.get("command") and ("error" in r or (r.get("result") or {}).get("error"))
    ]
    assert not errors, errors
    return [r for r in records if r.get("command")]


def test_special_fire_through_the_console() -> None:
    records = run_console(FIRE_SCRIPT)
    fired = [r["result"] for r in records if r["command"].startswith("/tir")]
    assert [r["command"] for r in records if r["command"].startswith("/tir")] == [
        "/tir rafale",
        "/tir rafale",
        "/tir couverture",
        "/tir artillerie",
        "/tir chasse",
    ]
    score, bonus = 13, 2

    # burst on two targets in low light (−6, line 136)
    several = fired[0]
    modifier, bullets = burst_several(2, [4, 3])
    ok, mr = d20_test(score - 6 + modifier, 3)
    assert ok and several["check"]["target"] == score - 6 + modifier and several["check"]["margin"] == mr
    assert several["burst"]["bullets_hitting"] == bullets == [2, 1]
    zones = [i["zone_roll"] for t in several["targets"] for i in t["impacts"]]
    dies = {i["die"] for t in several["targets"] for i in t["impacts"]}
    indexes = [i["damage_index"] for t in several["targets"] for i in t["impacts"]]
    assert zones == [2, 5, 1] and dies == {band_die(mr)} == {20}
    assert indexes == [12 + bonus, 4 + bonus, 9 + bonus]  # lines 102, 113: d20 + the weapon's modifier

    # 25 bullets at one target: two full tens
    single = fired[1]
    plus, hitting = burst_single(25, [2, 1])
    ok, mr = d20_test(score + plus, 5)
    assert single["check"]["target"] == score + plus and single["check"]["margin"] == mr
    assert band_die(mr) is None and single["burst"]["bullets_hitting"] == [hitting] == [3]
    assert [i["exact"] for i in single["targets"][0]["impacts"]] == [True] * 3

    # covering fire: d100 12 ≤ the score 13 (line 127); a d2 picks the second target
    covering = fired[2]
    assert covering["hit"] == (score >= 12) and covering["victim"] == "bretteur"
    assert covering["damage_index"] == 9 + bonus

    # artillery with the Mortier (14): roll 12 → MR 2
    art = fired[3]
    ok, mr = d20_test(14, 12)
    expected = artillery(mr, 7, 14)
    assert expected is not None
    got = art["scatter"]
    assert (got["direction"], got["distance_die"], got["metres"]) == expected == ("left", 20, 27)

    # gunnery with the Canon (20 +3): −1 per 500 km/h (2000 → −4), human size −10 (lines 229, 233)
    air = fired[4]
    ok, mr = d20_test(20 - 2000 // 500 - 10, 4)
    assert air["check"]["margin"] == mr and air["die"] == band_die(mr) == 20
    assert air["hit"] == (19 in SEED_AIR_HITS) and air["damage_index"] == 11 + 3

    # no server table: no PV taken, every index is shown for the GM
    pv, pc = d20_pool_max("PV", 14), d20_pool_max("PC", 14)
    embeds = next(r["embeds"] for r in records if r["command"] == "/combat voir")
    fields = {f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"] for f in embeds[0]["fields"]}
    assert fields["Garde"].startswith(f"PV {pv}/{pv} · PC {pc}/{pc}")
    assert fields["Bretteur"].startswith(f"PV {pv}/{pv} · PC {pc}/{pc}")
