"""End-to-end load: simulated users sending /roll or /test through the emulator to the real bot.

Prints interactions per second and p50/p99/max latency from the INTERACTION_CREATE frame
leaving the emulator to the bot's first callback arriving (both timed in the emulator), the CPU
each side spent per interaction, and checks that every interaction left one row in the roll log.
Targets: p99 < 50 ms, >= 500 interactions/s.

Two kinds of load:

* closed loop (default): ``--users`` users each send ``--per-user`` commands one after the other;
  the throughput is the capacity, and the latency includes waiting behind the other users
  (by Little's law, mean latency = users / throughput);
* open loop (``--rate R``): interactions are sent at R per second for ``--seconds``, whatever the
  answers; the latency is what a user sees at that sustained rate.

    .venv/bin/python benchmarks/bench_e2e.py --users 20 --per-user 50
    .venv/bin/python benchmarks/bench_e2e.py --command test --rate 500 --seconds 5
    .venv/bin/python benchmarks/bench_e2e.py --command test --profile   # py-spy the bot process
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.harness import E2E

COMMANDS: dict[str, dict[str, Any]] = {"roll": {"expression": "1d100"}, "test": {"carac": "45"}}


def bot_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a process (Linux /proc), to see who is the bottleneck."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


@contextlib.contextmanager
def quiet_collector() -> Iterator[None]:
    """Keep this process's (the emulator's) garbage collector out of the measured latency.

    The emulator keeps every interaction and message it has seen, so a full collection of this
    process grows with the run (50-170 ms by the /test load, 60 ms even with the earlier state
    frozen): the bot sits idle meanwhile, yet every interaction in flight is charged for it (that
    was the p99 of /test). Discord's pauses are not the bot's: no collection here while measuring.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def roll_log_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM roll_log").fetchone()[0])


ERRORS: list[str] = []


def _check(command: str, result: Any) -> None:
    if result.callback_type != 4:
        raise RuntimeError(f"unexpected answer to /{command}: {result}")
    try:
        ephemeral = result.ephemeral
    except AssertionError:  # the emulator refused the callback: past Discord's 3 s, the user saw nothing
        statuses = [callback.status for callback in result.interaction.callbacks]
        ERRORS.append(f"callback refused by the emulator: HTTP {statuses}")
        return
    if ephemeral:  # an error ("database busy, try again") or a refusal: counted, shown
        ERRORS.append(str(result.embeds[:1])[:200])


