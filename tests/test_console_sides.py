"""Sides and NPCs that defend by themselves through the console, a GM and two players, in French and
in English: Grimli's attack on his ally Élise asks first and is cancelled (nothing spent), the bandits
(``defense_pnj:auto``) parry by themselves at their best chance, the GM on Élise's turn is asked who
acts (a select menu without the target), and the guard, defended by hand, gets « Défense auto »."""

from __future__ import annotations

from typing import Any

from .console_script import answers, assert_no_errors, console_records

DICE = "Grimli: 20 20 20; Bandit 1: 15 15 15; Élise: 10 10 10; Bandit 2: 5 5 5; Garde: 1 1 1"
FRENCH = f"""
/combat ouvrir nom:Embuscade defense_pnj:auto
@alice /perso creer nom:Élise caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:epee
@bob /perso creer nom:Grimli caracs:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /perso equiper arme:epee
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:"2 bandits" cc:50 f:35 caracs:E:30 armes:epee camp:Bandits
/combat ajouter qui:Garde cc:30 f:35 ag:60 armes:epee caracs:"E:30 Esquive:20" camp:Garde defense:manuel
/combat round des:"{DICE}"
@bob /combat attaque cible:Élise jet:20
@bob !click Annuler
@bob /combat attaque cible:"Bandit 1" jet:5 degats:3
/combat attaque cible:"Bandit 2" jet:5 degats:2
/combat action action:viser visee:precision
!select "Qui agit ?" "Élise"
/combat attaque cible:Grimli jet:95
/combat round des:"{DICE}"
@bob /combat attaque cible:Garde jet:5 degats:2
!click "Défense auto"
/combat fin
"""
ENGLISH = f"""
/combat open name:Ambush npc_defence:auto
@alice /character create name:Élise stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:31 FM:29 Soc:33"
@alice /character equip weapon:epee
@bob /character create name:Grimli stats:"CC:35 CT:30 F:40 E:45 Ag:30 Int:28 FM:33 Soc:25"
@bob /character equip weapon:epee
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:"2 bandits" ws:50 s:35 stats:E:30 weapons:epee side:Bandits
/combat add who:Garde ws:30 s:35 ag:60 weapons:epee stats:"E:30 Esquive:20" side:Guard defence:manuel
/combat round dice:"{DICE}"
@bob /combat attack target:Élise roll:20
@bob !click Cancel
@bob /combat attack target:"Bandit 1" roll:5 damage:3
/combat attack target:"Bandit 2" roll:5 damage:2
/combat action action:viser aim:precision
!select "Who acts?" "Élise"
/combat attack target:Grimli roll:95
/combat round dice:"{DICE}"
@bob /combat attack target:Garde roll:5 damage:2
!click "Auto defence"
/combat end
"""


def texts(records: list[dict[str, Any]]) -> list[str]:
    return [
        "\n".join(str(e.get(k) or "") for e in r.get("embeds", []) for k in ("title", "description"))
        for r in records
        if r.get("command")
    ]


def replies(script: str, locale: str) -> tuple[list[dict[str, Any]], list[str]]:
    records = console_records(script, locale=locale)
    assert_no_errors(records)
    return records, texts(records)


def results(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["result"] for r in answers(records, ("/combat", "!click", "!select"))]


def check_flow(records: list[dict[str, Any]]) -> None:
    """What both languages share: the results."""
    done = results(records)
    [ask, actor] = [r for r in done if r.get("kind") in ("attack", "actor") and "ask" in r]
    assert ask["kind"] == "attack" and ask["target"] == "elise"
    assert actor["kind"] == "actor" and actor["choices"] == ["elise", "bandit-1", "garde"]
    [cancelled] = [r for r in done if set(r) == {"fight_id", "ask"}]
    assert cancelled["ask"] == ask["ask"]
    attacks = [r for r in done if "attack" in r and "attacker" in r]
    assert [(a["attacker"], a["target"]) for a in attacks] == [
        ("grimli", "bandit-1"),
        ("elise", "bandit-2"),
        ("garde", "grimli"),
        ("grimli", "garde"),
    ]
    # the bandits parried by themselves, each at his best chance; the guard waited for the GM
    for a in attacks[:2]:
        auto = a["auto_defence"]
        assert auto["choice"] == "parer" and auto["chances"]["parer"] == max(auto["chances"].values())
        assert a["pending"] is False
    assert attacks[3]["pending"] and "auto_defence" not in attacks[3]
    [guard] = [r for r in done if "choice" in r and "seq" in r]
    assert guard["choice"] == "esquiver" and guard["auto_defence"]["chances"]["esquiver"] == 80
    assert guard["defence"]["check"]["target"] == 80


def test_sides_and_npc_defence_in_french() -> None:
    records, said = replies(FRENCH, "fr")
    check_flow(records)
    joined = "\n".join(said)
    assert "Camp : Bandits" in joined and "Camp : PJ" in joined
    assert "Défense : à la main (boutons)" in joined
    assert "⚠️ Grimli attaque un allié : confirmer ?\nÉlise est du même camp (PJ)." in joined
    assert "Attaque annulée : rien n'a changé." in joined
    assert "🤖 Bandit 1, défense automatique : parer (75 %, la meilleure chance)." in joined
    assert "C'est le tour du PJ Élise. Qui attaque Bandit 2 ?" in joined
    assert "C'est le tour du PJ Élise : précisez qui agit (`qui:` ou `attaquant:`)" in joined
    assert "🤖 Garde, défense automatique : esquiver (80 %, la meilleure chance)." in joined
    mine = [line for t in said for line in t.splitlines() if line.startswith(("🤖", "Camp", "⚠️"))]
    assert len(mine) >= 6 and not [line for line in mine if "(s)" in line or " de É" in line]


def test_sides_and_npc_defence_in_english() -> None:
    records, said = replies(ENGLISH, "en")
    check_flow(records)
    joined = "\n".join(said)
    assert "Side: Bandits" in joined and "Side: PC" in joined and "Side: Guard" in joined
    assert "⚠️ Grimli attacks an ally: confirm?\nÉlise is on the same side (PC)." in joined
    assert "Attack cancelled: nothing changed." in joined
    assert "🤖 Bandit 1, automatic defence: parry (75%, the best chance)." in joined
    assert "It is PC Élise's turn. Who attacks Bandit 2?" in joined
    assert "🤖 Garde, automatic defence: dodge (80%, the best chance)." in joined
