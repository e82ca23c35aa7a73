"""Secrets stay secret (issues #19 item 18, #22 item 3, #23 items 2 and 3).

- A secret result is the GM's alone: its roller does not find it in ``/historique`` (the GM does).
- A sheet's values reach only its owner and the GM, in ``/oppose`` and ``/groupe`` as in
  ``/perso voir``: another player's character takes part with its values hidden.
- A skill the seed lists as always secret (Fouille, Évaluation, Orientation, Pistage…) cannot be
  made public by a player; the GM may. ``/oppose`` and ``/groupe`` have a secret mode.
- Every secret result goes to the same place (the GM channel when one is set), secret ``/lancer``
  rolls included, and the table's notice says why the test is secret.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.services import characters as svc
from bot.services import config as config_svc
from bot.services import house_rules
from bot.services.caller import Caller
from bot.services.rolls import roll_dice
from bot.services.skill_tests.extended import ExtendedRequest, extended_check
from bot.services.skill_tests.group import GroupRequest, group_opposed_check
from bot.services.skill_tests.opposed import OpposeRequest, opposed_check
from bot.services.skill_tests.single import TestRequest, skill_test
from bot.ui.reply import Reply

GUILD, OWNER, CHANNEL = 2300, 77, 42
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"
BERTHA = "CC:30 CT:45 F:30 E:35 Ag:40 Int:47 FM:35 Soc:33"
BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=CHANNEL, locale=locale, manage_guild=gm)


ALICE_ID, BOB_ID, GM_ID = 111111111111111111, 222222222222222222, 333333333333333333
ALICE, BOB, GM = caller(ALICE_ID), caller(BOB_ID, locale="en-US"), caller(GM_ID, gm=True)


@functools.cache
def _tables() -> dict[str, Table]:
    return load_all()


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return _tables()


def ok(reply: Reply) -> dict[str, Any]:
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


def text(reply: Reply) -> str:
    parts = [reply.title or "", reply.description or "", reply.footer or ""]
    parts += [f"{f.name} {f.value}" for f in reply.fields]
    return "\n".join(parts)


@pytest.fixture
async def ctx(app_context: AppContext) -> AppContext:
    ok(await svc.create_character(app_context, ALICE, name="Hans", stats=HANS))
    ok(await svc.edit_character(app_context, ALICE, skills="Filature, Perception"))
    ok(await svc.create_character(app_context, BOB, name="Bertha", stats=BERTHA))
    ok(await svc.edit_character(app_context, BOB, skills="Perception +20"))
    ok(await svc.create_character(app_context, GM, name="Baron Noir", stats=BARON, npc=True))
    return app_context


# --- #23 item 2: the roller does not read his secret result in /historique -----------------------


async def test_the_roller_does_not_find_his_secret_result_in_the_history(ctx: AppContext) -> None:
    secret = await skill_test(ctx, ALICE, TestRequest(skill="Fouille", carac="40", roll=35, owner_id=OWNER))
    assert secret.kind == "test_secret"
    ok(await skill_test(ctx, ALICE, TestRequest(carac="50", roll=12, label="Escalade")))
    mine = await svc.roll_history(ctx, ALICE)
    shown = text(mine)
    assert "Escalade" in shown and "12" in shown
    assert "Fouille" not in shown and "35" not in shown and "🔒" not in shown
    assert [r["label"] for r in ok(mine)["rolls"]] == ["Escalade"]
    # Nor through his character's history.
    by_character = await svc.roll_history(ctx, ALICE, character="Hans")
    assert "Fouille" not in text(by_character) and "35" not in json.dumps(by_character.result)
    # The GM's history shows it, marked secret.
    gm = await svc.roll_history(ctx, GM)
    assert "**35** — Fouille 🔒" in text(gm)


async def test_a_players_secret_roll_is_not_in_his_history_either(ctx: AppContext) -> None:
    rolled = await roll_dice(
        ctx, ALICE, expression="1d100", label="Piste", secret=True, manual="64", owner_id=OWNER
    )
    assert not rolled.ephemeral and "64" not in text(rolled)
    shown = text(await svc.roll_history(ctx, ALICE))
    assert "Piste" not in shown and "64" not in shown
    assert "**64** — Piste 🔒" in text(await svc.roll_history(ctx, GM))


# --- #23 item 3: another player's sheet is read by its owner and the GM only ----------------------


async def test_a_player_opposing_another_players_character_does_not_see_its_values(ctx: AppContext) -> None:
    request = OpposeRequest(
        side_a="Hans", side_b="Bertha", skill_a="Filature", rolls_a="20", rolls_b="30", owner_id=OWNER
    )
    reply = await opposed_check(ctx, ALICE, request)
    shown = text(reply)
    # Bertha's Perception: Int 47 + 20 = 67 — nowhere in what Alice gets, not even in the JSON.
    assert "67" not in shown and "67" not in json.dumps(reply.result)
    assert "30 sous une valeur cachée" in shown and "20 sous 36" in shown  # Hans: Filature on Ag 36
    assert "Les valeurs de Bertha (personnage d'un autre joueur) restent cachées" in shown
    assert reply.result is not None and reply.result["b"] == {"name": "Bertha", "hidden": True}
    (delivery,) = reply.also
    assert delivery.user_id == OWNER and "30 sous 67" in text(delivery.reply)
    # Should the GM not receive it, the table's reply says so rather than « parti au MJ ».
    assert delivery.if_undelivered is not None
    assert "Le résultat complet n'a pas pu être remis au MJ." in delivery.if_undelivered
    assert "parti au MJ" not in delivery.if_undelivered and "Bertha l'emporte" in delivery.if_undelivered
    # Bertha's own player sees her values; so does the GM; nothing goes elsewhere then.
    own = await opposed_check(ctx, BOB, request)
    assert "30 against 67" in text(own) and "20 against a hidden target" in text(own)  # Hans is Alice's
    gm = await opposed_check(ctx, GM, request)
    assert "30 sous 67" in text(gm) and not gm.also


async def test_a_mentioned_player_is_hidden_too_and_in_a_group(ctx: AppContext) -> None:
    mention = OpposeRequest(
        side_a="Hans", side_b=f"<@{BOB_ID}>", skill_a="Filature", rolls_a="20", rolls_b="30", owner_id=OWNER
    )
    reply = await opposed_check(ctx, ALICE, mention)
    assert "67" not in text(reply) and "67" not in json.dumps(reply.result)
    assert "30 sous une valeur cachée" in text(reply)
    group = GroupRequest(
        side_a="Hans",
        side_b="Bertha, Baron Noir",
        skill_a="Filature",
        rolls="Hans=05, Bertha=50, Baron Noir=60",
        owner_id=OWNER,
    )
    grouped = await group_opposed_check(ctx, ALICE, group)
    shown = text(grouped)
    assert "67" not in shown and "67" not in json.dumps(grouped.result)
    assert "Les valeurs de Bertha (personnage d'un autre joueur) restent cachées" in shown
    assert "Les valeurs de Baron Noir (PNJ du MJ) restent cachées" in shown
    (delivery,) = grouped.also
    assert "50 sous 67" in text(delivery.reply)
    # French elision: « Les valeurs d'Orque », not « de Orque ».
    ok(await svc.create_character(ctx, GM, name="Orque", stats=BARON, npc=True))
    orc = OpposeRequest(side_a="Hans", side_b="Orque", skill_a="Filature", rolls_a="20", rolls_b="30")
    shown = text(await opposed_check(ctx, ALICE, replace(orc, owner_id=OWNER)))
    assert "Les valeurs d'Orque (PNJ du MJ) restent cachées" in shown and "de Orque" not in shown


# --- #19 item 18: always-secret skills, and the secret mode of /oppose and /groupe --------------


async def test_a_player_cannot_make_an_always_secret_skill_public(ctx: AppContext) -> None:
    refused = await skill_test(ctx, ALICE, TestRequest(skill="Fouille", carac="40", roll=35, secret=False))
    assert refused.is_error and refused.ephemeral
    assert refused.description is not None and "35" not in refused.description
    assert "Fouille est toujours un test secret" in refused.description
    assert "seul le MJ" in refused.description
    english = await skill_test(ctx, BOB, TestRequest(skill="Pistage", carac="40", secret=False))
    assert english.is_error and english.ephemeral
    assert "Follow Trail is always a secret test" in (english.description or "")
    # Nothing was rolled or logged by the refusals.
    assert ok(await svc.roll_history(ctx, GM))["rolls"] == []
    # The GM may; a starred skill (Perception) may still be made public by a player.
    gm = await skill_test(ctx, GM, TestRequest(skill="Fouille", carac="40", roll=35, secret=False))
    assert gm.kind == "test" and not gm.ephemeral and "35 sous 40" in text(gm)
    starred = await skill_test(ctx, ALICE, TestRequest(skill="Perception", carac="40", roll=22, secret=False))
    assert starred.kind == "test" and "22 sous 40" in text(starred)


async def test_the_seeds_shadowing_against_perception_in_secret(ctx: AppContext) -> None:
    ok(await config_svc.set_gm_channel(ctx, GM, channel_id=555))
    request = OpposeRequest(
        side_a="Hans",
        side_b="Baron Noir",
        skill_a="Filature",
        rolls_a="80",
        rolls_b="30",
        secret=True,
        owner_id=OWNER,
    )
    reply = await opposed_check(ctx, ALICE, request)
    shown = text(reply)
    assert reply.kind == "opposed_secret" and not reply.ephemeral
    assert "80" not in shown and "30" not in shown and "Baron Noir" not in json.dumps(reply.result)
    assert "🔒" in shown and "Le résultat est parti au MJ" in shown
    assert "test secret à la demande du joueur" in shown
    (delivery,) = reply.also
    assert delivery.channel_id == 555
    full = text(delivery.reply)
    # Hans: Filature on Ag 36; the Baron: untrained Perception, half his Int 47.
    assert "80 sous 36" in full and "30 sous 23" in full and f"<@{ALICE_ID}>" in full
    # Logged as secret: out of Alice's history, in the GM's.
    assert "Filature" not in text(await svc.roll_history(ctx, ALICE))
    assert "🔒" in text(await svc.roll_history(ctx, GM))
    # The GM's own secret opposed test: his eyes only.
    gm = await opposed_check(ctx, GM, request)
    assert gm.ephemeral and "80 sous 36" in text(gm) and not gm.also


async def test_an_always_secret_skill_makes_the_opposed_and_group_tests_secret(ctx: AppContext) -> None:
    request = OpposeRequest(
        side_a="Hans", side_b="G=40", skill_a="Fouille", skill_b="Dissimulation", rolls_a="10", rolls_b="20"
    )
    reply = await opposed_check(ctx, ALICE, replace(request, owner_id=OWNER))
    assert reply.kind == "opposed_secret" and "Fouille : test secret selon les règles" in text(reply)
    refused = await opposed_check(ctx, ALICE, replace(request, owner_id=OWNER, secret=False))
    assert refused.is_error and "Fouille est toujours un test secret" in (refused.description or "")
    group = GroupRequest(
        side_a="G1=40, G2=40",
        side_b="V=35",
        skill_a="Perception",
        rolls="G1=03, G2=89 56, V=75 27",
        secret=True,
        owner_id=OWNER,
    )
    grouped = await group_opposed_check(ctx, BOB, group)
    assert grouped.kind == "group_opposed_secret" and "03" not in text(grouped)
    assert "secret test at the player's request" in text(grouped)
    (delivery,) = grouped.also
    assert delivery.user_id == OWNER and "G1 beats V" in text(delivery.reply)
    # Without secret mode the seed's guards and thief stay public (Perception is starred only).
    public = await group_opposed_check(ctx, BOB, replace(group, secret=None))
    assert public.kind == "group_opposed" and "G1 beats V" in text(public)


# --- #22 item 3: one place for every secret result, and the notice says why ----------------------


async def test_the_notice_says_why_the_test_is_secret(ctx: AppContext) -> None:
    listed = await skill_test(
        ctx, ALICE, TestRequest(skill="Perception", carac="40", roll=35, owner_id=OWNER)
    )
    assert "Perception : test secret selon les règles" in text(listed)
    asked = await skill_test(
        ctx, ALICE, TestRequest(carac="40", roll=35, label="Escalade", secret=True, owner_id=OWNER)
    )
    assert "test secret à la demande du joueur" in text(asked)
    english = await skill_test(ctx, BOB, TestRequest(skill="Fouille", carac="40", roll=35, owner_id=OWNER))
    assert "Search: secret test by the rules" in text(english)


async def test_a_house_rule_secret_is_at_the_gms_request(ctx: AppContext) -> None:
    entry = {
        "id": "escalade",
        "skill": "Escalade",
        "skill_en": "Scale Sheer Surface",
        "printed_item": "Escalade",
        "printed_position": 12,
        "asterisk": False,
        "always": True,
    }
    data = json.dumps({"table": "secret_tests", "entries": [entry]}, ensure_ascii=False).encode()

    async def read() -> bytes:
        return data

    stored = await house_rules.import_house_rules(ctx, GM, filename="s.json", size=len(data), read=read)
    assert not stored.is_error and stored.result and stored.result["stored"], stored.description
    reply = await skill_test(ctx, ALICE, TestRequest(skill="Escalade", carac="40", roll=35, owner_id=OWNER))
    assert reply.kind == "test_secret"
    assert "Escalade : test secret à la demande du MJ" in text(reply)
    kept = await skill_test(ctx, ALICE, TestRequest(skill="Fouille", carac="40", roll=35, owner_id=OWNER))
    assert "Fouille : test secret selon les règles" in text(kept)


async def test_a_players_secret_roll_goes_to_the_gm_channel(ctx: AppContext) -> None:
    secret = {"expression": "1d100", "label": "Piste", "secret": True, "manual": "64", "owner_id": OWNER}
    rolled = await roll_dice(ctx, ALICE, **secret)
    (to_owner,) = rolled.also  # no GM channel: the server owner's DMs, as for every secret result
    assert to_owner.user_id == OWNER and "64" in text(to_owner.reply)
    ok(await config_svc.set_gm_channel(ctx, GM, channel_id=555))
    rolled = await roll_dice(ctx, ALICE, **secret)
    assert rolled.kind == "roll_secret" and not rolled.ephemeral
    assert "64" not in text(rolled) and "Piste" in text(rolled) and f"<@{ALICE_ID}>" in text(rolled)
    assert "jet secret à la demande du joueur" in text(rolled)
    (delivery,) = rolled.also
    assert (
        delivery.channel_id == 555
        and "64" in text(delivery.reply)
        and f"<@{ALICE_ID}>" in text(delivery.reply)
    )
    # The GM's own secret roll: his eyes only.
    gm = await roll_dice(ctx, GM, expression="1d100", secret=True, manual="64")
    assert gm.ephemeral and not gm.also and "64" in text(gm)


# --- /etendu: an always-secret skill stays secret there too ------------------------------------


async def test_an_extended_search_is_secret_and_rolled_at_once(ctx: AppContext) -> None:
    request = ExtendedRequest(
        carac="40", skill="Fouille", attempts=3, successes=2, rolls="12 80 30", step=True
    )
    reply = await extended_check(ctx, ALICE, replace(request, owner_id=OWNER))
    assert reply.kind == "extended_secret" and not reply.buttons
    assert "Fouille : test secret selon les règles." in text(reply) and "12 sous" not in text(reply)
    (delivery,) = reply.also
    full = text(delivery.reply)
    assert delivery.user_id == OWNER and "12 sous 40" in full and "30 sous 40" in full
    assert not delivery.reply.buttons  # a secret extended test is rolled at once, never by buttons
    assert "Fouille" not in text(await svc.roll_history(ctx, ALICE))
    refused = await extended_check(ctx, ALICE, replace(request, secret=False))
    assert refused.is_error and "Fouille est toujours un test secret" in (refused.description or "")
    # Crochetage is not on the list: public, step by step as asked.
    public = await extended_check(ctx, ALICE, ExtendedRequest(carac="40", skill="Crochetage", step=True))
    assert public.kind == "extended" and public.buttons
