"""What the pinned-readings tests of the seed tables share: reading a table, and the checks every
owned table passes (it validates, records its reading in ``notes``, has unique ids)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.data_loading import DATA_DIR, Table, validate_file


def doc(name: str) -> dict[str, Any]:
    return dict(validate_file(DATA_DIR / f"{name}.json").document)


def entries(name: str) -> list[dict[str, Any]]:
    return list(doc(name).get("entries", []))


def by_id(name: str) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in entries(name)}


def check_owned_table(name: str) -> Table:
    """``name`` validates, records its reading and has a schema file; returned for more checks."""
    table = validate_file(DATA_DIR / f"{name}.json")
    assert table.name == name
    assert table.document["notes"], f"{name} records no reading"
    assert Path(DATA_DIR / "schemas" / f"{table.schema}.schema.json").is_file()
    return table


def check_ids_unique(name: str) -> None:
    ids = [e["id"] for e in entries(name)]
    assert len(ids) == len(set(ids))
