"""A refused use case, and the one way it is shown: an ephemeral error in the caller's language.

Services raise :class:`UserError` (or a subclass when they need to catch their own refusals
apart) with a catalogue key and its parameters; whoever runs the use case turns it into a reply
with :func:`user_error_reply`. A service that refuses before doing anything can return
:func:`refusal_reply` straight away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.context import AppContext
from bot.i18n import Term
from bot.rules.grammar import InputError
from bot.ui.reply import Reply, error_reply


class UserError(Exception):
    """A use case refused: a catalogue key and its parameters, and optionally a hint's key."""

    def __init__(
        self,
        key: str,
        /,
        *,
        hint: str | None = None,
        hint_params: Mapping[str, Any] | None = None,
        **params: Any,
    ) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
        self.hint = hint
        self.hint_params: dict[str, Any] = dict(hint_params or {})


def user_error_reply(
    ctx: AppContext,
    locale: str,
    error: UserError,
    /,
    *,
    hint: str | None = None,
    title: str | None = None,
    details: Sequence[str] = (),
) -> Reply:
    """``error`` as an ephemeral error reply in ``locale``.

    ``hint`` is the hint's key when the error names none; ``title`` a catalogue key; ``details``
    lines (already translated) added under the message.
    """
    t = ctx.catalog.t
    message = "\n".join((t(locale, error.key, **error.params), *details))
    hint_key = error.hint or hint
    return error_reply(
        message,
        hint=t(locale, hint_key, **error.hint_params) if hint_key else None,
        title=t(locale, title) if title else None,
    )


def refusal_reply(
    ctx: AppContext,
    locale: str,
    key: str,
    /,
    *,
    hint: str | None = None,
    hint_params: Mapping[str, Any] | None = None,
    **params: Any,
) -> Reply:
    """A refusal that needs no raising: ``refusal_reply(ctx, locale, "config.error.not_gm")``."""
    return user_error_reply(ctx, locale, UserError(key, hint=hint, hint_params=hint_params, **params))


def input_params(error: InputError) -> dict[str, Any]:
    """The grammar's parameters, the option named as the reader's Discord shows it."""
    params = dict(error.params)
    option = params.get("option")
    if isinstance(option, str):
        params["option"] = Term(f"input.option.{option}")
    return params


def input_refusal(error: InputError) -> UserError:
    """A typed value the input grammar refused, as a refusal naming the option and the value."""
    return UserError(error.key, **input_params(error))
