"""Dice engine: table-driven tests with hand-entered dice (ManualDice) and seeded random.Random."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import pytest

from bot.i18n.message_format import argument_names, render
from bot.rules.dice.engine import Die, RollResult, roll
from bot.rules.dice.errors import MAX_DICE, MAX_EXPLOSIONS, MAX_LABEL, MAX_REROLLS, DiceError
from bot.rules.dice.manual import ManualDice
from bot.rules.dice.syntax import Dice, Expression, parse

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "bot" / "i18n" / "locales"


def manual(expr: str, values: list[int]) -> RollResult:
    """Roll with hand-entered dice and check that every entered die was used."""
    dice = ManualDice(values)
    result = roll(expr, dice)
    assert dice.leftover() == (), f"{expr}: unused dice {dice.leftover()}"
    return result


# --- totals and rendering ----------------------------------------------------------------------

# (expression, dice entered by hand, total, rendered)
ROLLS = [
    ("1d100", [42], 42, "1d100 (42) = 42"),
    ("d100", [100], 100, "1d100 (100) = 100"),
    ("d%", [7], 7, "1d100 (7) = 7"),
    ("1D%", [7], 7, "1d100 (7) = 7"),
    ("3d20+56", [12, 5, 18], 91, "3d20 (12, 5, 18) + 56 = 91"),
    (" 3 d 20 +  56 ", [12, 5, 18], 91, "3d20 (12, 5, 18) + 56 = 91"),
    ("3D20+56", [12, 5, 18], 91, "3d20 (12, 5, 18) + 56 = 91"),
    ("2d6-3", [1, 1], -1, "2d6 (1, 1) - 3 = -1"),
    ("1d6 \u2212 2", [4], 2, "1d6 (4) - 2 = 2"),
    ("2 \u00d7 1d6", [4], 8, "2 * 1d6 (4) = 8"),
    ("-1d6", [4], -4, "-1d6 (4) = -4"),
    ("+1d6", [4], 4, "1d6 (4) = 4"),
    ("(1d6+2)*3", [4], 18, "(1d6 (4) + 2) * 3 = 18"),
    ("1d6+1d8+1d10", [1, 2, 3], 6, "1d6 (1) + 1d8 (2) + 1d10 (3) = 6"),
    ("2+3*4", [], 14, "2 + 3 * 4 = 14"),
    ("(2+3)*4", [], 20, "(2 + 3) * 4 = 20"),
    ("10-2-3", [], 5, "10 - 2 - 3 = 5"),
    ("100/10/5", [], 2, "100 / 10 / 5 = 2"),
    # "/" is integer division rounding down, also for negative values.
    ("7/2", [], 3, "7 / 2 = 3"),
    ("-7/2", [], -4, "-7 / 2 = -4"),
    ("7/-2", [], -4, "7 / -2 = -4"),
    ("1d20/3", [20], 6, "1d20 (20) / 3 = 6"),
    ("0", [], 0, "0 = 0"),
    ("007", [], 7, "7 = 7"),
    # keep / drop
    ("2d10kh1", [3, 8], 8, "2d10kh1 (~~3~~, 8) = 8"),
    ("2d10kh1+4", [9, 2], 13, "2d10kh1 (9, ~~2~~) + 4 = 13"),
    ("2D10KH1", [3, 8], 8, "2d10kh1 (~~3~~, 8) = 8"),
    ("2d10kh", [3, 8], 8, "2d10kh1 (~~3~~, 8) = 8"),
    ("2d10kl1", [3, 8], 3, "2d10kl1 (3, ~~8~~) = 3"),
    ("4d6k3", [3, 1, 5, 6], 14, "4d6kh3 (3, ~~1~~, 5, 6) = 14"),
    ("4d6kh3", [3, 1, 5, 6], 14, "4d6kh3 (3, ~~1~~, 5, 6) = 14"),
    ("4d6 kh 3", [3, 1, 5, 6], 14, "4d6kh3 (3, ~~1~~, 5, 6) = 14"),
    ("4d6dl1", [3, 1, 5, 6], 14, "4d6dl1 (3, ~~1~~, 5, 6) = 14"),
    ("4d6dh2", [3, 1, 5, 6], 4, "4d6dh2 (3, 1, ~~5~~, ~~6~~) = 4"),
    ("4d6kl2", [3, 1, 5, 6], 4, "4d6kl2 (3, 1, ~~5~~, ~~6~~) = 4"),
    # ties: the earlier die wins
    ("4d6kh3", [5, 5, 5, 5], 15, "4d6kh3 (5, 5, 5, ~~5~~) = 15"),
    ("4d6kl1", [2, 2, 6, 2], 2, "4d6kl1 (2, ~~2~~, ~~6~~, ~~2~~) = 2"),
    ("4d6dl1", [2, 2, 6, 2], 10, "4d6dl1 (~~2~~, 2, 6, 2) = 10"),
    ("2d10kh5", [3, 8], 11, "2d10kh5 (3, 8) = 11"),
    ("2d10kh0", [3, 8], 0, "2d10kh0 (~~3~~, ~~8~~) = 0"),
    # chained set operations apply in order, each to the dice still kept
    ("5d10kh4kl2", [1, 9, 5, 7, 3], 8, "5d10kh4kl2 (~~1~~, ~~9~~, 5, ~~7~~, 3) = 8"),
    ("4d6k>3", [3, 4, 1, 6], 10, "4d6k>3 (~~3~~, 4, ~~1~~, 6) = 10"),
    ("4d6d<3", [3, 4, 1, 2], 7, "4d6d<3 (3, 4, ~~1~~, ~~2~~) = 7"),
    ("4d6d>=4", [3, 4, 1, 6], 4, "4d6d>=4 (3, ~~4~~, 1, ~~6~~) = 4"),
    # exploding dice: each explosion adds one die right after its origin, and chains
    ("1d6!", [3], 3, "1d6! (3) = 3"),
    ("1d6!", [6, 6, 2], 14, "1d6! (6!, 6!, 2) = 14"),
    ("2d6!", [6, 3, 4], 13, "2d6! (6!, 4, 3) = 13"),
    ("1d10e9", [9, 10, 3], 22, "1d10e9 (9!, 10!, 3) = 22"),
    ("1d10!9", [9, 1], 10, "1d10!9 (9!, 1) = 10"),
    ("1d6!>4", [5, 6, 1], 12, "1d6!>4 (5!, 6!, 1) = 12"),
    ("1d6!=5", [5, 6], 11, "1d6!=5 (5!, 6) = 11"),
    ("1d6e=1", [1, 1, 4], 6, "1d6e=1 (1!, 1!, 4) = 6"),
    ("2d6!kh1", [6, 2, 5], 6, "2d6!kh1 (6!, ~~5~~, ~~2~~) = 6"),
    ("2d6kh1!", [6, 2, 5], 11, "2d6kh1! (6!, 5, ~~2~~) = 11"),
    # rerolls: "r" rerolls once and keeps the new value even if it matches again; "rr" repeats
    ("3d6r1", [1, 4, 5, 1], 10, "3d6r1 (~~1~~, 1, 4, 5) = 10"),
    ("3d6rr1", [1, 4, 5, 1, 2], 11, "3d6rr1 (~~1~~, ~~1~~, 2, 4, 5) = 11"),
    ("2d6r<3", [2, 5, 4], 9, "2d6r<3 (~~2~~, 4, 5) = 9"),
    ("2d6r>=5", [2, 5, 6], 8, "2d6r>=5 (2, ~~5~~, 6) = 8"),
    ("1d20r1r1", [1, 1, 7], 7, "1d20r1r1 (~~1~~, ~~1~~, 7) = 7"),
    ("4d6r1kh3", [1, 3, 4, 5, 2], 12, "4d6r1kh3 (~~1~~, ~~2~~, 3, 4, 5) = 12"),
    # success counting: the group's value is the number of kept dice meeting the condition
    (
        "10d10>7",
        [8, 3, 10, 7, 1, 2, 9, 5, 6, 4],
        3,
        "10d10>7 (**8**, 3, **10**, 7, 1, 2, **9**, 5, 6, 4) = 3",
    ),
    ("10d10>=7", [8, 3, 10, 7, 1, 2, 9, 5, 6, 4], 4, None),
    ("10d10<3", [8, 3, 10, 7, 1, 2, 9, 5, 6, 4], 2, None),
    ("10d10<=3", [8, 3, 10, 7, 1, 2, 9, 5, 6, 4], 3, None),
    ("10d10=10", [8, 3, 10, 7, 1, 2, 9, 5, 6, 4], 1, None),
    ("4d6kh3>=4", [6, 2, 4, 3], 2, "4d6kh3>=4 (**6**, ~~2~~, **4**, 3) = 2"),
    ("3d6!>5", [6, 2, 6, 1, 3], 18, "3d6!>5 (6!, 1, 2, 6!, 3) = 18"),
    ("3d6!6>4", [6, 2, 5, 1], 2, "3d6!6>4 (**6!**, 1, 2, **5**) = 2"),
    ("2d10>5+2", [6, 9], 4, "2d10>5 (**6**, **9**) + 2 = 4"),
]


@pytest.mark.parametrize(("expr", "values", "total", "rendered"), ROLLS)
def test_roll_with_manual_dice(expr: str, values: list[int], total: int, rendered: str | None) -> None:
    result = manual(expr, values)
    assert result.total == total
    if rendered is not None:
        assert result.rendered == rendered
    # the rendering and the normalised text parse again to the same expression
    assert parse(result.expression).text == result.expression


def test_roll_result_structure() -> None:
    result = manual("3d20+56 # Initiative", [12, 5, 18])
    assert result.expression == "3d20 + 56"
    assert result.label == "Initiative"
    assert result.successes is None
    (group,) = result.groups
    assert (group.count, group.sides, group.operations, group.total) == (3, 20, "", 35)
    assert group.dice == (Die(12), Die(5), Die(18))
    assert group.expression == "3d20"
    assert group.rendered == "3d20 (12, 5, 18)"


def test_die_flags() -> None:
    result = manual("1d6!r1kh1", [6, 1, 3])
    dice = result.groups[0].dice
    assert dice == (
        Die(6, kept=True, exploded=True),
        Die(1, kept=False, from_explosion=True, rerolled=True),
        Die(3, kept=False, from_explosion=True),
    )
    assert result.total == 6
    result = manual("3d10>=8", [8, 2, 10])
    assert [d.success for d in result.groups[0].dice] == [True, False, True]
    assert result.successes == 2
    assert result.groups[0].successes == 2
    result = manual("2d10kh1>=8 + 2d10>=8", [9, 8, 8, 1])
    assert [d.success for d in result.groups[0].dice] == [True, None]
    assert result.successes == 2
    assert result.total == 2


def test_to_dict_is_json_ready_with_every_die() -> None:
    result = manual("1d6! + 2d10kh1 # Dégâts", [6, 2, 3, 9])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["total"] == 17
    assert data["label"] == "Dégâts"
    assert data["expression"] == "1d6! + 2d10kh1"
    assert [len(g["dice"]) for g in data["groups"]] == [2, 2]
    assert data["groups"][0]["dice"][0] == {
        "value": 6,
        "kept": True,
        "exploded": True,
        "from_explosion": False,
        "rerolled": False,
        "success": None,
    }
    assert data["groups"][1]["dice"][0]["kept"] is False


@pytest.mark.parametrize(
    ("text", "label", "expression"),
    [
        ("1d100 # Perception", "Perception", "1d100"),
        ("1d100#Perception", "Perception", "1d100"),
        ("1d20 [Attaque]", "Attaque", "1d20"),
        ("1d20[ Attaque  à   l'épée ]", "Attaque à l'épée", "1d20"),
        ("4d6kh3 # Force", "Force", "4d6kh3"),
        ("1d100 # a # b (x) [y]", "a # b (x) [y]", "1d100"),
        ("1d100 #   ", None, "1d100"),
        ("1d100 []", None, "1d100"),
        ("1d100", None, "1d100"),
        ("1d100 # " + "x" * 300, "x" * MAX_LABEL, "1d100"),
    ],
)
def test_labels(text: str, label: str | None, expression: str) -> None:
    result = roll(text, random.Random(3))
    assert result.label == label
    assert result.expression == expression


def test_parse_returns_cached_frozen_tree() -> None:
    expression = parse("2d10kh1 + 4")
    assert isinstance(expression, Expression)
    assert parse("2d10kh1 + 4") is expression
    assert expression.dice_count == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        expression.text = "x"  # type: ignore[misc]
    assert roll(expression, ManualDice([3, 8])).total == 12


def test_seeded_rolls_are_reproducible() -> None:
    for expr in ["1d100", "3d20+56", "2d10kh1+4", "10d10>7", "5d6!", "4d6r1kh3", "(1d6+2)*3-1d4"]:
        first = [roll(expr, rng).to_dict() for rng in [random.Random(7)] for _ in range(50)]
        second = [roll(expr, rng).to_dict() for rng in [random.Random(7)] for _ in range(50)]
        assert first == second


class ForwardingSource:
    """A RandomSource that is not a random.Random: the engine must call its randint for each die."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.calls = 0

    def randint(self, a: int, b: int) -> int:
        self.calls += 1
        return self.rng.randint(a, b)


