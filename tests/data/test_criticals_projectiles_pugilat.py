"""Critical-effect tables (renove): projectiles and pugilat.

The expected mechanics pinned below are read from the seed
``000_69d044075d6a247e.txt`` (lines 3041-3323 for projectiles, 3325-3591 for pugilat).
"""

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.data_loading import DATA_DIR, validate_file

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_69d044075d6a247e.txt"
KINDS = ["projectiles", "pugilat"]
ZONES = ["jambes", "bras", "corps", "tete"]
DICE = re.compile(r"^[1-9][0-9]*d[1-9][0-9]*(/[1-9][0-9]*)?$")


@cache
def _table(kind: str) -> dict[str, Any]:
    return dict(validate_file(DATA_DIR / f"criticals_{kind}.json").document)


def _entry(kind: str, zone: str, value: int) -> dict[str, Any]:
    for entry in _table(kind)["entries"]:
        if entry["zone"] == zone and entry["value"] == value:
            return entry
    raise AssertionError(f"{kind} {zone} {value} missing")


def _amounts(node: Any, key: str | None = None) -> list[Any]:
    """Every amount-like value (amount, every, per, metres) found in a mechanics tree."""
    found: list[Any] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in {"amount", "every", "per", "metres"} and not isinstance(v, dict):
                found.append(v)
            else:
                found.extend(_amounts(v, k))
    elif isinstance(node, list):
        for item in node:
            found.extend(_amounts(item, key))
    return found


# --- small constructors for the pinned expectations -------------------------------------------
def rounds(n: Any) -> dict[str, Any]:
    return {"amount": n, "unit": "round"}


EOC = {"until": "end_of_combat"}
HEALED = {"until": "healed"}
TREATED = {"until": "treated"}
FALL = {"type": "fall"}
DROP = {"type": "drop_item", "what": "held"}
DEATH = {"type": "death"}
HALF = {"type": "lose_time", "amount": 1, "unit": "half_round"}
UNCONSCIOUS = {"type": "unconscious", "duration": TREATED}
BE = {"amount": {"characteristic": "BE"}, "unit": "round"}
BE2 = {"amount": {"characteristic": "BE", "multiply_by": 2}, "unit": "round"}
BLEEDING = {
    "type": "bleeding",
    "characteristic": "E",
    "modifier": -10,
    "every": 1,
    "step": -10,
    "on_failure": [UNCONSCIOUS],
}


def lose(n: Any) -> dict[str, Any]:
    return {"type": "lose_time", "amount": n, "unit": "round"}


def cc(value: int, duration: dict[str, Any]) -> dict[str, Any]:
    return {"type": "modifier", "stat": "CC", "value": value, "duration": duration}


def no_action(n: Any) -> dict[str, Any]:
    return {"type": "no_action", "duration": rounds(n)}


def perm(stat: str, value: int, **extra: Any) -> dict[str, Any]:
    return {"type": "permanent", "stat": stat, "operation": "add", "value": value, **extra}


# --- structure --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_file_validates_with_envelope(kind: str) -> None:
    doc = _table(kind)
    assert doc["table"] == f"criticals_{kind}"
    assert doc["kind"] == kind
    assert doc["ruleset"] == "renove"
    assert doc["schema_version"] == 1
    assert doc["source"]["seed"] == "000_69d044075d6a247e.txt"
    assert doc["notes"]


@pytest.mark.parametrize("kind", KINDS)
def test_sixty_entries_each_zone_value_once_in_order(kind: str) -> None:
    entries = _table(kind)["entries"]
    assert len(entries) == 60
    keys = [(e["zone"], e["value"]) for e in entries]
    assert keys == [(zone, value) for zone in ZONES for value in range(1, 16)]


