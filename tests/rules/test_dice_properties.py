"""Property tests for the dice engine (hypothesis): bounds, determinism, robustness, bounded cost."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.dice.engine import RollResult, roll
from bot.rules.dice.errors import MAX_DICE, MAX_EXPLOSIONS, MAX_LENGTH, MAX_REROLLS, DiceError
from bot.rules.dice.syntax import parse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class CountingSource:
    """Counts randint calls: the engine's cost is bounded by the dice it may draw, not by time."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.calls = 0

    def randint(self, a: int, b: int) -> int:
        self.calls += 1
        assert a == 1 and b >= 1
        return self.rng.randint(a, b)


# --- generated valid expressions with their own bounds -----------------------------------------


@dataclass(frozen=True)
class Term:
    text: str
    low: int
    high: int
    kept: int | None = None  # dice kept, for keep/drop groups without explosion


@st.composite
def dice_terms(draw: st.DrawFn) -> Term:
    count = draw(st.integers(1, 12))
    sides = draw(st.integers(1, 30))
    kind = draw(st.sampled_from(["", "kh", "kl", "dh", "dl", "!", "success", "r"]))
    if kind in ("kh", "kl", "dh", "dl"):
        n = draw(st.integers(0, count + 2))
        kept = min(n, count) if kind[0] == "k" else max(count - n, 0)
        return Term(f"{count}d{sides}{kind}{n}", kept, kept * sides, kept)
    if kind == "!" and sides > 1:
        # each explosion adds at most `sides`; at most MAX_EXPLOSIONS of them
        return Term(f"{count}d{sides}!", count, count * sides + MAX_EXPLOSIONS * sides)
    if kind == "success":
        op = draw(st.sampled_from([">", ">=", "<", "<=", "="]))
        value = draw(st.integers(0, sides + 1))
        return Term(f"{count}d{sides}{op}{value}", 0, count)
    if kind == "r" and sides > 1:
        value = draw(st.integers(1, sides))
        return Term(f"{count}d{sides}r{value}", count, count * sides, count)
    return Term(f"{count}d{sides}", count, count * sides, count)


terms = st.one_of(dice_terms(), st.integers(0, 1000).map(lambda n: Term(str(n), n, n)))


@st.composite
def sums(draw: st.DrawFn) -> tuple[str, int, int, list[Term]]:
    items = draw(st.lists(terms, min_size=1, max_size=6))
    signs = draw(st.lists(st.sampled_from(["+", "-"]), min_size=len(items), max_size=len(items)))
    text, low, high = items[0].text, items[0].low, items[0].high
    for sign, term in zip(signs[1:], items[1:], strict=True):
        text += f" {sign} {term.text}"
        if sign == "+":
            low, high = low + term.low, high + term.high
        else:
            low, high = low - term.high, high - term.low
    return text, low, high, items


@SETTINGS
@given(sums(), st.integers(0, 2**32))
def test_totals_within_bounds(case: tuple[str, int, int, list[Term]], seed: int) -> None:
    text, low, high, items = case
    try:
        result = roll(text, random.Random(seed))
    except DiceError as error:
        # only the explosion cap may stop a generated expression
        assert error.key == "dice.error.too_many_explosions"
        return
    assert low <= result.total <= high
    dice_groups = [t for t in items if "d" in t.text]
    assert len(result.groups) == len(dice_groups)
    for term, group in zip(dice_groups, result.groups, strict=True):
        assert term.low <= group.total <= term.high
        kept = [d for d in group.dice if d.kept]
        if term.kept is not None:
            assert len(kept) == term.kept
            if "r" not in term.text:
                assert len(group.dice) == group.count
            assert group.total == sum(d.value for d in kept)
        assert all(1 <= d.value <= group.sides for d in group.dice)
        assert sum(d.from_explosion for d in group.dice) == sum(d.exploded for d in group.dice)


@SETTINGS
@given(sums(), st.integers(0, 2**32))
def test_same_seed_same_result(case: tuple[str, int, int, list[Term]], seed: int) -> None:
    text = case[0]
    try:
        first = roll(text, random.Random(seed))
    except DiceError as error:
        try:
            roll(text, random.Random(seed))
        except DiceError as again:
            assert (again.key, again.params) == (error.key, error.params)
            return
        raise AssertionError("second roll did not fail") from error
    assert roll(text, random.Random(seed)) == first
    assert roll(parse(text), random.Random(seed)).to_dict() == first.to_dict()


