"""``/macro`` and sheet values in ``/lancer`` through the console, played by the GM and two players,
in French and in English (issue #26): a player's macro, the GM's server macro shadowed by the
player's own, a roll-under test with its degrees, the refusals in private."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

FRENCH = """
@alice /lancer expression:1d10+BF
@alice /perso creer nom:Élise caracs:"CC:45 CT:30 F:36 E:30 Ag:35 Int:30 FM:30 Soc:30"
@alice /lancer expression:"2d10kh1+BF-2 # Percutante" des:"3 8"
@alice /lancer expression:1d100<=CC+10 des:23
@alice /lancer expression:1d10+BX
@alice /macro creer nom:frappe expression:"1d10+BF # Frappe"
@alice /lancer expression:frappe des:7
@alice /lancer expression:frappe+2 des:4
@alice /macro creer nom:boucle expression:boucle+1
/macro creer nom:frappe expression:"1d6 # Frappe du MJ" serveur:True
@bob /lancer expression:frappe des:5
@bob /macro creer nom:cac expression:1d100<=CC serveur:True
@alice /macro lister
@alice /macro supprimer nom:frappe
@alice /lancer expression:frappe des:2
"""
ENGLISH = """
@bob /character create name:Otto stats:"WS:40 BS:30 S:35 T:40 Ag:38 Int:30 WP:30 Fel:30"
@bob /macro create name:strike expression:"1d10+SB # Strike"
@bob /roll expression:strike dice:5
@bob /roll expression:"1d100<=WS-10" dice:31
/macro create name:heal expression:"1d10 # Healing" server:True
@alice /roll expression:heal dice:6
@alice /roll expression:1d10+SB
@alice /macro delete name:heal
@bob /macro list
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
        parts.append(str(embed.get("footer") or ""))
    return "\n".join(parts)


def _of(records: list[dict[str, Any]], *commands: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("command") in commands]


def test_macros_and_sheet_values_in_french() -> None:
    records = console_records(FRENCH)
    rolls = _of(records, "/lancer")
    no_sheet, percutante, test, unknown, frappe, inside, bobs, after = rolls
    assert no_sheet["ephemeral"] and "Pas de personnage actif pour lire « BF »" in _text(no_sheet)
    assert "`/perso actif personnage:Nom`" in _text(no_sheet)
    assert percutante["result"]["total"] == 8 + 6 - 2 and "**Élise** · BF = 6" in _text(percutante)
    assert test["result"]["test"]["target"] == 55 and test["result"]["test"]["degrees"] == 3
    assert "✅ Réussite" in _text(test) and "3 °R" in _text(test)
    assert unknown["ephemeral"] and "« BX » n'est ni une valeur de votre fiche (Élise)" in _text(unknown)
    assert frappe["result"]["total"] == 13 and frappe["embeds"][0]["title"] == "🎲 Frappe"
    assert inside["result"]["total"] == 4 + 6 + 2 and "frappe → `(1d10+BF)+2`" in _text(inside)
    # Bob has no macro of his own: the GM's server macro; Alice's own shadowed it until deleted.
    assert bobs["result"]["total"] == 5 and bobs["embeds"][0]["title"] == "🎲 Frappe du MJ"
    assert after["result"]["total"] == 2 and after["embeds"][0]["title"] == "🎲 Frappe du MJ"
    created, loop, server, refused, listed, deleted = _of(
        records, "/macro creer", "/macro lister", "/macro supprimer"
    )
    assert created["ephemeral"] and "Macro « frappe » enregistrée" in _text(created)
    assert "ne peut pas s'utiliser elle-même" in _text(loop)
    assert "Macro du serveur « frappe » enregistrée" in _text(server)
    assert refused["ephemeral"] and "Seul le MJ" in _text(refused)
    assert "Vos macros (1/25)" in _text(listed) and "(pour vous, la vôtre la remplace)" in _text(listed)
    assert "Macro « frappe » supprimée" in _text(deleted)


def test_macros_and_sheet_values_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    strike, test, heal, no_sheet = _of(records, "/roll")
    assert strike["result"]["total"] == 11 and strike["embeds"][0]["title"] == "🎲 Strike"
    assert "**Otto** · SB = 6" in _text(strike)
    assert test["result"]["test"]["target"] == 30 and not test["result"]["test"]["success"]
    assert "❌ Failure" in _text(test) and "dice rolled by hand" in _text(test)
    assert heal["result"]["total"] == 6 and heal["embeds"][0]["title"] == "🎲 Healing"
    assert no_sheet["ephemeral"] and "No active character to read “SB” from." in _text(no_sheet)
    created, server, refused, listed = _of(records, "/macro create", "/macro delete", "/macro list")
    assert "Macro “strike” saved" in _text(created) and "Server macro “heal” saved" in _text(server)
    assert "“heal” is a server macro, not yours" in _text(refused)
    assert "Your macros (1/25)" in _text(listed) and "Server macros (1/100)" in _text(listed)
