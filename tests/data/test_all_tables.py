"""Every data file validates against its schema; the loader fails fast and readably."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bot.data_loading import (
    BANDS_KEY,
    DATA_DIR,
    DataError,
    iter_data_files,
    load_all,
    upload_only_tables,
    validate_document,
    validate_file,
)

FILES = list(iter_data_files())


def test_there_are_tables() -> None:
    assert FILES, "data/ holds no table"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_file_validates(path: Path) -> None:
    table = validate_file(path)
    assert table.name == path.stem
    assert table.document["notes"] is not None


def test_every_schema_is_used_by_a_table_or_another_schema() -> None:
    used = {validate_file(p).schema for p in FILES} | set(upload_only_tables())
    texts = {s.name: s.read_text(encoding="utf-8") for s in (DATA_DIR / "schemas").glob("*.schema.json")}
    for name, text in texts.items():
        json.loads(text)  # every schema is valid JSON
        others = [other for o, other in texts.items() if o != name]
        referenced = any(f'"{name}#' in other or f'"{name}"' in other for other in others)
        assert name.removesuffix(".schema.json") in used or referenced, f"{name} is used by nothing"


def test_load_all_is_fast() -> None:
    started = time.perf_counter()
    tables = load_all()
    elapsed = time.perf_counter() - started
    assert len(tables) == len(FILES) + len(upload_only_tables())
    # Start-up budget; generous for slow CI machines (measured figures live in benchmarks).
    assert elapsed < 5


def test_upload_only_tables_have_no_file_and_an_empty_base() -> None:
    bases = upload_only_tables()
    assert "d20_damage_by_location" in bases
    for name, table in bases.items():
        assert not (DATA_DIR / f"{name}.json").exists(), name
        assert table.entries == [] and table.document["schema"] == name == table.document["table"]
        # the base plus one valid row validates against the schema: an upload can complete it
        row = {"min": 0, "pv": 1, "text": {"fr": "x", "en": "x"}}
        assert validate_document({**table.document, "entries": [row]}) == name
        with pytest.raises(DataError):
            validate_document(dict(table.document))  # an empty table is not a table


def test_a_bad_document_lists_every_problem() -> None:
    with pytest.raises(DataError) as info:
        validate_document({"schema": "criticals", "table": "x", "ruleset": "nope", "entries": []})
    problems = info.value.problems
    assert any("ruleset" in p for p in problems)
    assert any("title" in p for p in problems)
    assert len(problems) >= 3


def test_unknown_schema_is_refused() -> None:
    with pytest.raises(DataError):
        validate_document({"schema": "does_not_exist"})


def test_load_all_reports_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    for schema in (DATA_DIR / "schemas").glob("*.json"):
        (tmp_path / "schemas" / schema.name).write_text(schema.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_all(tmp_path)
    assert "broken.json" in str(info.value)


BAND_FIELDS = (("min", "max"), ("d100_min", "d100_max"), ("min_degrees", "max_degrees"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_table_of_bands_declares_them_so_uploads_are_checked_for_gaps(path: Path) -> None:
    """A lookup by band crashed on a house rule with a gap (#23): such a table says in its schema
    which fields bound its bands (``x-bands``) and the loader and the upload check the coverage."""
    document = json.loads(path.read_text(encoding="utf-8"))
    entries = [e for e in document.get("entries", []) if isinstance(e, dict)]
    banded = [pair for pair in BAND_FIELDS if entries and all(pair[0] in e and pair[1] in e for e in entries)]
    schema = json.loads(
        (DATA_DIR / "schemas" / f"{document['schema']}.schema.json").read_text(encoding="utf-8")
    )
    if banded:
        assert schema.get(BANDS_KEY) == {**schema[BANDS_KEY], "min": banded[0][0], "max": banded[0][1]}
    else:
        assert BANDS_KEY not in schema


def test_a_gap_in_a_data_file_fails_the_load() -> None:
    document = json.loads((DATA_DIR / "mort_subite.json").read_text(encoding="utf-8"))
    document["entries"] = [{**e, "min": 10} if e["min"] == 8 else e for e in document["entries"]]
    with pytest.raises(DataError) as err:
        validate_document(document, origin="mort_subite")
    assert err.value.problems == ["entries: nothing covers 8-9 (between 1-7 and 10-12)"]
