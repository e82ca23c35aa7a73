"""The catalogue's message format: plain str.format templates unchanged, plurals, gender, elision, numbers."""

from __future__ import annotations

import pickle

import pytest

from bot.i18n import Catalog, Term, number
from bot.i18n.message_format import MessageSyntaxError, argument_names, join_french, parse
from bot.rules.names import Name, parse_gender

ELISE = Name("Élise", "f")
ALBERT = Name("Albert", "m")


def cat(fr: str, en: str | None = None) -> Catalog:
    return Catalog({"fr": {"k": fr}, "en": {"k": en if en is not None else fr}})


def test_plain_templates_behave_as_str_format() -> None:
    c = cat("{a} et {b:+d} {{littéral}} {missing}")
    assert c.t("fr", "k", a="x", b=3) == "x et +3 {littéral} {missing}"


@pytest.mark.parametrize(
    ("n", "fr", "en"),
    [
        (0, "0 round", "0 rounds"),
        (1, "1 round", "1 round"),
        (2, "2 rounds", "2 rounds"),
        (1.5, "1,5 round", "1.5 rounds"),
        (1500, "1\u202f500 rounds", "1,500 rounds"),
    ],
)
def test_plural_follows_cldr_rules_per_language(n: float, fr: str, en: str) -> None:
    c = cat("{n, plural, one {# round} other {# rounds}}")
    assert c.t("fr", "k", n=n) == fr
    assert c.t("en", "k", n=n) == en


def test_exact_plural_case_wins_and_nested_arguments_render() -> None:
    c = cat("{n, plural, =0 {aucun combattant} one {{name} est seul} other {# combattants avec {name}}}")
    assert c.t("fr", "k", n=0, name="X") == "aucun combattant"
    assert c.t("fr", "k", n=1, name="Bob") == "Bob est seul"
    assert c.t("fr", "k", n=3, name="Bob") == "3 combattants avec Bob"


def test_gender_follows_the_name() -> None:
    c = cat("{name} n'est pas {name, gender, f {touchée} other {touché}}")
    assert c.t("fr", "k", name=ELISE) == "Élise n'est pas touchée"
    assert c.t("fr", "k", name=ALBERT) == "Albert n'est pas touché"
    assert c.t("fr", "k", name="Sans genre") == "Sans genre n'est pas touché"
    assert c.t("fr", "k", name="f") == "f n'est pas touchée"  # a plain "f"/"m" is a gender too


def test_select_on_the_value() -> None:
    c = cat("{kind, select, melee {mêlée} other {tir}}")
    assert c.t("fr", "k", kind="melee") == "mêlée"
    assert c.t("fr", "k", kind="ranged") == "tir"


@pytest.mark.parametrize(
    ("before", "value", "expected"),
    [
        ("Au tour de ", "Élise", "Au tour d'Élise"),
        ("Test de ", "Ag", "Test d'Ag"),
        ("BE de ", "Arme normale", "BE d'Arme normale"),
        ("Interrogatoire de ", "Le gobelin", "Interrogatoire du gobelin"),
        ("Interrogatoire de ", "les gobelins", "Interrogatoire des gobelins"),
        ("De ", "Ulrich", "D'Ulrich"),
        ("contre le ", "Orque", "contre l'Orque"),
        ("contre la ", "Ombre", "contre l'Ombre"),
        ("plus fort que ", "Élise", "plus fort qu'Élise"),
        ("parlez à ", "le chef", "parlez au chef"),
        ("parlez à ", "Élise", "parlez à Élise"),
        ("la main de ", "Hugo", "la main d'Hugo"),  # a name with a mute h
        ("la main de ", "Hans", "la main de Hans"),  # an Old World name: aspirated
        ("la force de ", "Homme bête 1", "la force d'Homme bête 1"),
        ("le cri de ", "hibou", "le cri de hibou"),  # an aspirated h
        ("la voix de ", "homme", "la voix d'homme"),
        ("le fil de ", "Hache", "le fil de Hache"),  # aspirated h
        ("le tour de ", "Yvonne", "le tour d'Yvonne"),
        ("le tour de ", "Yann", "le tour de Yann"),
        ("le tour de ", "Bob", "le tour de Bob"),
        ("le tour de ", "8", "le tour de 8"),
        ("le tour de **", "Élise**", "le tour d'**Élise**"),
        ("la mode ", "Élise", "la mode Élise"),  # « mode » is not an eliding word
    ],
)
def test_french_elision_and_contraction(before: str, value: str, expected: str) -> None:
    assert join_french(before, value) == expected


