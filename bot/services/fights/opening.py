"""Opening a fight in a thread, adding combatants (characters, presets, quick NPCs, other rulesets'
profiles) and removing them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import func, select

from bot.context import AppContext
from bot.db.characters import (
    find_character,
)
from bot.db.fight_models import Fight
from bot.db.repositories import ruleset_in_force
from bot.rules.combat.state import Combatant, FightState
from bot.rules.names import Name
from bot.rules.sheets import shown_code
from bot.services.caller import Caller
from bot.services.fights._core import (
    _COUNT,
    MAX_COMBATANTS,
    MAX_QUICK,
    NAME_MAX,
    OTHER_RULESETS,
    QUICK_NPC_DEFAULTS,
    QUICK_NPC_WEAPON,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    fight_here,
    forget_channels,
    name_key,
    new_event,
    outcome,
    require_gm,
    run,
)
from bot.services.fights.bestiary import find_template, template_profile
from bot.services.fights.kit import add_other, parse_caracs
from bot.services.fights.npc_defence import (
    FIGHT_MODES,
    NPC_MODES,
    check_ruleset,
    mode_line,
    parse_mode,
    set_for,
)
from bot.services.fights.registry import system_of
from bot.services.fights.roster import (
    NpcStats,
    QuickProfile,
    _combatant_from_sheet,
    _equip,
    _list,
    _resolve_piece,
    _resolve_weapon,
    _unique_id,
    check_sheet_free,
    last_number,
    missing_quick_stats,
    quick_label,
    quick_profile,
)
from bot.services.fights.sides import clean_side, put_side, sides_line
from bot.ui.reply import Colour, Reply


async def open_fight(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str,
    mort_subite: bool = False,
    options: str | None = None,
    npc_defence: str | None = None,
    mage_fm_maluses: bool = False,
) -> FightOutcome:
    """Create the fight row (the cog then creates the thread, posts and pins the tracker).

    The fight's ruleset is the one in force in the channel; ``options`` are that system's GM
    options (``v1``: ``endurance:seuil``, ``attaques:echelonnees``, ``des:unites`` …)."""
    cleaned = " ".join(name.split())[:NAME_MAX]

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        if not cleaned:
            raise FightRefusal("combat.error.name_empty")
        ruleset = await ruleset_in_force(scope.session, scope.guild_id, caller.channel_chain)
        scope.ruleset = ruleset
        system_options: dict[str, Any] = {}
        if ruleset in OTHER_RULESETS:
            system_options = system_of(ruleset).parse_options(options)
        elif options and options.strip():
            raise FightRefusal("combat.sys.error.no_options", ruleset=ruleset)
        defence_mode = parse_mode(npc_defence, FIGHT_MODES)
        check_ruleset(ruleset, defence_mode)
        if defence_mode is not None:
            system_options["npc_defence"] = defence_mode
        if mage_fm_maluses:  # seed 000 « Contre les mages » (optional): data/magic.json
            if ruleset in OTHER_RULESETS:
                raise FightRefusal("magic.error.option_renove_only", ruleset=ruleset)
            system_options["malus_fm_mages"] = True
        in_thread = caller.parent_channel_id is not None
        if in_thread:
            busy = await scope.session.scalar(
                select(func.count())
                .select_from(Fight)
                .where(Fight.thread_id == caller.channel_id, Fight.status == "open")
            )
            if busy:
                raise FightRefusal("combat.error.thread_busy")
        row = Fight(
            guild_id=scope.guild_id,
            thread_id=caller.channel_id if in_thread else None,
            parent_channel_id=(caller.parent_channel_id if in_thread else caller.channel_id) or 0,
            owner_id=caller.user_id,
            name=cleaned,
            ruleset=ruleset,
            status="open",
            state={
                "fight": FightState().to_dict(),
                "meta": {},
                "options": {"mort_subite": mort_subite, **system_options},
                "seq": 0,
            },
        )
        scope.session.add(row)
        await scope.session.flush()
        doc = Doc.load(row)
        new_event(
            scope,
            doc,
            "open",
            None,
            {"name": cleaned, "mort_subite": mort_subite, "ruleset": ruleset, "options": system_options},
        )
        doc.data["round_over"] = True
        doc.save()
        description = scope.t("combat.open.done")
        if ruleset in OTHER_RULESETS:
            description += "\n" + system_of(ruleset).options_line(scope, system_options)
        if defence_mode is not None:
            description += "\n" + scope.t(
                "combat.npcdef.done_fight", mode=scope.t(f"combat.npcdef.mode.{defence_mode}")
            )
        if mage_fm_maluses:
            description += "\n" + scope.t("magic.open.fm_maluses")
        reply = Reply(
            title=scope.t("combat.open.title", name=cleaned),
            description=description,
            colour=Colour.INFO,
            result={
                "fight_id": row.id,
                "name": cleaned,
                "mort_subite": mort_subite,
                "ruleset": ruleset,
                "options": system_options,
            },
            kind="combat.open",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


async def attach_thread(
    ctx: AppContext, caller: Caller, fight_id: int, *, thread_id: int, message_id: int | None
) -> None:
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fight_id)
        if row is not None:
            row.thread_id = thread_id
            row.tracker_message_id = message_id


async def abandon(ctx: AppContext, fight_id: int) -> None:
    """The thread could not be created: close the row so nothing points at a missing thread."""
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fight_id)
        if row is not None:
            row.status = "closed"
            forget_channels(fight_id)
            row.closed_at = ctx.now()


async def add_combatants(
    ctx: AppContext,
    caller: Caller,
    *,
    who: str,
    count: int | None = None,
    stats: NpcStats | None = None,
    side: str | None = None,
    defence: str | None = None,
) -> FightOutcome:
    """Add a character by name (PC or saved NPC), or ``count`` quick NPCs from a creature preset;
    ``side``: their side (default PJ / PNJ), ``defence``: how these NPCs defend (:mod:`.npc_defence`)."""
    text = " ".join(who.split())
    stats = stats or NpcStats()

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        side_name = clean_side(side)
        defence_mode = parse_mode(defence, NPC_MODES)
        if side_name is not None or defence_mode is not None:
            require_gm(scope)
        if doc.row.ruleset in OTHER_RULESETS:
            check_ruleset(doc.row.ruleset, defence_mode)
            quick = _COUNT.match(text) if count is None else None
            template = await find_template(scope, doc.row.ruleset, quick.group(2) if quick else text)
            return await add_other(
                scope, doc, text, count, stats, template=template, side=side_name, defence=defence_mode
            )
        docs = scope.words.docs
        number = count
        name = text
        match = _COUNT.match(text)
        if match and number is None:
            number, name = int(match.group(1)), match.group(2)
        sheet = await find_character(scope.session, scope.guild_id, name) if number is None else None
        added: list[Combatant] = []
        notes: list[str] = []
        if sheet is not None:
            if stats.caracs:
                raise FightRefusal("combat.sys.error.caracs_other_rulesets")
            check_sheet_free(scope, doc, sheet)
            combatant, meta = _combatant_from_sheet(scope, docs, doc, sheet)
            doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
            doc.meta[combatant.id] = meta
            added.append(combatant)
        else:
            require_gm(scope)
            # the server's template of that name first, then the seed's creature row (bestiary)
            template = await find_template(scope, "renove", name)
            preset = template.preset if template is not None else None
            given, skills = parse_caracs("renove", stats.caracs)
            for code, value in (
                ("CC", stats.cc),
                ("CT", stats.ct),
                ("F", stats.f),
                ("E", stats.e),
                ("Ag", stats.ag),
                ("A", stats.a),
            ):
                if value is not None:
                    given[code] = value
            bf = stats.bf if stats.bf is not None else given.pop("BF", None)
            be = stats.be if stats.be is not None else given.pop("BE", None)
            if template is not None and template.saved:
                _, preset, given, bf, be = template_profile(docs, template, given, bf=bf, be=be)
                skills = {**template.skills, **skills}
            if preset is None:
                missing = missing_quick_stats(given, bf, be)
                if missing:
                    raise FightRefusal(
                        "combat.error.quick_needs_stats",
                        name=name[:60],
                        missing=_and(scope, [scope.t(f"combat.add.need.{code}") for code in missing]),
                    )
            number = number or 1
            if not 1 <= number <= MAX_QUICK:
                raise FightRefusal("combat.error.count_range", max=MAX_QUICK)
            if len(doc.state.combatants) + number > MAX_COMBATANTS:
                raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
            saved = template if template is not None and template.saved else None
            if saved is not None:
                label = saved.name
            elif preset is not None:
                label = str(preset["name_en"] if scope.words.en else preset["name"])
            else:
                label = quick_label(name, plural=number > 1 or match is not None)
            profile = quick_profile(docs, preset, given, QUICK_NPC_DEFAULTS, bf=bf, be=be)
            weapons = [_resolve_weapon(scope, w) for w in _list(stats.weapons)] or (
                list(saved.weapons) if saved is not None and saved.weapons else [QUICK_NPC_WEAPON]
            )
            pieces = [_resolve_piece(scope, p) for p in _list(stats.armour)] or (
                list(saved.armour) if saved is not None else []
            )
            gear = _equip(scope, weapons, pieces)
            existing = last_number(doc, label)
            for index in range(number):
                display = f"{label} {existing + index + 1}" if number > 1 or existing else label
                combatant = Combatant(
                    id=_unique_id(doc, display),
                    name=Name(display, stats.gender),
                    characteristics=dict(profile.values),
                    weapons=gear["weapons"],
                    off_hand=gear["off_hand"],
                    armour=gear["armour"],
                    shield_pv=gear["shield_max"],
                    skills=frozenset(skills),
                    npc=True,
                )
                doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
                doc.meta[combatant.id] = {
                    "owner_id": doc.row.owner_id,
                    "character_id": None,
                    "kind": "quick",
                    "preset": saved.key
                    if saved is not None
                    else preset["id"]
                    if preset is not None
                    else name_key(label),
                    "shield": gear["shield"],
                    "shield_max": gear["shield_max"],
                    "playable_bonus": profile.bonus,
                    "doubled": list(profile.doubled),
                    "masteries": {k: int(v) for k, v in skills.items() if int(v)},
                }
                added.append(combatant)
            notes = _defaults_notes(scope, preset, profile)
            if saved is not None:
                notes.insert(0, scope.t("npc.add.from_template", name=saved.name))
        if len(doc.state.combatants) > MAX_COMBATANTS:
            raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
        added = [put_side(c, side_name) for c in added] if side_name is not None else added
        for c in added:
            doc.state = doc.state.put(c)
        set_for(doc, added, defence_mode)
        new_event(scope, doc, "add", None, {"combatants": [c.to_dict() for c in added]})
        doc.save()
        lines = [_profile_line(scope, c, doc.meta[c.id]) for c in added]
        notes = [sides_line(scope, added), *filter(None, [mode_line(scope, defence_mode)]), *notes]
        reply = Reply(
            title=scope.t("combat.add.title" if len(added) > 1 else "combat.add.title_one", count=len(added)),
            description="\n".join([*lines, *notes])[:4000],
            footer=scope.t("combat.add.footer")
            if doc.state.round and not doc.data.get("round_over")
            else None,
            colour=Colour.INFO,
            result={"fight_id": doc.row.id, "added": [c.to_dict() for c in added]},
            kind="combat.add",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _and(scope: Scope, parts: list[str]) -> str:
    """« a, b et c » / "a, b and c"."""
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + scope.t("combat.add.and") + parts[-1]


def _defaults_notes(scope: Scope, preset: Mapping[str, Any] | None, profile: QuickProfile) -> list[str]:
    """What the GM did not give, said in the add reply: the defaults and the options that set them,
    and where a creature's F and E come from (its BF in the table, under the seed's rule)."""
    ch = profile.values
    said = []
    if profile.from_table and preset is not None:
        said.append(scope.t("combat.add.from_table", f=ch.get("F"), bf=preset["BF"]))
    if profile.e_is_f:
        said.append(scope.t("combat.add.e_is_f", e=ch.get("E")))
    if profile.doubled:
        said.append(scope.t("combat.add.doubled"))
    notes = [" ".join(said)] if said else []
    if profile.defaults:
        values = ", ".join(f"{shown_code(code, scope.words.en)} {ch.get(code)}" for code in profile.defaults)
        options = ", ".join(f"`{scope.t(f'combat.add.option.{code}')}`" for code in profile.defaults)
        notes.append(scope.t("combat.add.defaults", values=values, options=options))
    return notes


def _profile_line(scope: Scope, c: Combatant, meta: Mapping[str, Any]) -> str:
    ch = c.characteristics
    weapons = ", ".join(scope.words.weapon(w) for w in c.weapons)
    if meta.get("kind") == "npc" and meta.get("character_id") is not None:
        # A GM's NPC sheet: the thread is the table's, so its values stay on the sheet (the GM reads
        # them with /perso voir); only what the players see of him is said.
        return scope.t("combat.add.npc_sheet", name=c.name, weapons=weapons or "—")
    zones = []
    for zone in ("tete", "corps", "bras", "jambes"):
        layers = c.armour.get(zone, ())
        if layers:
            pa = sum(scope.tables.armour.families[layer.family].pa for layer in layers)
            partial = any(layer.coverage < 1 for layer in layers)
            zones.append(f"{scope.words.zone(zone)} {pa}{'*' if partial else ''}")
    bonus = meta.get("playable_bonus") or {}
    extra = (
        " " + scope.t("combat.add.playable_bonus", bf=bonus.get("BF", 0), be=bonus.get("BE", 0))
        if bonus
        else ""
    )
    armour = (" · PA " + ", ".join(zones)) if zones else ""
    en = scope.words.en
    stats = " · ".join(
        f"{shown_code(code, en)} {ch.get(code, 1 if code == 'A' else None)}"
        for code in ("CC", "CT", "F", "Ag", "A", "BF", "BE")
    )
    return f"**{c.name}** — {stats}{extra} · {weapons}{armour}"


async def remove_combatant(ctx: AppContext, caller: Caller, *, who: str) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        state = doc.state
        current = state.current_slot
        order = tuple(s for s in state.order if s.combatant != c.id)
        turn = state.turn
        if current is not None:
            before = sum(1 for s in state.order[: state.turn] if s.combatant == c.id)
            turn = max(0, turn - before)
        doc.state = replace(
            state, combatants=tuple(x for x in state.combatants if x.id != c.id), order=order, turn=turn
        )
        doc.meta.pop(c.id, None)
        for seq, pending in list(doc.pending.items()):
            if c.id in (pending["attacker"], pending["defender"]):
                doc.pending.pop(seq)
        new_event(scope, doc, "remove", c.id, {"name": c.name})
        doc.save()
        reply = Reply(
            description=scope.t("combat.remove.done", name=c.name),
            colour=Colour.INFO,
            kind="combat.remove",
            result={"removed": c.id},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)
