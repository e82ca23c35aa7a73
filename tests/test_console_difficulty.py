"""The difficulty ladder of the ruleset in force, played through the console by the GM and two
players, in French and in English (issue #21): `renove` offers the WFRP scale, `d20` its own ladder,
`v1` none; a grade is given by name to ``/test``, ``/etendu`` and ``/oppose``."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /test carac:40 difficulte:difficile jet:21
@bob /test carac:40 difficulte:"Très facile" jet:65
@alice !autocomplete /test difficulte:diff
@alice /etendu carac:40 tentatives:3 reussites:2 difficulte:facile jets:"55 70 10"
@bob /oppose camp_a:Hans=40 camp_b:Otto=35 difficulte_a:"assez difficile" jets_a:25 jets_b:50
@bob /test carac:40 difficulte:evidente
/config systeme systeme:d20 portee:canal
@alice !autocomplete /test difficulte:diff
/test carac:15 difficulte:difficile jet:5
/config systeme systeme:v1 portee:canal
@bob !autocomplete /test difficulte:
@bob /test carac:40 difficulte:difficile jet:21
"""
ENGLISH = """
@alice /test target:40 difficulty:hard roll:21
@bob !autocomplete /test difficulty:easy
@bob /extended target:40 attempts:2 successes:1 difficulty:"very hard" rolls:"15 05"
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def _choices(record: dict[str, Any]) -> list[str]:
    return [c["name"] for c in record["choices"]]


def test_difficulty_ladders_in_french() -> None:
    records = [r for r in console_records(FRENCH) if r.get("command")]
    assert_no_errors(records)
    hard, easy, offered, extended, opposed, unknown, _, d20_offered, d20, _, v1_offered, v1 = records
    assert hard["result"]["target"] == 20 and not hard["result"]["success"] and not hard["ephemeral"]
    assert "Difficile : −20" in _text(hard)
    assert easy["result"]["target"] == 70 and easy["result"]["success"]
    assert _choices(offered) == [
        "Assez difficile (−10\u202f%)",
        "Difficile (−20\u202f%)",
        "Très difficile (−30\u202f%)",
    ]
    assert extended["result"]["target"] == 60 and "Facile : +20" in _text(extended)
    # real plurals: French counts 0 in the singular
    assert "2/2 réussites, 0 tentative restante" in _text(extended) and "Temps écoulé : 3 rounds" in _text(
        extended
    )
    assert opposed["result"]["rounds"][0]["a"]["target"] == 30 and "Hans l'emporte" in _text(opposed)
    assert unknown["ephemeral"] and "Difficulté inconnue « evidente »" in _text(unknown)
    assert "Très facile" in _text(unknown)  # the names of this ladder, to pick from
    assert _choices(d20_offered) == ["Assez difficile (−5)", "Difficile (−10)", "Très difficile (−15)"]
    assert d20["result"]["target"] == 5 and "Difficile : −10" in _text(d20)
    assert v1_offered["choices"] == []
    assert v1["ephemeral"] and "n'a pas d'échelle de difficulté" in _text(v1)


def test_difficulty_ladders_in_english() -> None:
    records = [r for r in console_records(ENGLISH, locale="en") if r.get("command")]
    assert_no_errors(records)
    hard, offered, extended = records
    assert hard["result"]["target"] == 20 and "21 against 20 → ❌ Failure" in _text(hard)
    assert hard["result"]["modifiers"][-1] == {"label": "checks.renove.difficulty.hard", "value": -20}
    assert "\nHard " in _text(hard)
    assert _choices(offered) == ["Very easy (+30%)", "Easy (+20%)"]
    assert extended["result"]["target"] == 10 and extended["result"]["status"] == "succeeded"
    assert "1/1 success, 0 attempts left" in _text(extended) and "Time spent: 2 rounds" in _text(extended)
