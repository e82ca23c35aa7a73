"""What a fight leaves on the sheet, scripted through the console (``python -m bot console --json``)
in French and in English, every die entered by hand: Grimli loses fingers, then an eye and dies when
his death timer runs out; a destiny point saves him; the end of the fight writes his wounds on the
sheet, which shows them; the infection test reads them."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
/combat ouvrir nom:Embuscade
@alice /perso creer nom:Élise caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:1"
@alice /combat ajouter qui:Élise
/combat ajouter qui:orque
/combat round des:"Orque: 10 10 10; Élise: 1 1 1"
/combat attaque attaquant:Orque cible:Élise zone:bras jet:5 degats:7 critique:5
!click Encaisser
/combat suivant
!click "Passer le tour d'Élise"
/combat round des:"Orque: 10 10 10; Élise: 1 1 1"
/combat attaque attaquant:Orque cible:Élise zone:tete jet:5 degats:10 critique:85 durees:2
!click Encaisser
/combat suivant
!click "Passer le tour d'Élise"
/combat corriger qui:Élise champ:PF valeur:1
@alice /destin contre:death personnage:Élise
/combat fin
@alice /perso voir personnage:Élise
@alice /infection test personnage:Élise jets:"20 95"
"""

ENGLISH = """
/combat open name:Ambush
@alice /character create name:Elise stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:1"
@alice /combat add who:Elise
/combat add who:orc
/combat round dice:"Orc: 10 10 10; Elise: 1 1 1"
/combat attack attacker:Orc target:Elise zone:bras roll:5 damage:7 critical:5
!click Take it
/combat next
!click "Skip Elise's turn"
/combat round dice:"Orc: 10 10 10; Elise: 1 1 1"
/combat attack attacker:Orc target:Elise zone:tete roll:5 damage:10 critical:85 durations:2
!click Take it
/combat next
!click "Skip Elise's turn"
@alice /fate against:death character:Elise
/combat end
@alice /character show character:Elise
"""


def records(script: str, *extra: str) -> list[dict[str, Any]]:
    found = console_records(script, *extra)
    assert_no_errors(found)
    return found


def last(found: list[dict[str, Any]], command: str) -> dict[str, Any]:
    return [r for r in found if r.get("command", "").startswith(command) and r.get("result")][-1]


def embed(record: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = record["embeds"][0]
    return first


def fields(record: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed(record).get("fields", [])}


def test_wounds_on_the_sheet_in_french() -> None:
    found = records(FRENCH)
    saved = last(found, "/destin")
    assert "Élise se relève dans le combat « Embuscade »" in embed(saved)["description"]
    end = last(found, "/combat fin")
    assert (
        "Inscrit sur la fiche d'Élise : bras : doigts perdus ; plaie ouverte au bras ; "
        "tête : œil perdu ; plaie ouverte à la tête ; 1 Point de Folie" in embed(end)["description"]
    )
    [written] = [line for line in embed(end)["description"].splitlines() if line.startswith("Inscrit")]
    assert "(s)" not in written  # the tracker's older « round(s) » are not ours
    sheet = fields(last(found, "/perso voir"))
    assert sheet["Blessures et séquelles"].splitlines() == [
        "**1** · bras (tranchantes 11, Embuscade) : doigts perdus ; plaie ouverte au bras",
        "**2** · tête (tranchantes 13, Embuscade) : œil perdu ; plaie ouverte à la tête",
    ]
    infection = last(found, "/infection")
    assert embed(infection)["title"] == "🩹 Infection — Élise (2 plaies ouvertes)"
    assert [w["critical"] for w in infection["result"]["wounds"]] == [11, 13]


def test_wounds_on_the_sheet_in_english() -> None:
    found = records(ENGLISH, "--locale", "en")
    saved = last(found, "/fate")
    assert "Elise gets back up in the fight “Ambush”" in embed(saved)["description"]
    end = last(found, "/combat end")
    assert (
        "Written on Elise's sheet: arms: fingers lost; open wound to the arm; "
        "head: eye lost; open wound to the head" in embed(end)["description"]
    )
    sheet = fields(last(found, "/character show"))
    assert sheet["Wounds and lasting effects"].splitlines()[1] == (
        "**2** · head (edged 13, Ambush): eye lost; open wound to the head"
    )