@pytest.mark.parametrize(
    "expr", ["1d100", "3d20+56", "2d10kh1", "10d10", "1d6!", "4d6rr1", "1d1", "2d8", "1d10000", "3d1000>500"]
)
def test_random_random_shortcut_matches_randint(expr: str) -> None:
    # For random.Random the engine draws with getrandbits; it must give what randint would.
    fast, slow = random.Random(99), ForwardingSource(99)
    for _ in range(200):
        assert roll(expr, fast).to_dict() == roll(expr, slow).to_dict()
    assert fast.getstate() == slow.rng.getstate()


@pytest.mark.parametrize("expr", ["1d100", "3d20+56", "3d20-56", "2d6 - 0", "10d10", "1d1+3"])
def test_plain_fast_path_matches_general_path(expr: str) -> None:
    expression = parse(expr)
    assert expression.simple is not None
    general = dataclasses.replace(expression, simple=None)
    for seed in range(50):
        assert roll(expression, random.Random(seed)) == roll(general, random.Random(seed))


@pytest.mark.parametrize(
    "expr", ["2d10kh1", "4d6kh3", "4d6dl1", "5d10kl2", "3d6dh1", "2d20kh5", "2d20kh0", "1d6kl1"]
)
def test_single_keep_path_matches_general_path(expr: str) -> None:
    expression = parse(expr)
    root = expression.root
    assert isinstance(root, Dice) and root.single_keep is not None
    general = dataclasses.replace(expression, root=dataclasses.replace(root, single_keep=None))
    # inside a sum, the group goes through the tree walk as well
    summed, summed_general = parse(f"{expr}+0"), parse(f"0+{expr}")
    for seed in range(100):
        expected = roll(general, random.Random(seed))
        assert roll(expression, random.Random(seed)) == expected
        assert roll(summed, random.Random(seed)).groups == expected.groups
        assert roll(summed_general, random.Random(seed)).groups == expected.groups


