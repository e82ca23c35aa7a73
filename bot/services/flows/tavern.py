"""``/taverne`` (``/tavern``): arm wrestling, cards, dice, drinking contest, knife throwing.

Each game is played in one command (stateless): the players are written
``Name key=value flag, Name key=value`` (keys: f, int, jeu, per, res, ct, pipes, garde; flags:
triche, maitrise) and dice typed by hand ``Name 45 30, Name 20`` go to each player in order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from bot.context import AppContext
from bot.rules.checks.common import DiceError
from bot.rules.renove import tavern as rules
from bot.rules.renove.tavern import Dice, TavernError
from bot.services.caller import Caller
from bot.services.flows.common import FlowResult, Refusal, Scope, parse_rolls, roll_line, run, t
from bot.ui.reply import Colour, Field, Reply

PLAYERS_MAX: Final = 8
TABLE: Final = "tavern_games"
_KEYS: Final = {"f", "int", "jeu", "per", "res", "ct", "pipes", "garde"}
_FLAGS: Final = {"triche", "maitrise"}


def _digits(text: str, most: int) -> bool:
    """ASCII digits only (``"²".isdigit()`` is true but ``int("²")`` fails), at most ``most`` of them."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def parse_players(text: str) -> list[dict[str, Any]]:
    players: list[dict[str, Any]] = []
    for chunk in text.split(","):
        tokens = chunk.split()
        if not tokens:
            continue
        name = tokens[0][:40]
        player: dict[str, Any] = {"name": name}
        for token in tokens[1:]:
            key, sep, value = token.partition("=")
            key = key.casefold()
            if not sep:
                if key not in _FLAGS:
                    raise Refusal("flows.tavern.error.bad_player", token=token[:20])
                player[key] = True
            elif key == "garde":
                player[key] = [int(v) for v in value.split(".") if _digits(v, 2)]
            elif key in _KEYS and _digits(value, 3) and int(value) <= 200:
                player[key] = int(value)
            else:
                raise Refusal("flows.tavern.error.bad_player", token=token[:20])
        players.append(player)
    names = [p["name"].casefold() for p in players]
    if len(set(names)) != len(names):
        raise Refusal("flows.tavern.error.same_name")
    if len(players) > PLAYERS_MAX:
        raise Refusal("flows.tavern.error.too_many", max=PLAYERS_MAX)
    return players


def parse_dice(text: str | None, names: list[str]) -> dict[str, list[int]]:
    """``"Alice 45 30, Bob 20"`` → per player; d6/d10/d20 values are accepted as typed."""
    out: dict[str, list[int]] = {}
    if not text or not text.strip():
        return out
    for chunk in text.split(","):
        tokens = chunk.split()
        if not tokens:
            continue
        who = next((n for n in names if n.casefold() == tokens[0].casefold()), None)
        if who is None:
            raise Refusal("flows.tavern.error.dice_unknown_player", name=tokens[0][:40])
        out[who] = parse_rolls(" ".join(tokens[1:]), option="dice")
    return out


def _need(player: dict[str, Any], key: str) -> int:
    if key not in player:
        raise Refusal("flows.tavern.error.missing_value", name=player["name"], stat=key)
    return int(player[key])


def _reply(
    ctx: AppContext, caller: Caller, game: str, lines: list[str], winners: list[str], payload: dict[str, Any]
) -> FlowResult:
    if winners:
        verdict = t(ctx, caller, "flows.tavern.winner", names=", ".join(winners))
    else:
        verdict = t(ctx, caller, "flows.tavern.no_winner")
    return FlowResult(
        Reply(
            title=t(ctx, caller, f"flows.tavern.game.{game}"),
            description="\n".join(lines)[:3900],
            fields=(Field(t(ctx, caller, "flows.tavern.result"), verdict),),
            colour=Colour.INFO,
            kind="tavern",
            result={"game": game, "winners": winners, **payload},
        )
    )


