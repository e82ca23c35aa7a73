"""``/tir`` (``/fire``) in a d20 fight thread through the real bot: the server's uploaded
damage-by-location table (``/regles importer``), burst fire, covering fire, artillery and fighter
gunnery with every die typed; every number is recomputed from the seed's rules (restated in
``tests/test_console_fire.py``) and the uploaded table; the pinned tracker follows."""

from __future__ import annotations

import json
from typing import Any

from bot.emulator.client import Upload

from ..test_console_combat_systems import D20_BODY, d20_malus, d20_pool_max, d20_test
from ..test_console_fire import SEED_AIR_HITS, artillery, band_die, burst_single
from .harness import E2E
from .test_combat_systems import tracker
from .turns import next_round

TABLE: dict[str, Any] = {
    "table": "d20_damage_by_location",
    "entries": [
        {"min": 0, "pv": 1, "text": {"fr": "éraflure", "en": "graze"}},
        {"min": 10, "pv": 4, "pc": 2, "text": {"fr": "plaie", "en": "wound"}},
        {"min": 20, "pv": 10, "effect": "unconscious", "text": {"fr": "blessure grave", "en": "serious"}},
    ],
}


def row(index: int) -> dict[str, Any]:
    """The uploaded row of an index: the largest ``min`` not above it."""
    rows = sorted(TABLE["entries"], key=lambda r: int(r["min"]))
    below = [r for r in rows if r["min"] <= index]
    return below[-1] if below else rows[0]


async def test_special_fire_in_a_d20_thread(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await gm.slash("config systeme", systeme="d20", portee="canal")
    bad = await gm.slash(
        "regles importer",
        fichier=Upload(
            "t.json",
            json.dumps({"table": "d20_damage_by_location", "entries": [{"min": 0, "pv": -1}]}).encode(),
            "application/json",
        ),
    )
    refused = await bad.wait_response()
    assert refused.ephemeral and "entries/0/pv" in str(refused.embeds[0])
    good = await gm.slash(
        "regles importer",
        fichier=Upload("t.json", json.dumps(TABLE, ensure_ascii=False).encode(), "application/json"),
    )
    assert "d20_damage_by_location" in str((await good.wait_response()).embeds[0])
    opened = await gm.slash("combat ouvrir", nom="Feu")
    await opened.wait_followup()
    thread = emu.thread("Feu")
    gun = "Mitraillette 13 +2 tir, Mortier 14 tir, Canon 20 +3 tir"
    await gm.slash(
        "combat ajouter", qui="Tireur", caracs="FOR:12 CON:14 AGI:15 DEX:13", armes=gun, channel=thread
    )
    sword = "Épée 14 +3 tranchant par=13"
    await gm.slash("combat ajouter", qui="Garde", caracs=D20_BODY, armes=sword, channel=thread)
    await gm.slash("combat ajouter", qui="Bretteur", caracs=D20_BODY, armes=sword, channel=thread)
    pv, pc = d20_pool_max("PV", 14), d20_pool_max("PC", 14)
    order = "Tireur: 15; Garde: 10; Bretteur: 8"
    score, bonus = 13, 2

    await next_round(gm, thread, des=order)
    not_yours = await alice.slash("tir rafale", cibles="Garde", tireur="Tireur", balles=20, channel=thread)
    assert not_yours.ephemeral and "Tireur n'est pas à vous" in not_yours.embed["description"]

    # burst: 25 bullets at the Garde, +2 × 2; roll 5; 2d6 (2, 1) bullets; d20 12, 4, 19 + 2
    plus, bullets = burst_single(25, [2, 1])
    ok, mr = d20_test(score + plus, 5)
    assert ok and band_die(mr) is None  # exact: no zone die
    burst = await gm.slash(
        "tir rafale", cibles="Garde", balles=25, jet=5, touches="2 1", degats="12 4 19", channel=thread
    )
    text = burst.embed["description"]
    assert f"= **{score + plus}**" in text and f"Jet **5** → Réussite (MR {mr})" in text
    assert f"→ **{bullets}** balle{'s' if bullets > 1 else ''}" in text
    lost_pv = lost_pc = 0
    for n, die in enumerate((12, 4, 19), start=1):
        index = die + bonus
        line = (
            f"balle {n} : MR ≥ 10 : le tir touche le point visé (Garde). 1d20 {die} +2 = indice **{index}**"
        )
        assert line in text and f"{row(index)['text']['fr']} (PV −{row(index)['pv']})" in text
        lost_pv += row(index)["pv"]
        lost_pc += row(index).get("pc", 0)
    assert (lost_pv, lost_pc) == (15, 2)
    assert f"Garde : choc {lost_pc} → PC {pc - lost_pc}, PV {pv - lost_pv}" in text
    assert "💤 Garde est inconscient." in text
    garde = f"PV {pv - lost_pv}/{pv} · PC {pc - lost_pc}/{pc} · malus {d20_malus(lost_pv, lost_pc, 14)}"
    await emu.emu.wait_until(
        lambda: tracker(emu, thread).get("Garde", "").startswith(garde),
        what="the Garde's pools on the tracker",
    )

    # covering fire: d100 12 ≤ 13 hits; a d2 of 2 picks the Bretteur; d20 9 + 2 = 11
    await next_round(gm, thread, des=order)
    covering = await gm.slash(
        "tir couverture", cibles="Garde, Bretteur", jet=12, tirage=2, degats=9, channel=thread
    )
    text = covering.embed["description"]
    assert f"1d100 **12** contre {score} % → touché" in text and "1d2 = 2 → Bretteur" in text
    hit = row(9 + bonus)
    assert f"indice **{9 + bonus}**" in text
    b_pv, b_pc = hit["pv"], hit.get("pc", 0)
    assert f"Bretteur : choc {b_pc} → PC {pc - b_pc}, PV {pv - b_pv}" in text

    # artillery (Mortier 14): roll 12 → MR 2; direction 7, distance 14 on the d20 (reading)
    await next_round(gm, thread, des=order)
    _, mr = d20_test(14, 12)
    expected = artillery(mr, 7, 14)
    assert expected == ("left", 20, 27)
    art = await gm.slash(
        "tir artillerie", cible="Garde", arme="Mortier", jet=12, direction=7, distance=14, channel=thread
    )
    text = art.embed["description"]
    assert "Direction 1d20 7 : À gauche de la cible ; distance 1d20 14 : à **27 m** de Garde." in text

    # fighter gunnery (Canon 20 +3): −4 for 2000 km/h, −10 human size → 6; roll 4 → MR 2 → a d20
    await next_round(gm, thread, des=order)
    ok, mr = d20_test(20 - 2000 // 500 - 10, 4)
    assert ok and band_die(mr) == 20 and 19 in SEED_AIR_HITS
    air = await gm.slash(
        "tir chasse",
        cible="Bretteur",
        arme="Canon",
        jet=4,
        de=19,
        situation="vitesse:2000, taille_humaine",
        degats=11,
        channel=thread,
    )
    text = air.embed["description"]
    assert f"= **{20 - 4 - 10}**" in text and "Table des touches, 1d20 19 : Bretteur est touché !" in text
    hit = row(11 + 3)
    b_pv, b_pc = b_pv + hit["pv"], b_pc + hit.get("pc", 0)
    bretteur = f"PV {pv - b_pv}/{pv} · PC {pc - b_pc}/{pc}"
    await emu.emu.wait_until(
        lambda: tracker(emu, thread).get("Bretteur", "").startswith(bretteur),
        what="the Bretteur's pools on the tracker",
    )
    ended = await gm.slash("combat fin", channel=thread)
    assert "Feu" in ended.embed["title"]
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
