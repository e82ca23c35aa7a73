"""Reply → ``discord.Embed`` and ``discord.ui.View`` (the Discord renderer)."""

from __future__ import annotations

import re
from dataclasses import replace

import discord

from bot.ui.reply import ButtonStyle, Reply

_STYLES = {
    ButtonStyle.PRIMARY: discord.ButtonStyle.primary,
    ButtonStyle.SECONDARY: discord.ButtonStyle.secondary,
    ButtonStyle.SUCCESS: discord.ButtonStyle.success,
    ButtonStyle.DANGER: discord.ButtonStyle.danger,
}

# Discord's own limits; the renderer trims rather than letting a long result fail the reply.
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
FIELDS_MAX = 25
CONTENT_MAX = 2000


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_MARKDOWN = frozenset("*_~`|>#[]()-")


def escaped(text: str, user_texts: tuple[str, ...]) -> str:
    """``text`` with every user text it quotes escaped (Markdown only: mentions never ping, see
    :func:`allowed_mentions_of`). The one place user text is made inert, whatever the reply."""
    risky = sorted(
        {u for u in user_texts if u and any(c in _MARKDOWN for c in u) and any(c.isalnum() for c in u)},
        key=len,
        reverse=True,
    )
    if not risky:
        return text
    pattern = re.compile("|".join(re.escape(u) for u in risky))
    return pattern.sub(lambda m: discord.utils.escape_markdown(m.group(0)), text)


def render_texts(reply: Reply) -> Reply:
    """The reply with its user texts escaped in the title, description, fields, footer and content."""
    quoted = reply.user_texts
    if not quoted:
        return reply

    def e(text: str | None) -> str | None:
        return None if text is None else escaped(text, quoted)

    return replace(
        reply,
        title=e(reply.title),
        description=e(reply.description),
        fields=tuple(
            replace(f, name=escaped(f.name, quoted), value=escaped(f.value, quoted)) for f in reply.fields
        ),
        footer=e(reply.footer),
        content=e(reply.content),
        user_texts=(),
    )


def to_embed(reply: Reply) -> discord.Embed | None:
    if reply.title is None and reply.description is None and not reply.fields:
        return None
    reply = render_texts(reply)
    embed = discord.Embed(
        title=_cut(reply.title, TITLE_MAX) if reply.title else None,
        description=_cut(reply.description, DESCRIPTION_MAX) if reply.description else None,
        colour=int(reply.colour),
    )
    for item in reply.fields[:FIELDS_MAX]:
        embed.add_field(
            name=_cut(item.name, FIELD_NAME_MAX), value=_cut(item.value, FIELD_VALUE_MAX), inline=item.inline
        )
    if reply.footer:
        embed.set_footer(text=_cut(reply.footer, FOOTER_MAX))
    return embed


def to_view(reply: Reply) -> discord.ui.View | None:
    if not reply.buttons and not reply.selects:
        return None
    view = discord.ui.View(timeout=None)
    rows = reply.buttons[: 5 - min(len(reply.selects), 5)]
    for row_index, row in enumerate(rows):
        for button in row[:5]:
            view.add_item(
                discord.ui.Button(
                    label=button.label[:80],
                    custom_id=button.custom_id[:100],
                    style=_STYLES[button.style],
                    emoji=button.emoji,
                    disabled=button.disabled,
                    row=row_index,
                )
            )
    for index, select in enumerate(reply.selects[: 5 - len(rows)]):
        view.add_item(
            discord.ui.Select(
                custom_id=select.custom_id[:100],
                placeholder=select.placeholder[:150] if select.placeholder else None,
                min_values=select.min_values,
                max_values=min(select.max_values, len(select.options[:25])),
                disabled=select.disabled,
                options=[
                    discord.SelectOption(
                        label=option.label[:100],
                        value=option.value[:100],
                        description=option.description[:100] if option.description else None,
                        emoji=option.emoji,
                        default=option.default,
                    )
                    for option in select.options[:25]
                ],
                row=len(rows) + index,
            )
        )
    # Render only: clicks go to the cogs' persistent DynamicItems (they survive restarts). A live
    # view would stay in discord.py's view store for as long as the process runs (timeout None),
    # one per message sent with buttons, answering nothing; a stopped one is not stored.
    view.stop()
    return view


def allowed_mentions_of(reply: Reply) -> discord.AllowedMentions:
    """Exactly the users the reply means to notify; never @everyone or a role."""
    if not reply.mentions:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=u) for u in reply.mentions]
    )


def content_of(reply: Reply) -> str | None:
    return _cut(escaped(reply.content, reply.user_texts), CONTENT_MAX) if reply.content else None
