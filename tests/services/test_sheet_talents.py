"""Talents on a `renove` sheet (the issue's talents part): known talents only, found by any name and
stored under their French name, « Autre : … » notes, Tireur d'élite on the base profile, and the
commands that read the effects from the book — on real databases, dice entered by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db.characters import find_character
from bot.db.models import Character
from bot.services import characters as svc
from bot.services.fights.roster import _talent_ids
from bot.services.flows import chase as flow_chase
from bot.services.flows import infection as flow_infection
from tests.services.test_sheet_skills import ALICE, GM, GUILD, GUNTHER, caller

BOB = caller(2, locale="en-US")


@pytest.fixture
def app_tables() -> dict[str, Table]:
    names = ("skills", "talents", "chases", "infection", "special_actions")
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


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("coups precis, AMBIDEXTRE", ["Coups précis", "Ambidextre"]),
        ("Strike to Injure; Sure Shot", ["Coups précis", "Tir précis"]),
        (
            "Maitrise (arbalètes), autre: Chance du débutant",
            ["Maîtrise (arbalètes)", "Autre : Chance du débutant"],
        ),
        ("Flee!, +Dur a cuire", ["Fuite", "Dur à cuire"]),
    ],
)
async def test_talents_as_players_type_them(ctx: AppContext, typed: str, stored: list[str]) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, talents=typed))
    assert (await sheet(ctx, "Hans")).talents == stored


async def test_unknown_talents_are_refused_with_suggestions_nothing_half_applied(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    reply = await svc.edit_character(
        ctx, ALICE, stats="CC:50", talents="Robuste, Coups precsi, Maîtrise, Xyzzy"
    )
    assert reply.is_error
    text = reply.description or ""
    assert "Talent inconnu : « Coups precsi ». Vouliez-vous dire : Coups précis ?" in text
    assert "Maîtrise se prend pour un groupe d'armes : p. ex. « Maîtrise (arbalètes) »." in text
    assert "« Autre : Xyzzy »" in text
    hans = await sheet(ctx, "Hans")
    assert hans.talents == [] and hans.characteristics["CC"] == 42  # nothing half-written
    english = await svc.edit_character(ctx, caller(1, locale="en-US"), talents="Ambidextrus")
    assert "Unknown talent: “Ambidextrus”. Did you mean: Ambidextre?" in (english.description or "")


async def test_tireur_d_elite_goes_into_the_base_profile(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))  # CT 31
    added = await svc.edit_character(ctx, ALICE, talents="Tireur d'elite")
    ok(added)
    assert "Tireur d'élite : CT +5, reporté sur le profil de base (31 → 36)." in (added.description or "")
    assert (await sheet(ctx, "Hans")).characteristics["CT"] == 36
    ok(await svc.edit_character(ctx, ALICE, talents="Tireur d'élite"))  # already held: nothing more
    assert (await sheet(ctx, "Hans")).characteristics["CT"] == 36
    removed = await svc.edit_character(ctx, ALICE, talents="-Marksman")
    assert "Tireur d'élite retiré : CT −5 sur le profil de base (36 → 31)." in (removed.description or "")
    typed = await svc.edit_character(ctx, ALICE, stats="CT:40", talents="Tireur d'élite")
    ok(typed)  # a CT typed in the same edit is taken as typed
    assert (await sheet(ctx, "Hans")).characteristics["CT"] == 40
    assert "profil de base" not in (typed.description or "")


async def test_old_sheets_keep_their_unknown_talents_and_the_next_edit_names_them(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    hans = await sheet(ctx, "Hans")
    async with ctx.sessions.begin() as session:
        row = await session.get(Character, hans.id)
        assert row is not None
        row.talents = ["Vieux talent", "Fuite"]
    shown = await svc.show_character(ctx, ALICE)
    assert "Vieux talent, Fuite" in str(shown.fields)
    edited = await svc.edit_character(ctx, ALICE, notes="Cherche son frère")
    ok(edited)
    assert "Talents absents du livre, gardés tels quels : Vieux talent." in (edited.description or "")
    cleaned = await svc.edit_character(ctx, ALICE, talents="-vieux talent, Autre : Vieux talent")
    ok(cleaned)
    assert (await sheet(ctx, "Hans")).talents == ["Fuite", "Autre : Vieux talent"]
    assert "absents du livre" not in (cleaned.description or "")


async def test_import_accepts_known_talents_only(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Hans", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, talents="Tireur d'élite, Fuite"))
    exported = await svc.export_character(ctx, ALICE, name=None)
    assert exported.content is not None
    document = json.loads(exported.content)
    document.update(name="Hans II", talents=["sure shot", "Autre : Chance", "Parade eclaire"])
    content = json.dumps(document).encode()
    refused = await svc.import_character(ctx, BOB, filename="h.json", size=len(content), content=content)
    assert refused.is_error and "Parade eclaire" in (refused.description or "")
    assert "Did you mean: Parade éclair, Réflexes éclair?" in (refused.description or "")
    document["talents"] = ["sure shot", "Autre : Chance", "tireur d'elite"]
    content = json.dumps(document).encode()
    ok(await svc.import_character(ctx, BOB, filename="h.json", size=len(content), content=content))
    copy = await sheet(ctx, "Hans II")
    assert copy.talents == ["Tir précis", "Autre : Chance", "Tireur d'élite"]
    assert copy.characteristics["CT"] == 36  # the exported profile already counts Tireur d'élite


async def test_chase_infection_and_fights_read_the_effects_from_the_book(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, ALICE, name="Gunther", stats=GUNTHER))
    ok(await svc.edit_character(ctx, ALICE, talents="Flee!, Hardy, Strike to Injure, lightning parry"))
    gunther = await sheet(ctx, "Gunther")
    assert not (await flow_chase.open_chase(ctx, GM, lead=3)).reply.is_error
    added = await flow_chase.add_runner(ctx, ALICE, role="fugitive", character="Gunther")
    assert (added.reply.result or {})["added"]["flee_talent"], added.reply.description

    hardy = await flow_infection.infection_test(ctx, ALICE, critical=5, character="Gunther", roll=90)
    plain = await flow_infection.infection_test(
        ctx, ALICE, critical=5, character="Gunther", hardy=False, roll=90
    )
    target = (hardy.reply.result or {})["test"]["target"]
    assert target == (plain.reply.result or {})["test"]["target"] + 10  # Dur à cuire +10, by default

    docs = {"talents": ctx.tables["talents"].document}
    assert _talent_ids(docs, gunther.talents) == {"fuite", "dur_a_cuire", "coups_precis", "parade_eclair"}
