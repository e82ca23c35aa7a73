"""Wounds and death on the sheet through the real bot: Grimli loses fingers, then an eye and dies when
his death timer runs out; /destin saves him (alive on the tracker and on the sheet, the eye stays
lost); /combat fin writes his wounds on the sheet and /perso voir shows them."""

from __future__ import annotations

import json

from .harness import E2E
from .turns import next_round, skip_turn

INITIATIVE = "Orque: 10 10 10; Grimli: 1 1 1"


async def test_a_pc_killed_saved_with_destiny_and_his_wounds_on_the_sheet(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash(
        "perso creer", nom="Grimli", caracs="CC:40 CT:30 F:35 E:40 Ag:35 Int:30 FM:30 Soc:30 PD:1"
    )
    opened = await gm.slash("combat ouvrir", nom="Embuscade")
    await opened.wait_followup()
    thread = emu.thread("Embuscade")
    await alice.slash("combat ajouter", qui="Grimli", channel=thread)
    await gm.slash("combat ajouter", qui="orque", channel=thread)

    def grimli_field() -> tuple[str, str]:
        pinned = emu.pins(thread)[0]
        return next((f["name"], f["value"]) for f in pinned.embeds[0]["fields"] if "Grimli" in f["name"])

    await next_round(gm, thread, des=INITIATIVE)
    common = {"attaquant": "Orque", "cible": "Grimli", "jet": 5, "channel": thread}
    fingers = await gm.slash("combat attaque", zone="bras", degats="7", critique=5, **common)
    taken = await gm.click("Encaisser", message=fingers.message)
    assert "**11**" in taken.embed["description"]
    await skip_turn(gm, thread)
    await next_round(gm, thread, des=INITIATIVE)
    eye = await gm.slash("combat attaque", zone="tete", degats="10", critique=85, durees="2", **common)
    taken = await gm.click("Encaisser", message=eye.message)
    assert "**13**" in taken.embed["description"]
    await skip_turn(gm, thread)  # the round ends: the death timer runs out
    await emu.emu.wait_until(lambda: "💀" in grimli_field()[0], what="Grimli dead on the tracker")

    saved = await alice.slash("destin", contre="death", personnage="Grimli")
    assert "se relève dans le combat « Embuscade »" in saved.embed["description"]
    await emu.emu.wait_until(lambda: "💀" not in grimli_field()[0], what="Grimli alive on the tracker")
    assert "œil" in grimli_field()[1]  # the sequel stays

    ended = await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
    text = ended.embed["description"]
    assert (
        "Inscrit sur la fiche de Grimli : bras : doigts perdus ; plaie ouverte au bras ; "
        "tête : œil perdu ; plaie ouverte à la tête" in text
    )
    shown = await alice.slash("perso voir", personnage="Grimli")
    fields = {f["name"]: f["value"] for f in shown.embed["fields"]}
    wounds = fields["Blessures et séquelles"]
    assert "💀" not in wounds
    assert wounds.splitlines() == [
        "**1** · bras (tranchantes 11, Embuscade) : doigts perdus ; plaie ouverte au bras",
        "**2** · tête (tranchantes 13, Embuscade) : œil perdu ; plaie ouverte à la tête",
    ]
    assert "PD 0" in fields[next(k for k in fields if "Profil" in k or "profil" in k)]

    # The sheet's open wounds are what /infection tests, one d100 each; then the GM tends the sheet.
    infected = await alice.slash("infection test", personnage="Grimli", jets="20 95")
    shown = json.dumps(infected.embeds, ensure_ascii=False)
    assert not infected.ephemeral and "**20**" in shown and "**95**" in shown, shown  # one test per wound
    refused = await alice.slash("perso modifier", personnage="Grimli", blessures="-1")
    assert refused.ephemeral and "Seul le MJ" in refused.embed["description"]
    tended = await gm.slash("perso modifier", personnage="Grimli", blessures="-1; 2:bandée")
    assert tended.embed.get("fields"), tended.embed
    tended_fields = {f["name"]: f["value"] for f in tended.embed["fields"]}
    assert "Blessures et séquelles" in tended_fields, (tended.embed.get("description"), list(tended_fields))
    lines = tended_fields["Blessures et séquelles"].splitlines()
    assert len(lines) == 1 and "œil perdu" in lines[0] and "bandée" in lines[0]
    alive = await gm.slash("perso modifier", personnage="Grimli", vivant=True)
    assert alive.ephemeral and "n'est pas mort sur sa fiche" in alive.embed["description"]
