"""Skill-test use cases on real databases, with dice entered by hand replaying the seeds' examples."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest
from sqlalchemy import select

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db.models import RollLog
from bot.services import config as config_svc
from bot.services.caller import Caller
from bot.services.skill_tests.chance import chance_check
from bot.services.skill_tests.difficulty import difficulty_choices_here
from bot.services.skill_tests.extended import (
    ExtendedRequest,
    decode_extended,
    encode_extended,
    extended_check,
    extended_step,
)
from bot.services.skill_tests.group import GroupRequest, group_opposed_check
from bot.services.skill_tests.opposed import OpposeRequest, opposed_check
from bot.services.skill_tests.single import TestRequest, skill_test
from bot.services.skill_tests.tables import standard_test_choices

GUILD, OWNER = 700, 99
TABLES = ("secret_tests", "opposed_skills", "extended_tests", "v1_standard_tests", "d20_difficulty")


def caller(user_id: int, *, gm: bool = False, locale: str = "fr", channel: int = 42) -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=channel, locale=locale, manage_guild=gm)


ALICE, GM = caller(1), caller(3, gm=True)


class FixedDice:
    """A random source that must never be used (every die is entered by hand)."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("no bot dice expected")


@pytest.fixture
def app_rng() -> random.Random:
    return random.Random(7)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return {name: validate_file(DATA_DIR / f"{name}.json") for name in TABLES}


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


async def _logs(ctx: AppContext) -> list[RollLog]:
    async with ctx.sessions() as session:
        return list((await session.scalars(select(RollLog).order_by(RollLog.id))).all())


async def _ruleset(ctx: AppContext, ruleset: str) -> None:
    reply = await config_svc.set_ruleset(ctx, GM, ruleset=ruleset)
    assert not reply.is_error, reply.description


def _result(reply: Any) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    assert reply.result is not None
    return dict(reply.result)


# --- /test ---------------------------------------------------------------------------------------


async def test_seed_ag26_minus30_01_succeeds_not_critical_and_02_fails(ctx: AppContext) -> None:
    one = _result(
        await skill_test(ctx, ALICE, TestRequest(carac="26", modifier=-30, roll=1), rng=FixedDice())
    )
    assert one["target"] == -4 and one["success"] and not one["critical_success"]
    assert one["ruleset"] == "renove" and one["manual"]
    assert [m["value"] for m in one["modifiers"]] == [26, -30]
    two = _result(
        await skill_test(ctx, ALICE, TestRequest(carac="26", modifier=-30, roll=2), rng=FixedDice())
    )
    assert not two["success"] and not two["critical_success"] and not two["critical_failure"]
    logs = await _logs(ctx)
    assert [(log.kind, log.total, log.ruleset) for log in logs] == [
        ("test", 1, "renove"),
        ("test", 2, "renove"),
    ]


async def test_reply_itemises_the_target_and_names_the_ruleset(ctx: AppContext) -> None:
    reply = await skill_test(ctx, ALICE, TestRequest(carac="45", modifier=-10, roll=31))
    texts = " ".join(f.value for f in reply.fields)
    assert "45" in texts and "−10" in texts and "35" in texts
    assert reply.footer is not None and "Warhammer rénové" in reply.footer
    assert "°R" in (reply.description or "")


async def test_lenient_reading_is_shown_on_request(ctx: AppContext) -> None:
    reply = await skill_test(ctx, ALICE, TestRequest(carac="40", roll=55, lenient=True))
    assert reply.result is not None and reply.result["lenient"] == "checks.lenient.minor_setback"
    assert any("contretemps" in f.value for f in reply.fields)


