"""The tavern games played at a table through the console, in French and in English: a GM opens
a full dice match and an arm wrestling, two players move each for their own character by buttons,
menus and typed moves; mistakes are refused privately in the player's language."""

from __future__ import annotations

import json
from typing import Any

from .console_script import console_records

GRIMLI = "CC:45 CT:28 F:41 E:45 Ag:25 Int:30 FM:35 Soc:22"
HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"
# Hands typed by hand: French suit letters (p, c, k, t) and English ones (s, h, d, c).
CARDS_FR = (
    "Grimli main=7p.8c.9k.Rt.Asp cachees=As♥, Hans main=R♠.R♥.9♠.10♦.V♣, Carl per=40 main=D♠.D♥.D♦.8♣.7♥"
)
CARDS_EN = "Grimli main=7s.8h.9d.Kc.As cachees=A♥, Hans main=K♠.K♥.9♠.10♦.J♣, Carl per=40 main=Q♠.Q♥.Q♦.8♣.7♥"

SCRIPT_FR = f"""
@alice /perso creer nom:Grimli caracs:"{GRIMLI}" race:nain
@alice /perso modifier competences:Jeu
@bob /perso creer nom:Hans caracs:"{HANS}"
/taverne partie jeu:"Dés (complet)" joueurs:"Grimli pipes=2, Hans" mise:10
@bob /taverne jouer coup:"Lancer les dés" joueur:Grimli
@alice /taverne jouer coup:"Lancer les dés" des:"6 6 3 2 1 1"
@bob !click Lancer les dés
@alice !select "Dé pipé → 6" "Dé n° 3"
@bob !click Ne pas relancer
@alice !click Ne pas relancer
@alice !select "Dés à relancer" "Dé n° 4" "Dé n° 5"
@bob !click Garder mes dés
@bob /taverne arreter
/taverne arreter
/taverne partie jeu:"Bras de fer (complet)" joueurs:"Grimli, Hans"
@bob !click Tricher
@alice /taverne jouer coup:"Tricher (bras de fer)" des:"20 30"
@bob /taverne jouer coup:"Tirer (bras de fer)" des:"95 84"
/taverne arreter
/taverne partie jeu:"Cartes (complet)" joueurs:"{CARDS_FR}" mise:10
@alice !click Ne pas relancer
@alice !click Voir ma main
@bob !click Voir ma main
@alice !select "Tricher : carte cachée ↔ carte de la main" "As♥ ↔ 7♠"
@alice /taverne jouer coup:"Changer des cartes (choix : les cartes)" choix:"8c 9k"
@bob !click Garder ma main
/taverne jouer coup:"Garder ma main (cartes)" joueur:Carl
@alice !click Ne pas relancer
/taverne partie jeu:"Lancer de couteaux" joueurs:"Grimli ct=60 maitrise, Hans ct=50"
@alice /taverne jouer coup:"Lancer un couteau" des:"90"
@bob !click Relancer (point de fortune)
@alice !click Relancer (point de fortune)
"""

SCRIPT_EN = f"""
@alice /character create name:Grimli stats:"{GRIMLI}" race:nain
@alice /character edit skills:Gamble
@bob /character create name:Hans stats:"{HANS}"
/tavern match game:"Dice (full)" players:"Grimli pipes=2, Hans" stake:10
@bob /tavern play move:"Throw the dice" player:Grimli
@alice /tavern play move:"Throw the dice" dice:"6 6 3 2 1 1"
@bob !click Throw the dice
@alice !select "Loaded die → 6" "Die no. 3"
@bob !click No raise
@alice !click No raise
@alice !select "Dice to reroll" "Die no. 4" "Die no. 5"
@bob !click Keep my dice
@bob /tavern stop
/tavern stop
/tavern match game:"Arm wrestling (full)" players:"Grimli, Hans"
@bob !click Cheat
@alice /tavern play move:"Cheat (arm wrestling)" dice:"20 30"
@bob /tavern play move:"Pull (arm wrestling)" dice:"95 84"
/tavern stop
/tavern match game:"Cards (full)" players:"{CARDS_EN}" stake:10
@alice !click No raise
@alice !click See my hand
@bob !click See my hand
@alice !select "Cheat: hidden card ↔ card in hand" "A♥ ↔ 7♠"
@alice /tavern play move:"Change cards (choice: the cards)" choice:"8h 9d"
@bob !click Keep my hand
/tavern play move:"Keep my hand (cards)" player:Carl
@alice !click No raise
/tavern match game:"Knife throwing" players:"Grimli ct=60 maitrise, Hans ct=50"
@alice /tavern play move:"Throw a knife" dice:"90"
@bob !click Reroll (fortune point)
@alice !click Reroll (fortune point)
"""


