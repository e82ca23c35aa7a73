"""``/statistiques`` (``/stats``) through the console, played by the GM and two players, in French
and in English: the server's dice tested, a player's, a character's; secret rolls counted for the GM
alone (and his answer then private), dice entered by hand shown apart, the histogram attached."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
/perso creer nom:Gunnar caracs:"CC:40 CT:30 F:38 E:40 Ag:40 Int:30 FM:30 Soc:30"
/test carac:CC
/test carac:CC secret:oui
@alice /lancer expression:300d6
@alice /lancer expression:3d6 dice:"6 6 6"
@bob /lancer expression:1d20
@bob /test carac:45 secret:oui
/statistiques
@alice /statistiques
@alice /statistiques joueur:@alice
@bob /statistiques joueur:@bob
@alice /statistiques personnage:Gunnar
/statistiques personnage:Gunnar
#taverne /lancer expression:20d6
@alice /statistiques salon:taverne
@bob /statistiques personnage:Personne
"""
ENGLISH = """
@alice /roll expression:200d20
@alice /roll expression:1d20 dice:20
@bob /test carac:45 secret:true
/stats
@bob /stats player:@bob period:week
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
        parts.append(str(embed.get("footer") or ""))
    return "\n".join(parts)


def _stats(records: list[dict[str, Any]], command: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("command") == command]


def _png(record: dict[str, Any]) -> dict[str, Any]:
    (attachment,) = record["attachments"]
    assert attachment["filename"] == "stats.png" and attachment["size"] > 100
    return attachment


def test_stats_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records[:-1])
    server_gm, server_alice, alice, bob, gunnar_alice, gunnar_gm, tavern, nobody = _stats(
        records, "/statistiques"
    )
    # The GM counts the secret rolls (his own and Bob's): his answer is private.
    assert server_gm["ephemeral"] and not server_alice["ephemeral"]
    assert server_gm["result"]["tests"] == 3 and server_alice["result"]["tests"] == 1
    assert "jets secrets compris" in _text(server_gm) and "sans les jets secrets" in _text(server_alice)
    _png(server_gm), _png(server_alice)
    # Alice's 300 d6 are tested; her three sixes by hand are shown apart, not tested.
    (d6,) = [s for s in alice["result"]["sizes"] if s["sides"] == 6]
    assert d6["dice"] == 300 and alice["result"]["by_hand"] == {"6": 3}
    text = _text(alice)
    assert "Les jets de <@" in text and "**d6** : 300 dés" in text
    verdict = "rien d'anormal" if d6["p_value"] >= 0.01 else "à surveiller"
    assert "(5 degrés de liberté), p = " in text and f"→ {verdict}" in text
    assert "Dés entrés à la main (à part, non testés): d6 : 3 dés, moyenne 6,00 (attendue 3,5)" in text
    # Bob's own secret test is not his to count: one d20, too few to judge.
    assert bob["result"]["tests"] == 0
    assert "Trop peu de dés pour juger : il en faut au moins 100 (5 par face)." in _text(bob)
    # Gunnar's tests: one public for Alice, both for the GM; renove criticals at 2 % each.
    assert gunnar_alice["result"]["tests"] == 1 and gunnar_gm["result"]["tests"] == 2
    assert "Les jets de Gunnar" in _text(gunnar_gm) and "1 test lancé par le bot" in _text(gunnar_alice)
    assert "contre 2,0\u202f% attendus" in _text(gunnar_gm)
    # One channel: only the 20 d6 rolled in #taverne.
    assert tavern["result"]["sizes"] == [{**tavern["result"]["sizes"][0], "sides": 6, "dice": 20}]
    assert "Les jets du salon <#" in _text(tavern)
    assert nobody["ephemeral"] and "Aucun personnage nommé « Personne » sur ce serveur." in _text(nobody)


def test_stats_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    server, bob = _stats(records, "/stats")
    d20, d100 = server["result"]["sizes"]
    assert d100["sides"] == 100 and d100["dice"] == 1  # Bob's secret test: the GM's to count
    assert d20["sides"] == 20 and d20["dice"] == 200 and server["result"]["by_hand"] == {"20": 1}
    text = _text(server)
    assert "Dice statistics — all time" in text and "**d20**: 200 dice" in text
    verdict = "nothing unusual" if d20["p_value"] >= 0.01 else "worth watching"
    assert "(19 degrees of freedom), p = " in text and f"→ {verdict}" in text
    assert "d20: 1 die, mean 20.00 (expected 10.5)" in text
    assert server["ephemeral"] and "secret rolls included" in text
    _png(server)
    assert bob["ephemeral"] and "No dice rolled over this period." in _text(bob)
    assert "Dice statistics — last 7 days" in _text(bob)
