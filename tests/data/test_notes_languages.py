"""Every table's transcription notes exist in French and in English (issue #21: /rules notes in English).

``notes`` holds the original readings; ``notes_en`` (when they are French) or ``notes_fr`` (when they are
English) the same notes, same order, in the other language.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.data_loading import iter_data_files, validate_file

FILES = list(iter_data_files())

# Words that give a language away (seed quotes in « », '…', "…" and `code` are removed first: an English
# note may quote the French seed).
_FRENCH = {"le", "les", "est", "une", "des", "avec", "dans", "pour", "qui", "sont", "pas", "sur", "du", "au"}
_ENGLISH = {"the", "is", "with", "which", "and", "are", "of", "for", "not", "this", "that", "when"}
_QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)|«[^»]*»|`[^`]*`|\"[^\"]*\"|“[^”]*”")
_WORD = re.compile(r"[A-Za-zÀ-ÿ']+")


def _words(note: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(_QUOTED.sub(" ", note))}


def _language(notes: list[str]) -> str:
    fr = sum(len(_words(n) & _FRENCH) for n in notes)
    en = sum(len(_words(n) & _ENGLISH) for n in notes)
    return "fr" if fr > en else "en"


def _pair(document: dict[str, object]) -> tuple[list[str], list[str]] | None:
    """(French notes, English notes), or None when the table has only one language."""
    notes = list(document.get("notes") or [])  # type: ignore[call-overload]
    if "notes_en" in document:
        return notes, list(document["notes_en"])  # type: ignore[call-overload]
    if "notes_fr" in document:
        return list(document["notes_fr"]), notes  # type: ignore[call-overload]
    return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_notes_exist_in_both_languages(path: Path) -> None:
    document = validate_file(path).document
    notes = list(document.get("notes") or [])
    if not notes:
        return
    assert not ("notes_en" in document and "notes_fr" in document), "give notes_en OR notes_fr, not both"
    pair = _pair(document)
    if pair is None:
        assert _language(notes) == "en", f"{path.name}: French notes without notes_en"
        pytest.fail(f"{path.name}: English notes without notes_fr")
    french, english = pair
    assert len(french) == len(english), f"{path.name}: {len(french)} French notes, {len(english)} English"
    for number, (fr, en) in enumerate(zip(french, english, strict=True), start=1):
        assert fr.strip() and en.strip(), f"{path.name} note {number} is empty"
        # numbers and line references survive the translation (a gloss of a quote may repeat one)
        assert set(re.findall(r"\d+", fr)) == set(re.findall(r"\d+", en)), (
            f"{path.name} note {number}: numbers differ between the languages"
        )
        english_in_fr = _words(fr) & _ENGLISH
        french_in_en = _words(en) & _FRENCH
        assert len(english_in_fr) <= 1, f"{path.name} French note {number} reads English: {english_in_fr}"
        assert len(french_in_en) <= 1, f"{path.name} English note {number} reads French: {french_in_en}"


def test_every_table_with_notes_has_both_languages() -> None:
    """No table is left with notes in one language only (issue #21)."""
    one_language = [
        p.stem
        for p in FILES
        if validate_file(p).document.get("notes") and _pair(validate_file(p).document) is None
    ]
    assert one_language == []
