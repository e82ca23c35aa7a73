"""``/manoeuvre monture``: an `ogl` fighter mounts or dismounts (seed 004); the modifiers it brings
are :mod:`bot.services.fights.systems.ogl_ledger`'s.
"""

from __future__ import annotations

from bot.context import AppContext
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome, Scope, new_event, run
from bot.services.fights.kit import actor
from bot.services.fights.systems import ogl_ledger


async def set_mount(
    ctx: AppContext, caller: Caller, *, mounted_now: bool, who: str | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope)
        c = actor(scope, doc, who)
        riders = ogl_ledger.manoeuvre_data(doc).setdefault("mounted", {})
        if mounted_now:
            riders[c.id] = True
        else:
            riders.pop(c.id, None)
        lines = [scope.t("manoeuvre.mount.on" if mounted_now else "manoeuvre.mount.off", name=c.name)]
        two = [
            a["name"]
            for a in doc.meta.get(c.id, {}).get("arms") or []
            if "two_handed" in (a.get("flags") or [])
        ]
        if mounted_now and two:
            lines.append(scope.t("manoeuvre.mount.no_two_handed", weapons=", ".join(two)))
        result = {"combatant": c.id, "mounted": mounted_now}
        new_event(scope, doc, "mount", c.id, result)
        doc.save()
        return ogl_ledger.reply(
            scope, doc, scope.t("manoeuvre.mount.title", name=c.name), lines, "manoeuvre.mount", result
        )

    return await run(ctx, caller, work)
