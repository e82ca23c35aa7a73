"""``/stats`` on a roll log of one million rows (issue #26): time to answer, histogram cost.

Seeds a migrated SQLite file with ``ROWS`` roll-log rows on one server (the worst case: every row
in the scope ``/stats`` reads for the whole server), as the bot writes them: 60 % ``/test`` (d100,
renove, targets 20-70), 40 % ``/lancer`` (1d20, 2d6, 1d100, 4d6kh3, 1d8+1d4), 20 players, 10
channels, 30 characters, over 400 days, 5 % secret, 3 % entered by hand; each row's ``roll_faces``
written by :func:`bot.db.roll_log.face_rows`, as the writer does. Then times
:func:`bot.services.stats.dice_stats` — both aggregate queries, the verdicts, the text and the PNG
rendered in a thread — for the server (all time and the last 30 days), a player, a channel and a
character, as the GM (secret rolls included) and as a player: the median of ``REPEATS`` calls each,
target < 1 s. The histogram alone: time to render and the memory it takes (tracemalloc peak), and
the cost of its first import (a fresh interpreter, ``-X importtime``).

``python -m benchmarks.bench_stats [--rows N] [--db PATH]`` (``--db``: keep the seeded file and
reuse it next time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Settings
from bot.context import AppContext
from bot.db.roll_log import FACE_COLUMNS, RollLogWriter, face_rows
from bot.db.session import create_engine, create_sessionmaker, upgrade
from bot.i18n import default_catalog
from bot.rules.checks.dispatch import result_from_roll
from bot.rules.dice.engine import roll
from bot.services.caller import Caller
from bot.services.stats import dice_stats

ROOT = Path(__file__).resolve().parents[1]
ROWS = 1_000_000
GUILD = 7001
USERS = [8000 + i for i in range(20)]
CHANNELS = [9000 + i for i in range(10)]
CHARACTERS = list(range(1, 31))
GM_ID = 1
EXPRESSIONS = ("1d20", "2d6", "1d100", "4d6kh3", "1d8 + 1d4")
REPEATS = 5
TARGET_SECONDS = 1.0
LOG_COLUMNS = (
    "guild_id",
    "channel_id",
    "user_id",
    "character_id",
    "kind",
    "ruleset",
    "expression",
    "label",
    "total",
    "secret",
    "result",
    "created_at",
)


def _stamp(moment: datetime) -> str:
    """A datetime as SQLAlchemy stores it in SQLite (what its queries compare against)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def _rows(rng: random.Random, count: int, now: datetime) -> list[dict[str, Any]]:
    rows = []
    for _ in range(count):
        manual = rng.random() < 0.03
        if rng.random() < 0.6:
            target = rng.randint(20, 70)
            result: dict[str, Any] = {
                **result_from_roll("renove", target, (), rng.randint(1, 100)).to_dict(),
                "manual": manual,
            }
            kind, ruleset, expression, total = "test", "renove", f"d100 ≤ {target}", result["roll"]
        else:
            rolled = roll(rng.choice(EXPRESSIONS), rng)
            result = {**rolled.to_dict(), "manual": manual, "summarised": False}
            kind, ruleset, expression, total = "roll", None, rolled.expression, rolled.total
        rows.append(
            {
                "guild_id": GUILD,
                "channel_id": rng.choice(CHANNELS),
                "user_id": rng.choice(USERS),
                "character_id": rng.choice(CHARACTERS) if rng.random() < 0.7 else None,
                "kind": kind,
                "ruleset": ruleset,
                "expression": expression,
                "label": None,
                "total": total,
                "secret": rng.random() < 0.05,
                "result": result,
                "created_at": now - timedelta(seconds=rng.uniform(0, 400 * 86400)),
            }
        )
    return rows


def seed(path: Path, rows: int, seed_value: int = 26) -> float:
    """Migrate ``path`` and write ``rows`` roll-log rows and their faces; the seconds it took."""
    began = time.perf_counter()
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    asyncio.run(_upgrade(engine))
    rng = random.Random(seed_value)
    now = datetime.now(UTC)
    log_sql = f"INSERT INTO roll_log ({', '.join(LOG_COLUMNS)}) VALUES ({', '.join('?' * len(LOG_COLUMNS))})"
    face_sql = (
        f"INSERT INTO roll_faces ({', '.join(FACE_COLUMNS)}) VALUES ({', '.join('?' * len(FACE_COLUMNS))})"
    )
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")
        done = 0
        while done < rows:
            batch = _rows(rng, min(50_000, rows - done), now)
            conn.executemany(
                log_sql,
                [
                    tuple(
                        json.dumps(r[c]) if c == "result" else _stamp(r[c]) if c == "created_at" else r[c]
                        for c in LOG_COLUMNS
                    )
                    for r in batch
                ],
            )
            conn.executemany(
                face_sql,
                [
                    tuple(_stamp(f[c]) if c == "created_at" else f[c] for c in FACE_COLUMNS)
                    for f in face_rows(batch)
                ],
            )
            conn.commit()
            done += len(batch)
        conn.execute("ANALYZE")
    return time.perf_counter() - began


async def _upgrade(engine: Any) -> None:
    await upgrade(engine)
    await engine.dispose()


@dataclass
class Timing:
    name: str
    median: float
    worst: float
    dice: int