@pytest.mark.parametrize("expr", ["1d6+1d6", "2d6kh1+3", "3+1d6", "1d6*2", "(1d6)+1", "1d6+1+1"])
def test_fast_path_only_for_plain_dice_plus_constant(expr: str) -> None:
    assert parse(expr).simple is None


# --- manual dice -------------------------------------------------------------------------------


def test_manual_dice_accepts_100_on_d100() -> None:
    assert roll("1d100", ManualDice([100])).total == 100
    assert roll("d%", ManualDice([100])).total == 100


def test_manual_dice_bookkeeping() -> None:
    dice = ManualDice([12, 5, 18, 4])
    assert dice.remaining == 4
    roll("3d20", dice)
    assert dice.used == 3
    assert dice.remaining == 1
    assert dice.leftover() == (4,)
    with pytest.raises(DiceError) as caught:
        dice.check_all_used()
    assert caught.value.key == "dice.manual.leftover"
    assert caught.value.params["count"] == 1
    ManualDice([1]).randint(1, 6)


def test_manual_dice_errors() -> None:
    with pytest.raises(DiceError) as caught:
        roll("3d20", ManualDice([12, 5]))
    assert caught.value.key == "dice.manual.exhausted"
    assert caught.value.params["count"] == 2
    with pytest.raises(DiceError) as caught:
        roll("2d6", ManualDice([3, 7]))
    assert caught.value.key == "dice.manual.out_of_range"
    assert caught.value.params["value"] == 7
    assert caught.value.params["sides"] == 6
    with pytest.raises(DiceError) as caught:
        roll("1d6", ManualDice([0]))
    assert caught.value.key == "dice.manual.out_of_range"
    # explosions draw further entered dice
    with pytest.raises(DiceError) as caught:
        roll("1d6!", ManualDice([6]))
    assert caught.value.key == "dice.manual.exhausted"


