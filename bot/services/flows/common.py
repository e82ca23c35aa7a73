"""What the table-play flows share: running a use case in one transaction, the session rows,
dice entered by hand, character lookups, and the live-board instruction for the cogs.

Each flow (``flow_interrogation``, ``flow_chase``, ``flow_infection``, ``flow_tavern``,
``flow_fortune``) is one module of use cases; every use case is one transaction that loads the
session row, runs the pure rules, saves the new state (``version`` guards it) and returns a
:class:`FlowResult` (a :class:`Reply`, plus the board to edit when the flow has one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from bot.context import AppContext
from bot.db.characters import CharacterSheet, find_character, get_active_character
from bot.db.flow_models import GameSession
from bot.db.repositories import ServerConfig, get_server_config
from bot.i18n import language_of
from bot.rules import grammar
from bot.rules.checks.common import CheckResult, DiceError
from bot.rules.grammar import InputError
from bot.rules.renove.skills import SkillRefused, skill_score
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.errors import UserError, input_refusal, refusal_reply, user_error_reply
from bot.services.skill_book import default_skill_book
from bot.ui.reply import Reply

CUSTOM_ID_PREFIX: Final = "melee"
MANUAL_MAX_VALUES: Final = 50


class Refusal(UserError):
    """A flow's use case refused (shown as an ephemeral error, nothing written)."""


@dataclass(frozen=True, slots=True)
class Board:
    """A live message the cog edits after the use case (a chase's board)."""

    reply: Reply
    channel_id: int
    message_id: int | None


@dataclass(frozen=True, slots=True)
class FlowResult:
    reply: Reply
    board: Board | None = None
    session_id: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a use case gets: its session, the server's settings, the caller's GM status."""

    session: AsyncSession
    config: ServerConfig
    caller: Caller

    @property
    def guild_id(self) -> int:
        assert self.caller.guild_id is not None
        return self.caller.guild_id

    @property
    def gm(self) -> bool:
        return self.caller.is_gm(self.config)


Work = Callable[[Scope], Awaitable[FlowResult]]


def t(ctx: AppContext, caller: Caller, key: str, **params: Any) -> str:
    return ctx.catalog.t(caller.locale, key, **params)


def english(caller: Caller) -> bool:
    return language_of(caller.locale) == "en"


async def run(ctx: AppContext, caller: Caller, work: Work) -> FlowResult:
    """One transaction; every refusal becomes an ephemeral error and nothing is written."""
    locale = caller.locale
    if caller.guild_id is None:
        return FlowResult(refusal_reply(ctx, locale, "flows.error.guild_only"))
    guild_id = caller.guild_id
    try:
        async with ctx.sessions.begin() as session:
            config = await get_server_config(session, guild_id)
            return await work(Scope(session, config, caller))
    except Refusal as exc:
        return FlowResult(user_error_reply(ctx, locale, exc))
    except InputError as exc:
        return FlowResult(user_error_reply(ctx, locale, input_refusal(exc)))
    except DiceError:
        return FlowResult(refusal_reply(ctx, locale, "flows.error.bad_roll"))
    except StaleDataError:
        return FlowResult(refusal_reply(ctx, locale, "flows.error.stale"))
    except (IntegrityError, OperationalError):
        return FlowResult(refusal_reply(ctx, locale, "common.error.retry"))


async def run_reply(ctx: AppContext, caller: Caller, work: Work) -> Reply:
    return (await run(ctx, caller, work)).reply


def require_gm(scope: Scope) -> None:
    if not scope.gm:
        raise Refusal("flows.error.gm_only")


async def check_gm(ctx: AppContext, caller: Caller) -> Reply | None:
    """An error reply unless the caller is the GM here (before opening a form)."""

    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        return FlowResult(Reply())

    result = await run(ctx, caller, work)
    return result.reply if result.reply.is_error else None


# -- sessions ------------------------------------------------------------------------------


async def open_session(scope: Scope, kind: str) -> GameSession | None:
    """The open session of ``kind`` in the caller's channel, if any."""
    return (
        await scope.session.scalars(
            select(GameSession)
            .where(
                GameSession.guild_id == scope.guild_id,
                GameSession.channel_id == scope.caller.channel_id,
                GameSession.kind == kind,
                GameSession.closed.is_(False),
            )
            .order_by(GameSession.id.desc())
            .limit(1)
        )
    ).first()


async def require_open(scope: Scope, kind: str) -> GameSession:
    row = await open_session(scope, kind)
    if row is None:
        raise Refusal(f"flows.{kind}.error.none_open")
    return row


