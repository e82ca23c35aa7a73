"""``/regles``: browse the data tables in force on this server, so a GM can check them against the book.

Every table is browsable by a generic renderer (``key: value`` lines, localized texts picked by
language); critical effects (mechanics vocabulary → sentences) and weapons have nicer ones.
The table read is always the one in force here: base data merged with the server's house rules.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from bot.context import AppContext
from bot.i18n import Catalog, language_of
from bot.services.caller import Caller
from bot.services.errors import refusal_reply
from bot.services.house_rules import entry_key, overridden_tables, table_in_force, unknown_table_reply
from bot.ui.reply import Colour, Field, Reply

CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
EMBED_BUDGET = 5800  # Discord: 6000 characters per embed in all
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
NOTES_PAGE_CHARS = 3800
ENTRY_NOTES_MAX = 6
RULESET_ORDER = ("renove", "v1", "d20", "ogl")
ZONES_FR = {"jambes": "Jambes", "bras": "Bras", "corps": "Corps", "tete": "Tête"}
# Characteristics in points, not percentages.
POINT_STATS = frozenset({"M", "BF", "BE", "A", "PV", "Mag", "PD", "PF"})
# Entry fields shown as the title or the description, not as key: value lines.
TEXT_FIELDS = ("narration", "description", "text")
LINE_FIELDS = ("seed_line", "lines", "printed_row", "printed_column", "printed_position", "printed_item")
MINUS = "\u2212"


def fold(text: str) -> str:
    """Case- and accent-insensitive form used to match what the user types."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().strip()


def localized(value: Any, language: str) -> Any:
    """``{"fr": …, "en": …}`` → the text in ``language`` (French as fallback); anything else as is."""
    if isinstance(value, Mapping) and value and set(value) <= {"fr", "en"}:
        return value.get(language) or value.get("fr") or next(iter(value.values()))
    return value


def table_title(document: Mapping[str, Any], language: str) -> str:
    title = localized(document.get("title"), language)
    return str(title) if title else str(document.get("table", ""))


def entries_of(document: Mapping[str, Any]) -> list[Any]:
    entries = document.get("entries")
    return list(entries) if isinstance(entries, list) else []


def signed(value: Any, *, percent: bool = False) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = f"{value:+g}".replace("-", MINUS)
        return f"{text} %" if percent else text
    return str(value)


# -- entry labels and lookup ---------------------------------------------------------------------


def entry_label(catalog: Catalog, language: str, schema: str, entry: Any) -> str:
    """A short human name: "Jambes 5", "Épée", "01-10" …"""
    if not isinstance(entry, Mapping):
        return str(entry)[:80]
    if schema == "criticals":
        zone = str(entry.get("zone", ""))
        return f"{catalog.t(language, f'rules.zone.{zone}')} {entry.get('value', '')}".strip()
    for field in ("name", "label", "skill", "action", "situation", "game"):
        if field in entry:
            value = (
                entry.get(f"{field}_en") if language == "en" and entry.get(f"{field}_en") else entry[field]
            )
            value = localized(value, language)
            if isinstance(value, str | int):
                return str(value)
    return entry_key(schema, entry) or "?"


def find_entry(schema: str, entries: list[Any], wanted: str) -> tuple[int, Any] | None:
    """By key (``"jambes 5"``, ``"epee"``), accent- and case-insensitive; ``tête 12`` works too."""
    target = re.sub(r"\s+", " ", fold(wanted))
    by_key = {fold(entry_key(schema, e) or ""): (i, e) for i, e in enumerate(entries)}
    if target in by_key:
        return by_key[target]
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            continue
        names = [entry.get(f) for f in ("name", "name_en", "label")]
        if any(isinstance(n, str) and fold(n) == target for n in names):
            return index, entry
    return None


def _suggestions(schema: str, entries: list[Any], wanted: str) -> list[str]:
    keys = [k for k in (entry_key(schema, e) for e in entries) if k]
    folded = {fold(k): k for k in keys}
    close = difflib.get_close_matches(fold(wanted), list(folded), n=5, cutoff=0.5)
    return [folded[c] for c in close]


# -- mechanics vocabulary → sentences -------------------------------------------------------------


