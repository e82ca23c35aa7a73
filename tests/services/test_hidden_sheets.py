"""A GM's NPC sheet stays hidden from the players, whatever the command (issue: hidden values).

Per command: /oppose and /groupe let the NPC take part with its values masked for the player and
the full result sent to the GM; every other command that would show an NPC's values to a player
refuses privately, in the player's language, naming no value.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.services import characters as svc
from bot.services import config as config_svc
from bot.services.caller import Caller
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.flows import chase as flow_chase
from bot.services.flows import fortune as flow_fortune
from bot.services.flows import infection as flow_infection
from bot.services.flows import interrogation as flow_interrogation
from bot.services.flows import tavern as flow_tavern
from bot.services.simulation import simulate_duel
from bot.services.skill_tests.group import GroupRequest, group_opposed_check
from bot.services.skill_tests.opposed import OpposeRequest, opposed_check
from bot.services.skill_tests.single import TestRequest, skill_test
from bot.ui.reply import Reply

GUILD, OWNER = 1900, 77
BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=8, locale=locale, manage_guild=gm)


ALICE, GM, BOB = caller(1), caller(3, gm=True), caller(2, locale="en-US")


@functools.cache
def _tables() -> dict[str, Table]:
    return load_all()


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return _tables()


@pytest.fixture
async def ctx(app_context: AppContext) -> AppContext:
    ok(await svc.create_character(app_context, GM, name="Baron Noir", stats=BARON, npc=True))
    ok(await svc.edit_character(app_context, GM, name="Baron Noir", skills="Perception +10"))
    ok(await svc.create_character(app_context, ALICE, name="Hans", stats=HANS))
    ok(await svc.edit_character(app_context, ALICE, skills="Dissimulation"))
    ok(await svc.create_character(app_context, BOB, name="Bob", stats=HANS))
    return app_context


def ok(reply: Reply) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


def text(reply: Reply) -> str:
    parts = [reply.title or "", reply.description or "", reply.footer or ""]
    parts += [f"{f.name} {f.value}" for f in reply.fields]
    return "\n".join(parts)


def refused(reply: Reply) -> str:
    assert reply.is_error and reply.ephemeral, reply.description
    return reply.description or ""


# --- /oppose, /groupe: the NPC takes part, its values hidden ------------------------------------


async def test_a_player_opposing_the_baron_sees_no_perception(ctx: AppContext) -> None:
    request = OpposeRequest(
        side_a="Hans",
        side_b="Baron Noir",
        skill_a="Dissimulation",
        rolls_a="20",
        rolls_b="30",
        owner_id=OWNER,
    )
    reply = await opposed_check(ctx, ALICE, request)
    shown = text(reply)
    # Perception: Int 47 + 10 = 57 — nowhere in what the player gets, not even in the JSON.
    assert "57" not in shown and "57" not in json.dumps(reply.result)
    assert "30 sous une valeur cachée" in shown and "20 sous 36" in shown  # Hans: Ag 36
    assert "Les valeurs de Baron Noir (PNJ du MJ) restent cachées" in shown
    assert reply.result is not None and reply.result["b"] == {"name": "Baron Noir", "hidden": True}
    assert not reply.ephemeral
    # The full result goes where secret tests go (no GM channel: the server owner's DMs).
    (delivery,) = reply.also
    assert delivery.user_id == OWNER
    full = text(delivery.reply)
    assert "30 sous 57" in full and "🔒" in full and "<@1>" in full
    # The GM opposing the same sides sees everything, nothing sent elsewhere.
    gm = await opposed_check(ctx, GM, request)
    assert "30 sous 57" in text(gm) and not gm.also and "cachée" not in text(gm)


async def test_the_gm_channel_gets_the_full_opposed_test_in_english_too(ctx: AppContext) -> None:
    ok(await config_svc.set_gm_channel(ctx, GM, channel_id=555))
    request = OpposeRequest(
        side_a="Baron Noir", side_b="Bob", skill_a="Perception", rolls_a="10", rolls_b="90"
    )
    reply = await opposed_check(ctx, BOB, request)
    shown = text(reply)
    assert "10 against a hidden target" in shown and "57" not in shown
    assert "The values of Baron Noir (the GM's NPC) stay hidden: the full result went to the GM." in shown
    (delivery,) = reply.also
    assert delivery.channel_id == 555 and "10 against 57" in text(delivery.reply)


async def test_a_player_group_test_masks_only_the_npc(ctx: AppContext) -> None:
    request = GroupRequest(
        side_a="Hans, G=40",
        side_b="Baron Noir",
        skill_a="Dissimulation",
        skill_b="Perception",
        rolls="Hans=05, G=95 12, Baron Noir=50 60",
        owner_id=OWNER,
    )
    reply = await group_opposed_check(ctx, ALICE, request)
    shown = text(reply)
    assert "57" not in shown and "57" not in json.dumps(reply.result)
    assert "50 sous une valeur cachée" in shown and "05 sous 36" in shown and "95 sous 40" in shown
    assert reply.result is not None
    assert reply.result["side_b"] == [{"name": "Baron Noir", "hidden": True}]
    (delivery,) = reply.also
    assert "50 sous 57" in text(delivery.reply)
    gm = await group_opposed_check(ctx, GM, request)
    assert "50 sous 57" in text(gm) and not gm.also


async def test_a_number_or_ones_own_character_is_not_hidden(ctx: AppContext) -> None:
    request = OpposeRequest(
        side_a="Hans", side_b="B=38", skill_a="F", skill_b="F", rolls_a="20", rolls_b="30"
    )
    reply = await opposed_check(ctx, ALICE, request)
    assert "20 sous 38" in text(reply) and "cachée" not in text(reply) and not reply.also
    # Another player's character is read as /perso voir reads it: by its owner and the GM only.
    other = await opposed_check(
        ctx, ALICE, OpposeRequest(side_a="Hans", side_b="Bob", skill_a="F", skill_b="F")
    )
    assert "Les valeurs de Bob (personnage d'un autre joueur) restent cachées" in text(other)


# --- every other command: a private refusal naming no value --------------------------------------


async def test_test_for_someone_is_the_gms(ctx: AppContext) -> None:
    message = refused(await skill_test(ctx, ALICE, TestRequest(carac="Perception", for_user_id=GM.user_id)))
    assert "MJ" in message and "57" not in message


async def test_sheet_commands_refuse_the_npc_to_a_player(ctx: AppContext) -> None:
    for reply in (
        await svc.show_character(ctx, ALICE, name="Baron Noir"),
        (await svc.export_character(ctx, ALICE, name="Baron Noir")).reply,
        await svc.roll_history(ctx, ALICE, character="Baron Noir"),
        await svc.set_active_character(ctx, ALICE, name="Baron Noir"),
    ):
        message = refused(reply)
        assert "Baron Noir" in message and "47" not in message and "55" not in message
    english = refused(await svc.show_character(ctx, BOB, name="Baron Noir"))
    assert "Baron Noir" in english and "not yours" in english
    assert [name for _, name in await svc.character_choices(ctx, ALICE, "")] == ["Hans"]
    assert "Baron Noir" in [name for _, name in await svc.character_choices(ctx, GM, "")]
    assert not (await svc.show_character(ctx, GM, name="Baron Noir")).is_error


async def test_flows_refuse_the_npc_to_a_player(ctx: AppContext) -> None:
    assert not (await flow_chase.open_chase(ctx, GM, lead=3)).reply.is_error
    chase = refused((await flow_chase.add_runner(ctx, ALICE, role="pursuer", character="Baron Noir")).reply)
    infection = refused(
        (await flow_infection.infection_test(ctx, ALICE, critical=5, character="Baron Noir")).reply
    )
    fortune = refused((await flow_fortune.fortune(ctx, ALICE, character="Baron Noir")).reply)
    for message in (chase, infection, fortune):
        assert "Baron Noir" in message and "44" not in message
    lines = ["Une ligne", "Une autre"]
    opened = await flow_interrogation.open_interrogation(
        ctx, GM, subject="x", fm=30, reluctant=True, lines=lines
    )
    assert not opened.reply.is_error, opened.reply.description
    asked = refused((await flow_interrogation.question(ctx, ALICE, character="Baron Noir")).reply)
    assert "Baron Noir" in asked and "52" not in asked
    english = refused(
        (await flow_infection.infection_test(ctx, BOB, critical=5, character="Baron Noir")).reply
    )
    assert "Baron Noir" in english


async def test_fight_and_simulator_refuse_the_npc_to_a_player(ctx: AppContext) -> None:
    assert not (await open_fight(ctx, GM, name="Embuscade")).reply.is_error
    added = refused((await add_combatants(ctx, ALICE, who="Baron Noir")).reply)
    assert "Baron Noir" in added and "55" not in added
    shown = (await add_combatants(ctx, GM, who="Baron Noir")).reply
    assert not shown.is_error and not shown.ephemeral  # the fight thread is the table's
    assert "profil caché" in (shown.description or "") and "CC 55" not in (shown.description or "")
    simulated = await simulate_duel(ctx, ALICE, a="Hans", b="Baron Noir", duels=10)
    assert refused(simulated) and "55" not in (simulated.description or "")


# --- « Relancer (Fortune) » under a failed test of one's own ------------------------------------


def _button(reply: Reply) -> str | None:
    ids = [b.custom_id for row in reply.buttons for b in row]
    assert len(ids) <= 1
    return ids[0] if ids else None


async def _fortune(ctx: AppContext, name: str) -> int:
    async with ctx.sessions() as session:
        sheet = await svc.find_character(session, GUILD, name)
    assert sheet is not None
    return sheet.characteristics.get("Fortune", 0)


async def test_a_failed_test_of_ones_own_gets_a_fortune_reroll(ctx: AppContext) -> None:
    ok(await svc.edit_character(ctx, ALICE, name="Hans", stats="PD:2 Fortune:1"))
    failed = await skill_test(ctx, ALICE, TestRequest(carac="CC", roll=90, modifier=-10))
    custom_id = _button(failed)
    assert custom_id is not None and failed.buttons[0][0].label == "Relancer (Fortune)"
    # Only Hans's player may click; others are refused privately and nothing is spent.
    other = (await flow_fortune.reroll_click(ctx, GM, custom_id, title="🎲 Test")).reply
    assert "Seul le joueur de Hans" in refused(other)
    english = (await flow_fortune.reroll_click(ctx, BOB, custom_id)).reply
    assert "Only Hans's player" in refused(english)
    assert await _fortune(ctx, "Hans") == 1
    rerolled = (await flow_fortune.reroll_click(ctx, ALICE, custom_id, title="🎲 Test")).reply
    result = ok(rerolled)
    assert result["use"] == "reroll" and result["left"] == 0
    assert result["reroll"]["target"] == 30  # CC 40 − 10, the same target
    assert "Hans dépense un point de fortune et relance" in text(rerolled)
    assert rerolled.title == "🍀 Test — relance (Fortune)" and not rerolled.ephemeral
    assert await _fortune(ctx, "Hans") == 0
    again = (await flow_fortune.reroll_click(ctx, ALICE, custom_id)).reply
    assert "déjà été relancé" in refused(again)
    assert await _fortune(ctx, "Hans") == 0
    # No Fortune left: no button.
    assert _button(await skill_test(ctx, ALICE, TestRequest(carac="CC", roll=90))) is None


async def test_no_reroll_offered_for_a_success_a_critical_a_number_or_a_secret(ctx: AppContext) -> None:
    ok(await svc.edit_character(ctx, ALICE, name="Hans", stats="PD:2 Fortune:2"))
    for request in (
        TestRequest(carac="CC", roll=12),  # a success
        TestRequest(carac="CC", roll=99),  # 99-00: Fortune cannot avoid it
        TestRequest(carac="CC", roll=100),
        TestRequest(carac="40", roll=90),  # a number, no character
        TestRequest(carac="CC", roll=90, secret=True),
    ):
        assert _button(await skill_test(ctx, ALICE, request)) is None, request
    custom_id = _button(await skill_test(ctx, ALICE, TestRequest(carac="CC", roll=90)))
    assert custom_id is not None
    forged = (await flow_fortune.reroll_click(ctx, ALICE, "melee:fortune:reroll:999:1:40:0:90")).reply
    assert "n'existe plus" in refused(forged)
    critical = (await flow_fortune.reroll_click(ctx, ALICE, custom_id.rsplit(":", 1)[0] + ":100")).reply
    assert "échec critique" in refused(critical)
    assert await _fortune(ctx, "Hans") == 2


async def test_a_gm_npc_sheet_in_a_tavern_game_shows_its_dice_not_its_values(ctx: AppContext) -> None:
    arm = await flow_tavern.play(
        ctx, GM, game="arm_wrestling", players="Baron Noir, Otto f=40", dice="Baron Noir 10, Otto 90"
    )
    body = arm.reply.description or ""
    assert not arm.reply.is_error and "valeurs cachées" in body
    assert "45 %" not in body and "40 %" in body  # the NPC's F stays hidden, the typed player's shows
    knives = await flow_tavern.play(ctx, GM, game="knives", players="Baron Noir, Otto ct=40")
    assert "**Baron Noir** (? %)" in (knives.reply.description or "")
