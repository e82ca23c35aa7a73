"""A `d20` skirmish through the console (seed 003), every die entered by hand, in French and in
English: the javelin and the pistol follow the ranged procedure (MR band, d20 + weapon, penetration
against « Gilet 30/10/60 »), a dodged blade lets the attacker strike again, the defender who takes
the initiative acts before whoever was next, a botte is its own skill, a bare-handed Bagarre parry
at −5, a critical's second wound, a blunt fracture against the body's SR. The numbers are restated
here from the seed, independently of ``bot.rules``."""

from __future__ import annotations

from typing import Any

import pytest

from .console_script import answers, assert_no_errors, console_records

BODY = "FOR:12 CON:14 AGI:13 DEX:12"
THROWER_ARMS = "Javelot 14 +1 jet, Pistolet 15 +2 tir pen=25+1d10 choc=12, Épée 14 +3 tranchant par=13"
VEST = "Gilet 30/10/60"
GUARD_ARMS = "Épée 14 +3 tranchant par=13, Masse 12 +2 contondant"
SCRIPT = f"""
/config systeme systeme:d20 portee:canal
/combat ouvrir nom:Escarmouche
/combat ajouter qui:Lanceur caracs:"{BODY} BF:2 Esquive:11 Botte:16 SR:16" armes:"{THROWER_ARMS}" camp:Voleurs
/combat ajouter qui:Garde caracs:"{BODY} BF:2 Esquive:11 Bagarre:11" armes:"{GUARD_ARMS}" armure:"{VEST}"
/combat ajouter qui:Pugiliste caracs:"{BODY} BF:1 Esquive:11 Bagarre:12" camp:Lutteurs
/combat round des:"Lanceur: 15; Garde: 12; Pugiliste: 10"
/combat attaque cible:Pugiliste arme:Épée jet:10
/combat defense choix:esquiver jet:5
/combat attaque cible:Garde arme:Javelot jet:4 localisation:thorax degats:9 effets:3
/combat defense choix:encaisser
/combat attaque cible:Lanceur arme:Épée jet:10
/combat defense choix:parer jet:4
/combat attaque cible:Pugiliste arme:Épée speciale:botte jet:6
/combat defense choix:esquiver jet:3
/combat round des:"Lanceur: 15; Garde: 12; Pugiliste: 10"
!click Lancer le round 2
/combat attaque cible:Garde arme:Pistolet jet:8 localisation:tete degats:"7 8" effets:3
/combat attaque cible:Pugiliste arme:"mains nues" localisation:tete jet:6
/combat defense choix:parer jet:2
/combat attaque cible:Garde localisation:buste jet:15
/combat defense choix:encaisser
/combat round des:"Lanceur: 15; Garde: 12; Pugiliste: 10"
/combat attaque cible:Garde arme:Épée jet:1 degats:12
/combat defense choix:encaisser
/combat attaque cible:Lanceur arme:Masse jet:2 degats:7
/combat defense choix:encaisser
/combat fin
"""


def mr(score: int, roll: int) -> int:
    """Seed line 2-3: d20 ≤ score, MR = score − roll (a failure margin is roll − score)."""
    return score - roll


def band(margin: int) -> int | None:
    """Seed lines 146-148: MR ≥ 10 exact, 9-5 a d6, 4-0 a d20."""
    return None if margin >= 10 else 6 if margin >= 5 else 20


# the GM starts round 2 before the Pugiliste acted: the bot asks first, with a button in his language
START_ROUND_2 = {"fr": "!click Lancer le round 2", "en": "!click Start round 2"}


def run(locale: str) -> tuple[list[dict[str, Any]], list[str]]:
    records = console_records(SCRIPT.replace(START_ROUND_2["fr"], START_ROUND_2[locale]), locale=locale)
    assert_no_errors(records)
    fight = answers(records, ("/combat",))
    texts = ["\n".join(e.get("description") or "" for e in r.get("embeds") or []) for r in fight]
    return [r["result"] for r in fight], texts


def by_command(results: list[dict[str, Any]], texts: list[str]) -> list[tuple[dict[str, Any], str]]:
    """The attacks resolved (defence answers and the pistol shot resolved at once), in order."""
    return [(r, t) for r, t in zip(results, texts, strict=True) if "case" in r]


