"""/roll (/lancer) and /help (/aide) through the emulator against the real bot process."""

from __future__ import annotations

import re

from .harness import E2E


async def test_roll_shows_every_die_and_the_total(emu: E2E) -> None:
    alice = emu.user("alice")
    result = await alice.slash("lancer", expression="3d20+56", etiquette="Initiative")
    assert result.callback_type == 4
    assert not result.ephemeral
    embed = result.embed
    assert "Initiative" in embed["title"]
    inside = re.search(r"\(([^)]*)\)", embed["description"])
    assert inside is not None, embed["description"]
    dice = [int(x) for x in re.findall(r"\d+", inside.group(1))]
    total = int(embed["fields"][0]["value"].strip("*"))
    assert len(dice) == 3 and all(1 <= d <= 20 for d in dice)
    assert total == sum(dice) + 56


async def test_a_big_roll_is_a_readable_summary(emu: E2E) -> None:
    result = await emu.user("alice").slash("lancer", expression="1000d6")
    embed = result.embed
    assert not result.ephemeral and len(embed["description"]) < 600
    per_face = re.findall(r"\*\*([1-6])\*\* : (\d+)", embed["description"])
    assert [face for face, _ in per_face] == ["1", "2", "3", "4", "5", "6"]
    assert sum(int(count) for _, count in per_face) == 1000
    assert "1000 dés, total" in embed["description"] and "résumé" in embed["footer"]["text"]


async def test_dice_entered_by_hand_are_used(emu: E2E) -> None:
    alice = emu.user("alice")
    result = await alice.slash("lancer", expression="2d10kh1", des="3 9")
    assert result.embed["fields"][0]["value"] == "**9**"
    assert "main" in result.embed["footer"]["text"]


async def test_a_secret_roll_is_the_gms(emu: E2E) -> None:
    # A player's secret roll: the table is told, the result goes to the GM (here the owner's DMs).
    result = await emu.user("bob").slash("lancer", expression="1d100", secret=True, des="58")
    assert not result.ephemeral and "**58**" not in str(result.embed) and "jet secret" in str(result.embed)
    carol = emu.user("carol")
    await emu.emu.wait_until(lambda: carol.dm_messages, what="the owner's DM")
    assert "**58**" in str(carol.dm_messages[-1].embeds)
    # The GM's own secret roll: his eyes only.
    gm = await emu.user("gm").slash("lancer", expression="1d100", secret=True)
    assert gm.ephemeral


async def test_hostile_expressions_answer_an_ephemeral_error_in_french(emu: E2E) -> None:
    alice = emu.user("alice")
    for expression in ("1000000d1000000", "1d1!", "(" * 400 + "1" + ")" * 99, "9" * 400, "1/0", "abc"):
        result = await alice.slash("lancer", expression=expression)
        assert result.callback_type == 4
        assert result.ephemeral, expression
        text = result.embed["description"]
        assert "Traceback" not in text and "Error" not in text
        assert result.embed["fields"], "a syntax hint follows the error"


async def test_errors_follow_an_english_locale(emu: E2E) -> None:
    bob = emu.user("bob", locale="en-US")
    result = await bob.slash("roll", expression="2d")
    assert result.ephemeral
    assert "Example" in result.embed["fields"][0]["value"] or "e.g." in result.embed["fields"][0]["value"]


async def test_help_lists_every_command_with_an_example(emu: E2E) -> None:
    alice = emu.user("alice")
    first = await alice.slash("aide")
    assert first.ephemeral and first.embed["title"] == "Mêlée — Démarrer"
    embeds = [first.embed]
    footer = first.embed["footer"]["text"]
    pages = int(footer.split("/")[1].split()[0]) if footer.startswith("Page") else 1
    for _ in range(pages - 1):
        turned = await alice.click("Suivant ▶")
        assert turned.callback_type == 7  # the page is replaced in place
        message = turned.message
        assert message is not None
        embeds.append(message.embeds[0])
    text = "\n".join(f["value"] for e in embeds for f in e["fields"])
    for command in emu.emu.commands[emu.guild.id]:
        french = command["name_localizations"]["fr"]
        assert f"`/{french}" in text, french
    assert "`/lancer` —" in text and "↳ `/lancer expression:" in text
    en = await emu.user("bob", locale="en-US").slash("help", command="roll")
    assert "`/roll` —" in en.embed["fields"][0]["value"]
    assert "↳ `/roll expression:" in en.embed["fields"][0]["value"]


async def test_help_finds_a_subcommand_by_its_own_name(emu: E2E) -> None:
    attack = await emu.user("alice").slash("aide", commande="attaque")
    assert attack.ephemeral and attack.embed["title"] == "/combat attaque"
    options = "\n".join(f["value"] for f in attack.embed["fields"][1:])
    assert "**cible** (texte, obligatoire)" in options and "**jet** (nombre entier, facultative)" in options
    english = await emu.user("bob", locale="en-US").slash("help", command="attack")
    assert english.embed["title"] == "/combat attack"
    assert "**target** (text, required)" in english.embed["fields"][1]["value"]
