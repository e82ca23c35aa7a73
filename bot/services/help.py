"""``/help``: every command with a one-line description and an example, in the user's language.

The overview groups commands by feature (one embed field per cog) so it stays inside Discord's
limits however many commands there are; ``/help command:X`` details one command or group.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from bot.i18n import Catalog, language_of
from bot.ui.reply import Button, Colour, Field, Reply, error_reply

FIELD_VALUE_MAX = 1024
EMBED_BUDGET = 5500  # Discord allows 6000 characters per message's embeds; keep a margin
FIELDS_MAX = 25


@dataclass(frozen=True, slots=True)
class CommandInfo:
    qualified_name: str  # English base, e.g. "combat open"
    description: str  # English base description
    category: str = "general"  # the feature (cog module name), e.g. "dice"


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
    key = _key(info.qualified_name) + ".example"
    return catalog.raw(language_of(locale), key) or catalog.raw("fr", key)


def _category_title(catalog: Catalog, locale: str, category: str) -> str:
    return catalog.raw(language_of(locale), f"help.category.{category}") or category.replace("_", " ").title()


def _lines(catalog: Catalog, locale: str, info: CommandInfo, *, with_example: bool) -> str:
    name = localized_name(catalog, locale, info.qualified_name)
    line = f"`/{name}` — {localized_description(catalog, locale, info)}"
    sample = example(catalog, locale, info)
    if with_example and sample:
        line += f"\n  ↳ `{sample}`"
    return line


def _pack(title: str, lines: list[str]) -> list[Field]:
    """One field per category, continued in further fields when a value would pass 1024."""
    fields: list[Field] = []
    chunk: list[str] = []
    for line in lines:
        line = line[: FIELD_VALUE_MAX - 1]
        if chunk and len("\n".join([*chunk, line])) > FIELD_VALUE_MAX:
            fields.append(Field(name=title if not fields else title + " …", value="\n".join(chunk)))
            chunk = []
        chunk.append(line)
    if chunk:
        fields.append(Field(name=title if not fields else title + " …", value="\n".join(chunk)))
    return fields


def _size(fields: list[Field]) -> int:
    return sum(len(f.name) + len(f.value) for f in fields)


def _paginate(fields: list[Field]) -> list[list[Field]]:
    pages: list[list[Field]] = [[]]
    for item in fields:
        page = pages[-1]
        if page and (_size([*page, item]) > EMBED_BUDGET or len(page) >= FIELDS_MAX):
            pages.append([])
        pages[-1].append(item)
    return pages


def help_reply(
    catalog: Catalog, locale: str, commands: list[CommandInfo], only: str | None = None, page: int = 1
) -> Reply:
    """The help, in pages that each fit one message; buttons turn the pages."""
    t = catalog.t
    ordered = sorted(commands, key=lambda c: localized_name(catalog, locale, c.qualified_name))
    if only:
        wanted = only.strip().lstrip("/").lower()
        chosen = [
            c
            for c in ordered
            if localized_name(catalog, locale, c.qualified_name).lower().startswith(wanted)
            or c.qualified_name.lower().startswith(wanted)
        ]
        if not chosen:
            return error_reply(t(locale, "help.unknown_command", name=only[:50]))
    else:
        chosen = ordered
    groups: OrderedDict[str, list[CommandInfo]] = OrderedDict()
    for info in sorted(
        chosen,
        key=lambda c: (
            _category_title(catalog, locale, c.category),
            localized_name(catalog, locale, c.qualified_name),
        ),
    ):
        groups.setdefault(info.category, []).append(info)
    fields: list[Field] = []
    for category, infos in groups.items():
        title = _category_title(catalog, locale, category)
        fields.extend(_pack(title, [_lines(catalog, locale, i, with_example=True) for i in infos]))
    pages = _paginate(fields)
    page = min(max(page, 1), len(pages))
    buttons: tuple[tuple[Button, ...], ...] = ()
    if len(pages) > 1:
        buttons = (
            (
                Button(
                    label=t(locale, "help.previous"),
                    custom_id=f"melee:help:{page - 1}",
                    disabled=page == 1,
                ),
                Button(
                    label=t(locale, "help.next"),
                    custom_id=f"melee:help:{page + 1}",
                    disabled=page == len(pages),
                ),
            ),
        )
    footer = t(locale, "help.footer")
    if len(pages) > 1:
        footer = t(locale, "help.page", page=page, pages=len(pages)) + " · " + footer
    return Reply(
        title=t(locale, "help.title"),
        description=t(locale, "help.intro"),
        fields=tuple(pages[page - 1]),
        footer=footer,
        colour=Colour.INFO,
        ephemeral=True,
        buttons=buttons,
        kind="help",
        result={"commands": [c.qualified_name for c in chosen], "page": page, "pages": len(pages)},
    )
