"""Critical effects applied with hand-entered dice, ticking, and the action economy."""

from __future__ import annotations

import pytest

from bot.rules.combat.basics import RefusedError
from bot.rules.combat.effects import Condition, apply_mechanics, merge_conditions, resolve_pending, tick
from bot.rules.combat.initiative import roll_initiative
from bot.rules.combat.state import (
    Combatant,
    FightState,
    apply_effects,
    can_act,
    choose_posture,
    end_round,
    signal,
    start_round,
    take_action,
)
from bot.rules.combat.tables import CombatTables, Mechanic
from bot.rules.dice.manual import ManualDice

VICTIM = {"CC": 40, "E": 40, "Ag": 35, "FM": 30, "BE": 7, "A": 2}


def test_tranchantes_jambes_5_failed_test_and_rolled_duration(tables: CombatTables) -> None:
    """Seed lines 85-87: 'Test d'E -10 % pour ne pas tomber et perdre ce round et le suivant … -10 % CC
    pour 1d10/2 rounds.' E 40 - 10 = 30, rolled 80: fails; the d10 shows 7 -> 3 rounds."""
    entry = tables.critical("tranchantes", "jambes", 5)
    applied = apply_mechanics(
        entry.mechanics, VICTIM, source=entry.source, test_rolls=[80], duration_rolls=[7]
    )
    [test] = applied.tests
    assert test.check.target == 30 and not test.check.success and test.branch == "on_failure"
    assert [e.kind for e in applied.events] == ["fall"]
    kinds = [(c.kind, c.stat, c.value, c.remaining, c.unit, c.until) for c in applied.conditions]
    assert kinds == [
        ("prone", None, None, None, None, "stands_up"),
        ("lose_time", None, None, 2, "round", None),
        ("modifier", "CC", -10, 3, "round", None),
    ]
    assert applied.rolls[0].expression == "1d10 / 2" and applied.rolls[0].total == 3
    # passed test: only the CC malus; a d10 of 1 gives 0 rounds -> nothing, noted.
    passed = apply_mechanics(
        entry.mechanics, VICTIM, source=entry.source, test_rolls=[12], duration_rolls=[1]
    )
    assert passed.conditions == () and [e.kind for e in passed.events] == ["zero_duration"]
    assert passed.to_dict()["tests"][0]["branch"] == "on_success"


def test_durations_tick_down_and_expire(tables: CombatTables) -> None:
    entry = tables.critical("tranchantes", "jambes", 5)
    conditions = apply_mechanics(
        entry.mechanics, VICTIM, source=entry.source, test_rolls=[80], duration_rolls=[7]
    ).conditions
    first = tick(conditions)
    assert [(c.kind, c.remaining) for c in first.conditions] == [
        ("prone", None),
        ("lose_time", 1),
        ("modifier", 2),
    ]
    second = tick(first.conditions)
    assert [c.kind for c in second.expired] == ["lose_time"]
    third = tick(second.conditions)
    assert [c.kind for c in third.expired] == ["modifier"] and [c.kind for c in third.conditions] == ["prone"]
    assert tick(third.conditions, "stands_up").conditions == ()


def test_permanent_changes_are_proposals(tables: CombatTables) -> None:
    entry = tables.critical("tranchantes", "jambes", 11)
    applied = apply_mechanics(entry.mechanics, VICTIM, source=entry.source, duration_rolls=[7])
    [proposal] = applied.proposals
    assert (proposal.stat, proposal.operation, proposal.value, proposal.times, proposal.total) == (
        "Ag",
        "add",
        -2,
        3,
        -6,
    )
    assert {e.kind for e in applied.events} == {"gm_ruling", "fall"}
    assert any(c.stat == "CC" and c.until == "end_of_combat" for c in applied.conditions)


