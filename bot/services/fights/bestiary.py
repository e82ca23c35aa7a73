"""The GM's bestiary (``/pnj …``): NPC templates saved once per server and ruleset, found by name
(accents, case, hyphens and plurals forgiven) when ``/combat ajouter qui:"3 bandits"`` adds them.

Readings:

* The seed's creature rows (``creatures_bf``: Gobelin, Orque, Troll …) are the starting templates
  of a `renove` server: the seed gives their BF only, so they are listed « à compléter »; once the
  GM saves a template of the same name, his values win (the F he does not give still comes from
  the row's BF, under the seed's rule).
* Saving a name already saved completes it: the values given replace those saved, the others stay
  (``/pnj supprimer`` starts over).
* A template stores the characteristics of the ruleset in force in the channel when it is saved
  (renove: ``cc:`` … ``be:`` and ``caracs:`` for the others; v1, d20, ogl: ``caracs:`` and the
  ``armes:`` profile text); a fight of another ruleset does not see it.
* A renove template that is no creature of the seed must give what a quick NPC needs to fight
  (CC, F or BF, E or BE), as ``/combat ajouter`` asks of a quick NPC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import delete, select

from bot.context import AppContext
from bot.db.npc_models import NpcTemplate
from bot.db.repositories import ruleset_in_force
from bot.rules.sheets import sheet_for
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    QUICK_NPC_DEFAULTS,
    QUICK_NPC_WEAPON,
    TEXT_TABLES,
    FightOutcome,
    FightRefusal,
    Scope,
    require_gm,
    run,
)
from bot.services.fights.kit import parse_arms, parse_caracs
from bot.services.fights.roster import (
    QuickProfile,
    _list,
    _presets,
    _resolve_piece,
    _resolve_weapon,
    creature_key,
    find_preset,
    missing_quick_stats,
    quick_profile,
)
from bot.services.fights.text import Words
from bot.ui.reply import Colour, Reply

NAME_MAX: Final = 60
TEMPLATES_MAX: Final = 200  # per server and ruleset
RENOVE_OPTIONS: Final = ("CC", "CT", "F", "E", "Ag", "A", "BF", "BE")
KINDS: Final = ("monster", "character")


@dataclass(frozen=True, slots=True)
class TemplateInput:
    """What ``/pnj enregistrer`` was given (``None``: not given)."""

    name: str
    cc: int | None = None
    ct: int | None = None
    f: int | None = None
    e: int | None = None
    ag: int | None = None
    a: int | None = None
    bf: int | None = None
    be: int | None = None
    weapons: str | None = None
    armour: str | None = None
    caracs: str | None = None
    monster: bool | None = None

    def options(self) -> dict[str, int]:
        pairs = zip(
            RENOVE_OPTIONS, (self.cc, self.ct, self.f, self.e, self.ag, self.a, self.bf, self.be), strict=True
        )
        return {code: value for code, value in pairs if value is not None}


@dataclass(frozen=True, slots=True)
class Template:
    """A template as the fight reads it: the server's own (``saved``) or a seed creature row."""

    name: str
    key: str
    ruleset: str
    kind: str
    characteristics: dict[str, int] = field(default_factory=dict)
    skills: dict[str, int] = field(default_factory=dict)
    weapons: tuple[str, ...] = ()
    armour: tuple[str, ...] = ()
    saved: bool = False
    preset: Mapping[str, Any] | None = None  # the seed's creature row it completes

    @classmethod
    def of_row(cls, row: NpcTemplate, docs: Mapping[str, Any]) -> Template:
        preset = find_preset(docs, row.name) if row.ruleset == "renove" else None
        return cls(
            name=row.name,
            key=row.key,
            ruleset=row.ruleset,
            kind=row.kind,
            characteristics={str(k): int(v) for k, v in (row.characteristics or {}).items()},
            skills={str(k): int(v) for k, v in (row.skills or {}).items()},
            weapons=tuple(str(w) for w in row.weapons or ()),
            armour=tuple(str(p) for p in row.armour or ()),
            saved=True,
            preset=preset,
        )

    @classmethod
    def of_preset(cls, preset: Mapping[str, Any], en: bool) -> Template:
        name = str(preset["name_en"] if en else preset["name"])
        return cls(
            name=name,
            key=creature_key(str(preset["name"])),
            ruleset="renove",
            kind=str(preset.get("kind") or "monster"),
            preset=preset,
        )

    @property
    def to_complete(self) -> bool:
        """A seed row the GM has not saved yet (the seed gives its BF only)."""
        return not self.saved and self.preset is not None


