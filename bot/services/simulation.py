"""``/simuler`` (``/simulate``): Monte-Carlo duels between two characters, NPC presets or raw profiles.

A GM tool. Each side is, in this order: a raw profile (``"CC=45 F=35 E=40 Ag=30 A=1 arme=epee
armure=…"``), a character of the server by name, or a creature preset of ``creatures_bf``. The
duels run in a worker thread (the event loop keeps serving other interactions) under
:func:`bot.rules.renove.simulation.simulate`, bounded in number (:data:`DUELS_MAX`) and in time
(:data:`BUDGET_SECONDS`): the answer says how many were done. Simulators are kept (a few, per
matchup and tables) so asking again is fast.

Readings: a character of a playable race has the seed's +3 BF/BE on the sheet (as in fights); a raw
profile is taken as typed (BF = F // 10 and BE = E // 10 unless given); a preset takes the quick NPC
defaults of the fight service with the preset's BF (BE = BF). The Esquive skill lets a side dodge.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import CharacterSheet, find_character
from bot.db.repositories import get_server_config
from bot.i18n import language_of, number
from bot.rules.combat.basics import RefusedError
from bot.rules.combat.tables import CombatTables, TableError
from bot.rules.renove.damage import ArmourError, build_armour
from bot.rules.renove.simulation import (
    MAX_DUELS,
    DuelSimulator,
    Fighter,
    Options,
    Tally,
    wilson,
)
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import QUICK_NPC_DEFAULTS, QUICK_NPC_WEAPON, tables_for
from bot.services.fights.roster import find_preset, preset_choices
from bot.services.talent_book import book_of
from bot.ui.reply import Colour, Field, Reply, error_reply

DUELS_MAX: Final = MAX_DUELS
DUELS_DEFAULT: Final = 20_000
BUDGET_SECONDS: Final = 2.0
PROFILE_MAX: Final = 300
POSTURES: Final = ("normale", "prudente", "temeraire", "defensive", "suicidaire")
_CACHE_SIZE: Final = 4
# A warm sampler holds tens of MiB of tables (about 86 MiB after six requests on one matchup): only
# the most recent ones are kept, so /simuler cannot grow the bot's memory without bound.
_SAMPLERS_KEPT: Final = 2
_SIMULATORS: OrderedDict[tuple[Any, ...], DuelSimulator] = OrderedDict()
_SAMPLERS: OrderedDict[int, Any] = OrderedDict()  # id(simulator) → FastSampler, most recent last
# One run at a time: the simulators and samplers memoise as they go and are not thread-safe, and two
# 2-second runs side by side would only halve each other's duels.
_RUN_LOCK = threading.Lock()
# Simulations run in an executor of their own, never in the event loop's default pool (where
# aiohttp's DNS look-ups and other I/O wait): one worker (the runs share one lock anyway) and a
# short queue; past it a request is refused at once, « simulateur occupé », before anything waits.
QUEUE_MAX: Final = 3  # running + waiting, in this process
_EXECUTOR: ThreadPoolExecutor | None = None
_QUEUED = 0


def _executor() -> ThreadPoolExecutor:
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = ThreadPoolExecutor(1, thread_name_prefix="simulator")
    return _EXECUTOR


def shutdown_executor() -> None:
    global _EXECUTOR
    if _EXECUTOR is not None:
        _EXECUTOR.shutdown(wait=False, cancel_futures=True)
        _EXECUTOR = None


IDLE_SECONDS: Final = 600.0  # warm tables are dropped after this long without a /simuler
_last_used = 0.0
# The vectorised sampler (numpy; the pure sampler stays for tests and fallback) is imported on first
# use: numpy costs about 10 MiB and 0.1 s at start-up (issue #11), paid on the first /simuler only.
FAST_AVAILABLE: Final = importlib.util.find_spec("numpy") is not None
# The numpy sampler (conditions as entry lists, every draw an alias-table lookup) samples the same
# tables as the pure one, several times faster once warm (benchmarks/bench_simulator.py). The pure
# sampler stays the reference of the tests and the fallback when numpy is missing or a matchup has
# a condition the sampler's arrays cannot follow (``Unsupported``).
USE_FAST_PATH: Final = True
_TOKEN = re.compile(r"([A-Za-zéèêÉ_]+)\s*[=:]\s*([^\s=]+)")
_STAT_ALIASES: Final = {
    "cc": "CC",
    "ws": "CC",
    "f": "F",
    "s": "F",
    "e": "E",
    "t": "E",
    "ag": "Ag",
    "a": "A",
    "bf": "BF",
    "sb": "BF",
    "be": "BE",
    "tb": "BE",
    "fm": "FM",
    "wp": "FM",
    "ct": "CT",
}
_WEAPON_KEYS: Final = frozenset({"arme", "weapon"})
_ARMOUR_KEYS: Final = frozenset({"armure", "armour", "armor"})
_DODGE_KEYS: Final = frozenset({"esquive", "dodge"})
_YES: Final = frozenset({"oui", "yes", "1", "true", "o", "y"})


class SimulationRefusal(Exception):
    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class Side:
    fighter: Fighter
    origin: str  # profile | character | preset


def _resolve_weapon(tables: CombatTables, text: str) -> str:
    """A weapon of the tables; a polearm's profile (seed l. 293) as ``hallebarde(pique)`` or
    ``hallebarde:pique`` gives the profile's weapon, the polearm alone its first profile (reading)."""
    base, profile = _profile_parts(text)
    wid = _resolve_one(tables, base)
    combines = tables.weapons[wid].combines
    if not combines:
        if profile is not None:
            raise SimulationRefusal("simulation.error.unknown_weapon", name=text[:40])
        return wid
    if profile is None:
        return combines[0]
    wanted = fold(profile.replace("_", " "))
    for pid in combines:
        names = fold(tables.weapons[pid].name), fold(pid.replace("_", " "))
        if wanted in names or names[0].split()[0] == wanted:
            return pid
    raise SimulationRefusal("simulation.error.unknown_weapon", name=text[:40])


