"""/config through the emulator: rights, ruleset per server and channel, GM role and channel."""

from __future__ import annotations

from .harness import E2E


async def test_players_cannot_change_settings(emu: E2E) -> None:
    refused = await emu.user("alice").slash("config systeme", systeme="d20")
    assert refused.ephemeral and "MJ" in (refused.embed.get("description") or "")


async def test_gm_sets_a_channel_ruleset_and_sees_it(emu: E2E) -> None:
    gm = emu.user("gm")
    done = await gm.slash("config systeme", systeme="ogl", portee="canal")
    assert not done.ephemeral and "OGL" in (done.embed.get("description") or "")
    here = await gm.slash("config voir")
    assert here.ephemeral
    fields = {f["name"]: f["value"] for f in here.embed["fields"]}
    assert fields["En vigueur ici"] == "**OGL**" and fields["Système du serveur"] == "Warhammer rénové"
    elsewhere = await gm.slash("config voir", channel="général")
    fields = {f["name"]: f["value"] for f in elsewhere.embed["fields"]}
    assert fields["En vigueur ici"] == "**Warhammer rénové**"


async def test_admin_sets_the_gm_role_and_english_names_work(emu: E2E) -> None:
    carol = emu.user("carol", locale="en-US")
    done = await carol.slash("config gm", role="MJ")
    assert not done.ephemeral
    # ("channel" is also the harness's own keyword: the option is given by its French name.)
    channel = await carol.slash("config gm-channel", canal="hors-jeu")
    assert "Secret results will go to <#" in (channel.embed.get("description") or "")
    shown = await carol.slash("config show")
    fields = {f["name"]: f["value"] for f in shown.embed["fields"]}
    assert fields["GM role"].startswith("<@&") and fields["GM channel (secret results)"].startswith("<#")
