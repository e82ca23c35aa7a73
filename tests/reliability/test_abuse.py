"""Abuse limits: per-user rate limits on expensive commands, no mass mentions, escaped user text."""

from __future__ import annotations

import re
from pathlib import Path

import discord.utils
import pytest

from bot.i18n import default_catalog
from bot.services.rate_limit import DEFAULT_LIMITS, Limit, RateLimiter, category_of, wait_seconds

from .conftest import running
from .support import embed_text, language_problems, outcome_of

# -- the limiter alone (fake clock) ----------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_token_bucket_per_user_and_category() -> None:
    clock = Clock()
    limiter = RateLimiter({"dice": Limit(capacity=3, period=3.0)}, clock=clock)
    assert [await limiter.check(1, "roll") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = await limiter.check(1, "test")  # same category, same bucket
    assert wait == pytest.approx(1.0)
    assert await limiter.check(2, "roll") == 0.0  # another user has their own bucket
    assert await limiter.check(1, "help") == 0.0  # not an expensive command
    clock.now += 1.0
    assert await limiter.check(1, "roll") == 0.0  # one token back after a second
    assert await limiter.check(1, "roll") > 0
    clock.now += 3600
    assert [await limiter.check(1, "roll") for _ in range(4)][-1] > 0  # never more than the burst


def test_categories_settings_and_waits() -> None:
    assert category_of("roll") == category_of("oppose") == "dice"
    assert category_of("character import") == "files" and category_of("character show") is None
    assert category_of("help") is None
    # a read of the whole roll log and up to 2 s of CPU: limited too (#23 items 1 and 8)
    assert category_of("history") == "history" and category_of("simulate") == "simulation"
    limiter = RateLimiter.from_env({"MELEE_RATE_LIMITS": "dice=5/10, files=1/60"})
    assert limiter.limits["dice"] == Limit(5, 10.0) and limiter.limits["sheets"] == DEFAULT_LIMITS["sheets"]
    assert not RateLimiter.from_env({"MELEE_RATE_LIMITS": "off"}).enabled
    with pytest.raises(ValueError):
        RateLimiter.from_env({"MELEE_RATE_LIMITS": "dice=0/10"})
    assert wait_seconds(0.01) == 1 and wait_seconds(2.2) == 3


# -- through the bot -------------------------------------------------------------------------------


async def test_rate_limit_answers_in_the_users_language_with_the_wait(tmp_path: Path) -> None:
    async with running(tmp_path, env={"MELEE_RATE_LIMITS": "dice=5/60"}) as table:
        alice, bob, gm = table.user("alice"), table.user("bob", locale="en-US"), table.user("gm")
        answers = [await alice.slash("lancer", expression="1d6") for _ in range(7)]
        assert all(a.callback_type == 4 for a in answers)
        refused = [outcome_of(table.emu.messages, a.interaction) for a in answers]
        assert [o.refused for o in refused] == [False] * 5 + [True] * 2
        text = embed_text(answers[5].embed)
        assert answers[5].ephemeral and re.search(r"Réessayez dans \d+ s", text), text
        assert not language_problems(text, "fr")
        # Other users, and other kinds of commands, are not held back by alice's bucket.
        assert not outcome_of(
            table.emu.messages, (await gm.slash("lancer", expression="1d6")).interaction
        ).refused
        shown = await alice.slash("aide")
        assert not outcome_of(table.emu.messages, shown.interaction).refused
        english = [await bob.slash("roll", expression="1d6") for _ in range(6)][-1]
        text = embed_text(english.embed)
        assert english.ephemeral and re.search(r"Try again in \d+ s", text), text
        catalog = default_catalog()
        assert catalog.t("en", "reliability.rate_limited", seconds=12) != catalog.t(
            "fr", "reliability.rate_limited"
        )


HOSTILE_LABELS = ["@everyone", "@here", "<@&{role}>", "<@{user}>", "@everyone <@&{role}> @here"]


async def test_user_text_never_mentions_everyone_or_roles(tmp_path: Path) -> None:
    async with running(tmp_path) as table:
        alice = table.user("alice")
        role = table.guild.role("MJ").id
        for label in HOSTILE_LABELS:
            text = label.format(role=role, user=table.user("bob").id)
            await alice.slash("lancer", expression="1d6", etiquette=text)
            await alice.slash("lancer", expression=f"1d6 # {text}")
            await alice.slash("perso creer", nom=text[:60], caracs="CC:40")
        await table.emu.wait_until(lambda: len(table.emu.messages) >= 3 * len(HOSTILE_LABELS), what="answers")
        assert not table.pinged_everyone(), [m.content for m in table.pinged_everyone()]
        for message in table.emu.messages.values():
            if message.author.id == table.emu.bot_user.id:
                assert message.allowed_mentions == {"parse": []}, message.allowed_mentions


MARKDOWN = "Hey **gras** `code` ||spoil|| __sous__ ~~barré~~"


async def test_user_text_in_embeds_is_escaped(tmp_path: Path) -> None:
    async with running(tmp_path) as table:
        alice = table.user("alice")
        result = await alice.slash("lancer", expression="1d6", etiquette=MARKDOWN)
        text = embed_text(result.embed)
        assert MARKDOWN not in text, f"raw markdown from the user in the embed: {text!r}"
        assert discord.utils.escape_markdown(MARKDOWN) in text


NAME_MARKDOWN = "[Nitro gratuit](https://example.com)"  # allowed in names: brackets, parentheses


async def test_names_in_fights_and_sheets_are_escaped_in_every_reply(tmp_path: Path) -> None:
    """#23 item 10: a character or fighter named with Markdown became a link or bold text in the bot's
    public messages (the pinned tracker too). User text is escaped by the renderer wherever it is
    quoted: what the command typed, and every name a fight shows."""
    async with running(tmp_path) as table:
        alice, gm = table.user("alice"), table.user("gm")
        created = await alice.slash(
            "perso creer", nom=NAME_MARKDOWN, caracs="CC:40 CT:30 F:35 E:40 Ag:30 Int:30 FM:30 Soc:30"
        )
        safe = discord.utils.escape_markdown(NAME_MARKDOWN)
        assert NAME_MARKDOWN not in embed_text(created.embed).replace(safe, ""), embed_text(created.embed)
        assert not outcome_of(table.emu.messages, created.interaction).refused, embed_text(created.embed)
        opened = await gm.slash("combat ouvrir", nom="Escarmouche")
        await table.emu.wait_until(
            lambda: any(t.name == "Escarmouche" for t in table.emu.threads), what="thread"
        )
        thread = next(t for t in table.emu.threads if t.name == "Escarmouche")
        assert not outcome_of(table.emu.messages, opened.interaction).refused
        await table.emu.wait_until(lambda: bool(table.emu.pins(thread)), what="the tracker pinned")
        joined = await alice.slash("combat ajouter", qui=NAME_MARKDOWN, channel=thread)
        assert not outcome_of(table.emu.messages, joined.interaction).refused, embed_text(joined.embed)
        shown = await gm.slash("combat voir", channel=thread)  # names typed earlier, not in this command
        texts = [embed_text(joined.embed), embed_text(shown.embed)]
        await table.emu.wait_until(
            lambda: any("Nitro" in embed_text(m.embeds[0]) for m in table.emu.pins(thread) if m.embeds),
            what="the tracker",
        )
        texts += [
            embed_text(m.embeds[0])
            for m in table.emu.pins(thread)
            if m.embeds and "Nitro" in embed_text(m.embeds[0])
        ]
        for text in texts:
            assert safe in text and NAME_MARKDOWN not in text.replace(safe, ""), text
