"""Combat tables of seed 000 (renove), section III – Combat: schema validity, pinned entries, consistency."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bot.data_loading import DATA_DIR, validate_file

COMBAT_TABLES = [
    "critical_matrix",
]


def _load(name: str) -> dict:
    table = validate_file(DATA_DIR / f"{name}.json")
    assert table.name == name
    assert table.document["ruleset"] == "renove"
    assert table.document["source"]["seed"] == "000_69d044075d6a247e.txt"
    return dict(table.document)


def _ids(entries: list[dict]) -> list[str]:
    return [e["id"] for e in entries]


@pytest.mark.parametrize("name", COMBAT_TABLES)
def test_file_validates_and_has_notes(name: str) -> None:
    doc = _load(name)
    assert doc["notes"], f"{name}: every scrambled reading must be recorded in notes"
    raw = json.loads(Path(DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert raw["table"] == name


@pytest.mark.parametrize("name", COMBAT_TABLES)
def test_entry_ids_are_unique(name: str) -> None:
    entries = _load(name).get("entries", [])
    ids = [e["id"] for e in entries if isinstance(e, dict) and "id" in e]
    assert len(ids) == len(set(ids))


# --- critical matrix -------------------------------------------------------------------------


def _critical(doc: dict, d100: int, damage: int, *, precise: bool = False, hardy: bool = False) -> int:
    row = next(r for r in doc["entries"] if r["d100_min"] <= d100 <= r["d100_max"])
    value = row["values"][min(damage, 10) - 1] + max(0, damage - 10) * row["overflow_per_point"]
    mods = {m["id"]: m["value"] for m in doc["modifiers"]}
    value += mods["precise"] if precise else 0
    value += mods["dur_a_cuire"] if hardy else 0
    return max(doc["clamp"]["min"], min(doc["clamp"]["max"], value))


def test_critical_matrix_is_complete_and_contiguous() -> None:
    doc = _load("critical_matrix")
    rows = doc["entries"]
    assert [r["label"] for r in rows] == [
        "01-10", "11-20", "21-30", "31-40", "41-50", "51-60", "61-70", "71-80", "81-90", "91-00"
    ]  # fmt: skip
    assert rows[0]["d100_min"] == 1 and rows[-1]["d100_max"] == 100
    for before, after in itertools.pairwise(rows):
        assert after["d100_min"] == before["d100_max"] + 1
    for row in rows:
        assert len(row["values"]) == 10
        assert row["values"] == sorted(row["values"]), "a row never decreases with more damage"
        assert row["overflow_per_point"] == 1
    assert doc["damage_columns"] == list(range(1, 11))
    assert doc["clamp"] == {"min": 1, "max": 15}


def test_critical_matrix_pinned_rows_and_columns() -> None:
    doc = _load("critical_matrix")
    rows = doc["entries"]
    assert rows[0]["values"] == [5, 5, 6, 6, 7, 9, 11, 14, 15, 15]
    assert rows[-1]["values"] == [1, 1, 1, 2, 2, 3, 4, 6, 8, 12]
    assert [r["values"][0] for r in rows] == [5, 4, 4, 3, 3, 2, 2, 1, 1, 1]
    assert [r["values"][9] for r in rows] == [15, 14, 15, 14, 15, 14, 15, 14, 13, 12]


def test_critical_matrix_six_damage_matches_the_seed() -> None:
    doc = _load("critical_matrix")
    column = [r["values"][5] for r in doc["entries"]]
    assert column == [9, 8, 7, 6, 6, 5, 5, 4, 4, 3]
    assert min(column) == doc["seed_check"]["stated_min"] == 3
    assert max(column) == doc["seed_check"]["stated_max"] == 9
    assert sum(column) / 10 == pytest.approx(5.7)
    assert int(sum(column) / 10) == doc["seed_check"]["stated_mean"]


def test_critical_value_overflow_modifiers_and_clamp() -> None:
    doc = _load("critical_matrix")
    assert _critical(doc, 1, 6) == 9
    assert _critical(doc, 100, 10) == 12
    assert _critical(doc, 95, 12) == 14  # +++ : +1 per point above 10
    assert _critical(doc, 95, 14) == 15  # clamped
    assert _critical(doc, 5, 10, precise=True) == 15
    assert _critical(doc, 55, 6, precise=True) == 6
    assert _critical(doc, 99, 1, hardy=True) == 1  # never below 1
    assert _critical(doc, 15, 6, hardy=True) == 7
