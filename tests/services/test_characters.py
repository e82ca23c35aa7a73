"""Character use cases on real databases: rights, validation, equipment, import/export, concurrency."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db import characters as repo
from bot.services import characters as svc
from bot.services.caller import Caller

GUILD = 500
STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
ARMOUR = Table(
    name="armour",
    schema="armour",
    document={
        "entries": [
            {
                "id": "casque",
                "family": "plates",
                "name": "Casque",
                "name_en": "Helmet",
                "coverage": {"tete": 1},
            },
            {
                "id": "cotte",
                "family": "mailles",
                "name": "Cotte de mailles",
                "name_en": "Mail coat",
                "coverage": {"corps": 1, "bras": 0.5},
            },
        ]
    },
)


def caller(user_id: int, *, gm: bool = False, locale: str = "fr", guild: int | None = GUILD) -> Caller:
    return Caller(user_id=user_id, guild_id=guild, channel_id=42, locale=locale, manage_guild=gm)


ALICE, BOB, GM = caller(1), caller(2), caller(3, gm=True)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    tables = {name: validate_file(DATA_DIR / f"{name}.json") for name in ("weapons_melee", "weapons_ranged")}
    tables["armour"] = ARMOUR
    return tables


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


async def _sheet(ctx: AppContext, name: str) -> repo.CharacterSheet:
    async with ctx.sessions() as session:
        sheet = await svc.find_character(session, GUILD, name)
    assert sheet is not None
    return sheet


async def test_create_sets_active_and_validates_every_problem(ctx: AppContext) -> None:
    reply = await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    assert not reply.is_error, reply.description
    async with ctx.sessions() as session:
        active = await svc.get_active_character(session, GUILD, ALICE.user_id)
    assert active is not None and active.name == "Albert" and active.characteristics["BF"] == 3 + 3  # human

    bad = await svc.create_character(ctx, ALICE, name="Bad", stats="CC:450 Foo:3 BF:2")
    assert bad.is_error and bad.ephemeral
    assert bad.result is not None
    assert set(bad.result["problems"]) >= {
        "characters.stat.unknown",
        "characters.stat.computed",
        "characters.stat.missing",
        "characters.stat.range",
    }
    taken = await svc.create_character(ctx, BOB, name="ALBERT", stats=STATS)
    assert taken.is_error and "déjà un personnage" in (taken.description or "")
    english = await svc.create_character(ctx, caller(1, locale="en-US"), name="X", stats="CC=oops")
    assert english.is_error and "cannot read" in (english.description or "")


async def test_rights_players_own_gm_all_npc_gm_only(ctx: AppContext) -> None:
    await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    refused = await svc.edit_character(ctx, BOB, name="Albert", stats="CC:99")
    assert refused.is_error and "n'est pas à vous" in (refused.description or "")
    assert (await _sheet(ctx, "Albert")).characteristics["CC"] == 45
    allowed = await svc.edit_character(ctx, GM, name="Albert", stats="CC:50")
    assert not allowed.is_error
    npc = await svc.create_character(ctx, BOB, name="Gork", stats=STATS, npc=True)
    assert npc.is_error and "MJ" in (npc.description or "")
    ok = await svc.create_character(ctx, GM, name="Gork", stats=STATS, npc=True)
    assert not ok.is_error and ok.ephemeral
    assert await svc.character_choices(ctx, BOB, "") == []
    assert [v for _, v in await svc.character_choices(ctx, GM, "")] == ["Gork", "Albert"]
    other_guild = await svc.show_character(ctx, caller(3, gm=True, guild=GUILD + 1), name="Albert")
    assert other_guild.is_error


async def test_edit_relative_skills_lists_and_ruleset_rules(ctx: AppContext) -> None:
    await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    reply = await svc.edit_character(
        ctx,
        ALICE,
        stats="PD:2 Fortune:2 CC:50",
        skills="Esquive:10, Connaissances académiques (Empire) +10",
        talents="Ambidextre, Sang-froid",
        conditions="Sonné",
        notes="Cherche son frère",
    )
    assert not reply.is_error, reply.description
    await svc.edit_character(
        ctx,
        ALICE,
        stats="Fortune:-1",
        skills="Esquive +20, -Connaissances académiques (empire)",
        talents="-sang-froid",
    )
    sheet = await _sheet(ctx, "Albert")
    assert sheet.characteristics["Fortune"] == 1 and sheet.characteristics["CC"] == 50
    assert sheet.skills == {"Esquive": 20}  # renove: masteries on the skill's characteristic
    assert sheet.talents == ["Ambidextre"] and sheet.conditions == ["Sonné"]
    assert sheet.version == 3
    bad = await svc.edit_character(ctx, ALICE, stats="Fortune:-5", talents="-Inconnu")
    assert bad.is_error and bad.result is not None
    assert set(bad.result["problems"]) == {"characters.stat.range", "characters.talent.not_present"}
    assert (await _sheet(ctx, "Albert")).version == 3  # nothing half-written

    await svc.create_character(
        ctx, GM, name="Zed", ruleset="d20", stats="FOR:12 CON:14 AGI:10 DEX:11 PER:13 INT:9 VOL:10 CHA:8"
    )
    await svc.edit_character(ctx, GM, name="Zed", skills="Escalade:8/3", stats="PV:-5")
    zed = await _sheet(ctx, "Zed")
    assert zed.characteristics["PVmax"] == 49 and zed.characteristics["PV"] == 44
    assert (
        zed.characteristics["PCmax"] == 28
        and zed.skills == {"Escalade": 3}
        and zed.skill_innate == {"Escalade": 8}
    )
    v1 = await svc.create_character(
        ctx,
        GM,
        name="Vieux",
        ruleset="v1",
        stats="CC:40 CT:30 F:3 E:4 B:8 I:35 Dex:30 Cd:30 Int:30 Cl:30 FM:30 Soc:30",
    )
    assert not v1.is_error, v1.description
    assert (await _sheet(ctx, "Vieux")).characteristics["Bact"] == 8


async def test_equip_by_name_and_armour_per_location(ctx: AppContext) -> None:
    await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    assert not (await svc.equip_character(ctx, ALICE, weapon="epee")).is_error
    reply = await svc.equip_character(ctx, ALICE, weapon="Arc long", armour="cotte de mailles")
    assert not reply.is_error, reply.description
    # the answer says what changed, not the whole sheet
    assert reply.description is not None and "**Ajout** : Arc long, Cotte de mailles" in reply.description
    assert not reply.fields
    sheet_shown = await svc.show_character(ctx, ALICE)
    weapons = next(f.value for f in sheet_shown.fields if f.name == "Armes")
    assert weapons.splitlines()[0].startswith("Epée — dégâts BF") and "Arc long — dégâts 6" in weapons
    assert next(f.value for f in sheet_shown.fields if f.name == "Armure") == "Cotte de mailles"
    unknown = await svc.equip_character(ctx, ALICE, weapon="Sabre laser")
    assert unknown.is_error
    await svc.equip_character(ctx, ALICE, remove="Epée")
    sheet = await _sheet(ctx, "Albert")
    assert sheet.equipment == {"weapons": ["arc_long"], "armour": ["cotte"]}
    assert {"arc_simple", "arc_court", "arc_long"} <= {
        v for _, v in svc.item_choices(ctx, "fr", "weapon", "arc")
    }
    assert ("Helmet · head", "casque") in svc.item_choices(ctx, "en-US", "armour", "hel")


async def test_export_import_round_trip_and_readable_errors(ctx: AppContext) -> None:
    await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    await svc.edit_character(ctx, ALICE, skills="Esquive:10", talents="Ambidextre")
    await svc.equip_character(ctx, ALICE, weapon="Epée", armour="Casque")
    exported = await svc.export_character(ctx, ALICE, name=None)
    assert exported.content is not None and exported.filename == "albert.json"
    document = json.loads(exported.content)
    taken = await svc.import_character(
        ctx, ALICE, filename="a.json", size=len(exported.content), content=exported.content
    )
    assert taken.is_error
    imported = await svc.import_character(
        ctx, BOB, filename="a.json", size=len(exported.content), content=exported.content, name="Albert II"
    )
    assert not imported.is_error, imported.description
    copy = await _sheet(ctx, "Albert II")
    original = await _sheet(ctx, "Albert")
    assert copy.owner_id == BOB.user_id
    assert copy.data() == original.data().__class__(**{**_fields(original.data()), "name": "Albert II"})

    document.update(ruleset="v2", talents="x", extra=1)
    document["characteristics"]["CC"] = "beaucoup"
    document["equipment"]["weapons"] = ["laser"]
    content = json.dumps(document).encode()
    bad = await svc.import_character(ctx, BOB, filename="bad.json", size=len(content), content=content)
    assert bad.is_error and bad.description is not None
    assert bad.description.startswith("« bad.json » :")
    for text in ("v2", "extra", "talents", "characteristics.CC"):
        assert text in bad.description, text
    too_big = await svc.import_character(ctx, BOB, filename="big.json", size=70_000, content=None)
    assert too_big.is_error and "64" in (too_big.description or "")
    not_json = await svc.import_character(ctx, BOB, filename="x.json", size=3, content=b"{,}")
    assert not_json.is_error and "ligne 1" in (not_json.description or "")
    # hostile JSON (#23): a RecursionError and a ValueError, « unexpected error » before
    for hostile, words in (
        (b"[" * 990 + b"]" * 990, "32 niveaux"),
        (b'{"name": "X", "age": ' + b"9" * 5000 + b"}", "nombre trop long"),
    ):
        refused_doc = await svc.import_character(
            ctx, BOB, filename="h.json", size=len(hostile), content=hostile
        )
        assert refused_doc.is_error and words in (refused_doc.description or ""), refused_doc.description
    npc_doc = {**json.loads(exported.content), "name": "Sbire", "is_npc": True}
    npc_bytes = json.dumps(npc_doc).encode()
    refused = await svc.import_character(ctx, BOB, filename="n.json", size=len(npc_bytes), content=npc_bytes)
    assert refused.is_error


def _fields(data: Any) -> dict[str, Any]:
    return {name: getattr(data, name) for name in data.__slots__}


async def test_delete_checks_version_and_rights(ctx: AppContext) -> None:
    await svc.create_character(ctx, ALICE, name="Albert", stats=STATS)
    ask = await svc.ask_delete(ctx, ALICE, name="Albert")
    assert ask.buttons and ask.result is not None
    custom_id = ask.buttons[0][0].custom_id
    assert custom_id == f"melee:perso:del:{ask.result['id']}:1"
    await svc.edit_character(ctx, ALICE, notes="changed meanwhile")
    stale = await svc.confirm_delete(ctx, ALICE, character_id=ask.result["id"], version=1)
    assert stale.is_error and "Quelqu'un d'autre" in (stale.description or "")
    assert (await svc.confirm_delete(ctx, BOB, character_id=ask.result["id"], version=2)).is_error
    done = await svc.confirm_delete(ctx, ALICE, character_id=ask.result["id"], version=2)
    assert not done.is_error
    async with ctx.sessions() as session:
        assert await svc.find_character(session, GUILD, "Albert") is None
        assert await svc.get_active_character(session, GUILD, ALICE.user_id) is None
    gone = await svc.confirm_delete(ctx, ALICE, character_id=ask.result["id"], version=2)
    assert gone.is_error


async def test_guild_only_and_empty_history(ctx: AppContext) -> None:
    dm = await svc.list_characters(ctx, caller(1, guild=None))
    assert dm.is_error
    history = await svc.roll_history(ctx, ALICE)
    assert not history.is_error and history.result == {"rolls": [], "page": 1}


async def test_hundred_concurrent_edits_never_lose_an_update(ctx: AppContext) -> None:
    await svc.create_character(  # v1: skills are free percentages (renove's sit on a characteristic)
        ctx,
        GM,
        name="Cible",
        ruleset="v1",
        stats="CC:40 CT:30 F:3 E:4 B:8 I:35 Dex:30 Cd:30 Int:30 Cl:30 FM:30 Soc:30",
    )
    # Each of 100 users (with the right to edit) adds one to a counter and a skill of their own,
    # each in its own session and transaction, all at once.
    editors = [caller(1000 + index, gm=True) for index in range(100)]
    replies = await asyncio.gather(
        *(
            svc.edit_character(ctx, who, name="Cible", skills=f"Compteur:+1 S{who.user_id}:1")
            for who in editors
        )
    )
    accepted = [who for who, reply in zip(editors, replies, strict=True) if not reply.is_error]
    refused = [reply for reply in replies if reply.is_error]
    stale = ctx.catalog.t("fr", "characters.error.stale")
    assert all(reply.description == stale for reply in refused), {r.description for r in refused}
    assert len(accepted) + len(refused) == 100
    assert accepted
    sheet = await _sheet(ctx, "Cible")
    assert sheet.skills.pop("Compteur") == len(accepted)
    assert set(sheet.skills) == {f"S{who.user_id}" for who in accepted}
    assert sheet.version == 1 + len(accepted)
