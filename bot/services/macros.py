"""Dice macros (``/macro creer|lister|supprimer``) and the names a ``/lancer`` expression may use.

A macro is a named expression, the user's own or the server's (saved by a GM); ``/lancer
expression:frappe`` rolls it, and ``frappe+2`` uses it inside a longer roll. The rules (names,
loops, limits) are in :mod:`bot.rules.sheet_dice`; this module stores them and reads, for a roll,
the macros and the active character's sheet — only when the expression names something.

Limits: :data:`USER_MACROS_MAX` per user and server, :data:`SERVER_MACROS_MAX` per server; a name of
1 to 32 letters (``_`` between words), an expression within the dice engine's limits.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

from bot.context import AppContext
from bot.db.macro_models import SERVER_OWNER, Macro
from bot.db.repositories import get_server_config
from bot.rules.dice.errors import DiceError
from bot.rules.sheet_dice import check_macro, check_macro_name, fold
from bot.services.caller import Caller
from bot.services.errors import UserError, refusal_reply, user_error_reply
from bot.services.rolls import dice_error_reply
from bot.services.sheet_names import macro_rows as _rows
from bot.ui.reply import Colour, Field, Reply
from bot.ui.text import user_text

USER_MACROS_MAX: Final = 25
SERVER_MACROS_MAX: Final = 100
CHOICES_MAX: Final = 25
CHOICE_MAX: Final = 100  # characters of an autocomplete choice (Discord)


class MacroRefusal(UserError):
    """A macro use case refused (nothing written)."""


# --- /macro creer, lister, supprimer -----------------------------------------------------------------


async def create_macro(
    ctx: AppContext, caller: Caller, *, name: str, expression: str, server: bool = False
) -> Reply:
    locale, t = caller.locale, ctx.catalog.t
    if caller.guild_id is None:
        return refusal_reply(ctx, locale, "macros.error.guild_only")
    guild_id = caller.guild_id
    try:
        shown = check_macro_name(name)
    except DiceError as exc:
        return user_error_reply(
            ctx, locale, UserError(exc.key, **dict[str, Any](exc.params)), hint="macros.hint.name"
        )
    owner = SERVER_OWNER if server else caller.user_id
    key = fold(shown)
    try:
        async with ctx.sessions.begin() as session:
            if server:
                config = await get_server_config(session, guild_id)
                if not caller.is_gm(config):
                    raise MacroRefusal("macros.error.server_gm_only")
            rows = await _rows(session, guild_id, (SERVER_OWNER, caller.user_id))
            others = {
                r.name_key: r.expression for r in rows if r.owner_id == SERVER_OWNER and r.name_key != key
            }
            others.update(
                {r.name_key: r.expression for r in rows if r.owner_id == caller.user_id and r.name_key != key}
            )
            try:
                saved = check_macro(shown, expression, others)
            except DiceError as exc:
                return dice_error_reply(ctx, locale, exc, expression.strip())
            row = next((r for r in rows if r.owner_id == owner and r.name_key == key), None)
            if row is None:
                count = await session.scalar(
                    select(func.count())
                    .select_from(Macro)
                    .where(Macro.guild_id == guild_id, Macro.owner_id == owner)
                )
                limit = SERVER_MACROS_MAX if server else USER_MACROS_MAX
                if (count or 0) >= limit:
                    raise MacroRefusal(
                        "macros.error.too_many_server" if server else "macros.error.too_many", limit=limit
                    )
                session.add(
                    Macro(
                        guild_id=guild_id,
                        owner_id=owner,
                        name=shown,
                        name_key=key,
                        expression=saved,
                        created_by=caller.user_id,
                    )
                )
                created = True
            else:
                row.name, row.expression, row.created_by = shown, saved, caller.user_id
                created = False
            shadowed = server and any(r.owner_id == caller.user_id and r.name_key == key for r in rows)
    except MacroRefusal as exc:
        return user_error_reply(ctx, locale, exc)
    except IntegrityError:
        return refusal_reply(ctx, locale, "macros.error.conflict", name=shown)
    except OperationalError:
        return refusal_reply(ctx, locale, "common.error.retry")
    scope = "server" if server else "user"
    verb = "created" if created else "updated"
    lines = [t(locale, f"macros.{verb}.{scope}", name=user_text(shown), expression=user_text(saved))]
    lines.append(t(locale, "macros.how_to_roll", name=user_text(shown)))
    if shadowed:
        lines.append(t(locale, "macros.shadowed_by_yours", name=user_text(shown)))
    return Reply(
        title=t(locale, "macros.title"),
        description="\n".join(lines),
        colour=Colour.SUCCESS,
        ephemeral=True,
        kind="macro",
        result={"name": shown, "expression": saved, "server": server, "created": created},
    )


async def list_macros(ctx: AppContext, caller: Caller) -> Reply:
    locale, t = caller.locale, ctx.catalog.t
    if caller.guild_id is None:
        return refusal_reply(ctx, locale, "macros.error.guild_only")
    async with ctx.sessions() as session:
        rows = await _rows(session, caller.guild_id, (SERVER_OWNER, caller.user_id))
    own = [r for r in rows if r.owner_id != SERVER_OWNER]
    server = [r for r in rows if r.owner_id == SERVER_OWNER]
    own_keys = {r.name_key for r in own}

    def line(row: Macro, shadowed: bool) -> str:
        text = f"**{user_text(row.name)}** — `{user_text(row.expression)}`"
        return text + (" " + t(locale, "macros.list.shadowed") if shadowed else "")

    fields = (
        Field(
            t(locale, "macros.list.yours", count=len(own), limit=USER_MACROS_MAX),
            "\n".join(line(r, False) for r in own) or t(locale, "macros.list.none"),
        ),
        Field(
            t(locale, "macros.list.server", count=len(server), limit=SERVER_MACROS_MAX),
            "\n".join(line(r, r.name_key in own_keys) for r in server) or t(locale, "macros.list.none"),
        ),
    )
    return Reply(
        title=t(locale, "macros.title"),
        description=t(locale, "macros.list.intro") if rows else t(locale, "macros.list.empty"),
        fields=fields,
        colour=Colour.NEUTRAL,
        ephemeral=True,
        kind="macro_list",
        result={
            "user": [{"name": r.name, "expression": r.expression} for r in own],
            "server": [{"name": r.name, "expression": r.expression} for r in server],
        },
    )


async def delete_macro(ctx: AppContext, caller: Caller, *, name: str, server: bool = False) -> Reply:
    locale, t = caller.locale, ctx.catalog.t
    if caller.guild_id is None:
        return refusal_reply(ctx, locale, "macros.error.guild_only")
    guild_id = caller.guild_id
    key = fold(name.strip())
    owner = SERVER_OWNER if server else caller.user_id
    try:
        async with ctx.sessions.begin() as session:
            if server:
                config = await get_server_config(session, guild_id)
                if not caller.is_gm(config):
                    raise MacroRefusal("macros.error.server_gm_only")
            row = await session.scalar(
                select(Macro).where(
                    Macro.guild_id == guild_id, Macro.owner_id == owner, Macro.name_key == key
                )
            )
            if row is None:
                other = await session.scalar(
                    select(Macro.id).where(
                        Macro.guild_id == guild_id,
                        Macro.owner_id == (caller.user_id if server else SERVER_OWNER),
                        Macro.name_key == key,
                    )
                )
                if other is not None:
                    raise MacroRefusal(
                        "macros.error.not_found_is_yours" if server else "macros.error.not_found_is_server",
                        name=name.strip()[:40],
                    )
                raise MacroRefusal("macros.error.not_found", name=name.strip()[:40])
            shown, expression = row.name, row.expression
            await session.delete(row)
    except MacroRefusal as exc:
        return user_error_reply(ctx, locale, exc)
    except OperationalError:
        return refusal_reply(ctx, locale, "common.error.retry")
    scope = "server" if server else "user"
    return Reply(
        title=t(locale, "macros.title"),
        description=t(
            locale, f"macros.deleted.{scope}", name=user_text(shown), expression=user_text(expression)
        ),
        colour=Colour.NEUTRAL,
        ephemeral=True,
        kind="macro",
        result={"name": shown, "deleted": True, "server": server},
    )


async def macro_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """Autocomplete of ``/lancer expression``: what is typed first, then the macros matching it."""
    typed = current.strip()
    # What is typed comes first, so Enter rolls it; past 100 characters (a choice's limit) it is not
    # offered at all rather than offered cut.
    out: list[tuple[str, str]] = [(typed, typed)] if 0 < len(typed) <= CHOICE_MAX else []
    if caller.guild_id is None:
        return out
    async with ctx.sessions() as session:
        rows = await _rows(session, caller.guild_id, (SERVER_OWNER, caller.user_id))
    own = {r.name_key for r in rows if r.owner_id != SERVER_OWNER}
    wanted = fold(typed)
    t = ctx.catalog.t
    for row in rows:
        if row.owner_id == SERVER_OWNER and row.name_key in own:
            continue  # the user's own shadows it
        if wanted and wanted not in row.name_key:
            continue
        if row.name == typed:
            continue
        mark = t(
            caller.locale, "macros.choice.server" if row.owner_id == SERVER_OWNER else "macros.choice.yours"
        )
        label = f"{row.name} — {row.expression} ({mark})"
        out.append((label[:100], row.name))
        if len(out) >= CHOICES_MAX:
            break
    return out