class MechanicsRenderer:
    """Critical-effect mechanics (``data/schemas/criticals.schema.json``) as readable lines."""

    def __init__(self, catalog: Catalog, language: str) -> None:
        self.catalog = catalog
        self.language = language

    def t(self, key: str, **params: Any) -> str:
        return self.catalog.t(self.language, key, **params)

    def _known(self, key: str) -> bool:
        return self.catalog.raw(self.language, key) is not None or self.catalog.raw("fr", key) is not None

    def word(self, group: str, value: Any) -> str:
        key = f"rules.{group}.{value}"
        return self.t(key) if self._known(key) else str(value)

    def stat(self, stat: Any) -> str:
        return self.word("stat", stat)

    def amount(self, amount: Any) -> str:
        if isinstance(amount, Mapping) and "characteristic" in amount:
            text = str(amount["characteristic"])
            if amount.get("multiply_by"):
                text += f"×{amount['multiply_by']}"
            return text
        return str(amount)

    def span(self, span: Any) -> str:
        """``{"amount": "1d10", "unit": "round"}`` → "1d10 rounds"."""
        if not isinstance(span, Mapping):
            return str(span)
        amount = span.get("amount")
        unit = str(span.get("unit", ""))
        plural = not (isinstance(amount, int | float) and amount <= 1)
        if unit == "half_round":
            return "½ round" if amount == 1 else f"{self.amount(amount)} × ½ round"
        unit_word = self.word("unit_plural" if plural else "unit", unit)
        return f"{self.amount(amount)} {unit_word}"

    def duration(self, duration: Any) -> str:
        if isinstance(duration, Mapping) and "until" in duration:
            return self.word("until", duration["until"])
        if isinstance(duration, Mapping):
            return self.t("rules.mech.for", span=self.span(duration))
        return str(duration)

    def effects(self, effects: Iterable[Any]) -> str:
        return ", ".join(self.effect(e) for e in effects)

    def effect(self, effect: Any) -> str:
        if not isinstance(effect, Mapping):
            return str(effect)
        kind = effect.get("type")
        t = self.t
        if kind == "test":
            characteristic = str(effect.get("characteristic", "?"))
            vowel = characteristic[:1] in "AEIOUaeiou"
            modifier = effect.get("modifier", 0)
            text = t(
                "rules.mech.test_vowel" if vowel else "rules.mech.test",
                characteristic=characteristic,
                modifier=f" {signed(modifier, percent=True)}" if modifier else "",
            )
            if effect.get("after"):
                text += " " + t("rules.mech.after", span=self.span(effect["after"]))
            if effect.get("on_failure"):
                text += " ; " + t("rules.mech.on_failure", effects=self.effects(effect["on_failure"]))
            if effect.get("on_success"):
                text += " ; " + t("rules.mech.on_success", effects=self.effects(effect["on_success"]))
            return text
        if kind == "bleeding":
            text = t(
                "rules.mech.bleeding",
                characteristic=effect.get("characteristic", "E"),
                every=effect.get("every", 1),
                modifier=signed(effect.get("modifier", 0), percent=True),
                step=signed(effect.get("step", 0), percent=True),
            )
            if effect.get("on_failure"):
                text += " ; " + t("rules.mech.on_failure", effects=self.effects(effect["on_failure"]))
            return text
        if kind == "lose_time":
            return t("rules.mech.lose_time", span=self.span(effect))
        if kind == "modifier":
            stat = effect.get("stat")
            percent = stat not in POINT_STATS
            text = f"{self.stat(stat)} {signed(effect.get('value'), percent=percent)}"
            if "duration" in effect:
                text += f" {self.duration(effect['duration'])}"
            return text
        if kind == "permanent":
            stat = self.stat(effect.get("stat"))
            if effect.get("operation") == "halve":
                text = t("rules.mech.permanent_halve", stat=stat)
            else:
                percent = effect.get("stat") not in POINT_STATS
                text = t(
                    "rules.mech.permanent", stat=stat, value=signed(effect.get("value"), percent=percent)
                )
            if effect.get("per"):
                text += " " + t("rules.mech.per", per=effect["per"])
            return text
        if kind == "halve":
            return t(
                "rules.mech.halve",
                stat=self.stat(effect.get("stat")),
                duration=self.duration(effect.get("duration")),
            )
        if kind in ("no_action", "unconscious", "stunned"):
            return t(f"rules.mech.{kind}", duration=self.duration(effect.get("duration")))
        if kind == "death_timer":
            return t(
                "rules.mech.death_timer",
                span=self.span(effect.get("within")),
                unless=self.word("unless", effect.get("unless")),
            )
        if kind == "disabled":
            part = self.word("part", effect.get("part"))
            if effect.get("lost"):
                return t("rules.mech.lost", part=part)
            return t("rules.mech.disabled", part=part, duration=self.duration(effect.get("duration")))
        if kind == "drop_item":
            return t("rules.mech.drop_item")
        if kind in ("fall", "death"):
            return t(f"rules.mech.{kind}")
        if kind == "gm_ruling":
            text = localized(effect.get("text"), self.language)
            return t("rules.mech.gm_ruling", text=text if isinstance(text, str) else effect.get("code", ""))
        rest = ", ".join(f"{k}={compact(v, self.language)}" for k, v in effect.items() if k != "type")
        return f"{kind} ({rest})" if rest else str(kind)