def test_elision_applies_to_every_template_but_only_in_french() -> None:
    c = Catalog({"fr": {"k": "Au tour de {name}"}, "en": {"k": "de {name}"}})
    assert c.t("fr", "k", name=ELISE) == "Au tour d'Élise"
    assert c.t("en", "k", name=ELISE) == "de Élise"


def test_elision_before_a_translated_term_and_a_nested_message() -> None:
    c = Catalog(
        {
            "fr": {"k": "Test de {stat}", "stat": "Agilité", "g": "de {n, plural, one {# arme} other {arc}}"},
            "en": {},
        }
    )
    assert c.t("fr", "k", stat=Term("stat")) == "Test d'Agilité"
    assert c.t("fr", "g", n=5) == "d'arc"


def test_french_numbers_use_the_decimal_comma() -> None:
    c = cat("{x} % · {y:.2f} rounds · {z, number} · {w, number, 0.0}")
    assert c.t("fr", "k", x=97.2, y=2.5812, z=1234.5, w=3) == "97,2 % · 2,58 rounds · 1\u202f234,5 · 3,0"
    assert c.t("en", "k", x=97.2, y=2.5812, z=1234.5, w=3) == "97.2 % · 2.58 rounds · 1,234.5 · 3.0"
    assert number("fr", 2.58, "0.0") == "2,6"
    assert number("en-GB", 2.58, "0.0") == "2.6"
    assert number("fr", 12) == "12"


def test_names_keep_their_gender_as_strings() -> None:
    assert ELISE == "Élise" and hash(ELISE) == hash("Élise")
    assert pickle.loads(pickle.dumps(ELISE)).gender == "f"
    assert Name("X", "z").gender == "m"
    assert parse_gender("Féminin") == "f" and parse_gender("female") == "f"
    assert parse_gender("masculin") == "m" and parse_gender(" ") is None and parse_gender("x") is None


def test_syntax_errors_are_reported_and_arguments_listed() -> None:
    with pytest.raises(MessageSyntaxError):
        parse("{n, plural, one {# round}}")  # no « other »
    with pytest.raises(MessageSyntaxError):
        parse("{n, plural, one {# round")
    assert argument_names("{a} {n, plural, one {{b}} other {#}} {g, gender, f {{c}} other {}}") == {
        "a",
        "b",
        "c",
        "g",
        "n",
    }


def test_a_bad_template_falls_back_to_its_text_instead_of_raising() -> None:
    c = cat("{n:d} de {name}")
    assert c.t("fr", "k", n="pas un nombre", name="Élise") == "{n:d} de {name}"


def test_a_fighter_keeps_its_gender_through_the_fight_state() -> None:
    from bot.rules.combat.state import Combatant

    elise = Combatant(id="elise", name=Name("Élise", "f"), characteristics={"CC": 40})
    data = elise.to_dict()
    assert data["gender"] == "f" and data["name"] == "Élise"
    back = Combatant.from_dict(data)
    assert back.name == "Élise" and getattr(back.name, "gender", None) == "f"
    albert = Combatant.from_dict(Combatant(id="a", name="Albert", characteristics={}).to_dict())
    assert "gender" not in albert.to_dict() and getattr(albert.name, "gender", None) == "m"


def test_a_sheet_keeps_its_gender_in_the_profile() -> None:
    from bot.rules.sheets import Profile, SheetError, check_gender

    profile = Profile(gender="f")
    assert profile.to_dict()["gender"] == "f" and Profile.from_dict(profile.to_dict()).gender == "f"
    assert "gender" not in Profile().to_dict() and Profile.from_dict({"gender": "x"}).gender == "m"
    assert check_gender("Féminin") == "f"
    with pytest.raises(SheetError):
        check_gender("neutre")