def test_bleeding_ticks_with_a_cumulative_malus(tables: CombatTables) -> None:
    entry = tables.critical("tranchantes", "tete", 11)
    applied = apply_mechanics(
        entry.mechanics, VICTIM, source=entry.source, test_rolls=[20], rng=ManualDice([4, 3])
    )
    assert applied.tests[0].check.success
    bleeding = next(c for c in applied.conditions if c.kind == "bleeding")
    assert bleeding.test is not None and bleeding.test.modifier == -10 and bleeding.test.next_in == 1
    first = tick(applied.conditions)
    [prompt] = [p for p in first.prompts if p.kind == "bleeding_test"]
    assert prompt.condition.test is not None and prompt.condition.test.modifier == -10
    # the victim (CC -30 for the fight, E unchanged) rolls 25 against E 40 - 10 = 30: holds on
    held = resolve_pending(prompt.condition, VICTIM, conditions=first.conditions, test_roll=25)
    assert held.tests[0].check.target == 30 and held.conditions == ()
    second = tick(first.conditions)
    [prompt2] = [p for p in second.prompts if p.kind == "bleeding_test"]
    assert prompt2.condition.test is not None and prompt2.condition.test.modifier == -20
    fainted = resolve_pending(prompt2.condition, VICTIM, test_roll=25)
    assert fainted.tests[0].check.target == 20 and [c.kind for c in fainted.conditions] == ["unconscious"]
    treated = tick(second.conditions, "treated")
    assert not any(c.kind == "bleeding" for c in treated.conditions)


def test_delayed_test_after_be_rounds(tables: CombatTables) -> None:
    entry = tables.critical("tranchantes", "corps", 11)
    applied = apply_mechanics(entry.mechanics, {"E": 40, "BE": 2}, source=entry.source, duration_rolls=[4, 6])
    delayed = next(c for c in applied.conditions if c.kind == "delayed_test")
    assert delayed.remaining == 2 and delayed.unit == "round"
    conditions = tick(applied.conditions).conditions
    due = tick(conditions)
    [prompt] = [p for p in due.prompts if p.kind == "delayed_test"]
    failed = resolve_pending(prompt.condition, {"E": 40, "BE": 2}, test_roll=90)
    assert [c.kind for c in failed.conditions] == ["unconscious"]


def test_death_timer_expires_unless_treated(tables: CombatTables) -> None:
    entry = tables.critical("tranchantes", "corps", 12)
    applied = apply_mechanics(entry.mechanics, VICTIM, source=entry.source, duration_rolls=[2])
    [timer] = applied.conditions
    assert (timer.kind, timer.remaining, timer.params["unless"]) == ("death_timer", 2, "treated")
    once = tick(applied.conditions)
    assert once.prompts == ()
    twice = tick(once.conditions)
    assert [p.kind for p in twice.prompts] == ["death_timer_expired"] and twice.conditions == ()
    assert tick(once.conditions, "treated").conditions == ()
    assert tick(once.conditions, "healed").conditions == ()


def test_instant_death_and_cc_extension_option(tables: CombatTables) -> None:
    assert apply_mechanics(tables.critical("tranchantes", "tete", 15).mechanics, VICTIM, source="x").dead
    entry = tables.critical("tranchantes", "jambes", 3)
    applied = apply_mechanics(
        entry.mechanics, VICTIM, source=entry.source, test_rolls=[5], cc_malus_extends_to=("CT", "Ag")
    )
    assert sorted(c.stat or "" for c in applied.conditions) == ["Ag", "CC", "CT"]


def test_condition_round_trip() -> None:
    condition = Condition("modifier", "criticals.x", stat="CC", value=-10, remaining=3, unit="round")
    assert Condition.from_dict(condition.to_dict()) == condition


# --- action economy -----------------------------------------------------------------------------


def fighter(**kw: object) -> Combatant:
    return Combatant("a", "A", dict(VICTIM), weapons=("epee",), **kw)  # type: ignore[arg-type]


