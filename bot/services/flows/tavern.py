"""``/taverne`` (``/tavern``): arm wrestling, cards, dice, drinking contest, knife throwing.

Each game is played in one command (stateless): the players are written
``Name key=value flag, Name key=value`` (keys: f, int, jeu, per, res, ct, pipes, garde; flags:
triche, maitrise) and dice typed by hand ``Name 45 30, Name 20`` go to each player in order.

A player's name that is a character sheet the caller may read (their own; any for the GM, NPCs
included) gives the values the game needs that were not typed: F, Int, CT; the Résistance à
l'alcool and Perception targets (untrained: half the characteristic, both basic skills); Jeu only
when acquired (without it no Int bonus and no cheating, as the seed says); Maîtrise (armes de jet)
from the talents. A typed value wins over the sheet; the reply says where each value came from (an
NPC's values are not listed there).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import CharacterSheet, find_character
from bot.rules.checks.common import CheckResult, DiceError
from bot.rules.grammar import is_digits
from bot.rules.renove import tavern as rules
from bot.rules.renove.skills import SkillRefused, skill_score
from bot.rules.renove.tavern import Dice, TavernError
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    english,
    has_talent,
    parse_rolls,
    roll_line,
    run,
    skill_target,
    skill_value,
    t,
)
from bot.services.skill_book import default_skill_book
from bot.ui.reply import Colour, Field, Reply

PLAYERS_MAX: Final = 8
TABLE: Final = "tavern_games"
_KEYS: Final = {"f", "int", "jeu", "per", "res", "ct", "pipes", "garde"}
_FLAGS: Final = {"triche", "maitrise", "fortune"}
_LISTS: Final = {"garde", "triche"}
_CARD_LISTS: Final = {"main", "cachees"}  # cards typed by hand: main=As♠.R♥.10♦.7♣.9♠


def _is_value(token: str) -> bool:
    return "=" in token or token.casefold() in _FLAGS


def _hidden(people: list[dict[str, Any]], name: str) -> bool:
    """A player taken from a GM's NPC sheet: the table sees its dice, not its values."""
    return any(p["name"] == name and p.get("_npc") for p in people)


def _roll_shown(ctx: AppContext, caller: Caller, player: dict[str, Any], check: CheckResult) -> str:
    if player.get("_npc"):
        return t(
            ctx,
            caller,
            "flows.tavern.hidden_roll",
            roll=check.roll_text,
            outcome=t(ctx, caller, check.outcome_key),
        )
    return roll_line(ctx, caller, check)


def parse_players(text: str) -> list[dict[str, Any]]:
    players: list[dict[str, Any]] = []
    for chunk in text.split(","):
        tokens = chunk.split()
        if not tokens:
            continue
        # The name runs to the first value or flag: « Baron Noir res=40 ».
        count = next((i for i, token in enumerate(tokens) if i and _is_value(token)), len(tokens))
        name = " ".join(tokens[:count])[:40]
        player: dict[str, Any] = {"name": name}
        for token in tokens[count:]:
            key, sep, value = token.partition("=")
            key = key.casefold()
            if not sep:
                if key not in _FLAGS:
                    raise Refusal("flows.tavern.error.bad_player", token=token[:20])
                player[key] = True
            elif key in _CARD_LISTS and value and len(value) <= 40:
                player[key] = [card for card in value.split(".") if card]
            elif key in _LISTS:
                parts = value.split(".")
                if not all(is_digits(v, 2) for v in parts):
                    raise Refusal("flows.tavern.error.bad_player", token=token[:20])
                player[key] = [int(v) for v in parts]
            elif (key == "fortune" and is_digits(value, 1)) or (
                key in _KEYS and is_digits(value, 3) and int(value) <= 200
            ):
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
        # A name may be several words (« Baron Noir 45 30 »): the longest player's name that starts it.
        folded = [token.casefold() for token in tokens]
        starts = [n for n in names if folded[: len(n.split())] == n.casefold().split()]
        who = max(starts, key=lambda n: len(n.split()), default=None)
        if who is None:
            raise Refusal("flows.tavern.error.dice_unknown_player", name=tokens[0][:40])
        out[who] = parse_rolls(" ".join(tokens[len(who.split()) :]), option="dice")
    return out


def need(player: dict[str, Any], key: str) -> int:
    """The value ``key`` of a player, typed or read from the sheet; refused (naming what is missing
    and where to put it) when neither gave it."""
    if key not in player:
        key_of = "missing_on_sheet" if player.get("_sheet") else "missing_value"
        raise Refusal(
            f"flows.tavern.error.{key_of}",
            name=player["name"],
            stat=key,
            label=player["_labels"][key],
        )
    return int(player[key])


# -- values read from the sheets -----------------------------------------------------------------

_LABELS: Final = {
    "f": ("F", "S"),
    "int": ("Int", "Int"),
    "ct": ("CT", "BS"),
    "jeu": ("Jeu", "Gamble"),
    "per": ("Perception", "Perception"),
    "res": ("Résistance à l'alcool", "Consume Alcohol"),
    "maitrise": ("Maîtrise (armes de jet)", "Specialist Weapon (Throwing)"),
}
_THROWING: Final = ("Maîtrise (armes de jet)", "Specialist Weapon (Throwing)")


