"""`renove` skills on their characteristic (``data/skills.json``): mastery, untrained tests, the sheet.

A skill on a `renove` sheet is acquired with a mastery of +0, +10 or +20 (WFRP 2e: acquired, then
mastered once, twice); its test is the characteristic it sits on plus that mastery. Untrained, a
basic skill is tested at half the characteristic, rounded down, and an advanced one cannot be used
(the book's rule, kept by the seed: its dodge without Esquive is Ag/2, l. 1003). Seed 000 makes seven
advanced skills basic (l. 1243-1244); the table says which (``basic_in_renove``).

A specialised skill is written with its speciality: « Langue (reikspiel) », « Métier (forgeron) »;
the speciality is kept as typed, the skill found by its name or an alias, case and accents aside.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.rules.sheets import SKILL_NAME_MAX, SKILLS_MAX, Problem, SheetError, fold

MASTERIES: Final = (0, 10, 20)
HALF: Final = 2  # an untrained basic skill: half the characteristic, rounded down

# « Esquive », « Perception +10 », « Escalade:+20 », « Esquive +10% », « -Esquive » (removed).
_ENTRY = re.compile(
    r"\s*(?P<remove>[-−]\s*)?(?P<name>[^:=+\-−,;\d][^:=+,;]*?)"
    r"\s*(?:[:=]\s*)?(?:(?P<sign>[+\-−])?\s*(?P<mastery>[0-9]{1,4})\s*%?)?\s*",
    re.ASCII,
)
_SPECIALITY = re.compile(r"^(?P<base>[^()]+?)\s*\((?P<speciality>[^()]{1,40})\)$")


@dataclass(frozen=True, slots=True)
class SkillDef:
    id: str
    name: str
    name_en: str
    characteristic: str
    basic: bool  # basic in `renove` (the book's basic skills and the seven the seed makes basic)
    specialised: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SkillScore:
    """What a test of a skill rolls under, and how the target was reached."""

    skill: SkillDef
    label: str  # the sheet's name (with its speciality)
    characteristic: int
    mastery: int | None  # None: untrained
    target: int

    @property
    def trained(self) -> bool:
        return self.mastery is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill.id,
            "label": self.label,
            "characteristic": self.skill.characteristic,
            "characteristic_value": self.characteristic,
            "mastery": self.mastery,
            "trained": self.trained,
            "target": self.target,
        }


class SkillRefused(ValueError):
    """A skill test that cannot be made: ``key`` is a catalogue key, ``params`` its parameters."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class SkillBook:
    """The skills of ``data/skills.json`` (or the server's house rules), looked up by any name."""

    def __init__(self, skills: Iterable[SkillDef]) -> None:
        self.skills = tuple(skills)
        self._by_name: dict[str, SkillDef] = {}
        for skill in self.skills:
            for name in (skill.id.replace("_", " "), skill.name, skill.name_en, *skill.aliases):
                self._by_name.setdefault(fold(name), skill)

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> SkillBook:
        return cls(
            SkillDef(
                id=str(e["id"]),
                name=str(e["name"]["fr"]),
                name_en=str(e["name"]["en"]),
                characteristic=str(e["characteristic"]),
                basic=bool(e.get("basic_in_renove", e.get("kind") == "basic")),
                specialised=bool(e.get("specialised", False)),
                aliases=tuple(str(a) for a in e.get("aliases", ())),
            )
            for e in document["entries"]
        )

    def find(self, text: str) -> tuple[SkillDef, str] | None:
        """The skill named ``text`` and the sheet's label for it (« Langue (reikspiel) »)."""
        cleaned = " ".join(text.split())
        skill = self._by_name.get(fold(cleaned))
        if skill is not None:
            return skill, skill.name
        match = _SPECIALITY.match(cleaned)
        if match is not None:
            skill = self._by_name.get(fold(match["base"]))
            if skill is not None and skill.specialised:
                return skill, f"{skill.name} ({match['speciality'].strip()})"
        return None

    def shown(self, label: str, locale: str | None) -> str:
        """The sheet's label in the reader's language: « Langue (x) » → "Speak Language (x)"."""
        if not (locale or "").lower().startswith("en"):
            return label
        found = self.find(label)
        if found is None:
            return label
        skill, held = found
        return skill.name_en + held[len(skill.name) :] if held.startswith(skill.name) else skill.name_en

    def suggestions(self, text: str, *, english: bool = False) -> list[str]:
        names = {
            fold(s.name_en if english else s.name): s.name_en if english else s.name for s in self.skills
        }
        close = difflib.get_close_matches(fold(text), list(names), n=3, cutoff=0.6)
        return [names[c] for c in close]


