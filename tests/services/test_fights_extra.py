"""The fight service beyond the scripted fight: mort subite, permanent changes confirmed onto the sheet,
a 40-fighter tracker within Discord's limits, death timers, lost rounds, the GM's corrections.

Every die is typed by hand (the bot's random source raises if it is asked for one); every expected
number is recomputed from the data tables.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from bot.context import AppContext
from bot.data_loading import load_all
from bot.db.characters import new_row
from bot.db.fight_models import Fight
from bot.db.models import Character
from bot.rules.sheets import SheetData, fold, validate_characteristics
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import MAX_COMBATANTS, QUICK_NPC_DEFAULTS, DefenceRolls, FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import correct, edit_condition
from bot.services.fights.damage import answer_proposal
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight, show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.sides import set_side
from bot.ui.discord_render import to_embed

from .fight_context import ctx, next_round, ok, skip_turn

__all__ = ["ctx"]

GUILD, CHANNEL = 800, 42
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
STATS = {"CC": 30, "CT": 30, "F": 35, "E": 40, "Ag": 38, "Int": 30, "FM": 30, "Soc": 33, "A": 1, "M": 4}
DOCS = {name: table.document for name, table in load_all().items()}
GOBLIN = dict(QUICK_NPC_DEFAULTS)
GOBLIN_BF = next(
    e["BF"] for e in DOCS["creatures_bf"]["entries"] for c in e["creatures"] if c["id"] == "gobelin"
)
PLAYABLE = DOCS["creatures_bf"]["rule"]["playable_bonus"]
GAMBISON = "matelassee_gambison_court"


class NoDice:
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


# -- the tables ------------------------------------------------------------------------------


def grid(d100: int, damage: int) -> int:
    matrix = DOCS["critical_matrix"]
    row = next(e for e in matrix["entries"] if e["d100_min"] <= d100 <= e["d100_max"])
    value = row["values"][matrix["damage_columns"].index(min(damage, 10))] + max(0, damage - 10)
    return max(matrix["clamp"]["min"], min(matrix["clamp"]["max"], value))


def band_of(value: int) -> str:
    return next(e["outcome"] for e in DOCS["mort_subite"]["entries"] if e["min"] <= value <= e["max"])


def mechanics(kind: str, zone: str, value: int) -> list[dict[str, Any]]:
    doc = DOCS[f"criticals_{kind}"]
    return list(next(e for e in doc["entries"] if e["zone"] == zone and e["value"] == value)["mechanics"])


def shield_of(weapon: str) -> dict[str, Any]:
    return next(s for s in DOCS["shields"]["entries"] if weapon in s["weapons"])


# -- helpers ---------------------------------------------------------------------------------


async def character(
    ctx: AppContext,
    owner: int,
    name: str,
    *,
    weapons: tuple[str, ...] = ("epee",),
    armour: tuple[str, ...] = (),
    **stats: int,
) -> None:
    data = SheetData(
        name=name,
        ruleset="renove",
        characteristics=validate_characteristics("renove", {**STATS, **stats}),  # BF/BE with the +3
        skills={"Intimidation": 10},
        weapons=list(weapons),
        armour=list(armour),
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, owner, data))


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


async def opened(ctx: AppContext, *, mort_subite: bool = False, name: str = "Duel") -> int:
    return int(ok(await open_fight(ctx, GM, name=name, mort_subite=mort_subite))["fight_id"])


async def albert_against_a_goblin(
    ctx: AppContext,
    *,
    weapons: tuple[str, ...] = ("epee", "bouclier"),
    armour: tuple[str, ...] = (),
    dice: str = "Gobelin: 10 10 10; Albert: 1 1 1",
) -> int:
    """Alice's Albert (CC 45) and a quick goblin in a fight, the round started with ``dice`` (the
    goblin first by default); the fight's id."""
    await character(ctx, ALICE.user_id, "Albert", CC=45, weapons=weapons, armour=armour)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await next_round(ctx, GM, dice=dice))
    return fight_id


