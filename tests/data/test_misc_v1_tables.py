"""Seed 000 "IV – Divers" and test-rule tables (renove) and seed 001 tables (v1): pinned readings."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.data.pinned import by_id, check_ids_unique, check_owned_table, doc, entries

OWNED = [
    "opposed_skills",
    "secret_tests",
    "v1_margin_bands",
    "v1_standard_tests",
    "v1_combat",
    "v1_hit_location",
    "extended_tests",
    "interrogation",
    "chases",
    "jumps",
    "income",
    "prices",
    "tavern_games",
    "fortune_destiny",
]


@pytest.mark.parametrize("name", OWNED)
def test_file_validates_and_has_notes(name: str) -> None:
    check_owned_table(name)


@pytest.mark.parametrize("name", [n for n in OWNED if entries(n)])
def test_ids_unique(name: str) -> None:
    check_ids_unique(name)


# --- opposed skills -----------------------------------------------------------------------------


def test_opposed_skills_pairs() -> None:
    pairs = {(e["skill"], e["opposed_by"]) for e in entries("opposed_skills")}
    assert len(pairs) == 12
    for pair in [
        ("Dissimulation", "Perception"),
        ("Déplacement silencieux", "Perception"),
        ("Déguisement", "Perception"),
        ("Filature", "Perception"),
        ("Jeu", "Perception"),
        ("Escamotage", "Perception"),
        ("Charisme", "FM"),
        ("Torture", "FM"),
        ("Intimidation", "FM"),
        ("Baratin", "FM"),
        ("Hypnotisme", "FM"),
        ("Marchandage", "Marchandage"),
    ]:
        assert pair in pairs


def test_opposed_skills_grid_positions_cover_three_by_four() -> None:
    cells = {(e["printed_column"], e["printed_row"]) for e in entries("opposed_skills")}
    assert cells == {(c, r) for c in (1, 2, 3) for r in (1, 2, 3, 4)}


def test_opposed_skills_work_with_the_opposed_module() -> None:
    from bot.rules.opposed import OppositionEntry, opposing_skills

    table = [OppositionEntry(e["skill"], e["opposed_by"]) for e in entries("opposed_skills")]
    assert opposing_skills("Perception", table) == (
        "Dissimulation",
        "Déplacement silencieux",
        "Déguisement",
        "Filature",
        "Jeu",
        "Escamotage",
    )
    assert opposing_skills("Marchandage", table) == ("Marchandage",)


# --- secret tests -------------------------------------------------------------------------------


def test_secret_tests_list() -> None:
    rows = entries("secret_tests")
    assert len(rows) == 15
    assert len({r["printed_position"] for r in rows}) == 12
    always = {r["skill"] for r in rows if r["always"]}
    assert always == {"Interrogatoires", "Évaluation", "Fouille", "Orientation", "Pistage"}
    starred = {r["skill"] for r in rows if r["asterisk"]}
    assert {"Perception", "Filature", "Déplacement silencieux", "Connaissances académiques"} <= starred
    assert all(r["always"] is not r["asterisk"] for r in rows)


def test_secret_tests_work_with_the_renove_module() -> None:
    from bot.rules.renove.checks import Secrecy, SecretTest, secrecy

    table = [SecretTest(r["skill"], r["always"]) for r in entries("secret_tests")]
    assert secrecy("Fouille", table) is Secrecy.ALWAYS
    assert secrecy("Perception", table) is Secrecy.SOMETIMES
    assert secrecy("Escalade", table) is Secrecy.NEVER


# --- v1 margin bands ----------------------------------------------------------------------------


def test_v1_margin_bands() -> None:
    d = doc("v1_margin_bands")
    assert d["critical_success"] == {"min": 1, "max": 5, "always": True}
    assert d["critical_failure"] == {"min": 96, "max": 100, "always": True}
    for outcome in ("success", "failure"):
        bands = [e for e in d["entries"] if e["outcome"] == outcome]
        assert [(b["margin_min"], b["margin_max"]) for b in bands] == [(0, 19), (20, 49), (50, None)]
    names = {e["id"]: e["name"] for e in d["entries"]}
    assert names["narrow_success"] == "de justesse"
    assert names["dazzling_success"] == "éblouissante"
    assert names["severe_failure"] == "cuisant / inquiétant"
    assert names["resounding_failure"] == "retentissant / tragique"


def test_v1_margin_band_ids_match_the_v1_module() -> None:
    from bot.rules.v1.checks import Band

    assert {e["id"] for e in entries("v1_margin_bands")} == {b.value for b in Band}


# --- v1 standard tests --------------------------------------------------------------------------


def test_v1_standard_tests_count_and_order() -> None:
    rows = entries("v1_standard_tests")
    assert len(rows) == 35
    assert rows[0]["action"] == "Animosité"
    assert rows[-1]["action"] == "Vol à la tire"


def test_v1_standard_tests_pins() -> None:
    rows = by_id("v1_standard_tests")
    bluff = rows["bluff"]
    assert (bluff["characteristic"], bluff["multiplier"], bluff["fixed_target"]) == ("Soc", 1, None)
    assert bluff["helpful_skills"][:2] == ["Bouffonneries", "Charisme"]
    force = rows["force"]
    assert (force["characteristic"], force["multiplier"], force["fixed_target"]) == ("F", 10, None)
    discretion = rows["discretion"]
    assert (discretion["characteristic"], discretion["fixed_target"]) == (None, 30)
    assert discretion["helpful_skills"] == ["Camouflage", "Déplacement silencieux"]
    assert rows["risque"]["fixed_target"] == 50
    assert (rows["contagion"]["characteristic"], rows["contagion"]["multiplier"]) == ("E", 10)
    assert rows["ecoute"]["target_range"] == {"min": 30, "max": 100}
    assert rows["bond"]["roll_formula"] == {
        "quantity": "jump_distance_m",
        "expression": "2*M-1d6",
        "minimum": 2,
    }
    assert rows["dissimulation"]["formula"]["base_characteristic"] == "I"


def test_v1_standard_tests_work_with_the_v1_module() -> None:
    from bot.rules.v1.checks import StandardTest, find_standard_test

    table = [StandardTest.from_dict(r) for r in entries("v1_standard_tests")]
    sheet = {"Soc": 35, "F": 4, "E": 3, "FM": 41, "Cl": 29}
    assert find_standard_test("Bluff", table).base(sheet) == (35, "Soc")
    assert find_standard_test("Force", table).base(sheet) == (40, "F × 10")
    assert find_standard_test("Discrétion", table).base(sheet)[0] == 30
    assert find_standard_test("Hypnose", table).base(sheet)[0] == 41
    assert not find_standard_test("Crochetage", table).computable


# --- v1 combat ----------------------------------------------------------------------------------


def test_v1_combat_values() -> None:
    d = doc("v1_combat")
    drawing = {row["id"]: row["cost"] for row in d["drawing"]}
    assert drawing["knife_dagger"] == {"initiative": -10}
    assert drawing["sword_other_simple"] == {"initiative": -20}
    assert drawing["two_handed_missile_spells"] == {"rounds": 1, "full": True}
    staggered = next(m for m in d["multiple_attacks"]["methods"] if m["id"] == "staggered")
    assert staggered["offsets"] == [0, -10, -20, -30]
    assert d["bare_hands"] == {
        "skill": "Bagarre",
        "attack_modifier_without_skill": -20,
        "damage_modifier": -3,
        "armour_multiplier": 2,
        "always_stunning": True,
    }
    assert d["stunning"]["chance_percent"]["per_point"] == 5
    assert d["stunning"]["skill_bonus"] == 20
    assert d["stunning"]["duration"] == {"dice": "(10-E)d10", "unit": "minute"}
    assert d["damage"]["die"] == "1d6"
    assert d["damage"]["add"] == ["F", "weapon_bonus"]
    assert d["ranged"]["aimed_shot"]["modifiers"] == [
        {"locations": ["head", "arm"], "modifier": -20},
        {"locations": ["body", "leg"], "modifier": -10},
    ]
    # seed lines 92-93: « portée longue (PL) inflige -1 pts D » and « portée extrême (PE) inflige
    # -2 pts D (et demande 1 Rd de préparation supplémentaire) » — the seed is not cut there
    assert d["ranged"]["range_damage"] == [
        {"range": "long", "damage": -1},
        {"range": "extreme", "damage": -2, "preparation_rounds": 1},
    ]
    assert d["ranged"]["truncated"] is False
    assert not any("s'arrête" in note for note in d["notes"])


# --- v1 hit location ----------------------------------------------------------------------------


def test_v1_hit_location_bands_contiguous() -> None:
    d = doc("v1_hit_location")
    assert d["is_reading"] is True
    rows = d["entries"]
    assert rows[0]["min"] == 1
    assert rows[-1]["max"] == 100
    for before, after in itertools.pairwise(rows):
        assert after["min"] == before["max"] + 1
    assert [(r["id"], r["min"], r["max"]) for r in rows] == [
        ("head", 1, 15),
        ("right_arm", 16, 35),
        ("left_arm", 36, 55),
        ("body", 56, 80),
        ("right_leg", 81, 90),
        ("left_leg", 91, 100),
    ]


# --- extended tests -----------------------------------------------------------------------------


def test_extended_tests() -> None:
    d = doc("extended_tests")
    assert d["example"] == {
        "skill": "Crochetage",
        "attempts": 6,
        "successes_needed": 3,
        "time_per_test": {"amount": 1, "unit": "round"},
    }
    rows = by_id("extended_tests")
    assert list(rows) == [
        "crochetage",
        "connaissances_academiques",
        "preparation_poisons_potions",
        "soins",
        "intimidation_torture",
    ]
    assert rows["crochetage"]["time_per_test"] == {"amount": 10, "unit": "second"}
    assert rows["connaissances_academiques"]["time_per_test"] == {"amount": 4, "unit": "hour"}
    assert rows["soins"]["time_per_test"] is None
    assert rows["intimidation_torture"]["reveals_per_success"] == 1


# --- interrogation ------------------------------------------------------------------------------


def highest_tier_reluctant(int_success: bool, int_deg: int, fm_success: bool, fm_deg: int) -> int | None:
    """The reading stored in interrogation.json: tiers 0..N, N = °R(Int) − °R(FM) if FM succeeded."""
    if not int_success:
        return None
    net = int_deg - fm_deg if fm_success else int_deg
    return None if net < 0 else min(net, 3)


def test_interrogation_rule_fields() -> None:
    d = doc("interrogation")
    assert [e["tier"] for e in d["entries"]] == [0, 1, 2, 3]
    assert d["reluctant"]["test"] == "Intimidation"
    assert d["reluctant"]["opposed_by"] == "FM"
    assert d["willing"]["free_tiers"] == [0]
    assert d["willing"]["highest_tier_on_success"] == {"degrees_plus": 1}
    assert d["torture"]["degrees_add_to"] == "Intimidation"
    assert d["discreet"] == {**d["discreet"], "test": "Charisme", "torture_allowed": False}
    assert d["extended_alternative"]["extended_test_id"] in by_id("extended_tests")


def test_interrogation_example_arnolf() -> None:
    ex = doc("interrogation")["example"]
    assert ex["interrogator"] == "Arnolf"
    assert (ex["interrogator_roll"], ex["interrogator_degrees"]) == (22, 2)
    assert (ex["subject_success"], ex["subject_degrees"]) == (True, 0)
    assert ex["tiers_revealed"] == [0, 1, 2]
    lo, hi = ex["interrogator_target_range"]["min"], ex["interrogator_target_range"]["max"]
    assert all((t - 22) // 10 == 2 for t in range(lo, hi + 1))
    assert (lo - 1 - 22) // 10 == 1 and (hi + 1 - 22) // 10 == 3
    top = highest_tier_reluctant(True, ex["interrogator_degrees"], True, ex["subject_degrees"])
    assert top == ex["net_degrees"] == 2
    assert list(range(top + 1)) == ex["tiers_revealed"]


# --- chases -------------------------------------------------------------------------------------


def replay_movement(rules: dict[str, Any], r: dict[str, Any]) -> tuple[int, int]:
    """(penalty, distance) of one movement result, from the rules in chases.json."""
    mt = rules["movement_test"]
    target = r["effective_M"] * mt["target"]["multiply_by"]
    full = r["effective_M"] * mt["distance"]["multiply_by"]
    modified = r["roll"] + r["endurance_add"]
    if modified <= target:
        return 0, full
    over = modified - target
    if r["ag_test"] is None:
        penalty = over // mt["failure_penalty_divisor"]
    elif r["ag_test"]["success"]:
        penalty = 0
    else:
        penalty = over // mt["failure_ag_test"]["on_failure_penalty_divisor"]
    return penalty, max(mt["minimum_distance"], full - penalty)


def test_chase_rules() -> None:
    rules = doc("chases")["rules"]
    assert rules["flee_talent"]["M_bonus"] == 1
    assert rules["movement_test"]["target"] == {"characteristic": "M", "multiply_by": 10}
    assert rules["movement_test"]["distance"]["multiply_by"] == 6
    assert rules["movement_test"]["failure_penalty_divisor"] == 4
    assert rules["movement_test"]["failure_ag_test"]["on_failure_penalty_divisor"] == 2
    assert rules["endurance"]["per_failure"] == {
        "movement_roll_add": 10,
        "Ag_modifier": -10,
        "E_modifier": -10,
    }
    assert rules["endurance"]["every_rounds"] == {"characteristic": "BE", "divide_by": 2, "rounding": "up"}


def test_chase_example_first_round() -> None:
    ex = doc("chases")["example"]
    assert ex["initial_lead_m"] == 10
    first = ex["steps"][0]
    got = {
        r["participant"]: (r["roll"], r["target"], r["outcome"], r["distance_m"]) for r in first["results"]
    }
    assert got == {
        "abel": (26, 50, "success", 30),
        "garde_1": (31, 40, "success", 24),
        "garde_2": (100, 40, "critical_failure", 0),
    }
    assert (first["lead_gain_m"], first["lead_after_m"]) == (6, 16)


def test_chase_example_replays_from_its_rolls() -> None:
    d = doc("chases")
    rules, ex = d["rules"], d["example"]
    lead = ex["initial_lead_m"]
    out: set[str] = set()
    failed_e: dict[str, int] = {}
    base_m = {p["id"]: p["M"] for p in ex["participants"]}
    flee_rounds_left = 2  # BE/2 rounded up for Abel (BE 3 or 4, see notes)
    for step in ex["steps"]:
        if step["kind"] == "endurance":
            for r in step["results"]:
                if not r["success"]:
                    failed_e[r["participant"]] = failed_e.get(r["participant"], 0) + 1
            continue
        if step["kind"] != "movement":
            continue
        dist: dict[str, int] = {}
        for r in step["results"]:
            p = r["participant"]
            assert p not in out
            m = base_m[p] + (rules["flee_talent"]["M_bonus"] if p == "abel" and flee_rounds_left > 0 else 0)
            assert r["effective_M"] == m
            assert r["target"] == m * 10
            assert r["endurance_add"] == 10 * failed_e.get(p, 0)
            assert r["modified_roll"] == r["roll"] + r["endurance_add"]
            if r["outcome"] == "critical_failure":
                assert r["roll"] >= 99 and r["out"]
                out.add(p)
                dist[p] = 0
                continue
            assert (r["outcome"] == "success") == (r["modified_roll"] <= r["target"])
            assert replay_movement(rules, r) == (r["penalty_m"], r["distance_m"])
            dist[p] = r["distance_m"]
        flee_rounds_left -= 1
        chasers = [p for p in dist if p != "abel" and p not in out]
        gain = dist["abel"] - max(dist[p] for p in chasers)
        assert gain == step["lead_gain_m"]
        lead += gain
        assert lead == step["lead_after_m"]
    assert lead == ex["final_lead_m"] == 4
    assert [s["lead_after_m"] for s in ex["steps"] if s["kind"] == "movement"] == [16, 19, 19, 4]
    assert [s["step"] for s in ex["steps"]] == [1, 2, 3, 4, 5, 6, 7]


# --- jumps --------------------------------------------------------------------------------------


def test_jump_height_bands() -> None:
    d = doc("jumps")
    rows = d["entries"]
    assert len(rows) == 9
    assert rows[0]["height_min_m"] == 0
    assert rows[-1]["height_max_m"] is None
    for before, after in itertools.pairwise(rows):
        assert after["height_min_m"] == before["height_max_m"]
    assert [r["ag_modifier"] for r in rows[1:-1]] == [30, 20, 10, 0, -10, -20, -30]
    assert [r["damage_on_failure"] for r in rows] == [None, 2, 3, 3, 4, 4, 5, 5, 6]
    assert (rows[0]["outcome"], rows[-1]["outcome"]) == ("auto_success", "auto_failure")
    assert rows[-1]["damage_open_ended"] is True
    assert d["light_armour_damage_reduction"] == 1
    lj = d["long_jump"]
    assert lj["max_distance_m"] == {"expression": "(BF+M)/2"}
    assert lj["on_failure"] == {"lose_m": 0.5, "lose_m_per_degree": 0.5}
    assert lj["without_run_up_divisor"] == 2


# --- income -------------------------------------------------------------------------------------


def test_income_levels() -> None:
    rows = entries("income")
    assert [r["name"] for r in rows] == [
        "Miséreux",
        "Pauvre",
        "Moyen",
        "Honnête",
        "Bon",
        "Très bon",
        "Excellent",
        "Hors du commun",
        "Nanti",
        "Richissime",
    ]
    assert [r["level"] for r in rows] == list(range(1, 11))
    first, poor, wealthy, richest = rows[0], rows[1], rows[8], rows[9]
    assert first["per_year"] == {"min": 0.5, "max": 5, "printed": "½-5"}
    assert (poor["per_day"]["min"], poor["per_day"]["max"]) == (5, 10)
    assert (wealthy["per_week"]["min"], wealthy["per_week"]["max"]) == (1200, 4500)
    assert richest["per_week"] == {"min": 5000, "max": None, "printed": "5 000+"}
    assert "Garde" in poor["careers_examples"]
    for r in rows:
        for col in ("per_day", "per_week", "per_month", "per_year"):
            rng = r[col]
            assert rng["max"] is None or rng["min"] <= rng["max"]


# --- prices -------------------------------------------------------------------------------------


def price_of(name: str, category: str, family: str | None = None) -> dict[str, Any] | None:
    for e in entries("prices"):
        if e["name"] == name and e["category"] == category and e["family"] == family:
            return e["price"]
    raise KeyError(name)


def test_prices_counts() -> None:
    rows = entries("prices")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    assert counts == {
        "armour": 69,
        "melee_weapons": 28,
        "ammunition": 8,
        "ranged_weapons": 24,
        "services": 10,
        "transport": 9,
        "miscellaneous": 28,
        "inn": 17,
        "foodstuffs": 7,
    }
    assert sum(1 for r in rows if r["full_set"]) == 7


def test_prices_pins() -> None:
    assert price_of("Epée", "melee_weapons") == {"amount": 12, "unit": "pa"}
    assert price_of("Bâton*", "melee_weapons") == {"amount": 3, "unit": "s"}
    assert price_of("Arquebuse", "ranged_weapons") == {"amount": 5, "unit": "co"}
    assert price_of("Arc Elfique", "ranged_weapons") is None
    assert price_of("Tromblon", "ranged_weapons") == {"amount": 22, "unit": "pa"}
    assert price_of("Location cheval", "services") == {"amount": 10, "unit": "s"}
    assert price_of("Aiguisage", "services") == {"min": 2, "max": 8, "unit": "s"}
    assert price_of("Dés pipés (2)", "miscellaneous") == {"amount": 3, "unit": "s"}
    assert price_of("Bière (pinte : 33cl)", "inn") == {"amount": 1, "unit": "s"}
    assert price_of("Repas (très bon)", "foodstuffs") == {"amount": 10, "unit": "s"}
    assert price_of("Haubert", "armour", "Maille") == {"amount": 75, "unit": "pa"}
    assert price_of("Manteau", "armour", "Ecailles") == {"amount": 5, "unit": "co"}
    assert price_of("Heaume", "armour", "Plates") == {"amount": 30, "unit": "pa"}
    assert price_of("Flèches/Carreaux bodkin", "ammunition") == {
        "variants": [
            {"variant": "flèches", "amount": 6, "unit": "s"},
            {"variant": "carreaux", "amount": 8, "unit": "s"},
        ]
    }


def test_prices_full_sets_match_their_pieces() -> None:
    """The family-header reading: a full set costs the sum of one suit's pieces (in pa)."""
    cur = {c["unit"]: c["value_in_s"] for c in doc("prices")["currencies"]}

    def pa(name: str, family: str) -> float:
        p = price_of(name, "armour", family)
        assert p is not None and "amount" in p
        return p["amount"] * cur[p["unit"]] / cur["pa"]

    assert pa("Ecailles", "Ecailles") == pa("Cotte", "Ecailles") + pa("Jambières", "Ecailles")
    assert pa("Maille", "Maille") == pa("Cotte", "Maille") + pa("Jambières", "Maille") + pa(
        "Camail", "Maille"
    )
    assert pa("Plaques", "Plaques") == pa("Cotte", "Plaques") + pa("Jambières", "Plaques")
    plates = ["Heaume", "Plastron", "Gantelet", "Canon d’avant bras", "Canon d’arrière bras"]
    plates += ["Spallières", "Cuissots", "Genouillères", "Grèves", "Bottes"]
    assert pa("Plates", "Plates") == sum(pa(n, "Plates") for n in plates)