@pytest.mark.parametrize("kind", KINDS)
def test_dice_strings_parse(kind: str) -> None:
    for entry in _table(kind)["entries"]:
        for amount in _amounts(entry["mechanics"]):
            assert isinstance(amount, int) or DICE.match(amount), (entry["zone"], entry["value"], amount)


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_has_mechanics_and_short_narration(kind: str) -> None:
    for entry in _table(kind)["entries"]:
        assert entry["mechanics"], (entry["zone"], entry["value"])
        for lang in ("fr", "en"):
            assert 0 < len(entry["narration"][lang]) <= 400


def _normalise(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ")
    return re.findall(r"[\w']+", text)


@pytest.mark.skipif(not SEED.is_file(), reason="seed text not available")
@pytest.mark.parametrize("kind", KINDS)
def test_narration_does_not_copy_the_seed(kind: str) -> None:
    seed = " " + " ".join(_normalise(SEED.read_text(encoding="utf-8"))) + " "
    for entry in _table(kind)["entries"]:
        words = _normalise(entry["narration"]["fr"])
        for i in range(len(words) - 7):
            run = " ".join(words[i : i + 8])
            assert f" {run} " not in seed, (entry["zone"], entry["value"], run)


# --- projectiles: pinned readings ------------------------------------------------------------
def test_projectiles_value_15_is_death_in_every_zone() -> None:
    for zone in ZONES:
        assert _entry("projectiles", zone, 15)["mechanics"] == [DEATH], zone


def test_projectiles_jambes_1() -> None:
    assert _entry("projectiles", "jambes", 1)["mechanics"] == [
        {"type": "test", "characteristic": "Ag", "modifier": 20, "on_failure": [FALL, HALF]}
    ]


def test_projectiles_jambes_4_restores_lost_minus_sign() -> None:
    assert _entry("projectiles", "jambes", 4)["mechanics"] == [
        {"type": "test", "characteristic": "E", "modifier": -10, "on_failure": [FALL, HALF]},
        cc(-5, rounds("1d10/2")),
    ]


def test_projectiles_jambes_9_success_halves_time() -> None:
    assert _entry("projectiles", "jambes", 9)["mechanics"] == [
        {
            "type": "test",
            "characteristic": "E",
            "modifier": -30,
            "on_failure": [FALL, lose("1d10")],
            "on_success": [lose("1d10/2")],
        },
        {"type": "disabled", "part": "leg", "duration": TREATED},
        {"type": "halve", "stat": "M", "duration": TREATED},
        cc(-25, EOC),
    ]


def test_projectiles_jambes_12_and_13_same_malus() -> None:
    j12 = _entry("projectiles", "jambes", 12)["mechanics"]
    assert j12 == [
        {"type": "disabled", "part": "foot", "lost": True, "duration": {"until": "permanent"}},
        FALL,
        no_action("1d10"),
        {"type": "test", "characteristic": "E", "modifier": 0, "after": BE, "on_failure": [UNCONSCIOUS]},
        {"type": "death_timer", "within": {"amount": "1d10", "unit": "hour"}, "unless": "healed"},
        {"type": "permanent", "stat": "M", "operation": "halve"},
        perm("Ag", -20),
    ]
    j13 = _entry("projectiles", "jambes", 13)["mechanics"]
    assert j13[0] == {"type": "death_timer", "within": rounds("1d10/2"), "unless": "healed"}
    assert j13[1] == {"type": "disabled", "part": "leg", "lost": True, "duration": {"until": "permanent"}}
    assert j13[2:] == [e for e in j12[1:] if e["type"] != "death_timer"]


def test_projectiles_jambes_11_toes() -> None:
    mechanics = _entry("projectiles", "jambes", 11)["mechanics"]
    assert mechanics[0] == perm("Ag", -2, per="1d10/2")
    assert mechanics[1]["type"] == "gm_ruling" and mechanics[1]["code"] == "big_toe_on_10"
    assert mechanics[2:] == [FALL, cc(-20, rounds("1d10"))]


def test_projectiles_bras_10_shoulder_bleeding() -> None:
    assert _entry("projectiles", "bras", 10)["mechanics"] == [
        DROP,
        {"type": "test", "characteristic": "FM", "modifier": 0, "on_failure": [FALL]},
        {
            "type": "test",
            "characteristic": "E",
            "modifier": 0,
            "after": BE2,
            "on_failure": [UNCONSCIOUS],
            "on_success": [BLEEDING],
        },
        cc(-20, EOC),
        {"type": "modifier", "stat": "F", "value": -20, "duration": EOC},
    ]


def test_projectiles_bras_13_forearm() -> None:
    assert _entry("projectiles", "bras", 13)["mechanics"] == [
        UNCONSCIOUS,
        {"type": "death_timer", "within": rounds("1d10/2"), "unless": "healed"},
        {"type": "disabled", "part": "arm", "lost": True, "duration": {"until": "permanent"}},
        {"type": "permanent", "stat": "Ag", "operation": "halve"},
    ]


def test_projectiles_corps_7_and_10() -> None:
    assert _entry("projectiles", "corps", 7)["mechanics"] == [
        {
            "type": "test",
            "characteristic": "E",
            "modifier": -30,
            "on_failure": [lose("1d10")],
            "on_success": [lose("1d10/2")],
        },
        cc(-20, rounds("1d10")),
    ]
    assert _entry("projectiles", "corps", 10)["mechanics"] == [
        {
            "type": "test",
            "characteristic": "E",
            "modifier": 0,
            "after": BE2,
            "on_failure": [UNCONSCIOUS],
            "on_success": [BLEEDING],
        },
        cc(-20, EOC),
        {"type": "modifier", "stat": "F", "value": -20, "duration": EOC},
        {"type": "death_timer", "within": {"amount": 24, "unit": "hour"}, "unless": "healed"},
    ]


def test_projectiles_tete_8_nose_and_13_eye() -> None:
    t8 = _entry("projectiles", "tete", 8)["mechanics"]
    assert t8[:3] == [no_action("1d10"), cc(-30, EOC), perm("Soc", -5)]
    assert t8[4:] == [
        perm("intimidation", 3),
        {"type": "modifier", "stat": "all_tests", "value": -10, "duration": HEALED},
    ]
    t13 = _entry("projectiles", "tete", 13)["mechanics"]
    assert t13[:5] == [
        {"type": "death_timer", "within": rounds("1d10/2"), "unless": "healed"},
        {"type": "disabled", "part": "eye", "lost": True, "duration": {"until": "permanent"}},
        perm("Soc", -15),
        perm("intimidation", 8),
        perm("CT", -15),
    ]


def test_projectiles_tete_12_throat_and_corps_12_belly() -> None:
    for zone in ("corps", "tete"):
        assert _entry("projectiles", zone, 12)["mechanics"] == [
            {"type": "death_timer", "within": rounds("1d10"), "unless": "treated"}
        ]


# --- pugilat: pinned readings ----------------------------------------------------------------
PARALYSIS_TEST = {"type": "test", "characteristic": "E", "modifier": -20}


def _is_paralysis_test(effect: dict[str, Any]) -> bool:
    return {k: effect[k] for k in ("type", "characteristic", "modifier")} == PARALYSIS_TEST and [
        e.get("code") for e in effect["on_failure"]
    ] == ["permanent_paralysis"]


def test_pugilat_value_15_is_death_in_every_zone() -> None:
    for zone in ZONES:
        assert _entry("pugilat", zone, 15)["mechanics"] == [DEATH], zone


def test_pugilat_value_14() -> None:
    # Broken spine: paralysis on a failed E -20 % test, no death (limbs and body); crushed windpipe (head).
    jambes = _entry("pugilat", "jambes", 14)["mechanics"]
    assert jambes[0] == FALL and _is_paralysis_test(jambes[1]) and len(jambes) == 2
    for zone in ("bras", "corps"):
        mechanics = _entry("pugilat", zone, 14)["mechanics"]
        assert len(mechanics) == 1 and _is_paralysis_test(mechanics[0]), zone
    assert _entry("pugilat", "tete", 14)["mechanics"] == [DEATH]


def test_pugilat_jambes_1_and_11() -> None:
    assert _entry("pugilat", "jambes", 1)["mechanics"] == [
        {"type": "test", "characteristic": "Ag", "modifier": 20, "on_failure": [FALL, HALF]}
    ]
    assert _entry("pugilat", "jambes", 11)["mechanics"] == [perm("Ag", -1, per="1d10/2"), FALL, cc(-20, EOC)]


def test_pugilat_jambes_12_and_13_same_malus() -> None:
    j12 = _entry("pugilat", "jambes", 12)["mechanics"]
    assert j12 == [FALL, no_action("1d10"), perm("Ag", -10), perm("M", -1)]
    assert _entry("pugilat", "jambes", 13)["mechanics"] == j12


def test_pugilat_bras_arm_tests_lose_time_only() -> None:
    assert _entry("pugilat", "bras", 1)["mechanics"] == [
        {"type": "test", "characteristic": "E", "modifier": 10, "on_failure": [HALF]}
    ]
    assert _entry("pugilat", "bras", 8)["mechanics"] == [
        {
            "type": "test",
            "characteristic": "E",
            "modifier": -30,
            "on_failure": [lose("1d10")],
            "on_success": [lose("1d10/2")],
        },
        {"type": "disabled", "part": "arm", "duration": HEALED},
        cc(-20, rounds("1d10")),
    ]


def test_pugilat_bras_12_and_13_wrist() -> None:
    b12 = _entry("pugilat", "bras", 12)["mechanics"]
    assert [e["type"] for e in b12] == ["gm_ruling", "no_action"]
    assert b12[0]["code"] == "ag_malus_two_handed" and "-10 %" in b12[0]["text"]["fr"]
    assert b12[1] == no_action("1d10")
    assert _entry("pugilat", "bras", 13)["mechanics"] == b12


def test_pugilat_corps_11_liver_and_12_spleen() -> None:
    assert _entry("pugilat", "corps", 11)["mechanics"] == [
        {
            "type": "test",
            "characteristic": "E",
            "modifier": 0,
            "after": BE,
            "on_failure": [UNCONSCIOUS],
            "on_success": [BLEEDING],
        },
        no_action("1d10"),
        cc(-30, EOC),
    ]
    assert _entry("pugilat", "corps", 12)["mechanics"] == [
        {"type": "death_timer", "within": {"amount": 24, "unit": "hour"}, "unless": "healed"}
    ]


def test_pugilat_tete_8_nose_9_teeth_11_both() -> None:
    t8 = _entry("pugilat", "tete", 8)["mechanics"]
    assert t8 == [no_action("1d10"), cc(-30, EOC), perm("Soc", -5), perm("intimidation", 3)]
    t9 = _entry("pugilat", "tete", 9)["mechanics"]
    assert t9[:2] == [cc(-30, EOC), no_action("1d10")]
    assert t9[2]["code"] == "lost_teeth"
    assert _entry("pugilat", "tete", 11)["mechanics"] == [*t8, t9[2]]


def test_pugilat_tete_12_eye_and_13_strangled() -> None:
    t12 = _entry("pugilat", "tete", 12)["mechanics"]
    assert t12[-1] == {
        "type": "death_timer",
        "within": {"amount": "1d10", "unit": "hour"},
        "unless": "treated",
    }
    assert perm("CT", -15) in t12 and perm("Soc", -15) in t12 and perm("intimidation", 8) in t12
    assert _entry("pugilat", "tete", 13)["mechanics"] == [
        {"type": "stunned", "duration": HEALED},
        {"type": "death_timer", "within": rounds("1d10/2"), "unless": "healed"},
    ]


def test_projectiles_corps_9_bladder_infection() -> None:
    mechanics = _entry("projectiles", "corps", 9)["mechanics"]
    assert mechanics[0] == {
        "type": "death_timer",
        "within": {"amount": "2d10", "unit": "day"},
        "unless": "healed",
    }
    assert mechanics[1]["code"] == "infection_deadline_48h"
    assert mechanics[2:] == [no_action("1d10"), cc(-30, EOC)]
