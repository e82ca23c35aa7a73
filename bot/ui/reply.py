"""The reply model: plain data every command produces, rendered for Discord or the console.

Services return a :class:`Reply` (already translated into the user's language); the cog layer
turns it into an embed and a view, the console into text or a JSON line. ``result`` carries
the structured outcome (every die, every modifier) for the console's ``--json`` and the logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any


class Colour(int, Enum):
    NEUTRAL = 0x5865F2
    SUCCESS = 0x2ECC71
    FAILURE = 0xE74C3C
    CRITICAL_SUCCESS = 0xF1C40F
    CRITICAL_FAILURE = 0x8E44AD
    ERROR = 0xED4245
    SECRET = 0x2C2F33
    INFO = 0x3498DB


class ButtonStyle(StrEnum):
    PRIMARY = "primary"
    SECONDARY = "secondary"
    SUCCESS = "success"
    DANGER = "danger"


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    custom_id: str
    style: ButtonStyle = ButtonStyle.SECONDARY
    emoji: str | None = None
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class SelectOption:
    label: str
    value: str
    description: str | None = None
    emoji: str | None = None
    default: bool = False


@dataclass(frozen=True, slots=True)
class Select:
    """A string select menu (a row of its own, after the button rows): a phone user picks from it."""

    custom_id: str
    options: tuple[SelectOption, ...]
    placeholder: str | None = None
    min_values: int = 1
    max_values: int = 1
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file sent with the reply (the ``/stats`` histogram); its ``description`` is the alt text."""

    filename: str
    data: bytes
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Delivery:
    """A further message the same interaction sends: to a user's DMs or to a channel."""

    reply: Reply
    user_id: int | None = None
    channel_id: int | None = None
    # The table's notice, should this delivery fail (already translated): it must not say the
    # result reached the GM. None: a generic « could not be delivered » line.
    if_undelivered: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    title: str | None = None
    description: str | None = None
    fields: tuple[Field, ...] = ()
    footer: str | None = None
    colour: int = Colour.NEUTRAL
    content: str | None = None
    ephemeral: bool = False
    buttons: tuple[tuple[Button, ...], ...] = ()
    selects: tuple[Select, ...] = ()
    # Users that the ``content`` may really notify (Discord pings only mentions in the content, and
    # only those ``allowed_mentions`` lets through); everybody else's mention stays silent.
    mentions: tuple[int, ...] = ()
    result: dict[str, Any] | None = None
    kind: str = "message"
    also: tuple[Delivery, ...] = field(default=())
    # What users typed that the texts above quote (fighters', characters' and sides' names, labels):
    # the renderer escapes their Markdown where they appear, so « **X** » or « [lien](…) » stays text.
    user_texts: tuple[str, ...] = ()
    files: tuple[Attachment, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.kind == "error"


def error_reply(message: str, *, hint: str | None = None, title: str | None = None) -> Reply:
    """An ephemeral error in the user's language (already translated)."""
    fields = (Field(name="\u200b", value=hint),) if hint else ()
    return Reply(
        title=title,
        description=message,
        fields=fields,
        colour=Colour.ERROR,
        ephemeral=True,
        kind="error",
        result={"error": True, "message": message},
    )
