"""/stats (/statistiques) through the emulator against the real bot process: the histogram arrives
as a PNG attachment with its alt text, beside the text answer; the GM's answer, counting secret
rolls, is private."""

from __future__ import annotations

from .harness import E2E


async def test_stats_attaches_the_histogram(emu: E2E) -> None:
    alice, bob = emu.user("alice"), emu.user("bob")
    assert (await alice.slash("lancer", expression="200d6")).callback_type == 4
    assert (await bob.slash("lancer", expression="1d100", secret=True, des="58")).callback_type == 4
    result = await alice.slash("statistiques", joueur=alice)
    assert result.callback_type == 4 and not result.ephemeral
    message = result.message
    assert message is not None
    (png,) = message.attachments
    assert png.filename == "stats.png" and png.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert png.description and "d6" in png.description
    embed = result.embed
    assert "**d6** : 200 dés" in embed["fields"][0]["value"]  # the text stays for screen readers
    # The GM's figures count Bob's secret roll: only he sees them.
    gm = await emu.user("gm").slash("statistiques")
    assert gm.ephemeral and gm.message is not None
    assert [a.filename for a in gm.message.attachments] == ["stats.png"]
    assert "jets secrets compris" in gm.embed["footer"]["text"]
