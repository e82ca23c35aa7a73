"""Every catalogue message rendered with sample arguments, in both languages: singular and plural,
feminine and masculine, names starting with a vowel. French output has no « (s) », no « de » / « le »
/ « que » before a vowel, no decimal point, no English words; nothing is left unresolved."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.i18n import default_catalog
from bot.i18n.message_format import argument_names, parse
from bot.rules.names import Name

# Parameters that hold the name of a character or fighter (they get feminine and vowel names).
NAME_ARGS = frozenset(
    {
        "name", "target", "other", "foe", "subject", "attacker", "defender", "who", "names", "user",
        "first", "gone", "actor", "victim", "holder", "grappler", "rider", "mount", "runner", "winner",
        "loser", "player", "character", "fighter", "ally", "enemy", "leader", "next_name",
    }
)  # fmt: skip
NUMBER_HINT = re.compile(
    r"^(n|count|total|amount|value|min|max|lo|hi|minimum|maximum|limit|extra|used|left|needed|"
    r"successes|remaining|rounds?|days|hours|minutes|seconds|metres|distance|range|size|seq|number|"
    r"index|page|pages|points?|overflow|hits|bullets|groups|replaced|added|every|step|next|sides|"
    r"before|after|pv|pf|pd|xp|die|roll|d4|margin|score|result|sum|dice_count|level|rank|round|"
    r"target_value|percent|chance|attacks|max_.*|.*_count|.*_total|.*_max|.*_min)$"
)
# A sample set: (names, numbers, other words).
SAMPLES: tuple[tuple[Any, Any, str], ...] = (
    (Name("Élise", "f"), 1, "Intimidation"),
    (Name("Albert", "m"), 2, "Ag"),
    ("le gobelin", 0, "Hache"),
    (Name("Orque", "f"), 2.5, "Arme normale"),
)
VOWEL = "AEIOUÉÈÊÀÂÎÔÛŒaeiouéèêàâîôûœ"
FRENCH_FAULTS = {
    "« (s) »": re.compile(r"\((?:s|e|es|x)\)"),
    "de/le/la/que before a vowel": re.compile(rf"(?<![\w'’-])(?:[Dd]e|[Ll][ea]|[Qq]ue) \**(?!I/A)[{VOWEL}]"),
    "an elision before a consonant": re.compile(r"(?<![\w-])[DdLlQq]u?'\**[B-DFGJ-NP-TV-Zb-dfgj-np-tv-z]"),
    "de le / à le": re.compile(r"(?<![\w'’-])(?:[Dd]e|à) [Ll]es? gobelin"),
    "a decimal point": re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])"),
    "an English word": re.compile(
        r"(?<![\w'’/`:-])(?:the|and|with|your|you|is|are|has|this|that|of)(?![\w'’/`-])"
    ),
}
ENGLISH_FAULTS = {
    "« (s) »": re.compile(r"\((?:s|es|ies)\)|die/dice"),
}
UNRESOLVED = re.compile(r"\{[A-Za-z_]\w*[^{}]*\}|^[a-z_]+(?:\.[a-z_0-9]+){2,}$")


def _plural_args(template: str) -> set[str]:
    found: set[str] = set()

    def walk(nodes: list[Any]) -> None:
        for node in nodes:
            if node[0] == "plural":
                found.add(node[1])
            if node[0] in ("plural", "select", "gender"):
                for sub in node[2].values():
                    walk(sub)

    walk(parse(template))
    return found


def _spec_of(template: str, arg: str) -> str:
    match = re.search(r"\{" + re.escape(arg) + r"(?:![rsa])?:([^{}]*)\}", template)
    return match.group(1) if match else ""


def sample_params(template: str, sample: tuple[Any, Any, str]) -> dict[str, Any]:
    name, number, word = sample
    plural = _plural_args(template)
    params: dict[str, Any] = {}
    for arg in argument_names(template):
        spec = _spec_of(template, arg)
        if spec.endswith(("d", "n")) or (spec and spec[-1:] in "+-" and "f" not in spec):
            params[arg] = int(number) if not isinstance(number, float) else 3
        elif spec.endswith(("f", "%", "e", "g")):
            params[arg] = float(number) + 0.25
        elif arg in plural or NUMBER_HINT.match(arg):
            params[arg] = number
        elif arg in NAME_ARGS:
            params[arg] = name
        else:
            params[arg] = word
    return params


CODE = re.compile(r"`[^`\n]+`")


def messages() -> Iterator[tuple[str, str]]:
    catalog = default_catalog()
    for language in ("fr", "en"):
        for key in sorted(catalog.keys(language)):
            yield language, key


def _rendered(language: str, key: str) -> Iterator[tuple[dict[str, Any], str]]:
    catalog = default_catalog()
    template = catalog.raw(language, key) or ""
    for sample in SAMPLES:
        params = sample_params(template, sample)
        yield params, catalog.t(language, key, **params)


def test_every_template_parses() -> None:
    catalog = default_catalog()
    for language, key in messages():
        parse(catalog.raw(language, key) or "")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_message_reads_right(language: str) -> None:
    faults = FRENCH_FAULTS if language == "fr" else ENGLISH_FAULTS
    catalog = default_catalog()
    problems: list[str] = []
    for key in sorted(catalog.keys(language)):
        if key.startswith("cmd."):
            continue  # command names and option descriptions: Discord's own strings
        for params, text in _rendered(language, key):
            prose = CODE.sub("`…`", text)  # `triche=1.3`, `mod:+10`: input syntax, not prose
            for what, pattern in faults.items():
                found = pattern.search(prose)
                if found:
                    problems.append(f"{key}: {what} « {found.group(0)} » in « {text} » ({params})")
            unresolved = UNRESOLVED.search(text)
            if unresolved:
                problems.append(f"{key}: unresolved « {unresolved.group(0)} » in « {text} »")
    assert problems == [], "\n".join(sorted(set(problems))[:300]) + f"\n… {len(problems)} problems"