# -- generic values ----------------------------------------------------------------------------


def compact(value: Any, language: str, *, depth: int = 0) -> str:
    """A readable one-line form of any JSON value (localized texts picked by language)."""
    value = localized(value, language)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return ("yes" if value else "no") if language == "en" else ("oui" if value else "non")
    if isinstance(value, str | int | float):
        return str(value)
    if depth > 4:
        return "…"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}: {compact(v, language, depth=depth + 1)}" for k, v in value.items())
        return f"{{{inner}}}" if depth else inner
    if isinstance(value, list):
        if not value:
            return "—"
        if depth == 0 and any(isinstance(v, Mapping) for v in value):
            return "\n".join(f"• {compact(v, language, depth=depth + 1)}" for v in value)
        return ", ".join(compact(v, language, depth=depth + 1) for v in value)
    return str(value)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EntryRenderer:
    """Entry → (title, description, fields). Subclass hooks for the nicer tables."""

    def __init__(self, ctx: AppContext, language: str, document: Mapping[str, Any]) -> None:
        self.ctx = ctx
        self.catalog = ctx.catalog
        self.language = language
        self.document = document
        self.schema = str(document.get("schema", ""))

    def field_name(self, key: str) -> str:
        catalog_key = f"rules.field.{key}"
        if self.catalog.raw("fr", catalog_key) is not None:
            return self.catalog.t(self.language, catalog_key)
        return key

    def description(self, entry: Mapping[str, Any]) -> str | None:
        texts = []
        for key in TEXT_FIELDS:
            value = localized(entry.get(key), self.language)
            if isinstance(value, str) and value:
                texts.append(value)
        return "\n\n".join(texts) or None

    def skipped(self, entry: Mapping[str, Any]) -> set[str]:
        skipped = set(TEXT_FIELDS) | set(LINE_FIELDS)
        for key in entry:
            if key.endswith("_en") and key[:-3] in entry:
                skipped.add(key)
        return skipped

    def value(self, key: str, value: Any, entry: Mapping[str, Any]) -> str:
        if f"{key}_en" in entry and self.language == "en" and entry.get(f"{key}_en") is not None:
            value = entry[f"{key}_en"]
        return compact(value, self.language)

    def fields(self, entry: Mapping[str, Any]) -> list[Field]:
        skipped = self.skipped(entry)
        out = []
        for key, value in entry.items():
            if key in skipped:
                continue
            text = self.value(key, value, entry)
            out.append(Field(self.field_name(key), _cut(text, FIELD_VALUE_MAX), inline=len(text) <= 40))
        return out


