"""Servers per process (#25): realistic guilds (30 channels, 20 roles, 10 active threads, 30 emojis
each) fed to the real bot (``python -m bot``) through the emulator's gateway; prints the resident
memory per 1 000 guilds (over a one-guild start), the seconds from spawning the bot to its READY
(every shard's guilds received; discord.py waits ``guild_ready_timeout`` = 2 s after the last
GUILD_CREATE) and the worst pause of a full collection once ready (three ``gc.collect()`` timed in
the bot process: ``MELEE_GC_PROBE``). Target for the pause: < 20 ms at 5 000 guilds (discord.py's
cache frozen after each shard's READY: ``MeleeBot._freeze_cache``).

    .venv/bin/python benchmarks/bench_guilds.py                 # 1 000, 2 500 and 5 000 guilds
    .venv/bin/python benchmarks/bench_guilds.py --guilds 200 500
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_startup import rss_mib
from tests.e2e.harness import E2E

CHANNELS, ROLES, THREADS, EMOJIS = 30, 20, 10, 30
PAUSE_TARGET_MS = 20.0


@dataclass
class Run:
    guilds: int
    rss: float  # MiB
    ready: float  # s from spawn to READY
    pause: float  # worst full collection, ms
    frozen: int
    seen: int  # guilds in the bot's cache at READY


def add_guilds(harness: E2E, count: int) -> None:
    channels = [f"salon-{i}" for i in range(CHANNELS)]
    roles = [(f"role-{i}", 0) for i in range(ROLES - 2)]  # with @everyone and the bot's role: 20
    emojis = [f"emoji_{i}" for i in range(EMOJIS)]
    for n in range(count):
        harness.emu.add_guild(f"Serveur {n}", channels=channels, roles=roles, emojis=emojis, threads=THREADS)


async def run_once(count: int) -> Run:
    with tempfile.TemporaryDirectory(prefix="melee-guilds-") as tmp:
        harness = E2E(Path(tmp), log_level="WARNING")
        probe = Path(tmp) / "gc-probe.json"
        harness.extra_env["MELEE_GC_PROBE"] = str(probe)
        harness.extra_env["MELEE_RATE_LIMITS"] = "off"
        add_guilds(harness, count)
        await harness.emu.start()
        try:
            spawned = time.time()
            await harness.start_bot(timeout=600)
            deadline = time.monotonic() + 600
            while not probe.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no READY after 600 s at {count} guilds")
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.2)  # the file is whole
            figures = json.loads(probe.read_text())
            rss = rss_mib(harness.bot.proc.pid if harness.bot and harness.bot.proc else None)
            return Run(
                count,
                rss,
                float(figures["ready_at"]) - spawned,
                max(figures["full_gc_ms"]),
                int(figures["frozen"]),
                int(figures["guilds"]),
            )
        finally:
            harness.expect_failures = True
            await harness.close()


def line(name: str, value: float, unit: str, target: float, floor: bool) -> str:
    met = value >= target if floor else value < target
    ratio = (
        (value / target if target else float("inf")) if floor else (target / value if value else float("inf"))
    )
    sign = "≥" if floor else "<"
    return (
        f"  [{'ok ' if met else 'MISS'}] {name}: {value:,.2f} {unit}  (target {sign} {target:,.0f} {unit},"
        f" ratio {ratio:.2f})"
    )


def per_thousand(base: Run, run: Run) -> float:
    """Resident MiB per 1 000 guilds, over the one-guild start."""
    return (run.rss - base.rss) / run.guilds * 1000


def ready_target(count: int) -> float:
    return max(10.0, count / 250)


async def measure(counts: list[int], *, verbose: bool = True) -> tuple[Run, list[Run]]:
    base = await run_once(1)
    if verbose:
        print(f"one guild: {base.rss:.1f} MiB, READY in {base.ready:.2f} s, full GC {base.pause:.1f} ms")
    runs = []
    for count in counts:
        run = await run_once(count)
        runs.append(run)
        if verbose:
            print(
                f"\n{count} guilds ({CHANNELS} channels, {ROLES} roles, {THREADS} threads,"
                f" {EMOJIS} emojis each):"
            )
            print(line(f"memory per 1 000 guilds at {count}", per_thousand(base, run), "MiB", 60, False))
            print(line(f"seconds to READY at {count} guilds", run.ready, "s", ready_target(count), False))
            print(line(f"worst full-GC pause at {count} guilds", run.pause, "ms", PAUSE_TARGET_MS, False))
            print(f"     ({run.seen} guilds in the bot's cache, {run.frozen:,} objects frozen)", flush=True)
    return base, runs


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--guilds", type=int, nargs="+", default=[1000, 2500, 5000])
    args = parser.parse_args()
    _, runs = asyncio.run(measure(args.guilds))
    return 0 if all(r.pause < PAUSE_TARGET_MS for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
