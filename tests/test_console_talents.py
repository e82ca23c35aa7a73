"""Talents on a `renove` sheet through the console (``python -m bot console --json``), played as a
French player and as an English one: an unknown talent refused with its close name, known talents
stored under their French name, Tireur d'élite on the base profile, Fuite in a chase and Dur à cuire
in the infection test read from the sheet, the talent table browsed."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

STATS = "CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"
FRENCH = f"""
@alice /perso creer nom:Hans caracs:"{STATS}"
@alice /perso modifier talents:"coups precsi, Robuste"
@alice /perso modifier talents:"tireur d'elite, Flee!, dur a cuire, autre: Chance du débutant"
/poursuite ouvrir avance:5
@alice /poursuite ajouter role:fugitive personnage:Hans
@alice /infection test critique:5 personnage:Hans jet:90
/regles voir table:talents entree:"Tir précis"
"""
ENGLISH = f"""
@alice /character create name:Hans stats:"{STATS}"
@alice /character edit talents:"strike to injur, Sturdy"
@alice /character edit talents:"Marksman, Flee!, Hardy, other: Beginner's luck"
/chase open lead:5
@alice /chase add role:fugitive character:Hans
@alice /infection test critical:5 character:Hans roll:90
/rules show table:talents entry:"Sure Shot"
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def _by_command(records: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(r["command"], _text(r), r.get("result") or {}) for r in records if r.get("command")]


def test_talents_as_a_french_player() -> None:
    replies = _by_command(console_records(FRENCH))
    (
        (_, _, _),
        (_, refused, result),
        (_, edited, sheet),
        _,
        (_, chase, added),
        (_, fever, test),
        (_, shown, _),
    ) = replies
    assert result["problems"] == ["talents.error.unknown"]
    assert "Un problème, rien n'a été enregistré :" in refused
    assert "Talent inconnu : « coups precsi ». Vouliez-vous dire : Coups précis ?" in refused
    assert "s'écrit « Autre : coups precsi »" in refused and "`-Fuite` retire un talent" in refused
    assert "Tireur d'élite : CT +5, reporté sur le profil de base (31 → 36)." in edited
    assert "Talents: Tireur d'élite, Fuite, Dur à cuire, Autre : Chance du débutant" in edited
    assert sheet["character"]["characteristics"]["CT"] == 36
    assert added["added"]["flee_talent"] is True, chase
    assert "Dur à cuire : +10" in fever and test["test"]["target"] == 61, fever  # E 41 + 10 + 10
    assert "°R pour la zone touchée +1, au tir" in shown and "Warhammer rénové, l. 1266-1267" in shown
    for command, text, _ in replies:
        if command != "/infection test":  # its effect durations (« 3 jour(s) ») are not this file's
            assert "(s)" not in text, text
        assert "rules." not in text and "talents." not in text


def test_talents_as_an_english_player() -> None:
    replies = _by_command(console_records(ENGLISH, locale="en"))
    (_, _, _), (_, refused, _), (_, edited, sheet), _, (_, chase, added), (_, fever, _), (_, shown, _) = (
        replies
    )
    assert "Unknown talent: “strike to injur”. Did you mean: Coups précis, Coups assommants" in refused
    assert "Example: `talents:Coups précis" in refused
    assert "Tireur d'élite: CT +5, written into the base profile (31 → 36)." in edited
    assert sheet["character"]["talents"] == [
        "Tireur d'élite",
        "Fuite",
        "Dur à cuire",
        "Autre : Beginner's luck",
    ]
    assert added["added"]["flee_talent"] is True, chase
    assert "Hardy : +10" in fever, fever
    assert "°R for the zone hit +1, when shooting" in shown and "Other names: Tir précis" in shown
