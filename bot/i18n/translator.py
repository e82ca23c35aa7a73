"""``app_commands.Translator`` reading command names, descriptions and choices from the catalogue.

Cogs write English base strings; the French localisation is found by a key derived from the
command's qualified name (``/combat open`` → ``cmd.combat.open.name``), or by an explicit
``locale_str(..., key=...)`` for choices.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Loc

from bot.i18n import Catalog


def command_key(qualified_name: str) -> str:
    return "cmd." + qualified_name.replace(" ", ".")


def key_for(
    string: app_commands.locale_str, context: app_commands.TranslationContext[Any, Any]
) -> str | None:
    explicit = string.extras.get("key")
    if isinstance(explicit, str):
        return explicit
    data = context.data
    location = context.location
    if location in (Loc.command_name, Loc.group_name):
        return command_key(data.qualified_name) + ".name"
    if location in (Loc.command_description, Loc.group_description):
        return command_key(data.qualified_name) + ".description"
    if location in (Loc.parameter_name, Loc.parameter_description):
        suffix = "name" if location is Loc.parameter_name else "description"
        return f"{command_key(data.command.qualified_name)}.opt.{data.name}.{suffix}"
    return None


class CatalogTranslator(app_commands.Translator):
    """French localisations from the catalogue; English locales use the English base strings."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContext[Any, Any],
    ) -> str | None:
        if locale is not discord.Locale.french:
            return None
        key = key_for(string, context)
        if key is None:
            return None
        return self.catalog.raw("fr", key)
