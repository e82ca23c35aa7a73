"""`/manoeuvre zone` (an `ogl` area effect) and the dive through the console (``python -m bot console
--json``), every die by hand; the numbers recomputed from seed 004 ("Plonger": an Esquive test, −30 %
mounted and unhorsed, success halves, the diver ends prone) and the hero point's second chance on a
damage roll."""

from __future__ import annotations

from .test_console_combat_systems import OGL_BODY, ogl_level, ogl_location_hp
from .test_console_manoeuvre import run

SCRIPT = f"""
/config systeme systeme:ogl portee:canal
/combat ouvrir nom:Brasier
/combat ajouter qui:Chevalier caracs:"{OGL_BODY} DEX:14 PH:2" armes:"Épée 1d8+1 60%" armure:poitrine:2
/combat ajouter qui:Orc caracs:"{OGL_BODY} DEX:14 RA:2" armes:"Hache 1d8 50%" camp:Orcs
/manoeuvre monture monte:oui qui:Chevalier
/combat round des:"Chevalier: 5; Orc: 1"
/manoeuvre zone effet:"Boule de feu" degats:3d6 des:"4 5 6" cibles:"Chevalier: poitrine; Orc: tete"
/combat defense choix:parer jet:9
/combat defense choix:plonger jet:9
/combat defense choix:encaisser
/manoeuvre heroisme usage:seconde_chance_degats qui:Chevalier degats:"1 1 1"
/combat voir
"""


def test_an_area_effect_a_mounted_dive_and_a_damage_reroll_through_the_console() -> None:
    records = run(SCRIPT)
    errors = [r for r in records if r["result"].get("error")]
    # parrying does not answer an area effect
    assert [r["command"].split(" ")[:2] for r in errors] == [["/combat", "defense"]]
    assert "ne répond pas" in errors[0]["result"]["message"]
    results = [r["result"] for r in records if not r["result"].get("error")]
    hp = ogl_location_hp(12, 12)
    area = next(r for r in results if r.get("area"))
    rolled = 4 + 5 + 6
    assert area["area"]["damage"]["total"] == rolled and [c["id"] for c in area["caught"]] == [
        "chevalier",
        "orc",
    ]
    dive, took = [r for r in results if r.get("choice") in ("plonger", "encaisser")]
    # the rider dives at Esquive 40 − 30 = 10: 9 succeeds (not ≤ 1): 15 → 7; armour 2 → 5 on the chest 5
    assert dive["dive"]["target"] == 40 - 30 and dive["area_damage"]["taken"] == rolled // 2
    chest = hp["poitrine"] - (rolled // 2 - 2)
    assert dive["wounds"][0]["hp_after"] == chest and dive["wounds"][0]["level"] == ogl_level(chest, 5)
    # the Orc takes the 15 on the head 4 → −11, below −4: a major wound
    head = hp["tete"] - rolled
    assert took["wounds"][0]["level"] == ogl_level(head, hp["tete"]) == "major"
    # the Chevalier's second chance on the damage: 1 + 1 + 1 = 3, halved 1, armour 2: nothing
    again = next(r for r in results if r.get("spend"))
    assert again["reroll"]["damage"]["total"] == 3 and again["reroll"]["area_damage"]["taken"] == 3 // 2
    assert again["reroll"]["wounds"][0]["hp_after"] == hp["poitrine"]
    shown = next(r for r in records if r["command"] == "/combat voir")
    fields = {
        f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
        for f in shown["embeds"][0]["fields"]
    }
    assert "monté" not in fields["Chevalier"] and "à terre" in fields["Chevalier"]
    assert (
        "PH 1" in fields["Chevalier"] and f"Poitrine {hp['poitrine']}/{hp['poitrine']}" in fields["Chevalier"]
    )
    # a major head wound: death in ⌊(CON 12 + POU 10) / 2⌋ combat actions; he did not dive: standing
    assert (
        f"Tête **{head}/{hp['tete']}**" in fields["Orc"]
        and f"{(12 + 10) // 2} actions de combat" in fields["Orc"]
    )
    assert "à terre" not in fields["Orc"]
