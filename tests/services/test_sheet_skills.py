"""The sheet a WFRP table keeps (issue 17's first part): skills on their characteristic, the seed's
+3 on the sheet, and the commands that read them — on real databases, dice entered by hand."""

from __future__ import annotations

from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db.characters import find_character
from bot.services import characters as svc
from bot.services import config as config_svc
from bot.services.caller import Caller
from bot.services.flows import chase as flow_chase
from bot.services.flows import infection as flow_infection
from bot.services.skill_tests.single import TestRequest, skill_test

GUILD = 1700
GUNTHER = "CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=5, locale=locale, manage_guild=gm)


ALICE, GM, BOB = caller(1), caller(3, gm=True), caller(2, locale="en-US")


@pytest.fixture
def app_tables() -> dict[str, Table]:
    names = ("skills", "secret_tests", "opposed_skills", "extended_tests", "chases", "infection")
    return {n: validate_file(DATA_DIR / f"{n}.json") for n in names}


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


def ok(reply: Any) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


async def sheet(ctx: AppContext, name: str) -> Any:
    async with ctx.sessions() as session:
        found = await find_character(session, GUILD, name)
    assert found is not None
    return found


async def test_gunther_skills_sit_on_their_characteristic(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Gunther", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, skills="Esquive +10, Perception"))
    assert (await sheet(ctx, "Gunther")).skills == {"Esquive": 10, "Perception": 0}

    dodge = ok(await skill_test(ctx, ALICE, TestRequest(skill="Esquive", roll=43)))
    assert dodge["target"] == 43 and dodge["success"]  # Ag 33 + 10
    search = await skill_test(ctx, ALICE, TestRequest(skill="Fouille", roll=14))
    result = ok(search)
    assert result["target"] == 14 and result["success"]  # Int 29 / 2, rounded down
    assert "non acquise" in str(search.fields) + str(search.description)
    refused = await skill_test(ctx, ALICE, TestRequest(skill="Crochetage", roll=10))
    assert refused.is_error and "avancée" in (refused.description or "")
    english = await skill_test(ctx, caller(1, locale="en-US"), TestRequest(skill="Crochetage", roll=10))
    assert english.is_error and "advanced skill" in (english.description or "")


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("Esquive:+10", {"Esquive": 10}),
        ("Esquive +10%", {"Esquive": 10}),
        ("esquive:10, ESCALADE +20", {"Esquive": 10, "Escalade": 20}),
        ("Dodge Blow +20", {"Esquive": 20}),
        ("Langue (reikspiel) +10", {"Langue (reikspiel)": 10}),
    ],
)
async def test_masteries_as_players_type_them(ctx: AppContext, typed: str, expected: dict[str, int]) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, skills=typed))
    assert (await sheet(ctx, "Hans")).skills == expected


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("Esquive:45", "+0, +10 ou +20"),
        ("Esquive -10", "+0, +10 ou +20"),
        ("Esquvie +10", "Esquive"),  # a suggestion
        ("Langue +10", "spécialité"),
        ("-Fouille", "rien à retirer"),
    ],
)
async def test_bad_masteries_are_refused_with_an_example(ctx: AppContext, typed: str, says: str) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    reply = await svc.edit_character(ctx, ALICE, skills=typed)
    assert reply.is_error and says in (reply.description or ""), reply.description
    assert (await sheet(ctx, "Hans")).skills == {}


