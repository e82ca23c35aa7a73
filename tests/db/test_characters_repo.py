"""The character repository on real SQLite and PostgreSQL: isolation, active character, versions."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from bot.db import characters as repo
from bot.db.models import ActiveCharacter, Character, RollLog
from bot.db.session import create_engine, create_sessionmaker, upgrade
from bot.rules.sheets import SheetData, validate_characteristics

GUILD_A, GUILD_B = 111, 222
ALICE, BOB = 1, 2
STATS = {"CC": 45, "CT": 30, "F": 35, "E": 40, "Ag": 38, "Int": 31, "FM": 29, "Soc": 33}


def _data(name: str, **extra: object) -> SheetData:
    return SheetData(
        name=name, ruleset="renove", characteristics=validate_characteristics("renove", STATS), **extra
    )  # type: ignore[arg-type]


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(database_url)
    await upgrade(engine)
    try:
        yield create_sessionmaker(engine)
    finally:
        await engine.dispose()


async def _add(sessions: async_sessionmaker[AsyncSession], guild: int, owner: int, data: SheetData) -> int:
    async with sessions.begin() as session:
        row = repo.new_row(guild, owner, data)
        session.add(row)
        await session.flush()
        return row.id


async def test_round_trip_and_lookup_by_folded_name(sessions: async_sessionmaker[AsyncSession]) -> None:
    data = _data("Élise d'Altdorf", skills={"Esquive": 10}, talents=["Ambidextre"], weapons=["epee"])
    character_id = await _add(sessions, GUILD_A, ALICE, data)
    async with sessions() as session:
        sheet = await repo.find_character(session, GUILD_A, "  elise D'ALTDORF ")
    assert sheet is not None
    assert sheet.id == character_id and sheet.version == 1
    assert (
        sheet.characteristics["CC"] == 45 and sheet.characteristics["BF"] == 6
    )  # F 35: 3, +3 for a human (seed 000 l. 1240)
    assert sheet.skills == {"Esquive": 10} and sheet.talents == ["Ambidextre"]
    assert sheet.equipment == {"weapons": ["epee"], "armour": []}
    assert sheet.data() == data


async def test_servers_never_see_each_other(sessions: async_sessionmaker[AsyncSession]) -> None:
    a = await _add(sessions, GUILD_A, ALICE, _data("Albert"))
    b = await _add(sessions, GUILD_B, ALICE, _data("Albert"))  # same name, other server: allowed
    assert a != b
    async with sessions() as session:
        assert await repo.get_row(session, GUILD_B, a) is None
        found = await repo.find_character(session, GUILD_B, "Albert")
        assert found is not None and found.id == b
        visible = await repo.list_visible(session, GUILD_A, ALICE, gm=True)
        assert [r.id for r in visible] == [a]


async def test_name_is_unique_per_server(sessions: async_sessionmaker[AsyncSession]) -> None:
    from sqlalchemy.exc import IntegrityError

    await _add(sessions, GUILD_A, ALICE, _data("Albert"))
    with pytest.raises(IntegrityError):
        await _add(sessions, GUILD_A, BOB, _data("ALBERT"))
    async with sessions() as session:
        assert await repo.name_taken(session, GUILD_A, "albert")
        assert await repo.count_owned(session, GUILD_A, BOB, npc=False) == 0


async def test_visibility_player_own_gm_all(sessions: async_sessionmaker[AsyncSession]) -> None:
    await _add(sessions, GUILD_A, ALICE, _data("Albert"))
    await _add(sessions, GUILD_A, BOB, _data("Bertrand"))
    await _add(sessions, GUILD_A, 99, _data("Gork", is_npc=True))
    async with sessions() as session:
        assert [r.name for r in await repo.list_visible(session, GUILD_A, ALICE, gm=False)] == ["Albert"]
        gm_view = [r.name for r in await repo.list_visible(session, GUILD_A, 99, gm=True)]
        assert gm_view == ["Gork", "Albert", "Bertrand"]  # own first, then the rest by name
        assert [r.name for r in await repo.list_visible(session, GUILD_A, 99, gm=True, search="ber")] == [
            "Bertrand",  # starts with what was typed
            "Albert",
        ]
        # LIKE wildcards typed by a user match literally.
        assert await repo.list_visible(session, GUILD_A, 99, gm=True, search="%") == []


async def test_active_character_and_delete_cascade(sessions: async_sessionmaker[AsyncSession]) -> None:
    first = await _add(sessions, GUILD_A, ALICE, _data("Albert"))
    second = await _add(sessions, GUILD_A, ALICE, _data("Anna"))
    async with sessions.begin() as session:
        await repo.set_active(session, GUILD_A, ALICE, first)
        await repo.set_active(session, GUILD_A, ALICE, second)
    async with sessions() as session:
        active = await repo.get_active_character(session, GUILD_A, ALICE)
        assert active is not None and active.name == "Anna"
        assert await repo.get_active_character(session, GUILD_B, ALICE) is None
    async with sessions.begin() as session:
        row = await repo.get_row(session, GUILD_A, second)
        assert row is not None
        await repo.delete_row(session, row)
    async with sessions() as session:
        assert await repo.get_active_character(session, GUILD_A, ALICE) is None
        assert (await session.scalars(select(ActiveCharacter))).all() == []
        assert await repo.get_row(session, GUILD_A, first) is not None


async def test_version_guards_a_stale_write(sessions: async_sessionmaker[AsyncSession]) -> None:
    character_id = await _add(sessions, GUILD_A, ALICE, _data("Albert"))
    async with sessions() as first, sessions() as second:
        row1 = await repo.get_row(first, GUILD_A, character_id)
        row2 = await repo.get_row(second, GUILD_A, character_id)
        assert row1 is not None and row2 is not None
        row1.notes = "first"
        await first.commit()
        row2.notes = "second"
        with pytest.raises(StaleDataError):
            await second.commit()
    async with sessions() as session:
        row = await session.get(Character, character_id)
        assert row is not None and row.notes == "first" and row.version == 2


async def test_recent_rolls_filter_and_secret(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions.begin() as session:
        for index in range(5):
            session.add(
                RollLog(
                    guild_id=GUILD_A,
                    channel_id=10 + index % 2,
                    user_id=ALICE if index not in (2, 4) else BOB,
                    character_id=7 if index < 2 else None,
                    kind="roll",
                    expression=f"{index + 1}d6",
                    total=index,
                    secret=index in (0, 4),
                    result={},
                )
            )
        session.add(
            RollLog(guild_id=GUILD_B, channel_id=10, user_id=ALICE, kind="roll", expression="x", result={})
        )
    async with sessions() as session:
        by_char = await repo.recent_rolls(session, GUILD_A, character_id=7)
        assert sorted(r.expression for r in by_char) == ["1d6", "2d6"]
        channel = await repo.recent_rolls(session, GUILD_A, channel_id=10, secrets=False)
        # 1d6 is Alice's own secret and 5d6 Bob's: a player's history shows neither (the GM's does).
        assert sorted(r.expression for r in channel) == ["3d6"]
        assert len(await repo.recent_rolls(session, GUILD_A, channel_id=10)) == 3
        assert len(await repo.recent_rolls(session, GUILD_A, channel_id=10, limit=1, offset=2)) == 1