def _keys(docs: Mapping[str, Any], text: str) -> set[str]:
    """The keys a name may be saved under: its own, and a seed creature's names (« goblins » finds
    the server's « Gobelin »)."""
    keys = {creature_key(text)}
    preset = find_preset(docs, text)
    if preset is not None:
        keys |= {creature_key(str(preset[k])) for k in ("id", "name", "name_en")}
    keys.discard("")
    return keys


async def _row(scope: Scope, ruleset: str, text: str) -> NpcTemplate | None:
    keys = _keys(scope.words.docs, text)
    if not keys:
        return None
    rows = (
        await scope.session.scalars(
            select(NpcTemplate).where(
                NpcTemplate.guild_id == scope.guild_id,
                NpcTemplate.ruleset == ruleset,
                NpcTemplate.key.in_(sorted(keys)),
            )
        )
    ).all()
    wanted = creature_key(text)
    return next((r for r in rows if r.key == wanted), rows[0] if rows else None)


async def find_template(scope: Scope, ruleset: str, text: str) -> Template | None:
    """The server's template of that name for ``ruleset``, else (renove) the seed's creature row."""
    row = await _row(scope, ruleset, text)
    docs = scope.words.docs
    if row is not None:
        return Template.of_row(row, docs)
    if ruleset != "renove":
        return None
    preset = find_preset(docs, text)
    return Template.of_preset(preset, scope.words.en) if preset is not None else None


def template_profile(
    docs: Mapping[str, Any],
    template: Template,
    given: Mapping[str, int] | None = None,
    *,
    bf: int | None = None,
    be: int | None = None,
) -> tuple[QuickProfile, Mapping[str, Any] | None, dict[str, int], int | None, int | None]:
    """A renove template's fighting profile, ``given`` (typed with ``/combat ajouter``) over the
    template's values: (the profile, the creature row it reads its F from when none is given, the
    characteristics given, BF, BE)."""
    values = {k: v for k, v in template.characteristics.items() if k not in ("BF", "BE")}
    values.update(given or {})
    bf = bf if bf is not None else template.characteristics.get("BF")
    be = be if be is not None else template.characteristics.get("BE")
    preset: Mapping[str, Any] | None = None
    if template.preset is not None:
        preset = {**template.preset, "kind": template.kind}
    elif template.kind == "monster":
        preset = {"id": template.key, "name": template.name, "name_en": template.name, "kind": "monster"}
        preset = {**preset, "BF": bf or 0, "BE": be}
    return quick_profile(docs, preset, values, QUICK_NPC_DEFAULTS, bf=bf, be=be), preset, values, bf, be


# -- the use cases ----------------------------------------------------------------------------


async def _ruleset(scope: Scope) -> str:
    ruleset = await ruleset_in_force(scope.session, scope.guild_id, scope.caller.channel_chain)
    scope.ruleset = ruleset
    return ruleset


def _clean(name: str) -> str:
    cleaned = " ".join(name.split())[:NAME_MAX]
    if not cleaned or not creature_key(cleaned):
        raise FightRefusal("npc.error.name_empty")
    return cleaned[:1].upper() + cleaned[1:]


