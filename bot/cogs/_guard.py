"""What every interaction goes through before a command runs: sanity of the payload, rate limits,
and an answer for buttons and forms nobody handles any more.

* Discord's client checks option types, bounds and choices, but a modified client or a stale
  command list can send anything: :func:`check_command` compares the raw options with the
  command's parameters and refuses, in the user's language, what the command could not parse
  (instead of a traceback and "This interaction failed").
* :func:`check_command` also takes a token from the user's bucket for the command's category
  (:mod:`bot.services.rate_limit`) and tells them how long to wait when it is empty.
* :func:`answer_if_unhandled` answers a click or a form whose custom id no view, dynamic item or
  modal claims (a forged id) with an ephemeral "expired" message; a form whose state rides in its
  custom id (:func:`register_form`) is handled even when it was shown before a restart.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import re
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType

from bot.cogs._common import locale_of, send_reply
from bot.services.rate_limit import DatabaseBucketStore, RateLimiter, wait_seconds
from bot.ui.reply import error_reply

if TYPE_CHECKING:
    from bot.app import MeleeBot
    from bot.cogs._common import Interaction

log = logging.getLogger(__name__)

DISCORD_INT_MAX = 2**53  # Discord's integers are doubles on the wire
_SNOWFLAKE = re.compile(r"[0-9]{1,20}")
_limiters: weakref.WeakKeyDictionary[discord.Client, RateLimiter] = weakref.WeakKeyDictionary()
_pending: set[asyncio.Task[None]] = set()


def limiter_of(client: discord.Client) -> RateLimiter:
    limiter = _limiters.get(client)
    if limiter is None:
        try:
            ctx = getattr(client, "ctx", None)
        except RuntimeError:  # not set up yet
            ctx = None
        store = None
        if ctx is not None and ctx.settings.rate_limit_store == "database":
            store = DatabaseBucketStore(ctx.sessions)
        limiter = _limiters[client] = RateLimiter.from_env(os.environ, store=store)
    return limiter


def set_limiter(client: discord.Client, limiter: RateLimiter) -> None:
    _limiters[client] = limiter


# -- option payloads -----------------------------------------------------------------------------


def _in_bounds(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _resolved_has(resolved: dict[str, Any], kinds: tuple[str, ...], value: Any) -> bool:
    key = str(value)
    if not _SNOWFLAKE.fullmatch(key):
        return False
    return any(isinstance(resolved.get(kind), dict) and key in resolved[kind] for kind in kinds)


def _value_ok(param: app_commands.Parameter, value: Any, resolved: dict[str, Any]) -> bool:
    kind = param.type
    if kind is AppCommandOptionType.string:
        if not isinstance(value, str) or "\x00" in value:
            return False
        if not _in_bounds(len(value), param.min_value, param.max_value):
            return False
    elif kind is AppCommandOptionType.integer:
        if type(value) is not int or abs(value) > DISCORD_INT_MAX:
            return False
        if not _in_bounds(value, param.min_value, param.max_value):
            return False
    elif kind is AppCommandOptionType.number:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return False
        if not _in_bounds(value, param.min_value, param.max_value):
            return False
    elif kind is AppCommandOptionType.boolean:
        return isinstance(value, bool)
    elif kind is AppCommandOptionType.user:
        return _resolved_has(resolved, ("users",), value)
    elif kind is AppCommandOptionType.mentionable:
        return _resolved_has(resolved, ("users", "roles"), value)
    elif kind is AppCommandOptionType.role:
        return _resolved_has(resolved, ("roles",), value)
    elif kind is AppCommandOptionType.channel:
        return _resolved_has(resolved, ("channels",), value)
    elif kind is AppCommandOptionType.attachment:
        return _resolved_has(resolved, ("attachments",), value)
    if param.choices:
        return any(choice.value == value for choice in param.choices)
    return True


_ParamIndex = tuple[dict[str, app_commands.Parameter], tuple[str, ...]]
_param_index: weakref.WeakKeyDictionary[app_commands.Command[Any, ..., Any], _ParamIndex] = (
    weakref.WeakKeyDictionary()
)


def _params_of(command: app_commands.Command[Any, ..., Any]) -> _ParamIndex:
    """The command's parameters by name and its required ones, built once per command (discord.py
    builds new Parameter wrappers on every ``command.parameters``; this runs on every interaction)."""
    index = _param_index.get(command)
    if index is None:
        parameters = command.parameters
        index = _param_index[command] = (
            {param.display_name: param for param in parameters},
            tuple(param.display_name for param in parameters if param.required),
        )
    return index


def option_problem(
    command: app_commands.Command[Any, ..., Any],
    options: Any,
    resolved: Any,
    *,
    autocomplete: bool = False,
) -> str | None:
    """The name of the first option the command could not take as sent, or None when all is well."""
    if not isinstance(options, list):
        return "?"
    if not isinstance(resolved, dict):
        resolved = {}
    params, required = _params_of(command)
    seen: set[str] = set()
    for option in options:
        if not isinstance(option, dict):
            return "?"
        name = option.get("name")
        param = params.get(name) if isinstance(name, str) else None
        if param is None or name in seen:
            return str(name)[:32]
        seen.add(param.display_name)
        if option.get("type") != param.type.value or "value" not in option:
            return param.display_name
        if autocomplete and option.get("focused"):
            if not isinstance(option["value"], str | int | float):
                return param.display_name
            continue  # what the user is typing: anything goes, the autocomplete filters it
        if not _value_ok(param, option["value"], resolved):
            return param.display_name
    if not autocomplete:
        for name in required:
            if name not in seen:
                return name
    return None


# -- the check every application command goes through ----------------------------------------


async def _refuse(interaction: Interaction, key: str, **params: Any) -> None:
    catalog = interaction.client.ctx.catalog
    try:
        await send_reply(interaction, error_reply(catalog.t(locale_of(interaction), key, **params)))
    except discord.HTTPException:
        log.warning("could not send a refusal (%s) to the user", key)


async def check_command(tree: app_commands.CommandTree[MeleeBot], interaction: Interaction) -> bool:
    """The tree's ``interaction_check``: False (after answering the user) stops the command."""
    data: Any = interaction.data
    if interaction.type not in (
        discord.InteractionType.application_command,
        discord.InteractionType.autocomplete,
    ) or not isinstance(data, dict):
        return True
    if data.get("type", 1) != 1:
        return True  # context menus carry no options
    autocomplete = interaction.type is discord.InteractionType.autocomplete
    try:
        command, options = tree._get_app_command_options(data)  # type: ignore[arg-type]
        problem = option_problem(command, options, data.get("resolved"), autocomplete=autocomplete)
    except (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch):
        if autocomplete:
            await interaction.response.autocomplete([])
        else:
            await _refuse(interaction, "reliability.unknown_command")
        return False
    except (KeyError, TypeError, AttributeError, ValueError):
        command, problem = None, "?"
    if problem is not None:
        log.info("refused a malformed interaction for /%s (option %s)", data.get("name"), problem)
        if autocomplete:
            await interaction.response.autocomplete([])
        else:
            await _refuse(interaction, "reliability.bad_option", option=problem)
        return False
    if autocomplete or command is None:
        return True
    wait = await limiter_of(interaction.client).check(
        interaction.user.id, command.qualified_name, interaction.guild_id
    )
    if wait > 0:
        await _refuse(interaction, "reliability.rate_limited", seconds=wait_seconds(wait))
        return False
    return True