def test_postures_allow_actions(tables: CombatTables) -> None:
    defensive = choose_posture(tables, fighter(), "defensive")
    refusal = can_act(tables, defensive, "attaquer")
    assert refusal is not None and refusal.reason == "combat.refusal.posture"
    assert can_act(tables, defensive, "esquiver") is None
    assert can_act(tables, defensive, "action_speciale") is None
    suicidal = choose_posture(tables, fighter(), "suicidaire", "degats")
    assert can_act(tables, suicidal, "esquiver") is not None and can_act(tables, suicidal, "attaquer") is None
    with pytest.raises(RefusedError):
        choose_posture(tables, fighter(), "suicidaire")


def test_a_attacks_per_round_and_one_of_each_kind(tables: CombatTables) -> None:
    c = fighter()
    c = take_action(tables, c, "attaquer")
    c = take_action(tables, c, "attaquer")
    assert c.actions.attacks_made == 2 and c.attacks_left() == 0
    refusal = can_act(tables, c, "attaquer")
    assert refusal is not None and refusal.reason == "combat.refusal.no_attacks_left"
    c = take_action(tables, c, "esquiver")
    refusal = can_act(tables, c, "esquiver")
    assert refusal is not None and refusal.reason == "combat.refusal.once_per_round"
    # reactive parry: no A left, nothing prepared, no parry yet -> allowed once, costs next round's A
    c = take_action(tables, c, "parade_reactive")
    assert c.actions.debt == 1 and can_act(tables, c, "parade_reactive") is not None
    v = fighter()
    v = take_action(tables, v, "viser")
    assert can_act(tables, v, "viser") is not None and can_act(tables, v, "attaquer") is None


def test_second_weapon_gives_an_extra_attack_but_not_for_aiming(tables: CombatTables) -> None:
    c = fighter(off_hand="main_gauche")
    c = take_action(tables, c, "viser")
    c = take_action(tables, c, "attaquer")
    assert can_act(tables, c, "manoeuvrer") is not None
    c = take_action(tables, c, "attaquer")
    assert c.actions.second_weapon_used and can_act(tables, c, "attaquer") is not None


def test_charge_takes_every_attack(tables: CombatTables) -> None:
    c = take_action(tables, fighter(posture="defensive"), "charger")
    assert c.actions.charged and can_act(tables, c, "attaquer") is not None
    used = take_action(tables, fighter(), "attaquer")
    assert can_act(tables, used, "charger") is not None


def test_no_action_still_allows_defence_and_forbids_postures(tables: CombatTables) -> None:
    stunned = fighter(conditions=(Condition("no_action", "s", remaining=2, unit="round"),))
    assert can_act(tables, stunned, "attaquer") is not None
    assert can_act(tables, stunned, "esquiver") is None
    with pytest.raises(RefusedError):
        choose_posture(tables, stunned, "temeraire")
    lost_half = fighter(conditions=(Condition("lose_time", "s", remaining=1, unit="half_round"),))
    assert lost_half.attacks_left() == 1
    dead = fighter(conditions=(Condition("dead", "s", until="permanent"),))
    refusal = can_act(tables, dead, "esquiver")
    assert refusal is not None and refusal.reason == "combat.refusal.dead"