@SETTINGS
@given(st.integers(1, 1000), st.integers(2, 6), st.integers(0, 2**32))
def test_explosion_cap_respected(count: int, sides: int, seed: int) -> None:
    source = CountingSource(seed)
    try:
        result = roll(f"{count}d{sides}!", source)
    except DiceError as error:
        assert error.key == "dice.error.too_many_explosions"
        assert source.calls <= count + MAX_EXPLOSIONS + 1
        return
    (group,) = result.groups
    extra = sum(d.from_explosion for d in group.dice)
    assert extra <= MAX_EXPLOSIONS
    assert len(group.dice) == count + extra == source.calls
    # every die showing the maximum exploded, and the die after it came from that explosion
    for die in group.dice:
        assert die.exploded == (die.value == sides)


# --- robustness and bounded cost on arbitrary input --------------------------------------------

DICE_ALPHABET = "0123456789dDkKhHlLrReE!<>=+-*/()%# []\u2212\u00d7 \t"
DICE_TOKENS = [
    *"0123456789",
    "1",
    "2",
    "6",
    "10",
    "20",
    "100",
    "1000",
    *["d", "D", "d%", "kh", "KL", "dh", "dl", "k", "r", "rr", "e", "!"],
    *[">", "<", ">=", "<=", "=", "+", "-", "*", "/", "(", ")", " ", "#", "[", "]"],
]
dice_like_text = st.one_of(
    st.text(alphabet=DICE_ALPHABET, max_size=120),
    st.lists(st.sampled_from(DICE_TOKENS), max_size=60).map("".join),
)


def _roll_or_error(text: str, seed: int) -> tuple[RollResult | DiceError, CountingSource]:
    source = CountingSource(seed)
    try:
        return roll(text, source), source
    except DiceError as error:
        assert isinstance(error.key, str) and error.key.startswith("dice.")
        assert isinstance(error.params, dict)
        assert error.position is None or 0 <= error.position <= len(text)
        return error, source


@SETTINGS
@given(st.text(max_size=600), st.integers(0, 2**32))
def test_arbitrary_text_gives_result_or_dice_error(text: str, seed: int) -> None:
    outcome, source = _roll_or_error(text, seed)
    assert source.calls <= MAX_DICE + MAX_EXPLOSIONS + MAX_REROLLS
    if len(text) > MAX_LENGTH:
        assert isinstance(outcome, DiceError) and outcome.key == "dice.error.too_long"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dice_like_text, st.integers(0, 2**32))
def test_dice_like_text_gives_result_or_dice_error_with_bounded_cost(text: str, seed: int) -> None:
    outcome, source = _roll_or_error(text, seed)
    if isinstance(outcome, RollResult):
        expression = parse(text)
        # one randint per requested die, plus at most the explosion and reroll caps
        assert source.calls <= expression.dice_count + MAX_EXPLOSIONS + MAX_REROLLS
        assert expression.dice_count <= MAX_DICE
        assert sum(len(g.dice) for g in outcome.groups) == source.calls
        assert outcome.rendered.endswith(f"= {outcome.total}")
        # the normalised text is itself valid and means the same thing
        again = roll(outcome.expression, CountingSource(seed))
        assert again.total == outcome.total
    else:
        assert source.calls <= MAX_DICE + MAX_EXPLOSIONS + MAX_REROLLS


@st.composite
def hostile(draw: st.DrawFn) -> str:
    """Long, nested, repetitive inputs near the limits."""
    unit = draw(
        st.sampled_from(["(", ")", "-", "1d6", "kh1", "k>0", "!", "rr1", "+", "9", "1000d6", "d", "*"])
    )
    prefix = draw(st.sampled_from(["", "1000d6", "1d6", "(", "999999999*"]))
    return prefix + unit * draw(st.integers(0, 600 // len(unit)))


@SETTINGS
@given(hostile(), st.integers(0, 2**32))
def test_hostile_repetitions_are_bounded(text: str, seed: int) -> None:
    _, source = _roll_or_error(text, seed)
    assert source.calls <= MAX_DICE + MAX_EXPLOSIONS + MAX_REROLLS