# --- errors ------------------------------------------------------------------------------------

NESTED_500 = "(" * 500 + "1" + ")" * 500
NESTED_500_CHARS = "(" * 250 + "1" + ")" * 249

# (input, error key, position or None when not checked)
ERRORS: list[tuple[str, str, int | None]] = [
    ("", "dice.error.empty", None),
    ("   ", "dice.error.empty", None),
    ("# juste un libellé", "dice.error.empty", None),
    ("[libellé]", "dice.error.empty", None),
    ("x" * 10_000, "dice.error.too_long", None),
    ("--5", "dice.error.double_sign", 1),
    ("+-5", "dice.error.double_sign", 1),
    ("1d20+-2", "dice.error.double_sign", 5),
    ("1d6+" * 126, "dice.error.too_long", None),
    (NESTED_500, "dice.error.too_long", None),
    (NESTED_500_CHARS, "dice.error.too_deep", 20),
    ("(" * 21 + "1" + ")" * 21, "dice.error.too_deep", 20),
    ("-" * 21 + "1", "dice.error.double_sign", 1),
    ("-(" * 11 + "1" + ")" * 11, "dice.error.too_deep", 20),
    ("9" * 400, "dice.error.number_too_long", 0),
    ("1d6+" + "9" * 10, "dice.error.number_too_long", 4),
    ("1d" + "9" * 400, "dice.error.number_too_long", 2),
    ("1000000d1000000", "dice.error.too_many_dice", 0),
    ("1001d6", "dice.error.too_many_dice", 0),
    ("500d6+501d6", "dice.error.too_many_dice", 6),
    ("999999999d999999999", "dice.error.too_many_dice", 0),
    ("0d6", "dice.error.no_dice", 0),
    ("1d0", "dice.error.sides_out_of_range", 2),
    ("1d10001", "dice.error.sides_out_of_range", 2),
    ("1000d6" + "k>0" * 31, "dice.error.too_many_operations", 30),
    ("1000d6" + "kh1" * 300, "dice.error.too_long", None),
    ("1000d6" + "kh1" * 9, "dice.error.too_many_operations", 30),
    ("1d1!", "dice.error.explode_always", 3),
    ("1d6!>0", "dice.error.explode_always", 3),
    ("1d6e1", "dice.error.explode_always", 3),
    ("1d6!<7", "dice.error.explode_always", 3),
    ("1d6rr<7", "dice.error.reroll_always", 3),
    ("1d1rr1", "dice.error.reroll_always", 3),
    ("1/0", "dice.error.division_by_zero", 1),
    ("1d6/(2-2)", "dice.error.division_by_zero", 3),
    ("999999999*999999999", "dice.error.result_too_large", None),
    ("+".join(["1"] * 101), "dice.error.too_many_terms", 200),
    ("🎲", "dice.error.unexpected_character", 0),
    ("1d6 ✓", "dice.error.unexpected_character", 4),
    ("\x00", "dice.error.unexpected_character", 0),
    ("1d6 + x", "dice.error.unexpected_character", 6),
    ("1d２0", "dice.error.unexpected_character", 2),
    ("١d6", "dice.error.unexpected_character", 0),
    ("\u212a", "dice.error.unexpected_character", 0),  # Kelvin sign: not a "k"
    ("ÿ̶̡̛̬͓͚̰̦͍̳̓̐̾͋͘", "dice.error.unexpected_character", 0),
    ("3d20+*5", "dice.error.unexpected_token", 5),
    ("1 2", "dice.error.unexpected_token", 2),
    ("2(3)", "dice.error.unexpected_token", 1),
    ("()", "dice.error.unexpected_token", 1),
    ("+", "dice.error.unexpected_end", 1),
    ("1d6+", "dice.error.unexpected_end", 4),
    ("(", "dice.error.unexpected_end", 1),
    ("(1d6", "dice.error.missing_parenthesis", 0),
    ("((1d6)", "dice.error.missing_parenthesis", 0),
    ("1d6)", "dice.error.unbalanced_parenthesis", 3),
    ("1d", "dice.error.number_expected", 2),
    ("d", "dice.error.number_expected", 1),
    ("1dd", "dice.error.number_expected", 2),
    ("1d6k", "dice.error.number_expected", 4),
    ("1d6r", "dice.error.number_expected", 4),
    ("1d6e", "dice.error.number_expected", 4),
    ("1d6>", "dice.error.number_expected", 4),
    ("1d6d1", "dice.error.comparison_expected", 4),
    ("5kh1", "dice.error.modifier_needs_dice", 1),
    ("(2d6)kh1", "dice.error.modifier_needs_dice", 5),
    ("5>3", "dice.error.modifier_needs_dice", 1),
    ("10d10>7kh1", "dice.error.condition_not_last", 7),
    ("(1d6+10d10>7)!", "dice.error.modifier_needs_dice", 13),
    ("1d6+10d10>7 !", "dice.error.condition_not_last", 12),
]