def _renove_values(scope: Scope, data: TemplateInput) -> tuple[dict[str, int], dict[str, int]]:
    given, skills = parse_caracs("renove", data.caracs)
    rules = sheet_for("renove")
    for code, value in data.options().items():
        stat = rules.stat(code)
        if not stat.minimum <= value <= stat.maximum:
            raise FightRefusal("combat.sys.error.stat_range", stat=code, min=stat.minimum, max=stat.maximum)
        given[code] = value
    return given, skills


async def save_template(ctx: AppContext, caller: Caller, data: TemplateInput) -> FightOutcome:
    """GM: save (or complete) a template of the ruleset in force here."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        ruleset = await _ruleset(scope)
        name = _clean(data.name)
        docs = scope.words.docs
        row = await _row(scope, ruleset, name)
        if ruleset in OTHER_RULESETS:
            if data.options():
                raise FightRefusal("combat.sys.error.use_caracs", ruleset=ruleset)
            given, skills = parse_caracs(ruleset, data.caracs)
            weapons = [data.weapons.strip()] if data.weapons and data.weapons.strip() else None
            if weapons:
                parse_arms(weapons[0])  # refused here, with the faulty part named, not at the fight
            armour = [data.armour.strip()] if data.armour and data.armour.strip() else None
        else:
            given, skills = _renove_values(scope, data)
            weapons = [_resolve_weapon(scope, w) for w in _list(data.weapons)] or None
            armour = [_resolve_piece(scope, p) for p in _list(data.armour)] or None
        preset = find_preset(docs, name) if ruleset == "renove" else None
        if data.monster is not None:
            kind = "monster" if data.monster else "character"
        elif row is not None:
            kind = row.kind
        else:
            kind = str(preset.get("kind") or "monster") if preset is not None else "character"
        stats = {**(row.characteristics if row is not None else {}), **given}
        known = {**(row.skills if row is not None else {}), **skills}
        if row is None and not given and not skills and not weapons and not armour:
            raise FightRefusal("npc.error.nothing_given", name=name)
        if ruleset == "renove" and preset is None:
            missing = missing_quick_stats(stats, stats.get("BF"), stats.get("BE"))
            if missing:
                needs = [scope.t(f"npc.need.{code}") for code in missing]
                raise FightRefusal("npc.error.needs_stats", name=name, missing=_and(scope, needs))
        elif ruleset in OTHER_RULESETS and not stats:
            raise FightRefusal("npc.error.needs_caracs", ruleset=ruleset)
        created = row is None
        if row is None:
            count = len(
                (
                    await scope.session.scalars(
                        select(NpcTemplate.id).where(
                            NpcTemplate.guild_id == scope.guild_id, NpcTemplate.ruleset == ruleset
                        )
                    )
                ).all()
            )
            if count >= TEMPLATES_MAX:
                raise FightRefusal("npc.error.too_many", max=TEMPLATES_MAX)
            row = NpcTemplate(
                guild_id=scope.guild_id,
                ruleset=ruleset,
                key=creature_key(preset["name"]) if preset is not None else creature_key(name),
                name=name,
                kind=kind,
                characteristics={},
                skills={},
                weapons=[],
                armour=[],
                created_by=caller.user_id,
            )
            scope.session.add(row)
        else:
            row.name = name
            row.kind = kind
        row.characteristics = dict(stats)
        row.skills = dict(known)
        if weapons is not None:
            row.weapons = list(weapons)
        if armour is not None:
            row.armour = list(armour)
        await scope.session.flush()
        template = Template.of_row(row, docs)
        lines = [_line(scope, template)]
        if template.ruleset == "renove":
            lines.extend(_notes(scope, template))
        lines.append(scope.t("npc.save.use", name=template.name))
        reply = Reply(
            title=scope.t("npc.save.created" if created else "npc.save.updated", name=name),
            description="\n".join(lines)[:4000],
            colour=Colour.SUCCESS,
            kind="npc.save",
            result={"template": _result(template), "created": created},
        )
        return FightOutcome(reply)

    return await run(ctx, caller, work)


async def _all(scope: Scope, ruleset: str) -> list[Template]:
    rows = (
        await scope.session.scalars(
            select(NpcTemplate)
            .where(NpcTemplate.guild_id == scope.guild_id, NpcTemplate.ruleset == ruleset)
            .order_by(NpcTemplate.key)
        )
    ).all()
    docs = scope.words.docs
    saved = [Template.of_row(r, docs) for r in rows]
    if ruleset != "renove":
        return saved
    taken = {t.key for t in saved}
    seeds = [
        Template.of_preset(p, scope.words.en)
        for p in _presets(docs).values()
        if creature_key(str(p["name"])) not in taken
    ]
    return saved + seeds


async def list_templates(ctx: AppContext, caller: Caller) -> FightOutcome:
    """The server's templates of the ruleset in force here, then the seed's rows still to complete."""

    async def work(scope: Scope) -> FightOutcome:
        ruleset = await _ruleset(scope)
        templates = await _all(scope, ruleset)
        saved = [t for t in templates if t.saved]
        seeds = [t for t in templates if not t.saved]
        lines = [scope.t("npc.list.ruleset", ruleset=scope.t(f"characters.choice.{ruleset}"))]
        if saved:
            lines.append(scope.t("npc.list.saved"))
            lines.extend("• " + _line(scope, t) for t in saved)
        else:
            lines.append(scope.t("npc.list.none"))
        if seeds:
            lines.append(scope.t("npc.list.seeds"))
            lines.extend("• " + _line(scope, t) for t in seeds)
        lines.append(scope.t("npc.list.footer_other" if ruleset in OTHER_RULESETS else "npc.list.footer"))
        reply = Reply(
            title=scope.t("npc.list.title"),
            description="\n".join(lines)[:4000],
            colour=Colour.INFO,
            ephemeral=True,
            kind="npc.list",
            result={"ruleset": ruleset, "templates": [_result(t) for t in templates]},
        )
        return FightOutcome(reply)

    return await run(ctx, caller, work)


async def show_template(ctx: AppContext, caller: Caller, *, name: str) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        ruleset = await _ruleset(scope)
        template = await find_template(scope, ruleset, name)
        if template is None:
            raise FightRefusal("npc.error.unknown", name=" ".join(name.split())[:NAME_MAX])
        lines = [_line(scope, template)]
        if template.ruleset == "renove":
            lines.extend(_notes(scope, template))
        if template.skills:
            skills = ", ".join(
                f"{k} {v:+d}" if ruleset == "renove" else f"{k} {v}" for k, v in template.skills.items()
            )
            lines.append(scope.t("npc.show.skills", skills=skills))
        lines.append(scope.t("npc.save.use", name=template.name))
        reply = Reply(
            title=scope.t("npc.show.title", name=template.name),
            description="\n".join(lines)[:4000],
            colour=Colour.INFO,
            ephemeral=True,
            kind="npc.show",
            result={"template": _result(template)},
        )
        return FightOutcome(reply)

    return await run(ctx, caller, work)


async def delete_template(ctx: AppContext, caller: Caller, *, name: str) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        ruleset = await _ruleset(scope)
        row = await _row(scope, ruleset, name)
        if row is None:
            shown = " ".join(name.split())[:NAME_MAX]
            preset = find_preset(scope.words.docs, name) if ruleset == "renove" else None
            raise FightRefusal(
                "npc.error.seed_only" if preset is not None else "npc.error.unknown", name=shown
            )
        shown = row.name
        await scope.session.execute(delete(NpcTemplate).where(NpcTemplate.id == row.id))
        preset = find_preset(scope.words.docs, shown) if ruleset == "renove" else None
        text = scope.t("npc.delete.done", name=shown)
        if preset is not None:
            text += " " + scope.t("npc.delete.seed_back", name=shown)
        reply = Reply(
            description=text,
            colour=Colour.INFO,
            kind="npc.delete",
            result={"deleted": shown, "ruleset": ruleset},
        )
        return FightOutcome(reply)

    return await run(ctx, caller, work)


async def template_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """Autocomplete: (label, name) of the templates of this server (any ruleset) and the seed's rows."""
    if caller.guild_id is None:
        return []
    async with ctx.sessions() as session:
        rows = (
            await session.scalars(
                select(NpcTemplate).where(NpcTemplate.guild_id == caller.guild_id).order_by(NpcTemplate.key)
            )
        ).all()
    docs: dict[str, Mapping[str, Any]] = {n: ctx.tables[n].document for n in TEXT_TABLES if n in ctx.tables}
    words = Words(ctx, caller.locale, docs)
    wanted = creature_key(current)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for row in rows:
        if wanted in row.key or wanted in creature_key(row.name):
            out.append((f"{row.name} ({row.ruleset})", row.name))
            seen.add(row.key)
    mark = words.t("npc.list.to_complete")
    for preset in _presets(docs).values():
        label = str(preset["name_en"] if words.en else preset["name"])
        if creature_key(str(preset["name"])) in seen:
            continue
        if not wanted or wanted in creature_key(label):
            out.append((f"{label} — {mark}", label))
    return out[:25]


