"""Weapons, attributes, ammunition, armour and shields of the renove ruleset (seed 000).

Pinned values are read from the seed (sections "I – Armes", "II – Armures"); see each file's notes.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from bot.data_loading import DATA_DIR, validate_file

FILES = [
    "weapons_melee",
    "weapons_ranged",
    "weapon_attributes",
    "weapon_groups",
    "ammunition",
    "armour",
    "armour_quality",
    "shields",
]


def load(name: str) -> dict[str, Any]:
    return dict(validate_file(DATA_DIR / f"{name}.json").document)


def by_id(name: str) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in load(name)["entries"]}


def melee() -> dict[str, dict[str, Any]]:
    return by_id("weapons_melee")


def ranged() -> dict[str, dict[str, Any]]:
    return by_id("weapons_ranged")


def bf(modifier: int) -> dict[str, Any]:
    return {"base": "BF", "modifier": modifier}


def fixed(value: int) -> dict[str, Any]:
    return {"base": "fixed", "value": value}


# --- every file validates, with its envelope ---------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_file_validates(name: str) -> None:
    doc = load(name)
    assert doc["ruleset"] == "renove"
    assert doc["source"]["seed"] == "000_69d044075d6a247e.txt"
    assert doc["notes"], "every reading must be recorded"


@pytest.mark.parametrize("name", FILES)
def test_ids_unique(name: str) -> None:
    doc = load(name)
    key = "quality" if name == "armour_quality" else "id"
    ids = [e[key] for e in doc["entries"]]
    assert len(ids) == len(set(ids))
    for extra in ("families", "rules"):
        if extra in doc:
            sub = [e["id"] for e in doc[extra]]
            assert len(sub) == len(set(sub))


def test_weapon_ids_unique_across_tables() -> None:
    assert not set(melee()) & set(ranged())


# --- cross references --------------------------------------------------------------------------


def all_weapons() -> list[dict[str, Any]]:
    return [*melee().values(), *ranged().values()]


def used_attributes(weapon: dict[str, Any]) -> set[str]:
    used = set(weapon["attributes"])
    for cond in weapon.get("conditional_attributes", []):
        used |= set(cond["attributes"])
    for option in weapon.get("attribute_options", []):
        used |= set(option)
    return used


def test_every_weapon_attribute_exists() -> None:
    attributes = by_id("weapon_attributes")
    for weapon in all_weapons():
        missing = used_attributes(weapon) - set(attributes)
        assert not missing, (weapon["id"], missing)
        for attr in used_attributes(weapon):
            assert weapon["kind"] in attributes[attr]["applies_to"], (weapon["id"], attr)
    for ammo in load("ammunition")["entries"]:
        assert set(ammo["attributes"]) <= set(attributes), ammo["id"]


def test_attribute_mechanics_references() -> None:
    attributes = by_id("weapon_attributes")
    weapons = melee()
    for attr in attributes.values():
        for mech in attr["mechanics"]:
            if mech["type"] == "attribute_time_limit":
                assert mech["attribute"] in attributes
            if mech["type"] == "usable_as":
                assert mech["weapon"] in weapons
            for variant in mech.get("quality_variants", {}).values():
                if "becomes" in variant:
                    assert variant["becomes"] in attributes
            for band in mech.get("bands", []):
                assert band["from"] <= band["to"]


def test_every_group_exists_and_matches_kind() -> None:
    groups = by_id("weapon_groups")
    for weapon in all_weapons():
        if weapon["group"] is not None:
            assert weapon["group"] in groups, weapon["id"]
            assert groups[weapon["group"]]["kind"] == weapon["kind"], weapon["id"]
    used = {w["group"] for w in all_weapons()} - {None}
    assert used == set(groups), "every group is used by some weapon"


def test_combined_weapons_point_to_melee_weapons() -> None:
    weapons = melee()
    for weapon in weapons.values():
        for part in weapon.get("combines", []):
            assert part in weapons and not weapons[part].get("combines")
        assert (weapon["damage"] is None) == bool(weapon.get("combines")), weapon["id"]


def test_special_actions_exist_when_the_table_is_there() -> None:
    path = DATA_DIR / "special_actions.json"
    if not path.exists():
        pytest.skip("data/special_actions.json not written yet")
    known = {e["id"] for e in validate_file(path).document["entries"]}
    for weapon in all_weapons():
        assert set(weapon["special_actions"]) <= known, weapon["id"]


def test_ammunition_families_match_weapons() -> None:
    families = {f for a in load("ammunition")["entries"] for f in a["for"]}
    for weapon in ranged().values():
        if weapon["ammunition"] is not None:
            assert weapon["ammunition"] in families, weapon["id"]


def test_shield_and_rule_references() -> None:
    weapons = melee()
    every = set(weapons) | set(ranged())
    doc = load("shields")
    for entry in doc["entries"]:
        assert set(entry["weapons"]) <= set(weapons)
    assert sum(e["default_for_other_weapons"] for e in doc["entries"]) == 1
    for rule in doc["rules"]:
        effect = rule["effect"]
        for key in ("exempt_weapons", "also_when_carried_weapons", "weapons"):
            assert set(effect.get(key, [])) <= every, rule["id"]
        assert set(effect.get("also_when_carried_groups", [])) <= set(by_id("weapon_groups"))
    assert set(by_id("weapon_attributes")) >= {
        r["effect"]["waived_by_attribute"] for r in doc["rules"] if r["effect"]["type"] == "off_hand_attack"
    }


# --- melee weapons, pinned -----------------------------------------------------------------------


def test_melee_count_and_order() -> None:
    entries = load("weapons_melee")["entries"]
    assert len(entries) == 30
    assert entries[0]["id"] == "hache_pic"
    assert entries[-1]["id"] == "brise_lame"


def test_hache_pic() -> None:
    w = melee()["hache_pic"]
    assert w["damage"] == bf(0)
    assert w["group"] is None
    assert w["attributes"][0] == "lente"
    assert w["attributes"] == ["lente"]
    assert w["critical_kind"] == "tranchantes"


def test_fencing_weapons() -> None:
    m = melee()
    assert m["rapiere_sabre"]["group"] == "escrime"
    assert m["rapiere_sabre"]["damage"] == bf(-1)
    assert m["rapiere_sabre"]["attributes"] == ["rapide", "defensive", "precise", "vicelarde"]
    assert m["fleuret"]["group"] == "escrime"
    assert m["fleuret"]["damage"] == bf(-2)
    assert m["fleuret"]["attributes"] == ["rapide", "precise", "perforante", "offensive"]


def test_flail() -> None:
    m = melee()
    flail = m["fleau_d_armes"]
    assert flail["two_handed"] is True
    assert flail["group"] == "fleaux"
    assert flail["damage"] == bf(2)
    assert flail["attributes"] == ["lente", "peu_fiable", "epuisante", "percutante", "offensive"]
    # "Par-dessus les défenses — Armes : Fléaux": only the flails (group Fléaux) have it.
    over = {i for i, w in m.items() if "par_dessus_les_defenses" in w["special_actions"]}
    assert over == {i for i, w in m.items() if w["group"] == "fleaux"} == {"fleau_d_armes", "morgenstern"}


def test_sword_hammer_and_parry_weapons() -> None:
    m = melee()
    assert "vicelarde" in m["epee"]["attributes"]
    assert m["epee"]["damage"] == bf(0)
    assert "assommante" in m["masse_marteau"]["attributes"]
    assert m["masse_marteau"]["critical_kind"] == "contondantes"
    assert m["marteau_de_guerre_long"]["attributes"] == ["lente", "assommante", "contondante"]
    assert m["brise_lame"]["attributes"] == ["defensive", "equilibree"]
    assert m["brise_lame"]["damage"] == bf(-3)
    assert m["brise_lame"]["group"] == "parade"
    assert m["main_gauche"]["damage"] == bf(-2)
    assert m["bouclier"]["group"] is None
    assert m["bouclier"]["damage"] == bf(-2)
    assert m["rondache"]["attributes"] == ["defensive", "assommante", "equilibree"]
    assert {i for i, w in m.items() if w["defensive_kind"] == "shield"} == {"bouclier", "rondache"}
    assert {i for i, w in m.items() if "frappe_de_bouclier" in w["special_actions"]} == {
        "bouclier",
        "rondache",
    }


def test_bare_hands_and_knuckles() -> None:
    m = melee()
    assert m["mains_nues"]["damage"] == bf(-4)
    assert m["mains_nues"]["critical_kind"] == "pugilat"
    assert m["coup_de_poing"]["damage"] == bf(-3)
    assert m["coup_de_poing"]["attribute_options"] == [["contondante", "assommante"], ["vicelarde"]]


def test_heavy_and_cavalry_weapons() -> None:
    m = melee()
    for wid in ("epee_longue_espadon", "hache_de_bataille_longue", "marteau_de_guerre_long"):
        assert m[wid]["group"] == "lourdes"
        assert m[wid]["damage"] == bf(2)
        assert m[wid]["two_handed"]
    assert m["epee_batarde"]["damage"] == bf(1)
    assert m["epee_batarde"]["conditional_attributes"] == [
        {"when": "one_handed", "attributes": ["lente"]},
        {"when": "two_handed", "attributes": ["rapide"]},
    ]
    assert m["epee_batarde"]["special_actions"][:2] == ["coup_perforant", "allonge_surprise"]
    assert m["lance_de_cavalerie"]["group"] == "cavalerie"
    assert m["lance_de_cavalerie"]["damage"] == bf(1)
    assert "posture_du_piquier" in m["lance_de_cavalerie"]["special_actions"]
    assert m["pique"]["damage"] == bf(-1)
    assert m["hallebarde_armes_d_hast"]["combines"] == ["hache_de_bataille_longue", "pique"]
    assert m["hache_d_armes"]["combines"] == ["hache_de_bataille_longue", "marteau_de_guerre_long"]


def test_two_handed_set() -> None:
    assert {i for i, w in melee().items() if w["two_handed"]} == {
        "fleau_d_armes",
        "epee_longue_espadon",
        "hache_de_bataille_longue",
        "marteau_de_guerre_long",
        "baton",
        "lance",
        "lance_de_cavalerie",
        "hallebarde_armes_d_hast",
        "hache_d_armes",
    }


def test_every_melee_weapon_can_stun_and_disarm() -> None:
    for weapon in melee().values():
        assert {"coup_assommant", "desarmement"} <= set(weapon["special_actions"])


# --- ranged weapons, pinned ----------------------------------------------------------------------


def test_ranged_count() -> None:
    assert len(load("weapons_ranged")["entries"]) == 24


def test_ranges_are_sensible() -> None:
    for weapon in ranged().values():
        rng = weapon["range"]
        if rng["long"] is not None:
            assert rng["long"] == 2 * rng["short"], weapon["id"]
        assert weapon["critical_kind"] in {"projectiles", "contondantes", "tranchantes"}


def test_bows_and_crossbows() -> None:
    r = ranged()
    assert r["arc_simple"]["range"] == {"short": 24, "long": 48}
    assert r["arc_simple"]["reload"] == {"rounds": 0.5}
    assert r["arc_simple"]["damage"] == fixed(6)
    assert r["arc_simple"]["attributes"] == []
    assert r["arc_court"]["range"] == {"short": 18, "long": 36}
    assert r["arc_court"]["damage"] == fixed(5)
    assert r["arc_long"]["group"] == "arcs_longs"
    assert r["arc_long"]["attributes"] == ["perforante"]
    assert r["arc_elfique"]["range"] == {"short": 36, "long": 72}
    assert r["arbalete_a_levier"]["reload"] == {"rounds": 1}
    assert r["arbalete_a_levier"]["damage"] == fixed(7)
    assert r["arbalete_a_repetition"]["reload"] == {
        "rounds": 0,
        "magazine": {"capacity": 6, "reload_rounds": 4},
    }
    assert r["arbalete_de_poing"]["two_handed"] is False


def test_guns() -> None:
    r = ranged()
    assert r["arquebuse"]["group"] == "a_poudre"
    assert r["arquebuse"]["reload"] == {"rounds": 2}
    assert r["arquebuse"]["attributes"] == ["perforante", "percutante", "peu_fiable"]
    assert r["pistolet"]["range"] == {"short": 8, "long": 16}
    assert r["pistolet_a_repetition"]["group"] == "mecanique"
    assert r["pistolet_a_repetition"]["attributes"] == ["perforante", "percutante", "experimentale"]
    assert r["fusil_du_hochland"]["range"] == {"short": 48, "long": 96}
    assert r["fusil_du_hochland"]["damage"] == fixed(8)
    assert r["tromblon"]["attributes"] == ["mitraille", "peu_fiable", "vicelarde"]
    assert r["tromblon"]["reload"] == {"rounds": 3}


def test_thrown_and_slings() -> None:
    r = ranged()
    assert r["javelot"]["range"] == {"short": 12, "long": 24}
    assert r["javelot"]["damage"] == bf(-1)
    assert r["javelot"]["attributes"] == ["inutilisable_au_corps_a_corps"]
    assert r["fouet"]["damage"] == bf(-4)
    assert r["filet"]["attributes"] == ["immobilisante", "piegeant"]
    assert r["fronde"]["range"] == {"short": 16, "long": 32}
    assert r["fronde"]["critical_kind"] == "contondantes"
    assert r["fustibale"]["reload"] == {"rounds": 1}
    assert r["fustibale"]["damage"] == fixed(7)


# --- attributes, pinned --------------------------------------------------------------------------


def mechanics(attr: str) -> list[dict[str, Any]]:
    return by_id("weapon_attributes")[attr]["mechanics"]


def test_attribute_mechanics() -> None:
    assert mechanics("percutante") == [{"type": "damage_dice", "dice": "2d10kh1"}]
    assert {"type": "ignore_armour", "points": 1} in mechanics("perforante")
    assert {"type": "shield_damage", "value": -3} in mechanics("perforante")
    assert mechanics("precise") == [{"type": "critical_value", "value": 1}]
    lente, rapide = mechanics("lente")[0], mechanics("rapide")[0]
    assert (lente["who"], lente["value"], rapide["value"]) == ("opponent", 10, -10)
    assert mechanics("defensive")[0]["value"] == 10
    assert mechanics("offensive")[0]["value"] == -10
    vicious = mechanics("vicelarde")[0]["modifiers"]
    crushing = mechanics("contondante")[0]["modifiers"]
    assert vicious == {"none": 1, "legere": 1, "moyenne": -1, "lourde": -1}
    assert crushing == {k: -v for k, v in vicious.items()}
    assert mechanics("assommante") == [{"type": "stun_bonus", "characteristic": "F", "value": 10}]


# --- ammunition ----------------------------------------------------------------------------------


def test_ammunition() -> None:
    ammo = by_id("ammunition")
    assert ammo["bodkin"]["attributes"] == ["perforante"]
    assert ammo["de_chasse"]["attributes"] == ["vicelarde"]
    assert ammo["barbeles"]["attributes"] == ["risque_infection"]
    assert ammo["matras"]["special_actions"] == ["coup_assommant"]
    assert ammo["classiques"]["prices"][0] == {
        "for": "fleches",
        "quantity": 5,
        "price": {"amount": 3, "unit": "s"},
    }


# --- armour --------------------------------------------------------------------------------------


def armour() -> dict[str, Any]:
    return load("armour")


def families() -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in armour()["families"]}


def pieces() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in armour()["entries"]}


def test_armour_families() -> None:
    fam = families()
    assert {k: (f["pa"], f["class"]) for k, f in fam.items()} == {
        "cuir_bouilli": (1, "legere"),
        "matelassee": (1, "legere"),
        "maille_cousue": (2, "legere"),
        "maille": (2, "moyenne"),
        "plaques": (2, "moyenne"),
        "ecailles": (3, "lourde"),
        "plates": (2, "lourde"),
    }
    assert fam["cuir_bouilli"]["combinable_with"] == []
    assert fam["plaques"]["combinable_with"] == ["maille"]
    assert fam["maille"]["wear_time"] == {"be_multiplier": 2}
    assert fam["cuir_bouilli"]["wear_time"] == {"hours": 24}


def test_armour_piece_counts() -> None:
    counts: dict[str, int] = {}
    for piece in armour()["entries"]:
        counts[piece["family"]] = counts.get(piece["family"], 0) + 1
    assert counts == {
        "cuir_bouilli": 11,
        "matelassee": 10,
        "maille_cousue": 10,
        "maille": 8,
        "plaques": 4,
        "ecailles": 7,
        "plates": 11,
    }


def test_armour_pieces_pinned() -> None:
    p = pieces()
    assert p["cuir_bouilli_cerveliere"]["coverage"] == {"tete": 0.5}
    assert p["cuir_bouilli_calotte"]["coverage"] == {"tete": 1}
    assert p["plates_heaume"]["coverage"] == {"tete": 1}
    assert p["plates_salade"]["coverage"] == {"tete": 0.5}
    assert p["plates_gantelet"]["coverage"] == {"bras": 0.25}
    assert p["matelassee_gambison"]["coverage"] == {"corps": 1, "bras": 1, "jambes": 0.5}
    assert p["matelassee_gambison_court"]["coverage"] == {"corps": 1, "bras": 0.5, "jambes": 0.5}
    assert p["maille_haubert"]["coverage"] == {"corps": 1, "bras": 1, "jambes": 0.5}
    assert p["maille_camail"]["coverage"] == {"tete": 1}
    assert p["maille_cousue_broigne"]["coverage"] == {"corps": 1, "bras": 1, "jambes": 0.5}
    assert p["plaques_cotte"]["coverage"] == {"corps": 1, "bras": 0.5, "jambes": 0.5}
    assert p["ecailles_manteau"]["coverage"] == {"corps": 1, "bras": 1, "jambes": 0.5}
    assert p["maille_haubert"]["price"] == {"amount": 75, "unit": "pa"}


def test_armour_pieces_reference_families() -> None:
    fam = families()
    for piece in armour()["entries"]:
        assert piece["family"] in fam
        assert piece["id"].startswith(piece["family"] + "_")


def test_limbs_made_of_quarters_sum_to_a_whole_zone() -> None:
    for family in ("cuir_bouilli", "plates"):
        for zone in ("bras", "jambes"):
            total = sum(p["coverage"].get(zone, 0) for p in armour()["entries"] if p["family"] == family)
            assert total == 1, (family, zone)


def test_combinations() -> None:
    fam = families()
    for f in fam.values():
        for other in f["combinable_with"]:
            assert f["id"] in fam[other]["combinable_with"], "compatibility is symmetric"
    combos = armour()["combinations"]
    for combo in combos:
        layers = combo["layers"]
        assert [fam[x]["layer_order"] for x in layers] == sorted(fam[x]["layer_order"] for x in layers)
        for a, b in combinations(layers, 2):
            assert b in fam[a]["combinable_with"]
        assert combo["pa"] == sum(fam[x]["pa"] for x in layers)
    best = {tuple(c["layers"]) for c in combos if c["pa"] == max(c["pa"] for c in combos)}
    assert best == {("matelassee", "maille", "plates"), ("maille_cousue", "ecailles")}
    assert max(c["pa"] for c in combos) == 5
    assert ["cuir_bouilli"] in [c["layers"] for c in combos]
    assert not any("cuir_bouilli" in c["layers"] and len(c["layers"]) > 1 for c in combos)


def test_armour_quality() -> None:
    doc = load("armour_quality")
    assert {e["quality"]: e["pv"] for e in doc["entries"]} == {
        "mediocre": 5,
        "normale": 10,
        "bonne": 15,
        "exceptionnelle": 20,
    }
    assert doc["wear"]["pv_per_hit"] == 1
    assert doc["wear"]["pa_lost_at_zero"] == 1


def test_shields() -> None:
    entries = by_id("shields")
    assert (entries["bouclier_cercle_bois"]["be"], entries["bouclier_cercle_bois"]["pv"]) == (8, 80)
    assert (entries["rondache_acier"]["be"], entries["rondache_acier"]["pv"]) == (9, 90)
    assert entries["bouclier_de_fortune"]["parry_bonus"] is False
    assert entries["arme_normale"]["pv"] is None
    assert entries["arme_normale"]["be"] == 6


def test_files_are_formatted_json() -> None:
    for name in FILES:
        text = Path(DATA_DIR / f"{name}.json").read_text(encoding="utf-8")
        assert text.endswith("\n")


def test_armour_names_are_unambiguous_and_name_their_material() -> None:
    from bot.rules.sheets import fold

    entries = armour()["entries"]
    for key in ("name", "name_en"):
        folded = [fold(p[key]).replace("’", "'") for p in entries]
        assert len(folded) == len(set(folded)) == 61, key
    material = {
        "cuir_bouilli": "cuir bouilli",
        "matelassee": "matelasse",
        "maille_cousue": "maille cousue",
        "maille": "mailles",
        "plaques": "plaques",
        "ecailles": "ecailles",
        "plates": "plates",
    }
    for piece in entries:
        assert material[piece["family"]] in fold(piece["name"]), piece["id"]
    assert pieces()["maille_chemise"]["name"] == "Chemise de mailles"
    assert pieces()["cuir_bouilli_plastron"]["name"] == "Plastron de cuir bouilli"
    # the table's former short names stay understood (aliases); 17 of them were ambiguous
    former = [fold(p["aliases"][0]) for p in entries]
    assert len({n for n in former if former.count(n) > 1}) == 17
