"""`renove` skills on their characteristic (pure): lookups, masteries, untrained tests, old sheets."""

from __future__ import annotations

import json

import pytest

from bot.data_loading import DATA_DIR
from bot.rules.renove.skills import (
    SkillBook,
    SkillRefused,
    apply_masteries,
    convert_absolute,
    parse_skill_list,
    skill_score,
)
from bot.rules.sheets import SheetError

BOOK = SkillBook.from_document(json.loads((DATA_DIR / "skills.json").read_text(encoding="utf-8")))
GUNTHER = {"CC": 42, "CT": 31, "F": 38, "E": 41, "Ag": 33, "Int": 29, "FM": 31, "Soc": 28}


@pytest.mark.parametrize(
    ("typed", "skill_id", "label"),
    [
        ("Esquive", "esquive", "Esquive"),
        ("ESQUIVE", "esquive", "Esquive"),
        ("Dodge Blow", "esquive", "Esquive"),
        ("résistance à l'alcool", "resistance_alcool", "Résistance à l'alcool"),
        ("Resistance a l'alcool", "resistance_alcool", "Résistance à l'alcool"),
        ("Langue (Reikspiel)", "langue", "Langue (Reikspiel)"),
        ("Métier (forgeron)", "metier", "Métier (forgeron)"),
    ],
)
def test_skills_are_found_by_any_name(typed: str, skill_id: str, label: str) -> None:
    found = BOOK.find(typed)
    assert found is not None and (found[0].id, found[1]) == (skill_id, label)


def test_a_speciality_only_on_a_specialised_skill() -> None:
    assert BOOK.find("Esquive (rapide)") is None
    assert BOOK.find("Inconnue") is None


@pytest.mark.parametrize(
    ("skills", "typed", "target", "mastery"),
    [
        ({"Esquive": 10}, "Esquive", 43, 10),  # Ag 33 + 10
        ({"Esquive": 0}, "esquive", 33, 0),
        ({"Perception": 20}, "Perception", 49, 20),  # Int 29 + 20
        ({}, "Fouille", 14, None),  # untrained basic: Int 29 / 2, rounded down
        ({}, "Esquive", 16, None),  # basic in renove (seed 000 l. 1243): Ag 33 / 2
        ({}, "Torture", 14, None),  # basic in renove too: Soc 28 / 2
        ({"Langue (Reikspiel)": 10}, "Langue", 39, 10),  # the held speciality answers for the skill
    ],
)
def test_skill_score(skills: dict[str, int], typed: str, target: int, mastery: int | None) -> None:
    score = skill_score(BOOK, GUNTHER, skills, typed)
    assert (score.target, score.mastery) == (target, mastery)


def test_an_untrained_advanced_skill_is_refused_with_its_reason() -> None:
    with pytest.raises(SkillRefused) as refused:
        skill_score(BOOK, GUNTHER, {}, "Crochetage")
    assert refused.value.key == "skills.error.untrained_advanced"
    assert refused.value.params == {"skill": "Crochetage", "characteristic": "Ag"}
    with pytest.raises(SkillRefused) as unknown:
        skill_score(BOOK, GUNTHER, {}, "Grimper aux rideaux")
    assert unknown.value.key == "skills.error.unknown"


@pytest.mark.parametrize(
    ("typed", "entries"),
    [
        ("Esquive, Perception +10, Escalade +20", [("Esquive", None, False), ("Perception", 10, False),
                                                   ("Escalade", 20, False)]),
        ("Esquive:+10", [("Esquive", 10, False)]),
        ("Esquive +10%", [("Esquive", 10, False)]),
        ("Esquive=20 ; -Fouille", [("Esquive", 20, False), ("Fouille", None, True)]),
        ("Résistance à l'alcool +10", [("Résistance à l'alcool", 10, False)]),
        ("Langue (reikspiel) +10", [("Langue (reikspiel)", 10, False)]),
    ],
)  # fmt: skip
def test_parse_skill_list(typed: str, entries: list[tuple[str, int | None, bool]]) -> None:
    assert parse_skill_list(typed) == entries


@pytest.mark.parametrize(
    "typed",
    ["Esquive:45", "Esquive -10", "Esquive +15", "-Esquive +10", "+10", "Esquive:", "Esquive =", "Esquive:²"],
)
def test_parse_skill_list_refuses_what_is_not_a_mastery(typed: str) -> None:
    with pytest.raises(SheetError):
        parse_skill_list(typed)


def test_apply_masteries_changes_all_or_nothing() -> None:
    assert apply_masteries(BOOK, {}, parse_skill_list("Esquive, Perception +10")) == {
        "Esquive": 0,
        "Perception": 10,
    }
    assert apply_masteries(BOOK, {"Esquive": 0}, parse_skill_list("esquive +20")) == {"Esquive": 20}
    with pytest.raises(SheetError) as problems:
        apply_masteries(BOOK, {"Esquive": 0}, parse_skill_list("Esquvie +10, Langue, -Fouille"))
    keys = [p.key for p in problems.value.problems]
    assert keys == ["skills.error.unknown_on_sheet", "skills.error.speciality", "skills.error.not_on_sheet"]
    assert problems.value.problems[0].params["close"].startswith("Esquive")


def test_old_absolute_values_become_masteries() -> None:
    converted, unread = convert_absolute(
        BOOK,
        GUNTHER,
        {"Esquive": 43, "Perception": 29, "Escalade": 99, "Fouille": 10, "Charme": 5, "Soins": 20},
    )
    # Esquive 43 - Ag 33 = 10; Perception = Int: +0; Escalade caps at +20; Fouille 10 was a mastery
    assert converted == {"Esquive": 10, "Perception": 0, "Escalade": 20, "Fouille": 10, "Soins": 20}
    assert unread == ["Charme 5"]