async def test_channel_override_changes_the_system_of_that_channel_only(ctx: AppContext) -> None:
    reply = await config_svc.set_ruleset(ctx, GM, ruleset="d20", scope="channel")
    assert not reply.is_error
    here = _result(await skill_test(ctx, ALICE, TestRequest(carac="12", roll=20)))
    elsewhere = _result(await skill_test(ctx, caller(1, channel=43), TestRequest(carac="45", roll=20)))
    assert here["ruleset"] == "d20" and here["die"] == 20 and here["critical_failure"]
    assert elsewhere["ruleset"] == "renove" and elsewhere["die"] == 100


async def test_d20_difficulty_simultaneous_and_wounds(ctx: AppContext) -> None:
    await _ruleset(ctx, "d20")
    result = _result(
        await skill_test(
            ctx,
            ALICE,
            TestRequest(carac="15", difficulty="difficile", simultaneous=2, wounds=1, roll=1),
        )
    )
    assert result["target"] == 15 - 10 - 5 - 1
    assert result["critical_success"]
    impossible = _result(
        await skill_test(ctx, ALICE, TestRequest(carac="15", difficulty="rigoureusement_impossible", roll=3))
    )
    assert impossible["impossible"] and not impossible["success"]


async def test_renove_difficulty_by_name_is_the_wfrp_scale(ctx: AppContext) -> None:
    # Issue #21: Difficile is −20 in `renove`: 40 − 20 = 20, and 21 fails.
    hard = _result(await skill_test(ctx, ALICE, TestRequest(carac="40", difficulty="difficile", roll=21)))
    assert hard["target"] == 20 and not hard["success"]
    assert hard["modifiers"][-1] == {"label": "checks.renove.difficulty.hard", "value": -20}
    # By its French name (accents and case ignored), by its English name, with a modifier too.
    scale = {
        "Très facile": 30,
        "facile": 20,
        "Assez Facile": 10,
        "moyenne": 0,
        "assez-difficile": -10,
        "very hard": -30,
        "Routine": 10,
    }
    for name, value in scale.items():
        result = _result(await skill_test(ctx, ALICE, TestRequest(carac="40", difficulty=name, roll=50)))
        assert result["target"] == 40 + value, name
    both = _result(
        await skill_test(ctx, ALICE, TestRequest(carac="40", modifier=-5, difficulty="facile", roll=55))
    )
    assert both["target"] == 55 and both["success"]
    reply = await skill_test(ctx, ALICE, TestRequest(carac="40", difficulty="difficile", roll=21))
    assert "Difficile : −20" in " ".join(f.value for f in reply.fields)
    # v1 and ogl have no ladder; a d20 grade is not a `renove` one.
    await _ruleset(ctx, "v1")
    refused = await skill_test(ctx, ALICE, TestRequest(carac="40", difficulty="difficile", roll=21))
    assert refused.is_error and "pas d'échelle" in (refused.description or "")


async def test_each_ruleset_offers_only_its_own_ladder(ctx: AppContext) -> None:
    renove = await difficulty_choices_here(ctx, ALICE, "fr", "")
    assert [value for _, value in renove] == [
        "tres_facile",
        "facile",
        "assez_facile",
        "moyenne",
        "assez_difficile",
        "difficile",
        "tres_difficile",
    ]
    assert renove[5][0] == "Difficile (−20 %)"
    english = await difficulty_choices_here(ctx, caller(1, locale="en-US"), "en-US", "hard")
    assert english == [("Hard (−20%)", "difficile"), ("Very hard (−30%)", "tres_difficile")]
    await _ruleset(ctx, "d20")
    d20 = await difficulty_choices_here(ctx, ALICE, "fr", "diff")
    assert d20 == [
        ("Assez difficile (−5)", "assez_difficile"),
        ("Difficile (−10)", "difficile"),
        ("Très difficile (−15)", "tres_difficile"),
    ]
    await _ruleset(ctx, "ogl")
    assert await difficulty_choices_here(ctx, ALICE, "fr", "") == []


