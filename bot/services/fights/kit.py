"""The pieces the other rulesets' adapters (v1, d20, ogl) share: weapon profiles, characteristics,
adding their combatants, and thin public wrappers over the renove loop's helpers."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.db.characters import (
    CharacterSheet,
    find_character,
)
from bot.rules.combat.effects import Condition, EffectApplication
from bot.rules.combat.state import Combatant, signal
from bot.rules.d20 import checks as d20_checks
from bot.rules.names import Name
from bot.rules.sheets import SheetError, fold, sheet_for
from bot.services.fights._core import (
    _COUNT,
    MAX_COMBATANTS,
    MAX_QUICK,
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    new_event,
    outcome,
    require_gm,
    slug,
)
from bot.services.fights.attacks import _mention
from bot.services.fights.damage import _application_lines
from bot.services.fights.npc_defence import (
    chances_of,
    defence_buttons,
    defence_prompt,
    mode_line,
    mode_of,
    pick,
    set_for,
)
from bot.services.fights.registry import system_of
from bot.services.fights.roster import (
    NpcStats,
    _list,
    _unique_id,
    check_sheet_free,
    last_number,
    quick_label,
)
from bot.services.fights.rounds import _actor, _pass_turn, _settle_turn, _spend, _turn_line
from bot.services.fights.sides import put_side, sides_line
from bot.services.fights.text import Words
from bot.services.house_rules import table_in_force
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

# Weapon profiles of the other rulesets (their seeds have no weapon table): "Épée +1, Bouclier
# bouclier, Arc tir". Tokens: ``+N``/``-N`` weapon bonus (v1) or modifier (d20); ``NdM+K`` damage
# dice (ogl); ``NN`` or ``NN%`` the attack score (d20 score, ogl weapon skill); ``par=NN`` the parry
# score (d20, ogl) or the weapon's parry modifier (v1); ``md=1d4`` the damage modifier (ogl);
# ``pen=12+1d6`` / ``choc=8`` a d20 projectile's penetration and shock rates, ``massif=1`` a d20
# weapon of mass destruction's DM; a kind word; the other
# words are the name.
_KIND_WORDS: Final[dict[str, str]] = {
    "tranchant": "edged",
    "tranchante": "edged",
    "edged": "edged",
    "contondant": "blunt",
    "contondante": "blunt",
    "blunt": "blunt",
    "projectile": "missile",
    "missile": "missile",
    "tir": "fired",
    "feu": "fired",
    "fired": "fired",
    "jet": "thrown",
    "lancer": "thrown",
    "thrown": "thrown",
    "fleche": "arrow",
    "arc": "arrow",
    "arrow": "arrow",
    "mains_nues": "bare",
    "poings": "bare",
    "bagarre": "bare",
    "bare": "bare",
    "bouclier": "shield",
    "shield": "shield",
}
_FLAG_WORDS: Final[dict[str, str]] = {
    "empalant": "impaling",
    "empalante": "impaling",
    "impaling": "impaling",
    "naturelle": "natural",
    "naturel": "natural",
    "natural": "natural",
    "deux_mains": "two_handed",
    "two_handed": "two_handed",
}
_DICE_TOKEN = re.compile(r"^[0-9]{1,2}d[0-9]{1,3}(?:[+-][0-9]{1,2}(?:d[0-9]{1,3})?)*$")
_D20_RATE = re.compile(r"[0-9]{1,3}(?:\+[0-9]d[0-9]{1,3})?|\+?[0-9]d[0-9]{1,3}")
ARMS_MAX: Final = 6
RANGED_KINDS: Final = frozenset({"missile", "fired", "thrown", "arrow"})


def parse_arms(text: str | None) -> list[dict[str, Any]]:
    """Weapon profiles from ``armes:"Épée +1 tranchant, Arc tir"`` (a refusal names what is wrong)."""
    out: list[dict[str, Any]] = []
    for part in _list(text):
        arm: dict[str, Any] = {"bonus": 0, "kind": "edged", "dice": None, "score": None, "parry": None}
        arm["md"] = None
        flags: list[str] = []
        words: list[str] = []
        tokens = part.split()
        first = fold(tokens[0])
        if first in _KIND_WORDS:
            arm["kind"] = _KIND_WORDS[first]
        for index, token in enumerate(tokens):
            low = fold(token).replace("é", "e")
            if index == 0 and not re.fullmatch(r"[+-]?[0-9].*", low):
                words.append(token)
                continue
            key, sep, rest = low.partition("=")
            if not sep:
                key, sep, rest = low.partition(":")
            if re.fullmatch(r"[+-][0-9]{1,2}", low):
                arm["bonus"] = int(low)
            elif _DICE_TOKEN.match(low):
                arm["dice"] = low
            elif re.fullmatch(r"[0-9]{1,3}%?", low):
                arm["score"] = int(low.rstrip("%"))
            elif sep and key in ("par", "parade", "parry") and re.fullmatch(r"[+-]?[0-9]{1,3}%?", rest):
                arm["parry"] = int(rest.rstrip("%"))
            elif sep and key in ("md", "dm") and _DICE_TOKEN.match(rest.lstrip("+")):
                arm["md"] = rest.lstrip("+")
            elif sep and key == "pen" and _D20_RATE.fullmatch(rest):
                arm["pen"] = rest  # d20 projectiles: the penetration rate (+ its random part)
            elif sep and key in ("choc", "shock") and re.fullmatch(r"[0-9]{1,3}", rest):
                arm["shock"] = int(rest)  # d20 projectiles: the shock rate
            elif sep and key in ("massif", "massive") and re.fullmatch(r"[0-9]{1,2}", rest):
                arm["massive"] = int(rest)  # d20 weapons of mass destruction: their DM (l. 188-195)
            elif low in _KIND_WORDS:
                arm["kind"] = _KIND_WORDS[low]
            elif low in _FLAG_WORDS:
                flags.append(_FLAG_WORDS[low])
            elif sep or not re.fullmatch(r"[\w'’-]{1,30}", token):
                raise FightRefusal("combat.sys.error.bad_weapon", text=part[:60])
            else:
                words.append(token)
        if not words:
            raise FightRefusal("combat.sys.error.weapon_name", text=part[:60])
        arm["name"] = " ".join(words)[:40]
        arm["id"] = slug(arm["name"])
        arm["flags"] = sorted(set(flags))
        out.append(arm)
    if len(out) > ARMS_MAX:
        raise FightRefusal("combat.sys.error.too_many_weapons", max=ARMS_MAX)
    if len({a["id"] for a in out}) != len(out):
        raise FightRefusal("combat.sys.error.same_weapon_twice")
    return out


BARE_HANDS: Final[dict[str, Any]] = {
    "id": "mains-nues",
    "name": "Mains nues",
    "bonus": 0,
    "kind": "bare",
    "dice": None,
    "score": None,
    "parry": None,
    "md": None,
    "flags": ["natural"],
}


def arms_from_sheet(scope: Scope, sheet: CharacterSheet) -> list[dict[str, Any]]:
    """A character's equipped weapons (renove's weapon table) as plain profiles: the name and the
    kind (from the weapon's critical table: tranchantes → edged …), no bonus, no score (reading:
    the other seeds have no weapon table; ``armes:`` gives the figures)."""
    out: list[dict[str, Any]] = []
    for wid in sheet.equipment.get("weapons", []):
        weapon = scope.tables.weapons.get(wid)
        if weapon is None:
            continue
        if scope.tables.shield_for(wid).pv is not None:
            kind = "shield"
        elif weapon.kind == "ranged":
            kind = "missile"
        else:
            kind = {"contondantes": "blunt", "pugilat": "bare"}.get(weapon.critical_kind, "edged")
        arm = dict(BARE_HANDS)
        arm.update(id=wid.replace("_", "-"), name=scope.words.weapon(wid), kind=kind, flags=[])
        out.append(arm)
    return out


def parse_caracs(ruleset: str, text: str | None) -> tuple[dict[str, int], dict[str, int]]:
    """``"CC:40 F:3 Esquive:10"`` → (characteristics of the ruleset's sheet, other names as skills)."""
    from bot.rules.sheets import parse_pairs

    if not text or not text.strip():
        return {}, {}
    try:
        changes = parse_pairs(text)
    except SheetError as exc:
        problem = exc.problems[0]
        raise FightRefusal(
            "combat.sys.error.bad_caracs", text=str(problem.params.get("text", text))[:40]
        ) from None
    rules = sheet_for(ruleset)
    stats: dict[str, int] = {}
    skills: dict[str, int] = {}
    for change in changes:
        code = rules.canonical(change.name)
        if code is None:
            skills[fold(change.name)] = change.value
            continue
        stat = rules.stat(code)
        if not stat.minimum <= change.value <= stat.maximum:
            raise FightRefusal("combat.sys.error.stat_range", stat=code, min=stat.minimum, max=stat.maximum)
        stats[code] = change.value
    return stats, skills


async def add_other(
    scope: Scope,
    doc: Doc,
    text: str,
    count: int | None,
    stats: NpcStats,
    *,
    template: Any = None,
    side: str | None = None,
    defence: str | None = None,
) -> FightOutcome:
    """Add a character (its sheet must be of the fight's ruleset) or ``count`` quick NPCs whose
    figures come from ``caracs`` (the v1, d20 and ogl seeds give no creature figures) over those of
    the server's ``template`` of that name (``bestiary.Template``, found by the caller)."""
    ruleset = doc.row.ruleset
    adapter = system_of(ruleset)
    number = count
    name = text
    match = _COUNT.match(text)
    if match and number is None:
        number, name = int(match.group(1)), match.group(2)
    if any(
        x is not None for x in (stats.cc, stats.ct, stats.f, stats.e, stats.ag, stats.bf, stats.be, stats.a)
    ):
        raise FightRefusal("combat.sys.error.use_caracs", ruleset=ruleset)
    sheet = await find_character(scope.session, scope.guild_id, name) if number is None else None
    given, skills = parse_caracs(ruleset, stats.caracs)
    arms = parse_arms(stats.weapons)
    added: list[Combatant] = []
    if sheet is not None:
        check_sheet_free(scope, doc, sheet)
        if sheet.ruleset != ruleset:
            raise FightRefusal(
                "combat.sys.error.sheet_ruleset", name=sheet.name, sheet=sheet.ruleset, fight=ruleset
            )
        values = {**dict(sheet.characteristics), **given}
        known = {fold(k): int(v) for k, v in sheet.skills.items()}
        knowledge = {fold(k) for k in (getattr(sheet, "profile", None) or {}).get("knowledge") or ()}
        for key, innate in (getattr(sheet, "skill_innate", None) or {}).items():
            # d20 (seed 003 l. 8-9): Inné + Acquis; an Instinct without Acquis on the Inné at −5; a
            # Savoir without Acquis is not usable at all (dropped from the fighter's skills)
            kind = d20_checks.SkillKind.KNOWLEDGE if fold(key) in knowledge else d20_checks.SkillKind.INSTINCT
            try:
                parts = d20_checks.skill_parts(int(innate), known.get(fold(key), 0), kind)
            except d20_checks.SkillNotUsable:
                known.pop(fold(key), None)
                continue
            known[fold(key)] = sum(part.value for part in parts)
        known.update(skills)
        recruit = Recruit(
            cid=_unique_id(doc, sheet.name),
            name=sheet.name,
            values=values,
            skills=known,
            arms=arms or arms_from_sheet(scope, sheet) or [dict(BARE_HANDS)],
            armour=stats.armour,
            npc=sheet.is_npc,
        )
        combatant, meta = adapter.build(scope, doc, recruit)
        meta.update(owner_id=sheet.owner_id, character_id=sheet.id, kind="npc" if sheet.is_npc else "pc")
        doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
        doc.meta[combatant.id] = meta
        added.append(combatant)
    else:
        require_gm(scope)
        if template is not None:  # the server's template, the typed values over its own
            given = {**template.characteristics, **given}
            skills = {**template.skills, **skills}
            arms = arms or parse_arms(", ".join(template.weapons))
            if stats.armour is None and template.armour:
                stats = replace(stats, armour=", ".join(template.armour))
        if not given:
            raise FightRefusal("combat.sys.error.quick_needs_caracs", name=name[:60], ruleset=ruleset)
        number = number or 1
        if not 1 <= number <= MAX_QUICK:
            raise FightRefusal("combat.error.count_range", max=MAX_QUICK)
        if len(doc.state.combatants) + number > MAX_COMBATANTS:
            raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
        label = (
            template.name
            if template is not None
            else quick_label(name, plural=number > 1 or match is not None)
        )
        existing = last_number(doc, label)
        for index in range(number):
            display = f"{label} {existing + index + 1}" if number > 1 or existing else label
            recruit = Recruit(
                cid=_unique_id(doc, display),
                name=Name(display, stats.gender),
                values=dict(given),
                skills=dict(skills),
                arms=[dict(a) for a in arms] or [dict(BARE_HANDS)],
                armour=stats.armour,
                npc=True,
            )
            combatant, meta = adapter.build(scope, doc, recruit)
            meta.update(owner_id=doc.row.owner_id, character_id=None, kind="quick", preset=fold(label))
            doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
            doc.meta[combatant.id] = meta
            added.append(combatant)
    if side is not None:
        added = [put_side(c, side) for c in added]
        for c in added:
            doc.state = doc.state.put(c)
    set_for(doc, added, defence)  # ``defense:`` — NPCs only, refused for a PC before anything is written
    new_event(scope, doc, "add", None, {"combatants": [c.to_dict() for c in added]})
    doc.save()
    lines = [
        # A GM's NPC sheet keeps its values off the table's thread (see ``opening._profile_line``).
        scope.t("combat.add.npc_sheet", name=c.name, weapons="—")
        if doc.meta.get(c.id, {}).get("kind") == "npc" and doc.meta.get(c.id, {}).get("character_id")
        else adapter.profile_line(scope, doc, c)
        for c in added
    ]
    lines.append(sides_line(scope, added))
    lines.extend(filter(None, [mode_line(scope, defence)]))
    reply = Reply(
        title=scope.t("combat.add.title" if len(added) > 1 else "combat.add.title_one", count=len(added)),
        description="\n".join(lines)[:4000],
        footer=scope.t("combat.add.footer") if doc.state.round and not doc.data.get("round_over") else None,
        colour=Colour.INFO,
        result={
            "fight_id": doc.row.id,
            "added": [c.to_dict() for c in added],
            "meta": {c.id: doc.meta[c.id] for c in added},
        },
        kind="combat.add",
    )
    return outcome(scope, doc, reply)


@dataclass(frozen=True, slots=True)
class Recruit:
    """What an adapter's ``build`` makes a combatant of: its id and name, the characteristics given
    (``values``, current pools included), skills (``build`` may pop its own entries), arms and armour."""

    cid: str
    name: str
    values: dict[str, int]
    skills: dict[str, int]
    arms: list[dict[str, Any]]
    armour: str | None
    npc: bool

    def stats(self, required: Iterable[str], dropped: Iterable[str]) -> dict[str, int]:
        """The characteristics to start from: refused when one of ``required`` is missing;
        ``dropped`` (the current pools, which become losses) left out."""
        missing = [code for code in required if code not in self.values]
        if missing:
            raise FightRefusal("combat.sys.error.missing_stats", name=self.name, stats=", ".join(missing))
        left_out = frozenset(dropped)
        return {k: int(v) for k, v in self.values.items() if k not in left_out}

    def combatant(self, stats: dict[str, int], **extra: Any) -> Combatant:
        return Combatant(
            id=self.cid,
            name=self.name,
            characteristics=stats,
            weapons=tuple(a["id"] for a in self.arms),
            npc=self.npc,
            **extra,
        )


def check_line(w: Words, check: Any, unit: str = "") -> str:
    """A check of the other rulesets: its terms, the roll, the outcome and the margin."""
    margin = "MR" if check.success else "ME"
    return (
        w.terms(check.modifiers, check.target, unit)
        + "\n"
        + w.t("combat.word.roll")
        + f" **{check.roll_text}** → {w.t(check.outcome_key)} ({margin} {check.margin})"
    )


def pending_buttons(
    scope: Scope, doc: Doc, seq: int, choices: Sequence[str]
) -> tuple[tuple[Button, ...], ...]:
    styles = {"encaisser": ButtonStyle.SECONDARY}
    return (
        tuple(
            Button(
                scope.t(f"combat.defence.button.{choice}"),
                custom_id(doc.row.id, "def", seq, choice),
                styles.get(choice, ButtonStyle.PRIMARY),
            )
            for choice in choices
        ),
    )


async def await_defence(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    payload: dict[str, Any],
    resolve: Callable[..., Awaitable[list[str]]],
) -> tuple[list[str], tuple[tuple[Button, ...], ...]]:
    """A hit that waits for its defence (issue 18, every ruleset): an NPC who defends by himself
    (``defense_pnj``) answers at once with his best legal choice — or the GM's fixed one —, rolled by
    the bot and shown like any defence; else the pending defence is stored and its buttons are only
    the legal ones (« Défense auto » too for an NPC). The lines and the buttons for the reply."""
    foe = doc.state.get(str(pending["defender"]))
    chances = await chances_of(scope, doc, pending)
    mode = mode_of(doc, foe)
    if mode != "manuel":
        choice, said, payload["auto_defence"] = pick(scope, doc, pending, mode, chances)
        return [said, *await resolve(scope, doc, pending, choice, DefenceRolls(), payload)], ()
    doc.pending[str(pending["seq"])] = dict(pending)
    payload["pending"] = True
    lines = [defence_prompt(scope, doc, pending, _mention(doc, foe.id), chances)]
    return lines, defence_buttons(scope, doc, pending, chances)


def mention(doc: Doc, cid: str) -> str:
    return _mention(doc, cid)


def actor(scope: Scope, doc: Doc, name: str | None) -> Combatant:
    return _actor(scope, doc, name)


def spend(scope: Scope, doc: Doc, c: Combatant, action: str) -> None:
    """An A-costing action on one's own slot (the turn is passed by :func:`pass_turn`)."""
    _spend(scope, doc, c, action, advance=False)


def pass_turn(scope: Scope, doc: Doc) -> list[str]:
    lines = _pass_turn(scope, doc)
    turn = _turn_line(scope, doc)
    return [*lines, turn] if turn else lines


def settle(scope: Scope, doc: Doc) -> list[str]:
    lines = _settle_turn(scope, doc)
    turn = _turn_line(scope, doc)
    return [*lines, turn] if turn else lines


def application_lines(
    scope: Scope, doc: Doc, victim: Combatant, application: EffectApplication, payload: dict[str, Any]
) -> list[str]:
    return _application_lines(scope, doc, victim, application, payload)


def set_dead(doc: Doc, cid: str, source: str) -> None:
    c = doc.state.get(cid)
    if not c.has("dead"):
        doc.state = doc.state.put(
            replace(c, conditions=(*c.conditions, Condition("dead", source, until="permanent")))
        )


def pick_arm(doc: Doc, c: Combatant, text: str | None) -> dict[str, Any]:
    arms: list[dict[str, Any]] = list(doc.meta.get(c.id, {}).get("arms") or [BARE_HANDS])
    if text:
        wanted = fold(text)
        for arm in arms:
            if wanted == fold(arm["name"]) or arm["id"] == slug(text):
                return arm
        starts = [a for a in arms if fold(a["name"]).startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        if wanted in ("mains nues", "poings", "bare hands"):
            return dict(BARE_HANDS)
        raise FightRefusal("combat.error.weapon_not_carried", name=c.name, weapon=text[:40])
    for arm in arms:
        if arm["kind"] != "shield":
            return arm
    return arms[0]


def situation_tokens(text: str | None) -> list[tuple[str, str | None]]:
    """``"longue, groupe:2"`` → [("longue", None), ("groupe", "2")] (folded, spaces → _)."""
    out: list[tuple[str, str | None]] = []
    for part in _list(text):
        key, sep, value = part.partition(":")
        if not sep:
            key, sep, value = part.partition("=")
        out.append((fold(key).replace(" ", "_").replace("'", "_"), value.strip() if sep else None))
    return out


def require_gm_for_free_modifier(scope: Scope, text: str | None) -> None:
    """``situation:mod:±N`` is the GM's free modifier: a player's own attack may not carry one."""
    if not scope.gm and any(key == "mod" for key, _ in situation_tokens(text)):
        raise FightRefusal("combat.sys.error.gm_modifier")


def generic_action(
    scope: Scope, doc: Doc, action: str, who: str | None, allowed: Iterable[str]
) -> tuple[Combatant, list[str]]:
    """A shared action (``combat_actions`` ids) a system allows: spent on one's own slot when it
    costs an action, the turn then passes; refused with a clear message otherwise."""
    if action not in allowed or action not in scope.tables.actions:
        label = f"combat.action.{action}"
        raise FightRefusal(
            "combat.sys.error.action_not_in_system",
            action=scope.t(label) if scope.words.ctx.catalog.has(label) else action[:30],
            ruleset=doc.row.ruleset,
        )
    c = _actor(scope, doc, who)
    updated, notes = _spend(scope, doc, c, action)
    if action == "se_relever":
        doc.state, _ = signal(doc.state, c.id, "stands_up")
    return updated, notes


def action_reply(scope: Scope, doc: Doc, c: Combatant, action: str, lines: Sequence[str]) -> FightOutcome:
    head = scope.t("combat.action.done", name=c.name, action=scope.t(f"combat.action.{action}"))
    result = {"action": action, "combatant": c.id}
    new_event(scope, doc, "action", c.id, result)
    doc.save()
    reply = Reply(
        description="\n".join([head, *lines, _turn_line(scope, doc)]).strip(),
        colour=Colour.INFO,
        kind="combat.action",
        result=result,
    )
    return outcome(scope, doc, reply)


async def system_tables(scope: Scope, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
    """The documents in force (house rules merged) of a system's tables."""
    return {name: await table_in_force(scope.session, scope.ctx, scope.guild_id, name) for name in names}


def parse_option_tokens(text: str | None, known: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """``"endurance:seuil, des:unites"`` → {option key: value} from ``known`` = {word: {value word:
    stored value}}; anything else is refused with the accepted words."""
    out: dict[str, str] = {}
    for key, value in situation_tokens(text):
        choices = known.get(key)
        if choices is None or value is None or fold(value) not in choices:
            accepted = "; ".join(f"{k}:{'|'.join(v)}" for k, v in known.items())
            raise FightRefusal("combat.sys.error.bad_option", option=key[:30], accepted=accepted)
        out[key] = choices[fold(value)]
    return out
