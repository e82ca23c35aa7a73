"""The `renove` skill table as the services read it (``data/skills.json``).

``skill_book(ctx)`` reads the table the bot loaded (and validated) at start-up; ``default_skill_book``
serves the code paths that have no context at hand (the sheet lookups of the test commands): the
same file, read once per process. The table has no house-rule override yet.
"""

from __future__ import annotations

import json
from functools import cache

from bot.context import AppContext
from bot.data_loading import DATA_DIR
from bot.rules.renove.skills import SkillBook

_BOOKS: dict[int, SkillBook] = {}


def skill_book(ctx: AppContext) -> SkillBook:
    table = ctx.tables.get("skills")
    if table is None:
        return default_skill_book()
    book = _BOOKS.get(id(table.document))
    if book is None:
        _BOOKS.clear()  # one table in force at a time: the last one read
        book = _BOOKS[id(table.document)] = SkillBook.from_document(table.document)
    return book


@cache
def default_skill_book() -> SkillBook:
    return SkillBook.from_document(json.loads((DATA_DIR / "skills.json").read_text(encoding="utf-8")))
