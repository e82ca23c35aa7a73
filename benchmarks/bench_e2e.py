"""End-to-end load: N users sending /roll concurrently through the emulator to the real bot.

Prints interactions per second and p50/p99/max latency from the INTERACTION_CREATE frame
leaving the emulator to the bot's first callback arriving (both timed in the emulator).
Targets: p99 < 50 ms, >= 500 interactions/s.

    .venv/bin/python benchmarks/bench_e2e.py --users 20 --per-user 50
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.harness import E2E


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


def percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


async def run(users: int, per_user: int, warmup: int, expression: str) -> int:
    with tempfile.TemporaryDirectory(prefix="melee-bench-") as tmp:
        harness = E2E(Path(tmp), log_level="WARNING")
        try:
            started = time.perf_counter()
            await harness.start()
            print(f"bot ready in {time.perf_counter() - started:.2f} s")
            players = [harness.user(f"joueur{i}") for i in range(users)]
            for _ in range(warmup):
                await players[0].slash("roll", expression=expression)
            mark = len(harness.emu.interactions)

            async def play(index: int) -> None:
                player = players[index]
                for _ in range(per_user):
                    result = await player.slash("roll", expression=expression, timeout=30)
                    if result.callback_type != 4:
                        raise RuntimeError(f"unexpected answer: {result}")

            bot_pid = harness.bot.proc.pid if harness.bot and harness.bot.proc else None
            bot_cpu0, own_cpu0 = bot_cpu(bot_pid), time.process_time()
            began = time.perf_counter()
            await asyncio.gather(*(play(i) for i in range(users)))
            elapsed = time.perf_counter() - began
            bot_cpu_used, own_cpu_used = bot_cpu(bot_pid) - bot_cpu0, time.process_time() - own_cpu0
            measured = list(harness.emu.interactions.values())[mark:]
            latencies = sorted(
                (i.first_callback_perf - i.dispatched_perf) * 1000
                for i in measured
                if i.first_callback_perf is not None
            )
            total = len(measured)
            print(f"{total} interactions from {users} concurrent users in {elapsed:.2f} s")
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
            failures = harness.failures
            if failures:
                print(f"emulator refusals: {len(failures)} (first: {failures[0]})")
            return 1 if failures else 0
        finally:
            await harness.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--per-user", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--expression", default="1d100")
    args = parser.parse_args()
    return asyncio.run(run(args.users, args.per_user, args.warmup, args.expression))


if __name__ == "__main__":
    raise SystemExit(main())
