"""The input grammar: table-driven examples, then properties over arbitrary Unicode text."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.i18n import default_catalog
from bot.rules.grammar import (
    MAX_DIGITS,
    MAX_NAMED_TEXT,
    MAX_TEXT,
    InputError,
    excerpt,
    is_int,
    optional_int,
    optional_modifier,
    parse_int,
    parse_int_list,
    parse_modifier,
    parse_named_rolls,
    parse_rolls,
)

OPT = "roll"


def refused(call: Callable[[], object]) -> InputError:
    with pytest.raises(InputError) as info:
        call()
    assert info.value.params["option"] == OPT
    return info.value


# --- integers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("12", 12),
        ("+12", 12),
        ("-5", -5),
        ("−5", -5),
        (" 7 ", 7),
        ("\u00a07\u202f", 7),
        ("\t-0\n", 0),
        ("007", 7),
        ("999999999", 999_999_999),
        ("-999999999", -999_999_999),
    ],
)
def test_parse_int_accepts(text: str, expected: int) -> None:
    assert parse_int(text, option=OPT) == expected
    assert optional_int(text, option=OPT) == expected
    assert is_int(text)


@pytest.mark.parametrize(
    "text",
    [
        "--5",
        "+-5",
        "5-",
        "1e9",
        "1.5",
        "1,5",
        "²",
        "①",
        "٣",
        "5 5",
        "+",
        "-",
        "- 5",
        "0x10",
        "五",
        "1_000",
        "12a",
    ],
)
def test_parse_int_refuses_what_is_not_an_integer(text: str) -> None:
    error = refused(lambda: parse_int(text, option=OPT))
    assert error.key == "input.error.not_an_integer"
    assert error.params == {"option": OPT, "value": excerpt(text)}
    assert not is_int(text)


@pytest.mark.parametrize("text", [None, "", "   ", "\u00a0", "\u202f\t"])
def test_blank_is_empty_or_none(text: str | None) -> None:
    error = refused(lambda: parse_int(text, option=OPT))
    assert (error.key, error.params) == ("input.error.empty", {"option": OPT})
    assert optional_int(text, option=OPT) is None
    error = refused(lambda: parse_modifier(text, option=OPT))
    assert (error.key, error.params) == ("input.error.empty", {"option": OPT})
    assert optional_modifier(text, option=OPT) is None
    assert parse_rolls(text, option=OPT) == []
    assert parse_int_list(text, option=OPT, lo=0, hi=9, limit=3) == []
    assert parse_named_rolls(text, option=OPT, sides=20) == []


def test_too_many_digits_and_too_long_texts() -> None:
    error = refused(lambda: parse_int("1234567890", option=OPT))
    assert (error.key, error.params) == (
        "input.error.too_long",
        {"option": OPT, "value": "1234567890", "max": 9},
    )
    assert not is_int("1234567890")
    error = refused(lambda: parse_int("9" * 10_000, option=OPT))
    assert error.key == "input.error.too_long"
    assert error.params == {"option": OPT, "value": "9" * 19 + "…", "max": MAX_TEXT}
    error = refused(lambda: parse_int(" " * (MAX_TEXT + 1), option=OPT))
    assert error.key == "input.error.too_long"
    error = refused(lambda: optional_int("1" * (MAX_TEXT + 1), option=OPT))
    assert error.params["max"] == MAX_TEXT
    error = refused(lambda: parse_int("+" + "0" * MAX_DIGITS + "1", option=OPT))
    assert error.params["max"] == MAX_DIGITS


@pytest.mark.parametrize(
    ("text", "lo", "hi", "key", "extra"),
    [
        ("101", 0, 100, "input.error.out_of_range", {"lo": 0, "hi": 100}),
        ("-1", 0, 100, "input.error.out_of_range", {"lo": 0, "hi": 100}),
        ("0", 1, None, "input.error.too_small", {"lo": 1}),
        ("21", None, 20, "input.error.too_large", {"hi": 20}),
    ],
)
def test_bounds(text: str, lo: int | None, hi: int | None, key: str, extra: dict[str, int]) -> None:
    error = refused(lambda: parse_int(text, option=OPT, lo=lo, hi=hi))
    assert (error.key, error.params) == (key, {"option": OPT, "value": text, **extra})
    assert parse_int("20", option=OPT, lo=lo, hi=20) == 20


# --- modifiers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("+10", 10),
        ("-10", -10),
        ("−10", -10),
        ("10", 10),
        ("+10%", 10),
        ("-10 %", -10),
        ("-10\u00a0%", -10),
        ("-10\u202f%", -10),
        ("mod:+10%", 10),
        ("mod: -5", -5),
        ("MOD : -5", -5),
        ("Mod:20", 20),
        ("  mod :  +0 % ", 0),
        ("-200", -200),
        ("+200", 200),
    ],
)
def test_parse_modifier_accepts(text: str, expected: int) -> None:
    assert parse_modifier(text, option=OPT) == expected
    assert optional_modifier(text, option=OPT) == expected


@pytest.mark.parametrize(
    "text",
    [
        "--5",
        "+-5",
        "5-",
        "1.5",
        "1,5",
        "²",
        "①",
        "٣",
        "10%%",
        "%10",
        "mod",
        "mod:",
        "mode:10",
        "mod+10",
        "10 5",
        "%",
    ],
)
def test_parse_modifier_refuses(text: str) -> None:
    error = refused(lambda: parse_modifier(text, option=OPT))
    assert (error.key, error.params) == ("input.error.not_a_modifier", {"option": OPT, "value": text.strip()})


def test_modifier_bounds() -> None:
    error = refused(lambda: parse_modifier("+201", option=OPT))
    assert (error.key, error.params) == (
        "input.error.out_of_range",
        {"option": OPT, "value": "+201", "lo": -200, "hi": 200},
    )
    assert parse_modifier("-30%", option=OPT, lo=-30, hi=30) == -30
    assert (
        refused(lambda: optional_modifier("-31", option=OPT, lo=-30, hi=30)).key == "input.error.out_of_range"
    )
    assert refused(lambda: parse_modifier("mod:1234567890", option=OPT)).key == "input.error.too_long"


# --- dice rolled by hand -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sides", "expected"),
    [
        ("12 5 18", 20, [12, 5, 18]),
        ("12,5,18", 20, [12, 5, 18]),
        ("12, 5; 18", 20, [12, 5, 18]),
        ("12/5/18", 20, [12, 5, 18]),
        (" 12\u00a05\n18 ", 20, [12, 5, 18]),
        ("00 000 0 100 1", 100, [100, 100, 100, 100, 1]),
        ("05", 100, [5]),
        ("6", 6, [6]),
    ],
)
def test_parse_rolls_accepts(text: str, sides: int, expected: list[int]) -> None:
    assert parse_rolls(text, option=OPT, sides=sides) == expected


def test_parse_rolls_refuses() -> None:
    for text, bad in [("12 x 3", "x"), ("1000", "1000"), ("+5", "+5"), ("-1", "-1"), ("²", "²"), ("٣", "٣")]:
        error = refused(lambda text=text: parse_rolls(text, option=OPT))  # type: ignore[misc]
        assert (error.key, error.params) == ("input.error.not_a_roll", {"option": OPT, "value": bad})
    error = refused(lambda: parse_rolls("3 21", option=OPT, sides=20))
    assert (error.key, error.params) == (
        "input.error.roll_range",
        {"option": OPT, "value": "21", "lo": 1, "sides": 20},
    )
    assert refused(lambda: parse_rolls("0", option=OPT, sides=20)).key == "input.error.roll_range"
    assert parse_rolls("0 3", option=OPT, sides=6, low=0) == [0, 3]
    error = refused(lambda: parse_rolls("1 2 3 4", option=OPT, sides=6, limit=3))
    assert (error.key, error.params) == (
        "input.error.too_many_rolls",
        {"option": OPT, "value": "1 2 3 4", "max": 3},
    )
    assert parse_rolls("1 2 3", option=OPT, sides=6, limit=3) == [1, 2, 3]
    assert refused(lambda: parse_rolls("1 " * 101, option=OPT)).key == "input.error.too_long"


def test_parse_int_list() -> None:
    assert parse_int_list("3 -5, +12/0", option=OPT, lo=-10, hi=20, limit=4) == [3, -5, 12, 0]
    error = refused(lambda: parse_int_list("3 21", option=OPT, lo=0, hi=20, limit=4))
    assert (error.key, error.params) == (
        "input.error.out_of_range",
        {"option": OPT, "value": "21", "lo": 0, "hi": 20},
    )
    assert (
        refused(lambda: parse_int_list("3 ²", option=OPT, lo=0, hi=20, limit=4)).key
        == "input.error.not_an_integer"
    )
    error = refused(lambda: parse_int_list("1 2 3", option=OPT, lo=0, hi=20, limit=2))
    assert (error.key, error.params["max"]) == ("input.error.too_many_values", 2)


def test_parse_named_rolls() -> None:
    assert parse_named_rolls("Albert: 12 5 18; Gobelin 1: 3 4 5", option=OPT, sides=20) == [
        ("Albert", [12, 5, 18]),
        ("Gobelin 1", [3, 4, 5]),
    ]
    assert parse_named_rolls("Élodie = 3\n  Ørn  le   Grand :4,5;;\n", option=OPT, sides=6) == [
        ("Élodie", [3]),
        ("Ørn le Grand", [4, 5]),
    ]
    assert parse_named_rolls("Albert:", option=OPT, sides=20) == [("Albert", [])]
    error = refused(lambda: parse_named_rolls("Albert 12 5", option=OPT, sides=20))
    assert (error.key, error.params) == (
        "input.error.named_rolls_syntax",
        {"option": OPT, "value": "Albert 12 5"},
    )
    assert (
        refused(lambda: parse_named_rolls(": 12", option=OPT, sides=20)).key
        == "input.error.named_rolls_syntax"
    )
    error = refused(lambda: parse_named_rolls("Élodie: 1; ELODIE: 2", option=OPT, sides=20))
    assert (error.key, error.params) == ("input.error.duplicate_name", {"option": OPT, "value": "ELODIE"})
    error = refused(lambda: parse_named_rolls("A: 21", option=OPT, sides=20))
    assert (error.key, error.params["value"], error.params["sides"]) == ("input.error.roll_range", "21", 20)
    error = refused(lambda: parse_named_rolls("x" * 65 + ": 1", option=OPT, sides=20))
    assert (error.key, error.params["max"]) == ("input.error.too_long", 64)
    assert parse_named_rolls("x" * 64 + ": 1", option=OPT, sides=20) == [("x" * 64, [1])]
    error = refused(lambda: parse_named_rolls("a:1; b:2; c:3", option=OPT, sides=20, names=2))
    assert (error.key, error.params["max"]) == ("input.error.too_many_names", 2)
    error = refused(lambda: parse_named_rolls("a:1 2 3", option=OPT, sides=20, limit=2))
    assert error.key == "input.error.too_many_rolls"
    error = refused(lambda: parse_named_rolls("a:1;" * 1000, option=OPT, sides=20))
    assert (error.key, error.params["max"]) == ("input.error.too_long", MAX_NAMED_TEXT)


# --- the excerpt of what was typed ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc", "abc"),
        ("@everyone", "＠everyone"),
        ("<@123>", "‹＠123›"),
        ("**x**", "∗∗x∗∗"),
        ("`a`_b_~c~||d||", "ˋaˋ＿b＿∼c∼∣∣d∣∣"),
        ("a\\b", "a⧵b"),
        ("a\n\tb\u200bc\u202e", "a bc"),
        ("x" * 25, "x" * 19 + "…"),
        ("x" * 20, "x" * 20),
    ],
)
def test_excerpt_is_short_and_inert(text: str, expected: str) -> None:
    assert excerpt(text) == expected


# --- properties ----------------------------------------------------------------------------------

CATALOG = default_catalog()
FR, EN = CATALOG.keys("fr"), CATALOG.keys("en")
INPUT_KEYS = {k for k in FR | EN if k.startswith("input.")}
MARKDOWN = re.compile(r"[`*_~|@<>\\]")

SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_PIECES = [
    "0", "1", "5", "9", "00", "12", "+", "-", "−", " ", "\u00a0", "\u202f", "\n", ",", ";", "/", ":", "=",
    "%", "mod", "MOD :", "²", "①", "٣", "e", ".", "Albert", "É", "@", "`", "*", "_", "~", "|", "<", ">",
    "\u200b",
]  # fmt: skip
_pieces = st.sampled_from(_PIECES)
TEXTS = st.one_of(
    st.text(),
    st.lists(_pieces, max_size=30).map("".join),
    st.integers(min_value=1, max_value=10_000).map(lambda n: "7" * n),
    st.tuples(st.sampled_from(["", "+", "-", "−", "--"]), st.integers(0, 10**12)).map(
        lambda p: f"{p[0]}{p[1]}"
    ),
    st.text(alphabet="0123456789²①٣ ,;:=%+-−", max_size=3000),
)
OPTIONAL_TEXTS = st.one_of(st.none(), TEXTS)


def _check_error(error: InputError) -> None:
    assert error.key.startswith("input.error."), error.key
    assert error.key in FR and error.key in EN, error.key
    assert error.params["option"] == OPT
    if "value" in error.params:
        value = error.params["value"]
        assert isinstance(value, str) and len(value) <= 21
        assert not MARKDOWN.search(value), value
    pattern = re.compile(r"{(\w+)}")
    assert set(pattern.findall(CATALOG.raw("fr", error.key) or "")) <= set(error.params)


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except InputError as error:
        _check_error(error)
        return error


@SETTINGS
@given(OPTIONAL_TEXTS, st.one_of(st.none(), st.integers(-1000, 1000)), st.integers(0, 2000))
def test_integers_never_crash(text: str | None, lo: int | None, width: int) -> None:
    hi = None if lo is None else lo + width
    for call in (parse_int, optional_int):
        result = _outcome(lambda call=call: call(text, option=OPT, lo=lo, hi=hi))  # type: ignore[misc]
        if not isinstance(result, InputError) and result is not None:
            assert type(result) is int
            assert (lo is None or result >= lo) and (hi is None or result <= hi)
            assert abs(result) < 10**MAX_DIGITS
    if text is not None:
        ok = is_int(text)
        assert ok == (not isinstance(_outcome(lambda: parse_int(text, option=OPT)), InputError))


@SETTINGS
@given(OPTIONAL_TEXTS, st.integers(-300, 0), st.integers(0, 300))
def test_modifiers_never_crash(text: str | None, lo: int, hi: int) -> None:
    for call in (parse_modifier, optional_modifier):
        result = _outcome(lambda call=call: call(text, option=OPT, lo=lo, hi=hi))  # type: ignore[misc]
        if not isinstance(result, InputError) and result is not None:
            assert type(result) is int and lo <= result <= hi


@SETTINGS
@given(OPTIONAL_TEXTS, st.sampled_from([2, 4, 6, 8, 10, 12, 20, 100]), st.integers(0, 40), st.integers(0, 1))
def test_rolls_never_crash(text: str | None, sides: int, limit: int, low: int) -> None:
    result = _outcome(lambda: parse_rolls(text, option=OPT, sides=sides, limit=limit, low=low))
    if not isinstance(result, InputError):
        assert isinstance(result, list) and len(result) <= limit
        assert all(type(v) is int and low <= v <= sides for v in result)


@SETTINGS
@given(OPTIONAL_TEXTS, st.integers(-1000, 0), st.integers(0, 1000), st.integers(0, 40))
def test_int_lists_never_crash(text: str | None, lo: int, hi: int, limit: int) -> None:
    result = _outcome(lambda: parse_int_list(text, option=OPT, lo=lo, hi=hi, limit=limit))
    if not isinstance(result, InputError):
        assert isinstance(result, list) and len(result) <= limit
        assert all(type(v) is int and lo <= v <= hi for v in result)


@SETTINGS
@given(OPTIONAL_TEXTS, st.sampled_from([6, 10, 20, 100]), st.integers(0, 10), st.integers(0, 10))
def test_named_rolls_never_crash(text: str | None, sides: int, limit: int, names: int) -> None:
    result = _outcome(lambda: parse_named_rolls(text, option=OPT, sides=sides, limit=limit, names=names))
    if not isinstance(result, InputError):
        assert isinstance(result, list) and len(result) <= names
        for name, dice in result:
            assert isinstance(name, str) and 1 <= len(name) <= 64 and name == name.strip()
            assert len(dice) <= limit and all(type(v) is int and 1 <= v <= sides for v in dice)


@SETTINGS
@given(st.text(max_size=500))
def test_excerpts_are_short_and_inert(text: str) -> None:
    value = excerpt(text)
    assert len(value) <= 20 and not MARKDOWN.search(value)
    assert "\n" not in value


# --- the catalogue -------------------------------------------------------------------------------


def test_every_input_key_exists_in_both_languages_with_the_same_placeholders() -> None:
    pattern = re.compile(r"{(\w+)}")
    assert INPUT_KEYS
    for key in sorted(INPUT_KEYS):
        fr_text, en_text = CATALOG.raw("fr", key), CATALOG.raw("en", key)
        assert fr_text and en_text, key
        assert set(pattern.findall(fr_text)) == set(pattern.findall(en_text)), key
        if key.startswith("input.error."):
            assert "{option}" in fr_text, key


def test_every_error_key_the_grammar_can_raise_is_in_the_catalogue() -> None:
    import bot.rules.grammar as grammar

    source = Path(grammar.__file__).read_text(encoding="utf-8")
    raised = set(re.findall(r'"(input\.error\.\w+)"', source))
    assert raised and raised <= INPUT_KEYS


@pytest.mark.parametrize(
    "option",
    [
        "roll", "rolls", "dice", "modifier", "damage", "critical", "side_effect", "durations", "value",
        "target", "score", "bullets", "distance", "count", "tests", "characteristics", "skills", "attempts",
        "successes", "difficulty", "location",
    ],
)  # fmt: skip
def test_option_names(option: str) -> None:
    assert CATALOG.raw("en", f"input.option.{option}") == option
    assert CATALOG.raw("fr", f"input.option.{option}")
