"""``/taverne partie``, ``/taverne jouer`` and ``/taverne arreter`` through the emulator against
the real bot: a full dice match and an arm wrestling, played by buttons, menus and typed moves by
two players, each for their own character."""

from __future__ import annotations

import json

from .harness import E2E

GRIMLI = "CC:45 CT:28 F:41 E:45 Ag:25 Int:30 FM:35 Soc:22"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"


def shown(result: object) -> str:
    return json.dumps(getattr(result, "embeds", None), ensure_ascii=False)


async def test_a_dice_match_and_an_arm_wrestling_at_the_table(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob", locale="en-US")
    await alice.slash("perso creer", nom="Grimli", caracs=GRIMLI)
    await alice.slash("perso modifier", competences="Jeu")
    await bob.slash("character create", name="Hans", stats=HANS)
    opened = await gm.slash("taverne partie", jeu="dice", joueurs="Grimli pipes=2, Hans", mise=10)
    assert not opened.ephemeral and "🎲 Partie de dés — manche 1" in shown(opened)
    # Bob may not throw for Grimli; told privately, in English.
    wrong = await bob.slash("tavern play", move="throw", player="Grimli")
    assert wrong.ephemeral and "That character (Grimli) is not yours" in shown(wrong)
    # Grimli's loaded dice work: the menu to place the 6 reaches Alice alone.
    loaded = await alice.slash("taverne jouer", coup="throw", des="6 6 3 2 1 1")
    assert loaded.ephemeral and "les dés pipés marchent" in shown(loaded)
    # The board speaks the language of whoever made it (the GM's: French).
    hans = await bob.click("Lancer les dés")
    assert not hans.ephemeral and "Hans throws" in shown(hans)
    placed = await alice.select("Dé pipé → 6", "Dé n° 3")
    assert not placed.ephemeral and "🎲 Grimli lance : 6 6 6 2 1" in shown(placed)
    raised = await alice.click("Relancer (+10)")
    assert "le pot passe à 30" in shown(raised)
    called = await bob.click("Suivre (+10)")
    assert "the pot is now 40" in shown(called)
    # Bob's move made that board: in English.
    rerolled = await alice.select("Dice to reroll", ["Die no. 4", "Die no. 5"])
    assert "Grimli relance les dés n° 4 et 5 : 6 6 6 2 1 →" in shown(rerolled)
    kept = await bob.click("Garder mes dés")
    assert "Round 1 won by" in shown(kept) or "Round 1: a tie" in shown(kept)
    # An old board's button: refused privately.
    stale = await bob.click("Garder mes dés", message=rerolled.message)
    assert stale.ephemeral and "past turn" in shown(stale)
    stopped = await gm.slash("taverne arreter")
    assert "Partie de dés : partie arrêtée." in shown(stopped)
    # Arm wrestling: Grimli cheats (secretly), Hans pulls; the round shows the cheat's rolls.
    arm = await gm.slash("taverne partie", jeu="arm_wrestling", joueurs="Grimli, Hans")
    assert "💪 Bras de fer — round 1" in shown(arm)
    no_gamble = await bob.click("Tricher")
    assert no_gamble.ephemeral and "only cheat with the Gamble skill" in shown(no_gamble)
    secret = await alice.slash("taverne jouer", coup="cheat", des="20 30")
    assert secret.ephemeral and "Grimli va tricher ce round" in shown(secret)
    played = await bob.slash("tavern play", move="pull", dice="95 84")
    assert not played.ephemeral
    assert "🃏 Grimli cheats — Gamble 30 % · **20** → Success (1 °R)" in shown(played)
    assert "Grimli cheats unseen: +10 S this round." in shown(played)
    ok = await gm.slash("taverne arreter")
    assert not ok.ephemeral
    # Cards: hands typed, each seen privately; the exchange by menu; the GM plays Carl.
    cards = await gm.slash(
        "taverne partie",
        jeu="cards",
        joueurs="Grimli main=7p.8c.9k.Rt.Asp, Hans main=R♠.R♥.9♠.10♦.V♣, Carl main=D♠.D♥.D♦.8♣.7♥",
        mise=5,
    )
    assert "🃏 Partie de cartes — paquet de 32 cartes" in shown(cards) and "7♠" not in shown(cards)
    await alice.click("Ne pas relancer")
    hand = await alice.click("Voir ma main")
    assert hand.ephemeral and "Grimli : 7♠ 8♥ 9♦ R♣ As♠ → Carte haute" in shown(hand)
    peek = await bob.slash("tavern play", move="hand", player="Grimli")
    assert peek.ephemeral and "That character (Grimli) is not yours" in shown(peek)
    changed = await alice.select("Cartes à changer", ["8♥", "9♦"], message=hand.message)
    assert not changed.ephemeral and "Grimli change 2 cartes." in shown(changed)
    await bob.slash("tavern play", move="stand")
    await gm.slash("taverne jouer", coup="stand", joueur="Carl")
    end = await alice.click("Ne pas relancer")
    assert "On abat les cartes." in shown(end) and "**Carl** : D♠ D♥ D♦ 8♣ 7♥ → Brelan" in shown(end)
    # Knife throwing: Grimli's miss waits for his choice; the fortune point rolls it again.
    await alice.slash("perso modifier", competences="Jeu")
    knives = await gm.slash("taverne partie", jeu="knives", joueurs="Grimli ct=60 maitrise, Hans ct=50")
    assert "point de fortune (Jeu) disponible" in shown(knives)
    missed = await alice.slash("taverne jouer", coup="knife", des="90")
    assert "raté ; le point de fortune peut le faire relancer" in shown(missed)
    lucky = await alice.click("Relancer (point de fortune)")
    assert not lucky.ephemeral and "Grimli dépense le point de fortune et relance :" in shown(lucky)
    await gm.slash("taverne arreter")