def raised(text: str, rng: object | None = None) -> DiceError:
    with pytest.raises(DiceError) as caught:
        roll(text, rng if rng is not None else random.Random(1))  # type: ignore[arg-type]
    return caught.value


@pytest.mark.parametrize(("text", "key", "position"), ERRORS, ids=[repr(e[0][:30]) for e in ERRORS])
def test_errors(text: str, key: str, position: int | None) -> None:
    error = raised(text)
    assert error.key == key, error
    if position is not None:
        assert error.position == position, error
        assert error.params["column"] == position + 1


def test_dice_limits_at_the_boundary() -> None:
    assert len(roll(f"{MAX_DICE}d6", random.Random(1)).groups[0].dice) == MAX_DICE
    assert roll("500d6+500d6", random.Random(1)).total >= 1000
    assert roll("1d10000", random.Random(1)).total <= 10_000
    assert roll("999999999", random.Random(1)).total == 999_999_999
    assert roll("(" * 20 + "1" + ")" * 20, random.Random(1)).total == 1
    assert roll("+".join(["1"] * 100), random.Random(1)).total == 100
    assert roll("1d6" + "kh1" * 8, ManualDice([4])).total == 4
    assert roll("1d6!>6", ManualDice([6])).total == 6


def test_explosion_cap() -> None:
    error = raised("1000d2!")
    assert error.key == "dice.error.too_many_explosions"
    assert error.params == {"limit": MAX_EXPLOSIONS}
    # exactly the cap is fine: 100 explosions then a non-exploding die
    result = roll("1d6!", ManualDice([6] * MAX_EXPLOSIONS + [1]))
    assert result.total == 6 * MAX_EXPLOSIONS + 1
    assert sum(d.from_explosion for d in result.groups[0].dice) == MAX_EXPLOSIONS
    error = raised("1d6!", ManualDice([6] * (MAX_EXPLOSIONS + 2)))
    assert error.key == "dice.error.too_many_explosions"
    # the cap is per expression, not per group
    error = raised("1d6!+1d6!", ManualDice([6] * 60 + [1] + [6] * 60 + [1]))
    assert error.key == "dice.error.too_many_explosions"