class CriticalRenderer(EntryRenderer):
    def description(self, entry: Mapping[str, Any]) -> str | None:
        narration = localized(entry.get("narration"), self.language)
        return f"*{narration}*" if isinstance(narration, str) else None

    def fields(self, entry: Mapping[str, Any]) -> list[Field]:
        mechanics = MechanicsRenderer(self.catalog, self.language)
        lines = [f"• {mechanics.effect(e)}" for e in entry.get("mechanics") or []]
        kind = self.document.get("kind")
        out = [
            Field(self.field_name("kind"), str(kind), inline=True),
            Field(
                self.field_name("zone"),
                self.catalog.t(self.language, f"rules.zone.{entry.get('zone')}"),
                True,
            ),
            Field(self.field_name("value"), str(entry.get("value")), inline=True),
        ]
        text = "\n".join(lines) or "—"
        # Long mechanics spill over into several fields rather than being cut.
        chunk: list[str] = []
        for line in text.split("\n"):
            if chunk and len("\n".join([*chunk, line])) > FIELD_VALUE_MAX:
                out.append(Field(self.field_name("mechanics"), "\n".join(chunk)))
                chunk = []
            chunk.append(_cut(line, FIELD_VALUE_MAX))
        out.append(Field(self.field_name("mechanics"), "\n".join(chunk)))
        return out


class WeaponRenderer(EntryRenderer):
    def _names(self, table: str, ids: Iterable[Any]) -> str:
        found = self.ctx.tables.get(table)
        by_id = {e.get("id"): e for e in found.entries if isinstance(e, Mapping)} if found else {}
        names = []
        for item in ids:
            entry = by_id.get(item)
            names.append(entry_label(self.catalog, self.language, "", entry) if entry else str(item))
        return ", ".join(names) or "—"

    def value(self, key: str, value: Any, entry: Mapping[str, Any]) -> str:
        if key == "damage" and isinstance(value, Mapping):
            if value.get("base") == "fixed":
                return str(value.get("value"))
            modifier = value.get("modifier") or 0
            return f"{value.get('base')}{signed(modifier) if modifier else ''}"
        if key == "attributes" and isinstance(value, list):
            return self._names("weapon_attributes", value)
        if key == "special_actions" and isinstance(value, list):
            return self._names("special_actions", value)
        if key == "group" and value is not None:
            return self._names("weapon_groups", [value])
        if key == "price" and isinstance(value, Mapping) and "amount" in value:
            return f"{value['amount']} {value.get('unit', '')}".strip()
        return super().value(key, value, entry)


