"""Special actions that do not wound, played through the console (``python -m bot console --json``)
by a GM and two players, in French and in English, every die typed: a Coup assommant gets through
(no damage, F against E, stunned 4 rounds, counted down at the end of the round), a Désarmement
(opposed Ag, the weapon dropped), a Frappe de bouclier (opposed CC +10 %, its −20 % on the next
attack's parry, the shield's own A leaving Albert his slot to attack), a Manœuvrer (opposed CC,
pushed °R × 2 m, Ag +20 % not to fall)."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

FRENCH = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso modifier talents:"Coups assommants"
@alice /perso equiper arme:"Gourdin, Bouclier"
@bob /perso creer nom:Bruno caracs:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /perso modifier talents:Désarmement
@bob /perso equiper arme:Epée
/combat ouvrir nom:Duel
@alice /combat ajouter qui:Albert
@bob /combat ajouter qui:Bruno
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat ajouter qui:Gobelin cc:50 ag:30 camp:gobelins
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1; Gobelin: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:20 speciale:"Coup assommant" effets:"30 60" durees:4
!click Encaisser
@bob /combat posture posture:normale
@bob /combat attaque cible:Orque jet:20 speciale:Désarmement effets:"15 50"
!click Encaisser
/combat voir
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1; Gobelin: 2 2 2"
!click Lancer le round 2
/combat voir
@alice /combat posture posture:normale
@alice /combat attaque cible:Gobelin jet:25 speciale:"Frappe de bouclier" effets:48
@alice /combat attaque cible:Gobelin jet:20 degats:1 critique:5
/combat defense choix:parer jet:40 contrecoup:10
/combat round des:"Albert: 10 10 10; Bruno: 5 5 5; Orque: 1 1 1; Gobelin: 2 2 2"
!click Lancer le round 3
@alice /combat posture posture:normale
@alice /combat action action:manoeuvrer cible:Gobelin jet:15 jet_cible:40 des:62
"""

ENGLISH = """
@alice /character create name:Albert stats:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /character edit talents:"Coups assommants"
@alice /character equip weapon:"Gourdin, Bouclier"
@bob /character create name:Bruno stats:"CC:45 CT:40 F:40 E:40 Ag:45 Int:31 FM:29 Soc:33"
@bob /character edit talents:Désarmement
@bob /character equip weapon:Epée
/combat open name:Duel
@alice /combat add who:Albert
@bob /combat add who:Bruno
/combat add who:Orc ws:50 ag:30 side:orcs
/combat add who:Goblin ws:50 ag:30 side:goblins
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1; Goblin: 2 2 2"
@alice /combat posture posture:normale
@alice /combat attack target:Orc roll:20 special:"Stunning blow" effects:"30 60" durations:4
!click Take it
@bob /combat posture posture:normale
@bob /combat attack target:Orc roll:20 special:Disarm effects:"15 50"
!click Take it
/combat round dice:"Albert: 10 10 10; Bruno: 5 5 5; Orc: 1 1 1; Goblin: 2 2 2"
!click Start round 2
/combat show
@alice /combat posture posture:normale
@alice /combat action action:manoeuvrer target:Goblin roll:15 target_roll:40 dice:62
"""


def text(record: dict[str, Any]) -> str:
    return "\n".join(
        (e.get("title") or "")
        + "\n"
        + (e.get("description") or "")
        + "\n"
        + "\n".join(f["value"] for f in e.get("fields", []))
        for e in record.get("embeds", [])
    )


def by_command(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["command"], text(r)) for r in records if r.get("command")]


def test_special_actions_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    replies = by_command(records)
    stun = next(t for c, t in replies if c == "!click Encaisser")
    assert "Coup assommant : pas de dégâts, un test opposé à la place." in stun
    assert "Albert : F 45 · arme Assommante +10 = **55 %**" in stun
    assert "Orque : E 35 = **35 %**" in stun
    assert "Orque subit l'état « sonné » pendant 4 rounds." in stun
    assert "Dégâts" not in stun and "Critique" not in stun
    disarm = [t for c, t in replies if c == "!click Encaisser"][1]
    assert "Bruno : Ag 45 = **45 %**" in disarm and "Orque : Ag 30 = **30 %**" in disarm
    assert "Bruno désarme Orque." in disarm
    assert "Orque lâche son arme (" in disarm and "Dégâts" not in disarm
    before, after = [t for c, t in replies if c == "/combat voir"]
    assert "sonné · 4 round" in before and "sonné · 3 round" in after  # counted at the round's end
    bash = next(t for c, t in replies if c == "/combat attaque" and "Frappe de bouclier" in t)
    assert "▶ Au tour d'**Albert**." in bash  # the shield's own A: his slot stays for his attack
    assert "Albert : CC 50 · Frappe de bouclier +10 = **60 %**" in bash
    assert "Prochaine attaque contre Gobelin : -20 % pour la parer ou l'esquiver." in bash
    assert "Test de CC" not in bash  # not an attack
    parry = next(t for c, t in replies if c == "/combat defense")
    assert "frappe de bouclier subie -20" in parry
    manoeuvre = next(t for c, t in replies if c == "/combat action")
    assert "Albert repousse Gobelin de 6 m." in manoeuvre
    assert "Test d'Ag pour ne pas tomber : Ag 30 · manœuvre +20 = **50 %**" in manoeuvre
    assert "Gobelin tombe." in manoeuvre


def test_special_actions_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    replies = by_command(records)
    stun, disarm = [t for c, t in replies if c == "!click Take it"]
    assert "Stunning blow: no damage, an opposed test instead." in stun
    assert "Albert: S 45 · Stunning weapon +10 = **55 %**" in stun
    assert "Orc is stunned for 4 rounds." in stun
    assert "Bruno disarms Orc." in disarm
    tracker = next(t for c, t in replies if c == "/combat show")
    assert "stunned" in tracker
    manoeuvre = next(t for c, t in replies if c == "/combat action")
    assert "Albert pushes Goblin back 6 m." in manoeuvre
    assert "Ag test not to fall: Ag 30 · manoeuvre +20 = **50 %**" in manoeuvre


UNDO = """
@alice /perso creer nom:Albert caracs:"CC:50 CT:40 F:45 E:40 Ag:40 Int:31 FM:29 Soc:33"
@alice /perso modifier talents:"Coups assommants"
@alice /perso equiper arme:Gourdin
/combat ouvrir nom:Duel
@alice /combat ajouter qui:Albert
/combat ajouter qui:Orque cc:50 ag:30 camp:orques
/combat round des:"Albert: 10 10 10; Orque: 1 1 1"
@alice /combat posture posture:normale
@alice /combat attaque cible:Orque jet:20 speciale:"Coup assommant" effets:"30 60" durees:4
!click Encaisser
/combat annuler
/combat voir
/combat annuler
"""


def test_undoing_a_stunning_blow() -> None:
    """The stun is « la défense d'Orque » for /combat annuler: undone, the Orc is no longer stunned
    and the attack waits for his defence again; undone again, the attack itself."""
    records = console_records(UNDO)
    assert_no_errors(records)
    undone = [t for c, t in by_command(records) if c == "/combat annuler"]
    assert "Annulé : la défense d'Orque (action n° 6)." in undone[0]
    assert "Annulé : l'attaque d'Albert sur Orque (action n° 5)." in undone[1]
    tracker = next(t for c, t in by_command(records) if c == "/combat voir")
    assert "sonné" not in tracker and "Orque doit se défendre contre Albert" in tracker