async def albert_parries(
    ctx: AppContext, fight_id: int, attack: dict[str, Any], roll: int, side_effect: int
) -> FightOutcome:
    """Alice answers ``attack`` with a parry, the d100 and the side effect's d100 typed."""
    return await defend(
        ctx,
        ALICE,
        choice="parer",
        fight_id=fight_id,
        seq=attack["seq"],
        rolls=DefenceRolls(roll=roll, side_effect=side_effect),
        rng=NoDice(),
    )


async def shown(ctx: AppContext) -> dict[str, Any]:
    return ok(await show(ctx, GM))


async def combatant(ctx: AppContext, cid: str) -> dict[str, Any]:
    state = (await shown(ctx))["state"]
    return next(c for c in state["combatants"] if c["id"] == cid)


def kinds(c: dict[str, Any]) -> list[str]:
    return [x["kind"] for x in c["conditions"]]


async def goblins_round(ctx: AppContext, count: int = 2, **kw: Any) -> None:
    ok(await add_combatants(ctx, GM, who=f"{count} gobelins", **kw))
    for i in range(2, count + 1):  # each goblin on a side of his own: they fight each other
        ok(await set_side(ctx, GM, who=f"Gobelin {i}", side=f"Bande {i}"))
    dice = "; ".join(f"Gobelin {i}: {11 - i} {11 - i} {11 - i}" for i in range(1, count + 1))
    ok(await next_round(ctx, GM, dice=dice))


async def hit(
    ctx: AppContext,
    fight_id: int,
    *,
    target: str,
    zone: str,
    die: int,
    d100: int,
    caller: Caller = GM,
    **hand: Any,
) -> FightOutcome:
    """The acting combatant hits ``target`` (roll 05), the victim takes it; every die by hand."""
    attack = ok(
        await fights_attacks.attack(
            ctx,
            caller,
            AttackInput(target=target, roll=5, zone=zone, damage=str(die), critical=d100, **hand),
            rng=NoDice(),
        )
    )
    assert attack["pending"], attack
    return await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())


HAND = {"effects": "50 50 50 50", "durations": "5 5 5 5 5 5"}


# ==========================================================================================
# mort subite
# ==========================================================================================

# (d100, damage) → a critical value at each edge of the three bands (1–7, 8–12, 13–15)
MORT_SUBITE_CASES = [(95, 1), (45, 7), (15, 6), (25, 8), (45, 9), (5, 10)]
LINES = {
    "fights_on": "Mort subite ({value}) : {name} continue le combat.",
    "tries_to_flee": "Mort subite ({value}) : {name} cherche à fuir.",
    "dies": "Mort subite ({value}) : {name} meurt.",
}


def test_the_cases_cover_every_edge_of_the_bands() -> None:
    values = sorted(grid(d100, damage) for d100, damage in MORT_SUBITE_CASES)
    edges = sorted(v for e in DOCS["mort_subite"]["entries"] for v in (e["min"], e["max"]))
    assert values == edges == [1, 7, 8, 12, 13, 15]


@pytest.mark.parametrize(("d100", "damage"), MORT_SUBITE_CASES)
async def test_mort_subite_for_an_npc(ctx: AppContext, d100: int, damage: int) -> None:
    value = grid(d100, damage)
    outcome = band_of(value)
    fight_id = await opened(ctx, mort_subite=True)
    await goblins_round(ctx)
    # Gobelin 1 (axe: BF 6 + 0, no armour-class attribute) hits Gobelin 2 (BE = BF, no armour).
    goblin_be = GOBLIN_BF  # creatures_bf gives no BE: BE = BF (the service's reading)
    die = damage - GOBLIN_BF + goblin_be
    taken = await hit(ctx, fight_id, target="Gobelin 2", zone="corps", die=die, d100=d100, **HAND)
    result = ok(taken)
    assert result["damage"]["total"] == damage
    assert result["critical"]["value"]["value"] == value
    assert result["mort_subite"] == outcome
    text = taken.reply.description or ""
    assert LINES[outcome].format(value=value, name="Gobelin 2") in text
    victim = await combatant(ctx, "gobelin-2")
    # the band replaces the critical table's effects (seed l. 1305-1310): no narration, no condition
    # of the table, dead only in the 13-15 band
    assert ("dead" in kinds(victim)) == (outcome == "dies")
    assert set(kinds(victim)) <= {"dead"} and "effects" not in result
    assert "> " not in text
    assert taken.tracker is not None
    names = [f.name for f in taken.tracker.fields]
    assert ("💀 ~~Gobelin 2~~ · Bande 2" in names) == (outcome == "dies")


