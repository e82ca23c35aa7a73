"""Scripted fights of the other rulesets through the console (``python -m bot console --json``),
every die entered by hand; every number is recomputed here from the seeds (the small functions
below restate the seeds' rules, independently of ``bot.rules``) and the data files."""

from __future__ import annotations

import json
import math
from typing import Any

from .console_script import ROOT, answers, assert_no_errors, console_records

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
!click Lancer le round 2
@alice /combat attaque cible:"Gobelin 1" jet:11 degats:"6 6 2" effets:"50 50 50" durees:"3 3 3"
!click Encaisser
/combat fin
"""


def run_console(script: str) -> list[dict[str, Any]]:
    records = console_records(script)
    assert_no_errors(records)
    return answers(records, ("/combat", "!click"))


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


# --- d20 (seed 003) ------------------------------------------------------------------------------

D20_WOUNDS = json.loads((ROOT / "data" / "d20_wounds.json").read_text(encoding="utf-8"))
D20_POOLS = {p["id"]: p["maximum"] for p in D20_WOUNDS["pools"]}


def d20_pool_max(pool: str, con: int) -> int:
    """PV = 35 + Con, PC = Con × 2 (seed lines 264-269, ``data/d20_wounds.json``)."""
    m = D20_POOLS[pool]
    return int(m["base"]) + con * int(m["multiply_by"])


def d20_test(score: int, roll: int) -> tuple[bool, int]:
    """d20 ≤ score (1 always succeeds, 20 always fails); MR = score − roll, failure margin roll − score."""
    success = roll == 1 or (roll != 20 and roll <= score)
    return success, (score - roll if success else roll - score)


def d20_exchange(attack: tuple[bool, int], defence: tuple[bool, int] | None) -> tuple[str, int | None, int]:
    """The seed's four cases (lines 27-35): (case, damage index, attacker's malus)."""
    (a_ok, a), d = attack, defence
    if d is None:
        return ("undefended", a, 0) if a_ok else ("both_fail", None, 0)
    d_ok, b = d
    if a_ok and d_ok:
        if a > b:
            return "both_succeed_attacker_higher", a - b, 0
        if a < b:
            return "both_succeed_attacker_lower", None, -(b - a)
        return "both_succeed_equal", None, 0
    if a_ok:
        return "attacker_succeeds_defender_fails", a + b, 0
    if d_ok:
        return "attacker_fails_defender_succeeds", None, -(a + b)
    return "both_fail", None, 0


def d20_edged(weapon: int, mr: int, bf: int) -> tuple[int, int]:
    """Edged weapons (lines 52-58): penetration weapon + MR + BF, shock half of it (rounded down)."""
    penetration = weapon + mr + bf
    return penetration, penetration // 2


def d20_malus(pv_lost: int, pc_lost: int, con: int) -> int:
    """−1 per PV and PC lost beyond the Constitution (line 16; PV and PC added: the data's pooling)."""
    assert D20_WOUNDS["wound_malus"]["pooling"] == "combined"
    return -max(0, pv_lost + pc_lost - con)


D20_BODY = "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11"
D20_SCRIPT = f"""
/config systeme systeme:d20 portee:canal
/combat ouvrir nom:Duel
/combat ajouter qui:Bretteur caracs:"{D20_BODY}" armes:"Épée 14 +3 tranchant par=13" camp:Bretteurs
/combat ajouter qui:Garde caracs:"{D20_BODY}" armes:"Épée 14 +3 tranchant par=13" armure:"Cuir 2/1/15"
/combat round des:"Bretteur: 15; Garde: 10"
/combat attaque cible:Garde jet:4
/combat defense choix:parer jet:10
/combat corriger qui:Garde champ:PV valeur:39
/combat attaque cible:Bretteur jet:10
/combat defense choix:parer jet:5
/combat round des:"Bretteur: 15; Garde: 10"
!click Lancer le round 2
/combat attaque cible:Garde jet:12
/combat defense choix:parer jet:3
/combat attaque cible:Bretteur jet:4
/combat defense choix:parer jet:16
/combat round des:"Bretteur: 15; Garde: 10"
/combat attaque cible:Garde jet:17
/combat defense choix:parer jet:6
/combat attaque cible:Bretteur jet:18
/combat defense choix:esquiver jet:15
/combat round des:"Bretteur: 9; Garde: 12"
/combat attaque cible:Bretteur jet:19
/combat defense choix:parer jet:2
/combat attaque cible:Garde jet:3
/combat defense choix:encaisser
/combat voir
/combat fin
"""


def test_a_d20_fight_through_the_console() -> None:
    records = run_console(D20_SCRIPT)
    results = [r["result"] for r in records]
    assert results[0]["ruleset"] == "d20" and results[0]["options"] == {"d20_malus": "combined"}
    con, weapon, bf, attack_score, parry, dodge = 14, 3, 2, 14, 13, 11
    pv_max, pc_max = d20_pool_max("PV", con), d20_pool_max("PC", con)
    assert (pv_max, pc_max) == (49, 28)
    rounds = [r for r in results if "initiative" in r]
    assert [[(s["combatant"], s["value"]) for s in r["order"]] for r in rounds] == [
        [("bretteur", 15), ("garde", 10)],
        [("bretteur", 15), ("garde", 10)],
        [("bretteur", 15), ("garde", 10)],
        [("garde", 12), ("bretteur", 9)],
    ]
    hits = [r for r in results if r.get("choice")]
    assert len(hits) == 8

    def check(exchange: dict[str, Any], attack: tuple[int, int], defence: tuple[int, int] | None) -> None:
        a = d20_test(*attack)
        d = d20_test(*defence) if defence else None
        case, index, malus = d20_exchange(a, d)
        assert exchange["case"] == case, exchange["case"]
        assert exchange["exchange"]["damage_index"] == index
        assert exchange["exchange"]["attacker_malus"] == malus
        got = exchange["exchange"]["attack"]
        assert (got["target"], got["roll"], got["margin"]) == (attack[0], attack[1], a[1])
        if defence:
            got = exchange["exchange"]["defence"]
            assert (got["target"], got["roll"], got["margin"]) == (defence[0], defence[1], d[1])  # type: ignore[index]

    # Round 1. Bretteur 4 under 14 (MR 10) against the Garde's parry 10 under 13 (MR 3) → index 7
    first = hits[0]
    check(first, (attack_score, 4), (parry, 10))
    # edged: penetration 3 + 10 + 2 = 15 > RP 2 (pierced), shock 15 // 2 = 7 − RC 1 = 6 PC;
    # 15 + 7 = 22 > SR 15 → the leather is ruined; the blow's index 7 + weapon 3 = 10, for the GM
    pen, shock = d20_edged(weapon, 10, bf)
    assert (first["blow"]["penetration"], first["blow"]["shock"]) == (pen, shock) == (15, 7)
    assert first["blow"]["damage_index"] == 7 + weapon
    [layer] = first["armour"]["layers"]
    assert (
        layer["pierced"] and layer["ruptured"] == (pen + shock > 15) and first["armour"]["shock"] == shock - 1
    )
    garde = {"pv": 0, "pc": shock - 1}
    assert (first["health"]["pc_lost"], first["health"]["pv_lost"]) == (garde["pc"], 0)
    # the GM reads index 10 as 10 PV (/combat corriger): 10 + 6 lost > CON 14 → malus −2
    corrected = next(r for r in results if r.get("field") == "PV")
    assert (corrected["before"], corrected["after"]) == (pv_max, pv_max - 10)
    garde["pv"] = 10
    garde_malus = d20_malus(garde["pv"], garde["pc"], con)
    assert garde_malus == -2
    # Garde 10 under 14 − 2 = 12 (MR 2) against the parry 5 under 13 (MR 8): Garde −6 next, initiative
    second = hits[1]
    check(second, (attack_score + garde_malus, 10), (parry, 5))
    assert [m["value"] for m in second["exchange"]["attack"]["modifiers"]] == [14, -2]
    assert second["exchange"]["initiative_to_defender"]
    # Round 2. MR 2 (12 under 14) against the parry 13 − 2 − 6 = 5, roll 3 → MR 2: blocked
    third = hits[2]
    check(third, (attack_score, 12), (parry + garde_malus - 6, 3))
    assert [m["value"] for m in third["exchange"]["defence"]["modifiers"]] == [13, -2, -6]
    assert third["exchange"]["only_retreat"]
    # Garde 4 under 12 (MR 8); the Bretteur's parry 16 over 13 fails by 3 → index 11 (+ weapon 3 = 14)
    fourth = hits[3]
    check(fourth, (attack_score + garde_malus, 4), (parry, 16))
    pen, shock = d20_edged(weapon, 8, bf)
    assert fourth["blow"]["damage_index"] == 11 + weapon and fourth["health"]["pc_lost"] == shock == 6
    bretteur = {"pv": 0, "pc": shock}
    # Round 3. Bretteur 17 over 14 (fails by 3) against the parry 6 under 13 − 2 = 11 (MR 5) → −8
    fifth = hits[4]
    check(fifth, (attack_score, 17), (parry + garde_malus, 6))
    # Garde 18 over 12 (fails by 6); the Bretteur dodges 15 over Esquive 11 − 8 = 3: nothing happens
    sixth = hits[5]
    check(sixth, (attack_score + garde_malus, 18), (dodge - 8, 15))
    # Round 4 (Garde first). Garde 19 over 12; parry 2 under 13 (MR 11) → Garde −(7 + 11) = −18
    seventh = hits[6]
    check(seventh, (attack_score + garde_malus, 19), (parry, 2))
    assert seventh["exchange"]["attacker_malus"] == -18
    # Bretteur 3 under 14 (MR 11), the Garde takes it: index = MR 11 (+ 3 = 14); penetration 16,
    # shock 8 − RC 1 = 7 PC more: 10 PV + 13 PC lost → malus −9
    eighth = hits[7]
    check(eighth, (attack_score, 3), None)
    pen, shock = d20_edged(weapon, 11, bf)
    assert (eighth["blow"]["penetration"], eighth["blow"]["damage_index"]) == (pen, 11 + weapon)
    garde["pc"] += shock - 1
    assert (
        (eighth["health"]["pv_lost"], eighth["health"]["pc_lost"]) == (garde["pv"], garde["pc"]) == (10, 13)
    )
    assert eighth["health"]["malus"] == d20_malus(garde["pv"], garde["pc"], con) == -9
    shown = next(r for r in records if r["command"] == "/combat voir")
    fields = {
        f["name"].lstrip("▶ ").split(" · ")[0].strip("~"): f["value"] for f in shown["embeds"][0]["fields"]
    }
    assert fields["Bretteur"].startswith(
        f"PV {pv_max - bretteur['pv']}/{pv_max} · PC {pc_max - bretteur['pc']}/{pc_max}\n"
    )
    assert fields["Garde"].startswith(
        f"PV {pv_max - 10}/{pv_max} · PC {pc_max - 13}/{pc_max} · malus -9\nprochaine action -18"
    )
    assert results[-1]["rounds"] == 4


# --- ogl (seed 004) ------------------------------------------------------------------------------

OGL_WOUNDS = {
    e["id"]: e for e in json.loads((ROOT / "data" / "ogl_wounds.json").read_text("utf-8"))["entries"]
}
# the seed prints no location HP: the bot's reading is RuneQuest's shares of ⌈(CON + SIZ) / 2⌉
OGL_SHARES = {
    "jambe_d": (1, 3),
    "jambe_g": (1, 3),
    "abdomen": (1, 3),
    "poitrine": (2, 5),
    "bras_d": (1, 4),
    "bras_g": (1, 4),
    "tete": (1, 3),
}
OGL_LABELS = {
    "jambe_d": "Jambe D",
    "jambe_g": "Jambe G",
    "abdomen": "Abdomen",
    "poitrine": "Poitrine",
    "bras_d": "Bras D",
    "bras_g": "Bras G",
    "tete": "Tête",
}


def ogl_location_hp(con: int, siz: int) -> dict[str, int]:
    total = math.ceil((con + siz) / 2)
    return {loc: max(1, math.ceil(total * num / den)) for loc, (num, den) in OGL_SHARES.items()}


def ogl_level(hp_after: int, hp_max: int) -> str:
    """0 → minor, ≤ −1 → serious, "plus importante que les points de vie d'origine" → major (the data's
    comparison: strictly below −HP)."""
    assert OGL_WOUNDS["major"]["threshold"]["comparison"] == "below"
    if hp_after > 0:
        return "none"
    if hp_after < -hp_max:
        return "major"
    return "serious" if hp_after <= -1 else "minor"


def ogl_opposed(skill: int, roll: int, defence: int, droll: int) -> str:
    """Both succeed → the higher roll wins; only one succeeds → that one."""
    a, d = roll <= skill, droll <= defence
    if a and d:
        return "hit" if roll > droll else "defended"
    return "hit" if a else ("defended" if d else "miss")


OGL_BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 CHA:10 Esquive:40"
OGL_SCRIPT = f"""
/config systeme systeme:ogl portee:canal
/combat ouvrir nom:Arène
/combat ajouter qui:Guerrier caracs:"{OGL_BODY} DEX:14" armes:"Épée 1d8+1 60%"
/combat ajouter qui:Cible caracs:"{OGL_BODY} DEX:15 RA:2" armes:"Dague 1d4+1 50%" armure:tout:1 camp:Cibles
/combat round des:"Guerrier: 5; Cible: 3"
/combat attaque cible:Guerrier jet:30 localisation:tete degats:3
/combat defense choix:parer jet:45
/combat attaque cible:Cible jet:55 localisation:jambe_d degats:6 effets:2
/combat defense choix:parer jet:20
/combat round des:"Guerrier: 8; Cible: 2"
/combat attaque cible:Cible jet:4 localisation:poitrine effets:3
/combat defense choix:encaisser
/combat test qui:Cible jet:41
/combat suivant
!click Passer le tour de Cible
/combat round des:"Guerrier: 6; Cible: 7"
/combat suivant
!click Passer le tour de Cible
/combat attaque cible:Cible jet:12 localisation:tete degats:8 effets:1
/combat defense choix:encaisser
/combat test qui:Cible jet:75
/combat voir
/combat fin
"""


def test_an_ogl_fight_through_the_console() -> None:
    records = run_console(OGL_SCRIPT)
    results = [r["result"] for r in records]
    assert results[0]["ruleset"] == "ogl" and results[0]["options"] == {"ogl_majeure": "below"}
    hp = ogl_location_hp(12, 12)
    assert hp == {
        "jambe_d": 4,
        "jambe_g": 4,
        "abdomen": 4,
        "poitrine": 5,
        "bras_d": 3,
        "bras_g": 3,
        "tete": 4,
    }
    # action ranks 1d10 + RA: round 1 Guerrier 5 + 0, Cible 3 + 2 — tied at 5, the higher DEX (15) first
    rounds = [r for r in results if "initiative" in r]
    ranks = [{i["combatant"]: i["rank"] for i in r["initiative"]} for r in rounds]
    assert ranks == [{"guerrier": 5, "cible": 5}, {"guerrier": 8, "cible": 4}, {"guerrier": 6, "cible": 9}]
    assert [[s["combatant"] for s in r["order"]] for r in rounds] == [
        ["cible", "guerrier"],
        ["guerrier", "cible"],
        ["cible", "guerrier"],
    ]
    hits = [r for r in results if r.get("choice")]
    # 1. Dague 30 ≤ 50 against the parry 45 ≤ 60: both succeed, the higher roll (45) wins
    parried = hits[0]
    assert parried["outcome"] == ogl_opposed(50, 30, 60, 45) == "defended"
    assert parried["exchange"]["defence"]["target"] == 60
    # 2. Épée 55 ≤ 60 against the parry 20 ≤ 50: 55 wins; 1d8 6 + 1 = 7 − 1 AP = 6; right leg 4 → −2
    leg = hits[1]
    assert leg["outcome"] == ogl_opposed(60, 55, 50, 20) == "hit"
    assert leg["damage"]["total"] == 6 + 1 and leg["wound"]["damage"] == 7 - 1
    after = hp["jambe_d"] - 6
    assert (
        leg["wound"]["hp_after"] == after == -2 and leg["wound"]["level"] == ogl_level(after, 4) == "serious"
    )
    kinds = [c["kind"] for c in leg["wound"]["conditions"]]
    # serious: 1d4 (2) combat actions lost, the leg unusable, prone
    assert kinds == ["lose_combat_actions", "disabled", "prone"]
    assert leg["wound"]["conditions"][0]["remaining"] == 2 and leg["wound"]["endurance_tests"] == []
    # 3. 4 ≤ ⌊60 / 10⌋ = 6: critical; the Cible has lost her next 2 combat actions (the leg): no
    #    reaction, she takes it; 1d8+1 at its maximum 9 − 1 AP = 8;
    #    chest 5 → −3: serious to the chest → an Endurance test (CON 12 × 5 = 60): 41 passes
    chest = hits[2]
    assert chest["exchange"]["critical"] and 4 <= 60 // 10
    assert chest["damage"]["total"] == 8 + 1 and chest["wound"]["hp_after"] == hp["poitrine"] - 8 == -3
    assert chest["wound"]["level"] == ogl_level(-3, 5) == "serious"
    assert chest["wound"]["endurance_tests"] == ["unconscious"]
    tests = [r for r in results if r.get("prompt")]
    assert tests[0]["check"]["target"] == 12 * 5 and tests[0]["check"]["success"]
    # 4. taken: 1d8 8 + 1 = 9 − 1 AP = 8; head 4 → −4 = −HP: still serious by the seed; 75 > 60: out
    head = hits[3]
    assert head["wound"]["hp_after"] == hp["tete"] - 8 == -4
    assert head["wound"]["level"] == ogl_level(-4, 4) == "serious"
    assert not tests[1]["check"]["success"] and tests[1]["check"]["roll"] == 75
    shown = next(r for r in records if r["command"] == "/combat voir")
    fields = {
        f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
        for f in shown["embeds"][0]["fields"]
    }
    now = {**hp, "jambe_d": -2, "poitrine": -3, "tete": -4}
    line = " · ".join(
        f"{OGL_LABELS[k]} " + (f"**{now[k]}/{hp[k]}**" if now[k] != hp[k] else f"{hp[k]}/{hp[k]}") for k in hp
    )
    assert fields["Cible"].startswith(line + "\n")
    assert "jambe hors d'usage" in fields["Cible"] and "inconscient" in fields["Cible"]
    cible = next(f for f in shown["embeds"][0]["fields"] if "Cible" in f["name"])
    assert cible["name"] == "💤 Cible · Cibles"  # unconscious, on the side the GM named
    assert fields["Guerrier"].startswith(" · ".join(f"{OGL_LABELS[k]} {v}/{v}" for k, v in hp.items()))
    assert results[-1]["rounds"] == 3