def test_reroll_cap() -> None:
    error = raised("1000d6rr<6")
    assert error.key == "dice.error.too_many_rerolls"
    assert error.params == {"limit": MAX_REROLLS}


@pytest.mark.parametrize(("text", "key", "position"), ERRORS, ids=[repr(e[0][:30]) for e in ERRORS])
def test_error_messages_exist_and_format(text: str, key: str, position: int | None) -> None:
    error = raised(text)
    for catalogue in CATALOGUES.values():
        message = render(catalogue[error.key], "fr", error.params)
        assert "{" not in message


# --- message catalogues ------------------------------------------------------------------------


def _load(lang: str) -> dict[str, str]:
    data = json.loads((LOCALES / lang / "dice.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


CATALOGUES = {lang: _load(lang) for lang in ("fr", "en")}


def _placeholders(message: str) -> set[str]:
    return argument_names(message)  # the catalogue's format: str.format fields and plural parts


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    fr, en = CATALOGUES["fr"], CATALOGUES["en"]
    assert fr.keys() == en.keys()
    for key in fr:
        assert key.startswith("dice."), key
        assert _placeholders(fr[key]) == _placeholders(en[key]), key
    assert "1d100" in fr["dice.syntax_hint"] and "2d10kh1" in fr["dice.syntax_hint"]


def test_every_key_in_the_engine_source_is_in_the_catalogues() -> None:
    source = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "bot" / "rules" / "dice").glob("*.py"))
    keys = set(re.findall(r'"(dice\.[a-z_.]+)"', source))
    assert len(keys) > 20
    for catalogue in CATALOGUES.values():
        assert keys <= catalogue.keys(), keys - catalogue.keys()