async def test_mort_subite_is_for_npcs_only_and_optional(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Albert", CC=30)
    fight_id = await opened(ctx, mort_subite=True)
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="2 gobelins"))
    ok(await set_side(ctx, GM, who="Gobelin 2", side="Bande 2"))
    ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Gobelin 2: 9 9 9; Albert: 1 1 1"))
    # value 13 on the body: tranchantes corps 13 does not kill by itself, mort subite does
    assert not any(m["type"] == "death" for m in mechanics("tranchantes", "corps", 13))
    taken = await hit(ctx, fight_id, target="Gobelin 2", zone="corps", die=9, d100=45, **HAND)
    text = taken.reply.description or ""
    assert "Mort subite (13) : Gobelin 2 meurt." in text
    assert "dead" in kinds(await combatant(ctx, "gobelin-2"))
    # Gobelin 2's slot passes (dead); Albert's turn, then round 2: Gobelin 1 hits Albert for 13
    state = (await shown(ctx))["state"]
    assert state["order"][state["turn"]]["combatant"] == "albert"
    ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Albert: 1 1 1"))
    be = STATS["E"] // 10 + PLAYABLE["BE"]
    taken = await hit(ctx, fight_id, target="Albert", zone="corps", die=9 + be - GOBLIN_BF, d100=45, **HAND)
    result = ok(taken)
    assert result["critical"]["value"]["value"] == 13 and "mort_subite" not in result
    assert "Mort subite" not in (taken.reply.description or "")
    assert "dead" not in kinds(await combatant(ctx, "albert"))


async def test_without_mort_subite_an_npc_fights_on(ctx: AppContext) -> None:
    fight_id = await opened(ctx)
    await goblins_round(ctx)
    taken = await hit(ctx, fight_id, target="Gobelin 2", zone="corps", die=9, d100=45, **HAND)
    result = ok(taken)
    assert result["critical"]["value"]["value"] == 13 and "mort_subite" not in result
    assert "Mort subite" not in (taken.reply.description or "")
    assert "dead" not in kinds(await combatant(ctx, "gobelin-2"))


# ==========================================================================================
# permanent changes
# ==========================================================================================


async def test_permanent_change_confirmed_by_the_gm_goes_onto_the_sheet(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Rudolf", CC=30, E=40)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, ALICE, who="Rudolf"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await next_round(ctx, GM, dice="Gobelin: 10 10 10; Rudolf: 1 1 1"))
    # Goblin 30 + (50 − 30) = 50; 05 → 4 °R → the head. 9 + BF 6 − BE (4 + 3) = 8; d100 55 → 9.
    be = STATS["E"] // 10 + PLAYABLE["BE"]
    damage = 9 + GOBLIN_BF - be
    value = grid(55, damage)
    assert (damage, value) == (8, 9)
    wanted = [m for m in mechanics("tranchantes", "tete", value) if m["type"] == "permanent"]
    assert [(m["stat"], m["value"]) for m in wanted] == [("Soc", -10), ("intimidation", 5)]
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Rudolf", roll=5, damage="9", critical=55), rng=NoDice()
        )
    )
    assert attack["attack"]["zone"] == "tete"
    taken = await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())
    result = ok(taken)
    soc, intimidation = result["proposals"]
    text = taken.reply.description or ""
    assert "Changement permanent proposé pour Rudolf : Soc -10 (le MJ confirme)" in text
    assert "pas de fiche" not in text
    labels = [b.label for row in taken.reply.buttons for b in row]
    assert labels == ["Appliquer Soc -10", "Ignorer", "Appliquer intimidation 5", "Ignorer"]
    ids = [b.custom_id for row in taken.reply.buttons for b in row]
    assert ids[0] == f"melee:fight:{fight_id}:perm:{soc}:ok"

    # only the GM confirms; nothing is written before
    refused(await answer_proposal(ctx, ALICE, fight_id=fight_id, number=soc, accept=True), "MJ")
    applied = await answer_proposal(ctx, GM, fight_id=fight_id, number=soc, accept=True)
    assert ok(applied)["accepted"] is True
    assert applied.reply.description == f"Fiche de Rudolf : Soc {STATS['Soc']} → {STATS['Soc'] - 10}."
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Rudolf"))).one()
        assert row.characteristics["Soc"] == STATS["Soc"] - 10
    # a second click on the same button: already done, the sheet untouched
    refused(await answer_proposal(ctx, GM, fight_id=fight_id, number=soc, accept=True), "déjà résolue")
    # the GM may drop a proposal: nothing changes
    dropped = await answer_proposal(ctx, GM, fight_id=fight_id, number=intimidation, accept=False)
    assert dropped.reply.description == "Changement permanent ignoré."
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Rudolf"))).one()
        assert row.characteristics["Soc"] == STATS["Soc"] - 10
        assert "intimidation" not in {fold(k) for k in row.characteristics}


