"""`/manoeuvre` in an ogl fight thread through the real bot and the emulator (seed 004): the mount's
modifiers applied by ``/combat``, combat actions lost (no action, no reaction, counted down on the
tracker), the counter-attack reaction, hero points. Every number is recomputed from the seed."""

from __future__ import annotations

from bot.emulator.client import Player
from bot.emulator.state import Channel

from ..test_console_combat_systems import OGL_BODY, ogl_level, ogl_location_hp, ogl_opposed
from .harness import E2E
from .turns import next_round, skip_turn

RIDER_VS_FOOT = 20  # "Un cavalier a 20% de bonus à ses attaques et parades contre des adversaires ... à pied"
FOOT_VS_RIDER = (
    -20
)  # "Un personnage à pied subit un malus de -20% à ses Réactions contre un personnage monté"
RUN_COUNTER = 20  # "Courir : ... Tout ennemi adjacent peut lancer une Contre-Attaque avec un bonus de 20%"


def field(emu: E2E, thread: Channel, name: str) -> str:
    fields = emu.pins(thread)[0].embeds[0]["fields"]
    return next(
        str(f["value"]) for f in fields if str(f["name"]).lstrip("▶💀💤 ").split(" · ")[0].strip("~") == name
    )


async def knight_and_orc(emu: E2E, name: str, **knight: str) -> tuple[Player, Channel]:
    """The GM opens the ogl fight thread ``name`` and adds Chevalier (``knight``: his options) and an Orc."""
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    opened = await gm.slash("combat ouvrir", nom=name)
    await opened.wait_followup()
    thread = emu.thread(name)
    await gm.slash("combat ajouter", qui="Chevalier", channel=thread, **knight)
    await gm.slash(
        "combat ajouter",
        qui="Orc",
        caracs=OGL_BODY + " DEX:14 RA:2",
        armes="Hache 1d8 50%",
        camp="Orcs",
        channel=thread,
    )
    return gm, thread


async def test_manoeuvres_in_an_ogl_thread(emu: E2E) -> None:
    gm, thread = await knight_and_orc(
        emu, "Lice", caracs=OGL_BODY + " DEX:14 PH:2 Bagarre:50", armes="Épée 1d8+1 60%, Bouclier 1d4 40%"
    )
    hp = ogl_location_hp(12, 12)
    mounted = await gm.slash("manoeuvre monture", monte=True, qui="Chevalier", channel=thread)
    assert "Chevalier est en selle" in mounted.embed["description"]
    await emu.emu.wait_until(
        lambda: "monté" in field(emu, thread, "Chevalier"), what="mounted on the tracker"
    )

    # ranks: Chevalier 5 + 0, Orc 1 + 2 = 3
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")
    sword, axe = 60 + RIDER_VS_FOOT, 50 + FOOT_VS_RIDER
    attack = await gm.slash(
        "combat attaque", cible="Orc", jet=75, localisation="bras_d", degats="4", effets="3", channel=thread
    )
    assert f"cavalier contre piéton +20 = **{sword} %**" in attack.embed["description"]
    parry = (await gm.slash("combat defense", choix="parer", jet=35, channel=thread)).embed["description"]
    assert f"piéton contre cavalier -20 = **{axe} %**" in parry
    assert ogl_opposed(sword, 75, axe, 35) == "hit"
    # 1d8 4 + 1 = 5 on the right arm 3 → −2: serious, the 1d4 (3) next combat actions lost
    after = hp["bras_d"] - (4 + 1)
    assert ogl_level(after, hp["bras_d"]) == "serious"
    assert f"→ PV 3 → **{after}**/3" in parry and "actions de combat perdues · 3" in parry

    # the Orc's slot: no attack while his combat actions are lost
    refused = await gm.slash("combat attaque", cible="Chevalier", jet=10, localisation="tete", channel=thread)
    assert refused.ephemeral and "encore 3" in refused.embed["description"]
    # he runs off: the Chevalier counter-attacks, rider +20 and running +20 → 100 %; 70 hits; the Orc
    # cannot dodge (actions lost), he takes it: 1d8 2 + 1 = 3 on the chest 5 → 2
    counter = await gm.slash(
        "manoeuvre riposte",
        cible="Orc",
        declencheur="court",
        qui="Chevalier",
        jet=70,
        localisation="poitrine",
        degats="2",
        channel=thread,
    )
    assert f"= **{60 + RIDER_VS_FOOT + RUN_COUNTER} %**" in counter.embed["description"]
    dodge = await gm.slash("combat defense", choix="esquiver", jet=5, channel=thread)
    assert dodge.ephemeral and "encore 3" in dodge.embed["description"]
    taken = await gm.click("Encaisser", message=counter.message)
    assert f"→ PV 5 → **{5 - 3}**/5" in taken.embed["description"]
    again = await gm.slash(
        "manoeuvre riposte", cible="Orc", declencheur="court", qui="Chevalier", jet=5, channel=thread
    )
    assert again.ephemeral and "Une seule réaction" in again.embed["description"]
    await emu.emu.wait_until(
        lambda: (
            "actions perdues : 3" in field(emu, thread, "Orc") and "PH 2" in field(emu, thread, "Chevalier")
        ),
        what="lost actions and hero points on the tracker",
    )
    # the lost slot passes: 3 → 2
    passed = await skip_turn(gm, thread)
    assert "encore 2 actions de combat perdues" in passed.embed["description"]
    await emu.emu.wait_until(
        lambda: "actions perdues : 2" in field(emu, thread, "Orc"), what="the count down"
    )

    # a hero point: the GM grants hero's luck
    luck = await gm.slash(
        "manoeuvre heroisme", usage="chance_du_heros", qui="Chevalier", note="la lance tient", channel=thread
    )
    assert "Points d'héroïsme de Chevalier : 1." in luck.embed["description"]
    await emu.emu.wait_until(lambda: "PH 1" in field(emu, thread, "Chevalier"), what="one hero point left")
    await gm.slash("combat fin", channel=thread)
    # The bot edits the tracker and archives the thread after its reply: wait for it.
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
