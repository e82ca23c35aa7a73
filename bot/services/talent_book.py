"""The `renove` talent table as the services read it (``data/talents.json``); see :mod:`.rule_book`."""

from __future__ import annotations

from bot.rules.renove.talents import TalentBook
from bot.services.rule_book import RuleBook

TALENTS = RuleBook("talents", TalentBook.from_document)
talent_book = TALENTS
book_of = TALENTS.of
default_talent_book = TALENTS.default
