"""The `renove` talent book: any name finds a talent, close names are suggested, the sheet's list
holds known talents or « Autre : … » notes, and what Tireur d'élite writes into the base profile."""

from __future__ import annotations

import pytest

from bot.rules.renove.talents import (
    TalentBook,
    apply_talent_changes,
    base_profile_changes,
    note_text,
)
from bot.rules.sheets import SheetError
from bot.services.talent_book import default_talent_book


@pytest.fixture(scope="module")
def book() -> TalentBook:
    return default_talent_book()


@pytest.mark.parametrize(
    ("typed", "talent_id", "label"),
    [
        ("Coups précis", "coups_precis", "Coups précis"),
        ("coups precis", "coups_precis", "Coups précis"),
        ("COUP PRÉCIS", "coups_precis", "Coups précis"),
        ("Strike to Injure", "coups_precis", "Coups précis"),
        ("tir precis", "tir_precis", "Tir précis"),
        ("Sure Shot", "tir_precis", "Tir précis"),
        ("  sur  ses gardes ", "sur_ses_gardes", "Sur ses gardes"),
        ("Flee!", "fuite", "Fuite"),
        ("dur a cuire", "dur_a_cuire", "Dur à cuire"),
        ("Hardy", "dur_a_cuire", "Dur à cuire"),
        ("tireur d'elite", "tireur_d_elite", "Tireur d'élite"),
        ("resistance accrue", "resistance_accrue", "Résistance accrue"),
        ("Maitrise (arbalètes)", "maitrise", "Maîtrise (arbalètes)"),
        ("Specialist Weapon Group (Throwing)", "maitrise", "Maîtrise (Throwing)"),
    ],
)
def test_any_name_finds_the_talent(book: TalentBook, typed: str, talent_id: str, label: str) -> None:
    found = book.find(typed)
    assert found is not None and (found[0].id, found[1]) == (talent_id, label)


@pytest.mark.parametrize("typed", ["Esquive", "Ambidextre (gauche)", "Coups", "", "Autre : Chance"])
def test_what_is_not_a_talent(book: TalentBook, typed: str) -> None:
    assert book.find(typed) is None  # Esquive is the table's skill, not a talent


@pytest.mark.parametrize(
    ("typed", "first"),
    [("Coups precsi", "Coups précis"), ("Ambidextr", "Ambidextre"), ("Parade eclaire", "Parade éclair")],
)
def test_close_names_are_suggested(book: TalentBook, typed: str, first: str) -> None:
    close = book.suggestions(typed)
    assert close[0] == first and len(close) <= 3


@pytest.mark.parametrize(
    ("typed", "note"),
    [("Autre : Chance du débutant", "Chance du débutant"), ("autre: x", "x"), ("Other:  a  b", "a b")],
)
def test_free_notes(typed: str, note: str) -> None:
    assert note_text(typed) == note


@pytest.mark.parametrize(
    ("before", "add", "remove", "after"),
    [
        ([], ["coups precis", "AMBIDEXTRE"], [], ["Coups précis", "Ambidextre"]),
        ([], ["autre: Chance du débutant"], [], ["Autre : Chance du débutant"]),
        (["Coups précis"], ["Strike to Injure"], [], ["Coups précis"]),  # already there
        (["Coups précis", "Ambidextre"], [], ["coups precis"], ["Ambidextre"]),
        (["Vieux talent", "Fuite"], ["Robuste"], [], ["Vieux talent", "Fuite", "Robuste"]),  # kept
        (["Vieux talent"], [], ["vieux talent"], []),
        (["Autre : Chance"], [], ["autre : chance"], []),
    ],
)
def test_the_sheet_list(
    book: TalentBook, before: list[str], add: list[str], remove: list[str], after: list[str]
) -> None:
    assert apply_talent_changes(book, before, add, remove).talents == after


def test_every_problem_at_once_nothing_half_applied(book: TalentBook) -> None:
    with pytest.raises(SheetError) as err:
        apply_talent_changes(
            book, ["Fuite"], ["Robuste", "Coups precsi", "Maîtrise", "Xyzzy", "Autre :"], ["Sixième"]
        )
    problems = [(p.key, p.params) for p in err.value.problems]
    assert problems == [
        ("characters.talent.not_present", {"name": "Sixième"}),
        (
            "talents.error.unknown",
            {"talent": "Coups precsi", "close": "Coups précis"},
        ),
        ("talents.error.speciality", {"talent": "Maîtrise"}),
        ("talents.error.unknown_no_close", {"talent": "Xyzzy", "close": ""}),
        ("talents.error.empty_note", {}),
    ]


@pytest.mark.parametrize(
    ("before", "add", "remove", "deltas"),
    [
        ([], ["Tireur d'élite"], [], {"CT": 5}),
        (["Tireur d'élite"], [], ["Marksman"], {"CT": -5}),
        (["Tireur d'élite"], ["tireur d'elite"], [], {}),  # already held: nothing more
        ([], ["Résistance accrue", "Sang-froid"], [], {"E": 5, "FM": 5}),
        ([], ["Coups précis"], [], {}),
    ],
)
def test_what_goes_into_the_base_profile(
    book: TalentBook, before: list[str], add: list[str], remove: list[str], deltas: dict[str, int]
) -> None:
    assert base_profile_changes(book, apply_talent_changes(book, before, add, remove)) == deltas


def test_ids_and_effects_read_from_any_name(book: TalentBook) -> None:
    sheet = ["Strike to Injure", "lightning parry", "Autre : Chance", "Vieux talent", "Maîtrise (arcs)"]
    assert book.ids(sheet) == {"coups_precis", "parade_eclair", "maitrise"}
    assert book.unknown(sheet) == ["Vieux talent"]
    assert [tid for tid, _ in book.effects_of(["Fuite", "Robuste"], "chase_bonus")] == ["fuite"]