def profile_start(pid: int, out: Path) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("(py-spy not installed: `.venv/bin/pip install py-spy` to profile)")
        return None
    command = [spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250", "-o", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def profile_report(out: Path, top: int = 25) -> None:
    """Own and inclusive time per function, and per package (our bot, discord.py, SQLAlchemy …)."""
    if not out.exists():
        print("(no profile written: py-spy may need ptrace rights)")
        return
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    packages: collections.Counter[str] = collections.Counter()
    total = 0
    for line in out.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        if not any("_run_once" in f for f in frames) and "select (selectors.py" not in frames[-1]:
            continue  # other threads: aiosqlite's worker (mostly waiting on its queue), the heartbeat
        total += count
        own[frames[-1]] += count
        leaf = frames[-1]
        package = "other"
        for name in ("bot/", "discord/", "sqlalchemy/", "aiosqlite/", "aiohttp/", "asyncio/", "json/"):
            if f"{name}" in leaf.split("(", 1)[-1]:
                package = name.rstrip("/")
                break
        if "select (selectors.py" in leaf or "epoll" in leaf:
            package = "idle (epoll wait)"
        packages[package] += count
        for frame in set(frames):
            inclusive[frame] += count
    if not total:
        return
    print(f"py-spy: {total} samples of the event loop's thread. Own time by package of the leaf frame:")
    for package, count in packages.most_common():
        print(f"  {100 * count / total:5.1f} %  {package}")
    print("Leaf functions (own time):")
    for frame, count in own.most_common(top):
        print(f"  {100 * count / total:5.1f} %  {frame[:120]}")
    print("Inclusive time:")
    for frame, count in inclusive.most_common(top):
        print(f"  {100 * count / total:5.1f} %  {frame[:120]}")


async def closed_loop(harness: E2E, command: str, options: dict[str, Any], users: int, per_user: int) -> None:
    players = [harness.user(f"joueur{i}") for i in range(users)]

    async def play(index: int) -> None:
        for _ in range(per_user):
            _check(command, await players[index].slash(command, timeout=30, **options))

    await asyncio.gather(*(play(i) for i in range(users)))


async def open_loop(
    harness: E2E, command: str, options: dict[str, Any], users: int, rate: float, seconds: float
) -> None:
    players = [harness.user(f"joueur{i}") for i in range(users)]
    pending: list[asyncio.Task[Any]] = []
    count = round(rate * seconds)
    began = time.perf_counter()
    for n in range(count):
        delay = began + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        pending.append(asyncio.create_task(players[n % users].slash(command, timeout=30, **options)))
    for result in await asyncio.gather(*pending):
        _check(command, result)


async def run(args: argparse.Namespace) -> int:
    os.environ["MELEE_RATE_LIMITS"] = "off"  # capacity, not the per-user limits
    command = args.command
    options = dict(COMMANDS[command])
    options.update(dict(option.split("=", 1) for option in args.option))
    with tempfile.TemporaryDirectory(prefix="melee-bench-") as tmp:
        harness = E2E(Path(tmp), log_level="WARNING")
        try:
            started = time.perf_counter()
            await harness.start()
            print(f"bot ready in {time.perf_counter() - started:.2f} s")
            warm = harness.user("warmup")
            for _ in range(args.warmup):
                _check(command, await warm.slash(command, **options))
            db = Path(tmp) / "melee.db"
            rows0 = roll_log_count(db)
            mark = len(harness.emu.interactions)
            bot_pid = harness.bot.proc.pid if harness.bot and harness.bot.proc else None
            spy = profile_start(bot_pid, Path(tmp) / "profile.txt") if args.profile and bot_pid else None
            with quiet_collector():
                bot_cpu0, own_cpu0 = bot_cpu(bot_pid), time.process_time()
                began = time.perf_counter()
                if args.rate:
                    await open_loop(harness, command, options, args.users, args.rate, args.seconds)
                else:
                    await closed_loop(harness, command, options, args.users, args.per_user)
                elapsed = time.perf_counter() - began
            bot_cpu_used, own_cpu_used = bot_cpu(bot_pid) - bot_cpu0, time.process_time() - own_cpu0
            if spy is not None:
                spy.send_signal(signal.SIGINT)  # py-spy writes its profile when interrupted
                spy.wait(timeout=30)
            measured = list(harness.emu.interactions.values())[mark:]
            latencies = sorted(
                (i.first_callback_perf - i.dispatched_perf) * 1000
                for i in measured
                if i.first_callback_perf is not None
            )
            total = len(measured)
            rows = roll_log_count(db) - rows0
            mode = f"open loop at {args.rate:g}/s" if args.rate else f"closed loop, {args.users} users"
            print(f"/{command} {options}: {total} interactions ({mode}) in {elapsed:.2f} s")
            print(f"throughput: {total / elapsed:.0f} interactions/s")
            print(
                f"latency dispatch -> callback: p50 {percentile(latencies, 0.50):.1f} ms, "
                f"p99 {percentile(latencies, 0.99):.1f} ms, max {latencies[-1]:.1f} ms, "
                f"mean {statistics.fmean(latencies):.1f} ms"
            )
            print(
                f"CPU per interaction: bot process {bot_cpu_used / total * 1000:.2f} ms, "
                f"emulator + simulated users {own_cpu_used / total * 1000:.2f} ms"
            )
            print(f"roll log: {rows} rows for {total} interactions")
            if ERRORS:
                print(f"error answers: {len(ERRORS)} (first: {ERRORS[0]})")
            if spy is not None:
                profile_report(Path(tmp) / "profile.txt")
                if args.profile_out:
                    shutil.copy(Path(tmp) / "profile.txt", args.profile_out)
            failures = harness.failures
            if failures:
                print(f"emulator refusals: {len(failures)} (first: {failures[0]})")
            return 1 if failures or ERRORS or rows != total else 0
        finally:
            await harness.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--command", choices=sorted(COMMANDS), default="roll")
    parser.add_argument("--option", action="append", default=[], help="name=value, e.g. carac=CC")
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--per-user", type=int, default=50)
    parser.add_argument("--rate", type=float, default=0, help="open loop: interactions per second")
    parser.add_argument("--seconds", type=float, default=5, help="open loop: how long")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="py-spy the bot process during the load")
    parser.add_argument("--profile-out", help="keep py-spy's raw profile in this file")
    args = parser.parse_args()
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
