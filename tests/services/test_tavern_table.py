"""``/taverne partie`` on real databases: the full dice match and the arm wrestling move by move —
each player moves only for himself, mistakes refused privately in his language, the loaded die
placed privately, every die typed by hand, the state in one session row."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db.flow_models import GameSession
from bot.services import characters as svc
from bot.services.caller import Caller
from bot.services.flows import tavern_table as table
from bot.services.flows.common import FlowResult

GUILD = 1977
GRIMLI = "CC:45 CT:28 F:41 E:45 Ag:25 Int:30 FM:35 Soc:22"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=9, locale=locale, manage_guild=gm)


ALICE, BOB, GM, CAROL = caller(1), caller(2, locale="en-US"), caller(3, gm=True), caller(4)


class NoDice(random.Random):
    """Every die is typed by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


@pytest.fixture
def app_rng() -> random.Random:
    return NoDice()


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return {n: validate_file(DATA_DIR / f"{n}.json") for n in ("skills", "tavern_games")}


@pytest.fixture
async def ctx(app_context: AppContext) -> AppContext:
    ok(await svc.create_character(app_context, ALICE, name="Grimli", stats=GRIMLI, race="nain"))
    ok(await svc.edit_character(app_context, ALICE, skills="Jeu"))
    ok(await svc.create_character(app_context, BOB, name="Hans", stats=HANS))
    return app_context


def ok(result: Any) -> dict[str, Any]:
    reply = result.reply if isinstance(result, FlowResult) else result
    assert not reply.is_error, reply.description
    return dict(reply.result or {})


def refused(result: FlowResult) -> str:
    assert result.reply.is_error and result.reply.ephemeral
    return result.reply.description or ""


def text(result: FlowResult) -> str:
    reply = result.reply
    return "\n".join([reply.description or ""] + [f"{f.name}: {f.value}" for f in reply.fields])


def labels(result: FlowResult) -> list[str]:
    return [b.label for row in result.reply.buttons for b in row] + [
        s.placeholder or "" for s in result.reply.selects
    ]


async def test_a_dice_match_played_by_buttons_and_typed_moves(ctx: AppContext) -> None:
    opened = await table.open_match(ctx, ALICE, game="dice", players="Grimli pipes=2, Hans", stake=10)
    board = ok(opened)
    sid = board["session"]
    assert board["pot"] == 20 and labels(opened) == ["Lancer les dés"]
    assert "already" in refused(await table.open_match(ctx, BOB, game="dice", players="A, B"))
    # Bob moves only for Hans; Carol plays nobody here; Alice may not throw for Hans.
    assert "Vous ne jouez aucun des personnages de cette table." in refused(
        await table.act(ctx, CAROL, action="throw", session_id=sid, round_no=1)
    )
    not_hers = await table.act(ctx, ALICE, action="throw", player="Hans")
    assert "Ce personnage (Hans) n'est pas le vôtre" in refused(not_hers)
    # Grimli's loaded dice work (d20 1 ≤ 2): Alice alone is told, and must place the 6.
    loaded = await table.act(ctx, ALICE, action="throw", session_id=sid, round_no=1, dice="6 6 3 2 1 1")
    assert loaded.reply.ephemeral and not loaded.reply.is_error
    assert "d20 = 1 : les dés pipés marchent" in text(loaded) and labels(loaded) == ["Dé pipé → 6"]
    hans = await table.act(ctx, BOB, action="throw", session_id=sid, round_no=1, dice="5 3 6 3 6")
    # The table does not see Grimli's dice while the 6 is being placed, nor that he has loaded dice.
    assert "Grimli** — aucune manche gagnée · parle en premier\n" not in text(hans)
    assert "pipé" not in text(hans).replace("placer le dé pipé", "")
    assert all("loaded" not in p and p["dice"] == [] for p in ok(hans)["players"] if p["name"] == "Grimli")
    assert "Hans has already thrown" in refused(await table.act(ctx, BOB, action="throw", player="Hans"))
    assert "Grimli doit d'abord placer le dé pipé" in refused(await table.act(ctx, ALICE, action="throw"))
    placed = await table.act(ctx, ALICE, action="load", session_id=sid, round_no=1, values=("3",))
    assert "🎲 Grimli lance : 6 6 6 2 1" in text(placed) and "Brelan" in text(placed)
    assert labels(placed) == ["Relancer (+10)", "Ne pas relancer"]
    # Grimli raises, Hans calls (typed), then Grimli rerolls dice 4 and 5, Hans keeps his.
    assert "waiting for Grimli" in refused(
        await table.act(ctx, BOB, action="raise", session_id=sid, round_no=1)
    )
    ok(await table.act(ctx, ALICE, action="raise", session_id=sid, round_no=1))
    called = await table.act(ctx, BOB, action="call")
    # The board answers in the language of whoever moved (Bob: English).
    assert "Hans calls the raise (10): the pot is now 40." in text(called)
    assert "Choose the dice" in refused(await table.act(ctx, BOB, action="reroll", choice="6"))
    rerolled = await table.act(ctx, ALICE, action="reroll", choice="4 5", dice="6 6")
    assert "Grimli relance les dés n° 4 et 5 : 6 6 6 2 1 → 6 6 6 6 6" in text(rerolled)
    kept = await table.act(ctx, BOB, action="keep", session_id=sid, round_no=1)
    assert "Round 1 won by Grimli: Quinte" in text(kept)
    assert ok(kept)["round"] == 2 and ok(kept)["pot"] == 60
    # An old board's button is refused.
    assert "past turn" in refused(await table.act(ctx, BOB, action="throw", session_id=sid, round_no=1))
    # Round 2: Hans speaks first; Grimli throws without the loaded dice working (d20 15).
    ok(await table.act(ctx, ALICE, action="throw", dice="2 2 2 5 1 15"))
    ok(await table.act(ctx, BOB, action="throw", dice="3 3 1 4 6"))
    ok(await table.act(ctx, BOB, action="check"))
    ok(await table.act(ctx, ALICE, action="reroll", values=("4", "5"), dice="2 6"))
    won = await table.act(ctx, BOB, action="keep")
    assert "Grimli wins two rounds and takes the pot (60)." in text(won)
    assert won.reply.buttons == () and won.reply.selects == ()
    async with ctx.sessions() as session:
        row = (await session.scalars(select(GameSession).where(GameSession.id == sid))).one()
        assert row.closed and row.state["match"]["winner"] == "Grimli"
    assert "est finie" in refused(await table.act(ctx, ALICE, action="throw", session_id=sid, round_no=2))


