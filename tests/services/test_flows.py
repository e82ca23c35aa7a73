"""The flow services on real databases: interrogation (Arnolf), chase (Abel), infection, tavern
games, fortune and destiny — every die entered by hand, refusals writing nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.db.characters import new_row, set_active
from bot.db.flow_models import GameSession
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.flows import chase as flow_chase
from bot.services.flows import fortune as flow_fortune
from bot.services.flows import infection as flow_infection
from bot.services.flows import interrogation as flow_interrogation
from bot.services.flows import tavern as flow_tavern
from bot.services.flows.common import FlowResult
from bot.ui.reply import Reply

GUILD, CHANNEL = 900, 77
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
DATA = Path(__file__).resolve().parents[2] / "data"


class NoDice(random.Random):
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


@pytest.fixture
def app_rng() -> random.Random:
    return NoDice()


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return load_all()


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


def ok(result: FlowResult | Reply) -> dict[str, Any]:
    reply = result.reply if isinstance(result, FlowResult) else result
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


def refused(result: FlowResult) -> str:
    assert result.reply.is_error and result.reply.ephemeral
    return result.reply.description or ""


async def sessions_count(ctx: AppContext) -> int:
    async with ctx.sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(GameSession)) or 0)


async def sheet(ctx: AppContext, owner: int, name: str, **stats: int) -> None:
    base = {
        "CC": 30,
        "CT": 30,
        "F": 35,
        "E": 40,
        "Ag": 35,
        "Int": 30,
        "FM": 30,
        "Soc": 30,
        "M": 4,
        "Fortune": 2,
        "PD": 1,
    }
    data = SheetData(name=name, ruleset="renove", characteristics={**base, **stats}, talents=["Fuite"])
    async with ctx.sessions.begin() as session:
        row = new_row(GUILD, owner, data)
        session.add(row)
        await session.flush()
        await set_active(session, GUILD, owner, row.id)


async def test_arnolf_interrogation_and_its_persistence(ctx: AppContext) -> None:
    example = json.loads((DATA / "interrogation.json").read_text(encoding="utf-8"))["example"]
    lines = [line["text"]["fr"] for line in example["lines"]]
    assert "MJ" in refused(
        await flow_interrogation.open_interrogation(
            ctx, ALICE, subject="x", fm=30, reluctant=True, lines=lines
        )
    )
    assert await sessions_count(ctx) == 0
    assert "vide" in refused(
        await flow_interrogation.open_interrogation(
            ctx, GM, subject="x", fm=30, reluctant=True, lines=["", "a"]
        )
    )
    opened = await flow_interrogation.open_interrogation(
        ctx, GM, subject="le suspect", fm=35, reluctant=True, lines=lines
    )
    assert ok(opened)["revealed"] == []
    assert opened.reply.also[0].user_id == GM.user_id and "35" in json.dumps(
        opened.reply.also[0].reply.fields[0].value
    )
    assert "already" not in refused(
        await flow_interrogation.open_interrogation(ctx, GM, subject="y", fm=35, reluctant=True, lines=lines)
    )
    # Both fail with every die typed: roll again, nothing revealed, nothing written.
    assert "relancez" in refused(
        await flow_interrogation.question(ctx, ALICE, target=45, rolls="80", fm_rolls="90")
    )
    arnolf = await flow_interrogation.question(ctx, ALICE, target=45, rolls="22", fm_rolls="30")
    result = ok(arnolf)
    assert result["revealed"] == result["new"] == example["tiers_revealed"]
    assert result["lines"] == lines[:3] and lines[3] not in json.dumps(result, ensure_ascii=False)
    secret = arnolf.reply.also[0]
    assert secret.user_id == GM.user_id and secret.reply.result
    assert secret.reply.result["questioning"]["net_degrees"] == 2
    # A second questioning later: the state persisted; FM wins this time → nothing new.
    again = ok(await flow_interrogation.question(ctx, ALICE, target=45, rolls="40", fm_rolls="05"))
    assert again["new"] == [] and again["revealed"] == [0, 1, 2]
    # Torture adds its °R: tier 3.
    tortured = ok(
        await flow_interrogation.question(
            ctx, ALICE, target=45, rolls="40", fm_rolls="90", torture=True, torture_target=50, torture_roll=15
        )
    )
    assert tortured["new"] == [3]
    assert "tout dit" in refused(
        await flow_interrogation.question(ctx, ALICE, target=45, rolls="1", fm_rolls="90")
    )
    assert "expects dice rolled by hand" in refused(
        await flow_interrogation.question(ctx, BOB, target=45, rolls="x")
    )
    ok(await flow_interrogation.close(ctx, GM))
    assert "Aucun" in refused(
        await flow_interrogation.question(ctx, ALICE, target=45, rolls="22", fm_rolls="30")
    )


async def test_a_lost_intimidation_and_the_torture_after_it_reveal_nothing(ctx: AppContext) -> None:
    lines = ["dit d'office", "un peu", "difficilement", "très difficilement"]
    opened = await flow_interrogation.open_interrogation(
        ctx, GM, subject="Karl", fm=50, reluctant=True, lines=lines
    )
    ok(opened)
    # Intimidation 45, roll 24: 2 °R; FM 50, roll 22: 2 °R and a lower roll → the FM wins (l. 1619),
    # and the Torture's 3 °R (roll 15 under 50) change nothing.
    lost = await flow_interrogation.question(
        ctx, ALICE, target=45, rolls="24", fm_rolls="22", torture=True, torture_target=50, torture_roll=15
    )
    assert ok(lost)["new"] == [] and ok(lost)["revealed"] == []
    secret = lost.reply.also[0].reply
    assert secret.result and secret.result["questioning"]["lost"] is True
    assert "Test opposé perdu face à la FM : rien n'est révélé, et la Torture n'y change rien." in (
        secret.description or ""
    )
    # Same °R and the same roll: roll again, written nowhere, said in the player's language.
    assert "Same °R and same roll" in refused(
        await flow_interrogation.question(ctx, BOB, target=45, rolls="25", fm_rolls="25")
    )
    # Same °R, the Intimidation rolled lower: it wins with 0 net °R → tier 0.
    won = await flow_interrogation.question(ctx, ALICE, target=45, rolls="22", fm_rolls="30")
    assert ok(won)["new"] == [0]
    ok(await flow_interrogation.close(ctx, GM))


async def test_extended_interrogation_uses_the_character(ctx: AppContext) -> None:
    await sheet(ctx, ALICE.user_id, "Alice", F=40)
    ok(
        await flow_interrogation.open_interrogation(
            ctx,
            GM,
            subject="Hans",
            fm=30,
            reluctant=False,
            lines=["a", "b", "c", "d"],
            mode="extended",
            attempts=2,
        )
    )
    # No Intimidation skill: half of F (40) = 20; roll 15 succeeds → tier 1 (tier 0 was free).
    first = ok(await flow_interrogation.question(ctx, ALICE, rolls="15"))
    assert first["new"] == [1] and first["attempts_left"] == 1
    ok(await flow_interrogation.question(ctx, ALICE, rolls="95"))
    assert "essais" in refused(await flow_interrogation.question(ctx, ALICE, rolls="5"))


async def test_abel_chase_through_the_service(ctx: AppContext) -> None:
    assert "MJ" in refused(await flow_chase.open_chase(ctx, ALICE, lead=10))
    opened = await flow_chase.open_chase(ctx, GM, lead=10)
    assert opened.session_id is not None
    await flow_chase.set_board_message(ctx, GM, opened.session_id, 12345)
    ok(await flow_chase.add_runner(ctx, GM, role="fugitive", name="Abel", m=4, be=3, e=40, ag=40, flee=True))
    for guard in ("Garde 1", "Garde 2"):
        ok(await flow_chase.add_runner(ctx, GM, role="pursuer", name=guard, m=4, be=3, e=40, ag=40))
    assert "not yours" in refused(await flow_chase.move(ctx, BOB, name="Abel", roll=26))
    script: list[tuple[str, str, int, int | None]] = [
        ("move", "Abel", 26, None),
        ("move", "Garde 1", 31, None),
        ("move", "Garde 2", 0, None),
        ("move", "Abel", 62, None),
        ("move", "Garde 1", 7, None),
        ("endu", "Abel", 90, None),
        ("endu", "Garde 1", 20, None),
        ("move", "Abel", 34, None),
        ("move", "Garde 1", 44, None),
        ("endu", "Garde 1", 20, None),
        ("move", "Abel", 98, 90),
        ("move", "Garde 1", 76, None),
    ]
    gaps = []
    for kind, name, roll, ag in script:
        if kind == "move":
            result = await flow_chase.move(ctx, GM, name=name, roll=roll, ag_roll=ag)
        else:
            result = await flow_chase.endurance(ctx, GM, name=name, roll=roll)
        data = ok(result)
        assert result.board is not None and result.board.message_id == 12345
        if "round" in data:
            gaps.append(data["round"]["gaps"])
    assert [list(g.values()) for g in gaps] == [[16], [19], [19], [4]]
    assert "Endurance" in refused(await flow_chase.move(ctx, GM, name="Abel", roll=10))
    ended = ok(await flow_chase.end(ctx, GM))
    assert ended["chase"]["gaps"] == {"Garde 1": 4}
    assert "Aucune" in refused(await flow_chase.move(ctx, GM, name="Abel", roll=10))


async def test_player_adds_own_character_and_rolls_by_button(ctx: AppContext) -> None:
    ctx.rng = random.Random(4)
    await sheet(ctx, ALICE.user_id, "Alice")
    opened = await flow_chase.open_chase(ctx, GM, lead=5)
    added = ok(await flow_chase.add_runner(ctx, ALICE, role="fugitive"))
    assert added["added"]["flee_talent"] and added["added"]["owner_id"] == ALICE.user_id
    assert "MJ" in refused(
        await flow_chase.add_runner(ctx, ALICE, role="pursuer", name="X", m=4, be=3, e=30, ag=30)
    )
    ok(await flow_chase.add_runner(ctx, GM, role="pursuer", name="Chien", m=6, be=3, e=30, ag=30))
    assert opened.session_id is not None
    assert ok(await flow_chase.click(ctx, ALICE, session_id=opened.session_id, action="run"))["movements"]
    assert "Rien" in refused(await flow_chase.click(ctx, ALICE, session_id=opened.session_id, action="run"))
    assert "MJ" in refused(await flow_chase.click(ctx, ALICE, session_id=opened.session_id, action="end"))


async def test_infection_reads_the_sheet(ctx: AppContext) -> None:
    await sheet(ctx, ALICE.user_id, "Alice", E=38)
    result = ok(
        await flow_infection.infection_test(ctx, ALICE, critical=8, weapon="sale", washed=True, roll=80)
    )
    assert result["test"]["target"] == 38 - 10 - 10 + 10 and result["outcome"] == "gangrene"
    assert result["death_after_days"] == 5 + 3  # this sheet's BE is typed (3), not derived
    assert ok(await flow_infection.infection_test(ctx, ALICE, critical=1))["exempt"]
    assert "Toughness" in refused(await flow_infection.infection_test(ctx, BOB, critical=5, roll=10))
    assert ok(await flow_infection.amputation(ctx, ALICE, soins_success=True, soins_degrees=1, roll=50))[
        "stopped"
    ]


async def test_fortune_and_destiny_on_the_sheet(ctx: AppContext) -> None:
    await sheet(ctx, ALICE.user_id, "Alice")
    assert ok(await flow_fortune.fortune(ctx, ALICE))["Fortune"] == 2
    assert "99-00" in refused(
        await flow_fortune.fortune(ctx, ALICE, use="reroll", target=45, previous_roll=99)
    )
    spent = ok(await flow_fortune.fortune(ctx, ALICE, use="reroll", target=45, previous_roll=62, roll=30))
    assert spent["left"] == 1 and spent["reroll"]["success"]
    ok(await flow_fortune.fortune(ctx, ALICE, use="scenery", what="Une charrette de foin"))
    assert "Plus de point" in refused(await flow_fortune.fortune(ctx, ALICE, use="scenery"))
    assert "membre" in refused(await flow_fortune.destiny(ctx, ALICE, against="limb_loss"))
    assert ok(await flow_fortune.destiny(ctx, ALICE, against="death", sequel=True))["sequel_remains"]
    assert "destin" in refused(await flow_fortune.destiny(ctx, ALICE, against="paralysis"))
    assert "No active character" in refused(await flow_fortune.fortune(ctx, BOB))


async def test_tavern_games_and_bad_input(ctx: AppContext) -> None:
    arm = ok(
        await flow_tavern.play(ctx, ALICE, game="arm_wrestling", players="A f=45, B f=40", dice="A 10, B 90")
    )
    assert arm["winners"] == ["A"]
    knives = ok(
        await flow_tavern.play(
            ctx,
            ALICE,
            game="knives",
            players="A ct=60 maitrise, B ct=60",
            dice="A 10 20 30, B 90 5 90 5 90 5",
        )
    )
    assert knives["winners"] == ["A"]
    assert "comprends" in refused(await flow_tavern.play(ctx, ALICE, game="drinking", players="A res=x, B"))
    assert "res=" in refused(await flow_tavern.play(ctx, ALICE, game="drinking", players="A, B"))
    assert "ne joue pas" in refused(
        await flow_tavern.play(ctx, ALICE, game="knives", players="A ct=3, B ct=4", dice="C 5")
    )
    assert "two" in refused(await flow_tavern.play(ctx, BOB, game="knives", players="A ct=30"))


async def test_tavern_either_wrestler_cheats_and_the_knife_fortune_point(ctx: AppContext) -> None:
    # Otto cheats before round 2 only: Jeu 10 under 50 (4 °R) against Gunnar's Perception 20
    # under 30 (1 °R) → +10 S that round. Gunnar's dice: S, Perception, S…; Otto's: S, Jeu, S….
    result = await flow_tavern.play(
        ctx,
        ALICE,
        game="arm_wrestling",
        players="Gunnar f=40 per=30, Otto f=40 jeu=50 triche=2",
        dice="Gunnar 30 20 90 90 90, Otto 50 10 45 20 30",
        full=True,
    )
    payload = ok(result)
    assert payload["winners"] == ["Otto"] and payload["exposed"] == []
    text = result.reply.description or ""
    assert (
        "2. 🃏 Otto triche — Jeu 50 % · **10** → Réussite (4 °R) ; Gunnar surveille — Perception 30 %" in text
    )
    assert "   Otto triche sans se faire prendre : +10 en F pour ce round." in text
    # Gunnar cheats and is seen: the match stops, the reply names him without a gendered word.
    caught = await flow_tavern.play(
        ctx,
        BOB,
        game="arm_wrestling",
        players="Gunnar f=40 jeu=45 triche, Otto f=40 per=35",
        dice="Gunnar 80, Otto 10",
        full=True,
    )
    assert ok(caught)["exposed"] == ["a"] and "Gunnar is caught cheating!" in (caught.reply.description or "")
    assert "complet:oui" in refused(
        await flow_tavern.play(
            ctx, ALICE, game="arm_wrestling", players="A f=40 jeu=40 triche, B f=40 per=30"
        )
    )
    assert "triche=1.3" in refused(
        await flow_tavern.play(
            ctx, ALICE, game="arm_wrestling", players="A f=40 jeu=40 triche=0, B f=40 per=30", full=True
        )
    )
    # Knives: the fortune point rerolls A's first miss (90 → 30).
    knives = await flow_tavern.play(
        ctx,
        ALICE,
        game="knives",
        players="A ct=60 jeu=40 maitrise fortune, B ct=60 maitrise",
        dice="A 10 90 30 20, B 10 10 10",
    )
    assert ok(knives)["scores"][0]["total"] == 50 + 30 + 40
    assert "point de fortune : lancer n° 2 relancé (90 → 30)" in (knives.reply.description or "")
    assert "Jeu" in refused(
        await flow_tavern.play(
            ctx, ALICE, game="knives", players="A ct=60 fortune, B ct=60", dice="A 10 90 30"
        )
    )
    assert "only rerolls a missed throw" in refused(
        await flow_tavern.play(
            ctx, BOB, game="knives", players="A ct=60 jeu=40 fortune=1, B ct=60", dice="A 10 90 30, B 1 1 1"
        )
    )
