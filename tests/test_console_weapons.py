"""Issue #19's weapon rules through the console, a GM and two players, in French and in English.

The second weapon's A: Élise (épée and dague) attacks with her sword, her slot waits for the dagger's A,
and the dagger's attack is accepted (with the off hand's −20 CC); Grimli's quarterstaff (Double) gives
its A the same way; a third attack is refused; next round Élise keeps her dagger's A to parry
(« Garder l'A pour parer »)."""

from __future__ import annotations

from typing import Any

from .console_script import answers, console_records

DICE = "Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
SECOND_FR = f"""
/combat ouvrir nom:Embuscade
@alice /perso creer nom:Élise caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:epee main_gauche:dague
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:baton
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 caracs:E:30 armes:epee camp:Bandits
/combat round des:"{DICE}"
@alice /combat attaque cible:Bandit arme:epee jet:95
@alice /combat attaque cible:Bandit arme:dague jet:95
@bob /combat attaque cible:Bandit jet:95
@bob /combat attaque cible:Bandit jet:96
@bob /combat attaque cible:Bandit jet:95
/combat suivant
!click "Passer le tour de Bandit"
/combat round des:"{DICE}"
@alice /combat attaque cible:Bandit arme:epee jet:95
@alice !click "Garder l'A pour parer"
/combat fin
"""
SECOND_EN = f"""
/combat open name:Ambush
@alice /character create name:Élise stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:epee off_hand:dague
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:baton
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 stats:E:30 weapons:epee side:Bandits
/combat round dice:"{DICE}"
@alice /combat attack target:Bandit weapon:epee roll:95
@alice /combat attack target:Bandit weapon:dague roll:95
@bob /combat attack target:Bandit roll:95
@bob /combat attack target:Bandit roll:96
@bob /combat attack target:Bandit roll:95
/combat next
!click "Skip Bandit's turn"
/combat round dice:"{DICE}"
@alice /combat attack target:Bandit weapon:epee roll:95
@alice !click "Keep the A to parry"
/combat end
"""


