"""/simuler through the emulator against the real bot process."""

from __future__ import annotations

from typing import Any

from .harness import E2E


def text_of(embed: dict[str, Any]) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts)


async def test_gm_simulates_a_profile_against_a_preset(emu: E2E) -> None:
    gm = emu.user("gm")
    asked = await gm.slash(
        "simuler",
        a="CC=45 F=35 E=40 Ag=30 arme=epee",
        b="Orque",
        duels=5000,
        posture_b="prudente",
        timeout=30,
    )
    assert asked.deferred
    message = await asked.wait_response(timeout=30)
    text = text_of(message.embeds[0])
    assert "Simulation : A contre Orque" in text
    assert "Victoire" in text and "IC 95 %" in text and "Critiques infligés" in text
    assert "CC de combat" in text
    plain = await gm.slash(
        "simuler",
        a="CC=30 arme=fauchon",
        b="CC=30 arme=fauchon",
        duels=2000,
        cc_combat=False,
        sens_unique=True,
    )
    plain_text = text_of((await plain.wait_response(timeout=30)).embeds[0])
    assert "21,3 %" in plain_text and "Warhammer classique" in plain_text
    choices = await gm.autocomplete("simuler", "b", "tro")
    assert any("Troll" in c["value"] for c in choices)


async def test_players_are_refused(emu: E2E) -> None:
    alice = emu.user("alice")
    refused = await alice.slash("simuler", a="Orque", b="Troll", duels=10)
    message = await refused.wait_response(timeout=30)
    assert "MJ" in text_of(message.embeds[0])
    assert refused.ephemeral and not refused.deferred  # refused before any public "thinking…"


async def test_an_unknown_side_is_refused_privately(emu: E2E) -> None:
    refused = await emu.user("gm").slash("simuler", a="Perception", b="Troll", duels=10)
    assert refused.callback_type == 4 and refused.ephemeral
    assert "Perception" in text_of(refused.embed)