def _sheet_entry(
    skills: Mapping[str, int], book: SkillBook, skill: SkillDef, label: str
) -> tuple[str, int] | None:
    """The sheet's entry for ``skill`` (its speciality when ``label`` has one)."""
    wanted = fold(label)
    for name, mastery in skills.items():
        if fold(name) == wanted:
            return name, int(mastery)
    if skill.specialised and label == skill.name:  # « Langue » asked, « Langue (reikspiel) » held
        for name, mastery in skills.items():
            found = book.find(name)
            if found is not None and found[0].id == skill.id:
                return name, int(mastery)
    return None


def skill_score(
    book: SkillBook, characteristics: Mapping[str, int], skills: Mapping[str, int], text: str
) -> SkillScore:
    """The target of a test of ``text`` for a sheet; refused (with the reason) when it cannot be made."""
    found = book.find(text)
    if found is None:
        raise SkillRefused("skills.error.unknown", skill=text.strip()[:SKILL_NAME_MAX])
    skill, label = found
    value = int(characteristics.get(skill.characteristic, 0))
    held = _sheet_entry(skills, book, skill, label)
    if held is not None:
        name, mastery = held
        return SkillScore(skill, name, value, mastery, value + mastery)
    if not skill.basic:
        raise SkillRefused(
            "skills.error.untrained_advanced", skill=label, characteristic=skill.characteristic
        )
    return SkillScore(skill, label, value, None, value // HALF)


def parse_skill_list(text: str) -> list[tuple[str, int | None, bool]]:
    """``"Esquive, Perception +10, Escalade:+20, -Fouille"`` → (name, mastery or None, removed)."""
    out: list[tuple[str, int | None, bool]] = []
    problems: list[Problem] = []
    for part in re.split(r"[,;\n]", text):
        if not part.strip():
            continue
        match = _ENTRY.fullmatch(part)
        if match is None or not match["name"].strip():
            problems.append(Problem("skills.error.unreadable", {"text": part.strip()[:40]}))
            continue
        name = " ".join(match["name"].split())
        if match["remove"]:
            if match["mastery"] is not None:
                problems.append(Problem("skills.error.unreadable", {"text": part.strip()[:40]}))
                continue
            out.append((name, None, True))
            continue
        if match["mastery"] is None and re.search(r"[:=+]\s*$", part):  # « Esquive: » without its mastery
            problems.append(Problem("skills.error.mastery", {"skill": name[:40], "value": part.strip()[:20]}))
            continue
        mastery = None if match["mastery"] is None else int(match["mastery"])
        if match["sign"] in ("-", "−") or (mastery is not None and mastery not in MASTERIES):
            problems.append(Problem("skills.error.mastery", {"skill": name[:40], "value": part.strip()[:20]}))
            continue
        out.append((name, mastery, False))
    if problems:
        raise SheetError(problems)
    return out


def apply_masteries(
    book: SkillBook, skills: Mapping[str, int], entries: Iterable[tuple[str, int | None, bool]]
) -> dict[str, int]:
    """The sheet's skills after ``entries`` (every problem raised at once, nothing half-applied)."""
    out = dict(skills)
    problems: list[Problem] = []
    for name, mastery, removed in entries:
        found = book.find(name)
        if found is None:
            close = book.suggestions(name)
            problems.append(
                Problem(
                    "skills.error.unknown_on_sheet",
                    {"skill": name[:40], "close": ", ".join(close) if close else "—"},
                )
            )
            continue
        skill, label = found
        if skill.specialised and label == skill.name:
            problems.append(Problem("skills.error.speciality", {"skill": skill.name}))
            continue
        key = next((k for k in out if fold(k) == fold(label)), label)
        if mastery is not None and mastery not in MASTERIES:
            problems.append(Problem("skills.error.mastery", {"skill": label, "value": str(mastery)}))
            continue
        if removed:
            if key not in out:
                problems.append(Problem("skills.error.not_on_sheet", {"skill": label}))
            out.pop(key, None)
            continue
        out.pop(key, None)
        out[label] = mastery or 0
    if len(out) > SKILLS_MAX:
        problems.append(Problem("characters.skill.too_many", {"max": SKILLS_MAX}))
    if problems:
        raise SheetError(problems)
    return out


def convert_absolute(
    book: SkillBook, characteristics: Mapping[str, int], skills: Mapping[str, int]
) -> tuple[dict[str, int], list[str]]:
    """Old sheets held skills as absolute percentages: the mastery where the value reaches the
    characteristic (rounded down to +0, +10 or +20); what cannot be read is returned by name."""
    out: dict[str, int] = {}
    unread: list[str] = []
    for name, value in skills.items():
        found = book.find(name)
        if found is None:
            unread.append(f"{name} {value}")
            continue
        skill, label = found
        if int(value) in MASTERIES and int(value) < int(characteristics.get(skill.characteristic, 0)):
            out[label] = int(value)  # already a mastery (typed as "Esquive:10")
            continue
        excess = int(value) - int(characteristics.get(skill.characteristic, 0))
        if excess < 0:
            unread.append(f"{name} {value}")
            continue
        out[label] = max(m for m in MASTERIES if m <= excess)
    return out, unread