async def test_a_permanent_skill_change_goes_to_the_skill(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Rudolf", CC=30, E=40)
    fight_id = await opened(ctx)
    ok(await add_combatants(ctx, ALICE, who="Rudolf"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await next_round(ctx, GM, dice="Gobelin: 10 10 10; Rudolf: 1 1 1"))
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Rudolf", roll=5, damage="9", critical=55), rng=NoDice()
        )
    )
    result = ok(
        await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())
    )
    _, intimidation = result["proposals"]
    ok(await answer_proposal(ctx, GM, fight_id=fight_id, number=intimidation, accept=True))
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Rudolf"))).one()
        assert "intimidation" not in {fold(k) for k in row.characteristics}
        assert row.skills["Intimidation"] == 10 + 5


# ==========================================================================================
# a very large fight
# ==========================================================================================


async def test_a_forty_fighter_tracker_stays_within_discords_limits(ctx: AppContext) -> None:
    long = "Combat " + "x" * 73
    await opened(ctx, name=long)
    for i in range(2):
        name = f"Chevalier {i} " + "de la Très Longue Lignée des Seigneurs du Nord"[: 64 - 13]
        await character(ctx, GM.user_id, name)
        ok(await add_combatants(ctx, GM, who=name))
    for who in ("12 gobelins", "12 orques", "12 humains", "2 trolls"):
        ok(await add_combatants(ctx, GM, who=who))
    state = (await shown(ctx))["state"]
    assert len(state["combatants"]) == MAX_COMBATANTS
    refused(await add_combatants(ctx, GM, who="gobelin"), str(MAX_COMBATANTS))
    # many conditions each: the GM's way for one fighter, then written straight into the state for all
    for stat, value in (("CC", -10), ("CT", -20), ("Ag", -5), ("F", -15), ("E", -10), ("all_tests", -10)):
        ok(await edit_condition(ctx, GM, who="Gobelin 1", op="add", stat=stat, value=value, rounds=9))
    ok(await edit_condition(ctx, GM, who="Gobelin 1", op="add", kind="prone"))
    many = next(c for c in (await shown(ctx))["state"]["combatants"] if c["name"] == "Gobelin 1")[
        "conditions"
    ]
    assert len(many) == 7
    async with ctx.sessions.begin() as session:
        row = (await session.scalars(select(Fight))).one()
        document = dict(row.state)
        fight = dict(document["fight"])
        fight["combatants"] = [{**c, "conditions": many + many} for c in fight["combatants"]]
        row.state = {**document, "fight": fight}
    outcome = await next_round(ctx, GM)
    assert outcome.tracker is not None
    for reply in (outcome.tracker, (await show(ctx, GM)).reply):
        embed = to_embed(reply)
        assert len(embed) <= 6000, len(embed)
        assert len(embed.fields) <= 25
        assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
        assert len(embed.footer.text or "") <= 2048
        for f in embed.fields:
            assert 0 < len(f.name or "") <= 256 and 0 < len(f.value or "") <= 1024
        names = {f.name for f in embed.fields}
        assert "Ordre" in names
        # the cut is graceful: the fighters not shown are named in a last "… and N more" field
        shown_fighters = [f for f in embed.fields if f.name not in ("Ordre",) and not f.name.startswith("…")]
        more = [f for f in embed.fields if (f.name or "").startswith("… et ")]
        hidden = MAX_COMBATANTS - len(shown_fighters)
        assert hidden > 0 and more and more[0].name == f"… et {hidden} de plus"
        # the order lists 30 slots then how many more
        order = next(f.value for f in embed.fields if f.name == "Ordre")
        assert order.split("\n")[-1] == f"… et {MAX_COMBATANTS - 30} de plus"