SESSION_ID_MAX: Final = 2**63 - 1  # a forged custom id must not overflow the column


async def session_by_id(scope: Scope, kind: str, session_id: int) -> GameSession:
    if not 0 < session_id <= SESSION_ID_MAX:
        raise Refusal("flows.error.session_gone")
    row = await scope.session.get(GameSession, session_id)
    if row is None or row.guild_id != scope.guild_id or row.kind != kind:
        raise Refusal("flows.error.session_gone")
    if row.closed:
        raise Refusal(f"flows.{kind}.error.closed")
    return row


def new_session(scope: Scope, kind: str, title: str, state: dict[str, Any]) -> GameSession:
    row = GameSession(
        guild_id=scope.guild_id,
        channel_id=scope.caller.channel_id or 0,
        kind=kind,
        owner_id=scope.caller.user_id,
        title=title[:100],
        state=state,
    )
    scope.session.add(row)
    return row


def save_state(row: GameSession, state: dict[str, Any]) -> None:
    # A new object, so SQLAlchemy sees the JSON change (and bumps the version).
    row.state = dict(state)


def custom_id(flow: str, action: str, session_id: int, *extra: str | int) -> str:
    parts = [CUSTOM_ID_PREFIX, flow, action, str(session_id), *(str(x) for x in extra)]
    value = ":".join(parts)
    assert len(value) <= 100, value
    return value


# -- dice entered by hand --------------------------------------------------------------------


def parse_rolls(text: str | None, *, option: str) -> list[int]:
    """``"85 22"`` → ``[85, 22]``; ``00`` is 100 (the input grammar's d100 list)."""
    return grammar.parse_rolls(text, option=option, sides=100, limit=MANUAL_MAX_VALUES)


def d100(value: int | None) -> int | None:
    if value is None:
        return None
    if value == 0:
        return 100
    if not 1 <= value <= 100:
        raise Refusal("flows.error.roll_range", value=value)
    return value


# -- characters ------------------------------------------------------------------------------


async def character_of(scope: Scope, name: str | None) -> CharacterSheet | None:
    """The named character (GM: any; player: their own) or the caller's active one."""
    if name and name.strip():
        sheet = await find_character(scope.session, scope.guild_id, name)
        if sheet is None:
            raise Refusal("flows.error.character_not_found", name=name.strip()[:64])
        if sheet.owner_id != scope.caller.user_id and not scope.gm:
            raise Refusal("flows.error.character_not_yours", name=sheet.name)
        return sheet
    return await get_active_character(scope.session, scope.guild_id, scope.caller.user_id)


def skill_value(sheet: CharacterSheet, skill: str) -> int | None:
    wanted = fold(skill)
    for name, value in sheet.skills.items():
        if fold(name) == wanted:
            return int(value)
    return None


def has_talent(sheet: CharacterSheet, talent: str) -> bool:
    """The talent on the sheet by its name, a speciality allowed (« Maîtrise (armes de jet) »)."""
    wanted = fold(talent)
    return any(fold(t_) == wanted or fold(t_).startswith(wanted + " (") for t_ in sheet.talents)


def skill_target(sheet: CharacterSheet, skill: str, characteristic: str, *, basic: bool) -> int | None:
    """What a test of ``skill`` rolls under for this sheet; None when it cannot be tried.

    `renove` sheets: the skill's characteristic + its mastery, half the characteristic for an
    untrained basic skill, nothing for an untrained advanced one (``data/skills.json``, which also
    says which skills seed 000 makes basic). Other systems keep the skill % on the sheet, else half
    the characteristic for a basic skill (WFRP 2e base rule, a reading).
    """
    if sheet.ruleset == "renove":
        try:
            return skill_score(default_skill_book(), sheet.characteristics, sheet.skills, skill).target
        except SkillRefused:
            return None
    value = skill_value(sheet, skill)
    if value is not None:
        return value
    if basic and characteristic in sheet.characteristics:
        return int(sheet.characteristics[characteristic]) // 2
    return None


# -- rendering helpers -----------------------------------------------------------------------


def roll_line(ctx: AppContext, caller: Caller, result: CheckResult) -> str:
    """``45 % · 22 → réussite (2 °R)``."""
    outcome = t(ctx, caller, result.outcome_key)
    degrees = result.degrees or 0
    unit = "°R" if result.success else "°E"
    return f"{result.target} % · **{result.roll_text}** → {outcome} ({degrees} {unit})"
