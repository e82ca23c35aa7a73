"""Against mages (seed 000, « Contre les mages », l. 1300-1303; data/magic.json): what a critical
does to a fighter with Mag ≥ 1. Each critical taken adds a chaos die to his next spells; a critical
to his voice stops his spells until the end of the fight; with the fight's option
``malus_fm_mages`` the critical's CC maluses weigh on his FM as well (a reading)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from bot.rules.combat.effects import EffectApplication
from bot.rules.renove.magic import BASE_CHAOS_DICE, VoiceCritical, hits_voice, mirror_on_fm
from bot.services.fights._core import Doc, Scope

TABLE: Final = "magic"
OPTION: Final = "malus_fm_mages"


def _voice(scope: Scope) -> tuple[VoiceCritical, ...]:
    table = scope.ctx.tables.get(TABLE)
    rows = (table.document.get("voice") if table is not None else None) or ()
    return tuple(VoiceCritical(str(r["kind"]), str(r["zone"]), int(r["value"])) for r in rows)


def is_mage(characteristics: Any) -> bool:
    return int(characteristics.get("Mag", 0) or 0) >= 1


def after_critical(
    scope: Scope, doc: Doc, victim_id: str, kind: str, zone: str, value: int, application: EffectApplication
) -> list[str]:
    """Count the critical against a mage; lines for the reply."""
    victim = doc.state.get(victim_id)
    if not is_mage(victim.characteristics) or victim.has("dead"):
        return []
    everyone = dict(doc.data.get("magic") or {})
    mine = dict(everyone.get(victim_id) or {})
    mine["criticals"] = int(mine.get("criticals", 0)) + 1
    chaos = BASE_CHAOS_DICE + mine["criticals"]
    lines = ["• " + scope.t("magic.critical.chaos", name=victim.name, n=chaos)]
    if not mine.get("voice") and hits_voice(_voice(scope), kind, zone, value):
        mine["voice"] = True
        lines.append("• " + scope.t("magic.critical.voice", name=victim.name))
    if (doc.data.get("options") or {}).get(OPTION):
        mirrored = mirror_on_fm(application.conditions)
        if mirrored:
            doc.state = doc.state.put(replace(victim, conditions=(*victim.conditions, *mirrored)))
            total = sum(c.value or 0 for c in mirrored)
            shown = str(total).replace("-", "−")
            lines.append("• " + scope.t("magic.critical.fm", name=victim.name, value=shown))
    everyone[victim_id] = mine
    doc.data["magic"] = everyone
    return lines
