"""`d20` weapons of mass destruction (issue 20, item 10; seed 003 l. 152-157, 188-195), every die by
hand: DM against the best RDM worn — at or below it the target is not affected, above it he is
destroyed; the GM admitting a limb only (``situation:membre``, 1 or 2 DM) vaporises it; the PR
(radiation) is kept with the armour (the seed gives it no mechanics)."""

from __future__ import annotations

import pytest

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.rules.d20.combat import massive_damage
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import check_complete

from .fight_context import next_round
from .test_fights import CHANNEL, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx"]

BODY = "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11"


@pytest.mark.parametrize(
    ("dm", "rdm", "limb", "affected", "destroyed"),
    [
        (1, 0, False, True, True),  # unprotected: « désintégrée, vitrifiée … carbonisée »
        (3, 3, False, False, False),  # « inférieurs ou égaux à ce seuil » : not affected
        (4, 3, False, True, True),
        (2, 0, True, True, False),  # the GM admits a limb: 1 or 2 DM
        (3, 0, True, True, True),  # 3 DM: more than a limb
        (2, 2, True, False, False),
    ],
)
def test_dm_against_rdm(dm: int, rdm: int, limb: bool, affected: bool, destroyed: bool) -> None:
    found = massive_damage(dm, rdm, limb=limb)
    assert (found.affected, found.destroyed) == (affected, destroyed)


async def test_a_weapon_of_mass_destruction_in_a_fight(ctx: AppContext) -> None:
    check_complete()
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    ok(await open_fight(ctx, GM, name="Station"))
    gun = NpcStats(caracs=BODY, weapons="Désintégrateur 15 tir massif=2")
    ok(await add_combatants(ctx, GM, who="Tireur", stats=gun, side="Pirates"))
    suit = NpcStats(caracs=BODY, armour="Scaphandre 30/10/60 rdm=2 pr=5")
    ok(await add_combatants(ctx, GM, who="Garde", stats=suit))
    ok(await add_combatants(ctx, GM, who="Pilote", stats=NpcStats(caracs=BODY)))
    ok(await add_combatants(ctx, GM, who="Mécano", stats=NpcStats(caracs=BODY)))
    order = "Tireur: 20; Garde: 1; Pilote: 1; Mécano: 1"
    ok(await next_round(ctx, GM, dice=order))
    # the suit's RDM 2 stops 2 DM: not affected (a fired weapon: no defence)
    shot = await fights_attacks.attack(
        ctx, GM, AttackInput(target="Garde", roll=5, location="thorax"), rng=NoDice()
    )
    result = ok(shot)
    assert result["massive"] == {"dm": 2, "rdm": 2, "affected": False, "limb_only": False, "destroyed": False}
    text = shot.reply.description or ""
    assert "Arme de destruction massive : 2 DM contre une RDM de 2" in text
    assert "Garde : la protection résiste, aucun effet." in text
    # the unprotected pilot: destroyed
    ok(await next_round(ctx, GM, dice=order))
    shot = await fights_attacks.attack(
        ctx, GM, AttackInput(target="Pilote", roll=5, location="thorax"), rng=NoDice()
    )
    assert ok(shot)["massive"]["destroyed"]
    assert "💀 Pilote : désintégration, vitrification ou, au mieux, carbonisation." in (
        shot.reply.description or ""
    )
    shown = ok(await show(ctx, GM))
    pilot = next(c for c in shown["state"]["combatants"] if c["id"] == "pilote")
    assert any(x["kind"] == "dead" for x in pilot["conditions"])
    # the GM admits a limb only (2 DM): vaporised; no server table, the maximum is the GM's
    ok(await next_round(ctx, GM, dice=order))
    shot = await fights_attacks.attack(
        ctx, GM, AttackInput(target="Mécano", roll=5, location="bras_g", situation="membre"), rng=NoDice()
    )
    assert ok(shot)["massive"]["limb_only"] and not ok(shot)["massive"]["destroyed"]
    assert "seul un membre est touché chez Mécano (bras_g), vaporisé" in (shot.reply.description or "")


async def test_a_d20_sheets_skills_in_a_fight_follow_instinct_and_savoir(ctx: AppContext) -> None:
    """Issue 20 item 7 (seed 003 l. 8-9) in fights: a PC's Esquive 11/0 (Instinct, no Acquis) is the
    Inné at −5 = 6 (his dodge's chance 30 %), Bagarre 10/2 is 12, Histoire 6/0 (Savoir, no Acquis)
    is not usable."""
    from bot.services import characters as svc

    from .test_fights import ALICE

    check_complete()
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    zed = "FOR:12 CON:14 AGI:10 DEX:11 PER:13 INT:9 VOL:10 CHA:8"
    assert not (await svc.create_character(ctx, ALICE, name="Zed", ruleset="d20", stats=zed)).is_error
    typed = "Esquive:11/0 instinct, Histoire:6/0 savoir, Bagarre:10/2"
    edited = await svc.edit_character(ctx, ALICE, skills=typed)
    assert not edited.is_error, edited.description
    ok(await open_fight(ctx, GM, name="Bar"))
    added = ok(await add_combatants(ctx, ALICE, who="Zed"))
    skills = added["meta"]["zed"]["skills"]
    assert skills.get("esquive") == 11 - 5 and skills.get("bagarre") == 12 and "histoire" not in skills
