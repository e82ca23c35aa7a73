"""Character sheets (``/character …``, ``/history``): one transaction per use case, a Reply back.

Other services use :func:`get_active_character` and :func:`find_character` (re-exported from
``bot.db.characters``) with their own session.
"""

from __future__ import annotations

import asyncio
import json
import re
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from bot.context import AppContext
from bot.db import characters as repo
from bot.db.characters import (
    MAX_CHARACTERS_PER_USER,
    MAX_NPCS_PER_SERVER,
    CharacterSheet,
    find_character,
    get_active_character,
)
from bot.db.models import Character
from bot.db.repositories import RULESETS, ServerConfig, get_server_config, ruleset_in_force
from bot.i18n import language_of
from bot.rules.grammar import InputError
from bot.rules.names import DEFAULT_GENDER
from bot.rules.renove.armour import Outfit
from bot.rules.renove.damage import ArmourError
from bot.rules.renove.skills import SkillBook, apply_masteries, convert_absolute, parse_skill_list
from bot.rules.renove.talents import TalentBook, TalentChange, apply_talent_changes, base_profile_changes
from bot.rules.sheets import (
    CAREER_MAX,
    CONDITION_MAX,
    CONDITIONS_MAX,
    DEFAULT_RACE,
    NAME_MAX,
    NOTES_MAX,
    TALENT_MAX,
    TALENTS_MAX,
    Change,
    Problem,
    Profile,
    SheetData,
    SheetError,
    apply_list_changes,
    apply_money,
    apply_skill_changes,
    apply_stat_changes,
    apply_xp,
    check_career,
    check_gender,
    check_name,
    export_document,
    fold,
    location_hp,
    location_hp_set,
    parse_list,
    parse_pairs,
    parse_race,
    read_document,
    sheet_for,
    split_d20_kinds,
)
from bot.rules.wounds import WoundError, WoundSheet, apply_wound_edits
from bot.services.caller import Caller
from bot.services.errors import UserError, input_refusal, refusal_reply, user_error_reply
from bot.services.house_rules import table_in_force
from bot.services.json_input import JsonLimit, loads_bounded
from bot.services.outfit import Docs, armour_lines, labelled, outfit_of, refusal_text, weapon_line
from bot.services.skill_book import skill_book
from bot.services.talent_book import talent_book
from bot.services.wounds import record_text, words_for
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply

__all__ = [
    "CAREER_MAX",
    "IMPORT_MAX_BYTES",
    "NAME_MAX",
    "NOTES_MAX",
    "CharacterSheet",
    "ask_delete",
    "character_choices",
    "confirm_delete",
    "create_character",
    "edit_character",
    "equip_character",
    "equipped_choices",
    "export_character",
    "find_character",
    "get_active_character",
    "import_character",
    "item_choices",
    "list_characters",
    "roll_history",
    "set_active_character",
    "show_character",
]

IMPORT_MAX_BYTES: Final = 64 * 1024
WEAPONS_MAX: Final = 10
ARMOUR_MAX: Final = 20
PROBLEMS_SHOWN: Final = 20
HISTORY_MAX: Final = 25
DELETE_PREFIX: Final = "melee:perso:del"

_T = TypeVar("_T")


class Refusal(UserError):
    """A character use case refused (shown as an ephemeral error, nothing written)."""


# -- running a use case ----------------------------------------------------------------------


Work = Callable[[AsyncSession, ServerConfig], Awaitable[Reply]]


def _problems_reply(ctx: AppContext, locale: str, problems: list[Problem], *, intro: str) -> Reply:
    t = ctx.catalog.t
    lines = [f"• {t(locale, p.key, **p.params)}" for p in problems[:PROBLEMS_SHOWN]]
    if len(problems) > PROBLEMS_SHOWN:
        lines.append(t(locale, "characters.error.more_problems", count=len(problems) - PROBLEMS_SHOWN))
    ruleset = next((str(p.params["ruleset"]) for p in problems if p.params.get("ruleset") in RULESETS), None)
    hint_key = f"characters.hint.stats_{ruleset}" if ruleset else "characters.hint.stats"
    if all(p.key.startswith(("talents.", "characters.talent.")) for p in problems):
        hint_key = "talents.hint"
    reply = user_error_reply(ctx, locale, UserError(intro, count=len(problems)), hint=hint_key, details=lines)
    payload = dict(reply.result or {})
    payload["problems"] = [p.key for p in problems]
    return replace(reply, result=payload)


async def _run(ctx: AppContext, caller: Caller, work: Work) -> Reply:
    locale = caller.locale
    if caller.guild_id is None:
        return refusal_reply(ctx, locale, "characters.error.guild_only")
    guild_id = caller.guild_id
    try:
        async with ctx.sessions.begin() as session:
            config = await get_server_config(session, guild_id)
            return await work(session, config)
    except Refusal as exc:
        return user_error_reply(ctx, locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, locale, input_refusal(exc))
    except SheetError as exc:
        intro = "characters.error.problems" if len(exc.problems) > 1 else "characters.error.problem"
        return _problems_reply(ctx, locale, exc.problems, intro=intro)
    except StaleDataError:
        return refusal_reply(ctx, locale, "characters.error.stale")
    except IntegrityError:
        return refusal_reply(ctx, locale, "characters.error.conflict")
    except OperationalError:
        return refusal_reply(ctx, locale, "common.error.retry")


def _guild(caller: Caller) -> int:
    assert caller.guild_id is not None  # checked by _run
    return caller.guild_id


def _can_edit(caller: Caller, config: ServerConfig, row: Character) -> bool:
    return row.owner_id == caller.user_id or caller.is_gm(config)


async def _target(session: AsyncSession, caller: Caller, config: ServerConfig, name: str | None) -> Character:
    """The named character (or the caller's active one), if the caller may see and edit it."""
    guild_id = _guild(caller)
    if name is None or not name.strip():
        row = await repo.active_row(session, guild_id, caller.user_id)
        if row is None:
            raise Refusal("characters.error.no_active")
        return row
    row = await repo.find_row(session, guild_id, name)
    if row is None:
        raise Refusal("characters.error.not_found", name=name.strip()[:64])
    if not _can_edit(caller, config, row):
        raise Refusal("characters.error.not_yours", name=row.name)
    return row


# -- data items (weapons, armour) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    name: str
    name_en: str
    kind: str  # "weapon" | "armour"
    coverage: dict[str, float]
    family: str = ""
    aliases: tuple[str, ...] = ()  # former short names (« Chemise »), understood when unambiguous

    def label(self, locale: str) -> str:
        return self.name_en if language_of(locale) == "en" and self.name_en else self.name

    def exact_keys(self) -> set[str]:
        """Everything that names this item exactly: id, names, former names (folded)."""
        return {_key(x) for x in (self.id, self.id.replace("_", " "), self.name, self.name_en) if x}