# ==========================================================================================
# death timers, lost rounds
# ==========================================================================================


async def test_a_death_timer_running_out_kills(ctx: AppContext) -> None:
    fight_id = await opened(ctx)
    await goblins_round(ctx, 3)
    # tranchantes corps 12 (d100 25, 8 damage): dies within 1d10 rounds unless treated; 1d10 → 2.
    value = grid(25, 8)
    [timer] = mechanics("tranchantes", "corps", value)
    assert (value, timer["type"], timer["within"]["unit"], timer["unless"]) == (
        12,
        "death_timer",
        "round",
        "treated",
    )
    taken = await hit(ctx, fight_id, target="Gobelin 2", zone="corps", die=8, d100=25, durations="2")
    assert [c["kind"] for c in ok(taken)["effects"][0]["conditions"]] == ["death_timer"]
    assert "• mourra s'il n'est pas soigné · 2 rounds" in (taken.reply.description or "")
    assert "Mort subite" not in (taken.reply.description or "")
    # the same for Gobelin 3, but the GM records the care in time
    ok(await skip_turn(ctx, GM))  # Gobelin 2's slot
    ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Gobelin 2: 9 9 9; Gobelin 3: 1 1 1"))
    ok(await hit(ctx, fight_id, target="Gobelin 3", zone="corps", die=8, d100=25, durations="1"))
    # (Gobelin 3: 1 round; Gobelin 2: 1 round left after round 1)
    g2 = await combatant(ctx, "gobelin-2")
    assert [c["remaining"] for c in g2["conditions"] if c["kind"] == "death_timer"] == [1]
    ok(await edit_condition(ctx, GM, who="Gobelin 3", op="treated"))
    ok(await skip_turn(ctx, GM))
    ending = await skip_turn(ctx, GM)
    text = ending.reply.description or ""
    assert "☠️ Gobelin 2 n'a pas été soigné à temps et meurt." in text
    assert "Gobelin 3 n'a pas été soigné" not in text
    assert "dead" in kinds(await combatant(ctx, "gobelin-2"))
    assert "dead" not in kinds(await combatant(ctx, "gobelin-3"))
    assert any(f.name == "💀 ~~Gobelin 2~~ · Bande 2" for f in (await show(ctx, GM)).reply.fields)
    # the dead roll no initiative and have no slot
    nxt = ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Gobelin 3: 1 1 1"))
    assert [i["combatant"] for i in nxt["initiative"]] == ["gobelin-1", "gobelin-3"]
    refused(await fights_attacks.attack(ctx, GM, AttackInput(target="Gobelin 2", roll=5)), "Gobelin 2")


