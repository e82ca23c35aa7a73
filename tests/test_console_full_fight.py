"""A whole fight as a French table plays it (issue 18), through the console: the GM and three players
(alice: Élise, bob: Grimli, carol: Gunther) against two bandits from the GM's bestiary (side
« Bandits ») and two goblins (side PNJ), four rounds, every die typed by hand. Grimli's attack on his
ally Gunther is cancelled, Gunther's attack on the wrong goblin is undone by his player, the GM skips
Grimli's turn (« Suivant » confirmed) and starts rounds 3 and 4 mid-round (confirmed), Bandit 1's
critical kills Élise and her player spends her last destiny point. After every step the pinned
tracker (``!pins``) is read: its first line says what the table waits for, and the fighters' lines
(initiative order, sides, postures, « Attaques : 1 sur 1 », the dead struck through). The bot's own
dice play no part: another seed gives the same fight. The same script runs in English."""

from __future__ import annotations

import re
from typing import Any

from .console_script import assert_no_errors, console_records

INIT = "Élise: 20 20 20; Grimli: 18 18 18; Gunther: 16 16 16; Bandit 1: 10 10 10; Bandit 2: 8 8 8; " + (
    "Gobelin 1: 5 5 5; Gobelin 2: 3 3 3"
)

FRENCH = """
/pnj enregistrer nom:Bandit cc:65 f:75 e:30 armes:Epée armure:"Chemise de mailles"
@alice /perso creer nom:Élise caracs:"CC:45 CT:30 F:35 E:25 Ag:40 Int:31 FM:29 Soc:33 PD:1"
@alice /perso equiper arme:epee
@bob /perso creer nom:Grimli caracs:"CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33 PD:2"
@bob /perso equiper arme:hache_pic
@carol /perso creer nom:Gunther caracs:"CC:42 CT:30 F:38 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:2"
@carol /perso equiper arme:epee
/combat ouvrir nom:Embuscade
@alice /combat ajouter qui:Élise
@bob /combat ajouter qui:Grimli
@carol /combat ajouter qui:Gunther
/combat ajouter qui:"2 Bandits" camp:Bandits
/combat ajouter qui:"2 gobelins"
!pins Embuscade
/combat round des:"{INIT}"
!pins Embuscade
@alice !click prudente
!pins Embuscade
@alice /combat attaque cible:"Gobelin 1" jet:20 degats:3
!pins Embuscade
/combat defense choix:parer jet:5 contrecoup:1
!pins Embuscade
@bob /combat attaque cible:Gunther jet:20
@bob !click Annuler
!pins Embuscade
@bob /combat attaque cible:"Bandit 1" jet:90
!pins Embuscade
@carol /combat attaque cible:"Gobelin 2" jet:10
!pins Embuscade
@carol /combat annuler
!pins Embuscade
@carol /combat attaque cible:"Gobelin 1" jet:10
!pins Embuscade
/combat defense choix:esquiver jet:5
!pins Embuscade
/combat attaque cible:Élise jet:30
@alice /combat defense choix:esquiver jet:5
!pins Embuscade
/combat attaque cible:Grimli jet:90
!pins Embuscade
/combat attaque cible:Gunther jet:90
!pins Embuscade
/combat round des:"{INIT}"
!pins Embuscade
@alice /combat attaque cible:"Gobelin 1" jet:95
!pins Embuscade
/combat suivant
!click "Passer le tour de Grimli"
!pins Embuscade
@carol /combat attaque cible:"Bandit 2" jet:95
!pins Embuscade
/combat attaque cible:Élise zone:tete jet:5 degats:10 critique:100
@alice !click Encaisser
!pins Embuscade
@alice !click "Dépenser un point de destin (Élise)"
!pins Embuscade
/combat round des:"{INIT}"
!click "Lancer le round 3"
!pins Embuscade
@alice /combat attaque cible:"Bandit 1" jet:10 degats:3
/combat defense choix:parer jet:5 contrecoup:1
!pins Embuscade
@bob /combat attaque cible:"Bandit 2" jet:90
!pins Embuscade
/combat attaque cible:"Gobelin 2" jet:10
!select "Qui agit ?" Gunther
!pins Embuscade
/combat defense choix:esquiver jet:5
!pins Embuscade
/combat round des:"{INIT}"
!click "Lancer le round 4"
!pins Embuscade
!click prudente
!select "Posture prudente pour…" "Gobelin 1"
!pins Embuscade
@alice /combat attaque cible:"Gobelin 2" jet:90
!pins Embuscade
@bob /combat attaque cible:"Bandit 1" jet:90
@carol /combat attaque cible:"Bandit 2" jet:90
/combat attaque cible:Grimli jet:90
/combat attaque cible:Gunther jet:90
!pins Embuscade
/combat attaque cible:Élise jet:90
!pins Embuscade
/combat attaque cible:Grimli jet:90
!pins Embuscade
/combat voir
/combat fin
@alice /perso voir personnage:Élise
""".replace("{INIT}", INIT)

