"""Armour you can name on a sheet: unambiguous names, the whole outfit checked when equipping, PA per
zone and the wearing maluses on the sheet, the same maluses (and the same refusal) in the next fight.

Real data tables; every die of the fights is typed by hand. Expected numbers come from the seed
(000, armour table l. 754-777, 802, 860-873; Robuste l. 1293-1295) through armour.json.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.db.characters import new_row
from bot.rules.sheets import SheetData
from bot.services import characters as svc
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls, FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.opening import NpcStats, add_combatants, open_fight
from bot.services.fights.rounds import new_round
from bot.ui.reply import Reply

GUILD, CHANNEL = 900, 42
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
ALICE_EN = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
STATS = {"CC": 50, "CT": 40, "F": 35, "E": 40, "Ag": 70, "Int": 30, "FM": 30, "Soc": 33, "A": 1, "M": 4}


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return load_all()


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


class NoDice:
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def sheet(
    ctx: AppContext,
    name: str = "Albert",
    *,
    armour: tuple[str, ...] = (),
    weapons: tuple[str, ...] = ("epee",),
    talents: tuple[str, ...] = (),
    **stats: int,
) -> None:
    """A sheet written straight to the database (as an older bot version could have saved it)."""
    data = SheetData(
        name=name,
        ruleset="renove",
        characteristics={**STATS, **stats},
        skills={"Esquive": 10},
        talents=list(talents),
        weapons=list(weapons),
        armour=list(armour),
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, ALICE.user_id, data))
    assert not (await svc.set_active_character(ctx, ALICE, name=name)).is_error


async def stored(ctx: AppContext, name: str = "Albert") -> dict[str, list[str]]:
    async with ctx.sessions() as session:
        found = await svc.find_character(session, GUILD, name)
    assert found is not None
    return found.equipment


def text(reply: Reply) -> str:
    assert not reply.is_error, reply.description
    return reply.description or ""


def field(reply: Reply, name: str) -> str:
    return next(f.value for f in reply.fields if f.name == name)


def ok(outcome: FightOutcome) -> dict[str, Any]:
    assert not outcome.reply.is_error, outcome.reply.description
    return dict(outcome.reply.result or {})


# -- names and autocomplete ------------------------------------------------------------------


async def test_a_named_mail_shirt_is_equipped_and_the_answer_says_what_changed(ctx: AppContext) -> None:
    await sheet(ctx)
    reply = await svc.equip_character(ctx, ALICE, armour="Chemise de mailles")
    answer = text(reply)
    assert reply.ephemeral and not reply.fields  # what changed, not the whole sheet
    assert "**Ajout** : Chemise de mailles" in answer
    assert "**PA** : Tête 0 · Bras 2 · Corps 2 · Jambes 0" in answer
    assert "**Classe** : moyenne" in answer
    assert "**Malus** : Ag -5 · Initiative -5 · CC -5 · CT -5" in answer
    assert (await stored(ctx))["armour"] == ["maille_chemise"]
    assert reply.result is not None and reply.result["added"] == ["maille_chemise"]

    again = text(await svc.equip_character(ctx, ALICE, armour="chemise de MAILLES", weapon="Epée"))
    assert "**Déjà équipé, sans changement** : Epée, Chemise de mailles" in again and "Ajout" not in again
    assert await stored(ctx) == {"weapons": ["epee"], "armour": ["maille_chemise"]}


async def test_several_items_at_once_helmet_and_shirt_of_different_families(ctx: AppContext) -> None:
    await sheet(ctx, weapons=())
    answer = text(
        await svc.equip_character(
            ctx, ALICE, weapon="Epée, Bouclier", armour="Calotte de cuir bouilli, Chemise de mailles"
        )
    )
    assert "**Ajout** : Epée, Bouclier, Calotte de cuir bouilli, Chemise de mailles" in answer
    assert "**PA** : Tête 1 · Bras 2 · Corps 2 · Jambes 0" in answer
    assert "**Classe** : légère (tête), moyenne (bras, corps)" in answer
    assert "Perception auditive -10 %" in answer  # cuir bouilli, head fully covered (l. 685-686)
    removed = text(await svc.equip_character(ctx, ALICE, remove="Bouclier, Calotte de cuir bouilli"))
    assert "**Retrait** : Bouclier, Calotte de cuir bouilli" in removed
    assert await stored(ctx) == {"weapons": ["epee"], "armour": ["maille_chemise"]}


async def test_an_impossible_layering_is_refused_naming_both_pieces(ctx: AppContext) -> None:
    await sheet(ctx, armour=("maille_chemise",))
    refused = await svc.equip_character(ctx, ALICE, armour="Plastron de cuir bouilli", weapon="Dague")
    assert refused.is_error and refused.ephemeral
    assert "« Plastron de cuir bouilli » et « Chemise de mailles » ne se superposent pas sur le corps" in (
        refused.description or ""
    )
    assert "Rien n'a été changé." in (refused.description or "")
    assert "combat.armour" not in (refused.description or "")
    assert await stored(ctx) == {"weapons": ["epee"], "armour": ["maille_chemise"]}  # nothing saved
    # mail under plate is the seed's best stack: padded + mail + plate = 5 PA on the body (l. 66-68)
    stack = text(
        await svc.equip_character(
            ctx, ALICE, armour="Gambison matelassé, Plastron de plates", remove="Chemise"
        )
    )
    assert "Corps 5" not in stack  # the mail shirt was taken off
    full = text(await svc.equip_character(ctx, ALICE, armour="Haubert"))  # a former name, unambiguous
    assert "**Ajout** : Haubert de mailles" in full and "Corps 5" in full
    assert "Ag -15 · Initiative -15 · CC -5 · CT -5" in full  # mail -5 (body) + plate -10 (body)


async def test_ambiguous_former_names_are_refused_with_the_candidates(ctx: AppContext) -> None:
    await sheet(ctx)
    refused = await svc.equip_character(ctx, ALICE, armour="Chemise")
    assert refused.is_error
    description = refused.description or ""
    assert "« Chemise » désigne plusieurs objets" in description
    assert "« Chemise de mailles »" in description and "« Chemise matelassée »" in description


async def test_a_name_stored_by_an_older_version_resolves_as_before(ctx: AppContext) -> None:
    await sheet(ctx, armour=("Chemise",))  # the first « Chemise » of the table: the padded one
    shown = await svc.show_character(ctx, ALICE)
    assert field(shown, "Armure").startswith("Chemise matelassée\n**PA** : Tête 0 · Bras 1 · Corps 1")


def test_autocomplete_shows_material_pa_and_zones_within_discord_limits(ctx: AppContext) -> None:
    choices = svc.item_choices(ctx, "fr", "armour", "chemise de m")
    assert ("Chemise de mailles · Maille · 2 PA · bras, corps", "maille_chemise") in choices
    assert (
        "Chemise de maille cousue · Maille cousue · 2 PA · bras, corps",
        "maille_cousue_chemise",
    ) in choices
    salade = svc.item_choices(ctx, "fr", "armour", "salade")
    assert salade == [("Salade de plates · Plates · 2 PA · tête ½", "plates_salade")]
    everything = [
        c for letter in "abcdefghijklmnopqrstuvwxyz" for c in svc.item_choices(ctx, "fr", "armour", letter)
    ]
    assert everything and all(len(label) <= 100 and len(value) <= 100 for label, value in everything)
    english = svc.item_choices(ctx, "en-US", "armour", "mail sh")
    assert english[0] == ("Mail shirt · Mail · 2 AP · arms, body", "maille_chemise")
    # a list: the items already typed stay in the value, the last one is completed
    listed = svc.item_choices(ctx, "fr", "armour", "Calotte de cuir bouilli, chemise de mailles")
    assert listed[0] == (
        "Chemise de mailles · Maille · 2 PA · bras, corps",
        "Calotte de cuir bouilli, maille_chemise",
    )


# -- the sheet -------------------------------------------------------------------------------


async def test_the_sheet_shows_pa_per_zone_maluses_weapons_and_shields(ctx: AppContext) -> None:
    await sheet(ctx, armour=("plates_salade", "maille_chemise"), weapons=("epee", "bouclier", "arc_long"))
    shown = await svc.show_character(ctx, ALICE)
    weapons = field(shown, "Armes").splitlines()
    assert weapons[0] == "Epée — dégâts BF · Vicelarde, Défensive"
    assert weapons[1].startswith("Bouclier — dégâts BF-2 · Défensive") and weapons[1].endswith("· 80 PV")
    assert weapons[2] == "Arc long — dégâts 6 · Perforante"
    armour = field(shown, "Armure").splitlines()
    assert armour == [
        "Salade de plates, Chemise de mailles",
        "**PA** : Tête 2 (½) · Bras 2 · Corps 2 · Jambes 0",
        "(¼, ½ : part de la zone couverte ; un d100 dit si le coup touche la pièce.)",
        "**Classe** : lourde (tête), moyenne (bras, corps)",
        "**Malus** : Ag -5 · Initiative -5 · CC -5 · CT -5",
    ]


async def test_robuste_cancels_five_points_of_ag_and_of_cc_not_ct(ctx: AppContext) -> None:
    await sheet(ctx, armour=("maille_chemise",), talents=("Robuste",))
    armour = field(await svc.show_character(ctx, ALICE), "Armure")
    assert "**Malus** : CT -5 (Ag +5, CC +5 grâce à Robuste)" in armour
    await sheet(ctx, "Bruno", armour=("plates_plastron",), talents=("Robuste",))
    plate = field(await svc.show_character(ctx, ALICE, name="Bruno"), "Armure")
    assert "**Malus** : Ag -5 · Initiative -5 (Ag +5 grâce à Robuste)" in plate  # -10 body, 5 cancelled


async def test_the_sheet_in_english(ctx: AppContext) -> None:
    await sheet(ctx, armour=("maille_haubert",))
    shown = await svc.show_character(ctx, ALICE_EN)
    armour = field(shown, "Armour")
    assert armour.startswith("Mail hauberk\n**AP**: Head 0 · Arms 2 · Body 2 · Legs 2 (½)")
    assert "**Penalties**: Ag -5 · Initiative -5 · WS -5 · BS -5" in armour
    assert field(shown, "Weapons") == "Sword — damage SB · Vicious, Defensive"
    refused = await svc.equip_character(ctx, ALICE_EN, armour="Boiled leather breastplate")
    assert "“Boiled leather breastplate” and “Mail hauberk” cannot be layered on the body" in (
        refused.description or ""
    )


# -- the next fight applies them -------------------------------------------------------------


async def _fight(ctx: AppContext, *, talents: tuple[str, ...] = ()) -> dict[str, Any]:
    await sheet(ctx, armour=("maille_chemise",), talents=talents)
    ok(await open_fight(ctx, GM, name="Duel"))
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="Orque", stats=NpcStats(cc=50, ag=30)))
    return ok(await new_round(ctx, GM, dice="Albert: 10 10 10; Orque: 1 1 1"))


async def test_mail_shirt_ag_70_dice_10_10_10_gives_initiative_95_and_attacks_at_45(ctx: AppContext) -> None:
    started = await _fight(ctx)
    albert = next(i for i in started["initiative"] if i["combatant"] == "albert")
    assert (albert["ag"], albert["total"]) == (65, 95)
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Orque", roll=46), rng=NoDice()))
    check = attack["attack"]["check"]
    assert check["target"] == 45 and not check["success"]  # 50 + (50 − 50) − 5
    assert {"label": "combat.modifier.armour_malus", "value": -5} in check["modifiers"]


async def test_the_round_and_the_attack_itemise_the_armour(ctx: AppContext) -> None:
    await sheet(ctx, armour=("maille_chemise",))
    ok(await open_fight(ctx, GM, name="Duel"))
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="Orque", stats=NpcStats(cc=50, ag=30)))
    started = await new_round(ctx, GM, dice="Albert: 10 10 10; Orque: 1 1 1")
    assert "**Albert** : 10+10+10 + Ag 65 (70 -5 : armure) = **95**" in (started.reply.description or "")
    attack = await fights_attacks.attack(ctx, ALICE, AttackInput(target="Orque", roll=46), rng=NoDice())
    assert "CC 50 · ajustement (50 − CC adverse) +0 · armure -5 = **45 %**" in (
        attack.reply.description or ""
    )


async def test_dodge_and_parry_carry_the_armour_malus(ctx: AppContext) -> None:
    await _fight(ctx)
    ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Orque", roll=46), rng=NoDice()))
    for choice, stat, base in (("esquiver", "ag", 70), ("parer", "cc", 50)):
        attack = ok(
            await fights_attacks.attack(
                ctx, GM, AttackInput(target="Albert", attacker="Orque", roll=5, damage="1"), rng=NoDice()
            )
        )
        defended = ok(
            await defend(
                ctx,
                ALICE,
                choice=choice,
                fight_id=attack["fight_id"],
                seq=attack["seq"],
                rolls=DefenceRolls(roll=1, side_effect=1),
                rng=NoDice(),
            )
        )
        check = defended["defence"]["check"]
        assert check["modifiers"][0] == {"label": f"combat.modifier.{stat}", "value": base}
        assert {"label": "combat.modifier.armour_malus", "value": -5} in check["modifiers"]
        assert check["target"] == sum(m["value"] for m in check["modifiers"])
        if choice == "esquiver":  # the malus is taken off the Ag the dodge is computed on
            assert check["modifiers"][1] == {"label": "combat.modifier.armour_malus", "value": -5}
        ok(await new_round(ctx, GM, dice="Orque: 20 20 20; Albert: 1 1 1"))


async def test_robuste_in_a_fight(ctx: AppContext) -> None:
    started = await _fight(ctx, talents=("Robuste",))
    albert = next(i for i in started["initiative"] if i["combatant"] == "albert")
    assert (albert["ag"], albert["total"]) == (70, 100)
    attack = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Orque", roll=46), rng=NoDice()))
    assert attack["attack"]["check"]["target"] == 50


async def test_a_fight_refuses_an_old_impossible_outfit_with_the_same_sentence(ctx: AppContext) -> None:
    await sheet(ctx, armour=("cuir_bouilli_plastron", "maille_haubert"))  # saved before the check
    shown = field(await svc.show_character(ctx, ALICE), "Armure")
    assert (
        "⚠️ « Plastron de cuir bouilli » et « Haubert de mailles » ne se superposent pas sur le corps" in shown
    )
    ok(await open_fight(ctx, GM, name="Duel"))
    refused = await add_combatants(ctx, ALICE, who="Albert")
    assert refused.reply.is_error
    description = refused.reply.description or ""
    assert (
        "« Plastron de cuir bouilli » et « Haubert de mailles » ne se superposent pas sur le corps"
        in description
    )
    assert "combat.armour" not in description
