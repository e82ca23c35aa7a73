"""The help's pages and its command lookup, on plain command descriptions (no Discord)."""

from __future__ import annotations

from bot.i18n import default_catalog
from bot.services.help import (
    PAGE_BUDGET,
    ChoiceInfo,
    CommandInfo,
    OptionInfo,
    find_commands,
    help_reply,
    system_of,
)
from bot.ui.reply import Reply

CATALOG = default_catalog()
ATTACK = CommandInfo(
    "combat attack",
    "Attack a fighter",
    "combat",
    (
        OptionInfo("target", "string", True, "Who is attacked", autocomplete=True),
        OptionInfo(
            "zone",
            "string",
            False,
            "Aim lower",
            (ChoiceInfo("jambes", "Legs", "cmd.combat.choice.jambes"),),
        ),
        OptionInfo("roll", "integer", False, "The d100", min_value=0, max_value=100),
    ),
)
COMMANDS = [
    CommandInfo("roll", "Roll dice", "dice"),
    CommandInfo("test", "A test", "tests"),
    CommandInfo("chance", "d20 luck", "tests"),
    CommandInfo("character show", "Show a sheet", "characters"),
    CommandInfo("combat open", "Open a fight", "combat"),
    ATTACK,
    CommandInfo("combat show", "The tracker", "combat"),
    CommandInfo("maneuver grapple", "Grapple", "ogl_manoeuvre"),
    CommandInfo("fire burst", "Burst", "d20_fire"),
    CommandInfo("jump", "Jump", "jumping"),
    CommandInfo("config show", "Settings", "config"),
    CommandInfo("help", "Help", "help"),
]


def _size(reply: Reply) -> int:
    fields = sum(len(f.name) + len(f.value) for f in reply.fields)
    return len(reply.title or "") + len(reply.description or "") + len(reply.footer or "") + fields


def test_the_commands_a_name_finds() -> None:
    def names(typed: str) -> list[str]:
        return [c.qualified_name for c in find_commands(CATALOG, COMMANDS, typed)]

    assert names("attaque") == names("attack") == names("/combat attaque") == ["combat attack"]
    assert names("voir") == ["character show", "combat show", "config show"]  # by their own last word
    assert names("combat") == ["combat open", "combat attack", "combat show"]  # a group
    assert names("lutte") == ["maneuver grapple"] and names("saut") == ["jump"]
    assert names("xyz") == [] and names("  ") == []


def test_each_system_sees_its_own_commands_and_the_others_behind_one_page() -> None:
    assert [system_of(c) for c in COMMANDS if system_of(c)] == ["d20", "ogl", "d20", "renove"]
    for ruleset, own, hidden in (("renove", "/saut", "/tir rafale"), ("ogl", "/manoeuvre lutte", "/saut")):
        first = help_reply(CATALOG, "fr", COMMANDS, ruleset=ruleset)
        pages = int((first.result or {})["pages"])
        replies = [help_reply(CATALOG, "fr", COMMANDS, page=n, ruleset=ruleset) for n in range(1, pages + 1)]
        assert replies[0].title == "Mêlée — Démarrer"
        assert replies[-1].title == "Mêlée — Autres systèmes" and f"`{hidden}`" in str(replies[-1].fields)
        body = str([r.fields for r in replies[:-1]])
        assert f"`{own}`" in body and f"`{hidden}`" not in body
        assert "Mêlée — Déroulé d'un combat" in [r.title for r in replies]
        assert all(_size(r) < PAGE_BUDGET for r in replies)


def test_one_command_shows_every_option() -> None:
    reply = help_reply(CATALOG, "fr", COMMANDS, only="attaque")
    assert reply.title == "/combat attaque"
    options = reply.fields[1].value
    assert options.splitlines()[0].startswith("**cible** (texte, obligatoire) — ")
    assert "le bot propose des valeurs pendant la frappe" in options
    assert "choix : Jambes (`jambes`)" in options and "de 0 à 100" in options
    english = help_reply(CATALOG, "en-US", COMMANDS, only="attack")
    assert english.title == "/combat attack" and "**target** (text, required) — Who is attacked" in str(
        english.fields
    )
    ogl_only = help_reply(CATALOG, "fr", COMMANDS, only="lutte")
    assert "Pour les combats en OGL seulement" in ogl_only.fields[0].value
    assert help_reply(CATALOG, "fr", COMMANDS, only="xyz").is_error