def _key(text: str) -> str:
    """Folded, one apostrophe (’ and ' both typed)."""
    return fold(text).replace("’", "'")


def _items(ctx: AppContext, kind: str) -> list[Item]:
    schema = "weapons" if kind == "weapon" else "armour"
    out: list[Item] = []
    seen: set[str] = set()
    for table in ctx.tables.values():
        if table.schema != schema:
            continue
        for entry in table.entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or entry["id"] in seen:
                continue
            seen.add(entry["id"])
            coverage = entry.get("coverage")
            out.append(
                Item(
                    id=entry["id"],
                    name=str(entry.get("name") or entry["id"]),
                    name_en=str(entry.get("name_en") or ""),
                    kind=kind,
                    coverage=dict(coverage) if isinstance(coverage, dict) else {},
                    family=str(entry.get("family") or ""),
                    aliases=tuple(str(a) for a in entry.get("aliases", ()) if a),
                )
            )
    return out


def _item_by_id(ctx: AppContext, kind: str, item_id: str) -> Item | None:
    """The item a sheet stores (an id; a name stored by hand resolves as it always did: the first
    item of that name or former name, in table order)."""
    items = _items(ctx, kind)
    found = next((i for i in items if i.id == item_id), None)
    if found is None:
        wanted = _key(item_id)
        found = next((i for i in items if wanted in i.exact_keys() | {_key(a) for a in i.aliases}), None)
    return found


def _resolve_item(ctx: AppContext, kind: str, text: str, locale: str = "fr") -> Item:
    """What the user typed: an id or a full name; a former short name or the start of a name when
    only one item has it; otherwise a refusal listing the candidates."""
    items = _items(ctx, kind)
    if not items:
        raise Refusal(f"characters.equip.no_table_{kind}")
    wanted = _key(text)
    for item in items:
        if text == item.id or wanted in item.exact_keys():
            return item
    former = [i for i in items if wanted in {_key(a) for a in i.aliases}]
    if len(former) == 1:
        return former[0]
    starts = [i for i in items if _key(i.name).startswith(wanted) or _key(i.name_en).startswith(wanted)]
    if len(starts) == 1 and not former:
        return starts[0]
    close = former or starts or [i for i in items if wanted in _key(i.name) or wanted in _key(i.name_en)]
    raise Refusal(
        "characters.equip.ambiguous_item" if len(close) > 1 else "characters.equip.unknown_item",
        name=text[:40],
        suggestions=", ".join(f"« {i.label(locale)} »" for i in close[:6]) or "—",
    )


def _armour_detail(ctx: AppContext, locale: str, item: Item) -> str:
    """`` · Maille · 2 PA · corps, bras ½`` for an armour piece (family, its PA, the zones)."""
    t = ctx.catalog.t
    family: dict[str, Any] = {}
    for table in ctx.tables.values():
        if table.schema == "armour":
            family = next((f for f in table.document.get("families", ()) if f.get("id") == item.family), {})
            if family:
                break
    parts = []
    if family:
        en = language_of(locale) == "en"
        key = f"combat.armour_family.{item.family}"
        named = family.get("name_en") if en and family.get("name_en") else family.get("name")
        parts.append(t(locale, key) if ctx.catalog.has(key) else str(named))
        parts.append(t(locale, "characters.armour.pa_value", pa=family.get("pa", "?")))
    zones = []
    for zone in ("tete", "bras", "corps", "jambes"):
        share = item.coverage.get(zone)
        if share:
            share_text = "" if share >= 1 else " " + {0.25: "¼", 0.5: "½", 0.75: "¾"}.get(share, f"{share:g}")
            zones.append(t(locale, f"characters.zone.{zone}").lower() + share_text)
    if zones:
        parts.append(", ".join(zones))
    return "".join(f" · {p}" for p in parts)


def item_choices(ctx: AppContext, locale: str, kind: str, current: str) -> list[tuple[str, str]]:
    """Autocomplete: (label, value) of weapons or armour pieces matching the last item typed (a
    list is separated by commas: what comes before stays in the value). Armour labels show the
    material, its PA and the zones covered."""
    head, _, last = current.rpartition(",")
    prefix = head.strip() + ", " if head.strip() else ""
    wanted = _key(last)
    items = _items(ctx, kind)
    ranked = sorted(
        (
            i
            for i in items
            if not wanted
            or wanted in _key(i.name)
            or wanted in _key(i.name_en)
            or any(wanted in _key(a) for a in i.aliases)
        ),
        key=lambda i: (not _key(i.label(locale)).startswith(wanted), _key(i.label(locale))),
    )
    out = []
    for item in ranked[:25]:
        label = item.label(locale) + (_armour_detail(ctx, locale, item) if kind == "armour" else "")
        value = prefix + item.id
        out.append((label[:100], value if len(value) <= 100 else item.id))
    return out


# -- rendering -------------------------------------------------------------------------------


def _ruleset_label(ctx: AppContext, locale: str, ruleset: str) -> str:
    return ctx.catalog.t(locale, f"characters.ruleset.{ruleset}")


def _skills_text(sheet: CharacterSheet, book: SkillBook | None = None, locale: str | None = None) -> str:
    if sheet.ruleset == "renove" and book is not None:
        # « Esquive +10 (43) »: the mastery, then what a test rolls under (the characteristic + it).
        shown = []
        for name, mastery in sorted(sheet.skills.items(), key=lambda kv: fold(kv[0])):
            found = book.find(name)
            target = (
                int(sheet.characteristics.get(found[0].characteristic, 0)) + mastery if found else mastery
            )
            shown.append(f"{book.shown(name, locale)}{f' +{mastery}' if mastery else ''} ({target})")
        return " · ".join(shown)
    parts = []
    knowledge = {fold(k) for k in Profile.from_dict(sheet.profile).knowledge}
    for name, value in sorted(sheet.skills.items(), key=lambda kv: fold(kv[0])):
        innate = sheet.skill_innate.get(name)
        item = f"{name} {innate}/{value}" if innate is not None else f"{name} {value}"
        if sheet.ruleset == "d20":  # Instinct or Savoir (seed 003 l. 9)
            item += " (savoir)" if fold(name) in knowledge else " (instinct)"
        parts.append(item)
    return " · ".join(parts)


OUTFIT_TABLES: Final = (
    "armour",
    "armour_quality",
    "shields",
    "weapons_melee",
    "weapons_ranged",
    "weapon_attributes",
    "talents",
)


def _base_docs(ctx: AppContext) -> Docs:
    return {name: ctx.tables[name].document for name in OUTFIT_TABLES if name in ctx.tables}


