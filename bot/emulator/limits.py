"""Discord's validation of what a bot sends, with Discord's error shape.

discord.py checks little of this client-side (see DISCORD_EMULATOR.md): a command with a
101-character description reaches the server and only Discord refuses it. The emulator
refuses it the same way: HTTP 400 ``{"code": 50035, "message": "Invalid Form Body",
"errors": {...}}`` with the nested ``_errors`` lists, so discord.py raises the same
exceptions (``CommandSyncFailure``, ``HTTPException``) it would in production.

Reading of the 8000-character rule per command (4000 before February 2024): Discord counts
the name, description and
choice values of the command, of every option (subcommands and groups included) and of
every choice; "when localization fields are present, only the longest localization for
each field (including the default value) is counted". So each field contributes
``max(len(default), *map(len, localisations))``, and the fields are summed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

Json = dict[str, Any]
Path = tuple[str | int, ...]

VALID_LOCALES = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)

COMMAND_MAX_CHARS = 8000  # since February 2024 (DISCORD_EMULATOR.md: docs PR #6668)
MESSAGE_CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
MODAL_TITLE_MAX = 45
MODAL_INPUTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000
AUTOCOMPLETE_CHOICES_MAX = 25

# Discord's name rule for slash commands and their options (CHAT_INPUT).
_NAME_CHAR = re.compile(r"[-_'\w]")


class ValidationErrors:
    """Collects errors at JSON paths and renders Discord's nested ``errors`` object."""

    def __init__(self) -> None:
        self.tree: Json = {}
        self.messages: list[str] = []

    def add(self, path: Path, code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
        self.messages.append(f"{'.'.join(map(str, path))}: {message}")

    def __bool__(self) -> bool:
        return bool(self.tree)

    def body(self) -> Json:
        return {"code": 50035, "message": "Invalid Form Body", "errors": self.tree}


def _length(errors: ValidationErrors, path: Path, value: Any, low: int, high: int) -> None:
    if not isinstance(value, str):
        errors.add(
            path, "BASE_TYPE_REQUIRED" if value is None else "STRING_TYPE_CONVERT", "Must be a string."
        )
        return
    if not low <= len(value) <= high:
        if low <= 1 and high:
            errors.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {max(low, 1)} and {high} in length.")
        else:
            errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")


def _max_length(errors: ValidationErrors, path: Path, value: Any, high: int) -> None:
    if isinstance(value, str) and len(value) > high:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")


def _max_items(errors: ValidationErrors, path: Path, items: Any, high: int) -> None:
    if isinstance(items, list) and len(items) > high:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")


def valid_command_name(name: str) -> bool:
    if not 1 <= len(name) <= 32 or name != name.lower():
        return False
    # \w covers letters and digits of every script (and "_"); Devanagari and Thai marks
    # are combining characters, which Discord also allows.
    return all(_NAME_CHAR.match(ch) or unicodedata.category(ch).startswith("M") for ch in name)


def _localisations(
    errors: ValidationErrors, path: Path, key: str, values: Any, check: Any = None
) -> dict[str, str]:
    if values is None:
        return {}
    if not isinstance(values, dict):
        errors.add((*path, key), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return {}
    for locale, text in values.items():
        if locale not in VALID_LOCALES:
            errors.add((*path, key), "ENUM_TYPE_COERCE", f'Value "{locale}" is not a valid enum value.')
        elif check is not None:
            check((*path, key, locale), text)
    return {k: v for k, v in values.items() if isinstance(v, str)}


def _field_size(default: Any, localised: dict[str, str]) -> int:
    sizes = [len(default) if isinstance(default, str) else 0, *map(len, localised.values())]
    return max(sizes)


def _check_name(errors: ValidationErrors, path: Path, name: Any, *, slash: bool = True) -> None:
    if not isinstance(name, str) or not name:
        errors.add(path, "BASE_TYPE_REQUIRED", "This field is required")
    elif not 1 <= len(name) <= 32:
        errors.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
    elif slash and not valid_command_name(name):
        errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")


def _check_option(errors: ValidationErrors, path: Path, option: Json, depth: int) -> int:
    """Validate one option; returns its size towards the 8000-character budget."""
    name_check = lambda p, v: _check_name(errors, p, v)  # noqa: E731
    desc_check = lambda p, v: _length(errors, p, v, 1, 100)  # noqa: E731
    _check_name(errors, (*path, "name"), option.get("name"))
    _length(errors, (*path, "description"), option.get("description"), 1, 100)
    names = _localisations(errors, path, "name_localizations", option.get("name_localizations"), name_check)
    descs = _localisations(
        errors, path, "description_localizations", option.get("description_localizations"), desc_check
    )
    size = _field_size(option.get("name"), names) + _field_size(option.get("description"), descs)
    kind = option.get("type")
    if kind not in range(1, 12):
        errors.add((*path, "type"), "BASE_TYPE_CHOICES", f"Value must be one of {set(range(1, 12))}.")
    if kind in (1, 2):
        if (kind == 2 and depth > 0) or (kind == 1 and depth > 1):
            errors.add((*path, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Invalid nesting")
        size += _check_options(errors, path, option.get("options") or [], depth + 1)
        return size
    choices = option.get("choices") or []
    _max_items(errors, (*path, "choices"), choices, 25)
    if choices and option.get("autocomplete"):
        errors.add(
            (*path, "autocomplete"), "AUTOCOMPLETE_CHOICES_CONFLICT", "Cannot set autocomplete with choices"
        )
    for j, choice in enumerate(choices):
        cpath = (*path, "choices", j)
        _length(errors, (*cpath, "name"), choice.get("name"), 1, 100)
        cnames = _localisations(
            errors,
            cpath,
            "name_localizations",
            choice.get("name_localizations"),
            lambda p, v: _length(errors, p, v, 1, 100),
        )
        value = choice.get("value")
        if isinstance(value, str):
            _length(errors, (*cpath, "value"), value, 1, 100)
        size += _field_size(choice.get("name"), cnames) + len(str(value))
    return size


def _check_options(errors: ValidationErrors, path: Path, options: list[Json], depth: int) -> int:
    _max_items(errors, (*path, "options"), options, 25)
    size = 0
    seen: set[str] = set()
    optional_seen = False
    for i, option in enumerate(options):
        opath = (*path, "options", i)
        size += _check_option(errors, opath, option, depth)
        name = option.get("name")
        if isinstance(name, str):
            if name in seen:
                errors.add(
                    (*opath, "name"),
                    "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
                    "Option name already exists",
                )
            seen.add(name)
        if option.get("type") in (1, 2):
            continue
        if option.get("required"):
            if optional_seen:
                errors.add(
                    (*path, "options"),
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            optional_seen = True
    return size


def command_size(command: Json) -> int:
    """The command's size towards Discord's 8000-character limit (see module docstring)."""
    return _check_command(ValidationErrors(), (), command)


def _check_command(errors: ValidationErrors, path: Path, command: Json) -> int:
    kind = command.get("type", 1)
    slash = kind == 1
    _check_name(errors, (*path, "name"), command.get("name"), slash=slash)
    names = _localisations(
        errors,
        path,
        "name_localizations",
        command.get("name_localizations"),
        lambda p, v: _check_name(errors, p, v, slash=slash),
    )
    size = _field_size(command.get("name"), names)
    if slash:
        _length(errors, (*path, "description"), command.get("description"), 1, 100)
        descs = _localisations(
            errors,
            path,
            "description_localizations",
            command.get("description_localizations"),
            lambda p, v: _length(errors, p, v, 1, 100),
        )
        size += _field_size(command.get("description"), descs)
        size += _check_options(errors, path, command.get("options") or [], 0)
    elif command.get("description"):
        errors.add(
            (*path, "description"),
            "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION",
            "Context menu commands cannot have description",
        )
    return size


def validate_commands(commands: Any) -> ValidationErrors:
    """Validate a bulk-overwrite payload (``PUT /applications/{app}[/guilds/{g}]/commands``)."""
    errors = ValidationErrors()
    if not isinstance(commands, list):
        errors.add((), "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
        return errors
    _max_items(errors, (), [c for c in commands if c.get("type", 1) == 1], 100)
    seen: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        size = _check_command(errors, (i,), command)
        if size > COMMAND_MAX_CHARS:
            errors.add(
                (i,), "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({COMMAND_MAX_CHARS})"
            )
        key = (int(command.get("type", 1)), str(command.get("name")))
        if key in seen:
            errors.add(
                (i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"
            )
        seen.add(key)
    return errors


# ---------------------------------------------------------------------------------------------
# Messages, embeds, components


def _embed_size(embed: Json) -> int:
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    size += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        size += len(f.get("name") or "") + len(f.get("value") or "")
    return size


def _check_embeds(errors: ValidationErrors, embeds: Any) -> None:
    if not isinstance(embeds, list):
        return
    _max_items(errors, ("embeds",), embeds, EMBEDS_MAX)
    total = 0
    for i, embed in enumerate(embeds):
        path: Path = ("embeds", i)
        _max_length(errors, (*path, "title"), embed.get("title"), 256)
        _max_length(errors, (*path, "description"), embed.get("description"), 4096)
        footer = embed.get("footer") or {}
        _max_length(errors, (*path, "footer", "text"), footer.get("text"), 2048)
        author = embed.get("author") or {}
        _max_length(errors, (*path, "author", "name"), author.get("name"), 256)
        fields = embed.get("fields") or []
        _max_items(errors, (*path, "fields"), fields, 25)
        for j, fld in enumerate(fields):
            _length(errors, (*path, "fields", j, "name"), fld.get("name"), 1, 256)
            _length(errors, (*path, "fields", j, "value"), fld.get("value"), 1, 1024)
        total += _embed_size(embed)
    if total > EMBED_TOTAL_MAX:
        errors.add(
            ("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}"
        )


def _check_select(errors: ValidationErrors, path: Path, select: Json) -> None:
    if select.get("type") == 3:
        options = select.get("options") or []
        if not options:
            errors.add((*path, "options"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
        _max_items(errors, (*path, "options"), options, SELECT_OPTIONS_MAX)
        for k, opt in enumerate(options):
            _length(errors, (*path, "options", k, "label"), opt.get("label"), 1, 100)
            _length(errors, (*path, "options", k, "value"), opt.get("value"), 1, 100)
            _max_length(errors, (*path, "options", k, "description"), opt.get("description"), 100)
    _max_length(errors, (*path, "placeholder"), select.get("placeholder"), 150)


def _check_components(errors: ValidationErrors, components: Any, custom_ids: set[str]) -> None:
    if not isinstance(components, list):
        return

    def check_custom_id(path: Path, item: Json) -> None:
        custom_id = item.get("custom_id")
        if custom_id is None:
            if item.get("type") == 2 and item.get("style") not in (5, 6):
                errors.add((*path, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
            return
        _length(errors, (*path, "custom_id"), custom_id, 1, CUSTOM_ID_MAX)
        if custom_id in custom_ids:
            errors.add(
                (*path, "custom_id"),
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        custom_ids.add(custom_id)

    def walk(items: list[Json], path: Path, top: bool) -> None:
        for i, item in enumerate(items):
            ipath = (*path, i)
            kind = item.get("type")
            if kind == 1:
                children = item.get("components") or []
                buttons = [c for c in children if c.get("type") == 2]
                if len(buttons) > BUTTONS_PER_ROW_MAX or len(children) > BUTTONS_PER_ROW_MAX:
                    errors.add(
                        (*ipath, "components"), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."
                    )
                if any(c.get("type") in (3, 5, 6, 7, 8) for c in children) and len(children) > 1:
                    errors.add(
                        (*ipath, "components"),
                        "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                        "The specified component exceeds the maximum width",
                    )
                walk(children, (*ipath, "components"), False)
            elif kind == 2:
                _max_length(errors, (*ipath, "label"), item.get("label"), BUTTON_LABEL_MAX)
                check_custom_id(ipath, item)
            elif kind in (3, 5, 6, 7, 8):
                check_custom_id(ipath, item)
                _check_select(errors, ipath, item)
            else:
                for key in ("components",):
                    if isinstance(item.get(key), list):
                        walk(item[key], (*ipath, key), False)
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]], (*ipath, "accessory"), False)

    top_rows = [c for c in components if c.get("type") == 1]
    if len(top_rows) > ACTION_ROWS_MAX:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", f"Must be {ACTION_ROWS_MAX} or fewer in length.")
    walk(components, ("components",), True)


def validate_message(payload: Json) -> ValidationErrors:
    """Validate a message create/edit body (channel message, webhook, interaction response)."""
    errors = ValidationErrors()
    content = payload.get("content")
    if content is not None:
        _max_length(errors, ("content",), str(content), MESSAGE_CONTENT_MAX)
    _check_embeds(errors, payload.get("embeds"))
    _check_components(errors, payload.get("components"), set())
    return errors


def validate_modal(data: Json) -> ValidationErrors:
    """Validate a type-9 callback's ``data`` (paths relative to ``data``)."""
    errors = ValidationErrors()
    _length(errors, ("data", "title"), data.get("title"), 1, MODAL_TITLE_MAX)
    _length(errors, ("data", "custom_id"), data.get("custom_id"), 1, CUSTOM_ID_MAX)
    rows = data.get("components") or []
    if not rows:
        errors.add(("data", "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    _max_items(errors, ("data", "components"), rows, MODAL_INPUTS_MAX)
    custom_ids: set[str] = set()
    for i, row in enumerate(rows):
        path: Path = ("data", "components", i)
        # Classic rows hold one child in "components"; labels (type 18) hold "component".
        children: list[tuple[Path, Json]]
        if row.get("type") == 18:
            _length(errors, (*path, "label"), row.get("label"), 1, TEXT_INPUT_LABEL_MAX)
            children = [(("component",), row.get("component") or {})]
        elif row.get("type") == 1:
            children = [(("components", j), c) for j, c in enumerate(row.get("components") or [])]
        else:
            children = []
        for sub, child in children:
            cpath = (*path, *sub)
            if child.get("type") == 4:
                # Inside a Label the input's own label is deprecated: discord.py sends null.
                if "label" in child and not (row.get("type") == 18 and child["label"] is None):
                    _length(errors, (*cpath, "label"), child.get("label"), 1, TEXT_INPUT_LABEL_MAX)
                _max_length(errors, (*cpath, "value"), child.get("value"), TEXT_INPUT_VALUE_MAX)
                _max_length(errors, (*cpath, "placeholder"), child.get("placeholder"), 100)
                max_len = child.get("max_length")
                if isinstance(max_len, int) and not 1 <= max_len <= TEXT_INPUT_VALUE_MAX:
                    errors.add((*cpath, "max_length"), "NUMBER_TYPE_MAX", "int value should be <= 4000.")
            elif child.get("type") in (3, 5, 6, 7, 8):
                _check_select(errors, cpath, child)
            cid = child.get("custom_id")
            if isinstance(cid, str):
                _length(errors, (*cpath, "custom_id"), cid, 1, CUSTOM_ID_MAX)
                if cid in custom_ids:
                    errors.add(
                        (*cpath, "custom_id"),
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                custom_ids.add(cid)
    return errors


def validate_choices(choices: Any) -> ValidationErrors:
    """Validate an autocomplete (type 8) answer's ``data.choices``."""
    errors = ValidationErrors()
    if not isinstance(choices, list):
        errors.add(("data", "choices"), "BASE_TYPE_REQUIRED", "This field is required")
        return errors
    _max_items(errors, ("data", "choices"), choices, AUTOCOMPLETE_CHOICES_MAX)
    for i, choice in enumerate(choices):
        _length(errors, ("data", "choices", i, "name"), choice.get("name"), 1, 100)
        if isinstance(choice.get("value"), str):
            _length(errors, ("data", "choices", i, "value"), choice.get("value"), 1, 100)
    return errors


def prefix(errors: ValidationErrors, path: Path) -> ValidationErrors:
    """The same errors nested under ``path`` (e.g. a message validated as ``data`` of a callback)."""
    if not errors:
        return errors
    out = ValidationErrors()
    out.tree = errors.tree
    for key in reversed(path):
        out.tree = {str(key): out.tree}
    out.messages = [f"{'.'.join(map(str, path))}.{m}" for m in errors.messages]
    return out
