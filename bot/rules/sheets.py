"""Character sheets per ruleset: which characteristics exist, their ranges, what is computed.

Pure: standard library only. Problems are returned as ``Problem(key, params)`` where ``key``
is a catalogue key (``characters.stat.unknown`` …); the service layer translates them.

Kinds of characteristic:

* **primary** — typed by the player, with a range; required or with a default;
* **current** — a running value (current Blessures, PV, PC, fortune points …) defaulting to
  its maximum, changed during play;
* **computed** — always derived from the others (BF = F // 10, PV max = 35 + CON …); never typed.

`renove` sheets (seed 000): every character of a playable race — NPCs too — adds +3 to BF, BE and BA
("Ajouter +3 BF, BE et BA à chaque personnage", l. 1240), applied once, here, so every command reads
the same bonus; creatures ("autre") do not. The seed deletes the Blessures ("Les points de Blessure
sont supprimés", l. 1325): a `renove` sheet has no B. PF are Points de Folie (insanity), PD Points de
Destin; Fortune points (spelled out) refill to PD each session, as in WFRP 2e.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from bot.rules.names import DEFAULT_GENDER, GENDERS, parse_gender
from bot.rules.wounds import empty_record, read_record

RULESETS: Final = ("renove", "v1", "d20", "ogl")

NAME_MAX: Final = 64
SKILL_NAME_MAX: Final = 64
SKILLS_MAX: Final = 100
TALENTS_MAX: Final = 100
TALENT_MAX: Final = 64
CONDITIONS_MAX: Final = 30
CONDITION_MAX: Final = 64
NOTES_MAX: Final = 2000
VALUE_MAX: Final = 999
ARMOUR_ZONES: Final = ("tete", "corps", "bras", "jambes")

RACES: Final = ("humain", "nain", "elfe", "halfling", "autre")
PLAYABLE_RACES: Final = frozenset({"humain", "nain", "elfe", "halfling"})
DEFAULT_RACE: Final = "humain"
RACE_BONUS: Final = 3  # seed 000 l. 1240 (creatures_bf.json "playable_bonus": BF, BE, BA +3)
_RACE_WORDS: Final = {
    "humain": "humain",
    "humaine": "humain",
    "human": "humain",
    "homme": "humain",
    "nain": "nain",
    "naine": "nain",
    "dwarf": "nain",
    "elfe": "elfe",
    "elf": "elfe",
    "halfling": "halfling",
    "hobbit": "halfling",
    "autre": "autre",
    "other": "autre",
    "creature": "autre",
    "monstre": "autre",
    "monster": "autre",
}
_BONUS: Final = "_race_bonus"  # passed to the derivations, never stored
CAREER_MAX: Final = 64
XP_MAX: Final = 99_999
MONEY_UNITS: Final = ("co", "pa", "s")  # couronnes d'or, pistoles d'argent, sous de cuivre
MONEY_MAX: Final = 999_999


@dataclass(frozen=True, slots=True)
class Problem:
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


class SheetError(Exception):
    """One or more problems with the data a user gave."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(p.key for p in self.problems))


Derive = Callable[[Mapping[str, int]], int]


@dataclass(frozen=True, slots=True)
class Stat:
    code: str
    minimum: int = 0
    maximum: int = 100
    required: bool = False
    default: int | None = None
    kind: str = "primary"  # primary | current | computed
    derive: Derive | None = None  # computed value, or the default (maximum) of a current value
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RulesetSheet:
    ruleset: str
    stats: tuple[Stat, ...]
    # d20: skills are Inné/Acquis pairs.
    innate_skills: bool = False

    def stat(self, code: str) -> Stat:
        for stat in self.stats:
            if stat.code == code:
                return stat
        raise KeyError(code)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(s.code for s in self.stats)

    @property
    def settable(self) -> tuple[str, ...]:
        return tuple(s.code for s in self.stats if s.kind != "computed")

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(s.code for s in self.stats if s.required)

    def canonical(self, code: str) -> str | None:
        wanted = fold(code)
        for stat in self.stats:
            if fold(stat.code) == wanted or wanted in (fold(a) for a in stat.aliases):
                return stat.code
        return None


def _pct(code: str, *aliases: str) -> Stat:
    return Stat(code, 0, 100, required=True, aliases=aliases)


def _tens(source: str) -> Derive:
    return lambda values: values.get(source, 0) // 10


def _bonus(source: str) -> Derive:
    """`renove` BF/BE/BA: the tens of the characteristic, +3 for a playable race (see the docstring)."""
    return lambda values: values.get(source, 0) // 10 + values.get(_BONUS, 0)


