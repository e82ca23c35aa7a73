"""Words for the fight replies: modifier labels, conditions, zones, check lines (fr / en).

The combat core labels every term with a catalogue key (``combat.modifier.posture.temeraire``,
``combat.modifier.situation.cc_dans_le_dos`` …). Fixed keys live in the catalogue; keys that name a
data entry (a situation, a weapon attribute, a talent …) are rendered as "family: entry name", the
name read from the table in force, so a house-rule table's names show up too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bot.context import AppContext
from bot.i18n import Term, language_of
from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.effects import Condition
from bot.rules.sheets import shown_code

# family of a dynamic label → (table, is the id the whole rest of the key)
_FAMILIES: dict[str, str] = {
    "situation": "combat_modifiers",
    "attribute": "weapon_attributes",
    "weapon": "weapons",
    "special": "special_actions",
    "talent": "talents",
    "range": "range_bands",
    "parry_be": "shields",
    "posture": "postures",
    "aim": "",
    "stat": "",
    "halve": "",
}


class Words:
    """Translation for one caller's locale, with the data names of the tables in force."""

    def __init__(self, ctx: AppContext, locale: str, docs: Mapping[str, Mapping[str, Any]]) -> None:
        self.ctx = ctx
        self.locale = locale
        self.en = language_of(locale) == "en"
        self.docs = docs

    def t(self, key: str, /, **params: Any) -> str:
        return self.ctx.catalog.t(self.locale, key, **params)

    def entry_name(self, table: str, entry_id: str) -> str:
        names = ("weapons_melee", "weapons_ranged") if table == "weapons" else (table,)
        for name in names:
            doc = self.docs.get(name)
            if not doc:
                continue
            for entry in doc.get("entries", ()):
                if isinstance(entry, Mapping) and entry.get("id") == entry_id:
                    if self.en and entry.get("name_en"):
                        return str(entry["name_en"])
                    return str(entry.get("name") or entry.get("label") or entry_id)
        return entry_id

    def weapon(self, weapon_id: str) -> str:
        return self.entry_name("weapons", weapon_id)

    def zone(self, zone: str | None) -> str:
        return self.t(f"combat.zone.{zone}") if zone else "—"

    def posture(self, posture: str, option: str | None = None) -> str:
        key = f"combat.posture.{posture}"
        # an unknown value (a refusal quotes what was typed) is shown as typed, never as a key
        text = self.t(key) if self.ctx.catalog.has(key) else f"« {posture} »"
        if option:
            text += " (" + self.t(f"combat.posture_option.{option}") + ")"
        return text

    def label(self, key: str) -> str:
        """A modifier's label: the catalogue's text, else "family: data name"."""
        if self.ctx.catalog.has(key):
            return self.t(key)
        if key.startswith("combat.condition."):
            return self.t(
                "combat.modifier.family.condition", name=self.source(key[len("combat.condition.") :])
            )
        if not key.startswith("combat.modifier."):
            return shown_code(key, self.en)  # a characteristic: « WS 45 » in English
        rest = key[len("combat.modifier.") :]
        family, _, tail = rest.partition(".")
        if family not in _FAMILIES:
            return rest
        entry, _, sub = tail.partition(".")
        table = _FAMILIES[family]
        if family == "posture":
            name = self.posture(entry, sub or None)
        elif family == "aim":
            name = self.t(f"combat.aim.{entry}")
        elif table:
            name = self.entry_name(table, entry)
        else:
            name = shown_code(entry, self.en) if family == "stat" else entry  # « WS » in English
        if sub and family == "attribute":
            name += (
                " ("
                + (self.t(f"combat.armour_class.{sub}") if sub != "shield" else self.t("combat.word.shield"))
                + ")"
            )
        elif sub and family in ("special", "aim") and sub == "defence":
            name += " (" + self.t("combat.word.defence") + ")"
        return self.t(f"combat.modifier.family.{family}", name=name)

    def source(self, source: str) -> str:
        """``criticals.tranchantes.jambes.5`` → "critique tranchantes, jambes, 5"; ``gm`` → "MJ"."""
        parts = source.split(".")
        if len(parts) == 4 and parts[0] == "criticals":
            return self.t(
                "combat.source.critical",
                kind=self.t(f"combat.kind.{parts[1]}"),
                zone=self.zone(parts[2]),
                value=parts[3],
            )
        if source == "gm":
            return self.t("combat.source.gm")
        return source

    def terms(self, items: Iterable[Modifier], total: int | None = None, unit: str = "") -> str:
        parts = []
        for index, m in enumerate(items):
            value = f"{m.value}" if index == 0 else f"{m.value:+d}"
            parts.append(f"{self.label(m.label)} {value}")
        text = " · ".join(parts)
        if total is not None:
            text += f" = **{total}{unit}**"
        return text

    def check(self, result: CheckResult) -> str:
        """``34 → Réussite (2 °R)``."""
        outcome = self.t(result.outcome_key)
        unit = "°R" if result.success else "°E"
        return f"**{result.roll_text}** → {outcome} ({result.degrees or 0} {unit})"

    def check_block(self, result: CheckResult) -> str:
        return (
            self.terms(result.modifiers, result.target, " %")
            + "\n"
            + self.t("combat.word.roll")
            + " "
            + self.check(result)
        )

    def refusal(self, reason: str, params: Mapping[str, Any] | None = None) -> str:
        values = {k: self._param(k, v) for k, v in (params or {}).items()}
        return self.t(reason, **values)

    def _param(self, key: str, value: Any) -> str:
        if key == "action":
            return self.t(f"combat.action.{value}")
        if key == "posture":
            return self.posture(str(value))
        if key == "zone":
            return self.zone(str(value))
        if key == "special":
            return self.entry_name("special_actions", str(value))
        if key == "weapon":
            return self.weapon(str(value))
        if key == "talent":
            return self.entry_name("talents", str(value))
        if key == "weapons":  # a combined weapon's profiles
            return f" {self.t('combat.word.or')} ".join(self.weapon(w) for w in str(value).split(","))
        if key == "id":
            return self.entry_name("combat_modifiers", str(value))
        if isinstance(value, Term):
            return self.t(value.key)
        return str(value)

    def condition(self, c: Condition, who: str | None = None) -> str:
        """One condition as the tracker shows it: what, how much, how long; ``who`` has it (the words
        agree with its gender: « inconsciente »)."""
        params = dict(c.params)
        stat = c.stat or ""
        if c.kind == "modifier":
            stat_name = self.t("combat.word.all_tests") if stat == "all_tests" else shown_code(stat, self.en)
            text = f"{stat_name} {c.value:+d}" if isinstance(c.value, int) else stat_name
        elif c.kind == "halve":
            text = self.t("combat.condition_kind.halve", stat=shown_code(stat, self.en))
        elif c.kind == "disabled":
            part = str(params.get("part", "?"))
            label = self.t(f"combat.part.{part}") if self.ctx.catalog.has(f"combat.part.{part}") else part
            text = self.t("combat.condition_kind.disabled", part=label)
        elif c.kind == "bleeding" and c.test is not None:
            text = self.t(
                "combat.condition_kind.bleeding",
                stat=c.test.characteristic,
                modifier=f"{c.test.modifier:+d}",
                next=c.test.next_in,
            )
        elif c.kind == "delayed_test" and c.test is not None:
            text = self.t(
                "combat.condition_kind.delayed_test",
                stat=c.test.characteristic,
                modifier=f"{c.test.modifier:+d}",
            )
        else:
            text = self.t(f"combat.condition_kind.{c.kind}", who=who)
        rounds = c.rounds_left
        if rounds is not None:
            text += " · " + self.t("combat.word.rounds_left", n=rounds)
        elif c.remaining is not None and c.unit:
            text += " · " + self.t(f"combat.unit.{c.unit}", n=c.remaining)
        elif c.until and c.kind not in ("bleeding", "dead"):
            text += " · " + self.t(f"combat.until.{c.until}")
        return text

    def narration(self, narration: Mapping[str, str]) -> str:
        if self.en and narration.get("en"):
            return narration["en"]
        return narration.get("fr") or next(iter(narration.values()), "")