def _profile_parts(text: str) -> tuple[str, str | None]:
    """``hallebarde(pique)`` / ``hallebarde:pique`` → (``hallebarde``, ``pique``)."""
    match = re.fullmatch(r"\s*(.+?)\s*(?:\((.+)\)|:(.+))\s*", text)
    if match is None:
        return text, None
    return match.group(1), (match.group(2) or match.group(3)).strip()


def _resolve_one(tables: CombatTables, text: str) -> str:
    if text in tables.weapons:
        return text
    wanted = fold(text.replace("_", " "))
    for weapon in tables.weapons.values():
        if wanted in (fold(weapon.name), fold(weapon.id.replace("_", " "))):
            return weapon.id
    starts = [w.id for w in tables.weapons.values() if fold(w.name).startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    raise SimulationRefusal("simulation.error.unknown_weapon", name=text[:40])


def _resolve_piece(tables: CombatTables, text: str) -> str:
    pieces = tables.armour.pieces
    if text in pieces:
        return text
    wanted = fold(text.replace("_", " "))
    for piece in pieces.values():
        if wanted in (
            fold(piece.name),
            fold(piece.id.replace("_", " ")),
            fold(f"{piece.family} {piece.name}"),
            *(fold(a) for a in piece.aliases),  # the former short names, first match as before
            *(fold(f"{piece.family} {a}") for a in piece.aliases),
        ):
            return piece.id
    raise SimulationRefusal("simulation.error.unknown_armour", name=text[:40])


def _melee_weapon(tables: CombatTables, weapons: list[str]) -> str:
    for text in weapons:
        try:
            wid = _resolve_weapon(tables, text)
        except SimulationRefusal:
            continue
        weapon = tables.weapons[wid]
        if weapon.kind == "melee" and weapon.damage is not None:
            return wid
    return "mains_nues" if "mains_nues" in tables.weapons else QUICK_NPC_WEAPON


def _armour(tables: CombatTables, pieces: list[str]) -> dict[str, Any]:
    if not pieces:
        return {}
    try:
        return build_armour(tables, [_resolve_piece(tables, p) for p in pieces])
    except ArmourError as exc:
        raise SimulationRefusal("simulation.error.armour", reason=exc.reason) from exc


def parse_profile(tables: CombatTables, text: str, name: str) -> Fighter:
    """``"CC=45 F=35 E=40 Ag=30 A=1 arme=epee armure=cuir_bouilli_veste+casque esquive=oui"``."""
    stats: dict[str, int] = dict(QUICK_NPC_DEFAULTS)
    weapon = QUICK_NPC_WEAPON
    pieces: list[str] = []
    dodge = False
    matched = _TOKEN.findall(text)
    if not matched:
        raise SimulationRefusal("simulation.error.profile", text=text[:60])
    for raw_key, value in matched:
        key = fold(raw_key)
        if key in _WEAPON_KEYS:
            weapon = _resolve_weapon(tables, value)
        elif key in _ARMOUR_KEYS:
            pieces = [p for p in re.split(r"[+,;]", value) if p]
        elif key in _DODGE_KEYS:
            dodge = fold(value) in _YES
        elif key in _STAT_ALIASES:
            if not re.fullmatch(r"-?[0-9]{1,3}", value):
                raise SimulationRefusal("simulation.error.profile_value", name=raw_key, value=value[:10])
            stats[_STAT_ALIASES[key]] = int(value)
        else:
            raise SimulationRefusal("simulation.error.profile_key", name=raw_key[:20])
    stats.setdefault("BF", stats["F"] // 10)
    stats.setdefault("BE", stats["E"] // 10)
    return Fighter(name, stats, weapon, _armour(tables, pieces), dodge_skill=dodge, npc=True)


def _from_sheet(tables: CombatTables, docs: Mapping[str, Any], sheet: CharacterSheet) -> Fighter:
    stats = {k: int(v) for k, v in sheet.characteristics.items()}
    stats.setdefault("BF", stats.get("F", 0) // 10)
    stats.setdefault("BE", stats.get("E", 0) // 10)
    stats.setdefault("A", 1)  # the sheet's BF and BE already carry the playable race's +3
    weapon = _melee_weapon(tables, list(sheet.equipment.get("weapons", [])))
    armour = _armour(tables, list(sheet.equipment.get("armour", [])))
    dodge = any(fold(s) in ("esquive", "dodge") for s in sheet.skills)
    talents = book_of(docs.get("talents")).ids(sheet.talents)  # any name or alias of the book
    return Fighter(sheet.name, stats, weapon, armour, talents, dodge_skill=dodge, npc=sheet.is_npc)


def _from_preset(preset: Mapping[str, Any], en: bool) -> Fighter:
    stats = dict(QUICK_NPC_DEFAULTS)
    stats["BF"] = int(preset["BF"] or stats["F"] // 10)
    stats["BE"] = int(preset.get("BE") or stats["BF"])
    name = str(preset["name_en"] if en else preset["name"])
    return Fighter(name, stats, QUICK_NPC_WEAPON, npc=True)


async def _side(
    session: Any,
    ctx: AppContext,
    caller: Caller,
    tables: CombatTables,
    docs: Mapping[str, Any],
    text: str,
    label: str,
) -> Side:
    text = " ".join(text.split())
    if "=" in text:
        return Side(parse_profile(tables, text, label), "profile")
    assert caller.guild_id is not None
    sheet = await find_character(session, caller.guild_id, text)
    if sheet is not None:
        return Side(_from_sheet(tables, docs, sheet), "character")
    preset = find_preset(docs, text)
    if preset is not None:
        return Side(_from_preset(preset, language_of(caller.locale) == "en"), "preset")
    raise SimulationRefusal("simulation.error.unknown_side", name=text[:60])


def _with_posture(fighter: Fighter, posture: str | None, option: str | None) -> Fighter:
    if not posture:
        return fighter
    if posture not in POSTURES:
        raise SimulationRefusal("simulation.error.posture", posture=posture[:20])
    if posture == "suicidaire" and option is None:
        option = "attaque"
    return Fighter(
        fighter.name,
        fighter.characteristics,
        fighter.weapon,
        fighter.armour,
        fighter.talents,
        posture,
        option if posture == "suicidaire" else None,
        fighter.dodge_skill,
        fighter.npc,
    )


def _simulator(tables: CombatTables, a: Fighter, b: Fighter, options: Options) -> DuelSimulator:
    key = (id(tables), repr(a), repr(b), options)
    simulator = _SIMULATORS.get(key)
    if simulator is None:
        simulator = DuelSimulator(tables, a, b, options)
        _SIMULATORS[key] = simulator
        while len(_SIMULATORS) > _CACHE_SIZE:
            _, dropped = _SIMULATORS.popitem(last=False)
            _SAMPLERS.pop(id(dropped), None)
    else:
        _SIMULATORS.move_to_end(key)
    return simulator


def run_duels(
    tables: CombatTables,
    a: Fighter,
    b: Fighter,
    duels: int,
    options: Options,
    *,
    rng: random.Random | None = None,
    budget: float = BUDGET_SECONDS,
    fast: bool | None = None,
) -> tuple[DuelSimulator, Tally]:
    """Blocking: build (or reuse) the simulator and sample within ``budget`` seconds.

    ``fast`` (default :data:`USE_FAST_PATH`) samples with the vectorised sampler of
    :mod:`bot.services.simulation_fast` (same tables, numpy generator seeded from ``rng``); otherwise,
    or when that sampler cannot follow the matchup, the pure sampler of :mod:`bot.rules.renove.simulation`.
    """
    global _last_used
    with _RUN_LOCK:
        simulator, tally = _run_locked(tables, a, b, duels, options, rng=rng, budget=budget, fast=fast)
        _last_used = time.monotonic()
    return simulator, tally


def release_idle(*, idle: float = IDLE_SECONDS, now: float | None = None) -> bool:
    """Drop the kept simulators and samplers once /simuler has been idle for ``idle`` seconds (a warm
    sampler holds tens of MiB); True when something was dropped. Never waits for a running request."""
    if not _RUN_LOCK.acquire(blocking=False):
        return False
    try:
        if not _SIMULATORS or (now if now is not None else time.monotonic()) - _last_used < idle:
            return False
        _SIMULATORS.clear()
        _SAMPLERS.clear()
        return True
    finally:
        _RUN_LOCK.release()


def _run_locked(
    tables: CombatTables,
    a: Fighter,
    b: Fighter,
    duels: int,
    options: Options,
    *,
    rng: random.Random | None,
    budget: float,
    fast: bool | None,
) -> tuple[DuelSimulator, Tally]:
    started = time.perf_counter()
    simulator = _simulator(tables, a, b, options)
    rng = rng or random.Random()
    duels = min(max(1, duels), DUELS_MAX)
    if FAST_AVAILABLE and (USE_FAST_PATH if fast is None else fast):
        from bot.services.simulation_fast import FastSampler, Unsupported, numpy_seed

        sampler = _SAMPLERS.get(id(simulator))
        if sampler is None or sampler.sim is not simulator:
            sampler = _SAMPLERS[id(simulator)] = FastSampler(simulator)
            while len(_SAMPLERS) > _SAMPLERS_KEPT:
                _SAMPLERS.popitem(last=False)
        _SAMPLERS.move_to_end(id(simulator))
        try:
            tally = sampler.run(duels, numpy_seed(rng), deadline=started + budget)
        except Unsupported:
            _SAMPLERS.pop(id(simulator), None)
            tally = simulator.run(duels, rng, deadline=started + budget)
    else:
        tally = simulator.run(duels, rng, deadline=started + budget)
    tally.seconds = time.perf_counter() - started
    return simulator, tally


def _pct(locale: str, x: float) -> str:
    """« 97,2 % » in French, "97.2 %" in English."""
    return number(locale, 100 * x, "0.0") + " %"


def _fixed(locale: str, x: float | None, pattern: str = "0.00") -> str:
    return "—" if x is None else number(locale, x, pattern)


def summary(simulator: DuelSimulator, tally: Tally) -> dict[str, Any]:
    """The figures of a run (the reply's ``result`` payload)."""
    n = max(1, tally.duels)
    decided = tally.wins[0] + tally.wins[1]
    out: dict[str, Any] = {
        "duels": tally.duels,
        "seconds": round(tally.seconds, 4),
        "duels_per_second": round(tally.duels / tally.seconds) if tally.seconds > 0 else None,
        "stopped_by_time": tally.stopped_by_time,
        "draws": tally.draws,
        "mean_rounds_to_end": decided and tally.rounds_total / decided,
        "sides": [],
        "options": {
            "combat_ws": simulator.options.combat_ws,
            "one_sided": simulator.options.one_sided,
            "mort_subite": simulator.options.mort_subite,
            "max_rounds": simulator.options.max_rounds,
        },
    }
    for side in (0, 1):
        f = simulator.fighters[side]
        p_hit = simulator.hit_probability(side)
        crits = tally.criticals[side]
        total_crits = sum(crits.values())
        low, high = wilson(tally.wins[side], tally.duels)
        out["sides"].append(
            {
                "name": f.name,
                "weapon": f.weapon,
                "posture": f.posture,
                "wins": tally.wins[side],
                "win_probability": tally.wins[side] / n,
                "win_ci95": [low, high],
                "hit_probability_first_attack": float(p_hit),
                "hit_probability_exact": str(p_hit),
                "rounds_to_hit_expected": (1 / float(p_hit)) if p_hit else None,
                "mean_rounds_to_first_hit": (
                    tally.first_hit_sum[side] / tally.first_hit_count[side]
                    if tally.first_hit_count[side]
                    else None
                ),
                "criticals": {str(v): crits[v] for v in sorted(crits)},
                "mean_critical": (sum(v * c for v, c in crits.items()) / total_crits)
                if total_crits
                else None,
            }
        )
    return out


def _critical_line(crits: Mapping[str, int]) -> str:
    total = sum(crits.values())
    if not total:
        return "—"
    return " · ".join(f"{v}: {100 * c / total:.0f} %" for v, c in crits.items() if 100 * c / total >= 0.5)


def render(ctx: AppContext, locale: str, data: dict[str, Any]) -> Reply:
    t = ctx.catalog.t
    a, b = data["sides"]
    fields = []
    for s in (a, b):
        low, high = s["win_ci95"]
        first = s["mean_rounds_to_first_hit"]
        expected = s["rounds_to_hit_expected"]
        lines = [
            t(
                locale,
                "simulation.win",
                p=_pct(locale, s["win_probability"]),
                low=_pct(locale, low),
                high=_pct(locale, high),
            ),
            t(
                locale,
                "simulation.hit",
                p=_pct(locale, s["hit_probability_first_attack"]),
                rounds=_fixed(locale, expected),
            ),
            t(locale, "simulation.first_hit", rounds=_fixed(locale, first)),
            t(locale, "simulation.criticals", values=_critical_line(s["criticals"])),
        ]
        fields.append(Field(name=f"{s['name']} ({s['weapon']}, {s['posture']})", value="\n".join(lines)))
    mean_end = data["mean_rounds_to_end"]
    description = t(
        locale,
        "simulation.description",
        duels=number(locale, data["duels"], "#,##0"),
        draws=_pct(locale, data["draws"] / max(1, data["duels"])),
        rounds=_fixed(locale, mean_end or None),
    )
    if data["stopped_by_time"]:
        description += "\n" + t(locale, "simulation.stopped", seconds=_fixed(locale, data["seconds"], "0.0"))
    rule = "simulation.rule.combat_ws" if data["options"]["combat_ws"] else "simulation.rule.plain"
    footer = t(locale, rule) + " · " + t(locale, "simulation.footer", seconds=_fixed(locale, data["seconds"]))
    return Reply(
        title=t(locale, "simulation.title", a=a["name"], b=b["name"]),
        description=description,
        fields=tuple(fields),
        footer=footer,
        colour=Colour.NEUTRAL,
        result=data,
        kind="simulation",
    )


async def simulate_duel(
    ctx: AppContext,
    caller: Caller,
    *,
    a: str,
    b: str,
    duels: int = DUELS_DEFAULT,
    posture_a: str | None = None,
    posture_b: str | None = None,
    combat_ws: bool = True,
    one_sided: bool = False,
    mort_subite: bool = False,
    rng: random.Random | None = None,
    budget: float = BUDGET_SECONDS,
    before_run: Callable[[], Awaitable[object]] | None = None,
) -> Reply:
    """``before_run`` is awaited once the request is valid, just before the duels (the cog defers
    there, so a refusal is still answered privately)."""
    t, locale = ctx.catalog.t, caller.locale
    if caller.guild_id is None:
        return error_reply(t(locale, "simulation.error.guild_only"))
    if not 1 <= duels <= DUELS_MAX:
        return error_reply(t(locale, "simulation.error.duels", max=DUELS_MAX))
    try:
        async with ctx.sessions() as session:
            config = await get_server_config(session, caller.guild_id)
            if not caller.is_gm(config):
                return error_reply(t(locale, "simulation.error.gm_only"))
            tables, docs = await tables_for(session, ctx, caller.guild_id)
            side_a = await _side(session, ctx, caller, tables, docs, a, "A")
            side_b = await _side(session, ctx, caller, tables, docs, b, "B")
        fa = _with_posture(side_a.fighter, posture_a, None)
        fb = _with_posture(side_b.fighter, posture_b, None)
        options = Options(combat_ws=combat_ws, one_sided=one_sided, mort_subite=mort_subite)
        global _QUEUED
        if _QUEUED >= QUEUE_MAX:
            return error_reply(t(locale, "simulation.error.busy", queued=_QUEUED))
        _QUEUED += 1
        try:
            if before_run is not None:
                await before_run()
            run = functools.partial(
                run_duels,
                tables,
                fa,
                fb,
                duels,
                options,
                rng=rng or random.Random(ctx.rng.random()),
                budget=budget,
            )
            simulator, tally = await asyncio.get_running_loop().run_in_executor(_executor(), run)
        finally:
            _QUEUED -= 1
    except SimulationRefusal as exc:
        return error_reply(t(locale, exc.key, **exc.params), hint=t(locale, "simulation.hint"))
    except (RefusedError, TableError) as exc:
        return error_reply(t(locale, "simulation.error.rules", reason=str(exc)[:100]))
    data = summary(simulator, tally)
    data["requested"] = duels
    data["origins"] = [side_a.origin, side_b.origin]
    return render(ctx, locale, data)


async def side_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """Autocomplete: characters the caller may see, then creature presets."""
    from bot.services.characters import character_choices

    out = list(await character_choices(ctx, caller, current))
    docs = {"creatures_bf": ctx.tables["creatures_bf"].document} if "creatures_bf" in ctx.tables else {}
    out.extend(preset_choices(docs, current, language_of(caller.locale) == "en"))
    return out[:25]
