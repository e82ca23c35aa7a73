"""Building combatants: presets and quick NPC stats, weapons and armour, the carry penalty of a
shield or second weapon, unique ids, combatants from character sheets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.db.characters import (
    CharacterSheet,
)
from bot.rules.checks.common import Modifier
from bot.rules.combat.state import Combatant
from bot.rules.renove.armour import ArmourMaluses, maluses, wearing_cancels
from bot.rules.renove.damage import build_armour, shield_max_pv
from bot.rules.sheets import fold, race_bonus
from bot.services.fights._core import Doc, FightRefusal, Scope, name_key, slug
from bot.services.talent_book import book_of


def _talent_ids(docs: Mapping[str, Any], names: Iterable[str]) -> frozenset[str]:
    """The ids of a sheet's talents, found in the talent book by any name or alias."""
    return book_of(docs.get("talents")).ids(names)


def _presets(docs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in docs.get("creatures_bf", {}).get("entries", ()):
        for creature in entry.get("creatures", ()):
            out[str(creature["id"])] = {
                "id": creature["id"],
                "name": creature.get("name") or creature["id"],
                "name_en": creature.get("name_en") or creature.get("name"),
                "kind": creature.get("kind") or "monster",
                "BF": entry.get("BF"),
                "BE": entry.get("BE"),
            }
    return out


def _singular(word: str) -> str:
    """One word's singular, kept simple: « chevaux » → « cheval » (a final -aux, not -eaux, is -al),
    else a final s or x dropped (« bandits », « hommes », « bêtes »); words of two letters kept."""
    low = word.casefold()
    if len(word) > 4 and low.endswith("aux") and not low.endswith("eaux"):
        return word[:-3] + ("AL" if word[-1].isupper() else "al")
    if len(word) > 2 and low[-1] in "sx":
        return word[:-1]
    return word


def creature_key(text: str) -> str:
    """What a creature's name is compared by: accents, case, hyphens, spaces and plurals forgiven
    (« homme-bête », « Hommes bêtes », « HOMMES-BETES » → "hommebete"; English -men → -man)."""
    words = name_key(text).split()
    return "".join(_singular(w[:-3] + "man" if w.endswith("men") else w) for w in words)


def find_preset(docs: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    wanted = creature_key(text)
    if not wanted:
        return None
    for preset in _presets(docs).values():
        names = {creature_key(str(preset[k])) for k in ("id", "name", "name_en")}
        if wanted in names:
            return preset
    return None


def preset_choices(docs: Mapping[str, Any], current: str, en: bool) -> list[tuple[str, str]]:
    wanted = creature_key(current)
    out = []
    for preset in _presets(docs).values():
        label = str(preset["name_en"] if en else preset["name"])
        if not wanted or wanted in creature_key(label):
            out.append((f"{label} (BF {preset['BF']})", label))
    return out


_LINK_WORDS: Final = frozenset({"de", "du", "des", "d", "a", "au", "aux", "en", "sur", "of", "from", "the"})


def quick_label(text: str, plural: bool) -> str:
    """The name quick NPCs are numbered after: the GM's words, the first letter capitalised; when
    several are added (« 3 bandits », « 2 gardes du Reik »), each word before a linking word (de,
    du, des, d', à, au, aux, en, sur, of, from, the) put in the singular (:func:`_singular`):
    « Bandit 1 … 3 », « Garde du Reik 1, 2 », « Homme d'armes 1 »."""
    words = text.split()
    if plural:
        out: list[str] = []
        linked = False
        for word in words:
            head = fold(word).replace("’", "'")
            linked = linked or head in _LINK_WORDS or head.startswith(("d'", "l'"))
            out.append(word if linked or "'" in head else _singular(word))
        words = out
    label = " ".join(words)[:60]
    return label[:1].upper() + label[1:]


def last_number(doc: Doc, label: str) -> int:
    """The highest number already taken by fighters named after ``label`` (« Bandit » alone
    counts as 1, « Bandit 3 » as 3): the next ones continue from it."""
    key = name_key(label)
    top = 0
    for c in doc.state.combatants:
        name = name_key(c.name)
        if name == key:
            top = max(top, 1)
        elif name.startswith(key + " ") and name[len(key) + 1 :].isdigit():
            top = max(top, int(name[len(key) + 1 :]))
    return top


QUICK_STATS: Final = ("CC", "CT", "F", "E", "Ag", "A")  # what a renove fight reads, in profile order


@dataclass(frozen=True, slots=True)
class QuickProfile:
    """A renove quick NPC's characteristics and how they were reached: ``defaults`` are the
    characteristics the GM did not give (``QUICK_STATS`` order), ``from_table`` an F read back from
    the creature's BF, ``e_is_f`` an E taken as F, ``bonus`` the playable +3 applied, ``doubled``
    the BF/BE a monster's doubled F/E gave."""

    values: dict[str, int]
    defaults: tuple[str, ...]
    from_table: bool
    e_is_f: bool
    bonus: dict[str, int]
    doubled: tuple[str, ...]


def missing_quick_stats(given: Mapping[str, int], bf: int | None, be: int | None) -> list[str]:
    """What a quick NPC that is no known creature lacks to fight in renove: CC, F (or BF), E (or BE)."""
    missing = []
    if "CC" not in given:
        missing.append("CC")
    if "F" not in given and bf is None:
        missing.append("F")
    if "E" not in given and be is None:
        missing.append("E")
    return missing


def quick_profile(
    docs: Mapping[str, Any],
    preset: Mapping[str, Any] | None,
    given: Mapping[str, int],
    defaults: Mapping[str, int],
    *,
    bf: int | None = None,
    be: int | None = None,
) -> QuickProfile:
    """The seed's rule (creatures_bf.json ``rule``): a monster's BF and BE are its F and E doubled
    (their tens), a character adds the playable bonus (+3) to the tens. A creature with no F given
    takes the F its table BF gives back (monster BF × 10 / 2, character (BF − 3) × 10) and E = F;
    a quick NPC of any other name is a character (a human, as a sheet without a race). ``bf`` and
    ``be`` given win over the rule."""
    rule = docs.get("creatures_bf", {}).get("rule", {})
    double = rule.get("monster_characteristics_multiplier") or {"F": 2, "E": 2}
    playable = rule.get("playable_bonus") or {"BF": 3, "BE": 3}
    monster = preset is not None and preset.get("kind", "monster") == "monster"
    values = dict(defaults)
    values.update(given)
    taken = tuple(code for code in QUICK_STATS if code not in given)
    from_table = e_is_f = False
    if preset is not None and "F" not in given:
        table_bf = int(preset["BF"])
        if monster:
            values["F"] = -(-table_bf * 10 // int(double.get("F", 2)))
        else:
            values["F"] = max(0, (table_bf - int(playable.get("BF", 3))) * 10)
        from_table = True
    elif preset is None and "F" not in given and bf is not None:
        values["F"] = max(0, (bf - int(playable.get("BF", 3))) * 10)
    if "E" not in given:
        if preset is not None and preset.get("BE") is not None and not monster:
            values["E"] = max(0, (int(preset["BE"]) - int(playable.get("BE", 3))) * 10)
        elif preset is not None and preset.get("BE") is not None:
            values["E"] = -(-int(preset["BE"]) * 10 // int(double.get("E", 2)))
        elif preset is not None:
            values["E"] = values["F"]
            e_is_f = True
        elif be is not None:
            values["E"] = max(0, (be - int(playable.get("BE", 3))) * 10)
    bonus: dict[str, int] = {}
    doubled: list[str] = []
    for code, source, given_bonus in (("BF", "F", bf), ("BE", "E", be)):
        if not monster:  # a BF or BE given carries the +3, as a sheet's does
            bonus[code] = int(playable.get(code, 3))
        if given_bonus is not None:
            values[code] = given_bonus
        elif monster:
            values[code] = values[source] * int(double.get(source, 2)) // 10
            doubled.append(code)
        else:
            values[code] = values[source] // 10 + bonus[code]
    if preset is not None and "F" not in given and bf is None:
        values["BF"] = int(preset["BF"])  # the table's value as printed
    return QuickProfile(values, taken, from_table, e_is_f, bonus, tuple(doubled))


@dataclass(frozen=True, slots=True)
class NpcStats:
    cc: int | None = None
    ct: int | None = None
    f: int | None = None
    e: int | None = None
    ag: int | None = None
    bf: int | None = None
    be: int | None = None
    a: int | None = None
    weapons: str | None = None
    armour: str | None = None
    caracs: str | None = None  # other rulesets: "CC:40 F:3 E:3 B:8 I:35 Esquive:10"
    gender: str | None = None  # the grammatical gender of their names: "m" (default) or "f"


def _resolve_weapon(scope: Scope, text: str) -> str:
    wanted = fold(text)
    tables = scope.tables
    if text in tables.weapons:
        return text
    for weapon in tables.weapons.values():
        if wanted in (fold(weapon.name), fold(weapon.id.replace("_", " "))):
            return weapon.id
    starts = [w.id for w in tables.weapons.values() if fold(w.name).startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    raise FightRefusal("combat.error.unknown_weapon", name=text[:40])


def _resolve_piece(scope: Scope, text: str) -> str:
    pieces = scope.tables.armour.pieces
    if text in pieces:
        return text
    wanted = fold(text)
    for piece in pieces.values():
        if wanted in (
            fold(piece.name),
            fold(piece.id.replace("_", " ")),
            fold(f"{piece.family} {piece.name}"),
            *(fold(a) for a in piece.aliases),  # the former short names, first match as before
            *(fold(f"{piece.family} {a}") for a in piece.aliases),
        ):
            return piece.id
    raise FightRefusal("combat.error.unknown_armour", name=text[:40])


def _list(text: str | None) -> list[str]:
    if not text:
        return []
    return [p.strip() for p in re.split(r"[,;]", text) if p.strip()]


def _equip(
    scope: Scope,
    weapons: Sequence[str],
    pieces: Sequence[str],
    *,
    sheet: bool = False,
    said: str | None = None,
) -> dict[str, Any]:
    """Weapons (main, off hand, shield) and armour layers of a combatant. A sheet's off hand is the
    weapon its player said (``/perso equiper main_gauche:``), else its shield: the other weapons are
    spares, not held (seed l. 1015-1021). A quick NPC's is the second one-handed melee weapon listed.
    A two-handed weapon is never in the off hand."""
    tables = scope.tables
    weapon_ids = [w for w in weapons if w in tables.weapons]
    shield: str | None = None
    for wid in weapon_ids:
        if tables.shield_for(wid).pv is not None:
            shield = wid
    one_handed = [
        w for w in weapon_ids if tables.weapons[w].kind == "melee" and not tables.weapons[w].two_handed
    ]
    melee = [w for w in weapon_ids if tables.weapons[w].kind == "melee"]
    off_hand = None
    if sheet:
        off_hand = said if said in one_handed else (shield if shield in one_handed else None)
    elif len(melee) >= 2 and melee[1] in one_handed:
        off_hand = melee[1]
    armour = build_armour(tables, pieces) if pieces else {}
    shield_max = shield_max_pv(tables, shield) if shield else None
    return {
        "weapons": tuple(weapon_ids) or ("mains_nues",),
        "off_hand": off_hand,
        "armour": armour,
        "shield": shield,
        "shield_max": shield_max,
    }


def _shields_rule(scope: Scope, rule_id: str) -> Mapping[str, Any]:
    for rule in scope.words.docs.get("shields", {}).get("rules", ()):
        if rule.get("id") == rule_id:
            effect: Mapping[str, Any] = rule.get("effect") or {}
            return effect
    return {}


def _carry_penalty(scope: Scope, c: Combatant) -> tuple[int, str | None]:
    """The seed's −5 Ag for what is carried (shields.json ``port_seconde_arme``): a shield or a second
    weapon in the left hand (not a knife, a dagger, a pistol, a crossbow pistol nor a parrying weapon),
    or a weapon of the Lourdes group / a flail; Ambidextre waives it for one-handed weapons. The value
    (0 when nothing costs) and the weapon that costs it."""
    effect = _shields_rule(scope, "port_seconde_arme")
    if effect.get("type") != "carry_penalty" or effect.get("stat", "Ag") != "Ag":
        return 0, None
    tables = scope.tables
    waiver = _shields_rule(scope, "ambidextre")
    ambidextrous = str(waiver.get("talent", "ambidextre")) in c.talents
    one_handed_only = bool(waiver.get("one_handed_only", True))
    left = c.off_hand
    if left is None:
        left = next((w for w in c.weapons if tables.shield_for(w).pv is not None), None)
    costly: list[str] = []
    if (
        left is not None
        and left in tables.weapons
        and left not in effect.get("exempt_weapons", ())
        and tables.weapons[left].defensive_kind not in effect.get("exempt_defensive_kinds", ())
    ):
        costly.append(left)
    for wid in c.weapons:
        weapon = tables.weapons.get(wid)
        if weapon is None or wid in costly:
            continue
        if weapon.group in effect.get("also_when_carried_groups", ()) or wid in effect.get(
            "also_when_carried_weapons", ()
        ):
            costly.append(wid)
    for wid in costly:
        if ambidextrous and (not one_handed_only or not tables.weapons[wid].two_handed):
            continue
        return int(effect.get("value", 0)), wid
    return 0, None


def _carry_modifier(scope: Scope, c: Combatant) -> Modifier | None:
    value, _ = _carry_penalty(scope, c)
    return Modifier("combat.modifier.carry_penalty", value) if value else None


def _armour_maluses(scope: Scope, c: Combatant) -> ArmourMaluses:
    """The wearing maluses of the combatant's armour layers (Ag, CC, CT; Robuste cancels its part)."""
    tables = scope.tables
    return maluses(tables.armour, c.armour, wearing_cancels(tables.talent_effects, c.talents))


def _armour_modifier(scope: Scope, c: Combatant, stat: str) -> Modifier | None:
    value = _armour_maluses(scope, c).of(stat)
    return Modifier("combat.modifier.armour_malus", value) if value else None


def engaged_terms(c: Combatant) -> tuple[Modifier, ...]:
    """« Les actions engagées se feront à -10 % » (head 8 criticals, seed l. 2696, 2993, 3262) and
    every other ``all_tests`` modifier: a term on every test the fighter engages — attack, parry,
    dodge, feint, manoeuvre, shield bash — after the combat WS, like the other test modifiers."""
    return tuple(
        Modifier(f"combat.condition.{x.source}", int(x.value))
        for x in c.conditions
        if x.kind == "modifier" and x.stat == "all_tests" and x.value
    )


def _with_carry(check: Any, carry: Modifier | None, *more: Modifier | None) -> Any:
    """A defence check computed on the reduced Ag, itemised: its first term (Ag) split in two (or
    more: the carry penalty, the armour's malus)."""
    terms = tuple(m for m in (carry, *more) if m is not None)
    if not terms or not check.modifiers:
        return check
    first, *rest = check.modifiers
    base = replace(first, value=first.value - sum(m.value for m in terms))
    return replace(check, modifiers=(base, *terms, *rest))


def _unique_id(doc: Doc, name: str) -> str:
    base = slug(name)
    taken = {c.id for c in doc.state.combatants}
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _combatant_from_sheet(
    scope: Scope, docs: Mapping[str, Any], doc: Doc, sheet: CharacterSheet
) -> tuple[Combatant, dict[str, Any]]:
    stats = dict(sheet.characteristics)
    stats.setdefault("BF", stats.get("F", 0) // 10)
    stats.setdefault("BE", stats.get("E", 0) // 10)
    stats.setdefault("A", 1)
    # The sheet's BF, BE and BA already carry the seed's +3 for a playable race (NPCs too): the
    # fight reads them as they are and only says where the bonus comes from.
    bonus = race_bonus(sheet.ruleset, sheet.race)
    applied = {code: bonus for code in ("BF", "BE")} if bonus else {}
    said = next(iter(sheet.equipment.get("off_hand") or ()), None)
    gear = _equip(
        scope, sheet.equipment.get("weapons", []), sheet.equipment.get("armour", []), sheet=True, said=said
    )
    skills = frozenset(fold(s) for s in sheet.skills)
    combatant = Combatant(
        id=_unique_id(doc, sheet.name),
        name=sheet.name,
        characteristics=stats,
        weapons=gear["weapons"],
        off_hand=gear["off_hand"],
        armour=gear["armour"],
        shield_pv=gear["shield_max"],
        talents=_talent_ids(docs, sheet.talents),
        skills=skills,
        npc=sheet.is_npc,
    )
    meta = {
        "owner_id": sheet.owner_id,
        "character_id": sheet.id,
        "kind": "npc" if sheet.is_npc else "pc",
        "shield": gear["shield"],
        "shield_max": gear["shield_max"],
        "playable_bonus": applied,
        "pf_start": int(stats.get("PF", 0)),  # the PF gained in the fight go onto the sheet at its end
    }
    if sheet.ruleset == "renove":  # masteries the fight adds to a test (Esquive +10: Ag + 10)
        meta["masteries"] = {fold(name): int(m) for name, m in sheet.skills.items() if int(m)}
    return combatant, meta


def check_sheet_free(scope: Scope, doc: Doc, sheet: CharacterSheet) -> None:
    """Refuses a sheet the caller does not own (the GM may add any) or already in the fight."""
    if not scope.gm and sheet.owner_id != scope.caller.user_id:
        raise FightRefusal("combat.error.not_yours", name=sheet.name)
    if any(m.get("character_id") == sheet.id for m in doc.meta.values()):
        raise FightRefusal("combat.error.already_in", name=sheet.name)