class TalentRenderer(EntryRenderer):
    """A talent: its other names, its effects as sentences, where the seed (or the book) gives it."""

    def effect(self, effect: Mapping[str, Any]) -> str:
        t = self.catalog.t
        kind = str(effect.get("type"))
        if kind == "modifier":
            stat = str(effect.get("stat"))
            amount = f"+{effect['dice']}" if "dice" in effect else signed(effect.get("value"))
            if stat not in POINT_STATS and stat not in ("initiative", "location_degrees", "critical_value"):
                amount = signed(effect.get("value"), percent=True) if "value" in effect else amount
            return t(
                self.language,
                f"rules.talent.modifier.{effect.get('scope')}",
                stat=t(self.language, f"rules.talent.stat.{stat}"),
                amount=amount,
            )
        if kind == "cancel_malus":
            return t(self.language, f"rules.talent.cancel.{effect.get('what')}")
        if kind == "damage_bonus_from":
            weapons = ", ".join(str(w) for w in effect.get("weapons", ()))
            return t(self.language, "rules.talent.damage_bonus_from", weapons=weapons)
        if kind == "unlocks":
            what = str(effect.get("what"))
            if what == "special_action":
                found = self.ctx.tables.get("special_actions")
                entry = (
                    next((e for e in found.entries if e.get("id") == effect.get("id")), None)
                    if found
                    else None
                )
                name = entry_label(self.catalog, self.language, "", entry) if entry else str(effect.get("id"))
                key = "special_action_melee" if effect.get("melee_only") else "special_action"
                return t(self.language, f"rules.talent.unlocks.{key}", action=name)
            return t(self.language, f"rules.talent.unlocks.{what}")
        if kind == "chase_bonus":
            return t(self.language, "rules.talent.chase_bonus", value=signed(effect.get("value")))
        if kind == "weapon_group_training":
            return t(self.language, "rules.talent.weapon_group_training")
        if kind == "skill_bonus":
            return t(
                self.language,
                f"rules.talent.skill_bonus.{effect.get('when')}",
                skill=effect.get("skill"),
                value=signed(effect.get("value"), percent=True),
            )
        if kind == "gm_note":
            return t(self.language, f"rules.talent.gm_note.{effect.get('what')}")
        return MechanicsRenderer(self.catalog, self.language).effect(effect)

    def fields(self, entry: Mapping[str, Any]) -> list[Field]:
        yes_no = compact(True, self.language), compact(False, self.language)
        out = []
        names = [str(entry.get("name_en" if self.language == "fr" else "name", ""))]
        names += [str(a) for a in entry.get("aliases", ())]
        out.append(Field(self.field_name("aliases"), ", ".join(n for n in names if n) or "—", inline=True))
        if entry.get("kind") == "skill":
            out.append(
                Field(self.field_name("kind"), self.catalog.t(self.language, "rules.talent.skill"), True)
            )
        if entry.get("specialised"):
            out.append(Field(self.field_name("specialised"), yes_no[0], inline=True))
        if entry.get("modifies_base_profile"):
            out.append(Field(self.field_name("modifies_base_profile"), yes_no[0], inline=True))
        lines = [f"• {self.effect(e)}" for e in entry.get("effects") or []]
        out.append(Field(self.field_name("effects"), _cut("\n".join(lines) or "—", FIELD_VALUE_MAX)))
        source = entry.get("source")
        if isinstance(source, Mapping):
            if "seed" in source:
                rules = self.catalog.t(self.language, f"rules.ruleset.{self.document.get('ruleset')}")
                text = self.catalog.t(
                    self.language, "rules.talent.source_seed", rules=rules, lines=source["lines"]
                )
            else:
                text = self.catalog.t(self.language, "rules.talent.source_book")
            out.append(Field(self.field_name("source"), text, inline=True))
        return out


def renderer_for(ctx: AppContext, language: str, document: Mapping[str, Any]) -> EntryRenderer:
    schema = document.get("schema")
    if schema == "talents":
        return TalentRenderer(ctx, language, document)
    if schema == "criticals":
        return CriticalRenderer(ctx, language, document)
    if schema == "weapons":
        return WeaponRenderer(ctx, language, document)
    return EntryRenderer(ctx, language, document)


# -- notes that concern an entry -------------------------------------------------------------------

_CRITICAL_MENTION = re.compile(
    r"\b(Jambes|Bras|Corps|T[êe]te|Valeur|Legs?|Arms?|Body|Head|Value)\s+([0-9]+(?:\s*(?:,|et|and|à|to|-)\s*[0-9]+)*)",
    re.IGNORECASE,
)
_ZONE_WORDS = {
    "jambes": "jambes",
    "leg": "jambes",
    "legs": "jambes",
    "bras": "bras",
    "arm": "bras",
    "arms": "bras",
    "corps": "corps",
    "body": "corps",
    "tete": "tete",
    "head": "tete",
}


def _numbers(text: str) -> set[int]:
    numbers: set[int] = set()
    tokens = re.findall(r"[0-9]+|à|to|-", text)
    previous: int | None = None
    ranged = False
    for token in tokens:
        if token.isdigit():
            number = int(token)
            if ranged and previous is not None and previous <= number <= previous + 20:
                numbers.update(range(previous, number + 1))
            numbers.add(number)
            previous, ranged = number, False
        else:
            ranged = True
    return numbers


def critical_mentions(note: str) -> set[tuple[str, int]]:
    """``"Bras 8 et 9 : …"`` → {("bras", 8), ("bras", 9)}; ``"Valeur 15"`` → every zone."""
    found: set[tuple[str, int]] = set()
    for match in _CRITICAL_MENTION.finditer(note):
        word = fold(match.group(1))
        zones = list(ZONES_FR) if word in ("valeur", "value") else [_ZONE_WORDS.get(word, word)]
        for number in _numbers(match.group(2)):
            found.update((zone, number) for zone in zones)
    return found


