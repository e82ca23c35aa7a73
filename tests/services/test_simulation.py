"""``/simuler`` use cases on real databases: profiles, characters, presets, bounds, rendering."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.config import Settings
from bot.context import AppContext
from bot.data_loading import load_all
from bot.db.roll_log import RollLogWriter
from bot.db.session import create_engine, create_sessionmaker, upgrade
from bot.i18n import default_catalog
from bot.rules.combat.tables import CombatTables
from bot.services import characters as characters_svc
from bot.services import simulation as svc
from bot.services.caller import Caller

GUILD = 900
FULL = "CC=45 CT=30 F=35 E=40 Ag=35 Int=30 FM=30 Soc=30"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=5, locale=locale, manage_guild=gm)


GM, PLAYER = caller(1, gm=True), caller(2)


@pytest.fixture
async def ctx(database_url: str) -> AsyncIterator[AppContext]:
    engine = create_engine(database_url)
    await upgrade(engine)
    try:
        sessions = create_sessionmaker(engine)
        yield AppContext(
            settings=Settings(discord_token=None, database_url=database_url),
            sessions=sessions,
            catalog=default_catalog(),
            rng=random.Random(7),
            roll_log=RollLogWriter(sessions),
            tables=load_all(),
        )
    finally:
        await engine.dispose()


def _result(reply: Any) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    assert reply.result is not None
    return dict(reply.result)


def test_profiles_are_parsed_with_weapon_armour_and_dodge() -> None:
    tables = CombatTables.from_documents({n: t.document for n, t in load_all().items()})
    f = svc.parse_profile(tables, "CC=45 F=35 E=40 Ag=30 A=2 arme=epee armure=casque esquive=oui", "A")
    assert f.characteristics["CC"] == 45 and f.characteristics["A"] == 2
    assert (f.characteristics["BF"], f.characteristics["BE"]) == (3, 4)
    assert f.weapon == "epee" and f.dodge_skill and f.armour
    with pytest.raises(svc.SimulationRefusal) as err:
        svc.parse_profile(tables, "CC=45 Foo=3", "A")
    assert err.value.key == "simulation.error.profile_key"
    with pytest.raises(svc.SimulationRefusal) as err:
        svc.parse_profile(tables, "CC=45 arme=bazooka", "A")
    assert err.value.key == "simulation.error.unknown_weapon"


async def test_profiles_presets_and_characters(ctx: AppContext) -> None:
    made = await characters_svc.create_character(ctx, PLAYER, name="Albert", stats=FULL)
    assert not made.is_error, made.description
    reply = await svc.simulate_duel(ctx, GM, a="Albert", b="Orque", duels=3000, rng=random.Random(1))
    data = _result(reply)
    assert data["origins"] == ["character", "preset"]
    assert data["requested"] == 3000 and (data["duels"] == 3000 or data["stopped_by_time"])
    a, b = data["sides"]
    assert a["name"] == "Albert" and a["wins"] + b["wins"] + data["draws"] == data["duels"] > 0
    low, high = a["win_ci95"]
    assert low <= a["win_probability"] <= high
    assert "IC 95 %" in (reply.fields[0].value if reply.fields else "")
    profile = await svc.simulate_duel(
        ctx,
        caller(1, gm=True, locale="en-US"),
        a="CC=30 arme=fauchon_messer_braquemart",
        b="CC=30 arme=fauchon_messer_braquemart",
        duels=2000,
        combat_ws=False,
        one_sided=True,
        rng=random.Random(2),
    )
    data = _result(profile)
    assert data["sides"][0]["hit_probability_exact"] == "213/1000"
    assert data["options"]["combat_ws"] is False and "95 % CI" in profile.fields[0].value


async def test_bounds_rights_and_errors(ctx: AppContext) -> None:
    assert (await svc.simulate_duel(ctx, PLAYER, a="Orque", b="Troll", duels=10)).is_error
    too_many = await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=svc.DUELS_MAX + 1)
    assert too_many.is_error
    unknown = await svc.simulate_duel(ctx, GM, a="Nobody", b="Troll", duels=10)
    assert unknown.is_error and "Nobody" in (unknown.description or "")
    bad = await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=10, posture_a="dancing")
    assert bad.is_error
    # The budget counts building the tables too: build them first (cold, on a busy machine, that
    # alone can take 0.3 s), so this test does not depend on an earlier test having warmed them.
    assert not (await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=10, budget=600.0)).is_error
    timed = await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=svc.DUELS_MAX, budget=0.3)
    data = _result(timed)
    # the service reports that its budget, not the duel cap, stopped it (no wall-clock assertion)
    assert data["stopped_by_time"] and 0 < data["duels"] < data["requested"] == svc.DUELS_MAX
    capped = _result(await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=500, budget=600.0))
    assert capped["duels"] == capped["requested"] == 500 and not capped["stopped_by_time"]


async def test_autocomplete_lists_characters_and_presets(ctx: AppContext) -> None:
    await characters_svc.create_character(ctx, GM, name="Brunhilde", stats=FULL)
    names = [value for _, value in await svc.side_choices(ctx, GM, "")]
    assert "Brunhilde" in names and any("Troll" in n for n in names)


def test_warm_tables_are_released_when_simulations_stop() -> None:
    """A warm sampler holds tens of MiB: kept while GMs simulate, dropped after IDLE_SECONDS."""
    tables = CombatTables.from_documents({n: t.document for n, t in load_all().items()})
    a = svc.parse_profile(tables, "CC=45 F=35 E=40 Ag=30 arme=epee", "A")
    b = svc.parse_profile(tables, "CC=30 F=30 E=30 Ag=30 arme=hache_pic", "B")
    options = svc.Options(combat_ws=True)
    first, _ = svc.run_duels(tables, a, b, 2_000, options, rng=random.Random(1), budget=0.5)
    used = svc._last_used
    # Not idle yet: the same simulator is reused by the next request.
    assert not svc.release_idle(now=used + svc.IDLE_SECONDS - 1)
    again, _ = svc.run_duels(tables, a, b, 2_000, options, rng=random.Random(2), budget=0.5)
    assert again is first
    # Idle: everything is dropped, the next request builds anew.
    # (one second past: « _last_used + IDLE » minus « _last_used » may round to just under IDLE)
    assert svc.release_idle(now=svc._last_used + svc.IDLE_SECONDS + 1)
    assert not svc._SIMULATORS and not svc._SAMPLERS
    assert not svc.release_idle(now=svc._last_used + 10 * svc.IDLE_SECONDS)  # nothing left
    fresh, _ = svc.run_duels(tables, a, b, 2_000, options, rng=random.Random(3), budget=0.5)
    assert fresh is not first


def test_release_never_waits_for_a_running_request() -> None:
    svc._RUN_LOCK.acquire()
    try:
        assert not svc.release_idle(now=float("inf"))
    finally:
        svc._RUN_LOCK.release()


@pytest.mark.parametrize("fast", [True, False], ids=["numpy", "pure"])
async def test_a_cold_request_whose_budget_went_on_building_the_tables_still_answers(
    ctx: AppContext, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    """#25: the first /simuler after a start spent its budget building tables and answered « 0 duels
    … Victoire 0,0 % (IC 0 – 100 %) ». A budget already spent (0 s) on cold tables still runs a first
    batch: a real figure, never an empty one."""
    if fast and not svc.FAST_AVAILABLE:
        pytest.skip("numpy is not installed")
    monkeypatch.setattr(svc, "USE_FAST_PATH", fast)
    reply = await svc.simulate_duel(ctx, GM, a="Orque", b="Troll", duels=20_000, budget=0.0)
    data = _result(reply)
    assert data["duels"] >= 500, data["duels"]
    assert "IC 0 – 100" not in (reply.description or "") + str(reply.fields)