async def _docs(session: AsyncSession, ctx: AppContext, guild_id: int | None) -> Docs:
    """The tables the sheet's outfit is read from, with the server's house rules."""
    return {
        name: await table_in_force(session, ctx, guild_id, name)
        for name in OUTFIT_TABLES
        if name in ctx.tables
    }


def _worn(docs: Docs, sheet: CharacterSheet | SheetData) -> Outfit | None:
    """The outfit of a `renove` sheet (None for other systems, or when it no longer combines)."""
    if sheet.ruleset != "renove":
        return None
    pieces = sheet.armour if isinstance(sheet, SheetData) else sheet.equipment.get("armour", [])
    try:
        return outfit_of(docs, pieces, sheet.talents)
    except ArmourError:
        return None


def _weapons_text(ctx: AppContext, locale: str, docs: Docs, sheet: CharacterSheet) -> str:
    return "\n".join(
        weapon_line(ctx, locale, docs, item.id if item else weapon_id)
        for weapon_id in sheet.equipment.get("weapons", [])
        for item in (_item_by_id(ctx, "weapon", weapon_id),)
    )


def _armour_text(ctx: AppContext, locale: str, docs: Docs, sheet: CharacterSheet) -> str:
    """The pieces worn, then PA per zone, class and maluses (`renove`), or why the outfit fails."""
    names = []
    ids = []
    for armour_id in sheet.equipment.get("armour", []):
        item = _item_by_id(ctx, "armour", armour_id)
        names.append(item.label(locale) if item else armour_id)
        ids.append(item.id if item else armour_id)
    if not names:
        return ""
    lines = [", ".join(names)]
    if sheet.ruleset == "renove":
        try:
            worn = outfit_of(docs, ids, sheet.talents)
        except ArmourError as exc:
            lines.append("⚠️ " + refusal_text(ctx, locale, docs, exc))
        else:
            if worn is not None:
                lines.extend(armour_lines(ctx, locale, worn))
    return "\n".join(lines)


# A French WFRP 2e sheet: the main profile, then the secondary one (seed 000 deletes B, l. 1325).
RENOVE_MAIN: Final = ("CC", "CT", "F", "E", "Ag", "Int", "FM", "Soc")
RENOVE_SECONDARY: Final = ("A", "BF", "BE", "BA", "M", "Mag", "PF", "PD")


def _profile_lines(ctx: AppContext, locale: str, sheet: CharacterSheet) -> list[str]:
    """The main and secondary profiles, one line each (a phone shows them without scrolling)."""
    t = ctx.catalog.t
    rules = sheet_for(sheet.ruleset)
    values = sheet.characteristics

    def shown(code: str) -> str:
        stat = rules.stat(code)
        value = values.get(code, "—")
        if stat.kind == "current" and stat.derive is not None:
            return f"{code} {value}/{stat.derive(values)}"
        return f"{code} {value}"

    if sheet.ruleset == "renove":
        main = [shown(c) for c in RENOVE_MAIN]
        secondary = [shown(c) for c in RENOVE_SECONDARY]
        fortune = t(
            locale, "characters.sheet.fortune_line", points=values.get("Fortune", 0), max=values.get("PD", 0)
        )
        return [
            t(
                locale,
                "characters.sheet.line",
                label=t(locale, "characters.sheet.main"),
                values=" · ".join(main),
            ),
            t(
                locale,
                "characters.sheet.line",
                label=t(locale, "characters.sheet.secondary"),
                values=" · ".join(secondary),
            ),
            fortune,
        ]
    codes = [  # ogl HP per location have their own field
        s.code for s in rules.stats if s.code in values and not s.code.endswith("max") and "." not in s.code
    ]
    main = [shown(c) for c in codes if rules.stat(c).kind == "primary"]
    other = [shown(c) for c in codes if rules.stat(c).kind != "primary"]
    lines = [
        t(locale, "characters.sheet.line", label=t(locale, "characters.sheet.main"), values=" · ".join(main))
    ]
    if other:
        lines.append(
            t(
                locale,
                "characters.sheet.line",
                label=t(locale, "characters.sheet.secondary"),
                values=" · ".join(other),
            )
        )
    return lines


def _identity_line(ctx: AppContext, locale: str, sheet: CharacterSheet) -> str:
    """Race, career, experience and purse, as a French sheet heads them."""
    t = ctx.catalog.t
    profile = Profile.from_dict(sheet.profile)
    parts = [t(locale, f"characters.sheet.race.{profile.race}", gender=profile.gender)]
    if profile.career:
        parts.append(profile.career)
    parts.append(
        t(locale, "characters.sheet.xp", total=profile.xp_total, left=profile.xp_total - profile.xp_spent)
    )
    co, pa, sous = profile.money
    parts.append(t(locale, "characters.sheet.money", co=co, pa=pa, s=sous))
    return " · ".join(parts)


def sheet_reply(
    ctx: AppContext,
    locale: str,
    sheet: CharacterSheet,
    *,
    title_key: str | None = None,
    docs: Docs | None = None,
    public: bool = False,
) -> Reply:
    t = ctx.catalog.t
    docs = _base_docs(ctx) if docs is None else docs
    fields: list[Field] = []
    values = sheet.characteristics
    fields.append(
        Field(name=t(locale, "characters.sheet.profile"), value="\n".join(_profile_lines(ctx, locale, sheet)))
    )
    if sheet.ruleset == "ogl":
        hp = location_hp(values)
        chosen = location_hp_set(values)
        shown = " · ".join(
            f"{t(locale, f'characters.loc.{k}')} {v}{'' if k in chosen else ' ≈'}" for k, v in hp.items()
        )
        if len(chosen) < len(hp):  # the seed gives no formula: unset locations are only suggested
            shown += "\n" + t(locale, "characters.sheet.locations_suggested")
        fields.append(
            Field(
                name=t(locale, "characters.sheet.locations"),
                value=shown,
            )
        )
    none = t(locale, "characters.sheet.none")
    skills = _skills_text(sheet, skill_book(ctx), locale) or none
    fields.append(Field(name=t(locale, "characters.sheet.skills"), value=skills))
    fields.append(Field(name=t(locale, "characters.sheet.talents"), value=", ".join(sheet.talents) or none))
    fields.append(
        Field(
            name=t(locale, "characters.sheet.weapons"), value=_weapons_text(ctx, locale, docs, sheet) or none
        )
    )
    fields.append(
        Field(name=t(locale, "characters.sheet.armour"), value=_armour_text(ctx, locale, docs, sheet) or none)
    )
    fields.append(
        Field(name=t(locale, "characters.sheet.conditions"), value=", ".join(sheet.conditions) or none)
    )
    record = sheet.wound_sheet
    if not record.empty:
        text = record_text(words_for(ctx, locale), record, sheet.name)
        fields.append(Field(name=t(locale, "characters.sheet.wounds"), value=text))
    if sheet.notes:
        fields.append(Field(name=t(locale, "characters.sheet.notes"), value=sheet.notes))
    kind = t(locale, "characters.sheet.npc") if sheet.is_npc else f"<@{sheet.owner_id}>"
    description = t(
        locale, "characters.sheet.header", ruleset=_ruleset_label(ctx, locale, sheet.ruleset), who=kind
    )
    if sheet.ruleset in ("renove", "v1"):
        description += "\n" + _identity_line(ctx, locale, sheet)
    if title_key:
        description = t(locale, title_key, name=sheet.name) + "\n" + description
    return Reply(
        title=f"📜 {sheet.name}",
        description=description,
        fields=tuple(fields),
        footer=t(locale, "characters.sheet.footer", id=sheet.id, version=sheet.version),
        colour=Colour.INFO,
        ephemeral=sheet.is_npc or not public,
        kind="character",
        result={"character": _sheet_dict(sheet)},
    )