# -- rendering --------------------------------------------------------------------------------


def _and(scope: Scope, parts: list[str]) -> str:
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + scope.t("combat.add.and") + parts[-1]


def _gear(scope: Scope, template: Template) -> str:
    if template.ruleset != "renove":
        parts = [*template.weapons, *template.armour]
        return " · ".join(parts)
    weapons = ", ".join(scope.words.weapon(w) for w in template.weapons) or scope.t(
        "npc.show.default_weapon", weapon=scope.words.weapon(QUICK_NPC_WEAPON)
    )
    pieces = scope.tables.armour.pieces
    armour = ", ".join(pieces[p].name if p in pieces else p for p in template.armour)
    return weapons + (" · " + armour if armour else "")


def _line(scope: Scope, template: Template) -> str:
    head = f"**{template.name}**"
    if template.ruleset != "renove":
        stats = " · ".join(f"{k} {v}" for k, v in template.characteristics.items())
        gear = _gear(scope, template)
        return f"{head} — {stats}" + (f" · {gear}" if gear else "")
    if template.to_complete:
        assert template.preset is not None
        kind = scope.t(f"npc.kind.{template.kind}")
        return f"{head} — {kind} · BF {template.preset['BF']} · {scope.t('npc.list.to_complete')}"
    profile, _, _, _, _ = template_profile(scope.words.docs, template)
    ch = profile.values
    stats = " · ".join(f"{code} {ch.get(code)}" for code in ("CC", "CT", "F", "E", "Ag", "A", "BF", "BE"))
    kind = scope.t(f"npc.kind.{template.kind}")
    return f"{head} — {kind} · {stats} · {_gear(scope, template)}"


def _notes(scope: Scope, template: Template) -> list[str]:
    """What the template leaves to the defaults or to the seed's row, said once."""
    profile, preset, _, _, _ = template_profile(scope.words.docs, template)
    ch = profile.values
    said = []
    if profile.from_table and preset is not None:
        said.append(scope.t("combat.add.from_table", f=ch.get("F"), bf=preset["BF"]))
    if profile.e_is_f:
        said.append(scope.t("combat.add.e_is_f", e=ch.get("E")))
    defaults = [code for code in profile.defaults if not (code == "F" and profile.from_table)]
    if defaults:
        values = ", ".join(f"{code} {ch.get(code)}" for code in defaults)
        said.append(scope.t("npc.show.defaults", values=values))
    if template.to_complete:
        said.append(scope.t("npc.show.complete_it", name=template.name))
    return [" ".join(said)] if said else []


def _result(template: Template) -> dict[str, Any]:
    return {
        "name": template.name,
        "key": template.key,
        "ruleset": template.ruleset,
        "kind": template.kind,
        "characteristics": dict(template.characteristics),
        "skills": dict(template.skills),
        "weapons": list(template.weapons),
        "armour": list(template.armour),
        "saved": template.saved,
        "to_complete": template.to_complete,
    }
