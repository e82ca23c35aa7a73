"""A clean stop (SIGTERM, as `docker stop` sends) closes the bot properly; rolls are durable."""

from __future__ import annotations

import sqlite3

from .harness import E2E


async def test_sigterm_closes_cleanly_and_every_answered_roll_is_in_the_log(emu: E2E) -> None:
    alice = emu.user("alice")
    for _ in range(20):
        result = await alice.slash("lancer", expression="1d100")
        assert result.callback_type == 4
    bot = emu.bot
    assert bot is not None and bot.proc is not None
    process = bot.proc
    await bot.stop()
    assert process.returncode == 0, bot.log_tail()
    database = emu.database_url.split("///", 1)[1]
    with sqlite3.connect(database) as connection:
        (count,) = connection.execute("SELECT count(*) FROM roll_log WHERE kind = 'roll'").fetchone()
    assert count == 20
