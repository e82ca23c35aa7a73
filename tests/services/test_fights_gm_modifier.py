"""Only the GM gives a free modifier (#23 item 4): a player's ``situation:mod:+90`` on his own v1 or
d20 attack, or on his d20 burst of fire, is refused privately before anything is rolled or spent;
the GM's same modifier is applied."""

from __future__ import annotations

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.characters import create_character
from bot.services.fights.attacks import AttackInput, attack
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import d20_fire as fire

from .fight_context import next_round
from .test_fights import ALICE, CHANNEL, GM, GUILD, NoDice, ctx, ok
from .test_fights_v1 import GOBLIN, albert
from .test_fights_v1 import opened as v1_fight

__all__ = ["ctx"]

REFUSAL = "Seul le MJ peut ajouter un modificateur libre"


async def test_a_players_free_modifier_is_refused_in_v1(ctx: AppContext) -> None:
    await albert(ctx)
    await v1_fight(ctx)
    ok(await add_combatants(ctx, ALICE, who="Albert", stats=NpcStats(weapons="Épée +0")))
    ok(
        await add_combatants(
            ctx, GM, who="Gobelin", stats=NpcStats(caracs=GOBLIN, weapons="Hache"), side="Gobelins"
        )
    )
    ok(await next_round(ctx, GM))
    cheat = await attack(ctx, ALICE, AttackInput(target="Gobelin", roll=90, damage="4", situation="mod:+90"))
    assert cheat.reply.is_error and cheat.reply.ephemeral and REFUSAL in (cheat.reply.description or "")
    granted = ok(
        await attack(
            ctx,
            GM,
            AttackInput(target="Gobelin", attacker="Albert", roll=80, damage="4", situation="mod:+40"),
            rng=NoDice(),
        )
    )
    assert granted["attack"]["check"]["target"] == 45 + 40  # CC 45 and the GM's +40


async def test_a_players_free_modifier_is_refused_on_a_d20_burst(ctx: AppContext) -> None:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    ok(await open_fight(ctx, GM, name="Feu"))
    sheet = "FOR:12 CON:14 AGI:13 DEX:12 PER:12 INT:12 VOL:12 CHA:12"
    assert not (await create_character(ctx, ALICE, name="Tireuse", ruleset="d20", stats=sheet)).is_error
    ok(await add_combatants(ctx, ALICE, who="Tireuse", stats=NpcStats(weapons="Mitraillette 13 +2 tir")))
    ok(
        await add_combatants(
            ctx, GM, who="Garde", stats=NpcStats(caracs="FOR:12 CON:14 AGI:13 DEX:12"), side="Gardes"
        )
    )
    ok(await next_round(ctx, GM, dice="Tireuse: 15; Garde: 10"))
    cheat = await fire.burst(
        ctx, ALICE, fire.BurstInput(targets="Garde", bullets=10, roll=5, situation="mod:+9")
    )
    assert cheat.reply.is_error and cheat.reply.ephemeral and REFUSAL in (cheat.reply.description or ""), (
        cheat.reply.description
    )