ENGLISH = """
/npc save name:Bandit ws:65 s:75 t:30 weapons:Epée armour:"Chemise de mailles"
@alice /character create name:Élise stats:"CC:45 CT:30 F:35 E:25 Ag:40 Int:31 FM:29 Soc:33 PD:1"
@alice /character equip weapon:epee
@bob /character create name:Grimli stats:"CC:40 CT:30 F:40 E:45 Ag:30 Int:31 FM:29 Soc:33 PD:2"
@bob /character equip weapon:hache_pic
@carol /character create name:Gunther stats:"CC:42 CT:30 F:38 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:2"
@carol /character equip weapon:epee
/combat open name:Ambush
@alice /combat add who:Élise
@bob /combat add who:Grimli
@carol /combat add who:Gunther
/combat add who:"2 Bandits" side:Bandits
/combat add who:"2 goblins"
!pins Ambush
/combat round dice:"{INIT}"
!pins Ambush
@alice !click careful
!pins Ambush
@alice /combat attack target:"Goblin 1" roll:20 damage:3
!pins Ambush
/combat defend choice:parer roll:5 side_effect:1
!pins Ambush
@bob /combat attack target:Gunther roll:20
@bob !click Cancel
!pins Ambush
@bob /combat attack target:"Bandit 1" roll:90
!pins Ambush
@carol /combat attack target:"Goblin 2" roll:10
!pins Ambush
@carol /combat undo
!pins Ambush
@carol /combat attack target:"Goblin 1" roll:10
!pins Ambush
/combat defend choice:esquiver roll:5
!pins Ambush
/combat attack target:Élise roll:30
@alice /combat defend choice:esquiver roll:5
!pins Ambush
/combat attack target:Grimli roll:90
!pins Ambush
/combat attack target:Gunther roll:90
!pins Ambush
/combat round dice:"{INIT}"
!pins Ambush
@alice /combat attack target:"Goblin 1" roll:95
!pins Ambush
/combat next
!click "Skip Grimli's turn"
!pins Ambush
@carol /combat attack target:"Bandit 2" roll:95
!pins Ambush
/combat attack target:Élise zone:tete roll:5 damage:10 critical:100
@alice !click "Take it"
!pins Ambush
@alice !click "Spend a fate point (Élise)"
!pins Ambush
/combat round dice:"{INIT}"
!click "Start round 3"
!pins Ambush
@alice /combat attack target:"Bandit 1" roll:10 damage:3
/combat defend choice:parer roll:5 side_effect:1
!pins Ambush
@bob /combat attack target:"Bandit 2" roll:90
!pins Ambush
/combat attack target:"Goblin 2" roll:10
!select "Who acts?" Gunther
!pins Ambush
/combat defend choice:esquiver roll:5
!pins Ambush
/combat round dice:"{INIT}"
!click "Start round 4"
!pins Ambush
!click careful
!select "Posture careful for…" "Goblin 1"
!pins Ambush
@alice /combat attack target:"Goblin 2" roll:90
!pins Ambush
@bob /combat attack target:"Bandit 1" roll:90
@carol /combat attack target:"Bandit 2" roll:90
/combat attack target:Grimli roll:90
/combat attack target:Gunther roll:90
!pins Ambush
/combat attack target:Élise roll:90
!pins Ambush
/combat attack target:Grimli roll:90
!pins Ambush
/combat show
/combat end
@alice /character show character:Élise
""".replace("{INIT}", INIT.replace("Gobelin", "Goblin"))