async def test_dice_match_refusals_write_nothing(ctx: AppContext) -> None:
    assert "de 2 à 4 joueurs" in refused(await table.open_match(ctx, ALICE, game="dice", players="Grimli"))
    assert "« pipes »" in refused(await table.open_match(ctx, ALICE, game="dice", players="A pipes=6, B"))
    assert "Aucune partie" in refused(await table.act(ctx, ALICE, action="throw"))
    async with ctx.sessions() as session:
        assert (await session.scalars(select(GameSession))).first() is None
    ok(await table.open_match(ctx, ALICE, game="dice", players="Grimli, Otto"))
    # Otto has no sheet: whoever opened the game (Alice) plays him, and the GM too; not Bob.
    assert "none of the characters" in refused(await table.act(ctx, BOB, action="throw"))
    ok(await table.act(ctx, GM, action="throw", dice="1 2 3 4 6"))
    assert "n'existe pas" in refused(await table.act(ctx, ALICE, action="cheat"))
    assert "Seuls le MJ" in refused(await table.stop(ctx, CAROL))
    ok(await table.stop(ctx, GM))


async def test_arm_wrestling_each_says_before_the_round_whether_he_cheats(ctx: AppContext) -> None:
    opened = await table.open_match(ctx, GM, game="arm_wrestling", players="Grimli, Hans")
    sid = ok(opened)["session"]
    assert labels(opened) == ["Tirer", "Tricher"]
    # Hans has no Jeu: he cannot cheat (told in English, privately).
    assert "only cheat with the Gamble skill" in refused(
        await table.act(ctx, BOB, action="cheat", session_id=sid, round_no=1)
    )
    # Grimli cheats: only Alice is told; the round waits for Hans.
    said = await table.act(ctx, ALICE, action="cheat", session_id=sid, round_no=1, dice="20 30")
    assert said.reply.ephemeral and "Grimli va tricher ce round" in text(said)
    assert "Grimli a déjà choisi pour ce round." in refused(
        await table.act(ctx, ALICE, action="pull", player="Grimli")
    )
    # Hans pulls: Grimli's Jeu 20 under 30 against Hans's Perception 95 (15 %) → +10: 30 under 51.
    played = await table.act(ctx, BOB, action="pull", session_id=sid, round_no=1, dice="95 84")
    shown = text(played)
    # Bob's move plays the round: the board in English, every cheat roll shown.
    assert "🃏 Grimli cheats — Gamble 30 % · **20** → Success (1 °R); Hans watches — Perception 15 %" in shown
    assert "Grimli cheats unseen: +10 S this round." in shown
    assert "Grimli : 51 % · **30** → Success (2 °R)" in shown
    assert ok(played)["score"] == 1
    # Round 2: Grimli cheats again and is seen (Jeu 80 against Hans's Perception 10): stopped.
    ok(await table.act(ctx, BOB, action="pull", dice="10 50"))
    caught = await table.act(ctx, ALICE, action="cheat", dice="80")
    assert "Grimli est pris à tricher !" in text(caught) and caught.reply.buttons == ()
    assert ok(caught)["exposed"] == ["a"]


