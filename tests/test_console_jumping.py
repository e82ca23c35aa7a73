"""``/saut`` (``/jump``) through the console, played by the GM and two players, in French and in
English: the long jump with and without a run-up, jumping down with the height table, light armour
reducing the fall, a player without a sheet refused in private (seed 000 l. 1716-1720, 1778-1815)."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

# Élise: Ag 45, BF 6 and M 4 on the sheet → (6 + 4)/2 = 5 m.
FRENCH = """
/perso creer nom:Gunnar caracs:"CC:40 CT:30 F:38 E:40 Ag:40 Int:30 FM:30 Soc:30"
/perso equiper armure:"Chemise de mailles"
@alice /perso creer nom:Élise caracs:"CC:40 CT:30 F:35 E:40 Ag:45 Int:30 FM:30 Soc:30"
@alice /perso equiper armure:"Plastron de cuir bouilli"
@alice /saut type:longueur jet:30
@alice /saut type:longueur jet:78 elan:non
@alice /saut type:hauteur hauteur:3 jet:70
@alice /saut type:hauteur hauteur:1,5
/saut type:hauteur hauteur:4,5 jet:50
@bob /saut type:longueur jet:20
"""
ENGLISH = """
@bob /character create name:Otto stats:"WS:40 BS:30 S:35 T:40 Ag:38 Int:30 WP:30 Fel:30"
@bob /jump type:longueur roll:50 run_up:false
@bob /jump type:hauteur height:2.5 roll:95
@alice /jump type:hauteur
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
        parts.append(str(embed.get("footer") or ""))
    return "\n".join(parts)


def _jumps(records: list[dict[str, Any]], command: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("command") == command]


def test_jumping_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    run_up, standing, fall, low, gm, bob = _jumps(records, "/saut")
    assert not run_up["ephemeral"] and run_up["result"]["distance"]["m"] == 5
    text = _text(run_up)
    assert "Saut en longueur d'Élise" in text and "(BF 6 + M 4) / 2 = 5 m" in text
    assert "Élise saute 5 m." in text and "4 m à 8 m de course" in text
    # 78 against 45: 3 °E → 0.5 + 1.5 = 2 m less, then halved: 1.5 m.
    assert standing["result"]["distance"]["m"] == 1.5
    assert "2 m de moins" in _text(standing) and "Élise saute 1,5 m." in _text(standing)
    # 3 m: +10 %, 70 against 55 fails; 3 damage, light boiled leather −1.
    assert fall["result"]["test"]["target"] == 55 and fall["result"]["damage"] == 2
    assert "Armure légère : −1." in _text(fall) and "Élise subit 2 points de dégâts" in _text(fall)
    assert low["result"]["landed"] and low["result"]["test"] is None
    # The GM's Gunnar in mail: 40 − 20 (4,5 m) − 5 (mail) = 15; 50 fails, 5 damage, no reduction.
    assert gm["result"]["test"]["target"] == 15 and gm["result"]["damage"] == 5
    assert "Saut de 4,5 m — Gunnar" in _text(gm) and "Armure : -5" in _text(gm)
    assert bob["ephemeral"] and "Pas de personnage actif" in _text(bob)


def test_jumping_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    standing, fall, refused = _jumps(records, "/jump")
    # (6 + 4)/2 = 5 m; 50 against 38: 1 °E, 1 m less, halved: 2 m.
    assert standing["result"]["distance"]["m"] == 2 and "Otto jumps 2 m." in _text(standing)
    assert "Otto's long jump" in _text(standing) and "No run-up: ½ round." in _text(standing)
    assert fall["result"]["damage"] == 3 and "A 2.5 m jump — Otto" in _text(fall)
    assert "Otto takes 3 damage points" in _text(fall)
    assert refused["ephemeral"] and "give the height in metres" in _text(refused)
