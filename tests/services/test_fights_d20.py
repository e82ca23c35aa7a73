"""`d20` fights through the fight service (seed 003, lines 27-35, 50-60, 71-81, 160-162, 264-269),
every die by hand: the four cases of the attack/defence comparison, the edged blow against an
armour layer (penetration, shock, rupture), PC lost, the attacker's malus carried to his next
action, and the damage index read from a server's table when there is one."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats

from .fight_context import next_round
from .test_fights import CHANNEL, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx"]

FIGHTER = NpcStats(
    caracs="FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11", weapons="Épée 14 +3 tranchant par=13"
)


async def d20_fight(ctx: AppContext, *, armour: str | None = "Cuir 2/1/15") -> int:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    fight_id = int(ok(await open_fight(ctx, GM, name="Duel"))["fight_id"])
    ok(await add_combatants(ctx, GM, who="Bretteur", stats=FIGHTER, side="Bretteurs"))
    ok(await add_combatants(ctx, GM, who="Garde", stats=dataclasses.replace(FIGHTER, armour=armour)))
    return fight_id


async def exchange(
    ctx: AppContext, fight_id: int, attacker: str, target: str, roll: int, choice: str, defence: int | None
) -> dict[str, Any]:
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target=target, attacker=attacker, roll=roll), rng=NoDice()
        )
    )
    return ok(
        await defend(
            ctx,
            GM,
            choice=choice,
            fight_id=fight_id,
            seq=attack["seq"],
            rolls=DefenceRolls(roll=defence),
            rng=NoDice(),
        )
    )


async def test_the_four_cases_through_the_fight_service(ctx: AppContext) -> None:
    fight_id = await d20_fight(ctx)
    ok(await next_round(ctx, GM, dice="Bretteur: 15; Garde: 10"))
    # 1. both succeed, attacker higher: score 14, roll 4 → MR 10; parry 13, roll 10 → MR 3 → index 7.
    first = await exchange(ctx, fight_id, "Bretteur", "Garde", 4, "parer", 10)
    assert first["case"] == "both_succeed_attacker_higher" and first["exchange"]["damage_index"] == 7
    # edged: penetration +3 + MR 10 + BF 2 = 15 > RP 2 (pierced); shock 15 // 2 = 7 − RC 1 = 6 → PC;
    # 15 + 7 = 22 > SR 15: the leather is ruined; edged index = 7 + weapon 3 = 10 (no table: for the GM)
    blow, armour = first["blow"], first["armour"]
    assert blow["penetration"] == 15 and blow["shock"] == 7 and blow["damage_index"] == 10
    [layer] = armour["layers"]
    assert layer["pierced"] and layer["ruptured"] and armour["shock"] == 6
    assert first["health"]["pc_lost"] == 6 and first["health"]["pv_lost"] == 0
    # 2. both succeed, defender higher: roll 10 → MR 4; parry roll 5 → MR 8 → attacker −4 next action
    second = await exchange(ctx, fight_id, "Garde", "Bretteur", 10, "parer", 5)
    assert second["case"] == "both_succeed_attacker_lower" and second["exchange"]["attacker_malus"] == -4
    assert second["exchange"]["initiative_to_defender"]

    ok(await next_round(ctx, GM, dice="Bretteur: 15; Garde: 10"))
    # 3. equal: MR 5 (roll 9) against the Garde's parry 13 − 4 (his malus) = 9, roll 4 → MR 5: blocked
    third = await exchange(ctx, fight_id, "Bretteur", "Garde", 9, "parer", 4)
    assert third["case"] == "both_succeed_equal" and third["exchange"]["only_retreat"]
    parry = third["exchange"]["defence"]
    assert [m["value"] for m in parry["modifiers"]] == [13, -4] and parry["target"] == 9
    # attacker succeeds, defender fails: MR 10 + failure margin 16 − 13 = 3 → index 13 (+3 edged = 16)
    fourth = await exchange(ctx, fight_id, "Garde", "Bretteur", 4, "parer", 16)
    assert fourth["case"] == "attacker_succeeds_defender_fails" and fourth["exchange"]["damage_index"] == 13
    assert fourth["blow"]["damage_index"] == 16 and fourth["health"]["pc_lost"] == 7  # no armour: 15 // 2

    ok(await next_round(ctx, GM, dice="Bretteur: 15; Garde: 10"))
    # 4. attacker fails, defender succeeds: failure 17 − 14 = 3 + MR 13 − 10 = 3 → malus −6
    fifth = await exchange(ctx, fight_id, "Bretteur", "Garde", 17, "parer", 10)
    assert fifth["case"] == "attacker_fails_defender_succeeds" and fifth["exchange"]["attacker_malus"] == -6
    # both fail: nothing (the dodge is the Bretteur's next action: Esquive 11 − 6 = 5, roll 15)
    sixth = await exchange(ctx, fight_id, "Garde", "Bretteur", 18, "esquiver", 15)
    assert sixth["case"] == "both_fail" and sixth["exchange"]["damage_index"] is None
    assert sixth["exchange"]["defence"]["target"] == 5
    shown = await show(ctx, GM)
    fields = {f.name.lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f.value for f in shown.reply.fields}
    # Bretteur: CON 14 → PV 35 + 14 = 49, PC 14 × 2 = 28 − 7
    assert "PV 49/49 · PC 21/28" in fields["Bretteur"]


async def test_the_damage_index_is_read_from_the_server_table(ctx: AppContext) -> None:
    table = SimpleNamespace(
        document={
            "entries": [{"min": 0, "text": "égratignure", "pv": 1}, {"min": 10, "text": "plaie", "pv": 6}]
        }
    )
    ctx = dataclasses.replace(ctx, tables={**ctx.tables, "d20_damage_by_location": table})
    fight_id = await d20_fight(ctx, armour=None)
    ok(await next_round(ctx, GM, dice="Bretteur: 15; Garde: 10"))
    hit = await exchange(ctx, fight_id, "Bretteur", "Garde", 4, "encaisser", None)
    # undefended: the attacker's MR 10 is the index; edged + 3 → 13 → the row from 10: 6 PV
    assert hit["case"] == "undefended" and hit["blow"]["damage_index"] == 13
    assert hit["health"]["pv_lost"] == 6 and hit["health"]["pc_lost"] == 7
    bad = await fights_attacks.attack(
        ctx, GM, AttackInput(target="Bretteur", attacker="Garde", weapon="Hache")
    )
    assert bad.reply.is_error
