"""`renove` talents (``data/talents.json``): found by any name, the sheet's talent list, their effects.

A `renove` sheet holds known talents only, under their French name (« Coups précis »), found by
its French or English name or an alias, case and accents aside; Maîtrise is taken for a weapon
group, written with it in brackets: « Maîtrise (arbalètes) » (the group kept as typed). Anything else
is a free note, « Autre : texte libre ». An unknown name is refused with up to three close names;
every problem is reported at once and nothing is half-applied. Sheets written before the book keep
their unknown talents: the book ignores them (``unknown`` names them).

The commands read what a talent does from the book (``ids``, ``effects_of``), never from a
hard-coded name: a fight's talent ids, the chase's Fuite, the infection test's Dur à cuire.
Tireur d'élite and the book's other +5 talents are written into the base profile (seed 000,
l. 1253-1254: « Modifier le profil de base en conséquence »): ``base_profile_changes`` says by how
much when a talent is added or removed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.rules.sheets import TALENT_MAX, TALENTS_MAX, Problem, SheetError, fold

NOTE_PREFIX: Final = "Autre : "
_NOTE = re.compile(r"^\s*(?:autre|other)\s*:\s*(?P<text>.*)$", re.IGNORECASE | re.DOTALL)
_SPECIALITY = re.compile(r"^(?P<base>[^()]+?)\s*\((?P<speciality>[^()]{1,40})\)$")
SUGGESTIONS_MAX: Final = 3


@dataclass(frozen=True, slots=True)
class TalentDef:
    id: str
    name: str
    name_en: str
    aliases: tuple[str, ...] = ()
    specialised: bool = False
    modifies_base_profile: bool = False
    effects: tuple[Mapping[str, Any], ...] = ()


def note_text(name: str) -> str | None:
    """« Autre : texte » (« autre: … », « Other: … ») → the free text; None for anything else."""
    match = _NOTE.match(name)
    return None if match is None else " ".join(match["text"].split())


class TalentBook:
    """The talents of ``data/talents.json``, looked up by any name (the table's skills left out)."""

    def __init__(self, talents: Iterable[TalentDef]) -> None:
        self.talents = tuple(talents)
        self.by_id = {t.id: t for t in self.talents}
        self._by_name: dict[str, TalentDef] = {}
        for talent in self.talents:
            for name in (talent.name, talent.name_en, *talent.aliases, talent.id.replace("_", " ")):
                self._by_name.setdefault(fold(name), talent)

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> TalentBook:
        return cls(
            TalentDef(
                id=str(e["id"]),
                name=str(e["name"]),
                name_en=str(e["name_en"]),
                aliases=tuple(str(a) for a in e.get("aliases", ())),
                specialised=bool(e.get("specialised", False)),
                modifies_base_profile=bool(e.get("modifies_base_profile", False)),
                effects=tuple(e.get("effects", ())),
            )
            for e in document["entries"]
            if e.get("kind", "talent") == "talent"
        )

    def find(self, text: str) -> tuple[TalentDef, str] | None:
        """The talent named ``text`` and the sheet's label for it (« Maîtrise (arbalètes) »)."""
        cleaned = " ".join(text.split())
        talent = self._by_name.get(fold(cleaned))
        if talent is not None:
            return talent, talent.name
        match = _SPECIALITY.match(cleaned)
        if match is not None:
            talent = self._by_name.get(fold(match["base"]))
            if talent is not None and talent.specialised:
                return talent, f"{talent.name} ({match['speciality'].strip()})"
        return None

    def suggestions(self, text: str, *, english: bool = False) -> list[str]:
        """Up to three close names (difflib), in the language asked."""
        names: dict[str, str] = {}
        for talent in self.talents:
            shown = talent.name_en if english else talent.name
            for name in (talent.name, talent.name_en, *talent.aliases):
                names.setdefault(fold(name), shown)
        base = _SPECIALITY.match(" ".join(text.split()))
        wanted = fold(base["base"] if base else text)
        close = difflib.get_close_matches(wanted, list(names), n=SUGGESTIONS_MAX * 2, cutoff=0.6)
        return list(dict.fromkeys(names[c] for c in close))[:SUGGESTIONS_MAX]

    def ids(self, names: Iterable[str]) -> frozenset[str]:
        """The ids of the known talents among a sheet's names (notes and unknown names ignored)."""
        return frozenset(found[0].id for found in map(self.find, names) if found is not None)

    def has(self, names: Iterable[str], talent_id: str) -> bool:
        return talent_id in self.ids(names)

    def unknown(self, names: Iterable[str]) -> list[str]:
        """The sheet's names that are neither a known talent nor a note (sheets older than the book)."""
        return [n for n in names if note_text(n) is None and self.find(n) is None]

    def effects_of(self, names: Iterable[str], effect_type: str) -> list[tuple[str, Mapping[str, Any]]]:
        """(talent id, effect) of the given type, for the known talents among ``names``."""
        return [
            (tid, effect)
            for tid in sorted(self.ids(names))
            for effect in self.by_id[tid].effects
            if effect.get("type") == effect_type
        ]


def _base_profile_effects(talent: TalentDef) -> dict[str, int]:
    if not talent.modifies_base_profile:
        return {}
    return {
        str(e["stat"]): int(e["value"])
        for e in talent.effects
        if e.get("type") == "modifier" and e.get("scope") == "always" and "value" in e
    }


@dataclass(frozen=True, slots=True)
class TalentChange:
    talents: list[str]  # the sheet's list after the change
    added: tuple[str, ...] = ()  # ids of the talents added
    removed: tuple[str, ...] = ()  # ids of the talents removed


def apply_talent_changes(
    book: TalentBook, talents: Iterable[str], add: Iterable[str], remove: Iterable[str]
) -> TalentChange:
    """The sheet's talents after adding and removing names: known talents (stored under their French
    name) or « Autre : … » notes; every problem raised at once, nothing half-applied."""
    out = list(talents)
    problems: list[Problem] = []
    added: list[str] = []
    removed: list[str] = []
    for raw in remove:
        found = book.find(raw)
        note = note_text(raw)
        wanted = fold(found[1] if found else (NOTE_PREFIX + note if note is not None else raw))
        kept = [x for x in out if fold(x) != wanted and not (note is not None and note_text(x) == note)]
        if len(kept) == len(out):
            problems.append(Problem("characters.talent.not_present", {"name": raw.strip()[:40]}))
        elif found is not None:
            removed.append(found[0].id)
        out = kept
    for raw in add:
        cleaned = " ".join(raw.split())
        note = note_text(cleaned)
        if note is not None:
            if not note:
                problems.append(Problem("talents.error.empty_note"))
                continue
            label = NOTE_PREFIX + note
        else:
            found = book.find(cleaned)
            if found is None:
                close = book.suggestions(cleaned)
                problems.append(
                    Problem(
                        "talents.error.unknown" if close else "talents.error.unknown_no_close",
                        {"talent": cleaned[:40], "close": ", ".join(close)},
                    )
                )
                continue
            talent, label = found
            if talent.specialised and label == talent.name:
                problems.append(Problem("talents.error.speciality", {"talent": talent.name}))
                continue
            if fold(label) not in {fold(x) for x in out}:
                added.append(talent.id)
        if len(label) > TALENT_MAX:
            problems.append(Problem("characters.talent.too_long", {"max": TALENT_MAX}))
            continue
        if fold(label) not in {fold(x) for x in out}:
            out.append(label)
    if len(out) > TALENTS_MAX:
        problems.append(Problem("characters.talent.too_many", {"max": TALENTS_MAX}))
    if problems:
        raise SheetError(problems)
    return TalentChange(out, tuple(added), tuple(r for r in removed if r not in added))


def base_profile_changes(book: TalentBook, change: TalentChange) -> dict[str, int]:
    """What the added and removed talents write into the base profile: {"CT": +5} for Tireur d'élite."""
    deltas: dict[str, int] = {}
    for sign, ids in ((1, change.added), (-1, change.removed)):
        for tid in ids:
            for stat, value in _base_profile_effects(book.by_id[tid]).items():
                deltas[stat] = deltas.get(stat, 0) + sign * value
    return {stat: value for stat, value in deltas.items() if value}
