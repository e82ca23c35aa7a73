"""`d20` special fire through the fire service (seed 003, lines 121-127, 196-262), every die by hand:
burst fire on several targets and on one, covering fire, artillery scatter (and the printed-d6
fight option), fighter gunnery; a server's uploaded damage-by-location table applied to the hits,
and the same upload read by the next ``/combat`` attack; refusals (another system, rights)."""

from __future__ import annotations

import json
from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services import house_rules
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight, show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import d20_fire as fire

from .fight_context import next_round
from .test_fights import ALICE, BOB, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx"]

BODY = "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11"
SHOOTER = NpcStats(
    caracs="FOR:12 CON:14 AGI:15 DEX:13", weapons="Mitraillette 13 +2 tir, Mortier 14 tir, Canon 20 +3 tir"
)
TARGET = NpcStats(caracs=BODY, weapons="Épée 14 +3 tranchant par=13")
PV, PC = 35 + 14, 14 * 2  # seed lines 264-269: PV = 35 + Con, PC = Con × 2
TABLE = {
    "table": "d20_damage_by_location",
    "entries": [
        {"min": 0, "pv": 1, "text": {"fr": "éraflure", "en": "graze"}},
        {"min": 10, "pv": 4, "pc": 2, "text": {"fr": "plaie", "en": "wound"}},
        {"min": 20, "pv": 10, "effect": "unconscious", "text": {"fr": "grave", "en": "serious"}},
    ],
}


async def d20_fight(ctx: AppContext, *, options: str | None = None, caller: Caller = GM) -> int:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, caller.channel_id, "d20")
    fight_id = int(ok(await open_fight(ctx, caller, name="Feu", options=options))["fight_id"])
    ok(await add_combatants(ctx, caller, who="Tireur", stats=SHOOTER, side="Tireurs"))
    ok(await add_combatants(ctx, caller, who="Garde", stats=TARGET))
    ok(await add_combatants(ctx, caller, who="Bretteur", stats=TARGET, side="Bretteurs"))
    return fight_id


async def upload(ctx: AppContext, document: Any, who: Caller = GM) -> Any:
    data = json.dumps(document, ensure_ascii=False).encode()

    async def read() -> bytes:
        return data

    return await house_rules.import_house_rules(ctx, who, filename="t.json", size=len(data), read=read)


async def pools(ctx: AppContext, name: str) -> tuple[int, int]:
    shown = await show(ctx, GM)
    value = {f.name.lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f.value for f in shown.reply.fields}[name]
    pv = int(value.split("PV ")[1].split("/")[0])
    pc = int(value.split("PC ")[1].split("/")[0])
    return pv, pc


ROUND = "Tireur: 15; Garde: 10; Bretteur: 8"


async def test_burst_on_several_targets_without_a_table(ctx: AppContext) -> None:
    await d20_fight(ctx)
    ok(await next_round(ctx, GM, dice=ROUND))
    data = fire.BurstInput(targets="Garde, Bretteur", roll=3, hits="4 3", zones="2 5 1", damage="12 4 9")
    result = ok(await fire.burst(ctx, GM, data, rng=NoDice()))
    check = result["check"]
    # score 13, two targets −2 → 11; roll 3 → MR 8 (band 5-9: a d6 around the aimed point)
    assert [m["value"] for m in check["modifiers"]] == [13, -2] and check["target"] == 11
    assert check["margin"] == 8
    # 1d4 − 2 each: 4 → 2 bullets, 3 → 1
    assert result["burst"]["bullets_hitting"] == [2, 1]
    garde, bretteur = result["targets"]
    assert [(i["die"], i["zone_roll"], i["damage_index"]) for i in garde["impacts"]] == [
        (6, 2, 14),
        (6, 5, 6),
    ]
    assert [(i["zone_roll"], i["damage_index"]) for i in bretteur["impacts"]] == [(1, 11)]  # 9 + 2
    # no server table: nothing is taken off, the indexes are for the GM
    assert "health" not in garde and await pools(ctx, "Garde") == (PV, PC)
    # the shot is the Tireur's action: the turn passed to the Garde, a second burst is refused
    again = await fire.burst(ctx, GM, fire.BurstInput(targets="Garde", shooter="Tireur", bullets=10))
    assert again.reply.is_error and "Tireur" in (again.reply.description or "")


