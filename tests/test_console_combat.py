"""A scripted three-round fight through the console (``python -m bot console --json``), every die
entered by hand: two PCs (a sword, a bow) against three goblins — a parry with its side effect and
shield wear, a partial armour layer missed, a critical with a bleeding timer. Every number of the
replies is recomputed here from the rules and the data tables."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from bot.data_loading import load_all

from .console_script import answers, assert_no_errors, console_records

# Gobelin carries a shield: −5 Ag for the initiative (shields.json port_seconde_arme), 5 + 5 + 10 + 25 = 45
INITIATIVE = 'des:"Albert: 15 12 10; Bertha: 10 10 10; Gobelin: 5 5 10; Gobelin 2: 4 4 4; Gobelin 3: 3 3 3"'
SCRIPT = f"""
/combat ouvrir nom:Embuscade
@alice /perso creer nom:Albert caracs:"CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:epee
@bob /perso creer nom:Bertha caracs:"CC:30 CT:45 F:30 E:35 Ag:40 Int:31 FM:35 Soc:33"
@bob /perso equiper arme:arc_simple
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bertha
/combat ajouter qui:gobelin armes:"hache_pic, bouclier" armure:matelassee_gambison_court
/combat ajouter qui:"2 gobelins" armure:matelassee_gambison_court
/combat round {INITIATIVE}
@alice /combat attaque cible:Gobelin jet:34 degats:7
/combat defense choix:parer jet:20 contrecoup:60 tests:90
@bob /combat attaque cible:"Gobelin 2" distance:10 jet:25 degats:5 critique:50 effets:50 durees:"3 3 3"
!click Encaisser
/combat attaque cible:Albert jet:50
/combat attaque cible:Bertha jet:10
@bob /combat defense choix:esquiver jet:15
/combat round {INITIATIVE}
@alice /combat attaque cible:"Gobelin 3" jet:44 degats:6 couverture:80 critique:30 effets:"50 50" durees:3
!click Encaisser
@bob /combat attaque cible:"Gobelin 2" distance:10 jet:10 degats:9 critique:65 effets:20 durees:3
!click Encaisser
/combat attaque cible:Albert jet:20 degats:4 critique:80 effets:"50 50" durees:"3 3"
@alice !click Encaisser
/combat test qui:"Gobelin 2" jet:15
/combat round {INITIATIVE}
@alice /combat attaque cible:Gobelin jet:30 degats:5
/combat defense choix:parer jet:25 contrecoup:10
/combat fin
"""


def run_console() -> list[dict[str, Any]]:
    records = console_records(SCRIPT)
    assert_no_errors(records)
    # the fight's own answers (public, with a structured result)
    return answers(records, ("/combat", "!click"))


def checks(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if "target" in value and "modifiers" in value and "roll" in value:
            yield value
        for item in value.values():
            yield from checks(item)
    elif isinstance(value, list):
        for item in value:
            yield from checks(item)


def steps(items: list[dict[str, Any]]) -> list[int]:
    return [int(s["value"]) for s in items]


def grid(d100: int, damage: int) -> int:
    matrix = load_all()["critical_matrix"].document
    row = next(e for e in matrix["entries"] if e["d100_min"] <= d100 <= e["d100_max"])
    return int(row["values"][matrix["damage_columns"].index(min(damage, 10))])


def test_three_round_fight_through_the_console() -> None:
    records = run_console()
    results = [r["result"] for r in records]
    # every test's target is the sum of its itemised modifiers; every damage its steps
    for result in results:
        for check in checks(result):
            assert check["target"] == sum(m["value"] for m in check["modifiers"]), check
        damage = result.get("damage")
        if damage:
            assert damage["total"] == max(0, sum(steps(damage["steps"])))
        critical = result.get("critical")
        if critical:
            value = critical["value"]
            assert value["grid"] == grid(value["d100"], value["damage"])
            assert value["value"] == max(1, min(15, sum(steps(value["steps"]))))

    by_kind: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        kind = "attack" if "attack" in result and "seq" in result and "choice" not in result else None
        kind = kind or ("defence" if "choice" in result else None)
        kind = kind or ("round" if "initiative" in result else None)
        if kind:
            by_kind.setdefault(kind, []).append(result)
    rounds = by_kind["round"]
    assert len(rounds) == 3
    totals = {i["combatant"]: i["total"] for i in rounds[0]["initiative"]}
    assert totals == {"albert": 75, "bertha": 70, "gobelin": 45, "gobelin-2": 42, "gobelin-3": 39}
    assert [s["combatant"] for s in rounds[0]["order"]] == [
        "albert",
        "bertha",
        "gobelin",
        "gobelin-2",
        "gobelin-3",
    ]

    attacks = by_kind["attack"]
    first = attacks[0]["attack"]
    # Albert CC 45 against a goblin CC 30: 45 + (50 − 30) = 65; 34 → 3 °R → corps
    assert steps(first["check"]["modifiers"]) == [45, 20] and first["check"]["target"] == 65
    assert first["degrees"] == 3 and first["zone"] == "corps"
    # the bow at 10 m (short 24 → ≤ 12 m: +10): CT 45 + 10 = 55
    bow = attacks[1]["attack"]
    assert steps(bow["check"]["modifiers"]) == [45, 10] and bow["range_band"] == "bout_portant"

    defences = by_kind["defence"]
    parry = defences[0]
    # the goblin parries with its shield (Défensive +10): 30 + (50 − 45) + 10 = 45; 20 succeeds
    assert steps(parry["defence"]["check"]["modifiers"]) == [30, 5, 10] and parry["defence"]["success"]
    # shield: 80 → 76; side effect 60 + F 35 − F 30 + 4 = 69 → 61-70: Ag +30 % (60) failed on 90 → falls
    assert parry["shield"]["pv_before"] == 80 and parry["shield"]["pv_after"] == 76
    side = parry["side_effect"]
    assert steps(side["steps"]) == [60, 35, -30, 4] and side["total"] == 69 and side["band"] == "recul_1m"
    [fall] = parry["effects"]
    assert fall["tests"][0]["check"]["target"] == 60 and not fall["tests"][0]["check"]["success"]
    assert [c["kind"] for c in fall["conditions"]] == ["prone"]

    arrow = defences[1]
    # 5 + 6 (fixed) − BE 6 − 1 PA (padded, whole body) = 4; padded armour worn 10 → 9
    assert steps(arrow["damage"]["steps"]) == [5, 6, -6, -1] and arrow["damage"]["total"] == 4
    assert arrow["damage"]["wear"]["pv_after"] == 9
    assert arrow["critical"]["value"]["value"] == grid(50, 4)

    dodge = defences[2]
    # no Dodge skill: Ag 40 → 20; the axe is Lente: +10 → 30; 15 succeeds
    assert steps(dodge["defence"]["check"]["modifiers"]) == [40, -20, 10] and dodge["defence"]["success"]

    partial = defences[3]
    # the short gambison covers ½ of the arms: d100 80 > 50 → missed, no PA; Vicelarde vs no armour +1
    [layer] = partial["damage"]["armour"]["layers"]
    assert (layer["coverage_threshold"], layer["coverage_roll"], layer["counts"]) == (50, 80, False)
    assert steps(partial["damage"]["steps"]) == [6, 6, -6, 1] and partial["damage"]["total"] == 7
    assert partial["critical"]["value"]["value"] == grid(30, 7) == 9

    bleeding = defences[4]
    # head shot: 9 + 6 − 6 = 9; d100 65 → 11 → projectiles, tête, 11: E test (30) on 20 → bleeding
    assert bleeding["damage"]["total"] == 9 and bleeding["critical"]["value"]["value"] == grid(65, 9) == 11
    assert bleeding["critical"]["kind"] == "projectiles" and bleeding["critical"]["zone"] == "tete"
    kinds = [c["kind"] for c in bleeding["effects"][0]["conditions"]]
    assert "bleeding" in kinds and "no_action" in kinds

    tests = [r for r in results if "prompt" in r]
    assert len(tests) == 1 and tests[0]["prompt"]["kind"] == "bleeding_test"
    [effect] = tests[0]["effects"]
    assert effect["tests"][0]["check"]["target"] == 20 and effect["tests"][0]["check"]["success"]

    last = defences[-1]
    assert last["shield"]["pv_before"] == 76 and last["shield"]["pv_after"] == 74
    assert last["side_effect"]["total"] == 10 + 35 - 30 + 2 and last["side_effect"]["band"] == "tout_va_bien"

    end = results[-1]
    assert end["rounds"] == 3 and end["dead"] == []
    assert sorted((h["victim"], h["zone"], h["critical"]) for h in end["hits"]) == [
        ("albert", "jambes", 2),
        ("gobelin-2", "corps", 4),
        ("gobelin-2", "tete", 11),
        ("gobelin-3", "bras", 9),
    ]


QUICK_NPCS = """
/combat ouvrir nom:Col
/combat ajouter qui:"3 bandits" cc:35 f:35 caracs:E:30 armes:epee
/combat ajouter qui:Homme-bête
/combat round des:"Homme bête 1: 9 9 9; Bandit 1: 3 3 3; Bandit 2: 2 2 2; Bandit 3: 1 1 1"
/combat etat qui:bandit operation:add etat:prone
"""

QUICK_NPCS_EN = """
/combat open name:Pass
/combat add who:"2 beastmen"
/combat add who:Bandit ws:35 s:35 tb:6
/combat add who:Outlaw ws:35
"""


def test_quick_npcs_and_forgiven_creature_names_through_the_console() -> None:
    """« 3 bandits » with their stats, a creature under a hyphen and an accent, the lone one named
    « Homme bête 1 » in the initiative dice, « bandit » refused as naming three fighters; in English,
    plural creatures (« 2 beastmen ») and what a quick NPC still lacks."""
    records = console_records(QUICK_NPCS)
    bandits, beast, initiative, vague = [
        r for r in records if r.get("command") not in (None, "/combat ouvrir")
    ]
    assert bandits["embeds"][0]["title"] == "➕ 3 combattants ajoutés"
    assert "Par défaut : CT 25, Ag 30, A 1" in bandits["embeds"][0]["description"]
    assert "**Homme bête** — CC 30 · CT 25 · F 35" in beast["embeds"][0]["description"]
    assert "**Homme bête** : 9+9+9 + Ag 30 = **57**" in initiative["embeds"][0]["description"]
    assert "« bandit » désigne plusieurs combattants : Bandit 1, Bandit 2, Bandit 3." in json.dumps(
        vague, ensure_ascii=False
    )
    records = console_records(QUICK_NPCS_EN, "--locale", "en")
    beasts, bandit, outlaw = [r for r in records if r.get("command") not in (None, "/combat open")]
    assert beasts["embeds"][0]["title"] == "➕ 2 fighters added"
    assert "**Beastman 2** — WS 30" in beasts["embeds"][0]["description"]
    assert "**Bandit** — WS 35 · BS 25 · S 35" in bandit["embeds"][0]["description"]
    assert "to make it a quick NPC, give `s:` (or `sb:`) and `stats:E:…` (or `tb:`)." in json.dumps(
        outlaw, ensure_ascii=False
    )
