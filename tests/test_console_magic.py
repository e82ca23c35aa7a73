"""Magic through the console (``python -m bot console --json``), a GM and two players, in French and
in English: ``/sort`` outside a fight (the chaos die not added, a double a curse of Tzeentch, all 1s
failing the spell and a failed FM test writing a Point de Folie on the sheet), then in a fight's
thread (two ½-round spells on one A, a full-round spell on two, refused out of turn), and a
critical to a mage's voice (one more chaos die, FM maluses as the fight's option, no more spells)."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

ELISE = "CC:45 CT:30 F:35 E:45 Ag:40 Int:31 FM:29 Soc:33 Mag:2 PD:1"
GRIMLI = "CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33 A:2 Mag:1 PD:2"
FRENCH = f"""
@alice /perso creer nom:Élise caracs:"{ELISE}"
@bob /perso creer nom:Grimli caracs:"{GRIMLI}"
@alice /sort magie:2 difficulte:9 des:"3 3 5"
@alice /sort difficulte:9 des:"1 1 4" jet_fm:80
@bob /sort difficulte:5 des:"2 2"
@alice /sort difficulte:9 des:"3 3"
/combat ouvrir nom:Sortilèges malus_fm_mages:true
!in Sortilèges
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:"1 gobelin"
/combat round des:"Élise: 20 20 20; Grimli: 10 10 10; Gobelin: 1 1 1"
@bob /sort difficulte:5 des:"3 4"
@alice /sort difficulte:9 des:"3 3 5" nom:"Boule de feu"
@alice /sort difficulte:3 des:"2 4 6"
@bob /sort difficulte:5 duree:full des:"3 4"
/combat round des:"Gobelin: 20 20 20; Élise: 10 10 10; Grimli: 1 1 1"
/combat attaque cible:Élise jet:1 critique:65 effets:80 durees:"2 2 2"
@alice /sort difficulte:5 des:"3 4 5 6"
!pins Sortilèges
@alice /perso voir
"""
ENGLISH = f"""
@alice /character create name:Élise stats:"{ELISE}"
@bob /character create name:Grimli stats:"{GRIMLI}"
@alice /cast magic:2 difficulty:9 dice:"3 3 5"
@alice /cast difficulty:9 dice:"1 1 4" wp_roll:80
@bob /cast difficulty:5 dice:"2 2"
@alice /cast difficulty:9 dice:"3 3"
/combat open name:Spells mage_wp_maluses:true
!in Spells
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:"1 gobelin"
/combat round dice:"Élise: 20 20 20; Grimli: 10 10 10; Goblin: 1 1 1"
@bob /cast difficulty:5 dice:"3 4"
@alice /cast difficulty:9 dice:"3 3 5" spell:Fireball
@alice /cast difficulty:3 dice:"2 4 6"
@bob /cast difficulty:5 length:full dice:"3 4"
/combat round dice:"Goblin: 20 20 20; Élise: 10 10 10; Grimli: 1 1 1"
/combat attack target:Élise roll:1 critical:65 effects:80 durations:"2 2 2"
@alice /cast difficulty:5 dice:"3 4 5 6"
!pins Spells
@alice /character show
"""


def _text(record: dict[str, Any]) -> str:
    parts = [str(record.get("content") or "")]
    for embed in record.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    parts.append(str(record.get("error") or ""))
    return "\n".join(parts)


def _spells(records: list[dict[str, Any]], name: str) -> list[str]:
    return [_text(r) for r in records if str(r.get("command", "")).startswith(name)]


def _pins(records: list[dict[str, Any]]) -> str:
    return "\n".join(_text(r) for r in records if str(r.get("command", "")).startswith("!pins"))


def test_magic_as_a_french_table() -> None:
    records = console_records(FRENCH)
    (
        curse,
        ones,
        no_mag,
        short,
        out_of_turn,
        first_half,
        second_half,
        full,
        voiceless,
    ) = _spells(records, "/sort")
    assert "🔮 Élise lance un sort" in curse
    assert "Jet d'incantation : **3** + **3** = **6** contre une difficulté de **9** → échec" in curse
    assert "Dé du chaos : **5** (il ne s'ajoute pas au total)" in curse
    assert "Malédiction de Tzeentch : double de 3 → manifestation mineure du Chaos." in curse
    assert "Tous les dés d'incantation donnent 1 : le sort échoue." in ones
    assert "Test de FM contre la folie (29 %) : **80** → Échec (5 °E)" in ones
    assert "Élise gagne un point de folie, écrit sur sa fiche (PF : 1)." in ones
    assert "Grimli lance un sort" in no_mag  # Mag 1 on his sheet: one casting die and the chaos die
    assert "Il faut 3 dés entrés à la main : les 2 dés d'incantation d'abord, puis le dé du chaos" in short
    assert "Pas maintenant : Grimli ne lance un sort que pendant son tour." in out_of_turn
    assert "🔮 Élise lance « Boule de feu »" in first_half
    assert "Sort d'½ round : première moitié du round pour Élise (attaques : 1 sur 1)." in first_half
    assert "Élise garde la main pour un second sort d'½ round" in first_half
    assert "seconde moitié du round pour Élise" in second_half and "Au tour de **Grimli**" in second_half
    assert "Sort d'un round complet : tout le round pour Grimli (attaques : 2 sur 2)." in full
    assert "Élise ne peut plus lancer de sort : un coup critique a atteint sa voix." in voiceless
    [hit] = _spells(records, "/combat attaque")
    assert "entaille la langue et s'enfonce dans la gorge" in hit
    assert "Élise lancera désormais ses sorts avec 2 dés du chaos" in hit
    assert "Le critique atteint la voix : Élise ne peut plus lancer de sort de tout le combat." in hit
    assert "Malus de FM contre les mages : −30 % en FM pour Élise" in hit
    pins = _pins(records)
    assert "sorts : tout le round" in pins and "🔮 2 dés du chaos · sans voix : plus de sort" in pins
    assert "FM -30" in pins
    [sheet] = _spells(records, "/perso voir")
    assert "Mag 2 · PF 1" in sheet
    for text in (curse, ones, first_half, second_half, full):
        assert "(s)" not in text and "magic." not in text, text


def test_magic_as_an_english_table() -> None:
    records = console_records(ENGLISH, locale="en")
    curse, ones, _, short, out_of_turn, first_half, second_half, full, voiceless = _spells(records, "/cast")
    assert "Casting roll: **3** + **3** = **6** against a difficulty of **9** → failure" in curse
    assert "Chaos die: **5** (not added to the total)" in curse
    assert "Tzeentch's Curse: a double 3 → Minor Chaos Manifestation." in curse
    assert "Every casting die shows 1: the spell fails." in ones
    assert "Élise gains an Insanity Point, written on the sheet (IP: 1)." in ones
    assert "3 dice are needed by hand: the 2 casting dice first, then the chaos die last" in short
    assert "Not now: Grimli casts only on their own turn." in out_of_turn
    assert "🔮 Élise casts “Fireball”" in first_half
    assert "Half-round spell: the first half of Élise's round (attacks: 1 of 1)." in first_half
    assert "the second half of Élise's round" in second_half
    assert "Full-round spell: all of Grimli's round (attacks: 2 of 2)." in full
    assert "Élise can cast no more spells: a critical hit reached the voice." in voiceless
    [hit] = _spells(records, "/combat attack")
    assert "Against mages: Élise now casts with 2 chaos dice" in hit
    assert "The critical reaches the voice: Élise can cast no more spells this fight." in hit
    assert "voice lost: no spells" in _pins(records)
    for text in (curse, ones, first_half, full):
        assert "magic." not in text, text
