"""Armour on a sheet through the console (``python -m bot console --json``), as a French player and
in English: pieces named with their material, several at once, an impossible layering refused naming
both pieces, the sheet's PA and maluses, then the next fight applying them (dice typed by hand)."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

STATS = 'caracs:"CC:50 CT:40 F:35 E:40 Ag:70 Int:31 FM:29 Soc:33"'

FRENCH = f"""
@alice /perso creer nom:Albert {STATS}
@alice /perso equiper arme:"Epée, Bouclier" armure:"Calotte de cuir bouilli, Chemise de mailles"
@alice /perso equiper armure:"Plastron de cuir bouilli"
@alice /perso equiper armure:Chemise
@alice /perso equiper retirer:"Bouclier, Calotte de cuir bouilli" armure:"Chemise de mailles"
@alice /perso voir
/combat ouvrir nom:Duel
@alice /combat ajouter qui:Albert
/combat ajouter qui:Orque cc:50 ag:30
/combat round des:"Albert: 10 10 10; Orque: 1 1 1"
@alice /combat attaque cible:Orque jet:46
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:35 E:40 Ag:70 Int:31 FM:29 Soc:33"
@alice /character equip weapon:Sword armour:"Mail hauberk, Plate breastplate"
@alice /character equip armour:"Boiled leather breastplate"
@alice /character show
"""


def run(script: str, *args: str) -> list[dict[str, Any]]:
    return console_records(script, *args)


def description(record: dict[str, Any]) -> str:
    return "\n".join(e.get("description") or "" for e in record.get("embeds", []))


def field(record: dict[str, Any], name: str) -> str:
    return next(f["value"] for e in record["embeds"] for f in e.get("fields", []) if f["name"] == name)


def test_armour_on_the_sheet_and_in_the_next_fight_in_french() -> None:
    records = [r for r in run(FRENCH) if r.get("command")]
    by = {i: r for i, r in enumerate(records)}
    equipped, refused, ambiguous, changed, shown = (by[i] for i in range(1, 6))
    assert "**Ajout** : Epée, Bouclier, Calotte de cuir bouilli, Chemise de mailles" in description(equipped)
    assert "**PA** : Tête 1 · Bras 2 · Corps 2 · Jambes 0" in description(equipped)
    assert refused["result"]["error"] and description(refused) == (
        "« Plastron de cuir bouilli » et « Chemise de mailles » ne se superposent pas sur le corps : "
        "ces armures ne se cumulent pas. Rien n'a été changé."
    )
    assert "« Chemise » désigne plusieurs objets" in description(ambiguous)
    text = description(changed)
    assert "**Retrait** : Bouclier, Calotte de cuir bouilli" in text
    assert "**Déjà équipé, sans changement** : Chemise de mailles" in text
    assert "**Malus** : Ag -5 · Initiative -5 · CC -5 · CT -5" in text
    assert field(shown, "Armes") == "Epée — dégâts BF · Vicelarde, Défensive"
    assert field(shown, "Armure").startswith(
        "Chemise de mailles\n**PA** : Tête 0 · Bras 2 · Corps 2 · Jambes 0"
    )
    fight = [r for r in records if r["command"].startswith("/combat")]
    round_text = description(next(r for r in fight if r["command"] == "/combat round"))
    assert "**Albert** : 10+10+10 + Ag 65 (70 -5 : armure) = **95**" in round_text
    attack = next(r for r in fight if r["command"] == "/combat attaque")
    assert "CC 50 · ajustement (50 − CC adverse) +0 · armure -5 = **45 %**" in description(attack)
    assert attack["result"]["attack"]["check"]["target"] == 45


def test_armour_on_the_sheet_in_english() -> None:
    records = [r for r in run(ENGLISH, "--locale", "en") if r.get("command")]
    equipped, refused, shown = records[1], records[2], records[3]
    text = description(equipped)
    assert "**Added**: Sword, Mail hauberk, Plate breastplate" in text
    assert "**AP**: Head 0 · Arms 2 · Body 4 · Legs 2 (½)" in text
    assert "**Penalties**: Ag -15 · Initiative -15 · WS -5 · BS -5" in text
    assert description(refused).startswith(
        "“Boiled leather breastplate” and “Mail hauberk” cannot be layered on the body"
    )
    assert field(shown, "Weapons") == "Sword — damage SB · Vicious, Defensive"
    assert "**Class**: medium (arms, legs), heavy (body)" in field(shown, "Armour")
