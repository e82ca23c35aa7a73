"""The `renove` talent table as the services read it (``data/talents.json``).

``talent_book(ctx)`` reads the table the bot loaded (and validated) at start-up; ``default_talent_book``
serves the code paths that have no context at hand: the same file, read once per process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from bot.context import AppContext
from bot.data_loading import DATA_DIR
from bot.rules.renove.talents import TalentBook

_BOOKS: dict[int, TalentBook] = {}


def book_of(document: Mapping[str, Any] | None) -> TalentBook:
    """The book of a talent table already at hand (the fight's documents); the file's without one."""
    if document is None or "entries" not in document:
        return default_talent_book()
    book = _BOOKS.get(id(document))
    if book is None:
        _BOOKS.clear()  # one table in force at a time: the last one read
        book = _BOOKS[id(document)] = TalentBook.from_document(document)
    return book


def talent_book(ctx: AppContext) -> TalentBook:
    table = ctx.tables.get("talents")
    return book_of(None if table is None else table.document)


@cache
def default_talent_book() -> TalentBook:
    return TalentBook.from_document(json.loads((DATA_DIR / "talents.json").read_text(encoding="utf-8")))