def _sheet_dict(sheet: CharacterSheet) -> dict[str, Any]:
    return {
        "id": sheet.id,
        "name": sheet.name,
        "owner_id": str(sheet.owner_id),
        "ruleset": sheet.ruleset,
        "is_npc": sheet.is_npc,
        "version": sheet.version,
        "characteristics": sheet.characteristics,
        "skills": sheet.skills,
        "skill_innate": sheet.skill_innate,
        "talents": sheet.talents,
        "equipment": sheet.equipment,
        "conditions": sheet.conditions,
        "notes": sheet.notes,
        "profile": sheet.profile,
        "wounds": sheet.wounds,
    }


# -- use cases -------------------------------------------------------------------------------


async def _check_quota(session: AsyncSession, caller: Caller, *, npc: bool) -> None:
    count = await repo.count_owned(session, _guild(caller), caller.user_id, npc=npc)
    if npc and count >= MAX_NPCS_PER_SERVER:
        raise Refusal("characters.error.too_many_npcs", max=MAX_NPCS_PER_SERVER)
    if not npc and count >= MAX_CHARACTERS_PER_USER:
        raise Refusal("characters.error.too_many", max=MAX_CHARACTERS_PER_USER)


async def _insert(session: AsyncSession, caller: Caller, config: ServerConfig, data: SheetData) -> Character:
    guild_id = _guild(caller)
    if data.is_npc and not caller.is_gm(config):
        raise Refusal("characters.error.npc_gm_only")
    await _check_quota(session, caller, npc=data.is_npc)
    if await repo.name_taken(session, guild_id, data.name):
        raise Refusal("characters.error.name_taken", name=data.name)
    row = repo.new_row(guild_id, caller.user_id, data)
    session.add(row)
    await session.flush()
    if not data.is_npc and await repo.active_row(session, guild_id, caller.user_id) is None:
        await repo.set_active(session, guild_id, caller.user_id, row.id)
    return row


async def create_character(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str,
    ruleset: str | None = None,
    stats: str | None = None,
    npc: bool = False,
    race: str | None = None,
    career: str | None = None,
    gender: str | None = None,
) -> Reply:
    locale = caller.locale

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        if npc and not caller.is_gm(config):
            raise Refusal("characters.error.npc_gm_only")
        clean = check_name(name)
        chosen = ruleset or await ruleset_in_force(session, caller.guild_id, caller.channel_chain)
        if chosen not in RULESETS:
            raise Refusal("characters.error.unknown_ruleset", ruleset=chosen)
        problems: list[Problem] = []
        profile = Profile(
            race=_checked(problems, race, parse_race, DEFAULT_RACE),
            career=_checked(problems, career, check_career, ""),
            gender=_checked(problems, gender, check_gender, DEFAULT_GENDER),
        )
        changes = parse_pairs(stats) if stats and stats.strip() else []
        try:
            characteristics = apply_stat_changes(chosen, None, changes, race=profile.race)
        except SheetError as exc:
            raise SheetError(problems + exc.problems) from None
        if problems:
            raise SheetError(problems)
        data = SheetData(
            name=clean, ruleset=chosen, characteristics=characteristics, is_npc=npc, profile=profile.to_dict()
        )
        row = await _insert(session, caller, config, data)
        return sheet_reply(ctx, locale, repo.to_sheet(row), title_key="characters.created", public=not npc)

    return await _run(ctx, caller, work)


async def show_character(
    ctx: AppContext, caller: Caller, *, name: str | None = None, public: bool = False
) -> Reply:
    """The sheet, for the caller alone unless ``public`` (an NPC's always stays private)."""

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await _target(session, caller, config, name)
        docs = await _docs(session, ctx, caller.guild_id)
        return sheet_reply(ctx, caller.locale, repo.to_sheet(row), docs=docs, public=public)

    return await _run(ctx, caller, work)


def _given(text: str | None) -> bool:
    """An option the user filled in (not missing, not blank)."""
    return text is not None and bool(text.strip())


def _checked(problems: list[Problem], text: str | None, change: Callable[[str], _T], unchanged: _T) -> _T:
    """``change(text)`` when the option is given; its problems go to ``problems``, keeping ``unchanged``."""
    if text is None or not text.strip():
        return unchanged
    try:
        return change(text)
    except SheetError as exc:
        problems.extend(exc.problems)
        return unchanged


def _private_sheet(ctx: AppContext, locale: str, row: Character, *, title_key: str) -> Reply:
    return replace(sheet_reply(ctx, locale, repo.to_sheet(row), title_key=title_key), ephemeral=True)


async def _save(
    ctx: AppContext, locale: str, session: AsyncSession, row: Character, data: SheetData, *, title_key: str
) -> Reply:
    """Write the changed sheet and show it to the caller alone."""
    repo.write_data(row, data)
    await session.flush()
    return _private_sheet(ctx, locale, row, title_key=title_key)


