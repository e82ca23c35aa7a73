"""A rule table read as a book (skills, talents …): one book per loaded document, built once.

``of(document)`` serves a table already at hand (the context's, a fight's documents); ``default()``
the code paths with no context at hand: the same data file, read once per process (the table was
validated at start-up). One table in force at a time: a new document replaces the cached book.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from bot.context import AppContext
from bot.data_loading import DATA_DIR

B = TypeVar("B")


class RuleBook(Generic[B]):
    def __init__(self, table: str, build: Callable[[Mapping[str, Any]], B]) -> None:
        self.table = table
        self.build = build
        self._key: int | None = None
        self._book: B | None = None
        self._default: B | None = None

    def default(self) -> B:
        if self._default is None:
            path = DATA_DIR / f"{self.table}.json"
            self._default = self.build(json.loads(path.read_text(encoding="utf-8")))
        return self._default

    def of(self, document: Mapping[str, Any] | None) -> B:
        if document is None or "entries" not in document:
            return self.default()
        if self._key != id(document) or self._book is None:
            self._key, self._book = id(document), self.build(document)
        return self._book

    def __call__(self, ctx: AppContext) -> B:
        table = ctx.tables.get(self.table)
        return self.of(None if table is None else table.document)