async def time_stats(path: Path, repeats: int = REPEATS) -> list[Timing]:
    url = f"sqlite+aiosqlite:///{path}"
    engine = create_engine(url)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    ctx = AppContext(
        settings=Settings(discord_token=None, database_url=url),
        sessions=sessions,
        catalog=default_catalog(),
        rng=random.Random(1),
        roll_log=writer,
        tables={},
    )
    gm = Caller(user_id=GM_ID, guild_id=GUILD, channel_id=CHANNELS[0], locale="fr", manage_guild=True)
    player = Caller(user_id=USERS[0], guild_id=GUILD, channel_id=CHANNELS[0], locale="fr")
    cases: list[tuple[str, Caller, dict[str, Any]]] = [
        ("server, all time, GM", gm, {}),
        ("server, all time, player", player, {}),
        ("server, last 30 days, GM", gm, {"period": "month"}),
        ("one player, all time, GM", gm, {"user_id": USERS[3]}),
        ("one channel, all time, player", player, {"channel_id": CHANNELS[2]}),
        ("one character, last 365 days, GM", gm, {"character": "Héros 7"}),
    ]
    await _character(ctx, "Héros 7", 7)
    timings = []
    try:
        await dice_stats(ctx, gm)  # warm: the connection, the catalogue, the histogram's import
        for name, who, options in cases:
            spent = []
            dice = 0
            for _ in range(repeats):
                began = time.perf_counter()
                reply = await dice_stats(ctx, who, **options)
                spent.append(time.perf_counter() - began)
                assert reply.result is not None and not reply.is_error, reply
                assert reply.files, "no histogram attached"
                dice = int(reply.result["dice"])
            timings.append(Timing(name, statistics.median(spent), max(spent), dice))
    finally:
        await writer.close()
        await engine.dispose()
    return timings


async def _character(ctx: AppContext, name: str, character_id: int) -> None:
    """The character the seeded rows call 7, so ``/stats personnage:`` finds it by name."""
    from sqlalchemy import delete

    from bot.db.characters import name_key
    from bot.db.models import Character

    async with ctx.sessions.begin() as session:
        await session.execute(delete(Character).where(Character.id == character_id))
        session.add(
            Character(
                id=character_id,
                guild_id=GUILD,
                owner_id=USERS[0],
                name=name,
                name_key=name_key(name),
                ruleset="renove",
                characteristics={},
                skills={},
                skill_innate={},
                talents=[],
                equipment={},
                conditions=[],
            )
        )


@dataclass
class Histogram:
    render_ms: float
    peak_kib: float
    png_bytes: int
    import_ms: float


def histogram_cost() -> Histogram:
    """Render four panels (d6, d20, d100, d8) of 100 000 dice each: time, memory peak, import cost."""
    from bot.ui import histogram

    rng = random.Random(3)
    panels = []
    for sides in (6, 8, 20, 100):
        counts: dict[int, int] = {}
        for _ in range(100_000):
            face = rng.randint(1, sides)
            counts[face] = counts.get(face, 0) + 1
        panels.append((sides, counts))
    histogram.render(panels)
    spent = []
    for _ in range(10):
        began = time.perf_counter()
        png = histogram.render(panels)
        spent.append(time.perf_counter() - began)
    tracemalloc.start()
    histogram.render(panels)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import bot.ui.histogram"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT)},
    ).stderr
    own = 0.0
    for line in out.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s+(\S+)", line)
        if match and match.group(3).strip() == "bot.ui.histogram":
            own = int(match.group(2)) / 1000  # cumulative µs → ms (zlib and struct included)
    return Histogram(statistics.median(spent) * 1000, peak / 1024, len(png), own)


def cached_db(rows: int) -> Path:
    """Where ``run_all`` keeps its seeded log between runs (seeding a million rows takes minutes)."""
    return Path(tempfile.gettempdir()) / f"melee-bench-stats-{rows}-0015.db"


def prepare(path: Path, rows: int) -> str:
    """Seed ``path`` unless it already holds the log; a line saying which."""
    if path.exists():
        with sqlite3.connect(path) as conn:
            found = conn.execute("SELECT count(*) FROM roll_log").fetchone()[0]
            faces = conn.execute("SELECT count(*) FROM roll_faces").fetchone()[0]
        return f"reusing {path}: {found:,} roll-log rows, {faces:,} roll_faces rows"
    seconds = seed(path, rows)
    with sqlite3.connect(path) as conn:
        faces = conn.execute("SELECT count(*) FROM roll_faces").fetchone()[0]
    size = path.stat().st_size / 2**20
    return f"seeded {rows:,} roll-log rows ({faces:,} roll_faces rows, {size:.0f} MiB) in {seconds:.1f} s"


def report(timings: list[Timing], h: Histogram) -> None:
    for t in timings:
        flag = "ok " if t.median < TARGET_SECONDS else "MISS"
        print(
            f"  [{flag}] /stats {t.name}: median {t.median * 1000:.0f} ms, worst {t.worst * 1000:.0f} ms"
            f" ({t.dice:,} dice tested)"
        )
    print(
        f"  histogram PNG: {h.render_ms:.1f} ms to render (4 panels), {h.peak_kib:.0f} KiB peak memory,"
        f" {h.png_bytes / 1024:.1f} KiB file, first import {h.import_ms:.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--db", type=Path, help="keep the seeded database here (reused if present)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="melee-stats-") as tmp:
        path = args.db or Path(tmp) / "stats.db"
        print(prepare(path, args.rows))
        timings = asyncio.run(time_stats(path))
    h = histogram_cost()
    report(timings, h)
    worst = max(t.median for t in timings)
    print(f"slowest /stats median: {worst * 1000:.0f} ms (target < {TARGET_SECONDS * 1000:.0f} ms)")
    return 0 if worst < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
