"""Start-up to READY and resident memory of the real bot process (issue #11).

Run: ``.venv/bin/python -m benchmarks.bench_startup [--starts 7] [--fights 50]``.

The bot (``python -m bot``) is started several times against the emulator: the first start on a
fresh database (migrations run), the others on the same database (a restart). READY is the moment
the emulator's gateway session is identified; "synced" the command sync. After the last start the
resident memory (VmRSS) is read at rest, then with ``--fights`` fights opened through
``/combat ouvrir`` (two quick NPCs each and a first round, as a GM would). Targets: READY ≤ 2 s, < 120 MiB.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.harness import E2E, REPO_ROOT, BotProcess

MIB = 1024 * 1024


def rss_mib(pid: int | None) -> float:
    if pid is None:
        return 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / MIB
    return 0.0


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time the process has used so far (less sensitive to load than wall time)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bot_pid(harness: E2E) -> int | None:
    return harness.bot.proc.pid if harness.bot and harness.bot.proc else None


async def start_to_ready(harness: E2E) -> tuple[float, float, float]:
    """Seconds from spawning the bot to READY (the emulator's session identified), to the sync, and
    the bot's CPU time at READY."""
    if harness.bot is None:
        harness.bot = BotProcess(harness.bot_env(), harness.tmp_path / "bot.log")
    mark = len(harness.emu.requests)
    started = time.perf_counter()
    await harness.bot.start()
    await harness.emu.wait_until(harness._live_session, timeout=30, what="READY")
    ready = time.perf_counter() - started
    cpu = cpu_seconds(bot_pid(harness))
    await harness.wait_ready(after=mark, timeout=30)
    return ready, time.perf_counter() - started, cpu


async def starts(harness: E2E, count: int) -> tuple[list[float], list[float]]:
    """Start and stop the bot ``count`` times (the first on a fresh database); leave the last one
    running. Return the READY times and the bot's CPU time at READY, in seconds."""
    readies: list[float] = []
    cpus: list[float] = []
    for n in range(count):
        if n:
            await harness.bot.stop()  # type: ignore[union-attr]
        ready, synced, cpu = await start_to_ready(harness)
        readies.append(ready)
        cpus.append(cpu)
        kind = "fresh database" if n == 0 else f"restart {n}"
        print(f"  {kind:<15} READY {ready:.2f} s (CPU {cpu:.2f} s), synced {synced:.2f} s", flush=True)
    return readies, cpus


def compile_bytecode() -> None:
    """Write the bot's bytecode first, as the container image does: the harness starts the bot with
    PYTHONDONTWRITEBYTECODE, so a stale cache would be recompiled (about 0.6 s) on every start."""
    compileall.compile_dir(str(REPO_ROOT / "bot"), quiet=1)


async def open_fights(harness: E2E, count: int, *, rounds: bool = True) -> int:
    """Open ``count`` fights through ``/combat ouvrir`` with two quick NPCs each and (``rounds``)
    their first round started; return how many are open in the database."""
    gm = harness.user("gm")
    for n in range(count):
        name = f"Bench {n + 1}"
        reply = await gm.slash("combat ouvrir", nom=name, timeout=30)
        if reply.deferred:
            await reply.wait_response(timeout=30)
        try:
            await harness.emu.wait_until(
                lambda name=name: any(t.name == name for t in harness.emu.threads),
                timeout=10,
                what=name,
            )
        except Exception:
            print(f"  fight {name} not opened: {reply.embeds[:1]}")
            continue
        thread = harness.thread(name)
        added = await gm.slash("combat ajouter", qui="2 Orque", channel=thread, timeout=30)
        if added.deferred:
            await added.wait_response(timeout=30)
        if rounds:  # a fight under way: a round message with its posture buttons
            started = await gm.slash("combat round", channel=thread, timeout=30)
            if started.deferred:
                await started.wait_response(timeout=30)
    db = harness.tmp_path / "melee.db"
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM fights WHERE status = 'open'").fetchone()[0])


async def run(start_count: int, fights: int) -> int:
    os.environ["MELEE_RATE_LIMITS"] = "off"  # 50 fights in a row by one GM
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="melee-startup-") as tmp:
        harness = E2E(Path(tmp), log_level="WARNING")
        try:
            await harness.emu.start()
            print(f"== Start-up to READY ({start_count} starts) ==", flush=True)
            readies, cpus = await starts(harness, start_count)
            median = statistics.median(readies)
            print(
                f"  READY median {median * 1000:.0f} ms (min {min(readies) * 1000:.0f}, max"
                f" {max(readies) * 1000:.0f}); CPU at READY median {statistics.median(cpus) * 1000:.0f} ms"
            )
            await asyncio.sleep(1.0)  # let the first health beat and the sync settle
            pid = bot_pid(harness)
            rest = rss_mib(pid)
            print(f"== Memory ==\n  RSS at rest {rest:.1f} MiB", flush=True)
            opened = await open_fights(harness, fights)
            loaded = rss_mib(pid)
            per_fight = (loaded - rest) / max(opened, 1) * 1024
            print(f"  RSS with {opened} open fights {loaded:.1f} MiB ({per_fight:.0f} KiB per fight)")
            fast, small = median <= 2.0, loaded < 120
            print(f"  targets: READY ≤ 2 s {'ok' if fast else 'MISS'}, < 120 MiB {'ok' if small else 'MISS'}")
            ok = fast and small
            return 0 if ok else 1
        finally:
            await harness.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--starts", type=int, default=5, help="starts of the bot (the first on a fresh database)"
    )
    parser.add_argument("--fights", type=int, default=50, help="fights to open before reading the memory")
    args = parser.parse_args()
    return asyncio.run(run(max(1, args.starts), args.fights))


if __name__ == "__main__":
    raise SystemExit(main())
