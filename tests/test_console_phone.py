"""A fight played from the phone through the console (issue 18): after the GM's setup, the players
and the GM act only with buttons and select menus (postures, the target select, the attack button
with the bot's dice, the defence buttons, « Suivant », « Nouveau round »), in French and in
English. The turn waits for each defence, the player whose turn comes is pinged, the GM's posture
button asks which NPC, and the tracker (``/combat voir``) names what the table waits for."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

DICE = "Élise: 15 12 10; Grimli: 10 10 10; Gobelin 1: 5 5 5; Gobelin 2: 4 4 4"
DICE_EN = DICE.replace("Gobelin", "Goblin")

FRENCH = f"""
/combat ouvrir nom:Embuscade
@alice /perso creer nom:Élise caracs:"CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
@alice /perso equiper arme:epee
@bob /perso creer nom:Grimli caracs:"CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33"
@bob /perso equiper arme:hache_pic
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
/combat ajouter qui:"2 gobelins"
/combat round des:"{DICE}"
@alice !click téméraire
@bob !click prudente
!click défensive
!select "Posture défensive pour…" "Gobelin 2"
/combat voir
@alice !select "Cible d'Élise…" "Gobelin 1"
@alice !click "⚔️ Epée"
@bob !select "Cible de Grimli…" "Gobelin 2"
@bob !click "⚔️ Hache/Pic"
/combat voir
!click Esquiver
!select "Cible de Gobelin 1…" Élise
!click "⚔️ Hache/Pic"
@alice !click Parer
/combat voir
!click "Nouveau round"
@bob !click téméraire
@bob !select "Cible de Grimli…" "Gobelin 1"
@bob !click "⚔️ Hache/Pic"
!click Suivant
!click "Passer le tour de Gobelin 1"
/combat voir
"""

ENGLISH = f"""
/combat open name:Ambush
@alice /character create name:Élise stats:"CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
@alice /character equip weapon:epee
@bob /character create name:Grimli stats:"CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33"
@bob /character equip weapon:hache_pic
@alice /combat add who:Élise
@bob /combat add who:Grimli
/combat add who:"2 goblins"
/combat round dice:"{DICE_EN}"
@alice !click reckless
@bob !click careful
!click defensive
!select "Posture defensive for…" "Goblin 2"
/combat show
@alice !select "Élise's target…" "Goblin 1"
@alice !click "⚔️ Sword"
@bob !select "Grimli's target…" "Goblin 2"
@bob !click "⚔️ Axe/Pick"
/combat show
!click Dodge
!select "Goblin 1's target…" Élise
!click "⚔️ Axe/Pick"
@alice !click Parry
/combat show
!click "New round"
@bob !click reckless
@bob !select "Grimli's target…" "Goblin 1"
@bob !click "⚔️ Axe/Pick"
!click Next
!click "Skip Goblin 1's turn"
/combat show
"""


def played(script: str, locale: str) -> list[dict[str, Any]]:
    records = console_records(script, locale=locale)
    assert_no_errors(records)
    return records


def by(records: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [r for r in records if r["command"].startswith(prefix)]


def text(record: dict[str, Any]) -> str:
    return "\n".join(e.get("description") or "" for e in record["embeds"])


def tracker_lines(record: dict[str, Any]) -> list[str]:
    return text(record).split("\n")


def only_buttons_after_the_round(script: str) -> None:
    lines = [line for line in script.strip().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.startswith("/combat round"))
    acts = [line for line in lines[start + 1 :] if not line.startswith(("/combat voir", "/combat show"))]
    bare = [line.split(" ", 1)[1] if line.startswith("@") else line for line in acts]
    assert bare and all(line.startswith(("!click", "!select")) for line in bare)


def check(records: list[dict[str, Any]], w: dict[str, str]) -> None:
    clicks = [r for r in records if r["command"].startswith(("!click", "!select"))]
    # no reply of the fight is empty
    assert clicks and all(text(r) or r.get("content") for r in clicks)
    rounds = by(records, "/combat round")
    assert rounds[0]["content"].startswith("<@") and rounds[0]["content"].endswith(w["elise_turn"])
    # the GM's posture button asked which NPC; only Gobelin 2 took it
    g1, g2 = w["g1"], w["g2"]
    [which] = [r for r in clicks if r["ephemeral"] and r["selects"] and g2 in r["selects"][0]["options"]]
    picked = next(
        r for r in clicks if r["command"].startswith("!select") and r["result"] and "posture" in r["result"]
    )
    assert picked["result"]["combatants"] == [w["g2_id"]] and which["selects"][0]["options"] == [g1, g2]
    shows = by(records, w["show"])
    assert tracker_lines(shows[0])[0:2] == [f"**{w['wait_elise']}**", w["postures_goblin"]]
    fields = [f["name"] for f in shows[0]["embeds"][0]["fields"][1:]]
    assert fields == [
        f"▶ Élise · {w['pc']}",
        f"Grimli · {w['pc']}",
        f"{g1} · {w['npc']}",
        f"{g2} · {w['npc']}",
    ]
    # Élise's attack (the bot's dice, a miss) passes the turn: Bob is pinged
    attacks = [r for r in clicks if r["result"] and "attack" in r["result"] and "seq" in r["result"]]
    miss, grimli_hit, goblin_hit = attacks[:3]
    assert not miss["result"]["attack"]["hit"] and miss["content"].endswith(w["grimli_turn"])
    # Grimli's hit waits for the goblin's defence: no turn line, no ping; the tracker says who defends
    assert grimli_hit["result"]["pending"] and grimli_hit["content"] is None
    assert text(grimli_hit).endswith(w["held_goblin_2"])
    seq = grimli_hit["result"]["seq"]
    assert tracker_lines(shows[1])[0] == "**⏳ " + w["defends"].format(seq=seq) + "**"
    # the GM's dodge resolves it, then the turn passes to Gobelin 1 (an NPC: nobody pinged)
    dodge = next(
        r for r in clicks if r["result"] and r["result"].get("seq") == seq and r["result"].get("choice")
    )
    assert text(dodge).endswith(w["goblin_1_turn"]) and dodge["content"] is None
    assert goblin_hit["result"]["pending"] and goblin_hit["user"] == "gm"
    # Élise's parry was the last action: the round is over
    assert tracker_lines(shows[2])[0] == "**" + w["round_over"] + "**"
    # « Suivant » asks first, naming who has not acted
    [asked] = [r for r in clicks if r["result"] and r["result"].get("not_acted") == [g1]]
    assert asked["ephemeral"] and asked["components"][0]["label"] == w["skip_goblin"]
    # the skip passes Gobelin 2 (a lost round) and Élise (her parry took this round's A): round over
    skipped = next(r for r in clicks if r["result"] and r["result"].get("skipped") == w["g1_id"])
    assert text(skipped).split("\n")[1:3] == [w["g2_skipped"], w["elise_skipped"]]
    assert tracker_lines(shows[3]) == ["**" + w["round_2_over"] + "**"]


def test_a_fight_from_the_phone_in_french() -> None:
    only_buttons_after_the_round(FRENCH)
    check(
        played(FRENCH, "fr"),
        {
            "show": "/combat voir",
            "g1": "Gobelin 1",
            "g2": "Gobelin 2",
            "g2_id": "gobelin-2",
            "elise_turn": "▶ Au tour d'Élise.",
            "grimli_turn": "▶ Au tour de Grimli.",
            "wait_elise": "⏳ Au tour d'Élise",
            "postures_goblin": "Postures à choisir : Gobelin 1",
            "pc": "PJ",
            "npc": "PNJ",
            "held_goblin_2": "⏳ En attente de la défense : Gobelin 2 — le tour passe ensuite.",
            "defends": "Gobelin 2 doit se défendre contre Grimli (attaque n° {seq})",
            "goblin_1_turn": "▶ Au tour de **Gobelin 1**.",
            "round_over": "Le round 1 est fini : le MJ lance le round 2",
            "skip_goblin": "Passer le tour de Gobelin 1",
            "g1_id": "gobelin-1",
            "g2_skipped": "Gobelin 2 ne peut pas agir : son créneau passe.",
            "elise_skipped": "Élise ne peut pas agir : son créneau passe.",
            "round_2_over": "Le round 2 est fini : le MJ lance le round 3",
        },
    )


def test_a_fight_from_the_phone_in_english() -> None:
    only_buttons_after_the_round(ENGLISH)
    check(
        played(ENGLISH, "en"),
        {
            "show": "/combat show",
            "g1": "Goblin 1",
            "g2": "Goblin 2",
            "g2_id": "goblin-2",
            "elise_turn": "▶ Élise's turn.",
            "grimli_turn": "▶ Grimli's turn.",
            "wait_elise": "⏳ Élise's turn",
            "postures_goblin": "Postures to choose: Goblin 1",
            "pc": "PC",
            "npc": "NPC",
            "held_goblin_2": "⏳ Waiting for the defence: Goblin 2 — then the turn passes.",
            "defends": "Goblin 2 must defend against Grimli (attack no. {seq})",
            "goblin_1_turn": "▶ **Goblin 1**'s turn.",
            "round_over": "Round 1 is over: the GM starts round 2",
            "skip_goblin": "Skip Goblin 1's turn",
            "g1_id": "goblin-1",
            "g2_skipped": "Goblin 2 cannot act: the slot is skipped.",
            "elise_skipped": "Élise cannot act: the slot is skipped.",
            "round_2_over": "Round 2 is over: the GM starts round 3",
        },
    )
