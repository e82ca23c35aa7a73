"""The skill tests honour a server's house rules (``/regles importer``) at once, in the same process,
and a reset brings the base back; a server without house rules reads nothing more than before."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.services import house_rules
from bot.services.caller import Caller
from bot.services.config import config_cache
from bot.services.skill_tests.extended import ExtendedRequest, extended_check
from bot.services.skill_tests.group import GroupRequest, group_opposed_check
from bot.services.skill_tests.opposed import OpposeRequest, opposed_check
from bot.services.skill_tests.single import TestRequest, skill_test
from bot.services.skill_tests.tables import known_skill_names, skill_names_here

GUILD, OTHER_GUILD, CHANNEL = 720, 721, 42
TABLES = ("secret_tests", "opposed_skills", "extended_tests", "v1_standard_tests")


def caller(user_id: int, *, guild: int = GUILD, gm: bool = False) -> Caller:
    return Caller(user_id=user_id, guild_id=guild, channel_id=CHANNEL, locale="fr", manage_guild=gm)


ALICE, GM = caller(1), caller(3, gm=True)


@pytest.fixture
def app_rng() -> random.Random:
    return random.Random(11)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return {name: validate_file(DATA_DIR / f"{name}.json") for name in TABLES}


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


def _entry(ctx: AppContext, table: str, entry_id: str) -> dict[str, Any]:
    found = next(e for e in ctx.tables[table].entries if e["id"] == entry_id)
    return copy.deepcopy(found)


async def _import(ctx: AppContext, table: str, entries: list[dict[str, Any]], who: Caller = GM) -> None:
    data = json.dumps({"table": table, "entries": entries}, ensure_ascii=False).encode()

    async def read() -> bytes:
        return data

    reply = await house_rules.import_house_rules(ctx, who, filename="x.json", size=len(data), read=read)
    assert not reply.is_error and reply.result and reply.result["stored"], reply.description


async def _reset(ctx: AppContext, table: str) -> None:
    reply = await house_rules.reset_house_rules(ctx, GM, name=table)
    assert not reply.is_error and reply.result and reply.result["reset"], reply.description


async def _test(ctx: AppContext, skill: str, who: Caller = ALICE) -> dict[str, Any]:
    reply = await skill_test(ctx, who, TestRequest(carac="40", skill=skill, roll=10))
    assert not reply.is_error and reply.result is not None, reply.description
    return dict(reply.result)


CLIMB = {
    "id": "escalade",
    "skill": "Escalade",
    "skill_en": "Climb",
    "printed_item": "Escalade",
    "printed_position": 12,
    "asterisk": False,
    "always": True,
}


async def test_an_uploaded_secret_list_applies_to_the_next_test_and_a_reset_restores_the_base(
    ctx: AppContext,
) -> None:
    # Warm the process cache first: the import must clear it, not wait for its TTL.
    assert not (await _test(ctx, "Escalade"))["secret"]
    assert (await _test(ctx, "Fouille"))["secrecy"] == "always"
    search = _entry(ctx, "secret_tests", "fouille")
    search.update(skill="Fouille approfondie", skill_en="Thorough search")
    await _import(ctx, "secret_tests", [CLIMB, search])

    climb = await _test(ctx, "Escalade")
    assert climb["secret"] and climb["secrecy"] == "always"
    assert not (await _test(ctx, "Fouille"))["secret"]  # its entry now names another skill
    assert (await _test(ctx, "fouille approfondie"))["secret"]
    assert (await _test(ctx, "Évaluation"))["secret"]  # the base entries are kept
    # Another server still has the base list.
    assert not (await _test(ctx, "Escalade", caller(1, guild=OTHER_GUILD)))["secret"]

    await _reset(ctx, "secret_tests")
    assert not (await _test(ctx, "Escalade"))["secret"]
    assert (await _test(ctx, "Fouille"))["secret"]


async def test_a_player_secret_test_from_house_rules_goes_to_the_gm(ctx: AppContext) -> None:
    await _import(ctx, "secret_tests", [CLIMB])
    reply = await skill_test(ctx, ALICE, TestRequest(carac="40", skill="Climb", roll=10, owner_id=99))
    assert reply.kind == "test_secret" and reply.also  # the table sees only that a test was rolled
    assert reply.also[0].user_id == 99 and reply.also[0].reply.result["secret"]  # type: ignore[index]


async def test_uploaded_opposition_and_extended_tables_apply_at_once(ctx: AppContext) -> None:
    request = OpposeRequest(side_a="40", side_b="40", skill_a="Dissimulation")
    before = await opposed_check(ctx, ALICE, request)
    assert before.result is not None and before.result["skills"] == ["Dissimulation", "Perception"]
    row = _entry(ctx, "opposed_skills", "dissimulation_vs_perception")
    row.update(opposed_by="Vigilance", opposed_by_en="Alertness", opposed_by_id="vigilance")
    await _import(ctx, "opposed_skills", [row])
    after = await opposed_check(ctx, ALICE, request)
    assert after.result is not None and after.result["skills"] == ["Dissimulation", "Vigilance"]
    assert after.result["suggested_skill_b"]
    # A group test reads the same table.
    group = await group_opposed_check(
        ctx, ALICE, GroupRequest(side_a="40", side_b="40", skill_a="Dissimulation")
    )
    assert group.result is not None and group.result["skills"] == ["Dissimulation", "Vigilance"]

    extended = ExtendedRequest(carac="40", skill="Crochetage", rolls="1 1 1 1 1 1")
    assert (await extended_check(ctx, ALICE, extended)).result["test"]["max_attempts"] == 6  # type: ignore[index]
    lock = _entry(ctx, "extended_tests", "crochetage")
    lock.update(attempts=2, successes_needed=2)
    await _import(ctx, "extended_tests", [lock])
    result = (await extended_check(ctx, ALICE, extended)).result
    assert result is not None
    assert result["test"]["max_attempts"] == 2 and result["test"]["successes_needed"] == 2
    assert len(result["attempts"]) == 2

    await _reset(ctx, "opposed_skills")
    again = await opposed_check(ctx, ALICE, request)
    assert again.result is not None and again.result["skills"] == ["Dissimulation", "Perception"]


async def test_the_action_autocomplete_and_skill_names_follow_house_rules(ctx: AppContext) -> None:
    assert "Escalade" not in await skill_names_here(ctx, ALICE)
    await _import(ctx, "secret_tests", [CLIMB])
    assert "Escalade" in await skill_names_here(ctx, ALICE)
    assert "Escalade" not in await skill_names_here(ctx, caller(1, guild=OTHER_GUILD))
    assert "Escalade" not in known_skill_names(ctx)  # the base tables are untouched


@contextmanager
def selects(ctx: AppContext) -> Iterator[list[str]]:
    """The SELECT statements sent to the (real) database meanwhile."""
    engine = ctx.sessions.kw["bind"].sync_engine
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_a_server_without_house_rules_reads_nothing_more(ctx: AppContext) -> None:
    cache = config_cache(ctx)
    with selects(ctx) as cold:
        await _test(ctx, "Fouille")
    # One ConfigCache read: the settings (with the house-rule stamps, joined) and the channel's.
    assert cache.reads == 1 and len(cold) == 2
    assert "house_rule_tables" in cold[0] and "guild_settings" in cold[0]
    with selects(ctx) as warm:
        for skill in ("Fouille", "Escalade"):
            await _test(ctx, skill)
        await opposed_check(ctx, ALICE, OpposeRequest(side_a="40", side_b="40", skill_a="Fouille"))
        await extended_check(ctx, ALICE, ExtendedRequest(carac="40", skill="Crochetage", rolls="1"))
    assert warm == [] and cache.reads == 1


async def test_a_server_with_house_rules_reads_the_merged_table_once(ctx: AppContext) -> None:
    cache = config_cache(ctx)
    await _import(ctx, "secret_tests", [CLIMB])
    with selects(ctx) as first:
        assert (await _test(ctx, "Escalade"))["secret"]
    assert cache.reads == 1 and first  # the settings, the stamps; the merged document if not cached
    with selects(ctx) as warm:
        assert (await _test(ctx, "Escalade"))["secret"]
        assert not (await _test(ctx, "Natation"))["secret"]
    assert warm == [] and cache.reads == 1  # the stamp from the cache finds the merged document


async def test_another_process_sees_an_upload_once_its_cache_expires(ctx: AppContext) -> None:
    assert not (await _test(ctx, "Escalade"))["secret"]
    # The import clears THIS process's cache; put the stale entry back, as another process would
    # still have it, then let it expire.
    cache = config_cache(ctx)
    stale = dict(cache._guilds)
    await _import(ctx, "secret_tests", [CLIMB])
    cache._guilds.update(stale)
    assert not (await _test(ctx, "Escalade"))["secret"]  # within the TTL: the old list
    cache._clock = lambda: float("inf")
    assert (await _test(ctx, "Escalade"))["secret"]
