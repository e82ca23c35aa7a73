"""Throughput of one bot process versus several, sharded, on one PostgreSQL database.

Each run creates a fresh PostgreSQL database, starts the emulator with guilds on every shard
and the bot as one process holding every shard, then as ``--processes`` processes splitting
them (``SHARD_COUNT``/``SHARD_IDS``); the same concurrent users then send the same commands.
Prints interactions per second, latency from the INTERACTION_CREATE frame leaving the
emulator to the bot's first callback, and CPU seconds per interaction of each process.

    export TEST_POSTGRES_URL=postgresql+asyncpg://postgres@127.0.0.1:54329/postgres
    .venv/bin/python benchmarks/bench_shards.py --shards 2 --users 40 --per-user 50
    .venv/bin/python benchmarks/bench_shards.py --command test   # /test writes in its transaction
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_e2e import bot_cpu, percentile
from bot.db.session import create_engine
from tests.e2e.multi import Cluster

COMMANDS: dict[str, tuple[str, dict[str, Any]]] = {
    "roll": ("lancer", {"expression": "1d100"}),
    "test": ("test", {"carac": "40"}),
}


async def create_database(admin_url: str) -> str:
    name = "melee_bench_" + uuid.uuid4().hex[:12]
    admin = create_engine(admin_url)
    try:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(admin_url: str, url: str) -> None:
    admin = create_engine(admin_url)
    try:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    finally:
        await admin.dispose()


async def run_once(
    admin_url: str, *, shards: int, processes: int, users: int, per_user: int, warmup: int, command: str
) -> dict[str, float]:
    nodes = [tuple(range(p, shards, processes)) for p in range(processes)]
    database = await create_database(admin_url)
    try:
        with tempfile.TemporaryDirectory(prefix="melee-shards-") as tmp:
            cluster = Cluster(
                Path(tmp),
                database,
                shard_count=shards,
                nodes=nodes,
                log_level="WARNING",
                extra_env={"MELEE_RATE_LIMITS": "off"},
            )
            try:
                started = time.perf_counter()
                await cluster.start()
                print(f"  {processes} process(es) {nodes} ready in {time.perf_counter() - started:.1f} s")
                name, options = COMMANDS[command]
                players = [cluster.tables[i % len(cluster.tables)].user(f"joueur{i}") for i in range(users)]
                for player in players[: len(cluster.tables)]:
                    for _ in range(warmup):
                        await player.slash(name, **options)
                mark = len(cluster.emu.interactions)

                async def play(index: int) -> None:
                    for _ in range(per_user):
                        result = await players[index].slash(name, timeout=30, **options)
                        if result.callback_type != 4 and not result.interaction.failures:
                            raise RuntimeError(f"unexpected answer: {result}")

                pids = [node.pid for node in cluster.nodes]
                cpu0 = [bot_cpu(pid) for pid in pids]
                own0 = time.process_time()
                began = time.perf_counter()
                await asyncio.gather(*(play(i) for i in range(users)))
                elapsed = time.perf_counter() - began
                cpu = [bot_cpu(pid) - c for pid, c in zip(pids, cpu0, strict=True)]
                own = time.process_time() - own0
                measured = list(cluster.emu.interactions.values())[mark:]
                latencies = sorted(
                    (i.first_callback_perf - i.dispatched_perf) * 1000
                    for i in measured
                    if i.first_callback_perf is not None
                )
                total = len(measured)
                problems = cluster.ownership_problems(measured)
                if problems:
                    raise RuntimeError(f"served twice or by the wrong process: {problems[:3]}")
                late = {f.interaction_id for f in cluster.emu.failures if f.kind == "late_callback"}
                if late:
                    print(f"  {len(late)} interactions answered after Discord's 3 s deadline")
                figures = {
                    "rate": total / elapsed,
                    "p50": percentile(latencies, 0.50),
                    "p99": percentile(latencies, 0.99),
                    "mean": statistics.fmean(latencies),
                }
                print(
                    f"  {total} x /{name} from {users} users in {elapsed:.2f} s: "
                    f"{figures['rate']:.0f} interactions/s, p50 {figures['p50']:.1f} ms, "
                    f"p99 {figures['p99']:.1f} ms"
                )
                print(
                    "  CPU ms per interaction: "
                    + ", ".join(
                        f"{n.name} {c / total * 1000:.2f}" for n, c in zip(cluster.nodes, cpu, strict=True)
                    )
                    + f", emulator + users {own / total * 1000:.2f}"
                )
                return figures
            finally:
                await cluster.close()
    finally:
        await drop_database(admin_url, database)


async def main_async(args: argparse.Namespace) -> int:
    admin_url = args.postgres_url or os.environ.get("TEST_POSTGRES_URL")
    if not admin_url:
        print("set TEST_POSTGRES_URL (or --postgres-url): the shards share one PostgreSQL", file=sys.stderr)
        return 2
    print(
        f"{os.cpu_count()} CPUs; {args.shards} shards, {args.users} users x {args.per_user} /{args.command}"
    )
    results: dict[int, list[dict[str, float]]] = {}
    for _ in range(args.repeat):
        for processes in (1, args.processes):
            print(f"- {processes} process(es)")
            figures = await run_once(
                admin_url,
                shards=args.shards,
                processes=processes,
                users=args.users,
                per_user=args.per_user,
                warmup=args.warmup,
                command=args.command,
            )
            results.setdefault(processes, []).append(figures)
    print("summary (median of runs):")
    for processes, runs in results.items():
        rate = statistics.median(r["rate"] for r in runs)
        p99 = statistics.median(r["p99"] for r in runs)
        print(f"  {processes} process(es): {rate:.0f} interactions/s, p99 {p99:.1f} ms")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--per-user", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--command", choices=sorted(COMMANDS), default="roll")
    parser.add_argument("--postgres-url", default=None)
    args = parser.parse_args()
    if args.shards % args.processes:
        parser.error("--shards must be a multiple of --processes")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
