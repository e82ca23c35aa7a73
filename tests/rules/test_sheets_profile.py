"""The sheet beyond the numbers (pure): race and the seed's +3, experience, purse, ogl HP per
location set by the GM, and old exports read into the new sheet."""

from __future__ import annotations

import pytest

from bot.rules.sheets import (
    Profile,
    SheetError,
    apply_money,
    apply_xp,
    location_hp,
    location_hp_set,
    parse_race,
    race_bonus,
    read_document,
    validate_characteristics,
)

GUNTHER = {"CC": 42, "CT": 31, "F": 38, "E": 41, "Ag": 33, "Int": 29, "FM": 31, "Soc": 28}


@pytest.mark.parametrize(
    ("race", "bf", "be", "ba"),
    [("humain", 6, 7, 6), ("nain", 6, 7, 6), ("halfling", 6, 7, 6), ("autre", 3, 4, 3), (None, 6, 7, 6)],
)
def test_the_seed_bonus_goes_to_playable_races(race: str | None, bf: int, be: int, ba: int) -> None:
    values = validate_characteristics("renove", GUNTHER, race=race)
    assert (values["BF"], values["BE"], values["BA"]) == (bf, be, ba)


def test_the_bonus_is_renove_only() -> None:
    assert race_bonus("renove", "elfe") == 3 and race_bonus("v1", "elfe") == 0
    assert race_bonus("renove", "autre") == 0


@pytest.mark.parametrize(
    ("typed", "race"), [("Nain", "nain"), ("dwarf", "nain"), ("Humaine", "humain"), ("ELFE", "elfe")]
)
def test_races_as_typed(typed: str, race: str) -> None:
    assert parse_race(typed) == race


def test_an_unknown_race_is_refused() -> None:
    with pytest.raises(SheetError) as refused:
        parse_race("Orque")
    assert refused.value.problems[0].key == "characters.race.unknown"


@pytest.mark.parametrize(
    ("typed", "total", "spent"),
    [("120", 120, 10), ("120/80", 120, 80), ("+50", 150, 10), ("-30", 100, 40), ("−30", 100, 40)],
)
def test_experience(typed: str, total: int, spent: int) -> None:
    profile = apply_xp(Profile(xp_total=100, xp_spent=10), typed)
    assert (profile.xp_total, profile.xp_spent) == (total, spent)


@pytest.mark.parametrize("typed", ["lots", "+5/3", "-200", "12/30", "1e9", "²"])
def test_experience_refused(typed: str) -> None:
    with pytest.raises(SheetError):
        apply_xp(Profile(xp_total=100, xp_spent=10), typed)


@pytest.mark.parametrize(
    ("typed", "money"),
    [
        ("3 co 5 pa 10 s", (3, 5, 10)),
        ("3co, 5pa", (3, 5, 0)),
        ("2 couronnes 4 sous", (2, 0, 4)),
        ("+2 co", (3, 1, 1)),
        ("-1 s", (1, 1, 0)),
    ],
)
def test_purse(typed: str, money: tuple[int, int, int]) -> None:
    assert apply_money(Profile(money=(1, 1, 1)), typed).money == money


@pytest.mark.parametrize("typed", ["beaucoup", "-2 co", "3 co +1 pa", "3 co et demi", "5"])
def test_purse_refused(typed: str) -> None:
    with pytest.raises(SheetError):
        apply_money(Profile(money=(1, 1, 1)), typed)


def test_ogl_hp_per_location_are_the_gms_where_set() -> None:
    stats = {"STR": 14, "CON": 12, "SIZ": 15, "INT": 8, "POW": 9, "DEX": 11, "CHA": 6}
    suggested = location_hp(stats)
    assert suggested["tete"] == 5 and location_hp_set(stats) == frozenset()
    values = validate_characteristics("ogl", {**stats, "PV.tete": 6})
    assert location_hp(values)["tete"] == 6 and location_hp(values)["poitrine"] == suggested["poitrine"]
    assert location_hp_set(values) == {"tete"}


def test_a_version_1_export_reads_into_the_new_sheet() -> None:
    old = {
        "format": "melee.character",
        "format_version": 1,
        "name": "Albert",
        "ruleset": "renove",
        "characteristics": {**GUNTHER, "PF": 2, "PD": 3},
        "skills": {"Esquive": 43},
    }
    data = read_document(old)
    assert data.characteristics["Fortune"] == 2 and data.characteristics["PF"] == 0
    assert data.characteristics["BF"] == 6 and data.profile["race"] == "humain"
