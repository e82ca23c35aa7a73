"""Issue #19's weapon rules in fights (renove): the second weapon's A, the Double attribute, the
polearms' profiles, aiming across rounds.

Every die is typed by hand (the bot's random source raises if it is asked for one); the expected
modifiers come from the data tables.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from bot.context import AppContext
from bot.data_loading import load_all
from bot.db import characters as repo
from bot.db.characters import new_row
from bot.db.fight_models import Fight, FightEvent
from bot.db.models import Character
from bot.rules.combat.tables import CombatTables
from bot.rules.sheets import SheetData, validate_characteristics
from bot.services import simulation
from bot.services.caller import Caller
from bot.services.characters import equip_character
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import keep_second_a
from bot.services.fights.text import Words

from .fight_context import ctx, next_round, ok, skip_turn

__all__ = ["ctx"]

GUILD, CHANNEL = 801, 43
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
ALICE_EN = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="en")
STATS = {"CC": 45, "CT": 40, "F": 35, "E": 40, "Ag": 38, "Int": 30, "FM": 30, "Soc": 33, "A": 1, "M": 4}
DOCS = {name: table.document for name, table in load_all().items()}
TABLES = CombatTables.from_documents(DOCS)
MISS = 95  # above every CC of these tests, below the fumble band: a plain miss, no defence asked


class NoDice:
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


def weapon_doc(wid: str) -> dict[str, Any]:
    for table in ("weapons_melee", "weapons_ranged"):
        for e in DOCS[table]["entries"]:
            if e["id"] == wid:
                return dict(e)
    raise KeyError(wid)


async def character(ctx: AppContext, name: str, weapons: tuple[str, ...], **stats: int) -> None:
    """A sheet; its second one-handed melee weapon (a dagger) said to be in the off hand."""
    off_hand = "dague" if "dague" in weapons[1:] else None
    data = SheetData(
        name=name,
        ruleset="renove",
        characteristics=validate_characteristics("renove", {**STATS, **stats}),
        weapons=list(weapons),
        off_hand=off_hand,
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, ALICE.user_id, data))


async def albert_first(ctx: AppContext, weapons: tuple[str, ...], **stats: int) -> int:
    """Alice's Albert (A 1 unless said) and a quick goblin; round 1 started, Albert's slot first."""
    await character(ctx, "Albert", weapons, **stats)
    fight_id = int(ok(await open_fight(ctx, GM, name="Duel"))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    return fight_id


async def swing(ctx: AppContext, weapon: str | None, caller: Caller = ALICE, **kw: Any) -> FightOutcome:
    return await fights_attacks.attack(
        ctx,
        caller,
        AttackInput(target="Gobelin", weapon=weapon, roll=kw.pop("roll", MISS), **kw),
        rng=NoDice(),
    )


def description(outcome: FightOutcome) -> str:
    return outcome.reply.description or ""


# -- 2. the second weapon's A, the Double attribute --------------------------------------------


async def test_the_second_weapons_attack_is_accepted_in_the_same_slot(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee", "dague"))
    first = await swing(ctx, "Épée")
    assert "Albert a encore l'A de sa seconde arme" in description(first), description(first)
    assert "Au tour de **Gobelin**" not in description(first)  # the slot is still Albert's
    second = await swing(ctx, "dague")
    text = description(second)
    assert not second.reply.is_error, text
    assert "Dague" in (second.reply.title or "")
    # the dagger is not Equilibrée: the off hand's −20 CC (seed l. 1018) is itemised
    assert "equilibree" not in weapon_doc("dague")["attributes"]
    assert "main non directrice -20" in text.split("\n")[0], text
    assert "seconde arme" not in text  # the extra A is spent: the turn passes to the goblin
    third = await swing(ctx, "Épée")
    assert third.reply.is_error and "Plus d'attaque disponible ce round" in description(third)


async def test_without_a_second_weapon_the_turn_passes(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee",))
    first = await swing(ctx, "Épée")
    assert "seconde arme" not in description(first)
    again = await swing(ctx, "Épée")
    assert again.reply.is_error and "Plus d'attaque disponible ce round" in description(again)


async def test_the_quarterstaffs_double_attribute_gives_its_a(ctx: AppContext) -> None:
    assert "double" in weapon_doc("baton")["attributes"]
    await albert_first(ctx, ("baton",))
    first = await swing(ctx, None)
    assert "Albert a encore l'A que donne son arme Double (Bâton)" in description(first)
    second = await swing(ctx, None)
    assert not second.reply.is_error, description(second)
    assert "Bâton" in (second.reply.title or "")
    # Equilibrée: no off-hand malus on the Double weapon's A
    assert "main non directrice" not in description(second).split("\n")[0]


async def test_with_two_a_the_second_weapon_waits_for_the_last_slot(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee", "dague"), A=2)
    first = await swing(ctx, "Épée")
    assert "seconde arme" not in description(first)  # his second slot is still to come
    # Albert's slots I = 98 and I/2 = 49 both come before the goblin's (3 + Ag)
    second = await swing(ctx, "Épée")
    assert "Albert a encore l'A de sa seconde arme" in description(second)
    third = await swing(ctx, "Dague")
    assert not third.reply.is_error, description(third)


async def test_the_second_weapon_line_in_english(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee", "dague"))
    first = await swing(ctx, "Épée", ALICE_EN)
    assert "Albert still has the second weapon's A" in description(first), description(first)
    second = await swing(ctx, "Dague", ALICE_EN)
    assert not second.reply.is_error and "Dagger" in (second.reply.title or "")


async def test_keeping_the_second_weapons_a_to_parry_passes_the_slot(ctx: AppContext) -> None:
    fight_id = await albert_first(ctx, ("epee", "dague"))
    first = await swing(ctx, "Épée")
    [[keep]] = first.reply.buttons
    assert keep.label == "Garder l'A pour parer" and keep.custom_id == f"melee:fight:{fight_id}:keep:1:0"
    here = (1, 0)
    refused = await keep_second_a(ctx, BOB, fight_id=fight_id, here=here)
    assert refused.reply.is_error and "Albert" in (refused.reply.description or "")
    kept = await keep_second_a(ctx, ALICE, fight_id=fight_id, here=here)
    text = description(kept)
    assert not kept.reply.is_error, text
    assert text.startswith("Albert garde son A supplémentaire pour parer : son créneau passe.")
    assert "Au tour de **Gobelin**" in text
    again = await keep_second_a(ctx, ALICE, fight_id=fight_id, here=here)
    assert again.reply.is_error  # the button is stale once used


async def test_a_shield_does_not_hold_the_turn(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee", "bouclier"))
    first = await swing(ctx, "Épée")
    assert "seconde arme" not in description(first) and not first.reply.buttons
    assert "Au tour de **Gobelin**" in description(first)


# -- 7. the polearms' profiles -----------------------------------------------------------------


HALBERD = "hallebarde_armes_d_hast"


async def stored_request(ctx: AppContext, fight_id: int) -> dict[str, Any]:
    """The last attack's request as the fight's log stored it."""
    async with ctx.sessions() as session:
        rows = await session.execute(
            select(FightEvent.payload)
            .where(FightEvent.fight_id == fight_id, FightEvent.kind == "attack")
            .order_by(FightEvent.seq.desc())
        )
        return dict(rows.scalars().first()["request"])


async def test_the_halberd_attacks_as_a_pike(ctx: AppContext) -> None:
    assert weapon_doc(HALBERD)["combines"] == ["hache_de_bataille_longue", "pique"]
    await albert_first(ctx, (HALBERD,))
    blow = await swing(ctx, "Hallebarde (pique)", roll=5, damage="4")
    text = description(blow)
    assert not blow.reply.is_error, text
    assert blow.reply.title == "⚔️ Albert → Gobelin · Hallebarde (pique)"
    assert "hallebarde_armes_d_hast" not in text and "pique " not in text
    # the pike's profile: Rapide, Offensive, Précise; its damage BF − 1 (not the axe's BF + 2)
    assert weapon_doc("pique")["damage"] == {"base": "BF", "modifier": -1}


@pytest.mark.parametrize(
    ("typed", "profile"),
    [
        ("Hallebarde (pique)", "pique"),
        ("hallebarde (HACHE)", "hache_de_bataille_longue"),
        ("Hallebarde pique", "pique"),
        ("pique", "pique"),
        ("Hallebarde/Armes d'Hast (hache)", "hache_de_bataille_longue"),
    ],
)
async def test_the_profile_is_read_from_what_is_typed(ctx: AppContext, typed: str, profile: str) -> None:
    fight_id = await albert_first(ctx, (HALBERD,))
    ok(await swing(ctx, typed))
    stored = await stored_request(ctx, fight_id)
    assert stored["weapon"] == profile and stored["carried"] == HALBERD


async def test_a_halberd_without_profile_is_refused_with_its_choices(ctx: AppContext) -> None:
    await albert_first(ctx, (HALBERD,))
    refused = await swing(ctx, None)
    assert refused.reply.is_error
    assert description(refused) == (
        "Précisez le profil de l'arme Hallebarde : « Hallebarde (hache) » ou « Hallebarde (pique) » "
        "(option `arme:`)."
    )
    wrong = await swing(ctx, "Hallebarde (marteau)")
    assert wrong.reply.is_error and "« Hallebarde (pique) »" in description(wrong)
    english = await swing(ctx, None, ALICE_EN)
    assert description(english) == (
        "Say which profile of the Halberd: « Halberd (axe) » or « Halberd (pike) » (the `weapon:` option)."
    )


async def test_the_poleaxe_attacks_as_a_hammer_in_english(ctx: AppContext) -> None:
    fight_id = await albert_first(ctx, ("hache_d_armes",))
    blow = await swing(ctx, "Poleaxe (hammer)", ALICE_EN)
    assert not blow.reply.is_error, description(blow)
    assert blow.reply.title == "⚔️ Albert → Gobelin · Poleaxe (hammer)"
    assert (await stored_request(ctx, fight_id))["weapon"] == "marteau_de_guerre_long"


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("fr", "Choisissez le profil d'arme : Hache de bataille longue ou Pique."),
        ("en", "Pick the weapon profile: Great axe or Pike."),
    ],
)
async def test_the_rules_refusal_names_the_profiles(ctx: AppContext, locale: str, expected: str) -> None:
    words = Words(ctx, locale, DOCS)
    params = {"weapons": ",".join(weapon_doc(HALBERD)["combines"])}
    assert words.refusal("combat.refusal.pick_combined_profile", params) == expected


@pytest.mark.parametrize(
    ("typed", "weapon"),
    [
        ("arme=hallebarde(pique)", "pique"),
        ("arme=hallebarde:hache", "hache_de_bataille_longue"),
        ("arme=hallebarde", "hache_de_bataille_longue"),  # alone: its first profile (reading)
        ("arme=hache_d_armes(marteau)", "marteau_de_guerre_long"),
        ("arme=epee", "epee"),
    ],
)
def test_simulate_reads_the_polearms_profile(typed: str, weapon: str) -> None:
    fighter = simulation.parse_profile(TABLES, f"CC=45 F=35 E=40 {typed}", "A")
    assert fighter.weapon == weapon


def test_simulate_refuses_an_unknown_profile() -> None:
    with pytest.raises(simulation.SimulationRefusal):
        simulation.parse_profile(TABLES, "CC=45 arme=hallebarde(marteau)", "A")
    with pytest.raises(simulation.SimulationRefusal):
        simulation.parse_profile(TABLES, "CC=45 arme=epee(pique)", "A")


# -- 5. aiming lasts until the next attack -----------------------------------------------------


def band(band_id: str) -> dict[str, Any]:
    return next(e for e in DOCS["range_bands"]["entries"] if e["id"] == band_id)


async def test_an_archer_aims_in_round_1_and_shoots_beyond_long_range_in_round_2(ctx: AppContext) -> None:
    bow = weapon_doc("arc_court")
    beyond = bow["range"]["long"] + 10  # 46 m for the short bow (18/36)
    assert band("hors_portee")["aim_required"]
    await albert_first(ctx, ("arc_court",))
    refused = await swing(ctx, "arc court", distance=beyond)
    assert (
        refused.reply.is_error
        and description(refused) == "Au-delà de la portée longue, il faut viser d'abord."
    )
    ok(await take_simple_action(ctx, ALICE, action="viser", option="precision"))
    assert "visée (précision)" in tracker_text(await show(ctx, GM))  # the tracker keeps it in view
    ok(await skip_turn(ctx, GM))  # the goblin's slot: round 1 is over
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    shot = await swing(ctx, "arc court", distance=beyond)
    text = description(shot)
    assert not shot.reply.is_error, text
    aim = TABLES.aim_options["precision"]["attack"]
    first = text.split("\n")[0]
    assert (
        f"visée (précision) +{aim}" in first and f"portée > max {band('hors_portee')['ct_modifier']}" in first
    )
    # the aim is spent by that attack: the next round, beyond long range is refused again
    ok(await skip_turn(ctx, GM))
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    again = await swing(ctx, "arc court", distance=beyond)
    assert again.reply.is_error and "il faut viser d'abord" in description(again)
    assert "visée (précision)" not in tracker_text(await show(ctx, GM))


def tracker_text(outcome: FightOutcome) -> str:
    reply = outcome.reply
    return "\n".join([reply.description or "", *(f"{f.name} {f.value}" for f in reply.fields)])


# -- 4. Immobilisante: the net captures ---------------------------------------------------------


async def albert_and_a_manual_goblin(ctx: AppContext, weapons: tuple[str, ...]) -> int:
    await character(ctx, "Albert", weapons)
    fight_id = int(ok(await open_fight(ctx, GM, name="Arène"))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="gobelin", defence="manuel"))
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    return fight_id


async def test_a_net_captures_without_damage_and_the_goblin_breaks_free(ctx: AppContext) -> None:
    assert weapon_doc("filet")["damage"] is None and "piegeant" in weapon_doc("filet")["attributes"]
    fight_id = await albert_and_a_manual_goblin(ctx, ("filet",))
    thrown = ok(await swing(ctx, "filet", roll=10, distance=4))
    assert thrown["pending"]
    took = await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=int(thrown["seq"]), rng=NoDice())
    text = description(took)
    assert not took.reply.is_error, text
    assert "Gobelin est capturé (Filet) : il perd ce round, puis devra se libérer (test d'Ag -10)" in text
    assert "damage" not in (took.reply.result or {})  # no damage: « weapon 'filet' deals no damage » is gone
    shown = tracker_text(await show(ctx, GM))
    assert "capturé · jusqu'à se libérer" in shown and "Attente" not in shown
    # round 2: the goblin may not attack, only break free; Ag − 10 (Piégeant)
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    ok(await skip_turn(ctx, GM))  # Albert's slot
    blow = await fights_attacks.attack(ctx, GM, AttackInput(target="Albert", roll=5), rng=NoDice())
    assert blow.reply.is_error
    assert description(blow) == "Capturé : il faut d'abord se libérer (/combat action action:se_liberer)."
    goblin_ag = await goblin_stat(ctx, fight_id, "Ag")
    failed = await take_simple_action(ctx, GM, action="se_liberer", roll=goblin_ag - 10 + 1)
    assert "Gobelin reste pris." in description(failed), description(failed)
    assert f"Ag {goblin_ag} · arme Piégeant/Légère -10 = **{goblin_ag - 10} %**" in description(failed)
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))
    ok(await skip_turn(ctx, GM))
    freed = await take_simple_action(ctx, GM, action="se_liberer", roll=goblin_ag - 10)
    assert "Gobelin se libère." in description(freed), description(freed)
    assert "capturé" not in tracker_text(await show(ctx, GM))


async def goblin_stat(ctx: AppContext, fight_id: int, stat: str) -> int:
    async with ctx.sessions() as session:
        fight = await session.get(Fight, fight_id)
        assert fight is not None
        goblin = next(c for c in fight.state["fight"]["combatants"] if c["name"] == "Gobelin")
        return int(goblin["characteristics"][stat])


async def test_breaking_free_when_not_caught_is_refused(ctx: AppContext) -> None:
    await albert_first(ctx, ("epee",))
    refused = await take_simple_action(ctx, ALICE, action="se_liberer", roll=10)
    assert refused.reply.is_error and description(refused) == "Albert n'est pas capturé."


# -- 12. Combattant virevoltant, Coups précis by name -----------------------------------------


@pytest.mark.parametrize(
    ("weapon", "stat"),
    [
        ("rapiere_sabre", "BA"),  # « Rapière/Sabre » is the seed's Rapière
        ("fleuret", "BA"),
        ("epee_courte_glaive", "BA"),  # « Epée courte/Glaive »
        ("baton", "BA"),
        ("epee", "BF"),
        ("dague", "BF"),
    ],
)
def test_combattant_virevoltant_uses_the_ba_with_its_weapons(weapon: str, stat: str) -> None:
    from bot.rules.combat.state import Combatant
    from bot.services.fights.damage import damage_bonus, damage_bonus_stat

    assert weapon in TABLES.weapons, sorted(w for w in TABLES.weapons if w.startswith(weapon[:4]))
    fighter = Combatant(
        "e", "Élise", {"BF": 6, "BA": 8}, weapons=(weapon,), talents=frozenset({"combattant_virevoltant"})
    )
    assert damage_bonus_stat(fighter, TABLES.weapons[weapon]) == stat
    assert damage_bonus(fighter, TABLES.weapons[weapon]) == (8 if stat == "BA" else 6)
    plain = Combatant("e", "Élise", {"BF": 6, "BA": 8}, weapons=(weapon,))
    assert damage_bonus_stat(plain, TABLES.weapons[weapon]) == "BF"


# -- 11. the second weapon's hand --------------------------------------------------------------


async def sheet_of(ctx: AppContext, name: str) -> Any:
    async with ctx.sessions() as session:
        row = (await session.execute(select(Character).where(Character.name == name))).scalar_one()
        return repo.to_sheet(row)


async def test_the_off_hand_is_the_one_the_player_says(ctx: AppContext) -> None:
    await character(ctx, "Albert", ("epee",))
    said = await equip_character(ctx, ALICE, name="Albert", off_hand="dague")
    assert not said.is_error, said.description
    assert "**Ajout** : Dague" in (said.description or "") and "**Main gauche** : Dague" in (
        said.description or ""
    )
    assert (await sheet_of(ctx, "Albert")).equipment["off_hand"] == ["dague"]
    # a two-handed weapon never goes in the off hand
    assert weapon_doc("hache_de_bataille_longue")["two_handed"]
    refused = await equip_character(ctx, ALICE, name="Albert", off_hand="hache de bataille longue")
    assert refused.is_error
    assert refused.description == (
        "Hache de bataille longue est une arme à deux mains : elle ne se tient pas dans la main gauche."
    )
    # taking the dagger off empties the off hand; « aucune » too
    ok_reply = await equip_character(ctx, ALICE, name="Albert", remove="dague")
    assert not ok_reply.is_error and "off_hand" not in (await sheet_of(ctx, "Albert")).equipment
    await equip_character(ctx, ALICE, name="Albert", off_hand="dague")
    cleared = await equip_character(ctx, ALICE, name="Albert", off_hand="aucune")
    assert not cleared.is_error and "off_hand" not in (await sheet_of(ctx, "Albert")).equipment


async def test_a_spare_weapon_is_not_a_second_weapon_held(ctx: AppContext) -> None:
    await character(ctx, "Albert", ("epee", "hache"))  # nothing said: the axe is a spare
    await albert_fight(ctx)
    first = await swing(ctx, None)
    assert "seconde arme" not in description(first) and "Epée" in (first.reply.title or "")
    assert "Au tour de **Gobelin**" in description(first)


async def test_a_quick_npcs_two_handed_second_weapon_is_not_in_the_off_hand(ctx: AppContext) -> None:
    ok(await open_fight(ctx, GM, name="Pont"))
    added = ok(
        await add_combatants(ctx, GM, who="Garde", stats=NpcStats(cc=40, f=35, e=30, weapons="epee, dague"))
    )
    other = ok(
        await add_combatants(
            ctx, GM, who="Soudard", stats=NpcStats(cc=40, f=35, e=30, weapons="epee, hallebarde")
        )
    )
    del added, other
    async with ctx.sessions() as session:
        fight = (await session.execute(select(Fight))).scalar_one()
        by_name = {c["name"]: c for c in fight.state["fight"]["combatants"]}
    assert by_name["Garde"]["off_hand"] == "dague"
    assert by_name["Soudard"].get("off_hand") is None  # unset: not written


async def albert_fight(ctx: AppContext) -> None:
    ok(await open_fight(ctx, GM, name="Duel"))
    ok(await add_combatants(ctx, ALICE, who="Albert"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await next_round(ctx, GM, dice="Albert: 20 20 20; Gobelin: 1 1 1"))


def test_the_off_hand_survives_an_export_and_an_import() -> None:
    from bot.rules.sheets import export_document, read_document

    data = SheetData(
        "Albert",
        "renove",
        validate_characteristics("renove", STATS),
        weapons=["epee", "dague"],
        off_hand="dague",
    )
    document = export_document(data)
    assert document["equipment"]["off_hand"] == "dague"
    assert read_document(document).off_hand == "dague"
    document["equipment"]["off_hand"] = "hache"  # not carried: dropped, not refused
    assert read_document(document).off_hand is None


# -- 14. the bow's BF ---------------------------------------------------------------------------


async def test_a_bow_asks_for_the_archers_bf(ctx: AppContext) -> None:
    assert weapon_doc("arc_court")["damage"] == {"base": "fixed", "value": 5}
    await albert_first(ctx, ("arc_court",), F=25)  # BF 2 + 3 (playable race) = 5: shoots, cannot aim
    aim = await take_simple_action(ctx, ALICE, action="viser", option="precision")
    assert aim.reply.is_error
    assert description(aim) == "Viser avec cet arc (Arc court) demande un BF supérieur à 5 : Albert a BF 5."
    shot = await swing(ctx, "arc court", distance=10)
    assert not shot.reply.is_error, description(shot)


async def test_a_weak_archer_cannot_draw_the_bow(ctx: AppContext) -> None:
    await albert_first(ctx, ("arc_court",), F=15)  # BF 1 + 3 = 4
    shot = await swing(ctx, "arc court", distance=10)
    assert shot.reply.is_error
    assert description(shot) == (
        "Albert n'a pas la force de bander cet arc (Arc court) : il faut un BF d'au moins 5 (BF 4)."
    )
