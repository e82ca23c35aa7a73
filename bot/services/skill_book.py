"""The `renove` skill table as the services read it (``data/skills.json``); see :mod:`.rule_book`."""

from __future__ import annotations

from bot.rules.renove.skills import SkillBook
from bot.services.rule_book import RuleBook

SKILLS = RuleBook("skills", SkillBook.from_document)
skill_book = SKILLS
default_skill_book = SKILLS.default
