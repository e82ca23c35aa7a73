"""/test, /oppose, /groupe, /etendu, /chance through the emulator against the real bot process."""

from __future__ import annotations

import json
from typing import Any

from bot.emulator.client import Upload

from .harness import E2E


def text_of(embed: dict[str, Any]) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts)


async def test_seed_example_ag26_minus30_with_dice_by_hand(emu: E2E) -> None:
    alice = emu.user("alice")
    one = await alice.slash("test", carac="26", mod=-30, jet=1)
    assert not one.ephemeral
    text = text_of(one.embed)
    assert "01 sous -4" in text and "Réussite" in text and "critique" not in text.split("Remarques")[0]
    assert "Base : 26" in text and "Modificateur : −30" in text
    assert "Système : Warhammer rénové" in text
    two = await alice.slash("test", carac="26", mod=-30, jet=2)
    assert "02 sous -4 → ❌ Échec" in text_of(two.embed)


async def test_english_locale_and_bad_input(emu: E2E) -> None:
    bob = emu.user("bob", locale="en-US")
    ok = await bob.slash("test", target="45", modifier=-10, roll=31)
    assert "Success" in text_of(ok.embed) and "Ruleset: Renovated WFRP" in text_of(ok.embed)
    alice = emu.user("alice")
    for options in ({}, {"carac": "abc"}, {"carac": "40", "difficulte": "evidente"}, {"carac": "999"}):
        bad = await alice.slash("test", **options)
        assert bad.ephemeral, options
        assert "Traceback" not in text_of(bad.embed)
    english = await bob.slash("test", target="40", lenient=True, difficulty="obvious")
    assert english.ephemeral and "Unknown difficulty “obvious”" in text_of(english.embed)


async def test_secret_perception_reaches_only_the_gm(emu: E2E) -> None:
    alice, gm, carol = emu.user("alice"), emu.user("gm"), emu.user("carol")
    # Without a GM channel, the result goes by DM to the server owner (carol, who manages the server).
    notice = await alice.slash("test", competence="Perception", carac="40", jet=35)
    assert not notice.ephemeral
    assert "test secret" in text_of(notice.embed) and "35 sous" not in text_of(notice.embed)
    await emu.emu.wait_until(lambda: carol.dm_messages, what="the owner's DM")
    assert "35 sous 40" in text_of(carol.dm_messages[-1].embeds[0])
    assert not alice.dm_messages
    # With a GM channel configured, the result goes there and nowhere else.
    configured = await gm.slash("config canal-mj", canal="hors-jeu")
    assert not configured.ephemeral
    await alice.slash("test", competence="Fouille", carac="40", jet=36)
    await emu.emu.wait_until(
        lambda: any("36 sous 40" in text_of(e) for m in emu.channel_messages("hors-jeu") for e in m.embeds),
        what="the result in the GM channel",
    )
    table = [text_of(e) for m in emu.channel_messages("partie") for e in m.embeds]
    assert not any("36 sous" in t for t in table)
    # The GM rolling for a player: only the GM sees it.
    private = await gm.slash("test", carac="40", jet=12, pour="alice")
    assert private.ephemeral and private.message is not None
    assert private.message.visible_to == gm.id
    assert private.message not in alice.visible_messages()


async def test_oppose_suggests_the_defending_skill_and_shows_every_round(emu: E2E) -> None:
    alice = emu.user("alice")
    result = await alice.slash(
        "oppose", camp_a="V=35", competence_a="Dissimulation", camp_b="G=40", jets_a="70 20", jets_b="80 30"
    )
    text = text_of(result.embed)
    assert "Perception" in text and "table d'opposition" in text
    assert "Round 1" in text and "Round 2" in text and "V l'emporte" in text


async def test_group_replays_the_guards_and_the_thief(emu: E2E) -> None:
    gm = emu.user("gm")
    result = await gm.slash(
        "groupe",
        camp_a="G1=40, G2=40",
        competence_a="Perception",
        camp_b="V=35",
        jets="G1=03, G2=89 56, V=75 27",
    )
    text = text_of(result.embed)
    assert "G1 l'emporte sur V" in text and "V l'emporte sur G2" in text
    assert "Dissimulation" in text and "Round 2" in text


