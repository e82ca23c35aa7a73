"""A destiny point in the flow of a fight, every die entered by hand: a PC's deadly critical offers
« Dépenser un point de destin » to his player alone; the click removes the death from the fight (the
tracker no longer shows 💀) and one PD from the sheet in the same transaction; a second click, the GM's
or another player's click is refused privately; a PC with no point left is told so with no button; a
« paralysie permanente » is offered too; an NPC's death offers nothing; a death timer running out at
the end of a round offers it in that reply."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db.characters import new_row
from bot.db.fight_models import Fight, FightEvent
from bot.db.models import Character
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import Doc, FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.destiny import offer, spend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round

from .fight_context import ctx, ok, skip_turn

__all__ = ["ctx"]

GUILD, CHANNEL = 830, 46
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
ALICE_EN = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
STATS = {"CC": 40, "CT": 30, "F": 35, "E": 40, "Ag": 35, "Int": 30, "FM": 30, "Soc": 30, "A": 1, "M": 4}


class NoDice:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def pc(ctx: AppContext, owner: Caller, name: str, pd: int, fortune: int) -> None:
    stats = {**STATS, "BF": 6, "BE": 7, "PD": pd, "Fortune": fortune, "PF": 0}
    data = SheetData(name=name, ruleset="renove", characteristics=stats, weapons=["epee"])
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, owner.user_id, data))


async def points(ctx: AppContext, name: str) -> tuple[int, int]:
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == name))).one()
        return int(row.characteristics["PD"]), int(row.characteristics["Fortune"])


async def conditions(ctx: AppContext, fight_id: int, name: str) -> list[str]:
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None
        [state] = [c for c in row.state["fight"]["combatants"] if c["name"] == name]
        return [c["kind"] for c in state["conditions"]]


async def fight(ctx: AppContext) -> int:
    await pc(ctx, ALICE, "Grimli", pd=2, fortune=2)
    await pc(ctx, BOB, "Élise", pd=0, fortune=0)
    fight_id = int(ok(await open_fight(ctx, GM, name="Embuscade"))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Grimli"))
    ok(await add_combatants(ctx, BOB, who="Élise"))
    ok(await add_combatants(ctx, GM, who="orque", stats=NpcStats(cc=65, bf=12)))  # any zone; hits hard
    ok(await new_round(ctx, GM, dice="Orque: 10 10 10; Grimli: 1 1 1; Élise: 1 1 2"))
    return fight_id


async def hit(
    ctx: AppContext, fight_id: int, target: str, zone: str, damage: str, critical: int, **dice: str
) -> FightOutcome:
    attack = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target=target, attacker="Orque", roll=5, zone=zone, damage=damage, critical=critical, **dice
            ),
            rng=NoDice(),
        )
    )
    return await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())


def buttons(outcome: FightOutcome) -> list[tuple[str, str]]:
    return [(b.label, b.custom_id) for row in outcome.reply.buttons for b in row]


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


async def test_a_deadly_critical_offers_the_point_to_the_player_alone_and_the_click_saves_him(
    ctx: AppContext,
) -> None:
    fight_id = await fight(ctx)
    # damage 15 on the head (the die 10, BF 12 against BE 7), d100 00 → a deadly critical
    taken = await hit(ctx, fight_id, "Grimli", "tete", "10", 100)
    result: dict[str, Any] = ok(taken)
    assert result["critical"]["value"]["value"] >= 14, result["critical"]
    text = taken.reply.description or ""
    assert "💀 Grimli est mort." in text
    assert (
        "💫 Grimli peut dépenser un point de destin pour échapper à la mort (il lui en reste 2) :"
        " le bouton ci-dessous est pour son joueur."
    ) in text
    assert buttons(taken)[0] == ("Dépenser un point de destin (Grimli)", f"melee:fight:{fight_id}:destiny:1")
    assert "dead" in await conditions(ctx, fight_id, "Grimli")
    # the GM and another player are refused privately; nothing changes
    refused(await spend(ctx, GM, fight_id=fight_id, number=1), "Seul le joueur du personnage")
    refused(await spend(ctx, BOB, fight_id=fight_id, number=1), "Seul le joueur du personnage")
    assert await points(ctx, "Grimli") == (2, 2)
    saved = await spend(ctx, ALICE, fight_id=fight_id, number=1)
    done = ok(saved)
    assert saved.reply.title == "💫 Point de destin : Grimli" and not saved.reply.ephemeral
    assert saved.reply.description == (
        "Grimli dépense un point de destin et échappe à la mort. Les blessures et les séquelles restent"
        " (un membre perdu reste perdu).\n"
        "Fiche mise à jour : points de destin 2 → 1, Fortune 2 → 1."
    )
    assert done["destiny"] == {"before": 2, "after": 1} and done["against"] == "death"
    assert "dead" not in await conditions(ctx, fight_id, "Grimli")
    assert await points(ctx, "Grimli") == (1, 1)
    assert saved.tracker is not None
    tracker = str(saved.tracker.fields) + (saved.tracker.description or "")
    assert "Grimli" in tracker and "💀 Grimli" not in tracker
    async with ctx.sessions() as session:
        events = (await session.scalars(select(FightEvent).where(FightEvent.kind == "destiny"))).all()
        assert [e.actor for e in events] == ["grimli"]
    refused(await spend(ctx, ALICE, fight_id=fight_id, number=1), "n'est plus proposé")
    assert await points(ctx, "Grimli") == (1, 1)


async def test_no_point_left_no_button_and_an_npc_death_offers_nothing(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    taken = await hit(ctx, fight_id, "Élise", "tete", "10", 100)
    text = taken.reply.description or ""
    assert "Élise n'a plus de point de destin pour échapper à la mort." in text
    assert not any("destiny" in cid for _, cid in buttons(taken))
    assert "dead" in await conditions(ctx, fight_id, "Élise")
    # the orc (a quick NPC) would be offered nothing; Grimli (a player's character) would
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None
        doc = Doc.load(row)
        offer(doc, "orque", "death", "criticals.tranchantes.tete.15")
        assert doc.data.get("destiny") == {}
        offer(doc, "grimli", "death", "criticals.tranchantes.tete.15")
        assert [o["combatant"] for o in doc.data["destiny"].values()] == ["grimli"]


async def test_a_paralysis_is_offered_and_avoided_in_english(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    # damage 10 on the body (the die 5, BF 12 against BE 7), d100 85 → corps 13: a death timer,
    # and the E −20 test failed (90): permanent paralysis
    taken = await hit(ctx, fight_id, "Grimli", "corps", "5", 85, effects="90", durations="8")
    result = ok(taken)
    assert result["critical"]["source"] == "criticals.tranchantes.corps.13"
    text = taken.reply.description or ""
    assert (
        "💫 Grimli peut dépenser un point de destin pour échapper à la paralysie (il lui en reste 2)" in text
    )
    [(_, cid)] = buttons(taken)
    saved = await spend(ctx, ALICE_EN, fight_id=fight_id, number=int(cid.rsplit(":", 1)[1]))
    assert saved.reply.description == (
        "Grimli spends a fate point and escapes paralysis. The critical's other effects stay.\n"
        "Sheet updated: fate points 2 → 1, Fortune 2 → 1."
    )
    kinds = await conditions(ctx, fight_id, "Grimli")
    assert "death_timer" in kinds and "dead" not in kinds  # the other effects stay
    assert await points(ctx, "Grimli") == (1, 1)


async def test_a_death_timer_running_out_offers_the_point_in_that_reply(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    # corps 13 with the E test passed (10): the death timer alone, 1d10/2 rounds (a 2 → 1 round)
    ok(await hit(ctx, fight_id, "Grimli", "corps", "5", 85, effects="10", durations="2"))
    ok(await skip_turn(ctx, GM))  # Grimli's slot
    ended = await skip_turn(ctx, GM)  # Élise's slot: the round ends, the timer runs out
    text = ended.reply.description or ""
    assert "☠️ Grimli n'a pas été soigné à temps et meurt." in text
    assert "💫 Grimli peut dépenser un point de destin pour échapper à la mort (il lui en reste 2)" in text
    assert [cid for _, cid in buttons(ended)] == [f"melee:fight:{fight_id}:destiny:1"]
    ok(await spend(ctx, ALICE, fight_id=fight_id, number=1))
    assert "dead" not in await conditions(ctx, fight_id, "Grimli")
