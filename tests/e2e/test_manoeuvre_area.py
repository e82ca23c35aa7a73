"""`/manoeuvre zone` — an `ogl` area effect — and the dive reaction through the real bot and the
emulator (seed 004, "Plonger"): one damage roll, each fighter caught dives (an Esquive test, −30 %
mounted and unhorsed, success halves the damage, the diver ends prone) or takes it (a button), the
armour off at the location named, the tracker updated. Every number is recomputed from the seed."""

from __future__ import annotations

from ..test_console_combat_systems import OGL_BODY, ogl_level, ogl_location_hp
from .harness import E2E
from .test_manoeuvre import field, knight_and_orc
from .turns import next_round

MOUNTED_DODGE = -30  # "Un personnage sur une monture souffre d'un malus -30% à sa compétence d'Esquive"


async def test_an_area_effect_and_the_dive_in_an_ogl_thread(emu: E2E) -> None:
    gm, thread = await knight_and_orc(
        emu, "Brasier", caracs=OGL_BODY + " DEX:14", armes="Épée 1d8+1 60%", armure="poitrine:2"
    )
    hp = ogl_location_hp(12, 12)
    await gm.slash("manoeuvre monture", monte=True, qui="Chevalier", channel=thread)
    early = await gm.slash(
        "manoeuvre zone", effet="Boule de feu", degats="3d6", cibles="Orc: tete", channel=thread
    )
    assert early.ephemeral and "Aucun round" in early.embed["description"]
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1")

    area = await gm.slash(
        "manoeuvre zone",
        effet="Boule de feu",
        degats="3d6",
        des="4 5 6",
        cibles="Chevalier: poitrine; Orc: jambe_d",
        channel=thread,
    )
    rolled = 4 + 5 + 6
    text = area.embed["description"]
    assert f"= **{rolled}**" in text and "plonger ou encaisser" in text
    # a dive against a melee attack is refused; here parrying is (it does not answer an area effect)
    parry = await gm.slash("combat defense", choix="parer", jet=5, channel=thread)
    assert parry.ephemeral and "ne répond pas" in parry.embed["description"]
    # the rider dives: Esquive 40 − 30 = 10; 9 succeeds (critical only ≤ 1): 15 → 7, armour 2: 5 on
    # the chest 5 → 0, a minor wound; unhorsed and prone whatever the result
    esquive = 40 + MOUNTED_DODGE
    dive = (await gm.slash("combat defense", choix="plonger", jet=9, channel=thread)).embed["description"]
    assert f"= **{esquive} %**" in dive and "diminués de moitié" in dive
    chest = hp["poitrine"] - (rolled // 2 - 2)
    assert ogl_level(chest, hp["poitrine"]) == "minor"
    assert f"→ PV {hp['poitrine']} → **{chest}**/{hp['poitrine']}" in dive
    assert "Chevalier a plongé : il n'est plus en selle." in dive
    # the Orc takes it (his button): 15 on the right leg 4 → −11, below −4: a major wound, prone
    taken = await gm.click("Orc — Encaisser", message=area.message)
    leg = hp["jambe_d"] - rolled
    assert ogl_level(leg, hp["jambe_d"]) == "major"
    assert f"→ PV {hp['jambe_d']} → **{leg}**/{hp['jambe_d']}" in taken.embed["description"]
    await emu.emu.wait_until(
        lambda: (
            "à terre" in field(emu, thread, "Chevalier")
            and "monté" not in field(emu, thread, "Chevalier")
            and f"Poitrine **{chest}/{hp['poitrine']}**" in field(emu, thread, "Chevalier")
            and f"Jambe D **{leg}/{hp['jambe_d']}**" in field(emu, thread, "Orc")
        ),
        what="the dive and the wounds on the tracker",
    )
    # the Orc's major leg wound put him down: prone, he cannot dive from the next effect
    blast = await gm.slash(
        "manoeuvre zone", effet="Explosion", degats="6", cibles="Orc: tete", channel=thread
    )
    assert "Explosion" in blast.embed["title"]
    again = await gm.slash("combat defense", choix="plonger", jet=5, channel=thread)
    assert again.ephemeral and "Impossible de plonger" in again.embed["description"]
    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