WAITING = [
    "Le MJ ajoute les combattants, puis lance le round 1 (/combat round).",
    # round 1
    "⏳ Élise choisit sa posture (c'est son tour)",
    "⏳ Au tour d'Élise",
    "⏳ Gobelin 1 doit se défendre contre Élise (attaque n° 9)",
    "⏳ Grimli choisit sa posture (c'est son tour)",
    "⏳ Grimli choisit sa posture (c'est son tour)",  # the attack on his ally cancelled: nothing moved
    "⏳ Gunther choisit sa posture (c'est son tour)",
    "⏳ Gobelin 2 doit se défendre contre Gunther (attaque n° 12)",  # the wrong goblin
    "⏳ Gunther choisit sa posture (c'est son tour)",  # undone
    "⏳ Gobelin 1 doit se défendre contre Gunther (attaque n° 13)",
    "⏳ Bandit 1 choisit sa posture (c'est son tour)",
    "⏳ Bandit 2 choisit sa posture (c'est son tour)",
    "⏳ Gobelin 2 choisit sa posture (c'est son tour)",  # Gobelin 1 spent his action parrying
    "Le round 1 est fini : le MJ lance le round 2",
    # round 2
    "⏳ Élise choisit sa posture (c'est son tour)",
    "⏳ Grimli choisit sa posture (c'est son tour)",
    "⏳ Gunther choisit sa posture (c'est son tour)",  # Grimli's turn skipped by the GM
    "⏳ Bandit 1 choisit sa posture (c'est son tour)",
    "⏳ Bandit 2 choisit sa posture (c'est son tour)",  # Élise killed
    "⏳ Bandit 2 choisit sa posture (c'est son tour)",  # Élise saved by destiny
    # round 3, started mid-round; the GM plays Gunther for his absent player
    "⏳ Élise choisit sa posture (c'est son tour)",
    "⏳ Grimli choisit sa posture (c'est son tour)",
    "⏳ Gunther choisit sa posture (c'est son tour)",
    "⏳ Gobelin 2 doit se défendre contre Gunther (attaque n° 32)",
    "⏳ Bandit 2 choisit sa posture (c'est son tour)",  # Bandit 1 spent his action parrying
    # round 4, started mid-round and played to its end
    "⏳ Élise choisit sa posture (c'est son tour)",
    "⏳ Élise choisit sa posture (c'est son tour)",  # the GM chose Gobelin 1's posture
    "⏳ Grimli choisit sa posture (c'est son tour)",
    "⏳ Au tour de Gobelin 1",  # his posture is chosen: he only has to act
    "⏳ Gobelin 2 choisit sa posture (c'est son tour)",
    "Le round 4 est fini : le MJ lance le round 5",
]


def text(record: dict[str, Any]) -> str:
    return "\n".join(
        f"{e.get('title') or ''}\n{e.get('description') or ''}\n"
        + "\n".join(f"{f['name']}: {f['value']}" for f in e.get("fields", []))
        for e in record.get("embeds", [])
    )


def of(records: list[dict[str, Any]], command: str, user: str = "gm") -> list[dict[str, Any]]:
    return [r for r in records if r.get("command", "").startswith(command) and r.get("user") == user]


def waiting(pin: dict[str, Any]) -> str:
    return str(pin["embeds"][0]["description"]).split("\n")[0].strip("*")