def localized_notes(document: Mapping[str, Any], language: str) -> list[str]:
    """The table's notes in ``language``: ``notes_fr`` / ``notes_en`` (parallel to ``notes``, same order)
    where the data gives them, else the original ``notes`` entry (the other language, as a fallback)."""
    original = [n if isinstance(n, str) else "" for n in document.get("notes") or []]
    translated = document.get(f"notes_{language}")
    if not isinstance(translated, list):
        translated = []
    notes: list[str] = []
    for index, note in enumerate(original):
        other = translated[index] if index < len(translated) else None
        notes.append(other if isinstance(other, str) and other.strip() else note)
    return [n for n in notes if n]


def notes_for(document: Mapping[str, Any], entry: Mapping[str, Any], language: str = "fr") -> list[str]:
    """The notes that concern ``entry``, in ``language``: matched on the original notes and on the
    translation (the same note at the same place), shown in the caller's language."""
    originals = [n if isinstance(n, str) else "" for n in document.get("notes") or []]
    translated = document.get(f"notes_{language}")
    pairs: list[tuple[str, str]] = []
    for index, original in enumerate(originals):
        other = translated[index] if isinstance(translated, list) and index < len(translated) else ""
        text = other if isinstance(other, str) and other.strip() else original
        if text:
            pairs.append((original + "\n" + (other if isinstance(other, str) else ""), text))
    schema = str(document.get("schema", ""))
    if schema == "criticals":
        wanted = (str(entry.get("zone")), entry.get("value"))
        return [text for both, text in pairs if wanted in critical_mentions(both)]
    words = {str(entry[k]) for k in ("id", "name", "name_en", "label") if isinstance(entry.get(k), str)}
    words = {w for w in words if len(w) >= 3}
    if not words:
        return []
    pattern = re.compile(
        r"(?<![\w])(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")(?![\w])",
        re.IGNORECASE,
    )
    return [text for both, text in pairs if pattern.search(both)]


def source_line(
    catalog: Catalog, language: str, document: Mapping[str, Any], entry: Mapping[str, Any] | None
) -> str:
    parts = []
    source = document.get("source")
    if isinstance(source, Mapping):
        section = localized(source.get("section"), language)
        lines = source.get("lines")
        if section:
            parts.append(str(section))
        if lines:
            parts.append(catalog.t(language, "rules.source.lines", lines=lines))
    text = catalog.t(language, "rules.source", source=" · ".join(parts) or "—")
    if entry is not None:
        own = [f"{k}: {compact(entry[k], language)}" for k in LINE_FIELDS if k in entry]
        if own:
            text += " · " + catalog.t(language, "rules.source.entry", lines=", ".join(own))
    return text


# -- fitting a reply into an embed -----------------------------------------------------------------


def _size(title: str | None, description: str | None, fields: list[Field], footer: str | None) -> int:
    return (
        len(title or "")
        + len(description or "")
        + len(footer or "")
        + sum(len(f.name) + len(f.value) for f in fields)
    )


def fit(
    title: str, description: str | None, fields: list[Field], footer: str | None
) -> tuple[str | None, list[Field]]:
    """Drop trailing fields (then cut the description) until the embed fits Discord's 6000 characters."""
    if description is not None:
        description = _cut(description, 4000)
    fields = [Field(_cut(f.name, 256), _cut(f.value, FIELD_VALUE_MAX), f.inline) for f in fields[:FIELDS_MAX]]
    while fields and _size(title, description, fields, footer) > EMBED_BUDGET:
        fields.pop()
    if description is not None and _size(title, description, fields, footer) > EMBED_BUDGET:
        description = _cut(description, max(100, EMBED_BUDGET - _size(title, None, fields, footer)))
    return description, fields


# -- use cases ------------------------------------------------------------------------------------