def test_currencies() -> None:
    cur = {c["unit"]: c for c in doc("prices")["currencies"]}
    assert set(cur) == {"co", "pa", "s", "liard"}
    assert cur["co"]["value_in_s"] == 240 and cur["pa"]["value_in_s"] == 12
    assert cur["liard"]["value_in_s"] is None
    assert cur["liard"]["metal"] == "bronze"


# --- tavern games -------------------------------------------------------------------------------


def test_tavern_games() -> None:
    rows = by_id("tavern_games")
    assert set(rows) == {
        "arm_wrestling_simple",
        "arm_wrestling_full",
        "cards_simple",
        "cards_full",
        "dice_simple",
        "dice_full",
        "drinking",
        "knife_throwing",
    }
    arm = rows["arm_wrestling_full"]
    assert (arm["score"]["win_at"], arm["score"]["lose_at"]) == (2, -2)
    assert arm["cheating"]["effect"] == {"F_bonus_this_round": 10}
    assert rows["cards_simple"]["skill_bonus"]["divide_by"] == 2
    assert rows["cards_simple"]["cheating"]["effect"] == {"skill_bonus_multiplier": 2}
    decks = {d["players"]: d["cards"] for d in rows["cards_full"]["deck_sizes"]}
    assert decks == {3: 32, 4: 32, 5: 40, 6: 44, 7: 48, 8: 52}
    assert rows["cards_full"]["cheating"]["max_hidden_cards"] == 2
    low_to_high = [r["low_to_high"] for r in rows["cards_full"]["hand_rankings"]]
    assert low_to_high[0][5:7] == ["Full", "Carré"] and low_to_high[1][5:7] == ["Couleur", "Full"]
    assert len(rows["dice_full"]["hand_rankings"][0]["low_to_high"]) == 8
    assert rows["dice_full"]["cheating"]["effect"]["check_dice"] == "1d20"
    assert rows["drinking"]["elimination"] == {"failures": 4}
    knives = rows["knife_throwing"]
    assert knives["throws"] == 3
    assert knives["score"] == {"on_success": "margin", "on_failure": "1d10", "highest_total_wins": True}


# --- fortune / destiny --------------------------------------------------------------------------


def test_fortune_destiny() -> None:
    rows = by_id("fortune_destiny")
    assert rows["destiny"]["uses"] == ["avoid_death", "avoid_paralysis"]
    assert "avoid_limb_loss" in rows["destiny"]["cannot"]
    assert rows["fortune"]["gm_approval"] is True
    assert "avoid_critical_failure_effects" in rows["fortune"]["cannot"]
    assert len(rows["fortune"]["examples"]) == 5