CARL = "Carl per=40 main=D♠.D♥.D♦.8♣.7♥"


async def test_a_hand_of_cards_hands_seen_privately_a_hidden_card_slipped_unseen(ctx: AppContext) -> None:
    players = f"Grimli main=7p.8c.9k.Rt.Asp cachees=As♥.As♦, Hans main=R♠.R♥.9♠.10♦.V♣, {CARL}"
    opened = await table.open_match(ctx, GM, game="cards", players=players, stake=10)
    board = ok(opened)
    sid = board["session"]
    # The board never carries a hand nor a hidden card.
    assert "hand" not in board["players"][0] and "deck" not in board and board["pot"] == 30
    assert labels(opened) == ["Relancer (+10)", "Ne pas relancer", "Voir ma main"]
    ok(await table.act(ctx, ALICE, action="raise", session_id=sid, round_no=1))
    ok(await table.act(ctx, BOB, action="call"))
    folded = await table.act(ctx, GM, action="fold", player="Carl")
    assert "Carl se couche." in text(folded) and "Voir ma main" in labels(folded)
    # Alice sees Grimli's hand privately, with the exchange menu and the cheat menu.
    hand = await table.act(ctx, ALICE, action="hand")
    assert hand.reply.ephemeral and "Grimli : 7♠ 8♥ 9♦ R♣ As♠ → Carte haute" in text(hand)
    assert labels(hand) == ["Garder ma main", "Cartes à changer", "Tricher : carte cachée ↔ carte de la main"]
    # Bob's hand, in English, without cheat menu; he may not see Grimli's.
    bobs = await table.act(ctx, BOB, action="hand")
    assert "Hans: K♠ K♥ 9♠ 10♦ J♣ → Paire" in text(bobs) and len(bobs.reply.selects) == 1
    peek = await table.act(ctx, BOB, action="hand", player="Grimli")
    assert "That character (Grimli) is not yours" in refused(peek)
    # The cheat, dice typed for everyone: Jeu 45 (Int 45) beats both Perceptions → only Alice knows.
    slipped = await table.act(ctx, ALICE, action="slip", choice="As♥ 7♠", dice="20 25, Hans 60, Carl 70")
    assert slipped.reply.ephemeral and not slipped.reply.is_error
    assert "Personne ne voit rien : la carte cachée As♥ remplace 7♠" in text(slipped)
    assert "Carl surveille — Perception 40 % · **70** → Échec (3 °E)" in text(slipped)
    assert "Grimli a déjà triché" in refused(await table.act(ctx, ALICE, action="slip", values=("As♦>8♥",)))
    assert "n'est pas dans votre main" in refused(await table.act(ctx, ALICE, action="swap", choice="R♠"))
    ok(await table.act(ctx, ALICE, action="swap", session_id=sid, round_no=3, values=("8♥", "9♦")))
    ok(await table.act(ctx, BOB, action="stand"))
    shown = await table.act(ctx, ALICE, action="check")
    assert "**Grimli** : As♥ 7♦ 7♣ R♣ As♠ → Double paire" in text(shown)
    assert "Grimli remporte le pot (50)." in text(shown)