async def test_extended_and_opposed_tests_take_the_difficulty(ctx: AppContext) -> None:
    extended = _result(
        await extended_check(
            ctx,
            ALICE,
            ExtendedRequest(carac="40", attempts=3, successes=2, difficulty="facile", rolls="55 70 10"),
            rng=FixedDice(),
        )
    )
    assert extended["target"] == 60 and extended["status"] == "succeeded"
    assert extended["test"]["modifiers"] == [{"label": "checks.renove.difficulty.easy", "value": 20}]
    opposed = _result(
        await opposed_check(
            ctx,
            ALICE,
            OpposeRequest(
                side_a="Hans=40", side_b="Otto=35", difficulty_a="très difficile", rolls_a="15", rolls_b="50"
            ),
            rng=FixedDice(),
        )
    )
    first = opposed["rounds"][0]
    assert first["a"]["target"] == 10 and not first["a"]["success"]  # 40 − 30: 15 fails
    refused = await extended_check(
        ctx, ALICE, ExtendedRequest(carac="40", attempts=3, successes=2, difficulty="absurde")
    )
    assert refused.is_error and "Difficulté inconnue" in (refused.description or "")


async def test_v1_standard_tests_from_the_table(ctx: AppContext) -> None:
    await _ruleset(ctx, "v1")
    force = _result(await skill_test(ctx, ALICE, TestRequest(action="Force", carac="4", roll=40)))
    assert force["target"] == 40 and force["success"] and force["band"] == "checks.band.narrow_success"
    bluff = await skill_test(ctx, ALICE, TestRequest(action="bluff", carac="35", roll=80))
    assert bluff.result is not None and "Charisme" in bluff.result["standard_test"]["helpful_skills"]
    assert any("Charisme" in f.value for f in bluff.fields)
    hide = _result(await skill_test(ctx, ALICE, TestRequest(action="Discrétion", roll=30)))
    assert hide["target"] == 30 and hide["success"]
    choices = standard_test_choices(ctx, "fr", "blu")
    assert choices and choices[0][1] == "bluff"


async def test_ogl_critical_at_a_tenth_of_the_skill(ctx: AppContext) -> None:
    await _ruleset(ctx, "ogl")
    crit = _result(await skill_test(ctx, ALICE, TestRequest(carac="45", roll=4)))
    plain = _result(await skill_test(ctx, ALICE, TestRequest(carac="45", roll=5)))
    assert crit["critical_success"] and plain["success"] and not plain["critical_success"]


@pytest.mark.parametrize(
    ("request_", "key_words"),
    [
        (TestRequest(), "Que faut-il tester"),
        (TestRequest(carac="400"), "hors limites"),
        (TestRequest(carac="40", difficulty="evidente"), "Difficulté inconnue « evidente »"),
        (TestRequest(carac="40", action="Bluff"), "v1"),
        (TestRequest(carac="40", simultaneous=2), "d20"),
        (TestRequest(carac="40", for_user_id=2), "Seul le MJ"),
    ],
)
async def test_bad_input_is_an_ephemeral_french_error_and_writes_nothing(
    ctx: AppContext, request_: TestRequest, key_words: str
) -> None:
    reply = await skill_test(ctx, ALICE, request_)
    assert reply.is_error and reply.ephemeral
    assert key_words in (reply.description or "")
    assert await _logs(ctx) == []


async def test_errors_follow_an_english_locale(ctx: AppContext) -> None:
    reply = await skill_test(ctx, caller(1, locale="en-US"), TestRequest(carac="40", roll=0, lenient=True))
    assert not reply.is_error  # 0 = 00 on a d100
    await _ruleset(ctx, "d20")
    bad = await skill_test(ctx, caller(1, locale="en-US"), TestRequest(carac="12", roll=50))
    assert bad.is_error and "not a possible result on a d20" in (bad.description or "")


# --- secret tests --------------------------------------------------------------------------------