async def edit_character(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str | None = None,
    stats: str | None = None,
    skills: str | None = None,
    talents: str | None = None,
    conditions: str | None = None,
    notes: str | None = None,
    new_name: str | None = None,
    race: str | None = None,
    career: str | None = None,
    xp: str | None = None,
    money: str | None = None,
    wounds: str | None = None,
    alive: bool = False,
    gender: str | None = None,
) -> Reply:
    """Set or adjust (``Fortune:-1``) characteristics, skills, talents, conditions, notes, the name,
    and the profile: race, career, experience (``120/80``, ``+50``), purse (``3 co 5 pa``, ``-5 s``).
    The GM alone edits the wounds (``-2``, ``2:note``, ``2:fermee``, ``+texte``, ``-tout``:
    :func:`bot.rules.wounds.apply_wound_edits`) and brings a dead character back (``alive``)."""
    locale = caller.locale
    given = (stats, skills, talents, conditions, notes, new_name, race, career, xp, money, wounds, gender)
    if not any(_given(x) for x in given) and not alive:
        return refusal_reply(ctx, locale, "characters.edit.nothing", hint="characters.hint.stats")

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await _target(session, caller, config, name)
        data = repo.to_sheet(row).data()
        problems: list[Problem] = []
        record = WoundSheet.from_dict(data.wounds)
        if (_given(wounds) or alive) and not caller.is_gm(config):
            raise Refusal("characters.wounds.gm_only")
        if alive:
            if record.dead is None:
                raise Refusal("characters.wounds.not_dead", name=data.name)
            record = replace(record, dead=None)
        if wounds is not None and _given(wounds):
            try:
                record = apply_wound_edits(record, wounds, date=ctx.now().date().isoformat())
            except WoundError as exc:
                problems.append(Problem(exc.key, exc.params))
        # Each part is checked independently so the user sees every problem at once.
        before = Profile.from_dict(data.profile)
        profile = replace(
            before,
            race=_checked(problems, race, parse_race, before.race),
            career=_checked(
                problems,
                career,
                lambda text: "" if text.strip() == "-" else check_career(text),
                before.career,
            ),
            gender=_checked(problems, gender, check_gender, before.gender),
        )
        profile = _checked(problems, xp, lambda text: apply_xp(profile, text), profile)
        profile = _checked(problems, money, lambda text: apply_money(profile, text), profile)
        talent_change: TalentChange | None = None
        deltas: dict[str, int] = {}
        if data.ruleset == "renove":  # known talents only; Tireur d'élite & co. on the base profile
            tbook = talent_book(ctx)
            talent_change = _checked(
                problems,
                talents,
                lambda text: apply_talent_changes(tbook, data.talents, *parse_list(text)),
                None,
            )
            deltas = base_profile_changes(tbook, talent_change) if talent_change else {}
        characteristics = data.characteristics
        if _given(stats) or profile.race != before.race or deltas:  # a new race changes BF, BE and BA
            try:
                typed_stats = parse_pairs(stats) if stats and stats.strip() else []
                characteristics = apply_stat_changes(
                    data.ruleset,
                    data.characteristics,
                    _with_profile_deltas(data.ruleset, typed_stats, deltas),
                    race=profile.race,
                )
            except SheetError as exc:
                problems.extend(exc.problems)
        if data.ruleset == "renove":  # a mastery of +0, +10 or +20 on the skill's characteristic
            book = skill_book(ctx)
            new_skills = _checked(
                problems,
                skills,
                lambda text: apply_masteries(book, data.skills, parse_skill_list(text)),
                data.skills,
            )
            new_innate = data.skill_innate
        else:
            typed = skills
            if data.ruleset == "d20" and _given(skills):  # « Histoire:6/2 savoir »: the kind word
                typed, profile = split_d20_kinds(skills or "", profile)
            new_skills, new_innate = _checked(
                problems,
                typed,
                lambda text: apply_skill_changes(
                    data.ruleset, data.skills, data.skill_innate, parse_pairs(text)
                ),
                (data.skills, data.skill_innate),
            )
        new_talents = (
            talent_change.talents
            if talent_change is not None
            else _checked(
                problems,
                talents if data.ruleset != "renove" else None,
                lambda text: apply_list_changes(
                    data.talents, *parse_list(text), item_max=TALENT_MAX, count_max=TALENTS_MAX, kind="talent"
                ),
                data.talents,
            )
        )
        new_conditions = _checked(
            problems,
            conditions,
            lambda text: apply_list_changes(
                data.conditions,
                *parse_list(text),
                item_max=CONDITION_MAX,
                count_max=CONDITIONS_MAX,
                kind="condition",
            ),
            data.conditions,
        )
        renamed = _checked(problems, new_name, check_name, data.name)
        text_notes = data.notes
        if notes is not None and notes.strip():
            text_notes = "" if notes.strip() == "-" else notes.strip()
            if len(text_notes) > NOTES_MAX:
                problems.append(Problem("characters.error.notes_too_long", {"max": NOTES_MAX}))
        if problems:
            raise SheetError(problems)
        if renamed != data.name and await repo.name_taken(session, row.guild_id, renamed, except_id=row.id):
            raise Refusal("characters.error.name_taken", name=renamed)
        changed = replace(
            data,
            name=renamed,
            characteristics=characteristics,
            skills=new_skills,
            skill_innate=new_innate,
            talents=new_talents,
            conditions=new_conditions,
            notes=text_notes,
            profile=profile.to_dict(),
            wounds=record.to_dict(),
        )
        reply = await _save(ctx, locale, session, row, changed, title_key="characters.edited")
        if data.ruleset != "renove":
            return reply
        lines = _talent_lines(ctx, locale, talent_book(ctx), data, changed, talent_change)
        return replace(reply, description="\n".join([reply.description or "", *lines])) if lines else reply

    return await _run(ctx, caller, work)


def _parts(text: str | None) -> list[str]:
    """A comma- (or semicolon-) separated list of items, each stripped, duplicates kept once."""
    if not text:
        return []
    return list(dict.fromkeys(p.strip() for p in re.split(r"[,;]", text) if p.strip()))


def _remove_one(ctx: AppContext, text: str, weapons: list[str], armours: list[str]) -> tuple[str, str]:
    """Take ``text`` off (weapons first); (kind, stored id)."""
    wanted = _key(text)
    for kind, items in (("weapon", weapons), ("armour", armours)):
        for index, item_id in enumerate(items):
            item = _item_by_id(ctx, kind, item_id)
            names = {_key(item_id)} | (item.exact_keys() | {_key(a) for a in item.aliases} if item else set())
            if text == item_id or wanted in names:
                del items[index]
                return kind, item_id
    raise Refusal("characters.equip.not_equipped", name=text[:40])


def _with_profile_deltas(ruleset: str, typed: list[Change], deltas: dict[str, int]) -> list[Change]:
    """The typed changes and what the talents write into the base profile (Tireur d'élite: CT +5);
    a characteristic typed in the same edit is taken as it is typed."""
    rules = sheet_for(ruleset)
    named = {rules.canonical(c.name) for c in typed}
    return [
        *typed,
        *(Change(stat, value, relative=True) for stat, value in deltas.items() if stat not in named),
    ]


