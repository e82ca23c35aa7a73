"""Whether a test is secret, why, and the table's notice of a secret test (``/test``, ``/oppose``,
``/groupe``).

Readings (seed 000 l. 1950-1960, « Tests cachés »; ``data/secret_tests.json``):

* A skill listed without an asterisk (Interrogatoires, Évaluation, Fouille, Orientation, Pistage) is
  always secret: a player's ``secret:non`` is refused, privately; the GM may roll it in public.
* A starred skill (Perception, Filature…) is secret « dans certains cas ou selon le MJ »: ``/test``
  makes it secret unless told ``secret:non``; in ``/oppose`` and ``/groupe``, where Perception
  answers most skills, it is secret only when asked (``secret:oui``: the seed's Filature against
  Perception).
* Why it is secret, said in the table's notice: the seed's list (« selon les règles »), the server's
  own list (house rules, ``/regles importer``: « à la demande du MJ »), or the roller's ``secret:oui``
  (« à la demande du joueur »).
* The GM's own secret test is answered privately; a player's goes to the GM (the GM channel when one
  is set, else the GM's DMs: :func:`bot.services.config.secret_destination`), and the table sees the
  notice. Delivering comes first (:func:`bot.cogs._common.send_reply`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from bot.context import AppContext
from bot.rules.renove import checks as renove
from bot.services.caller import Caller
from bot.services.config import secret_delivery
from bot.services.skill_tests.common import TestInputError, fold
from bot.services.skill_tests.tables import Documents, Setting, secrecy_of, secret_entries
from bot.ui import checks_render as render
from bot.ui.reply import Colour, Reply


class Why(StrEnum):
    RULES = "rules"  # the seed's list
    GM = "gm"  # the server's own list (house rules)
    PLAYER = "player"  # the roller asked (secret:oui)


@dataclass(frozen=True, slots=True)
class Decision:
    secret: bool
    why: Why | None = None
    skill: str | None = None  # the listed skill that makes it secret, as typed


PUBLIC = Decision(False)


def shown_skill(ctx: AppContext, skill: str, locale: str, documents: Documents | None = None) -> str:
    """A listed skill in the reader's language (« Pistage » → "Follow Trail"), else as typed."""
    wanted = fold(skill)
    english = locale.lower().startswith("en")
    for entry in secret_entries(ctx, documents):
        if wanted in (fold(str(entry.get("skill") or "")), fold(str(entry.get("skill_en") or ""))):
            return str(entry.get("skill_en") if english and entry.get("skill_en") else entry["skill"])
    return skill


def decide(
    ctx: AppContext,
    caller: Caller,
    setting: Setting,
    skills: Sequence[str | None],
    asked: bool | None,
    documents: Documents | None,
    *,
    starred: bool,
) -> Decision:
    """Secret or not, and why. ``starred``: whether a starred skill makes the test secret by itself
    (``/test``) or only when asked (``/oppose``, ``/groupe``). Raises the refusal of a player's
    ``secret:non`` on an always-secret skill."""
    listed = [(s, secrecy_of(ctx, s, documents)) for s in skills if s]
    always = [s for s, how in listed if how is renove.Secrecy.ALWAYS]
    if asked is False:
        if always and not setting.is_gm:
            raise TestInputError(
                "tests.error.always_secret", skill=shown_skill(ctx, always[0], caller.locale, documents)
            )
        return PUBLIC
    by_list = always or ([s for s, how in listed if how is renove.Secrecy.SOMETIMES] if starred else [])
    if by_list:
        skill = by_list[0]
        in_seed = documents is None or secrecy_of(ctx, skill, None) is not renove.Secrecy.NEVER
        return Decision(True, Why.RULES if in_seed else Why.GM, skill)
    if asked:
        return Decision(True, Why.GM if setting.is_gm else Why.PLAYER)
    return PUBLIC


def why_line(
    ctx: AppContext, locale: str, decision: Decision, subject: str | None, documents: Documents | None
) -> str:
    """« Perception : test secret selon les règles. » / « Test secret à la demande du joueur. »"""
    why = decision.why or Why.PLAYER
    if decision.skill:
        subject = shown_skill(ctx, decision.skill, locale, documents)
    if subject:
        return ctx.catalog.t(locale, f"tests.secret.why.{why.value}", skill=subject)
    return ctx.catalog.t(locale, f"tests.secret.why_plain.{why.value}")


def secret_reply(
    ctx: AppContext,
    caller: Caller,
    setting: Setting,
    owner_id: int | None,
    full: Reply,
    *,
    decision: Decision,
    subject: str | None,
    documents: Documents | None,
    rolled_key: str,
    kind: str,
    result: dict[str, Any],
) -> Reply:
    """The full result for the GM alone; for a player, the table's notice (what was tested and why
    it is secret, never the result) with the full result delivered to the GM."""
    t, locale = ctx.catalog.t, caller.locale
    footer = f"{full.footer} · {t(locale, 'tests.secret.footer')}" if full.footer else None
    for_gm = replace(full, title="🔒 " + (full.title or ""), footer=footer, buttons=(), also=())
    if setting.is_gm or caller.guild_id is None:
        return replace(for_gm, ephemeral=True)
    user = f"<@{caller.user_id}>"
    what = subject or t(locale, "tests.secret.a_test")
    why = why_line(ctx, locale, decision, subject, documents)
    notice = Reply(
        description="🔒 " + t(locale, rolled_key, user=user, skill=what) + "\n" + why,
        footer=render.ruleset_footer(ctx.catalog, locale, setting.ruleset.value),
        colour=Colour.SECRET,
        kind=kind,
        result={"secret": True, "why": decision.why.value if decision.why else None, **result},
    )
    undelivered = "🔒 " + t(locale, "tests.secret.not_delivered", user=user, skill=what) + "\n" + why
    if user not in (for_gm.description or ""):  # who asked (a /test's result already names him)
        asked_by = t(locale, "tests.secret.asked_by", user=user)
        for_gm = replace(for_gm, description=f"{for_gm.description or ''}\n{asked_by}".strip())
    return secret_delivery(setting.config, owner_id, for_gm, notice, undelivered=undelivered)