async def test_extended_step_by_step_survives_a_restart(emu: E2E) -> None:
    alice = emu.user("alice")
    started = await alice.slash("etendu", carac="40", tentatives=3, reussites=2, pas_a_pas=True)
    assert "0/2" in text_of(started.embed)
    assert started.message is not None
    await emu.restart_bot()
    clicked = await alice.click("Essai suivant", message=started.message)
    assert clicked.callback_type == 7
    assert "1 round" in text_of(clicked.embed) and "round(s)" not in text_of(clicked.embed)
    bob = emu.user("bob")
    refused = await bob.click("Essai suivant", message=started.message)
    assert refused.ephemeral and "MJ" in text_of(refused.embed)
    all_at_once = await alice.slash("etendu", carac="40", competence="Crochetage", jets="10 20 30")
    assert "Réussi" in text_of(all_at_once.embed) and "Durée d'un essai: 10 s" in text_of(all_at_once.embed)


async def test_chance_needs_d20_then_rolls(emu: E2E) -> None:
    gm = emu.user("gm")
    refused = await gm.slash("chance")
    assert refused.ephemeral and "d20" in text_of(refused.embed)
    await gm.slash("config systeme", systeme="d20")
    lucky = await gm.slash("chance", jet=3, jet_mj=10)
    assert "De la chance" in text_of(lucky.embed) and "Système : d20" in text_of(lucky.embed)
    hard = await gm.slash("test", carac="15", difficulte="difficile", jet=5)
    assert "Difficile : −10" in text_of(hard.embed)


async def test_renove_difficulty_ladder_by_name_and_autocomplete(emu: E2E) -> None:
    alice, bob = emu.user("alice"), emu.user("bob", locale="en-US")
    # Issue #21: Difficile is −20 in `renove`: target 20, and 21 fails.
    hard = await alice.slash("test", carac="40", difficulte="difficile", jet=21)
    assert not hard.ephemeral and "21 sous 20 → ❌ Échec" in text_of(hard.embed)
    assert "Difficile : −20" in text_of(hard.embed)
    offered = await alice.autocomplete("test", "difficulte", "")
    assert [c["value"] for c in offered][:2] == ["tres_facile", "facile"] and len(offered) == 7
    english = await bob.autocomplete("test", "difficulty", "hard")
    assert [c["name"] for c in english] == ["Hard (−20%)", "Very hard (−30%)"]
    await emu.user("gm").slash("config systeme", systeme="d20", portee="canal")
    d20 = await alice.autocomplete("test", "difficulte", "")
    values = [c["value"] for c in d20]
    assert values[0] == "evidente" and "tres_facile" not in values


async def test_v1_action_autocomplete_and_helpful_skills(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="v1", portee="canal")
    choices = await gm.autocomplete("test", "action", "blu")
    assert any(c["value"] == "bluff" for c in choices)
    bluff = await gm.slash("test", action="bluff", carac="35", jet=20)
    text = text_of(bluff.embed)
    assert "Compétences utiles" in text and "Charisme" in text and "Warhammer v1" in text


