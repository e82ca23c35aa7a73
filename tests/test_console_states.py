"""A state is carried once (#25), played in the console as the GM, in French and in English: the
goblin knocked down twice is « à terre » once (until he gets up: longer than 2 rounds), stunned
twice is stunned once for the longer 3 rounds; the end summary says « 0 round » / "0 rounds"."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import assert_no_errors, console_records

SCRIPT = """
/combat ouvrir nom:Chute
@alice /perso creer nom:Albert caracs:"CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
@alice /combat ajouter qui:Albert
/combat ajouter qui:gobelin
/combat etat qui:Gob operation:add etat:prone
/combat etat qui:Gob operation:add etat:prone rounds:2
/combat etat qui:Gob operation:add etat:stunned rounds:1
/combat etat qui:Gob operation:add etat:stunned rounds:3
/combat voir
/combat fin
"""


def _embed(record: dict[str, Any]) -> dict[str, Any]:
    embed: dict[str, Any] = record["embeds"][0]
    return embed


@pytest.mark.parametrize(
    ("locale", "prone", "stunned", "rounds"),
    [("fr", "à terre", "sonné", "0 round."), ("en", "prone", "stunned", "0 rounds.")],
)
def test_a_state_added_twice_is_carried_once(locale: str, prone: str, stunned: str, rounds: str) -> None:
    records = console_records(SCRIPT, locale=locale)
    assert_no_errors(records)
    edits = [r for r in records if r.get("command") == "/combat etat"]
    assert len(edits) == 4
    # the second fall shows the state that stays: until he gets up, not 2 rounds
    assert _embed(edits[0])["description"] == _embed(edits[1])["description"]
    assert prone in _embed(edits[1])["description"]
    assert [c["kind"] for c in edits[-1]["result"]["combatant"]["conditions"]] == ["prone", "stunned"]
    assert edits[-1]["result"]["combatant"]["conditions"][1]["remaining"] == 3
    [shown] = [r for r in records if r.get("command") == "/combat voir"]
    goblin = next(f for f in _embed(shown)["fields"] if f["name"].startswith("Gob"))
    lines = goblin["value"].split("\n")
    assert sum(prone in line for line in lines) == 1 and sum(stunned in line for line in lines) == 1
    [end] = [r for r in records if r.get("command") == "/combat fin"]
    assert _embed(end)["description"] == rounds