async def test_lost_rounds_skip_turns(ctx: AppContext) -> None:
    fight_id = await opened(ctx)
    await goblins_round(ctx, 3)
    # tranchantes corps 3 (d100 35, 1 damage): E −10 (30 − 10 = 20) failed on 90 → 2 rounds lost.
    value = grid(35, 1)
    test = mechanics("tranchantes", "corps", value)[0]
    assert value == 3 and test["on_failure"] == [{"type": "lose_time", "amount": 2, "unit": "round"}]
    taken = await hit(
        ctx, fight_id, target="Gobelin 2", zone="corps", die=1, d100=35, effects="90", durations="4"
    )
    [check] = ok(taken)["effects"][0]["tests"]
    assert check["check"]["target"] == GOBLIN["E"] + test["modifier"] and not check["check"]["success"]
    assert "Gobelin 2 ne peut pas agir : son créneau passe." in (taken.reply.description or "")
    # Gobelin 2's slot of round 1 passes at once (the round it is hit counts)
    state = (await shown(ctx))["state"]
    assert state["order"][state["turn"]]["combatant"] == "gobelin-3"
    # it may not even act freely while its round is lost
    refused(await take_simple_action(ctx, GM, action="se_positionner", who="Gobelin 2"), "Ce round est perdu")
    ok(await skip_turn(ctx, GM))
    ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Gobelin 2: 9 9 9; Gobelin 3: 1 1 1"))
    turn = await skip_turn(ctx, GM)  # Gobelin 1 does nothing; Gobelin 2's round is lost
    assert (turn.reply.description or "").split("\n") == [
        "Gobelin 1 passe son tour.",
        "Gobelin 2 ne peut pas agir : son créneau passe.",
        "▶ Au tour de **Gobelin 3**.",
    ]
    ended = await skip_turn(ctx, GM)
    assert "Gobelin 2 : fin de « perd du temps »." in (ended.reply.description or "")
    # round 3: the two rounds are over, Gobelin 2 acts again
    ok(await next_round(ctx, GM, dice="Gobelin 1: 10 10 10; Gobelin 2: 9 9 9; Gobelin 3: 1 1 1"))
    ok(await skip_turn(ctx, GM))
    state = (await shown(ctx))["state"]
    assert state["order"][state["turn"]]["combatant"] == "gobelin-2"
    assert "lose_time" not in kinds(await combatant(ctx, "gobelin-2"))


# ==========================================================================================
# the GM's corrections
# ==========================================================================================


async def test_the_gm_corrects_a_result(ctx: AppContext) -> None:
    fight_id = await albert_against_a_goblin(ctx)
    # the goblin's blow parried with the shield: 9 + 6 − 8 = 7 PV off the shield
    attack = ok(
        await fights_attacks.attack(ctx, GM, AttackInput(target="Albert", roll=25, damage="9"), rng=NoDice())
    )
    parried = ok(await albert_parries(ctx, fight_id, attack, 10, 5))
    shield = shield_of("bouclier")
    worn = shield["pv"] - (9 + GOBLIN_BF - shield["be"])
    assert parried["shield"]["pv_after"] == worn
    # the GM overrides it (the table agreed the blow missed the shield), and the goblin's CC
    refused(await correct(ctx, ALICE, who="Albert", field_name="bouclier", value=80), "MJ")
    fixed = await correct(ctx, GM, who="Albert", field_name="bouclier", value=shield["pv"])
    assert fixed.reply.description == f"Albert : bouclier {worn} → {shield['pv']}."
    assert fixed.tracker is not None
    albert = next(f for f in fixed.tracker.fields if f.name.endswith("Albert · PJ"))
    assert f"Bouclier {shield['pv']}/{shield['pv']} PV" in albert.value
    ok(await correct(ctx, GM, who="Gobelin", field_name="cc", value=40))
    assert (await combatant(ctx, "gobelin"))["characteristics"]["CC"] == 40
    # the next round, Albert's combat WS against the corrected goblin: 45 + (50 − 40) = 55
    ok(await next_round(ctx, GM, dice="Gobelin: 1 1 1; Albert: 10 10 10"))
    swing = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin", roll=95), rng=NoDice()))
    assert swing["attack"]["check"]["target"] == 45 + (50 - 40)
    assert [m["value"] for m in swing["attack"]["check"]["modifiers"]] == [45, 10]
    # A spent this round, BE; unknown fields and fighters are refused
    ok(await correct(ctx, GM, who="Gobelin", field_name="BE", value=9))
    assert (await combatant(ctx, "gobelin"))["characteristics"]["BE"] == 9
    used = ok(await correct(ctx, GM, who="Gobelin", field_name="a_utilisees", value=1))
    assert used == {"field": "a_utilisees", "before": 0, "after": 1}
    refused(await correct(ctx, GM, who="Gobelin", field_name="charisme", value=1), "Champ inconnu")
    refused(await correct(ctx, GM, who="Gobelin", field_name="bouclier", value=1), "n'a pas de bouclier")
    refused(await correct(ctx, GM, who="Personne", field_name="CC", value=1), "Personne")


