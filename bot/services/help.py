"""``/help``: every command with a one-line description and an example, in the user's language."""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import Catalog, language_of
from bot.ui.reply import Colour, Field, Reply, error_reply

FIELDS_PER_PAGE = 25


@dataclass(frozen=True, slots=True)
class CommandInfo:
    qualified_name: str  # English base, e.g. "combat open"
    description: str  # English base description


def _key(qualified_name: str) -> str:
    return "cmd." + qualified_name.replace(" ", ".")


def localized_name(catalog: Catalog, locale: str, qualified_name: str) -> str:
    if language_of(locale) == "en":
        return qualified_name
    parts = qualified_name.split(" ")
    out = []
    for i in range(len(parts)):
        key = _key(" ".join(parts[: i + 1])) + ".name"
        out.append(catalog.raw("fr", key) or parts[i])
    return " ".join(out)


def localized_description(catalog: Catalog, locale: str, info: CommandInfo) -> str:
    if language_of(locale) == "en":
        return info.description
    return catalog.raw("fr", _key(info.qualified_name) + ".description") or info.description


def example(catalog: Catalog, locale: str, info: CommandInfo) -> str | None:
    text = catalog.raw(language_of(locale), _key(info.qualified_name) + ".example")
    return text or catalog.raw("fr", _key(info.qualified_name) + ".example")


def help_reply(catalog: Catalog, locale: str, commands: list[CommandInfo], only: str | None = None) -> Reply:
    t = catalog.t
    chosen = sorted(commands, key=lambda c: localized_name(catalog, locale, c.qualified_name))
    if only:
        wanted = only.strip().lstrip("/").lower()
        chosen = [
            c
            for c in chosen
            if wanted in (c.qualified_name.lower(), localized_name(catalog, locale, c.qualified_name).lower())
            or localized_name(catalog, locale, c.qualified_name).lower().startswith(wanted)
            or c.qualified_name.lower().startswith(wanted)
        ]
        if not chosen:
            return error_reply(t(locale, "help.unknown_command", name=only[:50]))
    fields = []
    for info in chosen[:FIELDS_PER_PAGE]:
        name = "/" + localized_name(catalog, locale, info.qualified_name)
        value = localized_description(catalog, locale, info)
        sample = example(catalog, locale, info)
        if sample:
            value += "\n" + t(locale, "help.example", example=sample)
        fields.append(Field(name=name, value=value))
    return Reply(
        title=t(locale, "help.title"),
        description=t(locale, "help.intro"),
        fields=tuple(fields),
        footer=t(locale, "help.footer"),
        colour=Colour.INFO,
        ephemeral=True,
        kind="help",
        result={"commands": [c.qualified_name for c in chosen]},
    )
