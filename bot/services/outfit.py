"""What a character wears and carries, in words: PA per zone, armour class, wearing maluses, weapons
with their damage and attributes, shields with their PV, and the refusal of an impossible layering.

Shared by the sheet (``/perso voir``, ``/perso equiper``) and the fights (a sheet whose outfit no
longer combines is refused with the same sentence). The rules live in :mod:`bot.rules.renove.armour`;
this module only reads the tables' documents and the catalogue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Final

from bot.context import AppContext
from bot.i18n import language_of
from bot.rules.combat.tables import ArmourTables, TableError, armour_tables
from bot.rules.renove.armour import CANCEL_KEYS, ZONES, Outfit, ZoneArmour, outfit
from bot.rules.renove.damage import ArmourError
from bot.rules.sheets import fold

Docs = Mapping[str, Mapping[str, Any]]

SHARES: Final[dict[Fraction, str]] = {Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}
MALUS_STATS: Final = ("Ag", "initiative", "CC", "CT", "perception_auditive")


def armour_tables_of(docs: Docs) -> ArmourTables | None:
    """The armour tables of these documents, or None when they are missing or incomplete."""
    armour, quality = docs.get("armour"), docs.get("armour_quality")
    if not armour or not quality or not armour.get("families"):
        return None
    try:
        return armour_tables(armour, quality)
    except TableError:
        return None


def _entry(docs: Docs, tables: Iterable[str], entry_id: str) -> Mapping[str, Any] | None:
    for name in tables:
        for entry in (docs.get(name) or {}).get("entries", ()):
            if isinstance(entry, Mapping) and entry.get(key_of(name)) == entry_id:
                return entry
    return None


def key_of(table: str) -> str:
    return "quality" if table == "armour_quality" else "id"


def _name(entry: Mapping[str, Any] | None, fallback: str, en: bool) -> str:
    if entry is None:
        return fallback
    if en and entry.get("name_en"):
        return str(entry["name_en"])
    return str(entry.get("name") or fallback)


def piece_name(docs: Docs, piece_id: str, locale: str) -> str:
    return _name(_entry(docs, ("armour",), piece_id), piece_id, language_of(locale) == "en")


def wearing_cancels(docs: Docs, talents: Iterable[str]) -> dict[str, int]:
    """Stat → malus points the sheet's talents (names or ids, as typed) cancel: Robuste Ag 5, CC 5."""
    wanted = {fold(t).split(" (")[0] for t in talents}
    out: dict[str, int] = {}
    for entry in (docs.get("talents") or {}).get("entries", ()):
        names = {fold(str(entry.get(k))) for k in ("id", "name", "name_en") if entry.get(k)}
        if not names & wanted:
            continue
        for effect in entry.get("effects", ()):
            stat = CANCEL_KEYS.get(f"cancel_{effect.get('what')}")
            if effect.get("type") == "cancel_malus" and stat:
                out[stat] = out.get(stat, 0) + int(effect.get("value", 0))
    return out


def outfit_of(docs: Docs, pieces: Iterable[str], talents: Iterable[str] = ()) -> Outfit | None:
    """The checked outfit (raises :class:`ArmourError`), None without armour tables."""
    tables = armour_tables_of(docs)
    if tables is None:
        return None
    known = [p for p in pieces if p in tables.pieces]
    return outfit(tables, known, wearing_cancels(docs, talents))


# -- words -----------------------------------------------------------------------------------


def refusal_text(ctx: AppContext, locale: str, docs: Docs, exc: ArmourError) -> str:
    """The sentence for a refused outfit, naming the two pieces and the zone."""
    t = ctx.catalog.t
    names = [piece_name(docs, p, locale) for p in exc.pieces]
    if exc.reason == "combat.armour.not_combinable" and len(names) >= 2 and exc.zone:
        return t(
            locale,
            "combat.armour.not_combinable",
            first=names[0],
            second=" / ".join(names[1:]),
            on_zone=t(locale, f"combat.armour.on_zone.{exc.zone}"),
        )
    return t(locale, "combat.armour.unknown_piece", name=(names or ["?"])[0][:40])


def _share(share: Fraction) -> str:
    return SHARES.get(share, f"{float(share):g}".replace(".", ","))


