"""``/help`` (``/aide``): a help that teaches, in the user's language, for the system in force here.

* Page 1, « Démarrer »: the five things a new player does (roll, test, a character, join a fight,
  find a command), one example each — the test and the sheet examples follow the system in force.
* Then the commands in groups, in the order a table meets them (dice and tests, characters, the
  fight and that system's own fight commands, the table-play flows, the bestiary, the rules, the
  settings), each with its description and an example; the page « Déroulé d'un combat » walks
  through a fight step by step right after the fight commands.
* Only the commands the system in force here plays with: the other systems' own commands are on
  one last page, « Autres systèmes ».
* ``/help command:X`` details one command — every option with its type, whether it is optional, its
  choices (or that the bot suggests values as you type), its bounds, and an example — found by its
  full name or by its own last word (``attaque`` → ``/combat attaque``); a group name lists the
  group's commands.

Each page stays under :data:`PAGE_BUDGET` characters (Discord allows 6 000 per message's embeds).
The service has no discord import: the cog turns the command tree into :class:`CommandInfo`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from bot.context import AppContext
from bot.i18n import Catalog, language_of
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.config import config_cache
from bot.ui.reply import Button, Colour, Field, Reply, error_reply

FIELD_VALUE_MAX: Final = 1024
PAGE_BUDGET: Final = 3800  # title + description + fields + footer of one page (issue #21: < 4 000)
FIELDS_MAX: Final = 25
DEFAULT_RULESET: Final = "renove"
RULESETS: Final = ("renove", "v1", "d20", "ogl")

# The order a table meets the features (cog module names); unknown ones come last.
CATEGORY_ORDER: Final = (
    "dice",
    "tests",
    "stats",
    "characters",
    "combat",
    "ogl_manoeuvre",
    "d20_fire",
    "fortune",
    "jumping",
    "infection",
    "interrogation",
    "chase",
    "tavern",
    "npc",
    "rules",
    "simulate",
    "config",
    "help",
)
FIGHT_CATEGORIES: Final = ("combat", "ogl_manoeuvre", "d20_fire")
# The features only one system plays (seed 000 for `renove`; the others' own fight commands).
CATEGORY_SYSTEM: Final[dict[str, str]] = {
    "ogl_manoeuvre": "ogl",
    "d20_fire": "d20",
    "fortune": "renove",
    "jumping": "renove",
    "infection": "renove",
    "interrogation": "renove",
    "chase": "renove",
    "tavern": "renove",
    "simulate": "renove",
}
COMMAND_SYSTEM: Final[dict[str, str]] = {"chance": "d20"}
START_STEPS: Final = ("roll", "test", "character", "fight", "help")
FIGHT_STEPS_BEFORE: Final = 2  # « Déroulé d'un combat »: steps 1-2 open and join, 3-9 the rounds


@dataclass(frozen=True, slots=True)
class ChoiceInfo:
    value: str
    name: str  # English base
    key: str | None = None  # catalogue key of the French name


@dataclass(frozen=True, slots=True)
class OptionInfo:
    name: str  # English base name, as Discord shows it
    type: str  # string, integer, number, boolean, user, channel, role, mentionable, attachment
    required: bool
    description: str = ""  # English base
    choices: tuple[ChoiceInfo, ...] = ()
    autocomplete: bool = False
    min_value: float | None = None
    max_value: float | None = None
    key: str = ""  # the parameter's name in code, which the catalogue keys use (default: ``name``)

    @property
    def key_name(self) -> str:
        return self.key or self.name


@dataclass(frozen=True, slots=True)
class CommandInfo:
    qualified_name: str  # English base, e.g. "combat open"
    description: str  # English base description
    category: str = "general"  # the feature (cog module name), e.g. "dice"
    options: tuple[OptionInfo, ...] = field(default_factory=tuple)


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


def system_of(info: CommandInfo) -> str | None:
    """The one system a command belongs to; None for the commands every system shares."""
    return COMMAND_SYSTEM.get(info.qualified_name) or CATEGORY_SYSTEM.get(info.category)


def _category_title(catalog: Catalog, locale: str, category: str) -> str:
    return catalog.raw(language_of(locale), f"help.category.{category}") or category.replace("_", " ").title()


def _category_rank(category: str) -> int:
    return CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER)


def _line(catalog: Catalog, locale: str, info: CommandInfo, *, with_example: bool) -> str:
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


def _size(fields: Sequence[Field]) -> int:
    return sum(len(f.name) + len(f.value) for f in fields)


@dataclass(frozen=True, slots=True)
class _Page:
    title: str
    description: str
    fields: tuple[Field, ...]


def _command_pages(title: str, intro: str, blocks: list[list[Field]], room: int) -> list[_Page]:
    """Pages of whole groups: a group goes on a fresh page rather than straddle two, unless it
    alone passes a page (then its fields continue on the next)."""
    pages: list[list[Field]] = [[]]
    for block in blocks:
        if pages[-1] and (_size([*pages[-1], *block]) > room or len(pages[-1]) + len(block) > FIELDS_MAX):
            pages.append([])
        for item in block:
            page = pages[-1]
            if page and (_size([*page, item]) > room or len(page) >= FIELDS_MAX):
                pages.append([])
            pages[-1].append(item)
    return [_Page(title, intro, tuple(p)) for p in pages if p]


def _ruleset_name(catalog: Catalog, locale: str, ruleset: str) -> str:
    return catalog.t(locale, f"tests.ruleset.{ruleset}")


def _start_page(catalog: Catalog, locale: str, ruleset: str) -> _Page:
    t = catalog.t
    fields = []
    for step in START_STEPS:
        sample = catalog.raw(language_of(locale), f"help.start.{step}.example.{ruleset}") or t(
            locale, f"help.start.{step}.example"
        )
        fields.append(
            Field(
                name=t(locale, f"help.start.{step}.title"),
                value=t(locale, f"help.start.{step}.text", example=sample),
            )
        )
    return _Page(
        t(locale, "help.start.title"),
        t(locale, "help.start.intro", ruleset=_ruleset_name(catalog, locale, ruleset)),
        tuple(fields),
    )


def _fight_page(catalog: Catalog, locale: str, ruleset: str) -> _Page:
    t = catalog.t
    steps = [
        t(locale, f"help.fight.step.{n}.{ruleset}")
        if catalog.has(f"help.fight.step.{n}.{ruleset}")
        else t(locale, f"help.fight.step.{n}")
        for n in range(1, 10)
    ]
    lines = [f"**{i}.** {text}" for i, text in enumerate(steps, start=1)]
    fields = (  # opening and joining, then the rounds
        Field(t(locale, "help.fight.before"), "\n".join(lines[:FIGHT_STEPS_BEFORE])),
        Field(t(locale, "help.fight.during"), "\n".join(lines[FIGHT_STEPS_BEFORE:])),
    )
    return _Page(t(locale, "help.fight.title"), t(locale, "help.fight.intro"), fields)


def _other_systems_page(
    catalog: Catalog, locale: str, ruleset: str, commands: Sequence[CommandInfo]
) -> _Page | None:
    t = catalog.t
    fields: list[Field] = []
    for system in RULESETS:
        if system == ruleset:
            continue
        own = [c for c in commands if system_of(c) == system]
        if not own:
            continue
        own.sort(
            key=lambda c: (_category_rank(c.category), localized_name(catalog, locale, c.qualified_name))
        )
        lines = [_line(catalog, locale, c, with_example=False) for c in own]
        fields.extend(_pack(_ruleset_name(catalog, locale, system), lines))
    if not fields:
        return None
    return _Page(t(locale, "help.others.title"), t(locale, "help.others.intro"), tuple(fields))


def _pages(catalog: Catalog, locale: str, ruleset: str, commands: Sequence[CommandInfo]) -> list[_Page]:
    t = catalog.t
    here = [c for c in commands if system_of(c) in (None, ruleset)]
    groups: dict[str, list[CommandInfo]] = {}
    for info in sorted(
        here,
        key=lambda c: (_category_rank(c.category), localized_name(catalog, locale, c.qualified_name)),
    ):
        groups.setdefault(info.category, []).append(info)
    title, intro = t(locale, "help.title"), t(locale, "help.intro")
    room = PAGE_BUDGET - len(title) - len(intro) - 120  # the footer
    pages = [_start_page(catalog, locale, ruleset)]
    pending: list[list[Field]] = []
    for category, infos in groups.items():
        name = _category_title(catalog, locale, category)
        pending.append(_pack(name, [_line(catalog, locale, i, with_example=True) for i in infos]))
        if category in FIGHT_CATEGORIES and not any(
            c in groups for c in FIGHT_CATEGORIES[FIGHT_CATEGORIES.index(category) + 1 :]
        ):  # the fight's commands, then how a fight goes
            pages.extend(_command_pages(title, intro, pending, room))
            pages.append(_fight_page(catalog, locale, ruleset))
            pending = []
    pages.extend(_command_pages(title, intro, pending, room))
    others = _other_systems_page(catalog, locale, ruleset, commands)
    if others is not None:
        pages.append(others)
    return pages


def _page_buttons(catalog: Catalog, locale: str, page: int, count: int) -> tuple[tuple[Button, ...], ...]:
    if count <= 1:
        return ()
    t = catalog.t
    return (
        (
            Button(label=t(locale, "help.previous"), custom_id=f"melee:help:{page - 1}", disabled=page == 1),
            Button(label=t(locale, "help.next"), custom_id=f"melee:help:{page + 1}", disabled=page == count),
        ),
    )


# -- one command ------------------------------------------------------------------------------------


def _names(catalog: Catalog, info: CommandInfo) -> tuple[str, str]:
    return fold(localized_name(catalog, "fr", info.qualified_name)), fold(info.qualified_name)


def find_commands(catalog: Catalog, commands: Sequence[CommandInfo], typed: str) -> list[CommandInfo]:
    """What ``/help command:`` names: the command by its full name, else by its own last word
    (« attaque » → ``/combat attaque``), else a group (« combat » → its commands), else the commands
    whose name starts so."""
    wanted = " ".join(fold(typed.strip().lstrip("/")).replace("_", " ").split())
    wanted_raw = fold(typed.strip().lstrip("/"))
    if not wanted_raw:
        return []

    def forms(name: str) -> set[str]:
        return {name, name.replace("_", " "), name.replace("-", " ")}

    full = [c for c in commands if {wanted, wanted_raw} & {f for n in _names(catalog, c) for f in forms(n)}]
    if full:
        return full
    last = [
        c
        for c in commands
        if {wanted, wanted_raw} & {f for n in _names(catalog, c) for f in forms(n.split(" ")[-1])}
    ]
    if last:
        return last
    return [c for c in commands if any(n.startswith(wanted_raw) for n in _names(catalog, c))]


def _option_name(catalog: Catalog, locale: str, info: CommandInfo, option: OptionInfo) -> str:
    if language_of(locale) == "en":
        return option.name
    return catalog.raw("fr", f"{_key(info.qualified_name)}.opt.{option.key_name}.name") or option.name


def _option_description(catalog: Catalog, locale: str, info: CommandInfo, option: OptionInfo) -> str:
    if language_of(locale) == "en":
        return option.description
    return (
        catalog.raw("fr", f"{_key(info.qualified_name)}.opt.{option.key_name}.description")
        or option.description
    )


def _number(value: float, locale: str) -> str:
    text = f"{value:g}"
    return text if language_of(locale) == "en" else text.replace(".", ",").replace("-", "−")


def _option_line(catalog: Catalog, locale: str, info: CommandInfo, option: OptionInfo) -> str:
    t = catalog.t
    kind = t(locale, f"help.type.{option.type}")
    need = t(locale, "help.option.required" if option.required else "help.option.optional")
    line = t(
        locale,
        "help.option.line",
        name=_option_name(catalog, locale, info, option),
        type=kind,
        need=need,
        description=_option_description(catalog, locale, info, option)[:120],
    )
    extra: list[str] = []
    if option.choices:
        names = []
        for choice in option.choices[:25]:
            label = choice.name
            if language_of(locale) != "en" and choice.key:
                label = catalog.raw("fr", choice.key) or choice.name
            names.append(label if label == choice.value else f"{label} (`{choice.value}`)")
        extra.append(t(locale, "help.option.choices", choices=", ".join(names)))
    elif option.autocomplete:
        extra.append(t(locale, "help.option.suggested"))
    if option.type in ("integer", "number") and option.min_value is not None and option.max_value is not None:
        extra.append(
            t(
                locale,
                "help.option.range",
                low=_number(option.min_value, locale),
                high=_number(option.max_value, locale),
            )
        )
    if extra:
        line += "\n  ↳ " + " · ".join(extra)
    return line


def _detail_page(catalog: Catalog, locale: str, info: CommandInfo, ruleset: str) -> _Page:
    t = catalog.t
    name = localized_name(catalog, locale, info.qualified_name)
    head = _line(catalog, locale, info, with_example=True)
    system = system_of(info)
    if system is not None and system != ruleset:
        head += "\n" + t(locale, "help.detail.other_system", ruleset=_ruleset_name(catalog, locale, system))
    fields = [Field(t(locale, "help.detail.usage"), head[: FIELD_VALUE_MAX - 1])]
    lines = [_option_line(catalog, locale, info, o) for o in info.options]
    if lines:
        fields.extend(_pack(t(locale, "help.detail.options"), lines))
    else:
        fields.append(Field(t(locale, "help.detail.options"), t(locale, "help.detail.no_options")))
    while _size(fields) > PAGE_BUDGET - 200 and len(fields) > 2:  # never past one page
        fields.pop()
    return _Page(f"/{name}", t(locale, "help.detail.intro"), tuple(fields))


def _list_page(catalog: Catalog, locale: str, typed: str, found: Sequence[CommandInfo]) -> _Page:
    t = catalog.t
    ordered = sorted(
        found, key=lambda c: (_category_rank(c.category), localized_name(catalog, locale, c.qualified_name))
    )
    fields = _pack(
        t(locale, "help.list.title"), [_line(catalog, locale, c, with_example=True) for c in ordered]
    )
    kept: list[Field] = []
    for item in fields:
        if _size([*kept, item]) > PAGE_BUDGET - 300:
            break
        kept.append(item)
    return _Page(t(locale, "help.title"), t(locale, "help.list.intro", name=typed.strip()[:50]), tuple(kept))


def help_reply(
    catalog: Catalog,
    locale: str,
    commands: list[CommandInfo],
    only: str | None = None,
    page: int = 1,
    *,
    ruleset: str = DEFAULT_RULESET,
) -> Reply:
    """The help for the system ``ruleset``: its pages (buttons turn them), or one command."""
    t = catalog.t
    footer_system = t(locale, "help.footer.ruleset", ruleset=_ruleset_name(catalog, locale, ruleset))
    if only:
        found = find_commands(catalog, commands, only)
        if not found:
            return error_reply(t(locale, "help.unknown_command", name=only[:50]))
        shown = (
            _detail_page(catalog, locale, found[0], ruleset)
            if len(found) == 1
            else _list_page(catalog, locale, only, found)
        )
        return Reply(
            title=shown.title,
            description=shown.description,
            fields=shown.fields,
            footer=t(locale, "help.footer") + " · " + footer_system,
            colour=Colour.INFO,
            ephemeral=True,
            kind="help",
            result={"commands": [c.qualified_name for c in found], "page": 1, "pages": 1, "ruleset": ruleset},
        )
    pages = _pages(catalog, locale, ruleset, commands)
    page = min(max(page, 1), len(pages))
    shown = pages[page - 1]
    footer = t(locale, "help.page", page=page, pages=len(pages)) + " · " + footer_system
    listed = [c.qualified_name for c in commands if system_of(c) in (None, ruleset)]
    return Reply(
        title=shown.title,
        description=shown.description,
        fields=shown.fields,
        footer=footer,
        colour=Colour.INFO,
        ephemeral=True,
        buttons=_page_buttons(catalog, locale, page, len(pages)),
        kind="help",
        result={
            "commands": listed,
            "page": page,
            "pages": len(pages),
            "ruleset": ruleset,
            "page_titles": [p.title for p in pages],
        },
    )


async def ruleset_here(ctx: AppContext, caller: Caller) -> str:
    """The system in force where the help is asked (a thread's or channel's override first)."""
    if caller.guild_id is None:
        return DEFAULT_RULESET
    found = await config_cache(ctx).settings(ctx.sessions, caller.guild_id, caller.channel_chain)
    return str(found.ruleset)


async def help_here(
    ctx: AppContext, caller: Caller, commands: list[CommandInfo], only: str | None = None, page: int = 1
) -> Reply:
    """:func:`help_reply` for the system in force where the help is asked."""
    return help_reply(
        ctx.catalog, caller.locale, commands, only, page, ruleset=await ruleset_here(ctx, caller)
    )