def _ogl_hp(values: Mapping[str, int]) -> int:
    # RuneQuest: total hit points = (CON + SIZ) / 2, rounded up.
    return -(-(values.get("CON", 0) + values.get("SIZ", 0)) // 2)


SHEETS: Final[dict[str, RulesetSheet]] = {
    "renove": RulesetSheet(
        "renove",
        (
            _pct("CC", "WS"),
            _pct("CT", "BS"),
            _pct("F", "S"),
            _pct("E", "T"),
            _pct("Ag"),
            _pct("Int"),
            _pct("FM", "WP"),
            _pct("Soc", "Fel"),
            Stat("A", 0, 10, default=1),
            Stat("M", 0, 20, default=4),
            Stat("Mag", 0, 10, default=0),
            Stat("BF", 0, 20, kind="computed", derive=_bonus("F"), aliases=("SB",)),
            Stat("BE", 0, 20, kind="computed", derive=_bonus("E"), aliases=("TB",)),
            Stat("BA", 0, 20, kind="computed", derive=_bonus("Ag"), aliases=("AB",)),
            Stat("PF", 0, 99, default=0, aliases=("Folie", "IP", "Insanity")),
            Stat("PD", 0, 20, default=0, aliases=("Destin", "Fate", "FP")),
            Stat("Fortune", 0, 20, kind="current", derive=lambda v: v.get("PD", 0), aliases=("PFo",)),
        ),
    ),
    "v1": RulesetSheet(
        "v1",
        (
            _pct("CC", "WS"),
            _pct("CT", "BS"),
            Stat("F", 0, 10, required=True, aliases=("S",)),
            Stat("E", 0, 10, required=True, aliases=("T",)),
            Stat("B", 1, 50, required=True, aliases=("W", "Blessures")),
            _pct("I"),
            Stat("A", 0, 10, default=1),
            Stat("M", 0, 20, default=4),
            _pct("Dex"),
            _pct("Cd", "Ld"),
            _pct("Int"),
            _pct("Cl", "Cool"),
            _pct("FM", "WP"),
            _pct("Soc", "Fel"),
            Stat("Bact", -50, 50, kind="current", derive=lambda v: v.get("B", 0)),
            # Points de Folie (seed 001 l. 47: « Terreur | Cl | Cible inerte, +1 pts Folie »): on
            # the sheet once one is gained, written by a failed Terreur test
            Stat("PF", 0, 99, aliases=("Folie", "IP", "Insanity")),
        ),
    ),
    "d20": RulesetSheet(
        "d20",
        (
            Stat("FOR", 1, 30, required=True, aliases=("STR",)),
            Stat("CON", 1, 30, required=True),
            Stat("AGI", 1, 30, required=True),
            Stat("DEX", 1, 30, required=True),
            Stat("PER", 1, 30, required=True),
            Stat("INT", 1, 30, required=True),
            Stat("VOL", 1, 30, required=True, aliases=("WIL",)),
            Stat("CHA", 1, 30, required=True),
            Stat("PVmax", 0, 200, kind="computed", derive=lambda v: 35 + v.get("CON", 0)),
            Stat("PCmax", 0, 200, kind="computed", derive=lambda v: 2 * v.get("CON", 0)),
            Stat("PV", -200, 200, kind="current", derive=lambda v: 35 + v.get("CON", 0)),
            Stat("PC", -200, 200, kind="current", derive=lambda v: 2 * v.get("CON", 0)),
        ),
        innate_skills=True,
    ),
    "ogl": RulesetSheet(
        "ogl",
        (
            Stat("STR", 1, 50, required=True, aliases=("FOR",)),
            Stat("CON", 1, 50, required=True),
            Stat("SIZ", 1, 50, required=True, aliases=("TAI",)),
            Stat("INT", 1, 50, required=True),
            Stat("POW", 1, 50, required=True, aliases=("POU",)),
            Stat("DEX", 1, 50, required=True),
            Stat("CHA", 1, 50, required=True),
            Stat("PVmax", 0, 100, kind="computed", derive=_ogl_hp),
            Stat("PV", -100, 100, kind="current", derive=_ogl_hp),
            # Hit points per location: the seed prints no formula, so they are the GM's to set
            # (HP.tete:5); unset, location_hp's RuneQuest split is only a suggestion.
            *(
                Stat(f"HP.{loc}", 1, 50, aliases=(f"PV.{loc}", loc))
                for loc in ("jambe_d", "jambe_g", "abdomen", "poitrine", "bras_d", "bras_g", "tete")
            ),
        ),
    ),
}

# OGL hit points per location: share of the total, rounded up (RuneQuest's table).
OGL_LOCATIONS: Final = (
    ("jambe_d", 1, 3),
    ("jambe_g", 1, 3),
    ("abdomen", 1, 3),
    ("poitrine", 2, 5),
    ("bras_d", 1, 4),
    ("bras_g", 1, 4),
    ("tete", 1, 3),
)


def location_hp(characteristics: Mapping[str, int]) -> dict[str, int]:
    """HP per location: the sheet's own (``HP.tete`` …) where the GM set them, else the suggestion
    (a share of the total, rounded up, as RuneQuest splits it)."""
    total = _ogl_hp(characteristics)
    suggested = {name: max(1, -(-total * num // den)) for name, num, den in OGL_LOCATIONS}
    return {name: int(characteristics.get(f"HP.{name}", hp)) for name, hp in suggested.items()}


def location_hp_set(characteristics: Mapping[str, int]) -> frozenset[str]:
    """The locations whose HP the GM set on the sheet (the others are suggestions)."""
    return frozenset(name for name, _, _ in OGL_LOCATIONS if f"HP.{name}" in characteristics)


# The English abbreviations of the characteristics (WFRP's own: WS, BS, S, T, WP, Fel, SB, TB …),
# shown to English users and accepted from everyone as the French codes' aliases.
ENGLISH_CODES: Final = {
    "CC": "WS", "CT": "BS", "F": "S", "E": "T", "FM": "WP", "Soc": "Fel", "BF": "SB", "BE": "TB",
    "BA": "AB", "Cd": "Ld", "Cl": "Cool", "B": "W", "PF": "IP", "PD": "FP", "FOR": "STR", "VOL": "WIL",
}  # fmt: skip


def shown_code(code: str, english: bool) -> str:
    """``CC`` for French users, ``WS`` for English ones (other codes as they are: Ag, Int, A, M)."""
    return ENGLISH_CODES.get(code, code) if english else code


def sheet_for(ruleset: str) -> RulesetSheet:
    try:
        return SHEETS[ruleset]
    except KeyError:
        raise SheetError([Problem("characters.error.unknown_ruleset", {"ruleset": ruleset})]) from None


def fold(text: str) -> str:
    """Case- and accent-insensitive key: "Épée Longue" → "epee longue"."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())


# -- race and the profile beyond the characteristics -----------------------------------------


def race_bonus(ruleset: str, race: str | None) -> int:
    """The `renove` +3 to BF, BE and BA of a playable race (a sheet without a race is human)."""
    if ruleset != "renove":
        return 0
    return RACE_BONUS if (race or DEFAULT_RACE) in PLAYABLE_RACES else 0


def parse_race(text: str) -> str:
    """« Nain », « dwarf », « Humaine » → the race id; anything else is a problem listing the races."""
    race = _RACE_WORDS.get(fold(text).replace("-", " "))
    if race is None:
        raise SheetError([Problem("characters.race.unknown", {"race": text.strip()[:30]})])
    return race


def check_gender(text: str) -> str:
    """« f », « féminin », « female », « m », « masculin » → ``"f"`` / ``"m"``; anything else is a problem."""
    gender = parse_gender(text)
    if gender is None:
        raise SheetError([Problem("characters.gender.unknown", {"gender": text.strip()[:30]})])
    return gender


@dataclass(frozen=True, slots=True)
class Profile:
    """What a WFRP sheet keeps beside the numbers: race, career, experience, purse."""

    race: str = DEFAULT_RACE
    career: str = ""
    xp_total: int = 0
    xp_spent: int = 0
    money: tuple[int, int, int] = (0, 0, 0)  # co, pa, s
    # d20: the skills that are a Savoir (no test without Acquis, seed 003 l. 9); the others are Instinct.
    knowledge: tuple[str, ...] = ()
    # The grammatical gender the replies agree with (« Élise est touchée »): "m" (default) or "f".
    gender: str = DEFAULT_GENDER

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "race": self.race,
            "career": self.career,
            "xp": {"total": self.xp_total, "spent": self.xp_spent},
            "money": dict(zip(MONEY_UNITS, self.money, strict=True)),
        }
        if self.knowledge:
            out["knowledge"] = list(self.knowledge)
        if self.gender != DEFAULT_GENDER:
            out["gender"] = self.gender
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Profile:
        data = data or {}
        xp = data.get("xp") or {}
        money = data.get("money") or {}
        race = str(data.get("race") or DEFAULT_RACE)
        return cls(
            race=race if race in RACES else DEFAULT_RACE,
            career=str(data.get("career") or ""),
            xp_total=int(xp.get("total", 0)),
            xp_spent=int(xp.get("spent", 0)),
            money=(int(money.get("co", 0)), int(money.get("pa", 0)), int(money.get("s", 0))),
            knowledge=tuple(str(k) for k in data.get("knowledge") or ()),
            gender=str(data["gender"]) if data.get("gender") in GENDERS else DEFAULT_GENDER,
        )


_KIND_WORDS: Final = {"savoir": True, "knowledge": True, "instinct": False}


def split_d20_kinds(text: str, profile: Profile) -> tuple[str, Profile]:
    """d20 ``"Histoire:6/2 savoir, Escalade:8/0 instinct"``: the skills without their kind word, and
    the profile's Savoir list updated (a skill named without a kind keeps the one it had)."""
    kept: list[str] = []
    knowledge = {fold(k): k for k in profile.knowledge}
    for part in re.split(r"[,;\n]", text):
        words = part.split()
        if words and fold(words[-1]) in _KIND_WORDS and len(words) > 1:
            name = " ".join(words[:-1]).partition(":")[0].strip()
            if _KIND_WORDS[fold(words[-1])]:
                knowledge[fold(name)] = name
            else:
                knowledge.pop(fold(name), None)
            words = words[:-1]
        if words:
            kept.append(" ".join(words))
    return ", ".join(kept), replace(profile, knowledge=tuple(knowledge.values()))


_XP = re.compile(r"\s*([+\-−]?)([0-9]{1,6})\s*(?:/\s*([0-9]{1,6}))?\s*", re.ASCII)
_COIN = re.compile(
    r"([+\-−]?)\s*([0-9]{1,7})\s*(co|pa|s|couronnes?|pistoles?|sous?|gc|ss|p)\b", re.ASCII | re.I
)
_COIN_UNIT: Final = {
    "co": 0,
    "couronne": 0,
    "couronnes": 0,
    "gc": 0,
    "pa": 1,
    "pistole": 1,
    "pistoles": 1,
    "ss": 1,
    "s": 2,
    "sou": 2,
    "sous": 2,
    "p": 2,
}


def apply_xp(profile: Profile, text: str) -> Profile:
    """``"120"`` total, ``"120/80"`` total and spent, ``"+50"`` gained, ``"-30"`` spent."""
    match = _XP.fullmatch(text)
    if match is None:
        raise SheetError([Problem("characters.xp.unreadable", {"text": text.strip()[:30]})])
    sign, first, spent = match.group(1), int(match.group(2)), match.group(3)
    total, used = profile.xp_total, profile.xp_spent
    if sign == "+":
        total += first
    elif sign:
        used += first
    else:
        total = first
        used = int(spent) if spent is not None else used
    if spent is not None and sign:
        raise SheetError([Problem("characters.xp.unreadable", {"text": text.strip()[:30]})])
    if not 0 <= used <= total <= XP_MAX:
        raise SheetError([Problem("characters.xp.range", {"total": total, "spent": used, "max": XP_MAX})])
    return replace(profile, xp_total=total, xp_spent=used)


def apply_money(profile: Profile, text: str) -> Profile:
    """``"3 co 5 pa 10 s"`` sets the purse; ``"+2 co"``, ``"-5 s"`` change it (no change given: refused)."""
    wanted = text.strip()
    purse = list(profile.money)
    setting = [0, 0, 0]
    relative = False
    position = 0
    found = False
    absolute = False
    for match in _COIN.finditer(wanted):
        if wanted[position : match.start()].strip(" ,;"):
            break
        sign, amount, unit = match.group(1), int(match.group(2)), _COIN_UNIT[match.group(3).lower()]
        found = True
        position = match.end()
        if sign:
            relative = True
            purse[unit] += -amount if sign in "-−" else amount
        else:
            absolute = True
            setting[unit] += amount
    if not found or wanted[position:].strip(" ,;") or (relative and absolute):
        raise SheetError([Problem("characters.money.unreadable", {"text": wanted[:30]})])
    result = purse if relative else setting
    if any(not 0 <= v <= MONEY_MAX for v in result):
        raise SheetError([Problem("characters.money.range", {"max": MONEY_MAX})])
    return replace(profile, money=(result[0], result[1], result[2]))


def check_career(text: str) -> str:
    cleaned = " ".join(text.split())
    if len(cleaned) > CAREER_MAX:
        raise SheetError([Problem("characters.career.too_long", {"max": CAREER_MAX})])
    if any(ch in cleaned for ch in "`*_~|<>@#"):
        raise SheetError([Problem("characters.error.name_chars")])
    return cleaned


# -- compact strings -------------------------------------------------------------------------

_PAIR = re.compile(
    r"\s*([^:=,;\s][^:=,;]*?)\s*[:=]\s*([+-]?[0-9]{1,6})(?:/([0-9]{1,6}))?\s*(?:[,;]\s*|(?=\s)|$)"
)


@dataclass(frozen=True, slots=True)
class Change:
    name: str
    value: int
    relative: bool = False  # "+5" / "-5": add to the current value
    second: int | None = None  # d20 skills "Inné/Acquis": the Acquis part


def parse_pairs(text: str) -> list[Change]:
    """``"CC:45 CT:30, F=+5"`` → changes; raises SheetError pointing at what it cannot read."""
    changes: list[Change] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _PAIR.match(text, position)
        if match is None or match.end() == position:
            rest = text[position:].strip()
            raise SheetError([Problem("characters.error.unreadable", {"text": rest[:40]})])
        raw = match.group(2)
        changes.append(
            Change(
                name=match.group(1).strip(),
                value=int(raw),
                relative=raw[0] in "+-",
                second=int(match.group(3)) if match.group(3) is not None else None,
            )
        )
        position = match.end()
    if not changes:
        raise SheetError([Problem("characters.error.unreadable", {"text": text[:40]})])
    return changes


def parse_list(text: str) -> tuple[list[str], list[str]]:
    """``"Ambidextre, -Sang-froid, +Résistance"`` → (to add, to remove)."""
    add: list[str] = []
    remove: list[str] = []
    for part in re.split(r"[,;\n]", text):
        item = part.strip()
        if not item:
            continue
        if item.startswith("-"):
            item = item[1:].strip()
            if item:
                remove.append(item)
        else:
            item = item.removeprefix("+").strip()
            if item:
                add.append(item)
    return add, remove


# -- characteristics -------------------------------------------------------------------------


def apply_stat_changes(
    ruleset: str, previous: Mapping[str, int] | None, changes: Iterable[Change], *, race: str | None = None
) -> dict[str, int]:
    """New characteristics from ``previous`` (None at creation) and ``changes``; every problem raised."""
    sheet = sheet_for(ruleset)
    problems: list[Problem] = []
    given: dict[str, int] = {}
    base = dict(previous or {})
    for change in changes:
        code = sheet.canonical(change.name)
        if code is None:
            problems.append(
                Problem(
                    "characters.stat.unknown",
                    {"stat": change.name[:20], "known": " ".join(sheet.settable), "ruleset": ruleset},
                )
            )
            continue
        if sheet.stat(code).kind == "computed":
            problems.append(Problem("characters.stat.computed", {"stat": code}))
            continue
        if code in given:
            problems.append(Problem("characters.stat.twice", {"stat": code}))
            continue
        if change.relative and previous is not None:
            current = base.get(code)
            if current is None:
                current = _default_of(sheet.stat(code), {**base, **given}) or 0
            given[code] = current + change.value
        else:
            given[code] = change.value
    try:
        result = validate_characteristics(
            ruleset, {**base, **given}, reset_current=previous is None, race=race
        )
    except SheetError as exc:
        raise SheetError(problems + exc.problems) from None
    if problems:
        raise SheetError(problems)
    return result


def _range_problems(
    sheet: RulesetSheet, values: Mapping[str, int], *, kinds: tuple[str, ...]
) -> list[Problem]:
    out = []
    for stat in sheet.stats:
        number = values.get(stat.code)
        if number is not None and stat.kind in kinds and not stat.minimum <= number <= stat.maximum:
            out.append(
                Problem(
                    "characters.stat.range",
                    {"stat": stat.code, "value": number, "min": stat.minimum, "max": stat.maximum},
                )
            )
    return out


def _default_of(stat: Stat, values: Mapping[str, int]) -> int | None:
    if stat.derive is not None:
        return stat.derive(values)
    return stat.default


def validate_characteristics(
    ruleset: str, values: Mapping[str, int], *, reset_current: bool = False, race: str | None = None
) -> dict[str, int]:
    """Check ranges and required stats, fill defaults, recompute computed ones; raise every problem.

    Keys are canonical codes; unknown keys are problems; computed keys in ``values`` are ignored.
    ``race`` (default: a human) gives the `renove` +3 to BF, BE and BA of a playable race.
    """
    sheet = sheet_for(ruleset)
    problems: list[Problem] = []
    out: dict[str, int] = {}
    for key, value in values.items():
        code = sheet.canonical(key)
        if code is None:
            problems.append(
                Problem(
                    "characters.stat.unknown",
                    {"stat": str(key)[:20], "known": " ".join(sheet.settable), "ruleset": ruleset},
                )
            )
            continue
        if sheet.stat(code).kind == "computed":
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(Problem("characters.stat.not_integer", {"stat": code}))
            continue
        out[code] = value
    missing = [code for code in sheet.required if code not in out]
    if missing:
        problems.append(Problem("characters.stat.missing", {"stats": " ".join(missing), "ruleset": ruleset}))
    if problems:
        problems.extend(_range_problems(sheet, out, kinds=("primary",)))
        raise SheetError(problems)
    for stat in sheet.stats:
        if stat.kind == "primary" and stat.code not in out and stat.default is not None:
            out[stat.code] = stat.default
    derived = {**out, _BONUS: race_bonus(ruleset, race)}
    for stat in sheet.stats:
        if stat.kind == "computed" and stat.derive is not None:
            out[stat.code] = derived[stat.code] = stat.derive(derived)
    for stat in sheet.stats:
        if stat.kind == "current" and (stat.code not in out or (reset_current and stat.code not in values)):
            default = _default_of(stat, out)
            if default is not None:
                out[stat.code] = default
    problems.extend(_range_problems(sheet, out, kinds=("primary", "current")))
    if problems:
        raise SheetError(problems)
    return {stat.code: out[stat.code] for stat in sheet.stats if stat.code in out}


# -- skills, talents, conditions -------------------------------------------------------------


def _find_key(mapping: Mapping[str, Any], name: str) -> str | None:
    wanted = fold(name)
    return next((k for k in mapping if fold(k) == wanted), None)


def apply_skill_changes(
    ruleset: str,
    skills: Mapping[str, int],
    innate: Mapping[str, int],
    changes: Iterable[Change],
) -> tuple[dict[str, int], dict[str, int]]:
    """Set (``Nom:45``), adjust (``Nom:+5``) or remove (``Nom:0``) skills; d20 takes ``Nom:Inné/Acquis``."""
    sheet = sheet_for(ruleset)
    new_skills = dict(skills)
    new_innate = dict(innate)
    problems: list[Problem] = []
    for change in changes:
        name = " ".join(change.name.split())
        if len(name) > SKILL_NAME_MAX:
            problems.append(Problem("characters.skill.name_too_long", {"max": SKILL_NAME_MAX}))
            continue
        key = _find_key(new_skills, name) or name
        if change.second is not None:
            if not sheet.innate_skills:
                problems.append(Problem("characters.skill.no_innate", {"skill": name, "ruleset": ruleset}))
                continue
            innate_value, value = change.value, change.second
            if not 0 <= innate_value <= VALUE_MAX:
                problems.append(
                    Problem(
                        "characters.skill.range",
                        {"skill": name, "value": innate_value, "max": VALUE_MAX},
                    )
                )
                continue
            new_innate[key] = innate_value
        elif change.relative:
            value = new_skills.get(key, 0) + change.value
        else:
            value = change.value
        if value == 0 and change.second is None:
            new_skills.pop(key, None)
            new_innate.pop(key, None)
            continue
        if not 0 <= value <= VALUE_MAX:
            problems.append(
                Problem("characters.skill.range", {"skill": name, "value": value, "max": VALUE_MAX})
            )
            continue
        new_skills[key] = value
    if len(new_skills) > SKILLS_MAX:
        problems.append(Problem("characters.skill.too_many", {"max": SKILLS_MAX}))
    if problems:
        raise SheetError(problems)
    return new_skills, new_innate


def apply_list_changes(
    items: Iterable[str],
    add: Iterable[str],
    remove: Iterable[str],
    *,
    item_max: int,
    count_max: int,
    kind: str,
) -> list[str]:
    """Add and remove names (case/accents-insensitive); ``kind`` is "talent" or "condition"."""
    out = list(items)
    problems: list[Problem] = []
    for name in remove:
        wanted = fold(name)
        kept = [x for x in out if fold(x) != wanted]
        if len(kept) == len(out):
            problems.append(Problem(f"characters.{kind}.not_present", {"name": name[:40]}))
        out = kept
    for raw in add:
        name = " ".join(raw.split())
        if len(name) > item_max:
            problems.append(Problem(f"characters.{kind}.too_long", {"max": item_max}))
            continue
        if fold(name) not in {fold(x) for x in out}:
            out.append(name)
    if len(out) > count_max:
        problems.append(Problem(f"characters.{kind}.too_many", {"max": count_max}))
    if problems:
        raise SheetError(problems)
    return out


def check_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise SheetError([Problem("characters.error.name_empty")])
    if len(cleaned) > NAME_MAX:
        raise SheetError([Problem("characters.error.name_too_long", {"max": NAME_MAX})])
    if any(ch in cleaned for ch in "`*_~|<>@#"):
        raise SheetError([Problem("characters.error.name_chars")])
    return cleaned


# -- import documents ------------------------------------------------------------------------

EXPORT_FORMAT: Final = "melee.character"
EXPORT_VERSION: Final = 3
# version 1: no profile, `renove` "PF" was Fortune; version 2: no wounds (bot.rules.wounds)
READABLE_VERSIONS: Final = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class SheetData:
    """A sheet as imported or exported (no ids, no owner)."""

    name: str
    ruleset: str
    characteristics: dict[str, int]
    skills: dict[str, int] = field(default_factory=dict)
    skill_innate: dict[str, int] = field(default_factory=dict)
    talents: list[str] = field(default_factory=list)
    weapons: list[str] = field(default_factory=list)
    armour: list[str] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    notes: str = ""
    is_npc: bool = False
    profile: dict[str, Any] = field(default_factory=lambda: Profile().to_dict())
    wounds: dict[str, Any] = field(default_factory=empty_record)
    off_hand: str | None = None  # the weapon held in the off hand, as the player said (seed l. 1015)


def export_document(data: SheetData) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "name": data.name,
        "ruleset": data.ruleset,
        "is_npc": data.is_npc,
        "characteristics": data.characteristics,
        "skills": data.skills,
        "skill_innate": data.skill_innate,
        "talents": data.talents,
        "equipment": {
            "weapons": data.weapons,
            "armour": data.armour,
            **({"off_hand": data.off_hand} if data.off_hand else {}),
        },
        "conditions": data.conditions,
        "notes": data.notes,
        "profile": data.profile,
        "wounds": data.wounds,
    }


_KNOWN_FIELDS: Final = frozenset(export_document(SheetData("x", "renove", {})))


def _int_map(document: Mapping[str, Any], key: str, problems: list[Problem]) -> dict[str, int]:
    value = document.get(key, {})
    if not isinstance(value, dict):
        problems.append(Problem("characters.import.not_object", {"field": key}))
        return {}
    out: dict[str, int] = {}
    for name, number in value.items():
        if isinstance(number, bool) or not isinstance(number, int):
            problems.append(Problem("characters.import.not_integer", {"field": f"{key}.{str(name)[:30]}"}))
        else:
            out[str(name)] = number
    return out


def _str_list(value: Any, key: str, problems: list[Problem]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        problems.append(Problem("characters.import.not_string_list", {"field": key}))
        return []
    return list(value)


def read_document(document: Any) -> SheetData:
    """Validate an exported sheet; raise SheetError listing every problem found."""
    if not isinstance(document, dict):
        raise SheetError([Problem("characters.import.not_object", {"field": "(document)"})])
    problems: list[Problem] = []
    if document.get("format") != EXPORT_FORMAT:
        problems.append(Problem("characters.import.format", {"format": EXPORT_FORMAT}))
    version = document.get("format_version")
    if version not in READABLE_VERSIONS:
        problems.append(Problem("characters.import.format_version", {"version": EXPORT_VERSION}))
    unknown = sorted(set(document) - _KNOWN_FIELDS)
    if unknown:
        problems.append(Problem("characters.import.unknown_fields", {"fields": ", ".join(unknown)[:200]}))
    name = document.get("name")
    if not isinstance(name, str):
        problems.append(Problem("characters.import.not_string", {"field": "name"}))
        name = ""
    else:
        try:
            name = check_name(name)
        except SheetError as exc:
            problems.extend(exc.problems)
    ruleset = document.get("ruleset")
    if ruleset not in RULESETS:
        problems.append(Problem("characters.error.unknown_ruleset", {"ruleset": str(ruleset)[:20]}))
    is_npc = document.get("is_npc", False)
    if not isinstance(is_npc, bool):
        problems.append(Problem("characters.import.not_boolean", {"field": "is_npc"}))
        is_npc = False
    characteristics = _int_map(document, "characteristics", problems)
    if version == 1 and ruleset == "renove" and "PF" in characteristics:
        # Version 1 kept Fortune points under "PF"; on a WFRP 2e sheet PF are Points de Folie.
        characteristics["Fortune"] = characteristics.pop("PF")
    profile = _profile(document.get("profile"), problems)
    wounds, wound_problems = read_record(document.get("wounds"))
    problems.extend(Problem(key, params) for key, params in wound_problems)
    skills = _int_map(document, "skills", problems)
    innate = _int_map(document, "skill_innate", problems)
    talents = _str_list(document.get("talents", []), "talents", problems)
    conditions = _str_list(document.get("conditions", []), "conditions", problems)
    equipment = document.get("equipment", {})
    weapons: list[str] = []
    armour: list[str] = []
    off_hand: str | None = None
    if not isinstance(equipment, dict):
        problems.append(Problem("characters.import.not_object", {"field": "equipment"}))
    else:
        weapons = _str_list(equipment.get("weapons", []), "equipment.weapons", problems)
        armour = _str_list(equipment.get("armour", []), "equipment.armour", problems)
        held = equipment.get("off_hand")
        off_hand = held if isinstance(held, str) and held in weapons else None
        extra = sorted(set(equipment) - {"weapons", "armour", "off_hand"})
        if extra:
            problems.append(
                Problem(
                    "characters.import.unknown_fields", {"fields": ", ".join(f"equipment.{e}" for e in extra)}
                )
            )
    notes = document.get("notes", "")
    if not isinstance(notes, str):
        problems.append(Problem("characters.import.not_string", {"field": "notes"}))
        notes = ""
    elif len(notes) > NOTES_MAX:
        problems.append(Problem("characters.error.notes_too_long", {"max": NOTES_MAX}))
    if isinstance(ruleset, str) and ruleset in RULESETS:
        try:
            characteristics = validate_characteristics(ruleset, characteristics, race=profile.race)
        except SheetError as exc:
            problems.extend(exc.problems)
        try:
            changes = [Change(k, v) for k, v in skills.items()]
            skills, _ = apply_skill_changes(ruleset, {}, {}, changes)
            if innate and not sheet_for(ruleset).innate_skills:
                problems.append(
                    Problem("characters.skill.no_innate", {"skill": next(iter(innate)), "ruleset": ruleset})
                )
            for key, value in innate.items():
                if key not in skills or not 0 <= value <= VALUE_MAX:
                    problems.append(
                        Problem(
                            "characters.skill.range", {"skill": key[:40], "value": value, "max": VALUE_MAX}
                        )
                    )
        except SheetError as exc:
            problems.extend(exc.problems)
    for items, item_max, count_max, kind in (
        (talents, TALENT_MAX, TALENTS_MAX, "talent"),
        (conditions, CONDITION_MAX, CONDITIONS_MAX, "condition"),
    ):
        try:
            apply_list_changes([], items, [], item_max=item_max, count_max=count_max, kind=kind)
        except SheetError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SheetError(problems)
    assert isinstance(ruleset, str)
    return SheetData(
        name=name,
        ruleset=ruleset,
        characteristics=characteristics,
        skills=skills,
        skill_innate=innate,
        talents=talents,
        weapons=weapons,
        armour=armour,
        conditions=conditions,
        notes=notes,
        is_npc=is_npc,
        profile=profile.to_dict(),
        wounds=wounds.to_dict(),
        off_hand=off_hand,
    )


def _profile(value: Any, problems: list[Problem]) -> Profile:
    """An exported profile, checked field by field (absent in version 1: a human with nothing)."""
    if value is None:
        return Profile()
    if not isinstance(value, dict):
        problems.append(Problem("characters.import.not_object", {"field": "profile"}))
        return Profile()
    race = value.get("race", DEFAULT_RACE)
    if race not in RACES:
        problems.append(Problem("characters.race.unknown", {"race": str(race)[:30]}))
        race = DEFAULT_RACE
    career = value.get("career", "")
    if not isinstance(career, str) or len(career) > CAREER_MAX:
        problems.append(Problem("characters.career.too_long", {"max": CAREER_MAX}))
        career = ""
    numbers: dict[str, int] = {}
    for group, keys, maximum in (("xp", ("total", "spent"), XP_MAX), ("money", MONEY_UNITS, MONEY_MAX)):
        part = value.get(group, {})
        if not isinstance(part, dict):
            problems.append(Problem("characters.import.not_object", {"field": f"profile.{group}"}))
            continue
        for key in keys:
            number = part.get(key, 0)
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= maximum:
                problems.append(Problem("characters.import.not_integer", {"field": f"profile.{group}.{key}"}))
                number = 0
            numbers[f"{group}.{key}"] = number
    if numbers.get("xp.spent", 0) > numbers.get("xp.total", 0):
        problems.append(Problem("characters.import.not_integer", {"field": "profile.xp.spent"}))
    knowledge = value.get("knowledge", [])
    if not isinstance(knowledge, list) or not all(
        isinstance(k, str) and len(k) <= SKILL_NAME_MAX for k in knowledge
    ):
        problems.append(Problem("characters.import.not_string_list", {"field": "profile.knowledge"}))
        knowledge = []
    gender = value.get("gender", DEFAULT_GENDER)
    if gender not in GENDERS:
        problems.append(Problem("characters.gender.unknown", {"gender": str(gender)[:30]}))
        gender = DEFAULT_GENDER
    return Profile(
        gender=gender,
        knowledge=tuple(knowledge),
        race=race,
        career=career,
        xp_total=numbers.get("xp.total", 0),
        xp_spent=numbers.get("xp.spent", 0),
        money=(numbers.get("money.co", 0), numbers.get("money.pa", 0), numbers.get("money.s", 0)),
    )
