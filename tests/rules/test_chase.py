"""Chases: the seed's Abel example replays exactly from its printed rolls (data/chases.json)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.rules.renove.chase import (
    ChaseError,
    ChaseState,
    Ending,
    Phase,
    Role,
    add_runner,
    end,
    endurance,
    half_up,
    move,
    new_chase,
    resolve_round,
    round_complete,
)

DATA = json.loads((Path(__file__).resolve().parents[2] / "data" / "chases.json").read_text(encoding="utf-8"))
EXAMPLE = DATA["example"]

# The seed prints the E and Ag outcomes, not their rolls: rolls giving those outcomes.
E_SCORE, AG_SCORE = 40, 40
PASS, FAIL = 20, 90


def _abel_chase() -> ChaseState:
    state = new_chase(EXAMPLE["initial_lead_m"])
    for person in EXAMPLE["participants"]:
        add_runner(
            state,
            person["name"],
            Role.FUGITIVE if person["role"] == "fugitive" else Role.PURSUER,
            M=person["M"],
            BE=3,  # printed range 3-4; 3 and 4 give the same ceil(BE/2) = 2
            E=E_SCORE,
            Ag=AG_SCORE,
            flee_talent="Fuite" in person["talents"],
        )
    return state


def test_abel_example_replays_every_printed_step() -> None:
    state = _abel_chase()
    names = {p["id"]: p["name"] for p in EXAMPLE["participants"]}
    for step in EXAMPLE["steps"]:
        if step["kind"] == "movement":
            assert state.phase is Phase.MOVEMENT and state.round == step["movement_round"]
            for expected in step["results"]:
                ag = expected["ag_test"]
                movement = move(
                    state,
                    names[expected["participant"]],
                    roll=expected["roll"],
                    ag_roll=None if ag is None else (PASS if ag["success"] else FAIL),
                )
                got = movement.to_dict()
                for key in (
                    "modified_roll",
                    "effective_M",
                    "target",
                    "outcome",
                    "penalty_m",
                    "distance_m",
                    "out",
                ):
                    assert got[key] == expected[key], (step["step"], expected["participant"], key)
            assert round_complete(state)
            report = resolve_round(state)
            gaps = [g for g in report["gaps"].values()]
            assert gaps == [step["lead_after_m"]], step["step"]
            gained = step["lead_after_m"] - next(iter(report["gaps_before"].values()))
            assert gained == step["lead_gain_m"]
        elif step["kind"] == "endurance":
            assert state.phase is Phase.ENDURANCE
            due = {r.name for r in state.waiting_for()}
            assert due == {names[r["participant"]] for r in step["results"]}
            for expected in step["results"]:
                result = endurance(
                    state, names[expected["participant"]], roll=PASS if expected["success"] else FAIL
                )
                assert result.modifier == expected["modifier"]
                assert result.test.success is expected["success"]
            if step.get("flee_talent_ends"):
                abel = state.runner("Abel")
                assert abel.effective_m(state.round) == abel.M
        else:
            end(state)
    assert state.ending is Ending.ENDED_BY_GM
    guard = state.runner("Garde 1")
    assert state.gap(guard) == EXAMPLE["final_lead_m"]
    assert state.runner("Garde 2").out


def test_state_survives_a_json_round_trip_mid_chase() -> None:
    state = _abel_chase()
    move(state, "Abel", roll=26)
    again = ChaseState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.to_dict() == state.to_dict()
    move(again, "Garde 1", roll=31)
    move(again, "garde 2", roll=0)  # 00 typed as 0
    report = resolve_round(again)
    assert report["gaps"] == {"r2": 16}


def test_rules_refuse_out_of_order_moves() -> None:
    state = _abel_chase()
    move(state, "Abel", roll=26)
    with pytest.raises(ChaseError) as exc:
        move(state, "Abel", roll=30)
    assert exc.value.code == "already_moved"
    with pytest.raises(ChaseError) as exc:
        resolve_round(state)
    assert exc.value.code == "round_incomplete"
    with pytest.raises(ChaseError) as exc:
        endurance(state, "Abel", roll=10)
    assert exc.value.code == "no_endurance_due"
    with pytest.raises(ChaseError) as exc:
        add_runner(state, "Garde 3", Role.PURSUER, M=4, BE=3, E=30, Ag=30)
    assert exc.value.code == "already_started"
    with pytest.raises(ChaseError) as exc:
        move(state, "Nobody", roll=3)
    assert exc.value.code == "unknown_runner"


def test_one_fugitive_and_fuite_only_for_him() -> None:
    state = new_chase(5)
    add_runner(state, "A", Role.FUGITIVE, M=4, BE=3, E=30, Ag=30)
    with pytest.raises(ChaseError):
        add_runner(state, "B", Role.FUGITIVE, M=4, BE=3, E=30, Ag=30)
    with pytest.raises(ChaseError):
        add_runner(state, "C", Role.PURSUER, M=4, BE=3, E=30, Ag=30, flee_talent=True)
    with pytest.raises(ChaseError):
        move(state, "A", roll=10)  # no pursuer yet


def test_catching_up_ends_the_chase() -> None:
    state = new_chase(2)
    add_runner(state, "Rat", Role.FUGITIVE, M=3, BE=3, E=30, Ag=30)
    add_runner(state, "Chien", Role.PURSUER, M=6, BE=3, E=30, Ag=30)
    move(state, "Rat", roll=10)
    move(state, "Chien", roll=10)
    report = resolve_round(state)
    assert report["ending"] == "caught" and state.phase is Phase.OVER
    with pytest.raises(ChaseError):
        move(state, "Rat", roll=10)


def test_retest_after_success_is_cumulative_and_resets_on_failure() -> None:
    state = new_chase(50)
    add_runner(state, "F", Role.FUGITIVE, M=4, BE=2, E=50, Ag=30)
    add_runner(state, "P", Role.PURSUER, M=4, BE=2, E=50, Ag=30)
    modifiers = []
    for e_roll in (10, 10, 95, 10):
        move(state, "F", roll=10)
        move(state, "P", roll=10)
        resolve_round(state)
        modifiers.append(endurance(state, "P", roll=e_roll).modifier)
        endurance(state, "F", roll=10)
    # success, success (−10), failure (−20), then due again after ceil(2/2) = 1 round at −10 (one failure)
    assert modifiers == [0, -10, -20, -10]


@pytest.mark.parametrize("be", range(0, 11))
def test_period_is_half_be_rounded_up_at_least_one(be: int) -> None:
    assert half_up(be) == max(1, -(-be // 2))


def test_random_chases_always_end_or_progress() -> None:
    rng = random.Random(5)
    for _ in range(50):
        state = new_chase(rng.randint(0, 30))
        add_runner(
            state,
            "F",
            Role.FUGITIVE,
            M=rng.randint(3, 6),
            BE=rng.randint(2, 5),
            E=40,
            Ag=40,
            flee_talent=True,
        )
        for i in range(rng.randint(1, 3)):
            add_runner(state, f"P{i}", Role.PURSUER, M=rng.randint(3, 6), BE=rng.randint(2, 5), E=40, Ag=40)
        for _round in range(40):
            if state.phase is Phase.OVER:
                break
            while state.phase is Phase.ENDURANCE:
                endurance(state, state.waiting_for()[0].id, rng=rng)
            for runner in state.waiting_for():
                movement = move(state, runner.id, rng=rng, try_ag=rng.random() < 0.5)
                assert 0 <= movement.distance <= movement.effective_m * 6
            resolve_round(state)
