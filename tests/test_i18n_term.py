"""``Term``: a catalogue key passed as a parameter is translated in the reply's language."""

from __future__ import annotations

import dataclasses

import pytest

from bot.i18n import Catalog, Term, default_catalog


def test_terms_are_translated_in_the_language_of_the_reply() -> None:
    catalog = Catalog(
        {
            "fr": {"err": "L'option `{option}` vaut {n}.", "opt.roll": "jet"},
            "en": {"err": "Option `{option}` is {n}.", "opt.roll": "roll"},
        }
    )
    assert catalog.t("fr", "err", option=Term("opt.roll"), n=3) == "L'option `jet` vaut 3."
    assert catalog.t("en-GB", "err", option=Term("opt.roll"), n=3) == "Option `roll` is 3."
    assert catalog.t("fr", "err", option="brut", n=Term("missing")) == "L'option `brut` vaut missing."


def test_terms_are_frozen_values() -> None:
    term = Term("input.option.roll")
    assert term == Term("input.option.roll") and hash(term) == hash(Term("input.option.roll"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        term.key = "other"  # type: ignore[misc]


def test_input_errors_render_with_the_option_name() -> None:
    catalog = default_catalog()
    fr = catalog.t("fr", "input.error.empty", option=Term("input.option.modifier"))
    en = catalog.t("en-US", "input.error.empty", option=Term("input.option.modifier"))
    assert "`mod`" in fr and "`modifier`" in en
