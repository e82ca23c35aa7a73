"""Who may do what, as a table: (actor, action, expected).

Actors: a player (bob), the owner of the sheet "Albert" (alice), the GM (gm, role "MJ"), a
server manager (carol, role "Admin" with Manage Server, and the server's owner), and a GM of
ANOTHER server (zoe) the bot is also in. A refusal is an ephemeral error in the actor's
language and leaves the database as it was. A row whose command is not synced yet is skipped,
so the table grows as commands land.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from bot.emulator.client import Player, Result, Table, Upload

from .conftest import check_since
from .support import Harness, dump, dump_diff, embed_text, language_problems, outcome_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPO = Path(__file__).resolve().parents[2]
STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
ALLOWED, REFUSED = "allowed", "refused"
SEES, BLIND = "sees", "blind"


class World:
    def __init__(self, harness: Harness) -> None:
        self.h = harness
        self.other = Table(harness.emu, harness.emu.guilds[harness.other_guild_id])  # type: ignore[attr-defined]
        self.counter = 0

    def actor(self, who: str) -> Player:
        if who == "zoe":
            return self.other.user("zoe")
        locale = {"bob": "en-US", "carol": "en-GB"}.get(who, "fr")
        return self.h.user(who, locale=locale)

    def fresh_name(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"


class GlobalHarness(Harness):
    """Commands synced globally (no development server) so a second server has them too."""

    def bot_env(self) -> dict[str, str]:
        env = super().bot_env()
        env.pop("DEV_GUILD_ID", None)
        return env


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    harness = GlobalHarness(tmp_path_factory.mktemp("rights"), env={"MELEE_RATE_LIMITS": "off"})
    other = harness.emu.add_guild(
        "Autre Table", roles=(("MJ", 0),), members=(("zoe", ["MJ"]), ("alice", [])), owner="zoe"
    )
    harness.other_guild_id = other.id  # type: ignore[attr-defined]
    try:
        await harness.start()
        await harness.emu.wait_until(lambda: harness.emu.commands.get(None), what="global commands")
        created = await harness.user("alice").slash("perso creer", nom="Albert", caracs=STATS)
        assert created.embed["title"] == "📜 Albert"
        yield World(harness)
    finally:
        await harness.close()
    problems = harness.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def _house_rules() -> bytes:
    base = json.loads((REPO / "data" / "weapons_melee.json").read_text(encoding="utf-8"))
    return json.dumps({"table": "weapons_melee", "entries": base["entries"][:1]}).encode()


Action = Callable[[World, Player], Awaitable[Result]]


def _en(player: Player) -> bool:
    return player.locale.startswith("en")


async def config_ruleset(world: World, player: Player) -> Result:
    if _en(player):
        return await player.slash("config ruleset", ruleset="renove")  # the default: other rows rely on it
    return await player.slash("config systeme", systeme="renove")


async def sheet_create(world: World, player: Player) -> Result:
    name = world.fresh_name("Pj")
    if _en(player):
        return await player.slash("character create", name=name, stats=STATS)
    return await player.slash("perso creer", nom=name, caracs=STATS)


async def npc_create(world: World, player: Player) -> Result:
    name = world.fresh_name("Pnj")
    if _en(player):
        return await player.slash("character create", name=name, stats=STATS, npc=True)
    return await player.slash("perso creer", nom=name, caracs=STATS, pnj=True)


async def sheet_edit(world: World, player: Player) -> Result:
    if _en(player):
        return await player.slash("character edit", character="Albert", notes=world.fresh_name("note"))
    return await player.slash("perso modifier", personnage="Albert", notes=world.fresh_name("note"))


async def sheet_delete(world: World, player: Player) -> Result:
    # Asking is the right being checked; the confirmation is not clicked, the sheet stays.
    if _en(player):
        return await player.slash("character delete", character="Albert")
    return await player.slash("perso supprimer", personnage="Albert")


async def rules_import(world: World, player: Player) -> Result:
    upload = Upload("maison.json", _house_rules(), "application/json")
    result = await (
        player.slash("rules import", file=upload)
        if _en(player)
        else player.slash("regles importer", fichier=upload)
    )
    await result.wait_response(timeout=10)
    return result


ACTIONS: dict[str, tuple[str, Action]] = {
    "config_ruleset": ("config ruleset", config_ruleset),
    "sheet_create": ("character create", sheet_create),
    "npc_create": ("character create", npc_create),
    "sheet_edit_albert": ("character edit", sheet_edit),
    "sheet_delete_albert": ("character delete", sheet_delete),
    "rules_import": ("rules import", rules_import),
}

# (actor, action, expected). zoe acts in her own server: her rights there, and no reach into ours.
RIGHTS = [
    ("bob", "config_ruleset", REFUSED),
    ("alice", "config_ruleset", REFUSED),
    ("gm", "config_ruleset", ALLOWED),
    ("carol", "config_ruleset", ALLOWED),
    ("zoe", "config_ruleset", ALLOWED),
    ("bob", "sheet_create", ALLOWED),
    ("alice", "sheet_create", ALLOWED),
    ("gm", "sheet_create", ALLOWED),
    ("carol", "sheet_create", ALLOWED),
    ("zoe", "sheet_create", ALLOWED),
    ("bob", "npc_create", REFUSED),
    ("alice", "npc_create", REFUSED),
    ("gm", "npc_create", ALLOWED),
    ("carol", "npc_create", ALLOWED),
    ("bob", "sheet_edit_albert", REFUSED),
    ("alice", "sheet_edit_albert", ALLOWED),
    ("gm", "sheet_edit_albert", ALLOWED),
    ("carol", "sheet_edit_albert", ALLOWED),
    ("zoe", "sheet_edit_albert", REFUSED),
    ("bob", "sheet_delete_albert", REFUSED),
    ("alice", "sheet_delete_albert", ALLOWED),
    ("gm", "sheet_delete_albert", ALLOWED),
    ("carol", "sheet_delete_albert", ALLOWED),
    ("zoe", "sheet_delete_albert", REFUSED),
    ("bob", "rules_import", REFUSED),
    ("alice", "rules_import", REFUSED),
    ("gm", "rules_import", ALLOWED),
    ("carol", "rules_import", ALLOWED),
    ("zoe", "rules_import", ALLOWED),
]


def _synced(world: World, qualified: str) -> bool:
    root, *subs = qualified.split()
    for command in world.h.emu.commands.get(None, []):
        if command["name"] == root:
            options = command.get("options") or []
            return all(any(o["name"] == s and o["type"] in (1, 2) for o in options) for s in subs)
    return False


@pytest.mark.parametrize(("actor", "action", "expected"), RIGHTS, ids=[f"{a}-{b}" for a, b, _ in RIGHTS])
async def test_rights(world: World, actor: str, action: str, expected: str) -> None:
    command, run = ACTIONS[action]
    if not _synced(world, command):
        pytest.skip(f"/{command} is not synced yet")
    mark = world.h.checkpoint()
    player = world.actor(actor)
    before = dump(world.h.db_path)
    result = await run(world, player)
    outcome = outcome_of(world.h.emu.messages, result.interaction)
    assert outcome.answered, result
    text = outcome.text
    assert not language_problems(text, player.locale), (language_problems(text, player.locale), text)
    if expected == REFUSED:
        assert outcome.refused, f"{actor} was allowed to {action}: {text}"
        assert outcome.main is not None and outcome.main.ephemeral
        assert embed_text(outcome.main.embeds[0]).strip()
        diff = dump_diff(before, dump(world.h.db_path))
        assert not diff, f"a refused {action} wrote: {diff}"
    else:
        assert not outcome.refused, f"{actor} was refused {action}: {text}"
    check_since(world.h, mark)


# Secret results: alice makes a secret test; who can read its result?
SECRETS = [("alice", BLIND), ("bob", BLIND), ("gm", BLIND), ("carol", SEES), ("zoe", BLIND)]


@pytest.mark.parametrize(("actor", "expected"), SECRETS, ids=[a for a, _ in SECRETS])
async def test_who_sees_a_secret_result(world: World, actor: str, expected: str) -> None:
    if not _synced(world, "test"):
        pytest.skip("/test is not synced yet")
    mark = world.h.checkpoint()
    alice = world.actor("alice")
    roll = 41 + [a for a, _ in SECRETS].index(actor)  # a roll no other row used
    notice = await alice.slash("test", competence="Perception", carac="80", jet=roll)
    assert not outcome_of(world.h.emu.messages, notice.interaction).refused
    marker = f"{roll:02d} sous 80"
    carol = world.actor("carol")
    await world.h.emu.wait_until(
        lambda: any(marker in embed_text(e) for m in carol.dm_messages for e in m.embeds),
        what="the secret result in the owner's DMs",
    )
    seen = [
        m
        for m in world.actor(actor).visible_messages()
        if any(marker in embed_text(e) or f"{roll:02d} under 80" in embed_text(e) for e in m.embeds)
    ]
    assert bool(seen) == (expected == SEES), (actor, [embed_text(e) for m in seen for e in m.embeds])
    check_since(world.h, mark)