def test_fight_state_round_cycle(tables: CombatTables) -> None:
    a = fighter()
    b = Combatant("b", "B", {"CC": 30, "Ag": 30, "A": 1, "E": 30, "BE": 6})
    state = FightState(0, (a, b))
    state = start_round(
        state,
        [
            roll_initiative(tables, "a", 35, 2, dice_rolls=[10, 10, 10]),
            roll_initiative(tables, "b", 30, 1, dice_rolls=[20, 20, 20]),
        ],
    )
    assert state.round == 1 and [(s.combatant, s.k) for s in state.order] == [("b", 1), ("a", 1), ("a", 2)]
    entry = tables.critical("tranchantes", "corps", 12)
    state = apply_effects(
        state, "b", apply_mechanics(entry.mechanics, {}, source=entry.source, duration_rolls=[1])
    )
    state = state.put(take_action(tables, take_action(tables, state.get("a"), "attaquer"), "attaquer"))
    state = state.put(take_action(tables, state.get("a"), "parade_reactive"))
    state, ticks = end_round(state)
    assert [p.kind for p in ticks["b"].prompts] == ["death_timer_expired"]
    state = start_round(state, [])
    assert state.get("a").actions.used == 1 and state.get("a").attacks_left() == 1
    state, result = signal(state, "a", "end_of_combat")
    assert result.event == "end_of_combat"
    assert FightState.from_dict(state.to_dict()) == state


# --- states do not stack (#25) --------------------------------------------------------------------


def test_a_state_already_there_is_kept_once_with_the_longest_duration() -> None:
    prone = Condition("prone", "criticals.a", until="stands_up")
    gm_prone = Condition("prone", "gm", remaining=2, unit="round")
    assert merge_conditions((prone,), (gm_prone,)) == (prone,)  # getting up outlasts 2 rounds
    assert merge_conditions((gm_prone,), (prone,)) == (prone,)  # and takes the shorter one's place
    short, long = (Condition("stunned", s, remaining=n, unit="round") for s, n in (("a", 1), ("b", 3)))
    assert merge_conditions((short,), (long,)) == (long,)
    assert merge_conditions((long,), (short,)) == (long,)
    out = Condition("unconscious", "a", until="end_of_combat")
    treated = Condition("unconscious", "b", until="treated")
    assert merge_conditions((out,), (treated,)) == (treated,)  # lasts past the fight
    # a halving per characteristic; a part per part; the sooner death timer
    m, ag = (
        Condition("halve", "a", stat="M", until="healed"),
        Condition("halve", "a", stat="Ag", until="healed"),
    )
    assert merge_conditions((m,), (m, ag)) == (m, ag)
    hour, rounds = (
        Condition("death_timer", "a", remaining=1, unit="hour", params={"unless": "healed"}),
        Condition("death_timer", "b", remaining=3, unit="round", params={"unless": "healed"}),
    )
    assert merge_conditions((hour,), (rounds,)) == (rounds,)
    assert merge_conditions((rounds,), (hour,)) == (rounds,)


def test_what_counts_twice_still_stacks_and_open_table_modifiers_add_up() -> None:
    timed = Condition("modifier", "criticals.a", stat="CC", value=-10, remaining=2, unit="round")
    gm = Condition("modifier", "gm", stat="CC", value=-10, until="end_of_combat")
    lost = Condition("lose_time", "criticals.a", remaining=1, unit="half_round")
    assert merge_conditions((timed, gm, lost), (timed, gm, lost)) == (timed, gm, lost) * 2
    rest = Condition("modifier", "criticals.a", stat="CC", value=-30, until="end_of_combat")
    more = Condition("modifier", "criticals.b", stat="CC", value=-25, until="end_of_combat")
    merged = merge_conditions((rest,), (more,))
    assert len(merged) == 1 and merged[0].value == -55
    fighter = Combatant("g", "Gobelin", {"CC": 40}, conditions=(rest,))
    assert fighter.with_conditions(more).stat("CC") == 40 - 30 - 25  # the same value as two


def test_a_fall_on_a_fighter_already_prone_adds_no_second_prone() -> None:
    fall = Mechanic.from_dict({"type": "fall"})
    state = FightState(1, (Combatant("g", "Gobelin", {"Ag": 30}),))
    for _ in range(5):
        application = apply_mechanics((fall,), {"Ag": 30}, source="criticals.x")
        assert [e.kind for e in application.events] == ["fall"]  # the fall is still told
        state = apply_effects(state, "g", application)
    assert [c.kind for c in state.get("g").conditions] == ["prone"]
