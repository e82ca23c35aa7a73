"""Secrets stay secret, through the emulator against the real bot process (issues #19 item 18,
#22 item 3, #23 items 2 and 3): every secret result goes to the GM channel, the table's notice says
why, always-secret skills stay secret, and a GM channel the bot cannot write to (50001) or closed
DMs (50007) are told to the roller privately, never announced as delivered."""

from __future__ import annotations

import re

from bot.emulator.state import Message, Perm

from .harness import E2E


def text_of(message: Message | None) -> str:
    assert message is not None, "no message"
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
        parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts)


def in_channel(emu: E2E, channel: str, marker: str) -> bool:
    return any(marker in text_of(m) for m in emu.channel_messages(channel))


HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"
BERTHA = "CC:30 CT:45 F:30 E:35 Ag:40 Int:47 FM:35 Soc:33"


async def test_secret_results_go_to_the_gm_channel_and_the_notice_says_why(emu: E2E) -> None:
    alice, bob, gm, carol = (
        emu.user("alice"),
        emu.user("bob", locale="en-US"),
        emu.user("gm"),
        emu.user("carol"),
    )
    configured = await gm.slash("config canal-mj", canal="hors-jeu")
    assert not configured.ephemeral
    # A player's secret /lancer: no longer his alone — the GM's, in the GM channel.
    rolled = await alice.slash("lancer", expression="1d100", etiquette="Piste", secret=True, des="64")
    assert not rolled.ephemeral
    notice = text_of(rolled.message)
    assert "a fait un jet secret : Piste. Le résultat est parti au MJ." in notice and "64" not in re.sub(
        r"<@\d+>", "", notice
    )
    assert "Piste : jet secret à la demande du joueur." in notice
    await emu.emu.wait_until(lambda: in_channel(emu, "hors-jeu", "**64**"), what="the roll in the GM channel")
    # A listed skill: « selon les règles ».
    test = await alice.slash("test", competence="Perception", carac="40", jet=35)
    assert "Perception : test secret selon les règles." in text_of(test.message)
    await emu.emu.wait_until(
        lambda: in_channel(emu, "hors-jeu", "35 sous 40"), what="the test in the GM channel"
    )
    assert not carol.dm_messages and not gm.dm_messages  # the GM channel, nowhere else
    # An always-secret skill cannot be made public by a player; the GM may.
    refused = await alice.slash("test", competence="Fouille", carac="40", jet=12, secret=False)
    assert refused.ephemeral and "Fouille est toujours un test secret" in text_of(refused.message)
    english = await bob.slash("test", skill="Pistage", target="40", secret=False)
    assert english.ephemeral and "Follow Trail is always a secret test" in text_of(english.message)
    public = await gm.slash("test", competence="Fouille", carac="40", jet=12, secret=False)
    assert not public.ephemeral and "12 sous 40" in text_of(public.message)
    # /etendu too: a Fouille over several attempts is secret, rolled at once (no step buttons).
    search = await alice.slash(
        "etendu", carac="40", competence="Fouille", tentatives=3, reussites=2, jets="12 80 30", pas_a_pas=True
    )
    assert not search.ephemeral and not (search.message and search.message.components)
    assert "a lancé en secret un test étendu : Fouille." in text_of(search.message)
    assert "Fouille : test secret selon les règles." in text_of(search.message)
    await emu.emu.wait_until(lambda: in_channel(emu, "hors-jeu", "80 sous 40"), what="the extended test")
    # The roller does not find his secret results in /historique; the GM does.
    mine = text_of((await alice.slash("historique")).message)
    assert "Piste" not in mine and "Perception" not in mine and "🔒" not in mine
    theirs = text_of((await gm.slash("historique")).message)
    assert "**64** — Piste 🔒" in theirs and "**35** — Perception 🔒" in theirs


