"""A fight action that cannot be answered within Discord's 3 s (the database's write lock is held
by someone else) is acknowledged privately in time, then answered: a refusal stays private and says
"retry", nothing is written; a result that goes through is public, after a private note."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.i18n import default_catalog

from .conftest import running
from .support import embed_text, language_problems, outcome_of
from .test_concurrency import FIGHTERS, _characters, _open_fight, _read_fight


async def test_slow_fight_actions_are_acknowledged_in_time_and_answered(tmp_path: Path) -> None:
    async with running(tmp_path, env={"MELEE_RATE_LIMITS": "off"}) as table:
        await _characters(table, FIGHTERS)
        fight = await _open_fight(table, "Mêlée", "partie", FIGHTERS, 0)
        gm = table.user("gm")
        catalog = default_catalog()
        _, version, events = await _read_fight(table.database_url, fight.fight_id)

        # Another writer holds SQLite's write lock longer than the bot's busy timeout (2 s).
        blocker = sqlite3.connect(table.db_path, timeout=10, isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")
            fixed = await gm.slash(
                "combat fix", who="Gobelin 3", field="Int", value=77, channel=fight.thread, timeout=10
            )
            assert fixed.callback_type == 5 and fixed.ephemeral  # a private "thinking…", within 3 s
            # the one defence the turn waits for (Gobelin 1's, the GM's to answer)
            seq, (_, attack) = next(iter(fight.waiting.items()))
            clicked = await gm.click(
                f"melee:fight:{fight.fight_id}:def:{seq}:encaisser", message=attack, timeout=10
            )
            assert clicked.callback_type == 6  # a click: acknowledged without touching the message
            await table.emu.wait_until(
                lambda: not fixed.message.loading and clicked.interaction.followup_ids,  # type: ignore[union-attr]
                timeout=15,
                what="the deferred answers",
            )
        finally:
            blocker.rollback()
            blocker.close()
        retry = {lang: catalog.t(lang, "combat.error.stale") for lang in ("fr", "en")}
        assert embed_text(fixed.embed) == retry["fr"] and fixed.ephemeral
        [answer] = [table.emu.messages[m] for m in clicked.interaction.followup_ids]
        assert answer.visible_to == gm.id and embed_text(answer.embeds[0]) == retry["fr"]
        _, version_after, events_after = await _read_fight(table.database_url, fight.fight_id)
        assert (version_after, events_after) == (version, events)  # nothing written

        # Released as soon as the bot has acknowledged: the fix goes through (a public result after
        # a private note), or, if the bot's busy wait ran out first, it is refused like above.
        blocker = sqlite3.connect(table.db_path, timeout=10, isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")
            fixed = await gm.slash(
                "combat fix", who="Gobelin 3", field="Int", value=78, channel=fight.thread, timeout=10
            )
            assert fixed.callback_type == 5 and fixed.ephemeral
        finally:
            blocker.rollback()
            blocker.close()
        await table.emu.wait_until(
            lambda: (
                fixed.message is not None
                and not fixed.message.loading
                and (fixed.message.embeds or len(fixed.interaction.followup_ids) >= 2)
            ),
            timeout=15,
            what="the deferred answer",
        )
        outcome = outcome_of(table.emu.messages, fixed.interaction)
        assert not language_problems(outcome.text, "fr", ["Gobelin 3"]), outcome.text
        doc, _, _ = await _read_fight(table.database_url, fight.fight_id)
        gob3 = next(c for c in doc["fight"]["combatants"] if c["name"] == "Gobelin 3")
        last = "refused" if outcome.refused else "went through"
        print(f"\ndeferral: 3 slow fight actions acknowledged in time; the last one {last}")
        if outcome.refused:
            assert embed_text(fixed.embed) == retry["fr"] and gob3["characteristics"]["Int"] != 78
        else:
            note, result = outcome.messages
            assert note.visible_to == gm.id and note.content == catalog.t("fr", "combat.deferred.posted")
            assert result.visible_to is None and "78" in embed_text(result.embeds[0])
            assert gob3["characteristics"]["Int"] == 78