async def test_the_seed_bonus_is_on_the_sheet_npcs_included(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Gunther", stats=GUNTHER))
    gunther = await sheet(ctx, "Gunther")
    stats = gunther.characteristics
    assert (stats["BF"], stats["BE"], stats["BA"]) == (6, 7, 6)
    npc = "CC:40 CT:40 F:40 E:40 Ag:40 Int:40 FM:40 Soc:40"
    ok(await svc.create_character(ctx, GM, name="Garde", stats=npc, npc=True))
    assert (await sheet(ctx, "Garde")).characteristics["BF"] == 7
    ok(await svc.create_character(ctx, GM, name="Loup", stats=npc, npc=True, race="autre"))
    assert (await sheet(ctx, "Loup")).characteristics["BF"] == 4  # a creature: no bonus
    ok(await svc.edit_character(ctx, GM, name="Loup", race="Nain"))
    assert (await sheet(ctx, "Loup")).characteristics["BF"] == 7  # a new race recomputes BF


async def test_chase_and_infection_read_be_7_from_the_sheet(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Gunther", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, talents="Fuite"))
    assert not (await flow_chase.open_chase(ctx, GM, lead=3)).reply.is_error
    added = await flow_chase.add_runner(ctx, ALICE, role="fugitive", character="Gunther")
    assert not added.reply.is_error, added.reply.description
    assert "BE 7" in (added.reply.description or "") and "4 rounds" in (added.reply.description or "")
    fever = await flow_infection.infection_test(ctx, ALICE, critical=5, roll=90)
    assert not fever.reply.is_error, fever.reply.description
    assert (fever.reply.result or {})["test"]["target"] >= 41  # E 41, no malus on this critical


async def test_profile_career_xp_and_purse(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Gunther", stats=GUNTHER, race="nain", career="Ratier"))
    ok(await svc.edit_character(ctx, ALICE, xp="120/80", money="3 co 5 pa 10 s"))
    ok(await svc.edit_character(ctx, ALICE, xp="+50", money="-5 s"))
    profile = (await sheet(ctx, "Gunther")).profile
    assert profile["race"] == "nain" and profile["career"] == "Ratier"
    assert profile["xp"] == {"total": 170, "spent": 80} and profile["money"] == {"co": 3, "pa": 5, "s": 5}
    shown = await svc.show_character(ctx, ALICE)
    assert shown.ephemeral  # /perso voir answers privately unless public:oui
    assert "Nain · Ratier · 170 PX (90 à dépenser) · 3 co, 5 pa, 5 s" in (shown.description or "")
    assert not (await svc.show_character(ctx, ALICE, public=True)).ephemeral
    broke = await svc.edit_character(ctx, ALICE, money="-10 co")
    assert broke.is_error and "négative" in (broke.description or "")
    english = await svc.edit_character(ctx, caller(1, locale="en-US"), xp="lots")
    assert english.is_error and "Unreadable experience" in (english.description or "")


async def test_d20_skills_are_instinct_or_savoir(ctx: AppContext) -> None:
    zed = "FOR:12 CON:14 AGI:10 DEX:11 PER:13 INT:9 VOL:10 CHA:8"
    assert not (await config_svc.set_ruleset(ctx, GM, ruleset="d20")).is_error
    ok(await svc.create_character(ctx, ALICE, name="Zed", ruleset="d20", stats=zed))
    ok(await svc.edit_character(ctx, ALICE, skills="Escalade:8/0 instinct, Histoire:6/0 savoir, Tir:9/3"))
    zed_sheet = await sheet(ctx, "Zed")
    assert zed_sheet.profile["knowledge"] == ["Histoire"]
    climb = ok(await skill_test(ctx, ALICE, TestRequest(skill="Escalade", roll=3)))
    assert climb["target"] == 8 - 5  # an Instinct without Acquis: the Inné at −5
    lore = await skill_test(ctx, ALICE, TestRequest(skill="Histoire", roll=3))
    assert lore.is_error and "Savoir" in (lore.description or "")
    shown = await svc.show_character(ctx, ALICE)
    skills = next(f.value for f in shown.fields if f.name == "Compétences")
    assert "Histoire 6/0 (savoir)" in skills and "Escalade 8/0 (instinct)" in skills


async def test_infection_reads_the_race_for_the_dwarf_and_halfling_bonus(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Grimli", stats=GUNTHER, race="nain"))
    dwarf = await flow_infection.infection_test(ctx, ALICE, critical=5, roll=90)
    ok(await svc.create_character(ctx, BOB, name="Hans", stats=GUNTHER))
    human = await flow_infection.infection_test(ctx, BOB, critical=5, roll=90)
    assert (dwarf.reply.result or {})["test"]["target"] == (human.reply.result or {})["test"]["target"] + 10
    typed = await flow_infection.infection_test(ctx, ALICE, critical=5, roll=90, dwarf_halfling=False)
    assert (typed.reply.result or {})["test"]["target"] == (human.reply.result or {})["test"]["target"]


async def test_ogl_useless_limbs_on_the_sheet_cost_their_malus_outside_fights(ctx: AppContext) -> None:
    """Issue 20 item 21 (seed 004 l. 33-35): the sheet's conditions « bras droit inutilisable »,
    then « jambe gauche perdue » too: Athlétisme −20 % (a two-armed skill), Esquive −10 %."""
    body = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10"
    assert not (await config_svc.set_ruleset(ctx, GM, ruleset="ogl")).is_error
    ok(await svc.create_character(ctx, ALICE, name="Aude", ruleset="ogl", stats=body))
    ok(
        await svc.edit_character(
            ctx, ALICE, skills="Athlétisme:50, Esquive:40", conditions="bras droit inutilisable"
        )
    )
    swim = ok(await skill_test(ctx, ALICE, TestRequest(skill="Athlétisme", roll=35)))
    assert swim["target"] == 50 - 20 and not swim["success"]
    dodge = ok(await skill_test(ctx, ALICE, TestRequest(skill="Esquive", roll=35)))
    assert dodge["target"] == 40
    ok(await svc.edit_character(ctx, ALICE, conditions="bras droit inutilisable, jambe gauche perdue"))
    dodge = ok(await skill_test(ctx, ALICE, TestRequest(skill="Esquive", roll=35)))
    assert dodge["target"] == 40 - 10
