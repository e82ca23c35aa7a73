"""``/combat annuler`` played through the console (``python -m bot console --json``) by a GM and two
players, in French and in English: Gunther's player attacks his ally Élise by mistake (and confirms
the bot's question by mistake too) and takes it back; Élise's player may not undo it for him; the
undone attack's defence button is refused; the goblin is then attacked, takes the blow, and the GM
undoes both the blow and the attack; the tracker (``/combat voir``) shows the fight as it was before
them."""

from __future__ import annotations

from typing import Any

from .console_script import console_records

FRENCH = """
/combat ouvrir nom:Auberge
@alice /perso creer nom:Gunther caracs:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30"
@bob /perso creer nom:Élise caracs:"CC:35 CT:30 F:35 E:35 Ag:38 Int:30 FM:30 Soc:30"
@alice /combat ajouter qui:Gunther
@bob /combat ajouter qui:Élise
/combat ajouter qui:gobelin
/combat round des:"Gunther: 10 10 10; Élise: 5 5 5; Gobelin: 1 1 1"
/combat voir
@alice /combat attaque cible:Élise jet:20
@alice !click Confirmer
@bob /combat annuler
@alice /combat annuler
@bob !click Parer
@alice /combat attaque cible:Gobelin jet:20 degats:4 critique:30
!click Encaisser
@alice /combat annuler
/combat annuler nombre:2
/combat voir
"""

ENGLISH = """
/combat open name:Inn
@alice /character create name:Gunther stats:"CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30"
@bob /character create name:Elise stats:"CC:35 CT:30 F:35 E:35 Ag:38 Int:30 FM:30 Soc:30"
@alice /combat add who:Gunther
@bob /combat add who:Elise
/combat add who:goblin
/combat round dice:"Gunther: 10 10 10; Elise: 5 5 5; Goblin: 1 1 1"
/combat show
@alice /combat attack target:Elise roll:20
@alice !click Confirm
@bob /combat undo
@alice /combat undo
@bob !click Parry
@alice /combat attack target:Goblin roll:20 damage:4 critical:30
!click Take it
@alice /combat undo
/combat undo count:2
/combat show
"""


def _text(record: dict[str, Any]) -> str:
    return "\n".join(
        [e.get("title") or "" for e in record.get("embeds", []) if e.get("title")]
        + [e.get("description") or "" for e in record.get("embeds", [])]
        + [f"{f['name']}: {f['value']}" for e in record.get("embeds", []) for f in e.get("fields", [])]
    )


def _play(script: str, locale: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for r in console_records(script, locale=locale):
        # /combat ouvrir's answer is shown twice: in the channel and in the new thread
        same = records and (records[-1]["command"], records[-1]["user"]) == (r.get("command"), r.get("user"))
        if r.get("command") and not (same and _text(records[-1]) == _text(r)):
            records.append(r)
    # every line of the script got its answer, and none is empty
    assert len(records) == len([line for line in script.strip().splitlines() if line.strip()])
    assert all(_text(r).strip() for r in records), records
    return records


def test_an_undo_of_a_wrong_attack_in_french() -> None:
    r = _play(FRENCH, "fr")
    tracker_before = _text(r[7])
    asked, wrong, bob_undo, alice_undo, bob_click = r[8], r[9], r[10], r[11], r[12]
    assert asked["ephemeral"] and "Gunther attaque un allié : confirmer ?" in _text(asked)
    assert "Gunther → Élise" in _text(wrong) and not wrong["ephemeral"]
    assert bob_undo["ephemeral"] and bob_undo["embeds"][0]["description"] == (
        "Vous ne pouvez annuler que votre propre action, et seulement tant que c'est la dernière du "
        "combat : la dernière est l'attaque de Gunther sur Élise (action n° 5). Demandez au MJ."
    )
    assert not alice_undo["ephemeral"] and alice_undo["embeds"][0]["description"] == (
        "↩️ Annulé : l'attaque de Gunther sur Élise (action n° 5).\n▶ Au tour de **Gunther**."
    )
    assert alice_undo["result"]["undone"] == [5]
    assert bob_click["ephemeral"] and "Cette attaque a été annulée" in _text(bob_click)
    attack, blow, alice_late, gm_undo, tracker_after = r[13], r[14], r[15], r[16], r[17]
    assert "Gunther → Gobelin" in _text(attack) and "Gobelin encaisse" in _text(blow)
    # the blow was the GM's (he answered for the goblin): Gunther's player may not take it back
    assert alice_late["ephemeral"]
    assert "la dernière est la défense de Gobelin (action n° 7)" in _text(alice_late)
    assert _text(gm_undo).splitlines() == [
        "↩️ 2 actions annulées, de la plus récente à la plus ancienne :",
        "• la défense de Gobelin (action n° 7)",
        "• l'attaque de Gunther sur Gobelin (action n° 6)",
        "▶ Au tour de **Gunther**.",
    ]
    # the tracker shows the fight of before both attacks: same lines, same attacks left
    assert _text(tracker_after) == tracker_before


def test_an_undo_of_a_wrong_attack_in_english() -> None:
    r = _play(ENGLISH, "en")
    tracker_before = _text(r[7])
    assert "Gunther attacks an ally: confirm?" in _text(r[8]) and r[8]["ephemeral"]
    assert "You can only undo your own action" in _text(r[10]) and r[10]["ephemeral"]
    assert _text(r[11]) == "↩️ Undone: Gunther's attack on Elise (action no. 5).\n▶ **Gunther**'s turn."
    assert "This attack was undone" in _text(r[12])
    assert "the latest is Goblin's defence (action no. 7)" in _text(r[15])
    assert _text(r[16]).splitlines() == [
        "↩️ 2 actions undone, newest first:",
        "• Goblin's defence (action no. 7)",
        "• Gunther's attack on Goblin (action no. 6)",
        "▶ **Gunther**'s turn.",
    ]
    assert _text(r[17]) == tracker_before