async def test_a_player_perception_test_is_secret_and_goes_to_the_owner_by_dm(ctx: AppContext) -> None:
    reply = await skill_test(ctx, ALICE, TestRequest(skill="Perception", carac="40", roll=35, owner_id=OWNER))
    assert not reply.ephemeral and reply.kind == "test_secret"
    assert "35" not in (reply.description or "") and "Perception" in (reply.description or "")
    assert len(reply.also) == 1 and reply.also[0].user_id == OWNER
    secret = reply.also[0].reply
    assert secret.result is not None and secret.result["roll"] == 35 and secret.result["secret"]
    logs = await _logs(ctx)
    assert logs[0].secret


async def test_the_gm_channel_takes_secret_results_when_configured(ctx: AppContext) -> None:
    assert not (await config_svc.set_gm_channel(ctx, GM, channel_id=77)).is_error
    reply = await skill_test(ctx, ALICE, TestRequest(skill="Fouille", carac="40", roll=35, owner_id=OWNER))
    assert reply.also[0].channel_id == 77 and reply.also[0].user_id is None


async def test_the_gm_rolling_for_a_player_sees_the_result_alone(ctx: AppContext) -> None:
    reply = await skill_test(ctx, GM, TestRequest(carac="40", roll=12, for_user_id=1))
    assert reply.ephemeral and not reply.also
    assert reply.result is not None and reply.result["for_user_id"] == 1


async def test_secret_false_overrides_the_seed_list(ctx: AppContext) -> None:
    reply = await skill_test(ctx, ALICE, TestRequest(skill="Perception", carac="40", secret=False))
    assert not reply.ephemeral and not reply.also and reply.kind == "test"


# --- opposed -------------------------------------------------------------------------------------


async def test_opposed_rerolls_until_decided_and_suggests_the_defending_skill(ctx: AppContext) -> None:
    request = OpposeRequest(
        side_a="V=35", side_b="G=40", skill_a="Dissimulation", rolls_a="70 20", rolls_b="80 30"
    )
    result = _result(await opposed_check(ctx, ALICE, request, rng=FixedDice()))
    assert result["skills"] == ["Dissimulation", "Perception"] and result["suggested_skill_b"]
    assert [r["verdict"] for r in result["rounds"]] == ["reroll", "a"]
    assert result["winner"] == "V"


async def test_opposed_pending_when_hand_dice_run_out(ctx: AppContext) -> None:
    request = OpposeRequest(side_a="A=35", side_b="B=40", rolls_a="70", rolls_b="80")
    result = _result(await opposed_check(ctx, ALICE, request, rng=FixedDice()))
    assert result["status"] == "pending" and result["winner"] is None


async def test_group_opposed_replays_the_guards_and_the_thief(ctx: AppContext) -> None:
    request = GroupRequest(
        side_a="G1=40, G2=40",
        side_b="V=35",
        skill_a="Perception",
        rolls="G1=03, G2=89 56, V=75 27",
    )
    reply = await group_opposed_check(ctx, ALICE, request, rng=FixedDice())
    result = _result(reply)
    assert sorted(map(tuple, result["beats"])) == [("G1", "V"), ("V", "G2")]
    assert result["skills"] == ["Perception", "Dissimulation"]
    assert len(result["rounds"]) == 2
    assert "G1 l'emporte sur V" in (reply.description or "")
    assert "V l'emporte sur G2" in (reply.description or "")


async def test_group_errors(ctx: AppContext) -> None:
    dup = await group_opposed_check(ctx, ALICE, GroupRequest(side_a="G=40, G=40", side_b="V=35"))
    assert dup.is_error and "unique" in (dup.description or "")
    stranger = await group_opposed_check(ctx, ALICE, GroupRequest(side_a="G=40", side_b="V=35", rolls="X=12"))
    assert stranger.is_error and "X" in (stranger.description or "")
    assert await _logs(ctx) == []


# --- extended ------------------------------------------------------------------------------------


