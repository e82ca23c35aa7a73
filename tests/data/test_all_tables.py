"""Every data file validates against its schema; the loader fails fast and readably."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bot.data_loading import (
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