async def test_the_seeds_shadowing_in_secret_and_another_players_sheet_hidden(emu: E2E) -> None:
    alice, bob, gm = emu.user("alice"), emu.user("bob"), emu.user("gm")
    await alice.slash("perso creer", nom="Hans", caracs=HANS)
    await alice.slash("perso modifier", competences="Filature")
    await bob.slash("perso creer", nom="Bertha", caracs=BERTHA)
    await bob.slash("perso modifier", competences="Perception +20")
    await gm.slash("config canal-mj", canal="hors-jeu")
    # Bertha's Perception is Bob's: Alice's /oppose shows it hidden (Int 47 + 20 = 67).
    shown = await alice.slash(
        "oppose", camp_a="Hans", competence_a="Filature", camp_b="Bertha", jets_a="20", jets_b="30"
    )
    table = text_of(shown.message)
    assert "30 sous une valeur cachée" in table and "67" not in re.sub(r"<@\d+>", "", table)
    assert "Les valeurs de Bertha (personnage d'un autre joueur) restent cachées" in table
    await emu.emu.wait_until(
        lambda: in_channel(emu, "hors-jeu", "30 sous 67"), what="the full result to the GM"
    )
    # The seed's example: a Filature against Perception, in secret.
    secret = await alice.slash(
        "oppose", camp_a="Hans", competence_a="Filature", camp_b="B=40", jets_a="80", jets_b="30", secret=True
    )
    notice = text_of(secret.message)
    shown_dice = re.sub(r"<@\d+>", "", notice)  # a user's id may hold « 80 »: only the text counts
    assert not secret.ephemeral and "80" not in shown_dice and "30 sous" not in shown_dice
    assert (
        "a lancé en secret un test opposé : Filature contre Perception. Le résultat est parti au MJ."
        in notice
    )
    assert "Filature contre Perception : test secret à la demande du joueur." in notice
    await emu.emu.wait_until(
        lambda: in_channel(emu, "hors-jeu", "80 sous 36"), what="the secret opposed test"
    )
    group = await alice.slash(
        "groupe",
        camp_a="G1=40, G2=40",
        competence_a="Perception",
        camp_b="V=35",
        jets="G1=03, G2=89 56, V=75 27",
        secret=True,
    )
    assert "l'emporte" not in text_of(group.message) and "en secret un test opposé de groupe" in text_of(
        group.message
    )
    await emu.emu.wait_until(lambda: in_channel(emu, "hors-jeu", "G1 l'emporte sur V"), what="the group test")


async def test_a_gm_channel_the_bot_cannot_write_to_is_told_to_the_roller(emu: E2E) -> None:
    alice, gm = emu.user("alice"), emu.user("gm")
    emu.expect_failures = True  # Discord refuses the message: that is the point
    assert not (await gm.slash("config canal-mj", canal="hors-jeu")).ephemeral
    bot_role = emu.guild.role(emu.emu.config.bot_name)
    emu.emu.set_overwrite("hors-jeu", bot_role, deny=Perm.VIEW_CHANNEL)  # 50001 Missing Access
    emu.emu.set_overwrite("hors-jeu", emu.guild.everyone, deny=Perm.VIEW_CHANNEL)
    notice = await alice.slash("test", competence="Pistage", carac="40", jet=35)
    table = text_of(notice.message)
    assert (
        "n'a pas pu être remis au MJ" in table and "est parti au MJ" not in table and "35 sous" not in table
    )
    assert "Pistage : test secret selon les règles." in table  # still says why
    private = await notice.wait_followup()
    assert private.ephemeral and private.visible_to == alice.id
    assert "le bot n'a pas le droit d'écrire dans le salon du MJ" in text_of(
        private
    ) and "35 sous" not in text_of(private)
    assert "missing_access" in [f.kind for f in emu.emu.failures]  # Discord: 403, code 50001
    rolled = await alice.slash("lancer", expression="1d100", secret=True, des="07")
    assert "n'a pas pu être remis au MJ" in text_of(rolled.message) and "**7**" not in text_of(rolled.message)


async def test_closed_dms_for_a_secret_roll_without_gm_channel(emu: E2E) -> None:
    alice, carol = emu.user("alice"), emu.user("carol")
    emu.expect_failures = True
    emu.emu.config.dm_closed.add(carol.id)  # the owner (who gets secret results) closed their DMs
    rolled = await alice.slash("lancer", expression="1d100", etiquette="Fouiller", secret=True, des="42")
    table = text_of(rolled.message)
    assert "a fait un jet secret : Fouiller, mais le résultat n'a pas pu être remis au MJ." in table
    assert "**42**" not in table  # bold: never part of an id
    private = await rolled.wait_followup()
    assert private.ephemeral and "n'accepte pas les messages privés" in text_of(private)
    assert [f.kind for f in emu.emu.failures] == ["dm_closed"]
    # Another player's sheet in Alice's /oppose: masked, and the table is not told the GM got it.
    bob = emu.user("bob")
    await alice.slash("perso creer", nom="Hans", caracs=HANS)
    await bob.slash("perso creer", nom="Bertha", caracs=BERTHA)
    shown = await alice.slash(
        "oppose", camp_a="Hans", competence_a="F", camp_b="Bertha", competence_b="F", jets_a="20", jets_b="30"
    )
    table = text_of(shown.message)
    assert (
        "30 sous une valeur cachée" in table and "Le résultat complet n'a pas pu être remis au MJ." in table
    )
    assert "parti au MJ" not in table
