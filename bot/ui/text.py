"""User text inside replies: escaped so a name or a label cannot break the layout or ping anyone."""

from __future__ import annotations

import discord.utils


def user_text(text: str) -> str:
    """Escape Discord markdown and mentions in text a user typed (labels, names, notes)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))