@pytest.mark.parametrize(
    ("locale", "turn", "critical", "fracture"),
    [
        ("fr", "▶ Au tour de **{}**", "Réussite critique : seconde blessure", "fracture"),
        ("en", "▶ **{}**'s turn", "Critical success: a second wound", "a fracture"),
    ],
)
def test_a_d20_skirmish_follows_the_seed(locale: str, turn: str, critical: str, fracture: str) -> None:
    results, texts = run(locale)
    resolved = by_command(results, texts)
    assert len(resolved) == 9
    dodge, javelin, parry, botte, pistol, brawl, _miss, crit, mace = resolved
    # l. 87: the Pugiliste dodges the sword (MR 14 − 10 = 4 < 11 − 5 = 6): no counter, the Lanceur
    # attacks again before the Garde, with the exchange's malus −(6 − 4)
    r, text = dodge
    assert r["exchange"]["initiative_to_defender"] is False and r["acts_next"] == "lanceur"
    assert r["exchange"]["attacker_malus"] == -(mr(11, 5) - mr(14, 10))
    assert text.rstrip().endswith(turn.format("Lanceur") + ".")
    # l. 100-102: the javelin: MR 14 − 2 − 4 = 8 → a d6 (typed 3); penetration BF 2 + 1 = 3 ≤ RP 30;
    # index d20 9 + 1 = 10
    r, text = javelin
    attack_mr = mr(14 - 2, 4)
    assert r["impact"]["die"] == band(attack_mr) == 6 and r["impact"]["zone_roll"] == 3
    assert r["blow"]["penetration"] == 2 + 1 and r["impact"]["damage_index"] == 9 + 1
    assert not r["armour"]["layers"][0]["pierced"]
    # l. 75: the Lanceur parries better (13 − 4 = 9 > 4): he takes the initiative, acting before
    # the Pugiliste who was next
    r, text = parry
    assert r["exchange"]["initiative_to_defender"] and r["acts_next"] == "lanceur"
    assert text.rstrip().endswith(turn.format("Lanceur") + ".")
    # l. 92-93: the botte uses the Botte skill 16 (not the sword's 14); the dodge is at −15
    r, _ = botte
    assert r["exchange"]["attack"]["target"] == 16
    assert r["exchange"]["defence"]["target"] == 11 - 15
    assert r["exchange"]["damage_index"] == mr(16, 6) + (3 - (11 - 15))
    # l. 115, 160-162: the pistol: 25 + 8 = 33 > RP 30 (pierced), shock 12 − RC 10 = 2; MR 7 → a d6;
    # index d20 7 + 2 = 9
    r, _ = pistol
    assert r["case"] == "undefended" and r["blow"]["penetration"] == 25 + 8 and r["blow"]["shock"] == 12
    assert r["armour"]["layers"][0]["pierced"] and r["armour"]["shock"] == 12 - 10
    assert r["impact"]["die"] == band(mr(15, 8)) and r["impact"]["damage_index"] == 7 + 2
    assert r["health"]["pc_lost"] == 2
    # l. 46: the bare-handed Pugiliste parries a brawl attack with Bagarre 12 − 5 and ripostes
    r, _ = brawl
    assert r["exchange"]["defence"]["target"] == 12 - 5 and r["acts_next"] == "pugiliste"
    # l. 85: the sword's critical (a 1): a second wound, d20 12 + 3 = index 15
    r, text = crit
    assert r["exchange"]["attack"]["roll"] == 1
    assert r["d20_critical"] == {
        "mode": "second_wound",
        "second_roll": 12,
        "second_index": 15,
        "extra_pv": None,
    }
    assert critical in text
    # l. 67-68: the mace: shock 2 + MR (12 − 5 − 2 = 5) + BF 2 + d20 7 = 16 ≥ the body's SR 16
    r, text = mace
    assert r["blow"]["shock"] == 2 + mr(12 - 5, 2) + 2 + 7 == 16
    assert r["armour"]["fracture"] is True and fracture in text


SKILL_SCRIPT = """
/config systeme systeme:d20 portee:canal
@alice /perso creer nom:Zed caracs:"FOR:12 CON:14 AGI:10 DEX:11 PER:13 INT:9 VOL:10 CHA:8"
@alice /perso modifier competences:"Escalade:8/3"
@alice /test competence:Escalade jet:5
"""


@pytest.mark.parametrize(("locale", "innate"), [("fr", "Inné"), ("en", "Innate")])
def test_a_d20_skill_test_names_the_innate_part(locale: str, innate: str) -> None:
    """Seed line 8: a skill is « l'Inné » + « l'Acquis »; the reply names the Inné in words, never by
    its catalogue key. Escalade 8 + 3 = 11, a 5 succeeds by 6."""
    records = console_records(SKILL_SCRIPT, locale=locale)
    [test] = [r for r in records if r.get("command", "").startswith("/test")]
    text = str([test.get("content"), test.get("embeds")])  # what Discord shows
    assert "checks.modifier" not in text
    assert f"{innate} : 8" in text or f"{innate}: 8" in text
    assert test["result"]["target"] == 8 + 3


PV_SCRIPT = f"""
/config systeme systeme:d20 portee:canal
/combat ouvrir nom:Duel
/combat ajouter qui:Bretteur caracs:"{BODY} BF:2 Esquive:11" armes:"Épée 14 +3 tranchant par=13"
/combat ajouter qui:Garde caracs:"{BODY} BF:2 Esquive:11" armes:"Épée 14 +3 tranchant par=13" camp:Garde
/combat round des:"Bretteur: 15; Garde: 10"
/combat attaque cible:Garde jet:4
/combat defense choix:encaisser
@alice !select "PV perdus (indice 13) — au MJ" 5
!select "PV perdus (indice 13) — au MJ" 6
!select "PV perdus (indice 13) — au MJ" 7
/combat voir
/combat fin
"""


def test_the_gm_picks_the_pv_a_hit_costs_without_a_table() -> None:
    """Seed lines 59-60: « Dégâts : Résultat à reporter sur la table des dégâts par localisation. » — a
    table the seed does not print: the hit's reply carries a menu of the PV lost, for the GM, once."""
    records = console_records(PV_SCRIPT)
    hit = next(r for r in records if r.get("command", "").startswith("/combat defense"))
    [menu] = hit["selects"]
    assert menu["options"] == [str(n) for n in range(1, 26)]
    picks = [r for r in records if r.get("command", "").startswith("!select")]
    player, gm, again = picks
    assert player["ephemeral"]  # only the GM reads the table
    assert gm["result"]["pv"] == 6 and gm["result"]["health"]["pv_lost"] == 6
    assert again["ephemeral"] and "déjà" in texts_of(again)
    # seed lines 266, 269: 6 PV lost ≤ Con 14 → 30 h of total rest; 7 PC → 7 min (on the tracker)
    [shown] = [r for r in records if r.get("command", "").startswith("/combat voir")]
    assert "6 PV en 30 h de repos total · 7 PC en 7 min" in str(shown["embeds"])


def texts_of(record: dict[str, Any]) -> str:
    return "\n".join(
        [record.get("content") or "", *(e.get("description") or "" for e in record.get("embeds") or [])]
    )