async def test_a_hand_of_cards_a_cheat_seen_stops_it_and_bad_cards_are_refused(ctx: AppContext) -> None:
    assert "« 2p »" in refused(
        await table.open_match(ctx, GM, game="cards", players="A main=2p.7p.8p.9p.10p, B, C")
    )
    assert "de 3 à 8 joueurs" in refused(await table.open_match(ctx, GM, game="cards", players="A, B"))
    assert "Perception" in refused(
        await table.open_match(ctx, GM, game="cards", players="Otto jeu=40 cachees=As♥, Karl, Udo per=30")
    )
    players = f"Grimli main=7p.8c.9k.Rt.Asp cachees=As♥, Hans main=R♠.R♥.9♠.10♦.V♣, {CARL}"
    ok(await table.open_match(ctx, GM, game="cards", players=players, stake=5))
    ok(await table.act(ctx, ALICE, action="check"))
    # Jeu 80 fails, Hans's Perception 10 succeeds: the table sees it all, the hand stops.
    caught = await table.act(ctx, ALICE, action="slip", choice="As♥ 7♠", dice="80, Hans 10")
    assert not caught.reply.ephemeral and "Grimli est pris à tricher !" in text(caught)
    assert "Hans surveille — Perception 15 % · **10** → Réussite" in text(caught)
    assert ok(caught)["exposed"] == ["Grimli"] and caught.reply.buttons == ()


async def test_a_gm_npc_sheet_shows_its_dice_not_its_values(ctx: AppContext) -> None:
    baron = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"
    ok(await svc.create_character(ctx, GM, name="Baron Noir", stats=baron, npc=True))
    ok(await table.open_match(ctx, GM, game="arm_wrestling", players="Grimli, Baron Noir"))
    # The Baron is the GM's: Alice may not pull for him.
    assert "Baron Noir n'a pas de joueur : c'est le MJ qui joue ce personnage" in refused(
        await table.act(ctx, ALICE, action="pull", player="Baron Noir")
    )
    ok(await table.act(ctx, GM, action="pull", player="Baron Noir", dice="20"))
    played = await table.act(ctx, ALICE, action="pull", dice="30")
    assert "Grimli : 41 % · **30** → Réussite (1 °R)" in text(played)
    assert "Baron Noir : **20** → Réussite (valeurs cachées)" in text(played) and "45 %" not in text(played)
    # Both succeed (margins 11 and 25 hidden): nobody scores, the Baron keeps the excess.
    assert "Les deux réussissent : personne ne marque, Baron Noir garde 14 d'excédent en F" in text(played)
    assert "Score (Grimli contre Baron Noir) : 0" in text(played)
    ok(await table.act(ctx, GM, action="pull", player="Baron Noir", dice="95"))
    pulled = await table.act(ctx, ALICE, action="pull", dice="10")
    assert "Score (Grimli contre Baron Noir) : +1" in text(pulled)


async def test_knife_throwing_the_fortune_point_offered_after_a_miss(ctx: AppContext) -> None:
    # Grimli has Jeu on his sheet: a fortune point for the game. Hans has none.
    ok(await table.open_match(ctx, GM, game="knives", players="Grimli ct=60 maitrise, Hans ct=50"))
    first = await table.act(ctx, ALICE, action="knife", dice="90")
    assert "🔪 Grimli, lancer n° 1 : 60 % · **90** → Échec (3 °E) — raté ; le point de fortune" in text(first)
    assert labels(first) == ["Lancer un couteau", "Relancer (point de fortune)", "Garder le raté"]
    assert "waiting for Grimli" in refused(await table.act(ctx, BOB, action="luck"))
    assert "Grimli doit d'abord décider du lancer raté" in refused(
        await table.act(ctx, ALICE, action="knife")
    )
    lucky = await table.act(ctx, ALICE, action="luck", dice="20")
    assert "Grimli dépense le point de fortune et relance :" in text(lucky)
    assert "🔪 Grimli, lancer n° 1 : 60 % · **20** → Réussite (4 °R) — 40 points." in text(lucky)
    # Hans's miss scores its d10 at once (BS/2 = 25 without the talent).
    hans = await table.act(ctx, BOB, action="knife", dice="80 7")
    assert "🔪 Hans, throw no. 1: 25 % · **80** → Failure (5 °E) — missed, 1d10 = 7 points." in text(hans)
    for roll in ("10", "15"):
        ok(await table.act(ctx, ALICE, action="knife", dice=roll))
    ok(await table.act(ctx, BOB, action="knife", dice="5"))
    assert "no missed throw" in refused(await table.act(ctx, BOB, action="miss", player="Hans"))
    last = await table.act(ctx, BOB, action="knife", dice="20")
    assert "Winner: Grimli" in text(last) and last.reply.buttons == ()
    assert ok(last)["winners"] == ["Grimli"]