def _talent_lines(
    ctx: AppContext,
    locale: str,
    book: TalentBook,
    before: SheetData,
    after: SheetData,
    change: TalentChange | None,
) -> list[str]:
    """What an edit says about talents: the base profile they changed, the names the book lacks."""
    t = ctx.catalog.t
    lines = []
    done = () if change is None else ((change.added, "raised"), (change.removed, "lowered"))
    for ids, key in done:
        for tid in ids:
            talent = book.by_id[tid]
            for effect in talent.effects if talent.modifies_base_profile else ():
                stat, value = str(effect.get("stat")), int(effect.get("value", 0))
                old, new = before.characteristics.get(stat), after.characteristics.get(stat)
                wanted = value if key == "raised" else -value
                if effect.get("type") != "modifier" or old is None or new is None or new - old != wanted:
                    continue  # a characteristic typed in the same edit is taken as typed
                lines.append(
                    t(
                        locale,
                        f"talents.profile.{key}",
                        talent=talent.name,
                        stat=stat,
                        value=value,
                        before=old,
                        after=new,
                    )
                )
    unknown = book.unknown(after.talents)
    if unknown:
        lines.append(t(locale, "talents.unknown_kept", talents=", ".join(unknown)))
    return lines


async def equip_character(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str | None = None,
    weapon: str | None = None,
    armour: str | None = None,
    remove: str | None = None,
    off_hand: str | None = None,
) -> Reply:
    """Put on / take off weapons and armour pieces (each option a comma-separated list). The whole
    outfit is checked with the combination table before anything is saved; the answer says what
    changed and what the armour now gives, not the whole sheet. ``off_hand``: the weapon held in
    the off hand (added when not carried; « aucune » / « none »: none — the other weapons are
    spares)."""
    locale = caller.locale
    if not any(_given(x) for x in (weapon, armour, remove, off_hand)):
        return refusal_reply(ctx, locale, "characters.equip.nothing")

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await _target(session, caller, config, name)
        data = repo.to_sheet(row).data()
        weapons, armours = list(data.weapons), list(data.armour)
        removed: list[tuple[str, str]] = [_remove_one(ctx, text, weapons, armours) for text in _parts(remove)]
        added: list[tuple[str, str]] = []
        unchanged: list[tuple[str, str]] = []
        for kind, text, items, limit in (
            ("weapon", weapon, weapons, WEAPONS_MAX),
            ("armour", armour, armours, ARMOUR_MAX),
        ):
            for part in _parts(text):
                item = _resolve_item(ctx, kind, part, locale)
                if item.id in items:
                    unchanged.append((kind, item.id))
                    continue
                if len(items) >= limit:
                    key = "too_many_weapons" if kind == "weapon" else "too_many_armour"
                    raise Refusal(f"characters.equip.{key}", max=limit)
                items.append(item.id)
                added.append((kind, item.id))
        docs = await _docs(session, ctx, caller.guild_id)
        try:
            outfit_of(docs, [_stored_id(ctx, a) for a in armours], data.talents)
        except ArmourError as exc:
            raise Refusal("characters.equip.refused", reason=refusal_text(ctx, locale, docs, exc)) from exc
        held = _off_hand(ctx, locale, docs, data.off_hand, off_hand, weapons, added)
        changed = replace(data, weapons=weapons, armour=armours, off_hand=held)
        if changed != data:
            repo.write_data(row, changed)
            await session.flush()
        return _equip_reply(ctx, locale, docs, row, changed, added, removed, unchanged)

    return await _run(ctx, caller, work)


_NO_OFF_HAND: Final = frozenset({"aucune", "aucun", "none", "-", "rien", "nothing"})


def _off_hand(
    ctx: AppContext,
    locale: str,
    docs: Docs,
    current: str | None,
    text: str | None,
    weapons: list[str],
    added: list[tuple[str, str]],
) -> str | None:
    """The off hand's weapon after this change: the one named (a one-handed weapon, added to the
    weapons when not carried), none (« aucune »), or the current one while it is still carried."""
    if not _given(text):
        return current if current in weapons else None
    assert text is not None
    if _key(text) in _NO_OFF_HAND:
        return None
    item = _resolve_item(ctx, "weapon", text, locale)
    table = {
        str(e["id"]): e
        for name in ("weapons_melee", "weapons_ranged")
        for e in docs.get(name, {}).get("entries", ())
    }
    if bool(table.get(item.id, {}).get("two_handed")):
        raise Refusal("characters.equip.off_hand_two_handed", weapon=item.label(locale))
    if item.id not in weapons:
        if len(weapons) >= WEAPONS_MAX:
            raise Refusal("characters.equip.too_many_weapons", max=WEAPONS_MAX)
        weapons.append(item.id)
        added.append(("weapon", item.id))
    return item.id


def _stored_id(ctx: AppContext, stored: str) -> str:
    item = _item_by_id(ctx, "armour", stored)
    return item.id if item else stored


def _equip_reply(
    ctx: AppContext,
    locale: str,
    docs: Docs,
    row: Character,
    data: SheetData,
    added: list[tuple[str, str]],
    removed: list[tuple[str, str]],
    unchanged: list[tuple[str, str]],
) -> Reply:
    """What changed (added / removed / already there), then the armour's PA and maluses."""
    t = ctx.catalog.t

    def names(pairs: list[tuple[str, str]]) -> str:
        out = []
        for kind, item_id in pairs:
            item = _item_by_id(ctx, kind, item_id)
            out.append(item.label(locale) if item else item_id)
        return ", ".join(out)

    lines = [t(locale, "characters.equipped", name=row.name)]
    for key, pairs in (("added", added), ("removed", removed), ("unchanged", unchanged)):
        if pairs:
            lines.append(labelled(ctx, locale, f"characters.equip.{key}", names(pairs)))
    if data.off_hand:
        lines.append(labelled(ctx, locale, "characters.equip.off_hand", names([("weapon", data.off_hand)])))
    worn = _worn(docs, replace(data, armour=[_stored_id(ctx, a) for a in data.armour]))
    if worn is not None and data.armour:
        lines.extend(armour_lines(ctx, locale, worn))
    elif data.ruleset == "renove" and worn is not None:
        lines.append(t(locale, "characters.equip.no_armour"))
    sheet = repo.to_sheet(row)
    return Reply(
        description="\n".join(lines),
        footer=t(locale, "characters.equip.footer"),
        colour=Colour.SUCCESS,
        ephemeral=True,
        kind="character_equip",
        result={
            "character": _sheet_dict(sheet),
            "added": [i for _, i in added],
            "removed": [i for _, i in removed],
            "unchanged": [i for _, i in unchanged],
            "outfit": worn.to_dict() if worn is not None else None,
        },
    )