def texts(records: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in records:
        if r.get("command"):
            parts = [str(e.get(k) or "") for e in r.get("embeds", []) for k in ("title", "description")]
            out.append("\n".join([*parts, str(r.get("error") or "")]))
    return out


def attacks(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["result"] for r in answers(records, ("/combat",)) if "attack" in (r.get("result") or {})]


def check_second_weapon(records: list[dict[str, Any]]) -> None:
    done = attacks(records)
    pairs = [(a["attacker"], a["target"]) for a in done]
    assert pairs == [("elise", "bandit")] * 2 + [("grimli", "bandit")] * 2 + [("elise", "bandit")]
    elise_sword, elise_dagger, grimli_1, grimli_2, _ = (a["attack"]["check"] for a in done)
    [kept] = [r["result"] for r in answers(records, ("!click",)) if "kept" in (r.get("result") or {})]
    assert kept["kept"] == "elise"
    assert elise_sword["target"] == 40  # CC 40, (50 − 50) = 0
    assert elise_dagger["target"] == 40 - 10 - 20  # the extra attack, the off hand (not Equilibrée)
    assert grimli_1["target"] == 35 and grimli_2["target"] == 35 - 10  # the staff is Equilibrée


def test_the_second_weapon_in_french() -> None:
    records = console_records(SECOND_FR, locale="fr")
    check_second_weapon(records)
    said = texts(records)
    joined = "\n".join(said)
    assert "⚔️ Élise → Bandit (Dague)" in joined
    assert "Élise a encore l'A de sa seconde arme, pour une attaque ou une feinte sur ce créneau" in joined
    assert "Grimli a encore l'A que donne son arme Double (Bâton)" in joined
    assert "main non directrice -20" in joined
    assert "Plus d'attaque disponible ce round." in said[-7]
    assert "Élise garde son A supplémentaire pour parer : son créneau passe." in said[-2]
    assert "Au tour de **Grimli**" in said[-2]
    assert "Ce n'est pas à" not in joined


def test_the_second_weapon_in_english() -> None:
    records = console_records(SECOND_EN, locale="en")
    check_second_weapon(records)
    joined = "\n".join(texts(records))
    assert "⚔️ Élise → Bandit (Dagger)" in joined
    assert "Élise still has the second weapon's A, for an attack or a feint in this slot" in joined
    assert "Grimli still has the extra A of the Double weapon (Quarterstaff)" in joined
    assert "Élise keeps the extra A to parry: the slot passes." in joined


POLEARMS_FR = """
/combat ouvrir nom:Pont
@alice /perso creer nom:Élise caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:hallebarde
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:"hache d'armes"
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 caracs:E:30 armes:epee camp:Bandits defense:manuel
/combat round des:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attaque cible:Bandit jet:20
@alice /combat attaque cible:Bandit arme:"Hallebarde (pique)" jet:20 degats:4 critique:80 effets:33
/combat defense choix:encaisser
@bob /combat attaque cible:Bandit arme:"Hache d'armes (marteau)" jet:95
/combat fin
"""
POLEARMS_EN = """
/combat open name:Bridge
@alice /character create name:Élise stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:hallebarde
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:"hache d'armes"
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 stats:E:30 weapons:epee side:Bandits defence:manuel
/combat round dice:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attack target:Bandit roll:20
@alice /combat attack target:Bandit weapon:"Halberd (pike)" roll:20 damage:4 critical:80 effects:33
/combat defend choice:encaisser
@bob /combat attack target:Bandit weapon:"Poleaxe (hammer)" roll:95
/combat end
"""


def check_polearms(records: list[dict[str, Any]]) -> None:
    done = attacks(records)
    requests = [a for a in done if "attack" in a]
    assert [a["attacker"] for a in requests] == ["elise", "grimli"]
    [hit] = [r["result"] for r in answers(records, ("/combat",)) if "damage" in (r.get("result") or {})]
    # the pike's profile: BF − 1 (the long axe would be BF + 2), the die 4, BF 6, the bandit's BE 6
    assert hit["damage"]["total"] == 4 + 6 - 1 - 6


def test_the_polearms_profiles_in_french() -> None:
    records = console_records(POLEARMS_FR, locale="fr")
    check_polearms(records)
    joined = "\n".join(texts(records))
    assert (
        "Précisez le profil de l'arme Hallebarde : « Hallebarde (hache) » ou « Hallebarde (pique) » "
        "(option `arme:`)." in joined
    )
    assert "⚔️ Élise → Bandit · Hallebarde (pique)" in joined
    assert "⚔️ Grimli → Bandit · Hache d’armes (marteau)" in joined
    assert "hallebarde_armes_d_hast" not in joined and "hache_de_bataille_longue" not in joined


def test_the_polearms_profiles_in_english() -> None:
    records = console_records(POLEARMS_EN, locale="en")
    check_polearms(records)
    joined = "\n".join(texts(records))
    assert "Say which profile of the Halberd: « Halberd (axe) » or « Halberd (pike) »" in joined
    assert "⚔️ Élise → Bandit · Halberd (pike)" in joined
    assert "⚔️ Grimli → Bandit · Poleaxe (hammer)" in joined


AIM_FR = """
/combat ouvrir nom:Colline
@alice /perso creer nom:Élise caracs:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:"arc court"
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:epee
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 caracs:E:30 armes:epee camp:Bandits
/combat round des:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attaque cible:Bandit distance:46 jet:10
@alice /combat action action:viser visee:precision
@bob /combat attaque cible:Bandit jet:95
/combat suivant
!click "Passer le tour de Bandit"
/combat round des:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attaque cible:Bandit distance:46 jet:95
/combat fin
"""
AIM_EN = """
/combat open name:Hill
@alice /character create name:Élise stats:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:"arc court"
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:epee
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 stats:E:30 weapons:epee side:Bandits
/combat round dice:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attack target:Bandit distance:46 roll:10
@alice /combat action action:viser aim:precision
@bob /combat attack target:Bandit roll:95
/combat next
!click "Skip Bandit's turn"
/combat round dice:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attack target:Bandit distance:46 roll:95
/combat end
"""


def check_aim(records: list[dict[str, Any]]) -> None:
    [shot] = [a for a in attacks(records) if a["attacker"] == "elise"]
    # round 2: CT 40, the aim of round 1 +10, beyond long range (36 m) −30
    assert shot["attack"]["check"]["target"] == 40 + 10 - 30
    assert shot["attack"]["range_band"] == "hors_portee"


def test_an_aim_lasts_into_the_next_round_in_french() -> None:
    records = console_records(AIM_FR, locale="fr")
    check_aim(records)
    said = texts(records)
    assert "Au-delà de la portée longue, il faut viser d'abord." in said[9]
    assert "visée (précision) +10 · portée > max -30 = **20 %**" in "\n".join(said)


def test_an_aim_lasts_into_the_next_round_in_english() -> None:
    records = console_records(AIM_EN, locale="en")
    check_aim(records)
    assert "Beyond long range you must aim first." in texts(records)[9]


NET_DICE = "Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
NET_FR = f"""
/combat ouvrir nom:Arène
@alice /perso creer nom:Élise caracs:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:filet
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:epee
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 ag:40 caracs:E:30 armes:epee camp:Bandits defense:manuel
/combat round des:"{NET_DICE}"
@alice /combat attaque cible:Bandit distance:4 jet:10
/combat defense choix:encaisser
@bob /combat attaque cible:Bandit jet:95
/combat round des:"{NET_DICE}"
@alice /combat attaque cible:Bandit distance:4 jet:95
@bob /combat attaque cible:Bandit jet:95
/combat attaque cible:Grimli jet:20
/combat action action:se_liberer jet:60
/combat round des:"{NET_DICE}"
@alice /combat attaque cible:Bandit distance:4 jet:95
@bob /combat attaque cible:Bandit jet:95
/combat action action:se_liberer jet:10
/combat fin
"""
NET_EN = f"""
/combat open name:Arena
@alice /character create name:Élise stats:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:filet
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:epee
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 ag:40 stats:E:30 weapons:epee side:Bandits defence:manuel
/combat round dice:"{NET_DICE}"
@alice /combat attack target:Bandit distance:4 roll:10
/combat defend choice:encaisser
@bob /combat attack target:Bandit roll:95
/combat round dice:"{NET_DICE}"
@alice /combat attack target:Bandit distance:4 roll:95
@bob /combat attack target:Bandit roll:95
/combat attack target:Grimli roll:20
/combat action action:se_liberer roll:60
/combat round dice:"{NET_DICE}"
@alice /combat attack target:Bandit distance:4 roll:95
@bob /combat attack target:Bandit roll:95
/combat action action:se_liberer roll:10
/combat end
"""


def check_net(records: list[dict[str, Any]]) -> None:
    done = [r["result"] for r in answers(records, ("/combat",)) if r.get("result")]
    [caught] = [r for r in done if "captured" in r]
    assert caught["captured"] == {"weapon": "filet", "escape": -10} and "damage" not in caught
    escapes = [r["capture"] for r in done if "capture" in r]
    # Ag 40, the net is Piégeant −10: 30 %; 60 fails, 10 frees
    assert [(e["escape"]["target"], e["escape"]["roll"], e["freed"]) for e in escapes] == [
        (30, 60, False),
        (30, 10, True),
    ]


def test_a_net_captures_in_french() -> None:
    records = console_records(NET_FR, locale="fr")
    check_net(records)
    joined = "\n".join(texts(records))
    assert (
        "Bandit est capturé (Filet) : il perd ce round, puis devra se libérer (test d'Ag -10) avant d'agir."
        in joined
    )
    assert "Bandit ne peut pas agir : son créneau passe." in joined
    assert "Capturé : il faut d'abord se libérer (/combat action action:se_liberer)." in joined
    assert "Bandit reste pris." in joined and "Bandit se libère." in joined
    assert "deals no damage" not in joined


def test_a_net_captures_in_english() -> None:
    records = console_records(NET_EN, locale="en")
    check_net(records)
    joined = "\n".join(texts(records))
    assert (
        "Bandit is caught (Net): loses this round, then must break free (Ag test -10) before acting."
        in joined
    )
    assert "Bandit is still caught." in joined and "Bandit breaks free." in joined


JAM_DICE = "Élise: 20 20 20; Grimli: 10 10 10; Brute: 1 1 1"
JAM_FR = f"""
/combat ouvrir nom:Mine
@alice /perso creer nom:Élise caracs:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:arquebuse
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:epee
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Brute cc:50 f:35 be:2 caracs:E:20 armes:morgenstern camp:Brutes
/combat round des:"{JAM_DICE}"
@alice /combat attaque cible:Brute distance:10 jet:97
@bob /combat attaque cible:Brute jet:95
/combat attaque cible:Grimli jet:20 degats:"2 4" critique:10 effets:90
@bob /combat defense choix:encaisser
/combat round des:"{JAM_DICE}"
@alice /combat attaque cible:Brute distance:10 jet:20
@alice /combat action action:recharger
@alice /combat attaque cible:Brute distance:10 jet:95
/combat attaque cible:Grimli jet:20 degats:"2 4" critique:10 effets:90
@bob /combat defense choix:encaisser
/combat fin
"""
JAM_EN = f"""
/combat open name:Mine
@alice /character create name:Élise stats:"CC:40 CT:40 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:arquebuse
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:epee
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Brute ws:50 s:35 tb:2 stats:E:20 weapons:morgenstern side:Brutes
/combat round dice:"{JAM_DICE}"
@alice /combat attack target:Brute distance:10 roll:97
@bob /combat attack target:Brute roll:95
/combat attack target:Grimli roll:20 damage:"2 4" critical:10 effects:90
@bob /combat defend choice:encaisser
/combat round dice:"{JAM_DICE}"
@alice /combat attack target:Brute distance:10 roll:20
@alice /combat action action:recharger
@alice /combat attack target:Brute distance:10 roll:95
/combat attack target:Grimli roll:20 damage:"2 4" critical:10 effects:90
@bob /combat defend choice:encaisser
/combat end
"""


def check_jam(records: list[dict[str, Any]]) -> None:
    dice = [
        r["result"]["damage_die"]
        for r in answers(records, ("/combat",))
        if "damage_die" in (r.get("result") or {})
    ]
    # round 1: Percutante, 2d10 keep the best (2, 4 → 4); round 2: BE 2 / 2 = 1 round, one d10 (2)
    assert [(d["expression"], d["kept"]) for d in dice] == [("2d10kh1", 4), ("1d10", 2)]


def test_an_arquebus_jams_and_the_morgenstern_tires_in_french() -> None:
    records = console_records(JAM_FR, locale="fr")
    check_jam(records)
    joined = "\n".join(texts(records))
    assert (
        "Peu fiable (96-98) : l'arme d'Élise (Arquebuse) s'enraye ; il faut la désenrayer avant de tirer à "
        "nouveau (recharger : /combat action action:recharger)." in joined
    )
    assert "L'arme d'Élise (Arquebuse) est enrayée ou coincée : il faut d'abord la dégager" in joined
    assert "L'arme d'Élise (Arquebuse) est de nouveau utilisable." in joined
    assert "Épuisante (Morgenstern) : Percutante ne joue plus après le round 1 (BE 2 / 2" in joined


def test_an_arquebus_jams_and_the_morgenstern_tires_in_english() -> None:
    records = console_records(JAM_EN, locale="en")
    check_jam(records)
    joined = "\n".join(texts(records))
    assert "Unreliable (96-98): Élise's Handgun jams; clear it before shooting again" in joined
    assert "Tiring (Morning star): Impact stops working after round 1 (TB 2 / 2, rounded down)" in joined


TALENTS_FR = """
/combat ouvrir nom:Cour
@alice /perso creer nom:Élise caracs:"CC:40 CT:40 F:35 E:40 Ag:55 Int:31 FM:29 Soc:33"
@alice /perso modifier talents:"COMBATTANT VIREVOLTANT, coups precis"
@alice /perso equiper arme:rapiere
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:epee
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 caracs:E:30 armes:epee camp:Bandits defense:manuel
/combat round des:"Élise: 20 20 20; Grimli: 10 10 10; Bandit: 1 1 1"
@alice /combat attaque cible:Bandit jet:25 degats:5 critique:10 effets:90
/combat defense choix:encaisser
/combat fin
"""
TALENTS_EN = """
/combat open name:Yard
@alice /character create name:Élise stats:"CC:40 CT:40 F:35 E:40 Ag:55 Int:31 FM:29 Soc:33"
@alice /character edit talents:"whirling fighter, STRIKE TO INJURE"
@alice /character equip weapon:rapiere
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:epee
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 stats:E:30 weapons:epee side:Bandits defence:manuel
/combat round dice:"Élise: 20 20 20; Grimli: 10 10 10; Bandit: 1 1 1"
@alice /combat attack target:Bandit roll:25 damage:5 critical:10 effects:90
/combat defend choice:encaisser
/combat end
"""


def check_talents(records: list[dict[str, Any]]) -> None:
    [attack] = attacks(records)
    # CC 40 against 50: 40 %; 25 → 1 °R, Coups précis +1 → 2: the arm is reachable
    assert attack["attack"]["location_degrees"] == 2 and attack["attack"]["zone"] == "bras"
    [hit] = [r["result"] for r in answers(records, ("/combat",)) if "damage" in (r.get("result") or {})]
    # die 5 + BA 8 (Ag 55 → 5, +3) − 1 (rapier) − BE 6 + 1 (Vicelarde, no armour)
    assert hit["damage"]["total"] == 5 + 8 - 1 - 6 + 1


def test_talents_by_name_in_french() -> None:
    records = console_records(TALENTS_FR, locale="fr")
    check_talents(records)
    joined = "\n".join(texts(records))  # « COMBATTANT VIREVOLTANT, coups precis » were recognised
    assert "Coups précis +1 = **2**" in joined
    assert "dé 5 · BA 8 · Rapière/Sabre -1" in joined


def test_talents_by_name_in_english() -> None:
    records = console_records(TALENTS_EN, locale="en")
    check_talents(records)
    assert "AB 8" in "\n".join(texts(records))


BOW_FR = """
/combat ouvrir nom:Haie
@alice /perso creer nom:Élise caracs:"CC:40 CT:40 F:15 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:"arc court"
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:25 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:"arc court"
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:Bandit cc:50 f:35 caracs:E:30 armes:epee camp:Bandits
/combat round des:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attaque cible:Bandit distance:10 jet:95
/combat suivant
!click "Passer le tour d'Élise"
@bob /combat action action:viser visee:precision
@bob /combat attaque cible:Bandit distance:10 jet:95
/combat fin
"""
BOW_EN = """
/combat open name:Hedge
@alice /character create name:Élise stats:"CC:40 CT:40 F:15 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:"arc court"
@bob /character create name:Grimli stats:"CC:35 CT:30 F:25 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:"arc court"
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:Bandit ws:50 s:35 stats:E:30 weapons:epee side:Bandits
/combat round dice:"Élise: 20 20 20; Grimli: 15 15 15; Bandit: 1 1 1"
@alice /combat attack target:Bandit distance:10 roll:95
/combat next
!click "Skip Élise's turn"
@bob /combat action action:viser aim:precision
@bob /combat attack target:Bandit distance:10 roll:95
/combat end
"""


def test_a_bow_asks_for_its_bf_in_french() -> None:
    records = console_records(BOW_FR, locale="fr")
    assert [a["attacker"] for a in attacks(records)] == ["grimli"]  # Élise (BF 4) could not draw
    joined = "\n".join(texts(records))
    assert (
        "Élise n'a pas la force de bander cet arc (Arc court) : il faut un BF d'au moins 5 (BF 4)." in joined
    )
    assert "Viser avec cet arc (Arc court) demande un BF supérieur à 5 : Grimli a BF 5." in joined


def test_a_bow_asks_for_its_bf_in_english() -> None:
    records = console_records(BOW_EN, locale="en")
    assert [a["attacker"] for a in attacks(records)] == ["grimli"]
    joined = "\n".join(texts(records))
    assert "Élise lacks the strength to draw this bow (Short bow): it takes SB 5 or more (SB 4)." in joined
    assert "Aiming with this bow (Short bow) takes an SB above 5: Grimli has SB 5." in joined
