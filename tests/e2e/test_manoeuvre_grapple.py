"""`/manoeuvre lutte` and `/manoeuvre deux-armes` in an ogl fight thread through the real bot and
the emulator (seed 004): grab (opposed Bagarre), immobilise −(DEX + STR), escape −(STR + SIZ), the
throw's 2 m and 1d6 at a location, the off hand's extra attack once a round. Every number is
recomputed here from the fighters' figures."""

from __future__ import annotations

from ..test_console_combat_systems import OGL_BODY, ogl_level, ogl_location_hp, ogl_opposed
from .harness import E2E
from .test_manoeuvre import field
from .turns import next_round

DEX, STR, SIZ = 14, 13, 12  # OGL_BODY + DEX:14
BODY = OGL_BODY + f" DEX:{DEX}"
KNIGHT_BAGARRE, ORC_BAGARRE, SHIELD = 50, 40, 40


async def test_grapple_and_two_weapons_in_an_ogl_thread(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom="Empoignade")
    await opened.wait_followup()
    thread = emu.thread("Empoignade")
    await gm.slash(
        "combat ajouter",
        qui="Chevalier",
        caracs=f"{BODY} Bagarre:{KNIGHT_BAGARRE}",
        armes=f"Épée 1d8+1 60%, Bouclier 1d4 {SHIELD}%",
        channel=thread,
    )
    await gm.slash(
        "combat ajouter",
        qui="Orc",
        caracs=f"{BODY} RA:2 Bagarre:{ORC_BAGARRE}",
        armes="Hache 1d8 50%",
        camp="Orcs",
        channel=thread,
    )
    hp = ogl_location_hp(12, 12)

    # Round 1, grab: both succeed (30 ≤ 50, 20 ≤ 40), the higher roll wins.
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")
    grab = await gm.slash(
        "manoeuvre lutte",
        action="saisir",
        qui="Chevalier",
        cible="Orc",
        jet=30,
        jet_adverse=20,
        channel=thread,
    )
    text = grab.embed["description"]
    assert not grab.ephemeral and ogl_opposed(KNIGHT_BAGARRE, 30, ORC_BAGARRE, 20) == "hit"
    assert f"**{KNIGHT_BAGARRE} %**" in text and f"**{ORC_BAGARRE} %**" in text and "Réussi." in text

    # Round 2, immobilise at Bagarre − (DEX + STR); the Orc may then only try to escape.
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")
    pin = await gm.slash(
        "manoeuvre lutte", action="immobiliser", qui="Chevalier", cible="Orc", jet=20, channel=thread
    )
    assert f"immobiliser -{DEX + STR} = **{KNIGHT_BAGARRE - (DEX + STR)} %**" in pin.embed["description"]
    assert "Réussi." in pin.embed["description"]
    await emu.emu.wait_until(
        lambda: (
            "immobilisé par Chevalier" in field(emu, thread, "Orc")
            and "empoigne Orc" in field(emu, thread, "Chevalier")
        ),
        what="the grapple on the tracker",
    )
    refused = await gm.slash(
        "combat attaque", cible="Chevalier", attaquant="Orc", jet=10, localisation="tete", channel=thread
    )
    assert refused.ephemeral and "immobilisé" in refused.embed["description"]
    escape = await gm.slash("manoeuvre lutte", action="se_degager", qui="Orc", jet=50, channel=thread)
    escape_target = ORC_BAGARRE - (STR + SIZ)
    assert f"se dégager -{STR + SIZ} = **{escape_target} %**" in escape.embed["description"]
    assert escape_target < 50 and "Raté." in escape.embed["description"]

    # Round 3, throw: 2 m and 1d6 (5) on the head: a serious wound, 1d4 (1) combat action lost.
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")
    throw = await gm.slash(
        "manoeuvre lutte",
        action="projeter",
        qui="Chevalier",
        cible="Orc",
        jet=10,
        localisation="tete",
        degats=5,
        effets="1",
        channel=thread,
    )
    head = hp["tete"] - 5
    text = throw.embed["description"]
    assert "2 m" in text and f"PV {hp['tete']} → **{head}**/{hp['tete']}" in text
    assert ogl_level(head, hp["tete"]) == "serious" and "Blessure sérieuse pour Orc." in text
    await emu.emu.wait_until(
        lambda: (
            "empoigne" not in field(emu, thread, "Chevalier")
            and f"Tête **{head}/{hp['tete']}**" in field(emu, thread, "Orc")
        ),
        what="the grapple over and the head wound on the tracker",
    )

    # Round 4, the off hand: one extra attack with the Bouclier (40 %: 20 hits) — once a round.
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")
    extra = await gm.slash(
        "manoeuvre deux-armes",
        usage="attaque",
        qui="Chevalier",
        cible="Orc",
        jet=20,
        localisation="bras_g",
        degats="3",
        channel=thread,
    )
    assert f"Attaque (Bouclier) : arme {SHIELD} = **{SHIELD} %**" in extra.embed["description"]
    again = await gm.slash("manoeuvre deux-armes", usage="parade", qui="Chevalier", channel=thread)
    assert again.ephemeral and "déjà servi ce round" in again.embed["description"]
    took = await gm.slash("combat defense", choix="encaisser", channel=thread)
    arm = hp["bras_g"] - 3  # 1d4 = 3, no armour
    assert f"PV {hp['bras_g']} → **{arm}**/{hp['bras_g']}" in took.embed["description"]
    assert ogl_level(arm, hp["bras_g"]) == "minor"
    await emu.emu.wait_until(
        lambda: "seconde arme : attaque" in field(emu, thread, "Chevalier"),
        what="the off hand on the tracker",
    )
