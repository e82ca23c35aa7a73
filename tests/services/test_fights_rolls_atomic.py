"""A fight action and its rolls commit together (#23 item 11), on SQLite and PostgreSQL.

Faults are injected by the database itself — a trigger that refuses the roll-log rows, or the fight's
own update, when a switch is set — at each step of an action (``/combat round``: two initiative
rolls; a defence: its damage roll). After every attempt the invariant holds: every applied action
has all its rolls, and no roll exists without its action. Before the fix the fight committed first
and its rolls afterwards, so a refused roll left an applied round without its initiative rolls."""

from __future__ import annotations

from sqlalchemy import func, select, text

from bot.context import AppContext
from bot.db.fight_models import Fight
from bot.db.models import RollLog
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants
from bot.services.fights.rounds import new_round

from .fight_context import ctx, ok
from .test_fights import ALICE, GM, character, opened

__all__ = ["ctx"]

SQLITE_TRIGGERS = (
    "CREATE TABLE fault (step INTEGER NOT NULL)",
    "INSERT INTO fault VALUES (0)",
    "CREATE TRIGGER fault_rolls BEFORE INSERT ON roll_log WHEN (SELECT step FROM fault) = 1 "
    "BEGIN SELECT RAISE(ABORT, 'injected fault: roll log'); END",
    "CREATE TRIGGER fault_fight BEFORE UPDATE ON fights WHEN (SELECT step FROM fault) = 2 "
    "BEGIN SELECT RAISE(ABORT, 'injected fault: fight'); END",
)
POSTGRES_TRIGGERS = (
    "CREATE TABLE fault (step INTEGER NOT NULL)",
    "INSERT INTO fault VALUES (0)",
    """CREATE FUNCTION fault_check() RETURNS trigger AS $$
    BEGIN
      IF (SELECT step FROM fault) = TG_ARGV[0]::int THEN
        RAISE EXCEPTION 'injected fault: %', TG_TABLE_NAME USING ERRCODE = '23514';
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER fault_rolls BEFORE INSERT ON roll_log FOR EACH ROW EXECUTE FUNCTION fault_check(1)",
    "CREATE TRIGGER fault_fight BEFORE UPDATE ON fights FOR EACH ROW EXECUTE FUNCTION fault_check(2)",
)


async def _install(ctx: AppContext) -> None:
    async with ctx.sessions.begin() as session:
        dialect = session.bind.dialect.name
        for statement in SQLITE_TRIGGERS if dialect == "sqlite" else POSTGRES_TRIGGERS:
            await session.execute(text(statement))


async def _fault(ctx: AppContext, step: int) -> None:
    async with ctx.sessions.begin() as session:
        await session.execute(text("UPDATE fault SET step = :step"), {"step": step})


async def _counts(ctx: AppContext, fight_id: int) -> tuple[int, int, int, int]:
    """(round, initiative rolls, fight version, damage rolls)."""
    async with ctx.sessions() as session:
        fight = await session.get(Fight, fight_id)
        assert fight is not None
        initiative = await session.scalar(
            select(func.count()).select_from(RollLog).where(RollLog.kind == "combat.initiative")
        )
        damage = await session.scalar(
            select(func.count()).select_from(RollLog).where(RollLog.kind == "combat.damage")
        )
        return int(fight.round), int(initiative or 0), int(fight.version), int(damage or 0)


async def test_an_action_and_its_rolls_are_written_together_or_not_at_all(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Élise", 45)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, ALICE, who="Élise"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    await _install(ctx)
    dice = "Élise: 15 12 10; Gobelin: 5 5 5"
    applied = 0
    for step in (0, 1, 2, 0, 1, 0, 2, 2, 0):
        await _fault(ctx, step)
        before = await _counts(ctx, fight_id)
        outcome = await new_round(ctx, GM, dice=dice, fight_id=fight_id, confirmed=before[0])
        after = await _counts(ctx, fight_id)
        if step:  # refused by the database: told to try again, nothing of it written
            assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply.description
            assert after == before
        else:
            assert not outcome.reply.is_error, outcome.reply.description
            applied += 1
        assert after[0] == applied and after[1] == 2 * applied  # every round has its two rolls
    # a defence with its damage roll: refused at the roll, then at the fight, then written
    await _fault(ctx, 0)
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin", roll=20, damage="5")))
    for step in (1, 2, 0):
        await _fault(ctx, step)
        before = await _counts(ctx, fight_id)
        taken = await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"])
        after = await _counts(ctx, fight_id)
        assert (after == before) == bool(step), (step, taken.reply.description)
        assert after[3] == (0 if step else 1)