async def set_active_character(ctx: AppContext, caller: Caller, *, name: str | None = None) -> Reply:
    t, locale = ctx.catalog.t, caller.locale

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        if name is None or not name.strip():
            row = await repo.active_row(session, _guild(caller), caller.user_id)
            if row is None:
                raise Refusal("characters.error.no_active")
            return Reply(
                description=t(locale, "characters.active.current", name=row.name),
                colour=Colour.INFO,
                ephemeral=True,
                kind="character_active",
                result={"active": row.name, "id": row.id},
            )
        row = await _target(session, caller, config, name)
        await repo.set_active(session, _guild(caller), caller.user_id, row.id)
        return Reply(
            description=t(locale, "characters.active.set", name=row.name),
            colour=Colour.SUCCESS,
            ephemeral=True,
            kind="character_active",
            result={"active": row.name, "id": row.id},
        )

    return await _run(ctx, caller, work)


async def list_characters(ctx: AppContext, caller: Caller) -> Reply:
    t, locale = ctx.catalog.t, caller.locale

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        gm = caller.is_gm(config)
        guild_id = _guild(caller)
        rows = await repo.list_visible(session, guild_id, caller.user_id, gm=gm, limit=100)
        active = await repo.active_row(session, guild_id, caller.user_id)
        if not rows:
            return Reply(
                description=t(locale, "characters.list.empty"),
                colour=Colour.INFO,
                ephemeral=True,
                kind="character_list",
                result={"characters": []},
            )
        lines = []
        for row in rows[:50]:
            marks = []
            if active is not None and row.id == active.id:
                marks.append("⭐")
            who = t(locale, "characters.sheet.npc") if row.is_npc else f"<@{row.owner_id}>"
            marks.append(f"**{row.name}** — {_ruleset_label(ctx, locale, row.ruleset)} · {who}")
            lines.append(" ".join(marks))
        if len(rows) > 50:
            lines.append(t(locale, "characters.list.more", count=len(rows) - 50))
        return Reply(
            title=t(locale, "characters.list.title"),
            description="\n".join(lines),
            footer=t(locale, "characters.list.footer_gm" if gm else "characters.list.footer"),
            colour=Colour.INFO,
            ephemeral=True,
            kind="character_list",
            result={"characters": [{"id": r.id, "name": r.name, "is_npc": r.is_npc} for r in rows]},
        )

    return await _run(ctx, caller, work)


def delete_custom_id(character_id: int, version: int) -> str:
    return f"{DELETE_PREFIX}:{character_id}:{version}"


async def ask_delete(ctx: AppContext, caller: Caller, *, name: str | None) -> Reply:
    t, locale = ctx.catalog.t, caller.locale

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await _target(session, caller, config, name)
        button = Button(
            label=t(locale, "characters.delete.button"),
            custom_id=delete_custom_id(row.id, row.version),
            style=ButtonStyle.DANGER,
            emoji="🗑️",
        )
        return Reply(
            description=t(locale, "characters.delete.confirm", name=row.name),
            colour=Colour.FAILURE,
            ephemeral=True,
            buttons=((button,),),
            kind="character_delete_ask",
            result={"id": row.id, "version": row.version},
        )

    return await _run(ctx, caller, work)


async def confirm_delete(ctx: AppContext, caller: Caller, *, character_id: int, version: int) -> Reply:
    t, locale = ctx.catalog.t, caller.locale

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await repo.get_row(session, _guild(caller), character_id)
        if row is None:
            raise Refusal("characters.delete.gone")
        if not _can_edit(caller, config, row):
            raise Refusal("characters.error.not_yours", name=row.name)
        if row.version != version:
            raise StaleDataError("the sheet changed since the confirmation was shown")
        name = row.name
        await repo.delete_row(session, row)
        return Reply(
            description=t(locale, "characters.delete.done", name=name),
            colour=Colour.SUCCESS,
            ephemeral=True,
            kind="character_deleted",
            result={"deleted": character_id, "name": name},
        )

    return await _run(ctx, caller, work)