def test_manual_and_cap_errors_format() -> None:
    errors = [
        raised("3d20", ManualDice([1])),
        raised("1d6", ManualDice([9])),
        raised("1000d2!"),
        raised("1000d6rr<6"),
    ]
    dice = ManualDice([1, 2, 3])
    roll("1d6", dice)
    with pytest.raises(DiceError) as caught:
        dice.check_all_used()
    errors.append(caught.value)
    for error in errors:
        for language, catalogue in CATALOGUES.items():
            assert "{" not in render(catalogue[error.key], language, error.params)


# --- distribution ------------------------------------------------------------------------------


def _chi_square(observed: dict[int, int], expected: dict[int, float]) -> float:
    assert set(observed) <= set(expected)
    return sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("expr", "n", "probabilities"),
    [
        ("1d100", 200_000, {k: 1 / 100 for k in range(1, 101)}),
        # max of two d10: P(k) = (k^2 - (k-1)^2) / 100
        ("2d10kh1", 200_000, {k: (2 * k - 1) / 100 for k in range(1, 11)}),
        # min of two d10: P(k) = ((11-k)^2 - (10-k)^2) / 100
        ("2d10kl1", 20_000, {k: (21 - 2 * k) / 100 for k in range(1, 11)}),
        ("1d6!", 20_000, None),
    ],
)
def test_distribution_matches_exact_probabilities(
    expr: str, n: int, probabilities: dict[int, float] | None
) -> None:
    if probabilities is None:
        # 6j + r (j explosions, r in 1..5) has probability (1/6)^(j+1); three explosions or more
        # give 19+, lumped into 19.
        probabilities = {6 * j + r: (1 / 6) ** (j + 1) for j in range(3) for r in range(1, 6)}
        probabilities[19] = (1 / 6) ** 3
    rng = random.Random(20240611)
    observed: dict[int, int] = {}
    expression = parse(expr)
    for _ in range(n):
        total = min(roll(expression, rng).total, max(probabilities))
        observed[total] = observed.get(total, 0) + 1
    assert abs(sum(probabilities.values()) - 1) < 1e-9
    chi2 = _chi_square(observed, {k: p * n for k, p in probabilities.items()})
    df = len(probabilities) - 1
    # Fixed seed, so deterministic; the bound is about mean + 6 standard deviations of chi².
    assert chi2 < df + 6 * (2 * df) ** 0.5, chi2