async def test_extended_lock_picking_defaults_from_the_table(ctx: AppContext) -> None:
    request = ExtendedRequest(carac="40", skill="Crochetage", rolls="50 10 60 70 80")
    result = _result(await extended_check(ctx, ALICE, request, rng=FixedDice()))
    # 6 attempts, 3 needed: after 1 success in 5 attempts, 2 are missing with 1 left → failed.
    assert result["test"]["max_attempts"] == 6 and result["test"]["successes_needed"] == 3
    assert result["status"] == "failed" and len(result["attempts"]) == 5
    assert result["elapsed"] == {"amount": 50, "unit": "second"}
    assert len([log for log in await _logs(ctx) if log.kind == "extended"]) == 5


async def test_extended_step_by_step_through_the_button_state(ctx: AppContext) -> None:
    reply = await extended_check(ctx, ALICE, ExtendedRequest(carac="40", attempts=3, successes=2, step=True))
    custom_id = reply.buttons[0][0].custom_id
    assert custom_id.startswith("melee:ext:") and len(custom_id) <= 100
    token = decode_extended(custom_id)
    assert token is not None and token.outcomes == () and token.user_id == ALICE.user_id
    refused = await extended_step(ctx, caller(2), custom_id)
    assert refused.is_error
    steps = 0
    while reply.buttons:
        reply = await extended_step(ctx, ALICE, reply.buttons[0][0].custom_id)
        steps += 1
        assert not reply.is_error
    assert reply.result is not None and reply.result["status"] in ("succeeded", "failed")
    assert 2 <= steps <= 3


async def test_extended_refuses_more_successes_than_attempts(ctx: AppContext) -> None:
    reply = await extended_check(ctx, ALICE, ExtendedRequest(carac="40", attempts=2, successes=3))
    assert reply.is_error and "impossible" in (reply.description or "")


def test_extended_custom_id_round_trip_at_the_limits() -> None:
    from bot.rules import extended
    from bot.rules.checks.common import System

    test = extended.ExtendedTest(
        System.RENOVE, -200, 100, 100, time_per_attempt=extended.Duration(9999, extended.TimeUnit.DAY)
    )
    state = extended.run(test, rolls=[1] * 99)
    custom_id = encode_extended(state, -200, 10**19)
    assert len(custom_id) <= 100
    token = decode_extended(custom_id)
    assert token is not None and len(token.outcomes) == 99 and all(token.outcomes)
    assert decode_extended("melee:ext:r:40:3:5:1r:0:0:1") is None  # K > N


# --- chance --------------------------------------------------------------------------------------


async def test_chance_is_a_d20_rule(ctx: AppContext) -> None:
    refused = await chance_check(ctx, ALICE, player_roll=3, gm_roll=10)
    assert refused.is_error
    await _ruleset(ctx, "d20")
    lucky = _result(await chance_check(ctx, ALICE, player_roll=3, gm_roll=10))
    unlucky = _result(await chance_check(ctx, ALICE, player_roll=10, gm_roll=10))
    assert lucky["lucky"] and not unlucky["lucky"]


# --- characters (when the colleague's module is there) -------------------------------------------


async def test_characteristic_and_skill_of_the_active_character(ctx: AppContext) -> None:
    try:
        characters = importlib.import_module("bot.services.characters")
    except ImportError:
        pytest.skip("characters module not there yet")
    created = await characters.create_character(
        ctx, ALICE, name="Arnolf", stats="CC:45 CT:30 F:35 E:40 Ag:26 Int:31 FM:29 Soc:33"
    )
    assert not created.is_error, created.description
    result = _result(await skill_test(ctx, ALICE, TestRequest(carac="Ag", modifier=-30, roll=1)))
    assert result["target"] == -4 and result["success"] and not result["critical_success"]
    assert result["character"] == "Arnolf"
    missing = await skill_test(ctx, ALICE, TestRequest(carac="Nope"))
    assert missing.is_error
    nobody = await skill_test(ctx, caller(2), TestRequest(carac="CC"))
    assert nobody.is_error and "personnage" in (nobody.description or "")
