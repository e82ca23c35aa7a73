"""Critical-effect tables (renove) for edged (tranchantes) and blunt (contondantes) weapons."""

import json
import re
from pathlib import Path

import pytest

from bot.data_loading import DATA_DIR, validate_file

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_69d044075d6a247e.txt"
KINDS = ["tranchantes", "contondantes"]
ZONES = ["jambes", "bras", "corps", "tete"]
DICE = re.compile(r"^[1-9][0-9]*d[1-9][0-9]*(/[1-9][0-9]*)?$")


def _path(kind: str) -> Path:
    return DATA_DIR / f"criticals_{kind}.json"


def _doc(kind: str) -> dict:
    return json.loads(_path(kind).read_text(encoding="utf-8"))


def _entry(kind: str, zone: str, value: int) -> dict:
    (entry,) = [e for e in _doc(kind)["entries"] if e["zone"] == zone and e["value"] == value]
    return entry


def _mech(kind: str, zone: str, value: int) -> list:
    return _entry(kind, zone, value)["mechanics"]


def _walk(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def _types(mechanics: list) -> set[str]:
    return {n["type"] for n in _walk(mechanics) if isinstance(n.get("type"), str)}


def R(n):
    return {"amount": n, "unit": "round"}


EOC = {"until": "end_of_combat"}
HEALED = {"until": "healed"}
TREATED = {"until": "treated"}
PERM = {"until": "permanent"}
UNCONSCIOUS = {"type": "unconscious", "duration": TREATED}
FALL = {"type": "fall"}
DROP = {"type": "drop_item", "what": "held"}
HALF = {"type": "lose_time", "amount": 1, "unit": "half_round"}


def lose(amount):
    return {"type": "lose_time", "amount": amount, "unit": "round"}


def cc(value, duration):
    return {"type": "modifier", "stat": "CC", "value": value, "duration": duration}


def e_test(mod, fail, success=None, after=None):
    t = {"type": "test", "characteristic": "E", "modifier": mod}
    if after is not None:
        t["after"] = {"amount": after, "unit": "round"}
    t["on_failure"] = fail
    if success is not None:
        t["on_success"] = success
    return t


REPEAT = [
    {
        "type": "bleeding",
        "characteristic": "E",
        "modifier": -10,
        "every": 1,
        "step": -10,
        "on_failure": [UNCONSCIOUS],
    }
]
BE = {"characteristic": "BE"}
BE2 = {"characteristic": "BE", "multiply_by": 2}


def timer(amount, unit, unless="healed"):
    return {"type": "death_timer", "within": {"amount": amount, "unit": unit}, "unless": unless}


# ---------------------------------------------------------------- structure


@pytest.mark.parametrize("kind", KINDS)
def test_validates(kind):
    table = validate_file(_path(kind))
    assert table.name == f"criticals_{kind}"
    assert table.schema == "criticals"
    doc = table.document
    assert doc["kind"] == kind
    assert doc["ruleset"] == "renove"
    assert doc["source"]["seed"] == SEED.name
    assert len(doc["notes"]) >= 10


@pytest.mark.parametrize("kind", KINDS)
def test_sixty_entries_each_zone_value_once_in_order(kind):
    entries = _doc(kind)["entries"]
    assert len(entries) == 60
    keys = [(e["zone"], e["value"]) for e in entries]
    assert keys == [(z, v) for z in ZONES for v in range(1, 16)]


@pytest.mark.parametrize("kind", KINDS)
def test_dice_strings_parse(kind):
    for node in _walk(_doc(kind)["entries"]):
        for key in ("amount", "per", "every", "metres"):
            value = node.get(key)
            if isinstance(value, str):
                assert DICE.match(value), (kind, key, value)
            elif isinstance(value, int):
                assert value > 0


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_has_mechanics_and_value_15_is_death(kind):
    for e in _doc(kind)["entries"]:
        assert e["mechanics"], (e["zone"], e["value"])
    for zone in ZONES:
        # The seed: 14 and 15 kill outright in every zone of both tables.
        assert _mech(kind, zone, 15) == [{"type": "death"}]
        assert _mech(kind, zone, 14) == [{"type": "death"}]
        for value in range(1, 14):
            assert "death" not in _types(_mech(kind, zone, value)), (zone, value)


@pytest.mark.parametrize("kind", KINDS)
def test_severity_is_monotonic_in_cc_malus(kind):
    """Rows were aligned by count: the CC malus never decreases from 1 to 8 within a zone.

    From 9 on, the seed trades CC malus for other losses.
    """
    for zone in ZONES:
        previous = 0
        for value in range(1, 9):
            maluses = [
                -m["value"] for m in _mech(kind, zone, value) if m["type"] == "modifier" and m["stat"] == "CC"
            ]
            current = max(maluses, default=0)
            assert current >= previous, (zone, value)
            previous = current


@pytest.mark.parametrize("kind", KINDS)
def test_gm_rulings_are_few_and_known(kind):
    known = {
        "acts_last",
        "big_toe_on_10",
        "lost_fingers",
        "ag_malus_two_handed",
        "sterility",
        "permanent_paralysis",
        "infection_deadline_48h",
        "lost_teeth",
        "smell_perception_malus",
        "hearing_perception_malus",
        "sight_tests_malus",
        "temporary_deafness",
    }
    codes = [n["code"] for n in _walk(_doc(kind)["entries"]) if n.get("type") == "gm_ruling"]
    assert set(codes) <= known
    assert len(codes) <= 15


# ---------------------------------------------------------------- narration


def _words(text: str) -> list[str]:
    text = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    return re.findall(r"\w+", text)


@pytest.fixture(scope="module")
def seed_8grams() -> set[tuple[str, ...]]:
    if not SEED.is_file():  # the seeds sit beside the checkout (../shared), as in CI
        pytest.skip("seed text not available")
    words = _words(SEED.read_text(encoding="utf-8"))
    return {tuple(words[i : i + 8]) for i in range(len(words) - 7)}


@pytest.mark.parametrize("kind", KINDS)
def test_narration_is_our_own_words(kind, seed_8grams):
    for e in _doc(kind)["entries"]:
        for lang in ("fr", "en"):
            text = e["narration"][lang]
            assert 10 <= len(text) <= 400, (e["zone"], e["value"], lang)
        words = _words(e["narration"]["fr"])
        for i in range(len(words) - 7):
            assert tuple(words[i : i + 8]) not in seed_8grams, (e["zone"], e["value"], words[i : i + 8])


# ---------------------------------------------------------------- pinned entries: tranchantes


def test_tranchantes_jambes_pins():
    k = "tranchantes"
    assert _mech(k, "jambes", 1) == [
        {"type": "test", "characteristic": "Ag", "modifier": 20, "on_failure": [FALL, HALF]}
    ]
    # Quoted again in the seed's introduction (line 85).
    assert _mech(k, "jambes", 5) == [
        e_test(-10, [FALL, lose(2)]),
        cc(-10, R("1d10/2")),
    ]
    assert _mech(k, "jambes", 9) == [
        e_test(-30, [FALL, lose("1d10")], [lose("1d10/2")]),
        {"type": "disabled", "part": "leg", "duration": TREATED},
        {"type": "halve", "stat": "M", "duration": TREATED},
        cc(-25, EOC),
    ]
    m11 = _mech(k, "jambes", 11)
    assert {"type": "permanent", "stat": "Ag", "operation": "add", "value": -2, "per": "1d10/2"} in m11
    assert FALL in m11 and cc(-20, EOC) in m11
    m12 = _mech(k, "jambes", 12)
    assert m12 == [
        FALL,
        {"type": "no_action", "duration": R("1d10")},
        e_test(0, [UNCONSCIOUS], after=BE),
        timer("1d10", "hour"),
        {"type": "permanent", "stat": "M", "operation": "halve"},
        {"type": "permanent", "stat": "Ag", "operation": "add", "value": -20},
        {"type": "disabled", "part": "foot", "lost": True, "duration": PERM},
    ]
    # "Mêmes malus qu'en 12": 12's mechanics minus its hour timer, the leg instead of the foot.
    m13 = _mech(k, "jambes", 13)
    assert timer("1d10/2", "round") in m13
    assert timer("1d10", "hour") not in m13
    assert [m for m in m12 if m["type"] not in ("death_timer", "disabled")] == [
        m for m in m13 if m["type"] not in ("death_timer", "disabled")
    ]
    assert {"type": "disabled", "part": "leg", "lost": True, "duration": PERM} in m13


def test_tranchantes_bras_pins():
    k = "tranchantes"
    assert _mech(k, "bras", 1) == [e_test(10, [DROP])]
    # "Test d'E 30 %" in the seed: the minus sign was lost (contondantes reads -30 %).
    assert _mech(k, "bras", 7) == [e_test(-30, [DROP, lose("1d10/2")]), cc(-15, R("1d10"))]
    assert _mech(k, "bras", 10) == [
        DROP,
        {"type": "test", "characteristic": "FM", "modifier": 0, "on_failure": [FALL]},
        e_test(0, [UNCONSCIOUS], REPEAT, after=BE2),
        cc(-20, EOC),
        {"type": "modifier", "stat": "F", "value": -20, "duration": EOC},
    ]
    m12 = _mech(k, "bras", 12)
    assert m12[:4] == [
        DROP,
        {"type": "no_action", "duration": R("1d10")},
        e_test(0, [UNCONSCIOUS], REPEAT, after=BE),
        timer("1d10", "hour"),
    ]
    assert _mech(k, "bras", 13) == [
        UNCONSCIOUS,
        timer("1d10/2", "round"),
        {"type": "disabled", "part": "arm", "lost": True, "duration": PERM},
        {"type": "permanent", "stat": "Ag", "operation": "halve"},
    ]


def test_tranchantes_corps_tete_pins():
    k = "tranchantes"
    assert _mech(k, "corps", 1) == [e_test(0, [HALF])]
    assert _mech(k, "corps", 7) == [e_test(-30, [lose("1d10")], [lose("1d10/2")]), cc(-20, R("1d10"))]
    assert _mech(k, "corps", 10) == [
        e_test(0, [UNCONSCIOUS], REPEAT, after=BE2),
        cc(-20, EOC),
        {"type": "modifier", "stat": "F", "value": -20, "duration": EOC},
        timer(24, "hour"),
    ]
    assert _mech(k, "corps", 12) == [timer("1d10", "round", "treated")]
    assert _mech(k, "tete", 3) == [lose(2), cc(-10, R("1d10/2"))]
    m8 = _mech(k, "tete", 8)
    assert {"type": "permanent", "stat": "Soc", "operation": "add", "value": -5} in m8
    assert {"type": "permanent", "stat": "intimidation", "operation": "add", "value": 3} in m8
    assert {"type": "modifier", "stat": "all_tests", "value": -10, "duration": HEALED} in m8
    m11 = _mech(k, "tete", 11)
    assert m11[0] == e_test(0, [UNCONSCIOUS], REPEAT)  # immediate, no BE delay
    assert {"type": "no_action", "duration": R("1d10")} in m11  # seed note, line 2615
    assert timer("1d10/2", "hour") in m11
    m13 = _mech(k, "tete", 13)
    assert timer("1d10/2", "round") in m13
    assert {"type": "permanent", "stat": "CT", "operation": "add", "value": -15} in m13
    assert {"type": "permanent", "stat": "intimidation", "operation": "add", "value": 8} in m13


# ---------------------------------------------------------------- pinned entries: contondantes


def test_contondantes_jambes_bras_pins():
    k = "contondantes"
    assert _mech(k, "jambes", 3) == [
        {"type": "test", "characteristic": "Ag", "modifier": 0, "on_failure": [FALL, HALF]},
        cc(-5, R(2)),
    ]
    assert _mech(k, "jambes", 6) == [
        e_test(-20, [FALL, lose(2)]),
        cc(-10, R("1d10")),
        {"type": "modifier", "stat": "M", "value": -1, "duration": HEALED},
    ]
    assert _mech(k, "jambes", 10) == [
        FALL,
        {"type": "no_action", "duration": R("1d10")},
        {"type": "halve", "stat": "M", "duration": HEALED},
        cc(-30, EOC),
    ]
    m13 = _mech(k, "jambes", 13)
    assert timer("1d10/2", "round") in m13
    assert {"type": "disabled", "part": "leg", "lost": True, "duration": PERM} in m13
    assert [m for m in _mech(k, "jambes", 12) if m["type"] != "death_timer"] == [
        m for m in m13 if m["type"] not in ("death_timer", "disabled")
    ]
    # "5 % CC" in the seed: minus sign lost (tranchantes reads -5 %).
    assert _mech(k, "bras", 4) == [e_test(-10, [DROP, lose(2)]), cc(-5, R("1d10/2"))]
    # "25 % CC" in the seed: minus sign lost.
    assert _mech(k, "bras", 9) == [
        DROP,
        {"type": "no_action", "duration": R("1d10")},
        {"type": "disabled", "part": "arm", "duration": HEALED},
        cc(-25, EOC),
    ]
    m11 = _mech(k, "bras", 11)
    assert {"type": "disabled", "part": "fingers", "lost": True, "duration": PERM} in m11
    assert DROP in m11 and cc(-20, EOC) in m11


def test_contondantes_corps_tete_pins():
    k = "contondantes"
    # Scrambled N° column: the hip (E -10, 2 rounds) is 3, the collarbone (E -20) is 4.
    assert _mech(k, "corps", 3) == [e_test(-10, [lose(2)]), cc(-5, R("1d10/2"))]
    assert _mech(k, "corps", 4) == [e_test(-20, [lose(2)]), cc(-10, R("1d10/2"))]
    assert _mech(k, "corps", 6) == [e_test(-30, [lose("1d10/2")]), cc(-15, R("1d10"))]
    assert _mech(k, "corps", 9) == [
        cc(-20, EOC),
        {"type": "modifier", "stat": "F", "value": -20, "duration": EOC},
    ]
    assert _mech(k, "corps", 11) == [
        {"type": "no_action", "duration": R("1d10")},
        e_test(0, [UNCONSCIOUS], after=BE),
        timer("1d10", "hour"),
    ]
    m13 = _mech(k, "corps", 13)
    assert m13[0] == timer("1d10/2", "round")
    assert m13[1]["characteristic"] == "E" and m13[1]["modifier"] == -20
    assert _mech(k, "tete", 4) == [lose(2), cc(-10, R("1d10"))]
    assert _mech(k, "tete", 8) == [
        {"type": "no_action", "duration": R("1d10")},
        cc(-30, EOC),
        {"type": "permanent", "stat": "Soc", "operation": "add", "value": -5},
        {"type": "permanent", "stat": "intimidation", "operation": "add", "value": 3},
        {"type": "modifier", "stat": "all_tests", "value": -10, "duration": HEALED},
    ]
    assert _mech(k, "tete", 9)[0] == e_test(0, [UNCONSCIOUS], REPEAT, after=BE2)
    assert _mech(k, "tete", 12)[0] == timer("1d10", "round", "treated")
    m13t = _mech(k, "tete", 13)
    assert timer("1d10/2", "round") in m13t
    assert {"type": "permanent", "stat": "Soc", "operation": "add", "value": -15} in m13t
    assert {"type": "disabled", "part": "eye", "lost": True, "duration": PERM} in m13t


def test_both_kinds_share_the_same_severity_ladder():
    """The two tables differ in wording, not in the core malus at each value (checks the alignment)."""
    for zone in ZONES:
        for value in range(1, 9):
            a = [
                m for m in _mech("tranchantes", zone, value) if m["type"] in ("test", "modifier", "lose_time")
            ]
            b = [
                m
                for m in _mech("contondantes", zone, value)
                if m["type"] in ("test", "modifier", "lose_time")
            ]
            assert a == b, (zone, value)