async def test_single_target_burst_with_the_uploaded_table(ctx: AppContext) -> None:
    await d20_fight(ctx)
    stored = await upload(ctx, TABLE)
    assert not stored.is_error and stored.result["added"] == 3
    ok(await next_round(ctx, GM, dice=ROUND))
    data = fire.BurstInput(targets="Garde", bullets=25, roll=5, hits="2 1", damage="12 4 19")
    result = ok(await fire.burst(ctx, GM, data, rng=NoDice()))
    # two full tens: +2 × 2 = +4 → 17; roll 5 → MR 12: exact, no zone die; 2d6 (2, 1) → 3 bullets
    assert result["check"]["target"] == 17 and result["check"]["margin"] == 12
    assert result["burst"]["bullets_hitting"] == [3]
    [garde] = result["targets"]
    # d20 + 2: 14 (row 10: 4 PV, 2 PC), 6 (row 0: 1 PV), 21 (row 20: 10 PV, unconscious)
    assert [i["damage_index"] for i in garde["impacts"]] == [14, 6, 21]
    assert (garde["pv"], garde["pc"], garde["effect"]) == (15, 2, "unconscious")
    assert garde["health"]["pv_lost"] == 15 and garde["health"]["pc_lost"] == 2
    assert garde["health"]["malus"] == -(15 + 2 - 14)  # 1 per point lost beyond Con
    assert await pools(ctx, "Garde") == (PV - 15, PC - 2)
    shown = await show(ctx, GM)
    assert any(f.name.startswith("💤") and "Garde" in f.name for f in shown.reply.fields)


async def test_the_uploaded_table_is_read_by_the_next_attack_and_a_bad_one_refused(ctx: AppContext) -> None:
    fight_id = await d20_fight(ctx)
    bad = await upload(
        ctx, {"table": "d20_damage_by_location", "entries": [{"min": 0, "pv": -1, "text": {"fr": "x"}}]}
    )
    assert bad.is_error and not bad.result["stored"]
    assert "entries/0/pv: -1 is less than the minimum of 0" in bad.result["problems"]
    assert any("en" in p and "required" in p for p in bad.result["problems"])
    assert not (await upload(ctx, TABLE)).is_error
    ok(await next_round(ctx, GM, dice="Bretteur: 15; Garde: 10; Tireur: 5"))
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Garde", attacker="Bretteur", roll=4), rng=NoDice()
        )
    )
    hit = ok(
        await defend(
            ctx,
            GM,
            choice="encaisser",
            fight_id=fight_id,
            seq=attack["seq"],
            rolls=DefenceRolls(),
            rng=NoDice(),
        )
    )
    # undefended: MR 14 − 4 = 10 is the index, + sword 3 = 13 → the row from 10: 4 PV and 2 PC;
    # shock (3 + 10 + BF 2) // 2 = 7 (no armour) + the row's 2 PC
    assert hit["blow"]["damage_index"] == 13
    assert hit["health"]["pv_lost"] == 4 and hit["health"]["pc_lost"] == 9


async def test_covering_fire_artillery_and_gunnery(ctx: AppContext) -> None:
    await d20_fight(ctx)
    assert not (await upload(ctx, TABLE)).is_error
    ok(await next_round(ctx, GM, dice=ROUND))
    # covering: d100 12 ≤ 13 (the weapon score) → hit; with two targets a d2 picks: 2 → Bretteur;
    # its damage as an ordinary shot: d20 9 + 2 = 11 → row 10: 4 PV, 2 PC
    data = fire.CoveringInput(targets="Garde, Bretteur", roll=12, pick=2, damage=9)
    covering = ok(await fire.covering(ctx, GM, data, rng=NoDice()))
    assert covering["hit"] and covering["score"] == 13 and covering["victim"] == "bretteur"
    assert covering["damage_index"] == 11 and covering["health"]["pv_lost"] == 4
    assert await pools(ctx, "Bretteur") == (PV - 4, PC - 2)

    ok(await next_round(ctx, GM, dice=ROUND))
    missed = ok(await fire.covering(ctx, GM, fire.CoveringInput(zone="la porte", roll=14), rng=NoDice()))
    assert not missed["hit"] and missed["roll"] == 14

    ok(await next_round(ctx, GM, dice=ROUND))
    # artillery (Mortier 14): roll 12 → MR 2 → d20 distance (reading); direction 7 → left; 14 → 27 m
    data_a = fire.ArtilleryInput(target="Garde", weapon="Mortier", roll=12, direction=7, distance=14)
    art = ok(await fire.artillery(ctx, GM, data_a, rng=NoDice()))
    scatter = art["scatter"]
    assert (scatter["direction"], scatter["distance_die"], scatter["metres"]) == ("left", 20, 27)
    ok(await next_round(ctx, GM, dice=ROUND))
    on_target = ok(
        await fire.artillery(
            ctx, GM, fire.ArtilleryInput(target="le pont", weapon="Mortier", roll=4), rng=NoDice()
        )
    )
    assert on_target["scatter"]["on_target"] and on_target["aimed"] == "le pont"  # MR 10

    ok(await next_round(ctx, GM, dice=ROUND))
    # gunnery (Canon 20 +3): 2000 km/h → −4, human size −10 → 6; roll 4 → MR 2 → a d20 on the hit
    # table: 19 hits; d20 11 + 3 = 14 → row 10: 4 PV, 2 PC more on the Bretteur
    data_g = fire.AirInput(
        target="Bretteur", weapon="Canon", roll=4, die=19, situation="vitesse:2000, taille_humaine", damage=11
    )
    air = ok(await fire.air(ctx, GM, data_g, rng=NoDice()))
    assert [m["value"] for m in air["check"]["modifiers"]] == [20, -4, -10] and air["check"]["margin"] == 2
    assert (air["die"], air["hit_roll"], air["hit"], air["damage_index"]) == (20, 19, True, 14)
    assert await pools(ctx, "Bretteur") == (PV - 8, PC - 4)
    ok(await next_round(ctx, GM, dice=ROUND))
    miss = ok(
        await fire.air(
            ctx, GM, fire.AirInput(target="Bretteur", weapon="Canon", roll=12, die=5), rng=NoDice()
        )
    )
    assert miss["check"]["margin"] == 8 and (miss["die"], miss["hit"]) == (6, False)  # d6 5: raté