def _wanted(game: str, full: bool, people: list[dict[str, Any]], index: int) -> tuple[str, ...]:
    """The values a player's sheet can give this game (what bot/rules/renove/tavern.py reads)."""
    if game == "arm_match":
        return ("f", "jeu", "per")
    if game == "cards_match":
        return ("jeu", "per")
    if game == "arm_wrestling":
        me, other = people[index], people[1 - index] if len(people) == 2 else {}
        return ("f",) + (("jeu",) if "triche" in me else ()) + (("per",) if "triche" in other else ())
    if game in ("cards", "dice") and not full:
        return ("int", "jeu", "per")
    if game == "drinking":
        return ("res", "jeu", "per") if any(p.get("triche") for p in people) else ("res",)
    if game == "knives":
        return ("ct", "maitrise", "jeu") if "fortune" in people[index] else ("ct", "maitrise")
    if game == "knives_match":
        return ("ct", "maitrise", "jeu")
    return ()


def _gamble(sheet: CharacterSheet) -> int | None:
    """Jeu's target, only when acquired (the seed's bonus and cheating need the skill)."""
    if sheet.ruleset != "renove":
        return skill_value(sheet, "Jeu")
    try:
        score = skill_score(default_skill_book(), sheet.characteristics, sheet.skills, "Jeu")
    except SkillRefused:
        return None
    return score.target if score.trained else None


def _sheet_value(sheet: CharacterSheet, key: str) -> int | bool | None:
    values = sheet.characteristics
    match key:
        case "f" | "int" | "ct":
            code = {"f": "F", "int": "Int", "ct": "CT"}[key]
            return int(values[code]) if code in values else None
        case "res":
            return skill_target(sheet, "Résistance à l'alcool", "E", basic=True)
        case "per":
            return skill_target(sheet, "Perception", "Int", basic=True)
        case "jeu":
            return _gamble(sheet)
        case "maitrise":
            return any(has_talent(sheet, name) for name in _THROWING)
    return None


def _readable(scope: Scope, sheet: CharacterSheet) -> bool:
    """The caller's own player character; any sheet, NPCs included, for the GM."""
    return scope.gm or (sheet.owner_id == scope.caller.user_id and not sheet.is_npc)


async def fill_from_sheets(scope: Scope, game: str, full: bool, people: list[dict[str, Any]]) -> None:
    """Each player whose name is a readable sheet takes from it what was not typed; every player
    keeps where each value came from (``_from``: key → "sheet" | "typed")."""
    en = english(scope.caller)
    for index, player in enumerate(people):
        wanted = _wanted(game, full, people, index)
        player["_labels"] = {k: _LABELS[k][1 if en else 0] for k in _LABELS}
        player["_from"] = {k: "typed" for k in wanted if k in player}
        if not wanted:
            continue
        sheet = await find_character(scope.session, scope.guild_id, player["name"])
        if sheet is None or not _readable(scope, sheet):
            continue
        player["_sheet"] = True
        player["_npc"] = sheet.is_npc
        for key in wanted:
            if key in player:
                continue
            value = _sheet_value(sheet, key)
            if value is None or value is False:
                continue
            player[key] = value
            player["_from"][key] = "sheet"


def _sources_field(ctx: AppContext, caller: Caller, people: list[dict[str, Any]]) -> Field | None:
    """Where each value came from: « **Grimli** — de la fiche : Résistance à l'alcool 38 »."""
    lines = []
    for player in people:
        sources = player.get("_from") or {}
        if not sources:
            continue
        parts = []
        for origin in ("sheet", "typed"):
            keys = [k for k, where in sources.items() if where == origin]
            if not keys:
                continue
            if origin == "sheet" and player.get("_npc"):
                parts.append(t(ctx, caller, "flows.tavern.source.npc_sheet"))
                continue
            shown = [
                player["_labels"][k] if isinstance(player[k], bool) else f"{player['_labels'][k]} {player[k]}"
                for k in keys
            ]
            parts.append(t(ctx, caller, f"flows.tavern.source.{origin}", values=", ".join(shown)))
        lines.append(f"**{player['name']}** — " + " · ".join(parts))
    if not lines:
        return None
    return Field(t(ctx, caller, "flows.tavern.source.title"), "\n".join(lines))


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
        await fill_from_sheets(scope, game, full, people)
        try:
            result = _play(ctx, caller, game, people, roller, full)
        except TavernError as exc:
            raise Refusal(f"flows.tavern.error.{exc.code}", **exc.params) from None
        except DiceError:
            raise Refusal("flows.error.bad_roll") from None
        sources = _sources_field(ctx, caller, people)
        if sources is None:
            return result
        reply = result.reply
        payload = {**(reply.result or {}), "sources": {p["name"]: p.get("_from", {}) for p in people}}
        return replace(result, reply=replace(reply, fields=(*reply.fields, sources), result=payload))

    return await run(ctx, caller, work)


