"""#21 through the console: a table's transcription notes follow the caller's language, both ways
(French originals with ``notes_en``, English originals with ``notes_fr``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .console_script import assert_no_errors, console_records

DATA = Path(__file__).resolve().parent.parent / "data"
SCRIPT = """
/regles notes table:criticals_tranchantes
/regles notes table:infection
"""
SCRIPT_EN = SCRIPT.replace("/regles notes", "/rules notes")


def _table(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return document


def _descriptions(records: list[dict[str, Any]]) -> list[str]:
    return [r["embeds"][0]["description"] for r in records if r.get("command", "").endswith("notes")]


def test_notes_in_french_and_in_english() -> None:
    tranchantes, infection = _table("criticals_tranchantes"), _table("infection")
    french = console_records(SCRIPT)
    english = console_records(SCRIPT_EN, locale="en")
    assert_no_errors(french)
    assert_no_errors(english)
    fr_crit, fr_infection = _descriptions(french)
    en_crit, en_infection = _descriptions(english)
    # French originals: the French user reads them, the English user their translation
    assert tranchantes["notes"][1][:50] in fr_crit and tranchantes["notes_en"][1][:50] not in fr_crit
    assert tranchantes["notes_en"][1][:50] in en_crit and tranchantes["notes"][1][:50] not in en_crit
    # English originals: the other way round
    assert infection["notes_fr"][0][:50] in fr_infection and infection["notes"][0][:50] not in fr_infection
    assert infection["notes"][0][:50] in en_infection and infection["notes_fr"][0][:50] not in en_infection