def _file_name(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", fold(name)).strip("-") or "personnage"
    return f"{slug[:50]}.json"


@dataclass(frozen=True, slots=True)
class ExportResult:
    reply: Reply
    filename: str | None = None
    content: bytes | None = None


async def export_character(ctx: AppContext, caller: Caller, *, name: str | None) -> ExportResult:
    t, locale = ctx.catalog.t, caller.locale
    exported: dict[str, Any] = {}

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        row = await _target(session, caller, config, name)
        sheet = repo.to_sheet(row)
        exported["doc"] = export_document(sheet.data())
        exported["filename"] = _file_name(sheet.name)
        return Reply(
            description=t(locale, "characters.export.done", name=sheet.name),
            footer=t(locale, "characters.export.footer"),
            colour=Colour.SUCCESS,
            ephemeral=True,
            kind="character_export",
            result={"export": exported["doc"]},
        )

    reply = await _run(ctx, caller, work)
    if reply.is_error:
        return ExportResult(reply)
    content = json.dumps(exported["doc"], ensure_ascii=False, indent=2).encode("utf-8")
    return ExportResult(reply, filename=exported["filename"], content=content)


def _check_equipment(ctx: AppContext, data: SheetData) -> list[Problem]:
    problems: list[Problem] = []
    for kind, ids, limit in (("weapon", data.weapons, WEAPONS_MAX), ("armour", data.armour, ARMOUR_MAX)):
        if len(ids) > limit:
            problems.append(
                Problem(
                    f"characters.equip.too_many_{'weapons' if kind == 'weapon' else kind}", {"max": limit}
                )
            )
        for item_id in ids:
            if _item_by_id(ctx, kind, item_id) is None:
                problems.append(Problem("characters.import.unknown_item", {"id": item_id[:40]}))
    return problems


def _renove_skills_of_import(
    ctx: AppContext, document: Any, data: SheetData
) -> tuple[SheetData, list[Problem]]:
    """Version 1 exports held `renove` skills as percentages: they become masteries (what cannot be
    read is kept in the notes for the GM); version 2 holds masteries, checked like an edit."""
    book = skill_book(ctx)
    if isinstance(document, dict) and document.get("format_version") == 1:
        skills, unread = convert_absolute(book, data.characteristics, data.skills)
        notes = data.notes
        if unread:
            notes = (notes + "\n" if notes else "") + ctx.catalog.t(
                None, "skills.unread", skills=", ".join(unread)
            )
        return replace(data, skills=skills, notes=notes[:NOTES_MAX]), []
    try:
        entries = [(name, mastery, False) for name, mastery in data.skills.items()]
        return replace(data, skills=apply_masteries(book, {}, entries)), []
    except SheetError as exc:
        return data, exc.problems


async def import_character(
    ctx: AppContext,
    caller: Caller,
    *,
    filename: str,
    size: int,
    content: bytes | None,
    name: str | None = None,
) -> Reply:
    """Validate an exported JSON sheet and create it; every problem listed, nothing half-written."""
    t, locale = ctx.catalog.t, caller.locale
    if size > IMPORT_MAX_BYTES or (content is not None and len(content) > IMPORT_MAX_BYTES):
        return refusal_reply(ctx, locale, "characters.import.too_big", max=IMPORT_MAX_BYTES // 1024)
    if content is None:
        return refusal_reply(ctx, locale, "characters.import.unreadable")
    try:
        document = loads_bounded(content.decode("utf-8-sig"))
    except JsonLimit as exc:
        return refusal_reply(
            ctx,
            locale,
            f"characters.import.limit.{exc.kind}",
            file=filename[:60],
            limit=exc.limit,
            sample=exc.sample,
        )
    except UnicodeDecodeError:
        return refusal_reply(ctx, locale, "characters.import.not_utf8", file=filename[:60])
    except json.JSONDecodeError as exc:
        return refusal_reply(
            ctx, locale, "characters.import.bad_json", file=filename[:60], line=exc.lineno, column=exc.colno
        )

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        if isinstance(document, dict) and name and name.strip():
            document["name"] = name
        data = read_document(document)
        problems = _check_equipment(ctx, data)
        if data.ruleset == "renove":
            data, more = _renove_skills_of_import(ctx, document, data)
            problems.extend(more)
            try:  # known talents only, under their French name (the profile already counts them)
                data = replace(
                    data, talents=apply_talent_changes(talent_book(ctx), [], data.talents, []).talents
                )
            except SheetError as exc:
                problems.extend(exc.problems)
        if problems:
            raise SheetError(problems)
        row = await _insert(session, caller, config, data)
        return _private_sheet(ctx, locale, row, title_key="characters.imported")

    reply = await _run(ctx, caller, work)
    if reply.is_error and reply.result and reply.result.get("problems"):
        count = len(reply.result["problems"])
        intro = t(locale, "characters.import.problems", file=filename[:60], count=count)
        reply = replace(reply, description=intro + "\n" + (reply.description or "").split("\n", 1)[-1])
    return reply


_HISTORY_READS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _history_reads() -> asyncio.Semaphore:
    """Two history reads at a time per event loop (the bot has one; tests have one per test)."""
    loop = asyncio.get_running_loop()
    semaphore = _HISTORY_READS.get(loop)
    if semaphore is None:
        semaphore = _HISTORY_READS[loop] = asyncio.Semaphore(2)
    return semaphore


async def roll_history(
    ctx: AppContext, caller: Caller, *, character: str | None = None, limit: int = 10, page: int = 1
) -> Reply:
    """Recent rolls of a character (any channel) or of this channel; secret ones to the GM alone
    (their roller included: a secret result is the GM's)."""
    t, locale = ctx.catalog.t, caller.locale
    limit = max(1, min(limit, HISTORY_MAX))
    page = max(1, page)

    async def work(session: AsyncSession, config: ServerConfig) -> Reply:
        async with _history_reads():  # a few at a time: one user's burst cannot take the whole pool
            return await history_page(session, config)

    async def history_page(session: AsyncSession, config: ServerConfig) -> Reply:
        gm = caller.is_gm(config)
        if character and character.strip():
            row = await _target(session, caller, config, character)
            rolls = await repo.recent_rolls(
                session,
                _guild(caller),
                character_id=row.id,
                secrets=gm,
                limit=limit,
                offset=(page - 1) * limit,
            )
            title = t(locale, "characters.history.title_character", name=row.name)
        else:
            rolls = await repo.recent_rolls(
                session,
                _guild(caller),
                channel_id=caller.channel_id,
                secrets=gm,
                limit=limit,
                offset=(page - 1) * limit,
            )
            title = t(locale, "characters.history.title_channel")
        if not rolls:
            return Reply(
                title=title,
                description=t(locale, "characters.history.empty"),
                colour=Colour.INFO,
                ephemeral=True,
                kind="history",
                result={"rolls": [], "page": page},
            )
        lines = []
        for roll in rolls:
            stamp = int(roll.created_at.timestamp())
            label = f" — {roll.label}" if roll.label else ""
            secret = " 🔒" if roll.secret else ""
            total = f" → **{roll.total}**" if roll.total is not None else ""
            lines.append(f"<t:{stamp}:t> <@{roll.user_id}> `{roll.expression[:80]}`{total}{label}{secret}")
        return Reply(
            title=title,
            description="\n".join(lines),
            footer=t(
                locale,
                "characters.history.footer_one" if len(rolls) == 1 else "characters.history.footer",
                page=page,
                count=len(rolls),
            ),
            colour=Colour.INFO,
            ephemeral=True,
            kind="history",
            user_texts=tuple(r.label for r in rolls if r.label),  # labels typed long ago: escaped
            result={
                "page": page,
                "rolls": [
                    {
                        "id": r.id,
                        "expression": r.expression,
                        "total": r.total,
                        "label": r.label,
                        "secret": r.secret,
                    }
                    for r in rolls
                ],
            },
        )

    return await _run(ctx, caller, work)


async def character_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """Autocomplete: (label, name) of the characters the caller may see, matching ``current``."""
    if caller.guild_id is None:
        return []
    guild_id = caller.guild_id
    async with ctx.sessions() as session:
        config = await get_server_config(session, guild_id)
        rows = await repo.list_visible(
            session, guild_id, caller.user_id, gm=caller.is_gm(config), search=current[:64], limit=25
        )
    npc = ctx.catalog.t(caller.locale, "characters.sheet.npc")
    return [(f"{r.name} ({npc})" if r.is_npc else r.name, r.name) for r in rows]


async def equipped_choices(
    ctx: AppContext, caller: Caller, name: str | None, current: str
) -> list[tuple[str, str]]:
    """Autocomplete for ``remove``: what the (named or active) character carries."""
    if caller.guild_id is None:
        return []
    guild_id = caller.guild_id
    async with ctx.sessions() as session:
        config = await get_server_config(session, guild_id)
        if name:
            row = await repo.find_row(session, guild_id, name)
        else:
            row = await repo.active_row(session, guild_id, caller.user_id)
        if row is None or not _can_edit(caller, config, row):
            return []
        sheet = repo.to_sheet(row)
    wanted = fold(current)
    out: list[tuple[str, str]] = []
    for kind, key in (("weapon", "weapons"), ("armour", "armour")):
        for item_id in sheet.equipment.get(key, []):
            item = _item_by_id(ctx, kind, item_id)
            label = item.label(caller.locale) if item else item_id
            if (not wanted or wanted in fold(label)) and (label, item_id) not in out:
                out.append((label, item_id))
    return out[:25]