def _play(
    ctx: AppContext, caller: Caller, game: str, people: list[dict[str, Any]], dice: Dice, full: bool
) -> FlowResult:
    if game == "arm_wrestling":
        return _arm_wrestling(ctx, caller, people, dice, full)
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
            line = (
                f"**{s.name}** : **{s.total}**"  # a GM's NPC sheet: its bonus stays hidden
                if _hidden(people, s.name)
                else f"**{s.name}** : {s.roll:02d} + {s.bonus} = **{s.total}**"
            )
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
            rules.Drinker(p["name"], need(p, "res"), p.get("jeu"), p.get("per", 0), bool(p.get("triche")))
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
        throwers = [
            rules.Thrower(
                p["name"],
                need(p, "ct"),
                bool(p.get("maitrise")),
                gamble="jeu" in p,
                fortune=_fortune(p.get("fortune")),
            )
            for p in people
        ]
        knives, winners = rules.knife_throwing(throwers, dice=dice)
        lines = []
        for k in knives:
            line = (
                f"**{k.name}** ({'?' if _hidden(people, k.name) else k.target} %) : "
                + " + ".join(str(x.points) for x in k.throws)
                + f" = **{k.total}**"
            )
            if k.fortune_used is not None:
                throw = k.throws[k.fortune_used - 1]
                assert throw.rerolled is not None
                line += " · " + t(
                    ctx,
                    caller,
                    "flows.tavern.fortune_used",
                    throw=k.fortune_used,
                    first=throw.rerolled.roll_text,
                    second=throw.test.roll_text,
                )
            elif k.name in [p["name"] for p in people if "fortune" in p]:
                line += " · " + t(ctx, caller, "flows.tavern.fortune_kept")
            lines.append(line)
        lines.append(t(ctx, caller, "flows.tavern.knife_fortune"))
        return _reply(
            ctx, caller, "knife_throwing", lines, winners, {"scores": [k.to_dict() for k in knives]}
        )
    raise Refusal("flows.tavern.error.unknown_game")


def _fortune(value: object) -> int | None:
    """The ``fortune`` flag (first missed throw) or ``fortune=N`` (that throw)."""
    if value is None:
        return None
    return rules.FORTUNE_FIRST_MISS if value is True else int(str(value))


def _cheat_rounds(value: object) -> tuple[int, ...] | None:
    """``triche`` (every round) or ``triche=1.3`` (before rounds 1 and 3)."""
    if value is None:
        return None
    if isinstance(value, list):
        rounds = tuple(int(v) for v in value)
        if not all(0 < v <= rules.MAX_ROUNDS for v in rounds):
            raise Refusal("flows.tavern.error.bad_cheat_rounds")
        return rounds
    return ()


def _arm_wrestling(
    ctx: AppContext, caller: Caller, people: list[dict[str, Any]], dice: Dice, full: bool
) -> FlowResult:
    if len(people) != 2:
        raise Refusal("flows.tavern.error.two_exactly")
    a, b = people
    sides = [
        rules.Wrestler(
            p["name"],
            need(p, "f"),
            gamble=need(p, "jeu") if "triche" in p else None,
            perception=need(p, "per") if "triche" in other else 0,
            cheat_rounds=_cheat_rounds(p.get("triche")),
        )
        for p, other in ((a, b), (b, a))
    ]
    result = rules.arm_wrestling(sides[0], sides[1], full=full, dice=dice)
    by_side = {"a": a, "b": b}
    lines: list[str] = []
    for r in result.rounds:
        start = len(lines)
        for cheat in r.cheats:
            me, them = by_side[cheat.who], by_side["b" if cheat.who == "a" else "a"]
            for gamble, perception in cheat.tests:
                lines.append(
                    t(
                        ctx,
                        caller,
                        "flows.tavern.cheat_line",
                        name=me["name"],
                        other=them["name"],
                        gamble=_roll_shown(ctx, caller, me, gamble),
                        perception=_roll_shown(ctx, caller, them, perception),
                    )
                )
            key = "flows.tavern.cheat_works" if cheat.success else "flows.tavern.exposed"
            lines.append(t(ctx, caller, key, name=me["name"]))
        if r.a is not None and r.b is not None:
            line = f"{a['name']} : {_roll_shown(ctx, caller, a, r.a)}"
            line += f" · {b['name']} : {_roll_shown(ctx, caller, b, r.b)}"
            if full:
                line += " · " + t(ctx, caller, "flows.tavern.score", score=r.score)
            lines.append(line)
        # The round's number on its first line, the cheats (before the S tests) indented under it.
        lines[start:] = [f"{r.number}. {lines[start]}", *(f"   {x}" for x in lines[start + 1 :])]
    winners = [by_side[result.winner]["name"]] if result.winner else []
    return _reply(
        ctx,
        caller,
        "arm_wrestling_full" if full else "arm_wrestling_simple",
        lines,
        winners,
        result.to_dict(),
    )


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