# ==========================================================================================
# bugs found while scripting the fight (were strict xfails; fixed)
# ==========================================================================================


async def _albert_parries_a_heavy_blow(ctx: AppContext, **hand: Any) -> FightOutcome:
    """Goblin 9 damage on the legs; Albert's shield parry 30, side effect 95 + 30 − 35 + 7 = 97."""
    fight_id = await albert_against_a_goblin(ctx)
    attack = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Albert", roll=25, damage="9", critical=15, effects="25", durations="4", **hand
            ),
            rng=NoDice(),
        )
    )
    outcome = await albert_parries(ctx, fight_id, attack, 30, 95)
    return outcome


async def test_summary_counts_damage_taken_through_a_parry_side_effect(ctx: AppContext) -> None:
    outcome = await _albert_parries_a_heavy_blow(ctx)
    side = ok(outcome)["side_effect"]
    assert side["band"] == "chute_quart_degats" and side["damage_taken"] == 2
    end = ok(await end_fight(ctx, GM))
    [albert] = [h for h in end["hits"] if h["victim"] == "albert"]
    assert albert["damage"] == 2 and albert["critical"] == grid(15, 2)


async def test_tracker_counts_the_second_weapons_a(ctx: AppContext) -> None:
    fight_id = await albert_against_a_goblin(ctx, dice="Albert: 10 10 10; Gobelin: 1 1 1")
    ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin", roll=95), rng=NoDice()))
    attack = ok(
        await fights_attacks.attack(ctx, GM, AttackInput(target="Albert", roll=25, damage="1"), rng=NoDice())
    )
    # Albert's own A is spent: he parries with the shield's A ("une A de ce round", not reactive)
    outcome = await albert_parries(ctx, fight_id, attack, 30, 5)
    assert "une A de ce round, Bouclier" in (outcome.reply.description or "")
    assert outcome.tracker is not None
    albert = next(f for f in outcome.tracker.fields if f.name.endswith("Albert · PJ"))
    # the sword's A and the shield's: « Attaques : 2 sur 2 »
    assert "Attaques : 2 sur 2" in albert.value.split("\n"), albert.value


async def test_a_shield_in_the_left_hand_costs_5_ag(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Albert", CC=45, Ag=38, weapons=("epee", "bouclier"))
    await opened(ctx)
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    penalty = next(r for r in DOCS["shields"]["rules"] if r["id"] == "port_seconde_arme")["effect"]
    result = ok(await next_round(ctx, GM, dice="Albert: 15 12 15"))
    [albert] = result["initiative"]
    assert albert["ag"] == 38 + penalty["value"] and albert["total"] == 42 + 38 + penalty["value"]


async def test_side_effect_damage_uses_the_hand_coverage_roll(ctx: AppContext) -> None:
    # Albert wears a short gambeson (½ of the legs); the goblin's blow hits the legs (°R 1).
    fight_id = await albert_against_a_goblin(ctx, armour=(GAMBISON,))
    attack = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Albert", roll=25, damage="9", coverage="80", critical=15, effects="25", durations="4"
            ),
            rng=NoDice(),
        )
    )
    assert attack["attack"]["zone"] == "jambes"
    outcome = await albert_parries(ctx, fight_id, attack, 30, 95)
    # 80 > 50: the gambeson is missed, the share is ¼ of 9 + 6 − 7 = 8 → 2
    assert ok(outcome)["side_effect"]["damage_taken"] == 2


async def test_a_prone_defender_parries_at_minus_20(ctx: AppContext) -> None:
    fight_id = await albert_against_a_goblin(ctx, weapons=("epee",))
    ok(await edit_condition(ctx, GM, who="Albert", op="add", kind="prone"))
    attack = ok(
        await fights_attacks.attack(ctx, GM, AttackInput(target="Albert", roll=25, damage="1"), rng=NoDice())
    )
    parry = ok(await albert_parries(ctx, fight_id, attack, 95, 5))
    # 45 + (50 − 30) + 10 (Défensive sword) + 10 (Lente axe) − 20 (prone)
    assert parry["defence"]["check"]["target"] == 45 + 20 + 10 + 10 - 20
