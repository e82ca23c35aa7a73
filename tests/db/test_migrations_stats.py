"""Revision 0015_stats on real SQLite and PostgreSQL: the rolls already in the log are counted per
face once, so /stats sees them; downgrading drops the table."""

from __future__ import annotations

import json
import random

from sqlalchemy import inspect, text

from bot.db.session import create_engine, downgrade, upgrade
from bot.rules.checks.dispatch import result_from_roll
from bot.rules.dice.engine import roll

INSERT = text(
    "INSERT INTO roll_log (guild_id, channel_id, user_id, kind, expression, total, secret, result,"
    " created_at) VALUES (1, 2, :user, :kind, :expression, :total, :secret, :result, CURRENT_TIMESTAMP)"
)


async def test_existing_rolls_are_counted_per_face(database_url: str) -> None:
    engine = create_engine(database_url)
    rolled = roll("4d6kh3", random.Random(8))
    test = result_from_roll("renove", 45, (), 1)
    try:
        await upgrade(engine, "0014")
        rows = [
            (3, "roll", "4d6kh3", rolled.total, False, {**rolled.to_dict(), "manual": False}),
            (4, "test", "d100 ≤ 45", 1, True, {**test.to_dict(), "manual": True}),
            (4, "roll_secret", "?", None, False, {"secret": True}),  # a notice: no die
        ]
        async with engine.begin() as conn:
            for user, kind, expression, total, secret, result in rows:
                values = {"user": user, "kind": kind, "expression": expression, "total": total}
                await conn.execute(INSERT, {**values, "secret": secret, "result": json.dumps(result)})
        await upgrade(engine)
        async with engine.connect() as conn:
            faces = (
                await conn.execute(
                    text(
                        "SELECT user_id, sides, face, count, secret, manual, ruleset, target, crit"
                        " FROM roll_faces"
                    )
                )
            ).all()
        sixes = [r for r in faces if r.sides == 6]
        assert sum(r.count for r in sixes) == 4 and all(r.user_id == 3 and not r.manual for r in sixes)
        expected = sorted(d.value for d in rolled.groups[0].dice)
        assert sorted(r.face for r in sixes for _ in range(r.count)) == expected
        (d100,) = [r for r in faces if r.sides == 100]
        assert (d100.face, d100.secret, d100.manual, d100.ruleset, d100.target, d100.crit) == (
            1, True, True, "renove", 45, 1
        )  # fmt: skip
        await downgrade(engine, "0014")
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        assert "roll_faces" not in tables
    finally:
        await engine.dispose()
