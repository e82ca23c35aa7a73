"""Every option the services hand to the input grammar is named in the refusal as the user sees it."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPTION = re.compile(r'option="([a-z_]+)"')


def _catalogue(language: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for path in sorted((ROOT / "bot" / "i18n" / "locales" / language).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def _options_used() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        found.update(OPTION.findall(path.read_text(encoding="utf-8")))
    return found


def test_the_scan_finds_the_grammar_calls() -> None:
    used = _options_used()
    assert {"roll", "dice", "damage"} <= used, used


def test_every_option_given_to_the_grammar_has_its_name_in_both_languages() -> None:
    fr, en = _catalogue("fr"), _catalogue("en")
    french_names: dict[str, set[str]] = defaultdict(set)
    for key, value in fr.items():
        if (match := re.fullmatch(r"cmd\..*\.opt\.([a-z_]+)\.name", key)) is not None:
            french_names[match.group(1)].add(value)
    for option in sorted(_options_used()):
        key = f"input.option.{option}"
        assert key in fr and key in en, f"{key} missing"
        # English base names are what an English client shows; French, one of the real localisations.
        assert en[key] == option
        if french_names[option]:
            assert fr[key] in french_names[option], (option, fr[key], french_names[option])
