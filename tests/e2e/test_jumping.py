"""``/saut`` (``/jump``) against the real bot process: a long jump and a fall from the sheet, a
player without a sheet refused in private, an English player."""

from __future__ import annotations

import json

from .harness import E2E


async def test_jump_long_and_down_from_the_sheet(emu: E2E) -> None:
    alice, bob = emu.user("alice"), emu.user("bob", locale="en-US")
    await alice.slash("perso creer", nom="Élise", caracs="CC:40 CT:30 F:35 E:40 Ag:45 Int:30 FM:30 Soc:30")
    await alice.slash("perso equiper", armure="Plastron de cuir bouilli")
    long = await alice.slash("saut", type="longueur", jet=30)
    assert not long.ephemeral and long.embed["title"] == "🦘 Saut en longueur d'Élise"
    assert "**Élise saute 5 m.**" in long.embed["description"]
    # 78 against 45: 3 °E → 2 m less; no run-up halves it: 1,5 m.
    standing = await alice.slash("saut", type="longueur", jet=78, elan=False)
    assert "**Élise saute 1,5 m.**" in standing.embed["description"]
    fall = await alice.slash("saut", type="hauteur", hauteur=2.5, jet=90)
    text = json.dumps(fall.embeds, ensure_ascii=False)
    assert "Saut de 2,5 m — Élise" in text and "Armure légère : −1." in text
    assert "Élise subit 2 points de dégâts" in text  # 3 on the « 2.5m + » row, −1
    refused = await emu.user("carol").slash("saut", type="longueur")
    assert refused.ephemeral and "Pas de personnage actif" in refused.embed["description"]
    english = await bob.slash("jump", type="hauteur", height=1.5, ag=40)
    assert "lands unhurt" in english.embed["description"] and "1.5 m" in english.embed["title"]
