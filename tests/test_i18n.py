from __future__ import annotations

import re

from bot.i18n import Catalog, default_catalog, language_of
from bot.i18n.message_format import argument_names


def test_french_is_the_default_and_english_follows_english_locales() -> None:
    assert language_of(None) == "fr"
    assert language_of("fr") == "fr"
    assert language_of("de") == "fr"
    assert language_of("en-US") == "en"
    assert language_of("en-GB") == "en"


def test_every_english_key_exists_in_french_and_every_message_has_english() -> None:
    catalog = default_catalog()
    fr, en = catalog.keys("fr"), catalog.keys("en")
    assert en - fr == set()
    # Command names and descriptions use the English base strings in code; everything else is translated.
    missing = {k for k in fr - en if not (k.startswith("cmd.") and not k.endswith(".example"))}
    assert missing == set()


def test_placeholders_match_between_languages() -> None:
    catalog = default_catalog()
    for key in catalog.keys("en"):
        fr_text, en_text = catalog.raw("fr", key) or "", catalog.raw("en", key) or ""
        fr_args, en_args = argument_names(fr_text), argument_names(en_text)
        # French may read one more argument for agreement only (« {gender, gender, f {Humaine} …} »).
        extra = fr_args - en_args
        assert en_args <= fr_args and all(f"{{{a}, gender," in fr_text for a in extra), key


def test_translation_formats_and_falls_back() -> None:
    catalog = Catalog({"fr": {"a": "Bonjour {name}", "b": "seul"}, "en": {"a": "Hello {name}"}})
    assert catalog.t("fr", "a", name="Anna") == "Bonjour Anna"
    assert catalog.t("en-US", "a", name="Anna") == "Hello Anna"
    assert catalog.t("en-US", "b") == "seul"
    assert catalog.t("fr", "missing") == "missing"
    assert catalog.t("fr", "a") == "Bonjour {name}"


def test_french_command_names_are_valid_discord_names() -> None:
    catalog = default_catalog()
    name = re.compile(r"^[-_'\w]{1,32}$")
    for key in catalog.keys("fr"):
        if key.startswith("cmd.") and key.endswith(".name"):
            value = catalog.raw("fr", key) or ""
            assert name.match(value) and value == value.lower(), (key, value)
        if key.startswith("cmd.") and key.endswith(".description"):
            assert 1 <= len(catalog.raw("fr", key) or "") <= 100, key
