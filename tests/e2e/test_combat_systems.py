"""Fights of the other rulesets in a thread through the real bot: the channel's ruleset picks the
system, the tracker shows each system's pools, buttons answer the pending defences."""

from __future__ import annotations

from bot.emulator.state import Channel

from ..test_console_combat_systems import (
    D20_BODY,
    OGL_BODY,
    OGL_LABELS,
    d20_edged,
    d20_exchange,
    d20_malus,
    d20_pool_max,
    d20_test,
    ogl_level,
    ogl_location_hp,
    ogl_opposed,
)
from .harness import E2E
from .turns import next_round, skip_turn


def tracker(emu: E2E, thread: Channel) -> dict[str, str]:
    pinned = emu.pins(thread)[0]
    return {
        f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"] for f in pinned.embeds[0]["fields"]
    }


async def test_a_v1_fight_in_a_thread(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await gm.slash("config systeme", systeme="v1", portee="canal")
    await alice.slash(
        "perso creer",
        nom="Albert",
        caracs="CC:45 CT:40 F:3 E:4 B:8 I:40 A:2 Dex:35 Cd:30 Int:30 Cl:30 FM:30 Soc:30",
    )
    opened = await gm.slash("combat ouvrir", nom="Escarmouche", options="endurance:seuil")
    await opened.wait_followup()
    thread = emu.thread("Escarmouche")
    await alice.slash("combat ajouter", qui="Albert", armes="Épée +0, Bouclier bouclier", channel=thread)
    bad = await gm.slash("combat ajouter", qui="3 gobelins", channel=thread)
    assert bad.ephemeral and "caracs" in bad.embed["description"]
    await gm.slash(
        "combat ajouter",
        qui="gobelin",
        caracs="CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25",
        armes="Hache",
        armure="corps:1",
        channel=thread,
    )
    round1 = await next_round(gm, thread)
    assert "I 40, A 2 → 40 · 20" in round1.embed["description"]
    # CC 45, 37 → 73 → body; 1d6 4 + F 3 = 7, seed reading: armour 1 only → 6; B 6 → 0
    attack = await alice.slash("combat attaque", cible="Gobelin", jet=37, degats="4", channel=thread)
    assert "**73**" in attack.embed["description"]
    # no Esquive skill and no parry prepared, no shield nor second weapon (l. 60-70): only the legal
    # buttons — « Encaisser » and, for an NPC, « Défense auto »; the command refuses the dodge
    assert [b["label"] for b in attack.components[0]["components"]] == ["Encaisser", "Défense auto"]
    refused = await gm.slash("combat defense", choix="esquiver", channel=thread)
    assert refused.ephemeral and "Esquive" in refused.embed["description"]
    taken = await gm.click("Encaisser", message=attack.message)
    assert "6 → **0**" in taken.embed["description"]

    def tracker_fields() -> dict[str, str]:
        pinned = emu.pins(thread)[0]
        return {
            f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
            for f in pinned.embeds[0]["fields"]
        }

    await emu.emu.wait_until(
        lambda: "Blessures 0/6" in tracker_fields().get("Gobelin", ""), what="the tracker edit"
    )
    ended = await gm.slash("combat fin", channel=thread)
    assert "Escarmouche" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_a_d20_fight_in_a_thread(emu: E2E) -> None:
    """Seed 003: four rounds, every die typed; the numbers are the seed's (see the console test)."""
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="d20", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Duel")
    await opened.wait_followup()
    thread = emu.thread("Duel")
    sword = "Épée 14 +3 tranchant par=13"
    await gm.slash("combat ajouter", qui="Bretteur", caracs=D20_BODY, armes=sword, channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Garde",
        caracs=D20_BODY,
        armes=sword,
        armure="Cuir 2/1/15",
        camp="Garde",
        channel=thread,
    )
    pv, pc = d20_pool_max("PV", 14), d20_pool_max("PC", 14)

    async def exchange(roll: int, choice: str, defence: int | None) -> str:
        attack = await gm.slash("combat attaque", cible=target, jet=roll, channel=thread)
        assert f"Jet **{roll}**" in attack.embed["description"]
        if defence is None:
            answer = await gm.click("Encaisser", message=attack.message)
        else:
            answer = await gm.slash("combat defense", choix=choice, jet=defence, channel=thread)
        return str(answer.embed["description"])

    round1 = await next_round(gm, thread, des="Bretteur: 15; Garde: 10")
    assert "**Bretteur** : 15\n**Garde** : 10" in round1.embed["description"]
    # MR 10 against MR 3 → index 7; penetration 15, shock 7 − RC 1 = 6 PC; index + weapon = 10
    target = "Garde"
    text = await exchange(4, "parer", 10)
    assert d20_exchange(d20_test(14, 4), d20_test(13, 10)) == ("both_succeed_attacker_higher", 7, 0)
    pen, shock = d20_edged(3, 10, 2)
    assert f"= **{pen}**" in text and f"= **{shock}**" in text and "la pièce est rompue" in text
    assert "Indice **10**" in text and f"Garde : choc {shock - 1} → PC {pc - 6}, PV {pv}" in text
    fixed = await gm.slash("combat corriger", qui="Garde", champ="PV", valeur=pv - 10, channel=thread)
    assert f"PV {pv} → {pv - 10}" in fixed.embed["description"]
    malus = d20_malus(10, 6, 14)
    await emu.emu.wait_until(
        lambda: (
            tracker(emu, thread)
            .get("Garde", "")
            .startswith(f"PV {pv - 10}/{pv} · PC {pc - 6}/{pc} · malus {malus}")
        ),
        what="the Garde's wound malus on the tracker",
    )
    # the Garde at 14 − 2: MR 2 against MR 8 → −6 next action, the Bretteur takes the initiative
    target = "Bretteur"
    text = await exchange(10, "parer", 5)
    assert d20_exchange(d20_test(14 + malus, 10), d20_test(13, 5))[2] == -6
    assert "Bretteur prend l'initiative" in text and "= **-6**" in text

    await next_round(gm, thread, des="Bretteur: 15; Garde: 10")
    target = "Garde"
    text = await exchange(12, "parer", 3)  # MR 2 against the parry 13 − 2 − 6 = 5, roll 3 → MR 2
    assert "= **5**" in text and "le coup est bloqué" in text
    target = "Bretteur"
    text = await exchange(4, "parer", 16)  # MR 8, the parry fails by 3 → 11 (+3 → 14); 13 // 2 = 6 PC
    assert d20_exchange(d20_test(12, 4), d20_test(13, 16))[1] == 11
    assert "Indice **14**" in text and f"Bretteur : choc 6 → PC {pc - 6}, PV {pv}" in text

    await next_round(gm, thread, des="Bretteur: 15; Garde: 10")
    target = "Garde"
    text = await exchange(17, "parer", 6)  # fails by 3, parry MR 5 → the Bretteur at −8
    assert "= **-8**" in text
    target = "Bretteur"
    text = await exchange(18, "esquiver", 15)  # fails by 6; Esquive 11 − 8 = 3, 15: both fail
    assert "= **3**" in text and "Les deux échouent" in text
    await emu.emu.wait_until(
        lambda: tracker(emu, thread).get("Bretteur", "").startswith(f"PV {pv}/{pv} · PC {pc - 6}/{pc}\n"),
        what="the Bretteur's pools on the tracker",
    )

    await next_round(gm, thread, des="Bretteur: 9; Garde: 12")
    target = "Bretteur"
    text = await exchange(19, "parer", 2)  # 19 over 12 by 7, parry MR 11 → −18
    assert "= **-18**" in text
    target = "Garde"
    text = await exchange(3, "", None)  # taken (the button): MR 11 → index 14; 8 − RC 1 = 7 PC more
    assert "Indice **14**" in text and f"Garde : choc 7 → PC {pc - 13}, PV {pv - 10} · malus -9" in text
    await emu.emu.wait_until(
        lambda: (
            tracker(emu, thread)
            .get("Garde", "")
            .startswith(
                f"PV {pv - 10}/{pv} · PC {pc - 13}/{pc} · malus {d20_malus(10, 13, 14)}\nprochaine action -18"
            )
        ),
        what="the Garde's pools, wound malus and next-action malus on the tracker",
    )
    ended = await gm.slash("combat fin", channel=thread)
    assert "Duel" in ended.embed["title"]
    # The bot edits the tracker and archives the thread after its reply: wait for it.
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_an_ogl_fight_in_a_thread(emu: E2E) -> None:
    """Seed 004: action ranks, opposed parry, a critical, serious wounds and their Endurance tests."""
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Arène")
    await opened.wait_followup()
    thread = emu.thread("Arène")
    await gm.slash(
        "combat ajouter", qui="Guerrier", caracs=OGL_BODY + " DEX:14", armes="Épée 1d8+1 60%", channel=thread
    )
    await gm.slash(
        "combat ajouter",
        qui="Cible",
        caracs=OGL_BODY + " DEX:15 RA:2",
        armes="Dague 1d4+1 50%",
        armure="tout:1",
        camp="Cibles",
        channel=thread,
    )
    hp = ogl_location_hp(12, 12)
    round1 = await next_round(gm, thread, des="Guerrier: 5; Cible: 3")
    # 5 + 0 and 3 + 2: tied, the Cible (DEX 15) acts first
    assert round1.embed["description"].endswith("▶ Au tour de **Cible**.")
    attack = await gm.slash(
        "combat attaque", cible="Guerrier", jet=30, localisation="tete", degats="3", channel=thread
    )
    assert [b["label"] for b in attack.components[0]["components"]] == [
        "Parer",
        "Esquiver",
        "Encaisser",
        "Défense auto",
    ]
    parried = await gm.slash("combat defense", choix="parer", jet=45, channel=thread)
    assert ogl_opposed(50, 30, 60, 45) == "defended" and "Guerrier l'emporte" in parried.embed["description"]
    await gm.slash(
        "combat attaque",
        cible="Cible",
        jet=55,
        localisation="jambe_d",
        degats="6",
        effets="2",
        channel=thread,
    )
    leg = (await gm.slash("combat defense", choix="parer", jet=20, channel=thread)).embed["description"]
    assert ogl_opposed(60, 55, 50, 20) == "hit" and ogl_level(4 - 6, 4) == "serious"
    assert "Jambe D : dégâts 7 · armure -1 = **6** → PV 4 → **-2**/4" in leg and "jambe hors d'usage" in leg

    await next_round(gm, thread, des="Guerrier: 8; Cible: 2")
    critical = await gm.slash(
        "combat attaque", cible="Cible", jet=4, localisation="poitrine", effets="3", channel=thread
    )
    assert "Réussite critique" in critical.embed["description"]  # 4 ≤ ⌊60 / 10⌋
    # the Cible has lost her next 2 combat actions (the leg's serious wound): no reaction, she takes it
    chest = (await gm.slash("combat defense", choix="encaisser", channel=thread)).embed["description"]
    assert "arme (maximum) 9 = **9**" in chest and "→ PV 5 → **-3**/5" in chest
    assert "test d'Endurance ou perdre connaissance" in chest
    test = await gm.slash("combat test", qui="Cible", jet=41, channel=thread)
    assert "Endurance 60 = **60 %**" in test.embed["description"] and "Réussite" in test.embed["description"]
    await skip_turn(gm, thread)

    await next_round(gm, thread, des="Guerrier: 6; Cible: 7")
    await skip_turn(gm, thread)
    attack = await gm.slash(
        "combat attaque", cible="Cible", jet=12, localisation="tete", degats="8", effets="1", channel=thread
    )
    taken = await gm.click("Encaisser", message=attack.message)
    assert "→ PV 4 → **-4**/4" in taken.embed["description"] and ogl_level(-4, 4) == "serious"
    out = await gm.slash("combat test", qui="Cible", jet=75, channel=thread)
    assert "Cible perd connaissance." in out.embed["description"]
    now = {**hp, "jambe_d": -2, "poitrine": -3, "tete": -4}
    line = " · ".join(
        f"{OGL_LABELS[k]} " + (f"**{now[k]}/{hp[k]}**" if now[k] != hp[k] else f"{hp[k]}/{hp[k]}") for k in hp
    )

    def unconscious_with_wounds() -> bool:
        fields = emu.pins(thread)[0].embeds[0]["fields"]
        cible = next(f for f in fields if "Cible" in f["name"])
        return cible["name"] == "💤 Cible · Cibles" and str(cible["value"]).startswith(line + "\n")

    await emu.emu.wait_until(unconscious_with_wounds, what="the Cible's location HP and 💤 on the tracker")
    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