def fields(pin: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in pin["embeds"][0]["fields"]}


def test_a_full_fight_in_french() -> None:
    records = console_records(FRENCH)
    assert_no_errors(records)
    lines = [line for line in FRENCH.strip().splitlines() if line.strip()]
    pins = [r for r in records if r.get("command") == "!pins"]
    assert len(pins) == len([line for line in lines if line.startswith("!pins")])
    # every state of the fight, read on the pinned tracker: the table always knows what it waits for
    assert [waiting(p) for p in pins] == WAITING
    # no reply of the fight is empty
    fight = [r for r in records if r.get("command", "").startswith(("/combat", "!click", "!select"))]
    assert fight and all(text(r).strip() or r.get("content") for r in fight)

    # round 1: initiative order, sides, « Attaques : 0 sur 1 », no posture before it is chosen
    first = fields(pins[1])
    assert first["Ordre"].split("\n")[0] == "▶ 100 — Élise (A1)"
    assert list(first)[1:] == [
        "▶ Élise · PJ",
        "Grimli · PJ",
        "Gunther · PJ",
        "Bandit 1 · Bandits",
        "Bandit 2 · Bandits",
        "Gobelin 1 · PNJ",
        "Gobelin 2 · PNJ",
    ]
    assert first["▶ Élise · PJ"] == "Attaques : 0 sur 1"
    assert fields(pins[2])["▶ Élise · PJ"] == "Posture : prudente\nAttaques : 0 sur 1"
    assert fields(pins[3])["▶ Élise · PJ"] == "Posture : prudente\nAttaques : 1 sur 1"
    # the round's first reply pings Élise's player; the goblin's parry pings Grimli's
    [round_1] = of(records, "/combat round")[:1]
    assert str(round_1["content"]).endswith("▶ Au tour d'Élise.")
    [parry] = of(records, "/combat defense")[:1]
    assert str(parry["content"]).endswith("▶ Au tour de Grimli.") and "Parer" in text(parry)

    # friendly fire: asked privately, cancelled, the tracker exactly as before
    [asked] = of(records, "/combat attaque", "bob")[:1]
    assert asked["ephemeral"] and "⚠️ Grimli attaque un allié : confirmer ?" in text(asked)
    assert "Gunther est du même camp (PJ)." in text(asked)
    [cancelled] = of(records, "!click Annuler", "bob")
    assert cancelled["ephemeral"] and "Attaque annulée : rien n'a changé." in text(cancelled)
    assert pins[5]["embeds"] == pins[4]["embeds"]

    # the wrong attack undone by Gunther's player: the tracker of before it
    [undo] = of(records, "/combat annuler", "carol")
    assert not undo["ephemeral"]
    assert text(undo).strip().splitlines() == [
        "↩️ Annulé : l'attaque de Gunther sur Gobelin 2 (action n° 11).",
        "▶ Au tour de **Gunther**.",
    ]
    assert pins[8]["embeds"] == pins[6]["embeds"]
    assert fields(pins[7])["▶ Gunther · PJ"] == "Posture : normale\nAttaques : 1 sur 1"
    assert fields(pins[8])["▶ Gunther · PJ"] == "Attaques : 0 sur 1"

    # round 2: the GM's « Suivant » names Grimli and asks first
    [next_asked] = of(records, "/combat suivant")
    assert next_asked["ephemeral"] and "Grimli n'a pas encore agi sur ce créneau" in text(next_asked)
    [skipped] = of(records, "!click Passer le tour de Grimli")
    assert "Grimli passe son tour." in text(skipped)
    assert str(skipped["content"]).endswith("▶ Au tour de Gunther.")

    # Élise killed by Bandit 1's critical: struck through, her player offered destiny
    [death] = of(records, "!click Encaisser", "alice")
    assert "💀 Élise est mort" in text(death)
    assert "💫 Élise peut dépenser un point de destin pour échapper à la mort (il lui en reste un)" in text(
        death
    )
    assert [c["label"] for c in death["components"]] == ["Dépenser un point de destin (Élise)"]
    assert "~~Élise~~" in fields(pins[18])["Ordre"]
    assert "Élise · PJ" not in fields(pins[18])
    [spent] = of(records, "!click Dépenser un point de destin (Élise)", "alice")
    assert not spent["ephemeral"] and "points de destin 1 → 0" in text(spent)
    assert "~~Élise~~" not in fields(pins[19])["Ordre"]
    assert fields(pins[19])["Élise · PJ"] == "Posture : normale\nAttaques : 1 sur 1"

    # rounds 3 and 4 started mid-round: asked first, saying who loses their actions
    asked_2, asked_3 = [r for r in of(records, "/combat round") if r["ephemeral"]]
    assert "Le round 2 n'est pas fini." in text(asked_2)
    assert (
        "Pas encore agi : Bandit 2, Gobelin 1, Gobelin 2 — leurs actions de ce round sont perdues."
        in text(asked_2)
    )
    assert "Le round 3 n'est pas fini." in text(asked_3)
    [started_3] = of(records, "!click Lancer le round 3")
    assert str(started_3["content"]).endswith("▶ Au tour d'Élise.")
    assert "Round 3" in str(pins[20]["embeds"][0]["description"])
    # the GM on Gunther's turn is asked who acts (not the target)
    [who] = [r for r in of(records, "/combat attaque") if r["ephemeral"] and r.get("selects")]
    assert "C'est le tour du PJ Gunther. Qui attaque Gobelin 2 ?" in text(who)
    assert who["selects"][0]["options"] == ["Gunther", "Bandit 1", "Bandit 2", "Gobelin 1"]
    [played] = of(records, "!select Qui agit ?")
    assert "⚔️ Gunther → Gobelin 2 (Epée)" in text(played)
    assert "Round 4" in str(pins[25]["embeds"][0]["description"])
    # the GM's posture button asks which NPC; only Gobelin 1 takes it
    [which] = of(records, "!click prudente")
    assert which["ephemeral"] and which["selects"][0]["options"] == [
        "Bandit 1",
        "Bandit 2",
        "Gobelin 1",
        "Gobelin 2",
    ]
    assert fields(pins[26])["Gobelin 1 · PNJ"] == "Posture : prudente\nAttaques : 0 sur 1"
    assert fields(pins[26])["Gobelin 2 · PNJ"] == "Attaques : 0 sur 1"
    assert fields(pins[28])["▶ Gobelin 1 · PNJ"] == "Posture : prudente\nAttaques : 0 sur 1"
    # round 4 over: everyone has « Attaques : 1 sur 1 », the postures are gone
    last = fields(pins[-1])
    assert [v for k, v in last.items() if k != "Ordre"] == ["Attaques : 1 sur 1"] * 7

    [shown] = of(records, "/combat voir")
    assert waiting(shown) == WAITING[-1] and shown["ephemeral"]
    [ended] = of(records, "/combat fin")
    assert "Fin du combat : Embuscade" in text(ended)
    [sheet] = of(records, "/perso voir", "alice")
    assert "PD 0" in text(sheet)

    # every outcome comes from the dice typed: another seed for the bot's dice plays the same fight
    def seen(run: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
        return [
            (
                r.get("command", ""),
                re.sub(r"<#[0-9]+>", "#fil", text(r)),
                [c["label"] for c in r["components"]],
            )
            for r in run
        ]

    assert seen(console_records(FRENCH, "--seed", "11")) == seen(records)


WAITING_EN = [
    "The GM adds the fighters, then starts round 1 (/combat round).",
    "⏳ Élise chooses a posture (their turn)",
    "⏳ Élise's turn",
    "⏳ Goblin 1 must defend against Élise (attack no. 9)",
    "⏳ Grimli chooses a posture (their turn)",
    "⏳ Grimli chooses a posture (their turn)",
    "⏳ Gunther chooses a posture (their turn)",
    "⏳ Goblin 2 must defend against Gunther (attack no. 12)",
    "⏳ Gunther chooses a posture (their turn)",
    "⏳ Goblin 1 must defend against Gunther (attack no. 13)",
    "⏳ Bandit 1 chooses a posture (their turn)",
    "⏳ Bandit 2 chooses a posture (their turn)",
    "⏳ Goblin 2 chooses a posture (their turn)",
    "Round 1 is over: the GM starts round 2",
    "⏳ Élise chooses a posture (their turn)",
    "⏳ Grimli chooses a posture (their turn)",
    "⏳ Gunther chooses a posture (their turn)",
    "⏳ Bandit 1 chooses a posture (their turn)",
    "⏳ Bandit 2 chooses a posture (their turn)",
    "⏳ Bandit 2 chooses a posture (their turn)",
    "⏳ Élise chooses a posture (their turn)",
    "⏳ Grimli chooses a posture (their turn)",
    "⏳ Gunther chooses a posture (their turn)",
    "⏳ Goblin 2 must defend against Gunther (attack no. 32)",
    "⏳ Bandit 2 chooses a posture (their turn)",
    "⏳ Élise chooses a posture (their turn)",
    "⏳ Élise chooses a posture (their turn)",
    "⏳ Grimli chooses a posture (their turn)",
    "⏳ Goblin 1's turn",
    "⏳ Goblin 2 chooses a posture (their turn)",
    "Round 4 is over: the GM starts round 5",
]


def test_the_same_fight_in_english() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    pins = [r for r in records if r.get("command") == "!pins"]
    assert [waiting(p) for p in pins] == WAITING_EN
    # the same fight as in French, state by state: the initiative column and the attacks used
    french = [r for r in console_records(FRENCH) if r.get("command") == "!pins"]
    assert [fields(p)["Ordre"].replace("Gobelin", "Goblin") for p in french[1:]] == [
        fields(p).get("Order") for p in pins[1:]
    ]
    assert [[v.count(" of ") for v in fields(p).values()] for p in pins] == [
        [v.count(" sur ") for v in fields(p).values()] for p in french
    ]
    assert list(fields(pins[1]))[1:] == [
        "▶ Élise · PC",
        "Grimli · PC",
        "Gunther · PC",
        "Bandit 1 · Bandits",
        "Bandit 2 · Bandits",
        "Goblin 1 · NPC",
        "Goblin 2 · NPC",
    ]
    [asked] = [r for r in of(records, "/combat attack", "bob") if r["ephemeral"]]
    assert "⚠️ Grimli attacks an ally: confirm?" in text(asked)
    assert pins[5]["embeds"] == pins[4]["embeds"] and pins[8]["embeds"] == pins[6]["embeds"]
    [undo] = of(records, "/combat undo", "carol")
    assert "↩️ Undone: Gunther's attack on Goblin 2 (action no. 11)." in text(undo)
    [skipped] = of(records, "!click Skip Grimli's turn")
    assert str(skipped["content"]).endswith("▶ Gunther's turn.")
    [death] = of(records, "!click Take it", "alice")
    assert [c["label"] for c in death["components"]] == ["Spend a fate point (Élise)"]
    [spent] = of(records, "!click Spend a fate point (Élise)", "alice")
    assert "Sheet updated: fate points 1 → 0, Fortune 1 → 0." in text(spent)
    asked_2, _ = [r for r in of(records, "/combat round") if r["ephemeral"]]
    assert "Not acted yet: Bandit 2, Goblin 1, Goblin 2 — their actions this round are lost." in text(asked_2)
    [who] = [r for r in of(records, "/combat attack") if r["ephemeral"] and r.get("selects")]
    assert "It is PC Gunther's turn. Who attacks Goblin 2?" in text(who)
    [ended] = of(records, "/combat end")
    assert "End of the fight: Ambush" in text(ended)