async def test_the_printed_d6_option(ctx: AppContext) -> None:
    await d20_fight(ctx, options="artillerie:d6")
    ok(await next_round(ctx, GM, dice=ROUND))
    data = fire.ArtilleryInput(target="Garde", weapon="Mortier", roll=12, direction=1, distance=6)
    art = ok(await fire.artillery(ctx, GM, data, rng=NoDice()))
    assert (
        art["distance_as_printed"] and art["scatter"]["distance_die"] == 6 and art["scatter"]["metres"] == 12
    )
    refused = await fire.artillery(
        ctx, GM, fire.ArtilleryInput(target="Garde", weapon="Mortier", roll=12, direction=1, distance=7)
    )
    assert refused.reply.is_error


async def test_refusals(ctx: AppContext) -> None:
    ok(await open_fight(ctx, GM, name="Renove"))
    other = await fire.burst(ctx, GM, fire.BurstInput(targets="x", bullets=10))
    assert other.reply.is_error and "renove" in (other.reply.description or "")
    assert "/combat attaque" in (other.reply.description or "")
    english = await fire.air(ctx, BOB, fire.AirInput(target="x"))
    assert english.reply.is_error and "belongs to the d20 system" in (english.reply.description or "")
    ok(await end_fight(ctx, GM))

    await d20_fight(ctx)
    ok(await next_round(ctx, GM, dice=ROUND))
    not_yours = await fire.burst(ctx, ALICE, fire.BurstInput(targets="Garde", shooter="Tireur", bullets=10))
    assert not_yours.reply.is_error and "Tireur" in (not_yours.reply.description or "")
    few = await fire.burst(ctx, GM, fire.BurstInput(targets="Garde", bullets=9))
    assert few.reply.is_error and "/combat attaque" in (few.reply.description or "")
    sword = await fire.burst(ctx, GM, fire.BurstInput(targets="Tireur", shooter="Garde", bullets=10))
    assert sword.reply.is_error  # not his turn, and a sword is no ranged weapon
    failed = ok(await fire.burst(ctx, GM, fire.BurstInput(targets="Garde, Bretteur", roll=15), rng=NoDice()))
    assert failed["burst"]["bullets_hitting"] == [] and failed["targets"] == []  # 15 > 11: no bullet


async def test_gunnery_reads_the_servers_hit_table(ctx: AppContext) -> None:
    await d20_fight(ctx)
    ok(await next_round(ctx, GM, dice=ROUND))
    # Canon 20 +3, roll 12 → MR 8: a d6 on the hit table; the seed's face 5 is "Raté !"
    seed = ok(await fire.air(ctx, GM, fire.AirInput(target="Bretteur", weapon="Canon", roll=12, die=5)))
    assert (seed["die"], seed["hit_roll"], seed["hit"]) == (6, 5, False)
    # a house rule of the GM: 5 hits, 1 misses
    override = {"table": "d20_air_combat", "entries": [{"face": 5, "hit": True}, {"face": 1, "hit": False}]}
    assert not (await upload(ctx, override)).is_error
    ok(await next_round(ctx, GM, dice=ROUND))
    house = ok(
        await fire.air(
            ctx, GM, fire.AirInput(target="Bretteur", weapon="Canon", roll=12, die=5, damage=1), rng=NoDice()
        )
    )
    assert (house["hit_roll"], house["hit"], house["damage_index"]) == (5, True, 1 + 3)
    ok(await next_round(ctx, GM, dice=ROUND))
    one = ok(await fire.air(ctx, GM, fire.AirInput(target="Bretteur", weapon="Canon", roll=12, die=1)))
    assert (one["hit_roll"], one["hit"]) == (1, False)  # "Touché !" in the seed, a miss here