# -- buttons and forms nobody claims -------------------------------------------------------------


def _message_holds(message: discord.Message | None, component_type: Any, custom_id: str) -> bool:
    stack: list[Any] = list(message.components) if message is not None else []
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id and component.type.value == component_type:
            return True
        stack.extend(getattr(component, "children", None) or [])
    return False


def is_unhandled(client: discord.Client, interaction: discord.Interaction[Any]) -> bool:
    """True when no view, dynamic item or modal of this process will answer the interaction."""
    if interaction.type not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
        return False
    data: Any = interaction.data
    custom_id = data.get("custom_id") if isinstance(data, dict) else None
    if not isinstance(custom_id, str):
        return True
    store = client._connection._view_store
    if interaction.type is discord.InteractionType.modal_submit:
        return custom_id not in store._modals
    component_type = data.get("component_type")
    if any(pattern.fullmatch(custom_id) for pattern in store._dynamic_items):
        # discord.py calls a dynamic item only if the message really holds that component.
        return not _message_holds(interaction.message, component_type, custom_id)
    key = (component_type, custom_id)
    message_id = interaction.message.id if interaction.message is not None else None
    views: Any = store._views
    return not (views.get(message_id, {}).get(key) or views.get(None, {}).get(key))


FormHandler = Callable[["Interaction", re.Match[str]], Coroutine[Any, Any, None]]
_forms: dict[re.Pattern[str], FormHandler] = {}


def register_form(pattern: re.Pattern[str], handler: FormHandler) -> None:
    """Forms whose whole state rides in their custom id: a submission no modal of this process
    claims (the form was shown before a restart, or by another shard) is handed to ``handler``."""
    _forms[pattern] = handler


def unregister_form(pattern: re.Pattern[str]) -> None:
    _forms.pop(pattern, None)


def _stateless_form(interaction: discord.Interaction[Any]) -> tuple[FormHandler, re.Match[str]] | None:
    if interaction.type is not discord.InteractionType.modal_submit:
        return None
    data: Any = interaction.data
    custom_id = data.get("custom_id") if isinstance(data, dict) else None
    if not isinstance(custom_id, str):
        return None
    for pattern, handler in _forms.items():
        match = pattern.fullmatch(custom_id)
        if match is not None:
            return handler, match
    return None


def form_values(interaction: discord.Interaction[Any]) -> dict[str, str]:
    """The text inputs of a submitted form by custom id (rows or labels, however they nest)."""
    data: Any = interaction.data
    stack = list(data.get("components") or []) if isinstance(data, dict) else []
    values: dict[str, str] = {}
    while stack:
        component = stack.pop()
        if not isinstance(component, dict):
            continue
        if isinstance(component.get("custom_id"), str) and isinstance(component.get("value"), str):
            values[component["custom_id"]] = component["value"]
        stack.extend(component.get("components") or [])
        if isinstance(component.get("component"), dict):
            stack.append(component["component"])
    return values


def answer_if_unhandled(client: MeleeBot, interaction: discord.Interaction[Any]) -> None:
    """Called as the bot dispatches ``interaction``, right after discord.py routed it to its views."""
    try:
        unhandled = is_unhandled(client, interaction)
    except Exception:  # private structures of discord.py changed: never break the dispatch
        log.warning("could not tell whether an interaction is handled", exc_info=True)
        return
    if unhandled:
        form = _stateless_form(interaction)
        if form is not None:
            handler, match = form
            task = asyncio.create_task(handler(interaction, match), name="melee-form")
            _pending.add(task)
            task.add_done_callback(_pending.discard)
            return
        task = asyncio.create_task(_refuse(interaction, "reliability.expired"), name="melee-expired")
        _pending.add(task)
        task.add_done_callback(_pending.discard)