def text_of(record: dict[str, Any]) -> str:
    return json.dumps([record.get("content"), record.get("embeds")], ensure_ascii=False)


def answers(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replies after the three sheets were made."""
    replies = [r for r in records if r.get("command")]
    return replies[3:]


def labels(record: dict[str, Any]) -> list[str]:
    buttons = [c.get("label") for c in record.get("components", [])]
    return buttons + [s.get("placeholder") for s in record.get("selects", [])]


def test_the_tavern_table_in_french() -> None:
    replies = answers(console_records(SCRIPT_FR))
    opened, not_his, loaded, hans, placed, bob_bet, check, reroll, kept = replies[:9]
    stop_refused, stopped, arm, no_gamble, cheat, round_one = replies[9:15]
    assert "🎲 Partie de dés — manche 1" in text_of(opened) and labels(opened) == ["Lancer les dés"]
    assert not_his["ephemeral"]
    assert "Ce personnage (Grimli) n'est pas le vôtre : seul son joueur joue pour lui." in text_of(not_his)
    # Grimli's loaded dice work (typed d20 = 1): Alice alone sees it and places the 6.
    assert loaded["ephemeral"] and "d20 = 1 : les dés pipés marchent" in text_of(loaded)
    assert labels(loaded) == ["Dé pipé → 6"]
    assert not hans["ephemeral"] and "🎲 Hans lance" in text_of(hans) and "pipés" not in text_of(hans)
    assert "🎲 Grimli lance : 6 6 6 2 1" in text_of(placed) and "Brelan" in text_of(placed)
    assert labels(placed) == ["Relancer (+10)", "Ne pas relancer"]
    assert bob_bet["ephemeral"] and "Ce n'est pas à vous : la table attend Grimli." in text_of(bob_bet)
    assert "Grimli ne relance pas la mise." in text_of(check)
    assert "Grimli relance les dés n° 4 et 5 : 6 6 6 2 1 →" in text_of(reroll)
    assert "Hans garde ses dés." in text_of(kept) and "Manche 1" in text_of(kept)
    assert "manche 2" in text_of(kept) or "Partie finie" in text_of(kept)
    assert stop_refused["ephemeral"] and "Seuls le MJ" in text_of(stop_refused)
    assert "Partie de dés : partie arrêtée." in text_of(stopped)
    assert "💪 Bras de fer — round 1" in text_of(arm) and labels(arm) == ["Tirer", "Tricher"]
    assert no_gamble["ephemeral"] and "Hans ne peut tricher qu'avec la compétence Jeu" in text_of(no_gamble)
    assert cheat["ephemeral"] and "Grimli va tricher ce round (personne d'autre ne le sait)" in text_of(cheat)
    shown = text_of(round_one)
    assert "🃏 Grimli triche — Jeu 30 % · **20** → Réussite (1 °R) ;" in shown
    assert "Hans surveille — Perception 15 % · **95** → Échec" in shown
    assert "Grimli triche sans se faire prendre : +10 en F pour ce round." in shown
    assert "Score (Grimli contre Hans) : +1" in shown
    _cards_fr(replies[15:])
    opened, missed, bob_luck, luck = replies[-4:]
    assert "🔪 Lancer de couteaux" in text_of(opened)
    assert "point de fortune (Jeu) disponible" in text_of(opened)
    assert "🔪 Grimli, lancer n° 1 : 60 % · **90** → Échec (3 °E) — raté" in text_of(missed)
    assert labels(missed) == ["Lancer un couteau", "Relancer (point de fortune)", "Garder le raté"]
    assert bob_luck["ephemeral"] and "la table attend Grimli" in text_of(bob_luck)
    assert not luck["ephemeral"] and "Grimli dépense le point de fortune et relance :" in text_of(luck)


def _cards_fr(replies: list[dict[str, Any]]) -> None:
    _stop, opened, check, alice_hand, bob_hand, slipped, changed, hans_keeps, carl_keeps, end = replies[:10]
    assert "🃏 Partie de cartes — paquet de 32 cartes" in text_of(opened)
    assert "Grimli ne relance pas la mise." in text_of(check)
    assert alice_hand["ephemeral"] and "Grimli : 7♠ 8♥ 9♦ R♣ As♠ → Carte haute" in text_of(alice_hand)
    assert bob_hand["ephemeral"] and "Hans : R♠ R♥ 9♠ 10♦ V♣ → Paire" in text_of(bob_hand)
    assert labels(bob_hand) == ["Garder ma main", "Cartes à changer"]
    # The cheat is rolled by the bot (seed 5): whichever way it goes, its rolls are shown to Alice
    # alone when unseen, to the table when seen.
    if slipped["ephemeral"]:
        assert "Personne ne voit rien : la carte cachée As♥ remplace 7♠" in text_of(slipped)
        assert "Grimli change 2 cartes." in text_of(changed)
        assert "Hans garde sa main." in text_of(hans_keeps) and "Carl garde sa main." in text_of(carl_keeps)
        assert "On abat les cartes." in text_of(end) and "remporte" in text_of(end)
    else:
        assert "Grimli est pris à tricher !" in text_of(slipped)
    assert "Grimli triche — Jeu 30 %" in text_of(slipped)


def test_the_tavern_table_in_english() -> None:
    replies = answers(console_records(SCRIPT_EN, locale="en"))
    opened, not_his, loaded, hans, placed, bob_bet, check, reroll, kept = replies[:9]
    stop_refused, stopped, arm, no_gamble, cheat, round_one = replies[9:15]
    assert "🎲 Dice match — round 1" in text_of(opened) and labels(opened) == ["Throw the dice"]
    assert not_his["ephemeral"]
    assert "That character (Grimli) is not yours: only their player plays for them." in text_of(not_his)
    assert loaded["ephemeral"] and "d20 = 1: the loaded dice work" in text_of(loaded)
    assert "🎲 Grimli throws: 6 6 6 2 1" in text_of(placed)
    assert bob_bet["ephemeral"] and "Not your move: the table is waiting for Grimli." in text_of(bob_bet)
    assert "Grimli does not raise." in text_of(check)
    assert "Grimli rerolls dice no. 4 and 5: 6 6 6 2 1 →" in text_of(reroll)
    assert "Hans keeps the dice." in text_of(kept)
    assert stop_refused["ephemeral"] and "Dice match: game stopped." in text_of(stopped)
    assert labels(arm) == ["Pull", "Cheat"]
    assert no_gamble["ephemeral"] and "Hans can only cheat with the Gamble skill" in text_of(no_gamble)
    assert cheat["ephemeral"] and "Grimli will cheat this round" in text_of(cheat)
    assert "🃏 Grimli cheats — Gamble 30 % · **20** → Success (1 °R)" in text_of(round_one)
    assert not hans["ephemeral"]
    _stop, opened, check, alice_hand, bob_hand, slipped = replies[15:21]
    assert "🃏 Card game — a 32-card deck" in text_of(opened)
    assert alice_hand["ephemeral"] and "Grimli: 7♠ 8♥ 9♦ K♣ A♠ → Carte haute" in text_of(alice_hand)
    assert "Hans: K♠ K♥ 9♠ 10♦ J♣ → Paire" in text_of(bob_hand)
    assert "Grimli cheats — Gamble 30 %" in text_of(slipped)
    opened, missed, bob_luck, luck = replies[-4:]
    assert "🔪 Knife throwing" in text_of(opened)
    assert "🔪 Grimli, throw no. 1: 60 % · **90** → Failure (3 °E) — missed" in text_of(missed)
    assert bob_luck["ephemeral"] and "the table is waiting for Grimli" in text_of(bob_luck)
    assert "Grimli spends the fortune point and throws again:" in text_of(luck)