def zone_text(ctx: AppContext, locale: str, zone: ZoneArmour) -> str:
    """``Bras 1 + 2 (½)``: PA of the layers covering the whole zone, then those covering a share."""
    label = ctx.catalog.t(locale, f"characters.zone.{zone.zone}")
    parts = [str(zone.sure)] if zone.sure or not zone.partial else []
    parts.extend(f"{pa} ({_share(share)})" for pa, share in zone.partial)
    return f"{label} " + " + ".join(parts)


def labelled(ctx: AppContext, locale: str, key: str, value: str) -> str:
    """``**PA** : …`` (French puts a space before the colon, English does not)."""
    return ctx.catalog.t(locale, "characters.sheet.labelled", label=ctx.catalog.t(locale, key), value=value)


def armour_lines(ctx: AppContext, locale: str, worn: Outfit) -> list[str]:
    """PA per zone, the class, the maluses: three short lines."""
    t = ctx.catalog.t
    zones = [worn.zones[z] for z in ZONES]
    lines = [
        labelled(ctx, locale, "characters.armour.pa", " · ".join(zone_text(ctx, locale, z) for z in zones))
    ]
    if any(z.partial for z in zones):
        lines.append(t(locale, "characters.armour.partial"))
    classes: dict[str, list[str]] = {}
    for z in zones:
        if z.covered:
            classes.setdefault(z.armour_class, []).append(t(locale, f"characters.zone.{z.zone}").lower())
    if classes:
        if len(classes) == 1:
            text = t(locale, f"combat.armour_class.{next(iter(classes))}")
        else:
            text = ", ".join(
                f"{t(locale, f'combat.armour_class.{c}')} ({', '.join(where)})"
                for c, where in classes.items()
            )
        lines.append(labelled(ctx, locale, "characters.armour.class", text))
    lines.append(labelled(ctx, locale, "characters.armour.maluses", malus_text(ctx, locale, worn)))
    return lines


def malus_text(ctx: AppContext, locale: str, worn: Outfit) -> str:
    t = ctx.catalog.t
    m = worn.maluses
    values = {"initiative": m.initiative, **{s: m.of(s) for s in MALUS_STATS if s != "initiative"}}
    parts = [
        f"{t(locale, f'characters.armour.stat.{s}')} {values[s]:+d}"
        + (" %" if s == "perception_auditive" else "")
        for s in MALUS_STATS
        if values[s]
    ]
    text = " · ".join(parts) or t(locale, "characters.armour.no_malus")
    if m.cancelled:
        cancelled = ", ".join(
            f"{t(locale, f'characters.armour.stat.{s}')} +{v}" for s, v in m.cancelled.items()
        )
        text += " " + t(locale, "characters.armour.cancelled", points=cancelled)
    return text


def damage_text(entry: Mapping[str, Any] | None, ctx: AppContext, locale: str) -> str:
    damage = (entry or {}).get("damage")
    if not isinstance(damage, Mapping):
        return "—"
    if damage.get("base") == "fixed":
        return str(damage.get("value", 0))
    modifier = int(damage.get("modifier", 0))
    bf = ctx.catalog.t(locale, "characters.weapon.bf")
    return f"{bf}{modifier:+d}" if modifier else bf


def shield_pv(docs: Docs, weapon_id: str) -> int | None:
    for entry in (docs.get("shields") or {}).get("entries", ()):
        if weapon_id in entry.get("weapons", ()) and entry.get("pv") is not None:
            return int(entry["pv"])
    return None


def weapon_line(ctx: AppContext, locale: str, docs: Docs, weapon_id: str) -> str:
    """``Epée — BF · Vicelarde, Défensive`` (a shield adds its PV)."""
    t, en = ctx.catalog.t, language_of(locale) == "en"
    entry = _entry(docs, ("weapons_melee", "weapons_ranged"), weapon_id)
    attributes = [
        _name(_entry(docs, ("weapon_attributes",), str(a)), str(a).replace("_", " "), en)
        for a in (entry or {}).get("attributes", ())
    ]
    parts = [f"{t(locale, 'characters.weapon.damage')} {damage_text(entry, ctx, locale)}"]
    if attributes:
        parts.append(", ".join(attributes))
    pv = shield_pv(docs, weapon_id)
    if pv is not None:
        parts.append(t(locale, "characters.weapon.shield_pv", pv=pv))
    return f"{_name(entry, weapon_id, en)} — " + " · ".join(parts)
