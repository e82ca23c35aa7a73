"""Discord's documented limits, as the emulator enforces them (no bot needed)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.emulator.limits import (
    command_size,
    valid_command_name,
    validate_commands,
    validate_message,
    validate_modal,
)
from bot.emulator.server import Emulator, effective_mentions


def cmd(**extra: Any) -> dict[str, Any]:
    return {"name": "roll", "description": "Roll dice", "type": 1, **extra}


def opt(name: str = "x", **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": "d", "type": 3, **extra}


@pytest.mark.parametrize("name", ["roll", "lancer", "points-de-vie", "été", "d20", "ñ_1", "x" * 32])
def test_valid_names(name: str) -> None:
    assert valid_command_name(name)


@pytest.mark.parametrize("name", ["Roll", "two words", "", "x" * 33, "roll!", "a.b"])
def test_invalid_names(name: str) -> None:
    assert not valid_command_name(name)


def test_valid_command_passes() -> None:
    assert not validate_commands([cmd(options=[opt(required=True), opt("y")])])


@pytest.mark.parametrize(
    ("command", "path", "code"),
    [
        (cmd(description="x" * 101), ("0", "description"), "BASE_TYPE_BAD_LENGTH"),
        (cmd(description=""), ("0", "description"), "BASE_TYPE_BAD_LENGTH"),
        (cmd(name="Roll"), ("0", "name"), "APPLICATION_COMMAND_INVALID_NAME"),
        (cmd(options=[opt(f"o{i}") for i in range(26)]), ("0", "options"), "BASE_TYPE_MAX_LENGTH"),
        (
            cmd(options=[opt(choices=[{"name": f"c{i}", "value": i} for i in range(26)])]),
            ("0", "options", "0", "choices"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            cmd(options=[opt(choices=[{"name": "n" * 101, "value": 1}])]),
            ("0", "options", "0", "choices", "0", "name"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            cmd(options=[opt("a"), opt("b", required=True)]),
            ("0", "options"),
            "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
        ),
        (cmd(name_localizations={"fr-FR": "lancer"}), ("0", "name_localizations"), "ENUM_TYPE_COERCE"),
        (
            cmd(description_localizations={"fr": "y" * 101}),
            ("0", "description_localizations", "fr"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            cmd(options=[opt(description="d" * 101)]),
            ("0", "options", "0", "description"),
            "BASE_TYPE_BAD_LENGTH",
        ),
    ],
)
def test_invalid_commands(command: dict[str, Any], path: tuple[str, ...], code: str) -> None:
    errors = validate_commands([command])
    node: Any = errors.body()["errors"]
    for key in path:
        node = node[key]
    assert code in [e["code"] for e in node["_errors"]]


def test_duplicate_names() -> None:
    errors = validate_commands([cmd(), cmd()])
    assert errors.tree["1"]["name"]["_errors"][0]["code"] == "APPLICATION_COMMANDS_DUPLICATE_NAME"


def test_8000_characters_counts_the_longest_localisation_per_field() -> None:
    # Big choice lists: 3 options of 25 choices of 150 characters are over 8000, 2 are not.
    choices = [{"name": "n" * 100, "value": "v" * 50} for _ in range(25)]
    options = [opt(f"o{i}", description="d" * 10, choices=choices) for i in range(3)]
    command = cmd(options=options)
    base = command_size(command)
    assert base == 4 + 9 + 3 * (2 + 10 + 25 * 150)
    assert validate_commands([command]).tree["0"]["_errors"][0]["code"] == "APPLICATION_COMMAND_TOO_LARGE"
    assert not validate_commands([cmd(options=options[:2])])
    # A longer French description replaces (does not add to) the default one in the count.
    localised = cmd(description_localizations={"fr": "Lancer des dés, longuement"})
    assert command_size(localised) == 4 + len("Lancer des dés, longuement")


def test_message_limits() -> None:
    assert not validate_message({"content": "x" * 2000})
    errors = validate_message({"content": "x" * 2001})
    assert errors.tree == {
        "content": {
            "_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]
        }
    }
    assert "embeds" in validate_message({"embeds": [{"title": "t"}] * 11}).tree
    assert "title" in validate_message({"embeds": [{"title": "t" * 257}]}).tree["embeds"]["0"]
    big = {"description": "d" * 4096, "fields": [{"name": "n", "value": "v" * 1024}] * 2}
    assert (
        validate_message({"embeds": [big]}).tree["embeds"]["_errors"][0]["code"] == "MAX_EMBED_SIZE_EXCEEDED"
    )
    fields = {"fields": [{"name": "n", "value": "v"}] * 26}
    assert "fields" in validate_message({"embeds": [fields]}).tree["embeds"]["0"]
    footer = {"footer": {"text": "f" * 2049}}
    assert "footer" in validate_message({"embeds": [footer]}).tree["embeds"]["0"]
    author = {"author": {"name": "a" * 257}}
    assert "author" in validate_message({"embeds": [author]}).tree["embeds"]["0"]


def button(custom_id: str, label: str = "ok") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def test_component_limits() -> None:
    row = {"type": 1, "components": [button(f"b{i}") for i in range(5)]}
    assert not validate_message({"components": [row]})
    six = {"type": 1, "components": [button(f"b{i}") for i in range(6)]}
    assert validate_message({"components": [six]})
    rows = [{"type": 1, "components": [button(f"r{r}")]} for r in range(6)]
    assert validate_message({"components": rows}).tree["components"]["_errors"]
    dup = [{"type": 1, "components": [button("same"), button("same")]}]
    assert validate_message({"components": dup})
    assert validate_message({"components": [{"type": 1, "components": [button("x" * 101)]}]})
    assert validate_message({"components": [{"type": 1, "components": [button("b", "l" * 81)]}]})
    options = [{"label": f"o{i}", "value": f"{i}"} for i in range(26)]
    select = {"type": 1, "components": [{"type": 3, "custom_id": "s", "options": options}]}
    assert validate_message({"components": [select]})


def text_input(custom_id: str, label: str = "Nom", **extra: Any) -> dict[str, Any]:
    return {
        "type": 1,
        "components": [{"type": 4, "custom_id": custom_id, "label": label, "style": 1, **extra}],
    }


def test_modal_limits() -> None:
    assert not validate_modal({"custom_id": "m", "title": "Fiche", "components": [text_input("a")]})
    assert validate_modal({"custom_id": "m", "title": "t" * 46, "components": [text_input("a")]})
    six = [text_input(f"i{i}") for i in range(6)]
    assert validate_modal({"custom_id": "m", "title": "t", "components": six})
    assert validate_modal({"custom_id": "m", "title": "t", "components": [text_input("a", "l" * 46)]})
    assert validate_modal({"custom_id": "m", "title": "t", "components": [text_input("a", value="v" * 4001)]})
    label = {"type": 18, "label": "l" * 46, "component": {"type": 4, "custom_id": "a", "style": 1}}
    assert validate_modal({"custom_id": "m", "title": "t", "components": [label]})


def test_effective_mentions() -> None:
    text = "@everyone <@&123> <@456>"
    assert effective_mentions(text, None) == (True, ["123"], ["456"])
    assert effective_mentions(text, {"parse": []}) == (False, [], [])
    assert effective_mentions(text, {"parse": [], "users": ["456"]}) == (False, [], ["456"])


async def test_rest_answers_like_discord(emu: Emulator) -> None:
    base = f"{emu.base_url}/api/v10"
    channel = emu.channel("partie")
    async with aiohttp.ClientSession(headers={"Authorization": "Bot t"}) as http:
        async with http.post(f"{base}/channels/{channel.id}/messages", json={"content": "x" * 2001}) as resp:
            assert resp.status == 400
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["code"] == 50035
        async with http.post(f"{base}/channels/{channel.id}/messages", json={}) as resp:
            assert (await resp.json())["code"] == 50006
        async with http.post(f"{base}/channels/1/messages", json={"content": "x"}) as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 10003
        async with http.get(f"{base}/nope") as resp:
            assert resp.status == 404
        async with aiohttp.ClientSession() as anonymous, anonymous.get(f"{base}/users/@me") as resp:
            assert resp.status == 401
        emu.inject_error("POST", "/channels/{cid}/messages", 403, 50013, "Missing Permissions")
        async with http.post(f"{base}/channels/{channel.id}/messages", json={"content": "x"}) as resp:
            assert resp.status == 403
        async with http.post(f"{base}/channels/{channel.id}/messages", json={"content": "x"}) as resp:
            assert resp.status == 200
            assert (await resp.json())["channel_id"] == channel.id
    kinds = [f.kind for f in emu.failures]
    assert kinds == ["invalid_message", "empty_message", "unknown_route"]