async def play(
    ctx: AppContext,
    caller: Caller,
    *,
    game: str,
    players: str,
    dice: str | None = None,
    full: bool = False,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        people = parse_players(players)
        names = [p["name"] for p in people]
        typed = parse_dice(dice, names)
        roller = Dice(ctx.rng, typed)
        try:
            return _play(ctx, caller, game, people, roller, full)
        except TavernError as exc:
            raise Refusal(f"flows.tavern.error.{exc.code}", **exc.params) from None
        except DiceError:
            raise Refusal("flows.error.bad_roll") from None

    return await run(ctx, caller, work)


def _play(
    ctx: AppContext, caller: Caller, game: str, people: list[dict[str, Any]], dice: Dice, full: bool
) -> FlowResult:
    if game == "arm_wrestling":
        if len(people) != 2:
            raise Refusal("flows.tavern.error.two_exactly")
        a, b = people
        cheat = a.get("triche")
        result = rules.arm_wrestling(
            _need(a, "f"),
            _need(b, "f"),
            full=full,
            dice=dice,
            names=(a["name"], b["name"]),
            cheat_gamble=_need(a, "jeu") if cheat else None,
            opponent_perception=_need(b, "per") if cheat else None,
        )
        lines = []
        for r in result.rounds:
            line = f"{r.number}. {a['name']} : {roll_line(ctx, caller, r.a)}"
            line += f" · {b['name']} : {roll_line(ctx, caller, r.b)}"
            if full:
                line += " · " + t(ctx, caller, "flows.tavern.score", score=r.score)
            lines.append(line)
        if result.exposed:
            lines.append(t(ctx, caller, "flows.tavern.exposed", name=a["name"]))
        side = {"a": a["name"], "b": b["name"]}
        winners = [side[result.winner]] if result.winner else []
        return _reply(
            ctx,
            caller,
            "arm_wrestling_full" if full else "arm_wrestling_simple",
            lines,
            winners,
            result.to_dict(),
        )
    if game in ("cards", "dice") and not (game == "dice" and full):
        if game == "cards" and full:
            return _cards_full(ctx, caller, people, dice)
        gamblers = [
            rules.Gambler(p["name"], p.get("int", 0), p.get("jeu"), p.get("per", 0), bool(p.get("triche")))
            for p in people
        ]
        scores, winners = rules.highest_roll(gamblers, dice=dice, loaded_dice=game == "dice")
        lines = []
        for s in scores:
            line = f"**{s.name}** : {s.roll:02d} + {s.bonus} = **{s.total}**"
            if s.exposed:
                line += " — " + t(ctx, caller, "flows.tavern.exposed", name=s.name)
            lines.append(line)
        return _reply(
            ctx, caller, f"{game}_simple", lines, winners, {"scores": [s.to_dict() for s in scores]}
        )
    if game == "dice":
        hands = [
            rules.dice_hand(p["name"], dice=dice, keep=p.get("garde", []), loaded=int(p.get("pipes", 0)))
            for p in people
        ]
        lines = []
        for h in hands:
            line = f"**{h.name}** : {' '.join(str(v) for v in h.dice)} → {h.combination}"
            if h.cheat_roll is not None:
                line += " · " + t(
                    ctx,
                    caller,
                    "flows.tavern.loaded",
                    roll=h.cheat_roll,
                    worked=t(ctx, caller, "flows.tavern.yes" if h.cheat_worked else "flows.tavern.no"),
                )
            lines.append(line)
        return _reply(
            ctx, caller, "dice_full", lines, rules.best_hands(hands), {"hands": [h.to_dict() for h in hands]}
        )
    if game == "drinking":
        drinkers = [
            rules.Drinker(p["name"], _need(p, "res"), p.get("jeu"), p.get("per", 0), bool(p.get("triche")))
            for p in people
        ]
        drink = rules.drinking(drinkers, dice=dice)
        lines = []
        for turn in drink.rounds:
            bits = []
            for e in turn["entries"]:
                if e.get("skipped"):
                    bits.append(f"{e['name']} " + t(ctx, caller, "flows.tavern.skipped"))
                elif "test" in e:
                    mark = "✅" if e["test"]["success"] else "❌"
                    bits.append(f"{e['name']} {e['test']['roll_text']}{mark} ({e['failures']}/4)")
                if e.get("cheat") and not e["cheat"]["success"]:
                    bits.append(t(ctx, caller, "flows.tavern.exposed", name=e["name"]))
            lines.append(f"{turn['number']}. " + " · ".join(bits))
        winners = [drink.winner] if drink.winner else []
        return _reply(ctx, caller, "drinking", lines, winners, drink.to_dict())
    if game == "knives":
        throwers = [rules.Thrower(p["name"], _need(p, "ct"), bool(p.get("maitrise"))) for p in people]
        knives, winners = rules.knife_throwing(throwers, dice=dice)
        lines = [
            f"**{k.name}** ({k.target} %) : "
            + " + ".join(str(x.points) for x in k.throws)
            + f" = **{k.total}**"
            for k in knives
        ]
        lines.append(t(ctx, caller, "flows.tavern.knife_fortune"))
        return _reply(
            ctx, caller, "knife_throwing", lines, winners, {"scores": [k.to_dict() for k in knives]}
        )
    raise Refusal("flows.tavern.error.unknown_game")


def _cards_full(ctx: AppContext, caller: Caller, people: list[dict[str, Any]], dice: Dice) -> FlowResult:
    table = ctx.tables.get(TABLE)
    entry = next((e for e in (table.entries if table else []) if e.get("id") == "cards_full"), None)
    if entry is None:
        raise Refusal("flows.tavern.error.no_table")
    size = rules.deck_size(len(people), entry["deck_sizes"])
    ranking = next(r["low_to_high"] for r in entry["hand_rankings"] if size in r["deck_sizes"])
    if dice.rng is None:
        raise Refusal("flows.error.bad_roll")
    hands = rules.deal(size, [p["name"] for p in people], rng=dice.rng)
    deck = rules.build_deck(size)
    ranks = list(dict.fromkeys(card[:-1] for card in deck))
    scored = []
    for name, hand in hands.items():
        rank, combination = rules.card_combination(hand, ranking, ranks)
        # Ties: the bigger group first (the pair's rank), then the highest cards (a reading).
        counts = Counter(ranks.index(c[:-1]) for c in hand)
        high = [v for v, _n in sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
        scored.append((rank, high, name, hand, combination))
    best = max((s[0], s[1]) for s in scored)
    winners = [s[2] for s in scored if (s[0], s[1]) == best]
    lines = [t(ctx, caller, "flows.tavern.deck", size=size)]
    lines += [f"**{s[2]}** : {' '.join(s[3])} → {s[4]}" for s in scored]
    return _reply(
        ctx,
        caller,
        "cards_full",
        lines,
        winners,
        {"deck": size, "hands": {s[2]: {"cards": s[3], "combination": s[4]} for s in scored}},
    )