async def show_entry(ctx: AppContext, caller: Caller, *, name: str, entry: str) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    language = language_of(locale)
    name = name.strip()
    if name not in ctx.tables:
        return unknown_table_reply(ctx, caller, name)
    async with ctx.sessions.begin() as session:
        document = await table_in_force(session, ctx, caller.guild_id, name)
        overridden = name in await overridden_tables(session, caller.guild_id)
    schema = str(document.get("schema", ""))
    entries = entries_of(document)
    if not entries:
        return refusal_reply(
            ctx,
            locale,
            "rules.error.no_entries",
            table=name,
            hint="rules.error.no_entries_hint",
            hint_params={"table": name},
        )
    found = find_entry(schema, entries, entry)
    if found is None:
        listed = ", ".join(f"`{s}`" for s in _suggestions(schema, entries, entry))
        return refusal_reply(
            ctx,
            locale,
            "rules.error.unknown_entry",
            entry=_cut(entry, 60),
            table=name,
            hint="rules.error.entry_hint" if listed else "rules.error.entry_hint_none",
            hint_params={"suggestions": listed},
        )
    index, item = found
    if not isinstance(item, Mapping):
        item = {"value": item}
    renderer = renderer_for(ctx, language, document)
    label = entry_label(ctx.catalog, language, schema, item)
    title = f"{table_title(document, language)} — {label}"
    fields = renderer.fields(item)
    notes = notes_for(document, item, language)
    for note in notes[:ENTRY_NOTES_MAX]:
        fields.append(Field(t(locale, "rules.field.note"), _cut(note, FIELD_VALUE_MAX)))
    if len(notes) > ENTRY_NOTES_MAX:
        fields.append(
            Field("\u200b", t(locale, "rules.more_notes", count=len(notes) - ENTRY_NOTES_MAX, table=name))
        )
    if overridden:
        fields.insert(0, Field("\u200b", t(locale, "rules.house_rules_in_force", table=name)))
    footer = source_line(ctx.catalog, language, document, item)
    description, fields = fit(title, renderer.description(item), fields, footer)
    key = entry_key(schema, item)
    return Reply(
        title=_cut(title, 256),
        description=description,
        fields=tuple(fields),
        footer=footer,
        colour=Colour.INFO,
        kind="rules",
        result={
            "table": name,
            "entry": key,
            "index": index,
            "house_rules": overridden,
            "data": dict(item),
            "notes": len(notes),
        },
    )


async def list_tables(ctx: AppContext, caller: Caller) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    language = language_of(locale)
    async with ctx.sessions.begin() as session:
        overridden = await overridden_tables(session, caller.guild_id)
        documents = {
            name: await table_in_force(session, ctx, caller.guild_id, name)
            for name in overridden
            if name in ctx.tables
        }
    by_ruleset: dict[str, list[str]] = {}
    counts: dict[str, int | None] = {}
    for name, table in sorted(ctx.tables.items()):
        document = documents.get(name, table.document)
        has_entries = isinstance(document.get("entries"), list)
        counts[name] = len(entries_of(document)) if has_entries else None
        count = str(counts[name]) if has_entries else "—"
        mark = " ✏️" if name in overridden else ""
        line = f"`{name}` ({count}){mark} — {table_title(document, language)}"
        by_ruleset.setdefault(str(document.get("ruleset", "?")), []).append(_cut(line, 200))
    order = [r for r in RULESET_ORDER if r in by_ruleset] + sorted(set(by_ruleset) - set(RULESET_ORDER))
    fields: list[Field] = []
    for ruleset in order:
        chunk: list[str] = []
        heading = (
            t(locale, f"rules.ruleset.{ruleset}") if ctx.catalog.has(f"rules.ruleset.{ruleset}") else ruleset
        )
        for line in by_ruleset[ruleset]:
            if chunk and len("\n".join([*chunk, line])) > FIELD_VALUE_MAX:
                fields.append(Field(heading, "\n".join(chunk)))
                heading, chunk = "\u200b", []
            chunk.append(line)
        fields.append(Field(heading, "\n".join(chunk)))
    description = t(locale, "rules.tables.description", count=len(ctx.tables))
    if overridden:
        description += "\n" + t(locale, "rules.tables.house_rules", count=len(overridden))
    title = t(locale, "rules.tables.title")
    description_fit, fields = fit(title, description, fields, None)
    return Reply(
        title=title,
        description=description_fit,
        fields=tuple(fields),
        colour=Colour.INFO,
        ephemeral=True,
        kind="rules",
        result={"tables": counts, "house_rules": sorted(overridden)},
    )


