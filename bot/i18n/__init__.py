"""Message catalogue (French first, English) and the app_commands translator.

Catalogue files are flat JSON objects in ``locales/<lang>/<domain>.json``; each feature owns
its domain file. Keys are dotted (``dice.error.too_many_dice``); values use ``str.format``
placeholders.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

LOCALES_DIR: Final = Path(__file__).resolve().parent / "locales"
LANGUAGES: Final = ("fr", "en")
DEFAULT_LANGUAGE: Final = "fr"

log = logging.getLogger(__name__)


def language_of(locale: str | None) -> str:
    """Map a Discord locale (``fr``, ``en-US``, ``en-GB``, ``de`` …) to a catalogue language.

    French is the default: only an English locale switches to English.
    """
    if locale and str(locale).lower().startswith("en"):
        return "en"
    return DEFAULT_LANGUAGE


@dataclass(frozen=True, slots=True)
class Term:
    """A catalogue key passed as a parameter: ``Catalog.t`` translates it in the reply's language.

    ``t(locale, "input.error.empty", option=Term("input.option.roll"))`` → « L'option `jet` … ».
    """

    key: str


class _SafeDict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Catalog:
    def __init__(self, messages: Mapping[str, Mapping[str, str]]) -> None:
        self._messages = {lang: dict(msgs) for lang, msgs in messages.items()}

    @classmethod
    def load(cls, directory: Path = LOCALES_DIR) -> Catalog:
        messages: dict[str, dict[str, str]] = {}
        for lang in LANGUAGES:
            merged: dict[str, str] = {}
            for path in sorted((directory / lang).glob("*.json")):
                data = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(data, dict):
                    raise ValueError(f"{path}: a catalogue file must be a JSON object")
                for key, value in data.items():
                    if key in merged:
                        raise ValueError(f"{path}: duplicate key {key!r}")
                    merged[key] = str(value)
            messages[lang] = merged
        return cls(messages)

    def keys(self, language: str) -> set[str]:
        return set(self._messages.get(language, {}))

    def has(self, key: str) -> bool:
        return key in self._messages.get(DEFAULT_LANGUAGE, {})

    def raw(self, language: str, key: str) -> str | None:
        return self._messages.get(language, {}).get(key)

    def t(self, locale: str | None, key: str, /, **params: Any) -> str:
        """Translate ``key`` for ``locale``; fall back to French, then to the key itself."""
        language = language_of(locale)
        template = self._messages.get(language, {}).get(key)
        if template is None:
            template = self._messages.get(DEFAULT_LANGUAGE, {}).get(key)
        if template is None:
            log.warning("missing catalogue key %s", key)
            return key
        if params and any(type(v) is Term for v in params.values()):
            params = {k: self.t(locale, v.key) if type(v) is Term else v for k, v in params.items()}
        try:
            # str.format_map: what string.Formatter().vformat does, in C (≈25× faster, every reply).
            return template.format_map(_SafeDict(params))
        except (ValueError, IndexError):
            return template


@cache
def default_catalog() -> Catalog:
    return Catalog.load()
