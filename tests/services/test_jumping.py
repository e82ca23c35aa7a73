"""``/jump`` (``/saut``) through the service on a real database: the active character's sheet, its
armour (Ag malus, light armour), dice typed by hand, refusals in the user's language."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.db.characters import new_row, set_active
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.flows import jumping as service
from bot.services.flows.common import FlowResult

GUILD, CHANNEL = 901, 78
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")


class NoDice(random.Random):
    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


@pytest.fixture
def app_rng() -> random.Random:
    return NoDice()


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return load_all()


async def sheet(ctx: AppContext, owner: int, name: str, armour: tuple[str, ...] = (), **stats: int) -> None:
    base = {"CC": 30, "CT": 30, "F": 35, "E": 40, "Ag": 40, "Int": 30, "FM": 30, "Soc": 30, "BF": 3, "M": 4}
    data = SheetData(name=name, ruleset="renove", characteristics={**base, **stats}, armour=list(armour))
    async with ctx.sessions.begin() as session:
        row = new_row(GUILD, owner, data)
        session.add(row)
        await session.flush()
        await set_active(session, GUILD, owner, row.id)


def ok(result: FlowResult) -> tuple[dict[str, Any], str]:
    reply = result.reply
    assert not reply.is_error, reply.description
    return dict(reply.result or {}), (reply.title or "") + "\n" + (reply.description or "")


def refused(result: FlowResult) -> str:
    assert result.reply.is_error and result.reply.ephemeral
    return result.reply.description or ""


async def test_long_jump_from_the_active_sheet(app_context: AppContext) -> None:
    await sheet(app_context, ALICE.user_id, "Élise")
    result, text = ok(await service.jump(app_context, ALICE, kind="longueur", roll=30))
    assert result["character"] == "Élise" and result["max_distance"]["m"] == 3.5
    assert result["distance"]["m"] == 3.5 and result["test"]["target"] == 40
    assert "Saut en longueur d'Élise" in text and "3,5 m" in text
    # 62: 2 °E, 1.5 m less, then halved without a run-up: 1 m.
    result, text = ok(await service.jump(app_context, ALICE, kind="longueur", roll=62, run_up=False))
    assert result["lost"]["m"] == 1.5 and result["distance"]["m"] == 1 and "1,5 m de moins" in text


async def test_jumping_down_with_the_sheet_armour(app_context: AppContext) -> None:
    # A boiled-leather breastplate: light armour, no Ag malus → 3 damage − 1.
    await sheet(app_context, ALICE.user_id, "Élise", armour=("cuir_bouilli_plastron",))
    result, text = ok(await service.jump(app_context, ALICE, kind="hauteur", height=3, roll=70))
    assert result["test"]["target"] == 50 and not result["landed"]
    assert result["light_armour"] and result["damage"] == 2 and "2 points de dégâts" in text
    # A mail shirt: medium armour, Ag −5 on the test and no reduction.
    await sheet(app_context, GM.user_id, "Gunnar", armour=("maille_chemise",))
    mail = await service.jump(app_context, GM, kind="hauteur", height=2.5, roll=56)
    result, _ = ok(mail)
    assert result["test"]["target"] == 40 + 20 - 5 and not result["light_armour"]
    assert result["damage"] == 3 and "Armure : -5" in mail.reply.fields[0].value
    # Ag typed by hand: used as given, without the armour's malus.
    result, _ = ok(await service.jump(app_context, GM, kind="hauteur", height=2.5, ag=40, roll=56))
    assert result["test"]["target"] == 60 and result["landed"]
    # The option overrides the sheet; 2 m pile is the « 2m + » row (+30 %, 2 damage).
    result, _ = ok(await service.jump(app_context, GM, kind="hauteur", height=2, roll=90, light_armour=True))
    assert result["row"] == "h_2m" and result["damage"] == 1


async def test_refusals_in_the_users_language_write_nothing(app_context: AppContext) -> None:
    assert "Pas de personnage actif" in refused(await service.jump(app_context, ALICE, kind="longueur"))
    assert "height" in refused(await service.jump(app_context, BOB, kind="hauteur", ag=40))
    assert "SB and M" in refused(await service.jump(app_context, BOB, kind="longueur", ag=40, roll=10))
    assert "0 to 100 m" in refused(await service.jump(app_context, BOB, kind="hauteur", height=101, ag=40))
    assert "longueur" in refused(await service.jump(app_context, ALICE, kind="triple", ag=40))
    # No sheet, every value typed: (4 + 5)/2 = 4.5 m; 71 against 40 is 3 °E, 2 m less. English.
    result, text = ok(await service.jump(app_context, BOB, kind="longueur", ag=40, bf=4, m=5, roll=71))
    assert result["character"] is None and result["distance"]["m"] == 2.5 and "2.5 m" in text  # 4.5 − 2


async def test_a_sheet_of_another_system_is_told_what_is_missing(app_context: AppContext) -> None:
    data = SheetData(
        name="Élodie",
        ruleset="ogl",
        characteristics={"STR": 13, "CON": 12, "SIZ": 11, "INT": 10, "POW": 12, "DEX": 14, "CHA": 9},
    )
    async with app_context.sessions.begin() as session:
        row = new_row(GUILD, ALICE.user_id, data)
        session.add(row)
        await session.flush()
        await set_active(session, GUILD, ALICE.user_id, row.id)
    text = refused(await service.jump(app_context, ALICE, kind="longueur", roll=30))
    assert text.startswith("La fiche d'Élodie n'a pas l'Ag, le BF et le M")
    # Typed by hand, the jump works whatever the sheet.
    result, _ = ok(await service.jump(app_context, ALICE, kind="longueur", ag=40, bf=3, m=4, roll=30))
    assert result["distance"]["m"] == 3.5