def _pages(notes: list[str]) -> list[list[tuple[int, str]]]:
    pages: list[list[tuple[int, str]]] = [[]]
    size = 0
    for number, note in enumerate(notes, start=1):
        text = _cut(note, NOTES_PAGE_CHARS - 20)
        if pages[-1] and size + len(text) + 8 > NOTES_PAGE_CHARS:
            pages.append([])
            size = 0
        pages[-1].append((number, text))
        size += len(text) + 8
    return pages


async def show_notes(ctx: AppContext, caller: Caller, *, name: str, page: int = 1) -> Reply:
    """The readings made during transcription (the table's ``notes``), a page at a time."""
    t, locale = ctx.catalog.t, caller.locale
    language = language_of(locale)
    name = name.strip()
    if name not in ctx.tables:
        return unknown_table_reply(ctx, caller, name)
    async with ctx.sessions.begin() as session:
        document = await table_in_force(session, ctx, caller.guild_id, name)
    notes = localized_notes(document, language)
    footer = source_line(ctx.catalog, language, document, None)
    title = t(locale, "rules.notes.title", title=table_title(document, language))
    if not notes:
        return Reply(
            title=title,
            description=t(locale, "rules.notes.none"),
            footer=footer,
            colour=Colour.INFO,
            ephemeral=True,
            kind="rules",
            result={"table": name, "notes": 0},
        )
    pages = _pages(notes)
    page = min(max(page, 1), len(pages))
    description = "\n\n".join(f"**{n}.** {text}" for n, text in pages[page - 1])
    if len(pages) > 1:
        footer = t(locale, "rules.notes.page", page=page, pages=len(pages)) + " · " + footer
    return Reply(
        title=_cut(title, 256),
        description=description,
        footer=_cut(footer, 2000),
        colour=Colour.INFO,
        ephemeral=True,
        kind="rules",
        result={"table": name, "notes": len(notes), "page": page, "pages": len(pages)},
    )


# -- autocomplete ---------------------------------------------------------------------------------


def table_choices(ctx: AppContext, locale: str, current: str) -> list[tuple[str, str]]:
    """(shown name, value) for the ``table`` option: localized titles, matched on title or name."""
    language = language_of(locale)
    wanted = fold(current)
    scored: list[tuple[int, str, str]] = []
    for name, table in sorted(ctx.tables.items()):
        title = table_title(table.document, language)
        haystacks = (fold(name), fold(title))
        if wanted and not any(wanted in h for h in haystacks):
            continue
        rank = 0 if any(h.startswith(wanted) for h in haystacks) else 1
        scored.append((rank, name, _cut(f"{title} ({name})", CHOICE_NAME_MAX)))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [(shown, name) for _, name, shown in scored[:CHOICES_MAX]]


async def entry_choices(ctx: AppContext, caller: Caller, name: str, current: str) -> list[tuple[str, str]]:
    """(shown name, value) for the ``entree`` option, from the table in force on this server."""
    if name not in ctx.tables:
        return []
    language = language_of(caller.locale)
    async with ctx.sessions.begin() as session:
        document = await table_in_force(session, ctx, caller.guild_id, name)
    schema = str(document.get("schema", ""))
    wanted = re.sub(r"\s+", " ", fold(current))
    out: list[tuple[int, str, str]] = []
    for entry in entries_of(document):
        key = entry_key(schema, entry)
        if not key or len(key) > CHOICE_NAME_MAX:
            continue
        label = entry_label(ctx.catalog, language, schema, entry)
        haystacks = (fold(key), fold(label))
        if wanted and not any(wanted in h for h in haystacks):
            continue
        rank = 0 if any(h.startswith(wanted) for h in haystacks) else 1
        if schema == "criticals":
            first = localized(entry.get("narration"), language) if isinstance(entry, Mapping) else None
            shown = f"{label} — {first}" if isinstance(first, str) else label
        else:
            shown = label if fold(label) == fold(key) else f"{label} ({key})"
        out.append((rank, key, _cut(shown, CHOICE_NAME_MAX)))
    out.sort(key=lambda c: c[0])
    return [(shown, key) for _, key, shown in out[:CHOICES_MAX]]
