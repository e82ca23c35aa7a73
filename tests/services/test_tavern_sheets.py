"""Tavern games read the players' sheets (issue: character sheets, second part), on real databases."""

from __future__ import annotations

from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.services import characters as svc
from bot.services.caller import Caller
from bot.services.flows import tavern as flow_tavern
from bot.services.flows.common import FlowResult

GUILD = 1950
GRIMLI = "CC:45 CT:28 F:41 E:45 Ag:25 Int:30 FM:35 Soc:22"
BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=9, locale=locale, manage_guild=gm)


ALICE, GM, BOB = caller(1), caller(3, gm=True), caller(2, locale="en-US")


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return {n: validate_file(DATA_DIR / f"{n}.json") for n in ("skills", "tavern_games")}


@pytest.fixture
async def ctx(app_context: AppContext) -> AppContext:
    ok(await svc.create_character(app_context, ALICE, name="Grimli", stats=GRIMLI, race="nain"))
    ok(await svc.edit_character(app_context, ALICE, skills="Résistance à l'alcool +10, Jeu"))
    ok(await svc.edit_character(app_context, ALICE, talents="Maîtrise (armes de jet)"))
    ok(await svc.create_character(app_context, GM, name="Baron Noir", stats=BARON, npc=True))
    return app_context


def ok(reply: Any) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


def played(result: FlowResult) -> tuple[dict[str, Any], str]:
    reply = result.reply
    payload = ok(reply)
    return payload, "\n".join([reply.description or ""] + [f"{f.name} {f.value}" for f in reply.fields])


async def test_drinking_reads_grimlis_consume_alcohol(ctx: AppContext) -> None:
    result = await flow_tavern.play(
        ctx,
        ALICE,
        game="drinking",
        players="Grimli, Hans res=40",
        dice="Grimli 55 55 55 55, Hans 41 41 41 41",
    )
    payload, text = played(result)
    assert payload["winners"] == ["Grimli"]  # E 45 + 10 = 55: 55 succeeds, 41 fails against 40
    assert payload["sources"] == {"Grimli": {"res": "sheet"}, "Hans": {"res": "typed"}}
    assert "**Grimli** — de la fiche : Résistance à l'alcool 55" in text
    assert "**Hans** — à la main : Résistance à l'alcool 40" in text
    # A typed value wins over the sheet.
    typed = await flow_tavern.play(
        ctx, ALICE, game="drinking", players="Grimli res=20, Hans res=40", dice="Grimli 30"
    )
    payload, text = played(typed)
    assert payload["sources"]["Grimli"] == {"res": "typed"} and "à la main : Résistance à l'alcool 20" in text


async def test_a_name_that_is_no_sheet_still_needs_its_value(ctx: AppContext) -> None:
    refused = (await flow_tavern.play(ctx, ALICE, game="drinking", players="Grimli, Hans")).reply
    assert refused.is_error and refused.ephemeral
    assert refused.description == (
        "« Hans » n'est pas une fiche que vous pouvez lire : indiquez res= (Résistance à l'alcool), "
        "par exemple `Hans res=40`."
    )
    # Bob's own sheet is not Alice's: she must type its values; the GM's NPC neither.
    ok(await svc.create_character(ctx, BOB, name="Bob", stats=GRIMLI))
    for name in ("Bob", "Baron Noir"):
        message = (await flow_tavern.play(ctx, ALICE, game="arm_wrestling", players=f"Grimli, {name}")).reply
        assert message.is_error and f"« {name} » n'est pas une fiche" in (message.description or "")
        assert "45" not in (message.description or "")
    english = (await flow_tavern.play(ctx, BOB, game="knives", players="Bob, Grimli")).reply
    assert english.is_error and english.description == (
        '"Grimli" is not a sheet you may read: give ct= (BS), e.g. `Grimli ct=40`.'
    )


async def test_arm_wrestling_cards_and_knives_from_the_sheets(ctx: AppContext) -> None:
    arm = await flow_tavern.play(
        ctx, GM, game="arm_wrestling", players="Grimli, Baron Noir", dice="Grimli 10, Baron Noir 90"
    )
    payload, text = played(arm)
    assert payload["winners"] == ["Grimli"]
    assert "**Grimli** — de la fiche : F 41" in text
    assert "**Baron Noir** — de la fiche du PNJ (valeurs cachées)" in text
    cards = await flow_tavern.play(
        ctx, ALICE, game="cards", players="Grimli, Otto int=35", dice="Grimli 50, Otto 60"
    )
    payload, text = played(cards)
    grimli = next(s for s in payload["scores"] if s["name"] == "Grimli")
    assert grimli["bonus"] == 15  # Jeu acquired: half the Int 30
    assert "de la fiche : Int 30, Jeu 30, Perception 15" in text  # Perception untrained: Int / 2
    knives = await flow_tavern.play(
        ctx, ALICE, game="knives", players="Grimli, Otto ct=40", dice="Grimli 10 20 28"
    )
    payload, text = played(knives)
    assert payload["scores"][0]["target"] == 28  # the talent: the whole CT
    assert "de la fiche : CT 28, Maîtrise (armes de jet)" in text


async def test_english_sources(ctx: AppContext) -> None:
    ok(await svc.create_character(ctx, BOB, name="Bob", stats=GRIMLI))
    result = await flow_tavern.play(
        ctx, BOB, game="arm_wrestling", players="Bob, Otto f=30", dice="Bob 10, Otto 90"
    )
    _payload, text = played(result)
    assert "**Bob** — from the sheet: S 41" in text and "**Otto** — typed: S 30" in text
    assert "Values" in text
