"""User text made inert by the renderer (#23 item 10): what a reply quotes of its user texts is
escaped, the bot's own Markdown around it is not, and plain names are left alone."""

from __future__ import annotations

import discord.utils

from bot.ui.discord_render import content_of, escaped, to_embed
from bot.ui.reply import Field, Reply

LINK = "[Nitro gratuit](https://example.com)"


def test_a_quoted_user_text_is_escaped_and_the_bots_markdown_kept() -> None:
    text = f"▶ Au tour de **{LINK}**."
    assert escaped(text, (LINK,)) == f"▶ Au tour de **{discord.utils.escape_markdown(LINK)}**."
    assert escaped("**Élise** ||x||", ("Élise", "Homme-bête")) == "**Élise** ||x||"  # nothing risky
    assert escaped("a ** b", ("**",)) == "a ** b"  # a name of Markdown alone is not looked for


def test_every_part_of_a_reply_is_escaped() -> None:
    reply = Reply(
        title=LINK,
        description=f"{LINK} attaque",
        fields=(Field(name=LINK, value=f"~~{LINK}~~"),),
        footer=LINK,
        content=f"<@1> {LINK}",
        user_texts=(LINK,),
    )
    embed = to_embed(reply)
    assert embed is not None
    safe = discord.utils.escape_markdown(LINK)
    parts = [embed.title, embed.description, embed.fields[0].name, embed.fields[0].value, embed.footer.text]
    parts.append(content_of(reply))
    for part in parts:
        assert part is not None and safe in part and LINK not in part.replace(safe, ""), part
