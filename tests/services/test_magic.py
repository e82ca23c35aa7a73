"""``/sort`` on a real database, every die entered by hand: a plain roll writes the Point de Folie on
the sheet and goes to the roll log; in a fight's thread the spell takes the caster's time (two
½-round spells, or a full round), only on his turn, and ``/combat annuler`` takes it back; a
critical taken adds a chaos die to the mage's next spells."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from bot.context import AppContext
from bot.db.characters import new_row, set_active
from bot.db.fight_models import Fight
from bot.db.models import Character, RollLog
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round
from bot.services.fights.undo import undo
from bot.services.magic import CastRequest, cast_spell

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL, THREAD = 840, 47, 48
GM = Caller(user_id=3, guild_id=GUILD, channel_id=THREAD, parent_channel_id=CHANNEL, locale="fr",
            manage_guild=True)  # fmt: skip
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=THREAD, parent_channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=THREAD, parent_channel_id=CHANNEL, locale="en-US")
GM_OUT = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE_OUT = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
STATS = {"CC": 40, "CT": 30, "F": 35, "E": 40, "Ag": 35, "Int": 30, "FM": 29, "Soc": 30, "M": 4}


class NoDice:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def pc(ctx: AppContext, owner: Caller, name: str, **stats: int) -> None:
    data = SheetData(name=name, ruleset="renove", characteristics={**STATS, "BF": 6, "BE": 7, **stats},
                     weapons=["epee"])  # fmt: skip
    async with ctx.sessions.begin() as session:
        row = new_row(GUILD, owner.user_id, data)
        session.add(row)
        await session.flush()
        await set_active(session, GUILD, owner.user_id, row.id)


async def pf(ctx: AppContext, name: str) -> int:
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == name))).one()
        return int(row.characteristics.get("PF", 0))


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


async def test_a_plain_roll_writes_the_point_of_insanity_and_the_roll_log(ctx: AppContext) -> None:
    await pc(ctx, ALICE, "Élise", A=1, Mag=2)
    first = await cast_spell(ctx, ALICE_OUT, CastRequest(difficulty=9, dice="3 3 5"))
    result = ok(first)
    assert (result["total"], result["success"], result["chaos"], result["curse"]) == (6, False, [5], "minor")
    assert first.reply.title == "🔮 Élise lance un sort" and first.tracker is None
    assert "double de 3 → manifestation mineure du Chaos" in (first.reply.description or "")
    ones = await cast_spell(ctx, ALICE_OUT, CastRequest(difficulty=9, magic=2, dice="1 1 4", fm_roll=80))
    assert ok(ones)["insanity"] == 1 and ok(ones)["pf"] == 1
    assert "Élise gagne un point de folie, écrit sur sa fiche (PF : 1)." in (ones.reply.description or "")
    assert await pf(ctx, "Élise") == 1
    # the chaos die forgotten: refused privately, nothing written
    refused(
        await cast_spell(ctx, ALICE_OUT, CastRequest(difficulty=9, dice="1 1", fm_roll=80)),
        "Il faut 3 dés entrés à la main : les 2 dés d'incantation d'abord, puis le dé du chaos en dernier",
    )
    assert await pf(ctx, "Élise") == 1
    # more dice than her Mag: refused to a player, the GM may; no FM known without a sheet
    refused(await cast_spell(ctx, ALICE_OUT, CastRequest(difficulty=9, magic=3)), "Élise n'a que Mag 2")
    gm = await cast_spell(ctx, GM_OUT, CastRequest(difficulty=9, magic=3, dice="1 1 1 2"))
    assert ok(gm)["fm_test"] is None and "Test de FM à faire, faute de FM connue" in (
        gm.reply.description or ""
    )
    async with ctx.sessions() as session:
        kinds = [r.kind for r in (await session.scalars(select(RollLog).order_by(RollLog.id))).all()]
    assert kinds == ["spell", "spell", "spell.fm_test", "spell"]


async def test_spells_take_the_round_in_a_fight_and_criticals_add_chaos_dice(ctx: AppContext) -> None:
    await pc(ctx, ALICE, "Élise", A=1, Mag=2)
    await pc(ctx, BOB, "Grimli", A=2, Mag=1)
    fight_id = int(ok(await open_fight(ctx, GM, name="Sortilèges", mage_fm_maluses=True))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Élise"))
    ok(await add_combatants(ctx, BOB, who="Grimli"))
    ok(await add_combatants(ctx, GM, who="orque", stats=NpcStats(cc=65, bf=12)))
    ok(await new_round(ctx, GM, dice="Élise: 10 10 10; Grimli: 5 5 5; Orque: 1 1 1"))
    refused(await cast_spell(ctx, BOB, CastRequest(difficulty=5, dice="3 4")), "Not now: Grimli casts only")
    half = await cast_spell(ctx, ALICE, CastRequest(difficulty=9, dice="3 3 5"))
    assert ok(half)["half_rounds"] == 1
    text = half.reply.description or ""
    assert "⏱️ Sort d'½ round : première moitié du round pour Élise (attaques : 1 sur 1)." in text
    assert "Élise garde la main pour un second sort d'½ round" in text
    assert half.tracker is not None and "sort : ½ round" in str(half.tracker.fields)
    request = CastRequest(difficulty=3, dice="1 1 6", spell="Boule de feu", fm_roll=90)
    second = await cast_spell(ctx, ALICE, request)
    assert ok(second)["insanity"] == 1 and second.reply.title == "🔮 Élise lance « Boule de feu »"
    assert "Au tour de **Grimli**" in (second.reply.description or "")
    assert await pf(ctx, "Élise") == 1
    # a player takes back his own last action: the second half of Élise's round is hers again, and
    # the Point de Folie it wrote is taken off the sheet
    ok(await undo(ctx, ALICE))
    assert await pf(ctx, "Élise") == 0
    again = await cast_spell(ctx, ALICE, CastRequest(difficulty=3, dice="2 4 6"))
    assert ok(again)["half_rounds"] == 2
    refused(await cast_spell(ctx, ALICE, CastRequest(difficulty=3, dice="2 4 6")), "Pas maintenant")
    # Grimli (2 A): a full-round spell takes both, his second slot is skipped
    full = await cast_spell(ctx, BOB, CastRequest(difficulty=5, dice="3 4", length="full"))
    assert "Full-round spell: all of Grimli's round (attacks: 2 of 2)." in (full.reply.description or "")
    # the orc's critical on Élise: one more chaos die for her spells
    blow = AttackInput(target="Élise", attacker="Orque", roll=5, zone="bras", damage="1", critical=5)
    blow = replace(blow, durations="3 3 3", effects="20 20 20")
    attack = ok(await fights_attacks.attack(ctx, GM, blow, rng=NoDice()))
    hit = await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())
    assert "Élise lancera désormais ses sorts avec 2 dés du chaos" in (hit.reply.description or ""), hit.reply
    assert hit.tracker is not None and "🔮 2 dés du chaos" in str(hit.tracker.fields)
    assert "Malus de FM contre les mages : −25 % en FM pour Élise" in (hit.reply.description or "")
    ok(await new_round(ctx, GM, dice="Élise: 10 10 10; Grimli: 5 5 5; Orque: 1 1 1"))
    async with ctx.sessions() as session:
        [row] = (await session.scalars(select(Fight).where(Fight.id == fight_id))).all()
        [elise] = [c for c in row.state["fight"]["combatants"] if c["name"] == "Élise"]
        assert {(c["stat"], c["value"]) for c in elise["conditions"] if c["kind"] == "modifier"} == {
            ("CC", -25),
            ("FM", -25),
        }
        assert row.state["magic"] == {"elise": {"criticals": 1}}
