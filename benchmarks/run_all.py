"""The benchmark suite (issue #11): every figure side by side with its target and the ratio.

Run: ``.venv/bin/python -m benchmarks.run_all`` (about a minute and a half; ``--quick`` for a fast
pass, ``--profile`` to sample the bot process with py-spy during the ``/roll`` load).

1. Dice engine against ``d20`` on common expressions (``bench_dice.throughput``), target ≥ 2× on
   every expression; worst CPU time over the hostile corpus (``bench_dice.ours_worst``), < 10 ms.
2. Start-up: from ``python -m bot`` being spawned to the gateway READY the emulator sends (the
   session's IDENTIFY answered), median of several starts (the first on a fresh database; the
   bytecode compiled first, as in the container); target ≤ 2 s. More starts:
   ``benchmarks/bench_startup.py``.
3. ``/roll`` and ``/test`` through the emulator to the real bot process: sustained throughput with
   concurrent users, p50/p99 latency from INTERACTION_CREATE to the callback (timed in the
   emulator), every roll checked in the roll log; targets ≥ 500/s and p99 < 50 ms.
4. Resident memory of the bot process (VmRSS) with 50 fights open through ``/combat ouvrir`` (two
   quick NPCs each); target < 120 MiB.
5. The offline console (``bench_console``): a 1 000-line ``/lancer`` script fed to
   ``python -m bot console --json``, lines per second after start-up, target ≥ 200; the whole
   script, start-up included, target < 10 s.
6. Duel simulator (numpy sampler ``bot.services.simulation_fast`` over ``bot.rules.renove.simulation``):
   duels per second on a reference matchup, warm tables
   (and cold, building included); target ≥ 100 000/s.
7. ``/stats`` (``bench_stats``) on a seeded roll log of 1 000 000 rows (200 000 with ``--quick``;
   seeded once, then kept in the temporary directory): the slowest scope's median, target < 1 s;
   the histogram's render time and memory.
8. Servers per process (``bench_guilds``): 1 000, 2 500 and 5 000 realistic guilds (30 channels,
   20 roles, 10 threads, 30 emojis each; 1 000 with ``--quick``) fed to ``python -m bot`` through
   the emulator: resident MiB per 1 000 guilds (target < 60), seconds to READY (< 10 s, 20 s at
   5 000) and the worst full collection once ready (target < 20 ms).

Ratios are "measured ÷ target" for floors and "target ÷ measured" for ceilings: ≥ 1 means met.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import bench_console, bench_dice, bench_guilds, bench_simulator, bench_stats
from benchmarks.bench_e2e import bot_cpu, percentile, quiet_collector
from benchmarks.bench_startup import compile_bytecode, open_fights, rss_mib, starts
from tests.e2e.harness import E2E

MIB = 1024 * 1024


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: float
    floor: bool  # True: value must be ≥ target; False: value must be < target
    note: str = ""

    @property
    def ratio(self) -> float:
        if self.floor:
            return self.value / self.target if self.target else float("inf")
        return self.target / self.value if self.value else float("inf")

    @property
    def met(self) -> bool:
        return self.value >= self.target if self.floor else self.value < self.target


FIGURES: list[Figure] = []


def record(figure: Figure) -> None:
    FIGURES.append(figure)
    sign = "≥" if figure.floor else "<"
    flag = "ok " if figure.met else "MISS"
    print(
        f"  [{flag}] {figure.name}: {figure.value:,.2f} {figure.unit}  (target {sign} {figure.target:,.0f}"
        f" {figure.unit}, ratio {figure.ratio:.2f}){'  — ' + figure.note if figure.note else ''}",
        flush=True,
    )


# --- 1. dice ---------------------------------------------------------------------------------


def dice(quick: bool) -> None:
    print("\n== Dice engine against d20 ==", flush=True)
    bench_dice.ROUNDS = 3 if quick else 7
    bench_dice.BATCH = 300 if quick else 1000
    print(f"{'expression':<12} {'ours/s':>10} {'d20/s':>10} {'d20+str/s':>10} {'÷d20':>7} {'÷d20+str':>9}")
    worst = float("inf")
    worst_expr = ""
    for expr, ours, _ours_randint, d20_plain, d20_str in bench_dice.throughput():
        ratio = d20_plain / ours
        if ratio < worst:
            worst, worst_expr = ratio, expr
        print(
            f"{expr:<12} {1 / ours:>10,.0f} {1 / d20_plain:>10,.0f} {1 / d20_str:>10,.0f}"
            f" {ratio:>6.2f}× {d20_str / ours:>8.2f}×"
        )
    record(Figure("dice: smallest speed-up over d20", worst, "×", 2, True, f"on {worst_expr}"))
    worst_cpu, worst_text = 0.0, ""
    for text, _ in bench_dice.HOSTILE:
        _, cpu, _ = bench_dice.ours_worst(text, attempts=3 if quick else 5)
        if cpu > worst_cpu:
            worst_cpu, worst_text = cpu, text
    record(
        Figure(
            "dice: worst CPU time over the hostile corpus",
            worst_cpu * 1000,
            "ms",
            10,
            False,
            f"{len(bench_dice.HOSTILE)} inputs, worst {bench_dice._short(worst_text)}",
        )
    )


# --- 2-4. the bot process through the emulator --------------------------------------------------


async def load(
    harness: E2E, command: str, options: dict[str, Any], users: int, per_user: int, warmup: int
) -> tuple[int, float, list[float], float]:
    players = [harness.user(f"bench{command}{i}") for i in range(users)]
    for _ in range(warmup):
        await players[0].slash(command, **options)
    mark = len(harness.emu.interactions)

    async def play(player: Any) -> None:
        for _ in range(per_user):
            result = await player.slash(command, timeout=30, **options)
            if result.callback_type != 4:
                raise RuntimeError(f"unexpected answer to /{command}: {result}")

    pid = harness.bot.proc.pid if harness.bot and harness.bot.proc else None
    with quiet_collector():
        cpu0 = bot_cpu(pid)
        began = time.perf_counter()
        await asyncio.gather(*(play(p) for p in players))
        elapsed = time.perf_counter() - began
    cpu = bot_cpu(pid) - cpu0
    measured = list(harness.emu.interactions.values())[mark:]
    latencies = sorted(
        (i.first_callback_perf - i.dispatched_perf) * 1000
        for i in measured
        if i.first_callback_perf is not None
    )
    return len(measured), elapsed, latencies, cpu


def roll_log_rows(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT kind, count(*) FROM roll_log GROUP BY kind").fetchall())


def profile_start(pid: int, out: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("  (py-spy not installed: `.venv/bin/pip install py-spy` to profile)")
        return None
    return subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--format",
            "raw",
            "--duration",
            str(int(seconds)),
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def profile_report(out: Path, top: int = 12) -> None:
    if not out.exists():
        print("  (no profile written: py-spy may need ptrace rights)")
        return
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in out.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        if not any("run_forever" in f or "_run_once" in f for f in frames):
            continue  # other threads (aiosqlite's worker waits on its queue)
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            if "/bot/" in frame or "discord/" in frame or "sqlalchemy" in frame or "aiosqlite" in frame:
                inclusive[frame] += count
    if not total:
        return
    print(f"  py-spy: {total} samples of the event loop's thread. Leaf functions (own time):")
    for frame, count in own.most_common(top):
        print(f"    {100 * count / total:5.1f} %  {frame[:110]}")
    print("  Inclusive time of the bot's, discord.py's and SQLAlchemy's frames:")
    for frame, count in inclusive.most_common(top):
        print(f"    {100 * count / total:5.1f} %  {frame[:110]}")


async def bot_figures(quick: bool, profile: bool) -> None:
    os.environ["MELEE_RATE_LIMITS"] = "off"  # capacity, not the per-user limits
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="melee-suite-") as tmp:
        harness = E2E(Path(tmp), log_level="WARNING")
        try:
            await harness.emu.start()
            print("\n== Start-up to READY ==", flush=True)
            readies, cpus = await starts(harness, 3 if quick else 5)
            record(
                Figure(
                    "start-up to READY (median of starts)",
                    statistics.median(readies),
                    "s",
                    2,
                    False,
                    f"fresh database {readies[0]:.2f} s; CPU at READY {statistics.median(cpus):.2f} s",
                )
            )
            pid = harness.bot.proc.pid if harness.bot and harness.bot.proc else None
            idle = rss_mib(pid)

            print("\n== /roll and /test through the emulator ==", flush=True)
            users, per_user = (20, 25) if quick else (20, 100)
            db = Path(tmp) / "melee.db"
            before = roll_log_rows(db)
            for command, options in (("lancer", {"expression": "1d100"}), ("test", {"carac": "45"})):
                out = Path(tmp) / f"profile-{command}.txt"
                spy = profile_start(pid, out, 4 if quick else 6) if profile and pid is not None else None
                own0 = time.process_time()
                total, elapsed, latencies, cpu = await load(harness, command, options, users, per_user, 10)
                own = time.process_time() - own0
                rate = total / elapsed
                print(
                    f"  /{command}: {total} interactions, {users} concurrent users, {elapsed:.2f} s;"
                    f" CPU per interaction: bot {cpu / total * 1000:.2f} ms,"
                    f" emulator + users {own / total * 1000:.2f} ms"
                )
                record(Figure(f"/{command} sustained throughput", rate, "/s", 500, True))
                record(
                    Figure(
                        f"/{command} p99 latency",
                        percentile(latencies, 0.99),
                        "ms",
                        50,
                        False,
                        f"p50 {percentile(latencies, 0.50):.1f} ms, max {latencies[-1]:.1f} ms",
                    )
                )
                if spy is not None:
                    spy.wait(timeout=30)
                    print(f"  profile of the bot during /{command}:")
                    profile_report(out)
            after = roll_log_rows(db)
            rolls = after.get("roll", 0) - before.get("roll", 0)
            tests = sum(after.values()) - sum(before.values()) - rolls
            expected = 2 * (users * per_user + 10)
            print(f"  roll log: {rolls} /roll rows and {tests} /test rows for {expected} interactions")
            loaded = rss_mib(pid)

            print("\n== Memory with 50 fights open ==", flush=True)
            open_rows = await open_fights(harness, 50)
            rss = rss_mib(pid)
            print(
                f"  RSS idle {idle:.1f} MiB, after the load {loaded:.1f} MiB,"
                f" with {open_rows} open fights {rss:.1f} MiB"
            )
            record(
                Figure(
                    "resident memory with 50 fights open", rss, "MiB", 120, False, f"{open_rows} fights open"
                )
            )
        finally:
            await harness.close()


# --- 5. console -------------------------------------------------------------------------------


def console(quick: bool) -> None:
    print("\n== The offline console ==", flush=True)
    lines = 300 if quick else 1000
    result = bench_console.measure(lines)
    result.report("/lancer")
    record(
        Figure(
            "console /lancer lines per second",
            result.rate,
            "/s",
            200,
            True,
            f"{result.answers} lines, after a {result.startup:.2f} s start-up",
        )
    )
    if not quick:
        record(
            Figure("console: a 1 000-line /lancer script", result.wall, "s", 10, False, "start-up included")
        )


# --- 6. simulator ------------------------------------------------------------------------------


def simulator(quick: bool) -> None:
    print("\n== Duel simulator ==", flush=True)
    result = bench_simulator.measure(quick)
    bench_simulator.report(result)
    record(
        Figure(
            "simulator duels per second (warm tables)",
            result.fast_wall,
            "/s",
            100_000,
            True,
            f"numpy sampler, median wall; {result.fast_cpu:,.0f}/s of CPU; cold {result.cold:,.0f}/s;"
            f" pure sampler {result.pure_wall:,.0f}/s",
        )
    )


# --- 7. /stats ---------------------------------------------------------------------------------


def stats(quick: bool) -> None:
    print("\n== /stats on a seeded roll log ==", flush=True)
    rows = 200_000 if quick else bench_stats.ROWS
    print("  " + bench_stats.prepare(bench_stats.cached_db(rows), rows), flush=True)
    timings = asyncio.run(bench_stats.time_stats(bench_stats.cached_db(rows), 3 if quick else 5))
    histogram = bench_stats.histogram_cost()
    bench_stats.report(timings, histogram)
    slowest = max(timings, key=lambda t: t.median)
    record(
        Figure(
            f"/stats on {rows:,} roll-log rows (slowest scope, median)",
            slowest.median * 1000,
            "ms",
            1000,
            False,
            f"{slowest.name}, histogram included",
        )
    )
    record(
        Figure(
            "/stats histogram PNG render",
            histogram.render_ms,
            "ms",
            1000,
            False,
            f"{histogram.peak_kib:,.0f} KiB peak, first import {histogram.import_ms:.1f} ms",
        )
    )


# --- 8. servers per process ---------------------------------------------------------------------


def guilds(quick: bool) -> None:
    print("\n== Servers per process (realistic guilds through the emulator) ==", flush=True)
    counts = [1000] if quick else [1000, 2500, 5000]
    base, runs = asyncio.run(bench_guilds.measure(counts, verbose=False))
    shape = (
        f"{bench_guilds.CHANNELS} channels, {bench_guilds.ROLES} roles, {bench_guilds.THREADS} threads,"
        f" {bench_guilds.EMOJIS} emojis each"
    )
    for run in runs:
        n = run.guilds
        per = bench_guilds.per_thousand(base, run)
        record(Figure(f"memory per 1 000 guilds at {n:,}", per, "MiB", 60, False, shape))
        record(
            Figure(f"seconds to READY at {n:,} guilds", run.ready, "s", bench_guilds.ready_target(n), False)
        )
        record(
            Figure(
                f"worst full-GC pause at {n:,} guilds",
                run.pause,
                "ms",
                bench_guilds.PAUSE_TARGET_MS,
                False,
                f"{run.frozen:,} objects frozen after READY",
            )
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and interactions")
    parser.add_argument("--profile", action="store_true", help="py-spy the bot during the /roll load")
    parser.add_argument(
        "--only", choices=("dice", "bot", "console", "simulator", "stats", "guilds"), help="one part only"
    )
    args = parser.parse_args()
    began = time.perf_counter()
    print(
        f"Mêlée benchmark suite{' (quick)' if args.quick else ''} — {os.cpu_count()} CPUs,"
        f" Python {sys.version.split()[0]}"
    )
    if args.only in (None, "dice"):
        dice(args.quick)
    if args.only in (None, "bot"):
        asyncio.run(bot_figures(args.quick, args.profile))
    if args.only in (None, "console"):
        console(args.quick)
    if args.only in (None, "simulator"):
        simulator(args.quick)
    if args.only in (None, "stats"):
        stats(args.quick)
    if args.only in (None, "guilds"):
        guilds(args.quick)
    print("\n== Summary ==")
    width = max(len(f.name) for f in FIGURES)
    print(f"{'figure':<{width}} {'measured':>14} {'target':>14} {'ratio':>7}")
    for f in FIGURES:
        sign = "≥" if f.floor else "<"
        print(
            f"{f.name:<{width}} {f.value:>10,.2f} {f.unit:<3} {sign} {f.target:>9,.0f} {f.unit:<3}"
            f" {f.ratio:>6.2f} {'' if f.met else ' MISS'}"
        )
    print(f"\nSuite wall time: {time.perf_counter() - began:.1f} s (target < 120 s)")
    return 0 if all(f.met for f in FIGURES) else 1


if __name__ == "__main__":
    raise SystemExit(main())