async def test_a_house_rule_secret_list_makes_the_next_test_secret(emu: E2E) -> None:
    alice, gm, carol = emu.user("alice"), emu.user("gm"), emu.user("carol")
    before = await alice.slash("test", competence="Escalade", carac="40", jet=31)
    assert "31 sous 40" in text_of(before.embed)  # not on the seed's list: shown to the table
    # The GM exports the list, adds Escalade, and uploads the whole document back.
    export = await gm.slash("regles exporter", table="secret_tests")
    assert export.message is not None
    document = json.loads(export.message.attachments[0].data)
    document["entries"].append(
        {
            "id": "escalade",
            "skill": "Escalade",
            "skill_en": "Climb",
            "printed_item": "Escalade",
            "printed_position": 12,
            "asterisk": False,
            "always": True,
        }
    )
    data = json.dumps(document, ensure_ascii=False).encode()
    stored = await gm.slash("regles importer", fichier=Upload("secret_tests.json", data, "application/json"))
    assert "1 ajoutée" in text_of((await stored.wait_response()).embeds[0])

    notice = await alice.slash("test", competence="Escalade", carac="40", jet=32)
    assert "test secret" in text_of(notice.embed) and "32 sous" not in text_of(notice.embed)
    await emu.emu.wait_until(
        lambda: any("32 sous 40" in text_of(e) for m in carol.dm_messages for e in m.embeds),
        what="the owner's DM",
    )
    # Reset: the book's list applies again at once.
    prompt = await gm.slash("regles reinitialiser", table="secret_tests")
    await gm.click("Confirmer la réinitialisation", message=prompt.message)
    after = await alice.slash("test", competence="Escalade", carac="40", jet=33)
    assert "33 sous 40" in text_of(after.embed) and "test secret" not in text_of(after.embed)


BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"


async def test_a_players_oppose_hides_the_gms_npc(emu: E2E) -> None:
    gm, alice, carol = emu.user("gm"), emu.user("alice"), emu.user("carol")
    await gm.slash("perso creer", nom="Baron Noir", caracs=BARON, pnj=True)
    await gm.slash("perso modifier", personnage="Baron Noir", competences="Perception +10")
    await alice.slash("perso creer", nom="Hans", caracs=HANS)
    await alice.slash("perso modifier", competences="Dissimulation")
    result = await alice.slash(
        "oppose", camp_a="Hans", competence_a="Dissimulation", camp_b="Baron Noir", jets_a="20", jets_b="30"
    )
    text = text_of(result.embed)
    assert not result.ephemeral and "30 sous une valeur cachée" in text and "57" not in text
    await emu.emu.wait_until(lambda: carol.dm_messages, what="the full result in the owner's DMs")
    assert "30 sous 57" in text_of(carol.dm_messages[-1].embeds[0])
    refused = await alice.slash("perso voir", personnage="Baron Noir")
    assert refused.ephemeral and "47" not in text_of(refused.embed)
    bob = emu.user("bob", locale="en-US")
    english = await bob.slash(
        "oppose", side_a="Baron Noir", skill_a="Perception", side_b="40", rolls_a="10", rolls_b="90"
    )
    assert "10 against a hidden target" in text_of(english.embed) and "57" not in text_of(english.embed)
    await emu.emu.wait_until(lambda: len(carol.dm_messages) >= 2, what="the second full result")
    assert "10 against 57" in text_of(carol.dm_messages[-1].embeds[0])


async def test_fortune_reroll_button_under_a_failed_test(emu: E2E) -> None:
    alice, bob = emu.user("alice"), emu.user("bob", locale="en-US")
    await alice.slash("perso creer", nom="Hans", caracs=HANS)
    await alice.slash("perso modifier", caracs="PD:2 Fortune:1")
    failed = await alice.slash("test", carac="CC", jet=90)
    assert failed.message is not None and "90 sous 40" in text_of(failed.embed)
    await emu.restart_bot()  # the button's state rides in its custom id
    other = await bob.click("Relancer (Fortune)", message=failed.message)
    assert other.ephemeral and "Only Hans's player" in text_of(other.embed)
    clicked = await alice.click("Relancer (Fortune)", message=failed.message)
    assert clicked.callback_type == 7  # the tested message loses its button
    await clicked.wait_edit()
    assert not failed.message.buttons
    reroll = await clicked.wait_followup()
    assert not reroll.ephemeral
    assert "Hans dépense un point de fortune et relance" in text_of(reroll.embeds[0])
    assert (
        "sous 40" in text_of(reroll.embeds[0])
        and "Relance : 40" in text_of(reroll.embeds[0])
        and "0 sur 2" in text_of(reroll.embeds[0])
    )
    english = emu.user("alice", locale="en-US")
    again = await english.slash("test", target="CC", roll=90)
    assert not again.components  # no Fortune left: no button
