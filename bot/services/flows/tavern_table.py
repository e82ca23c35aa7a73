"""``/taverne partie`` (``/tavern match``): a tavern game played move by move at the table.

Two games: the full dice match (2 to 4 players) and the full arm wrestling. The board (a public
message) carries the buttons and select menus of the moves the table waits for; every move can
also be typed with ``/taverne jouer`` (``/tavern play``), dice by hand included. Each player acts
only for himself: a player's name that is a player character's sheet belongs to that sheet's
owner; any other name (no sheet, or a GM's NPC) to whoever opened the game and to the GM. A move
out of turn, for someone else, or on an old board is refused privately in the caller's language.
The state lives in one ``game_sessions`` row (kind ``tavern``); each move is one transaction.
"""

from __future__ import annotations

from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import find_character
from bot.db.flow_models import GameSession
from bot.rules.checks.common import CheckResult
from bot.rules.grammar import is_digits
from bot.rules.renove import tavern as rules
from bot.rules.renove import tavern_match as match_rules
from bot.rules.renove.tavern import Dice, TavernError
from bot.rules.renove.tavern_match import ArmMatch, DiceMatch, Phase
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    custom_id,
    new_session,
    open_session,
    parse_rolls,
    roll_line,
    run,
    save_state,
    session_by_id,
    t,
)
from bot.services.flows.tavern import _fill_from_sheets, _need, parse_players
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply, Select, SelectOption

KIND: Final = "tavern"
FLOW: Final = "tavern"
GAMES: Final = ("dice", "arm_wrestling")
ACTIONS: Final = (
    "throw",
    "load",
    "raise",
    "check",
    "call",
    "fold",
    "reroll",
    "keep",
    "pull",
    "cheat",
)
POSITIONS: Final = (1, 2, 3, 4, 5)


def _refuse(exc: TavernError) -> Refusal:
    return Refusal(f"flows.tavern_table.error.{exc.code}", **exc.params)


def _match(state: dict[str, Any]) -> DiceMatch | ArmMatch:
    data = state["match"]
    return ArmMatch.from_dict(data) if data.get("game") == "arm_wrestling" else DiceMatch.from_dict(data)


def _round_of(match: DiceMatch | ArmMatch) -> int:
    return match.round


# -- who plays whom -----------------------------------------------------------------------------


def _may_control(scope: Scope, row: GameSession, state: dict[str, Any], name: str) -> bool:
    owner = state["controllers"].get(name)
    if owner is not None:
        return int(owner) == scope.caller.user_id
    return scope.gm or row.owner_id == scope.caller.user_id


def _acting(
    scope: Scope, row: GameSession, state: dict[str, Any], waiting: list[str], player: str | None
) -> str:
    """The player the caller moves for: the one named (his own), else his first awaited one."""
    names = list(state["controllers"])
    if player and player.strip():
        wanted = next((n for n in names if n.casefold() == player.strip().casefold()), None)
        if wanted is None:
            raise Refusal("flows.tavern_table.error.not_playing", name=player.strip()[:40])
        if not _may_control(scope, row, state, wanted):
            raise Refusal("flows.tavern_table.error.not_yours", name=wanted)
        return str(wanted)
    mine = [n for n in names if _may_control(scope, row, state, n)]
    if not mine:
        raise Refusal("flows.tavern_table.error.not_at_table")
    ready = [n for n in waiting if n in mine]
    if not ready:
        raise Refusal("flows.tavern_table.error.waiting_for", names=", ".join(waiting) or "—")
    return ready[0]


# -- the board ----------------------------------------------------------------------------------


def _wins(ctx: AppContext, caller: Caller, wins: int) -> str:
    key = "none" if wins == 0 else "one" if wins == 1 else "many"
    return t(ctx, caller, f"flows.tavern_table.wins.{key}", n=wins)


def _dice_text(dice: list[int]) -> str:
    return " ".join(str(v) for v in dice)


def _dice_board(
    ctx: AppContext, caller: Caller, row: GameSession, match: DiceMatch, events: list[str]
) -> Reply:
    lines = list(events)
    if lines:
        lines.append("")
    for index, p in enumerate(match.players):
        line = f"**{p.name}** — {_wins(ctx, caller, p.wins)}"
        if index == match.first and match.phase is not Phase.OVER:
            line += " · " + t(ctx, caller, "flows.tavern_table.first")
        if p.folded:
            line += " · " + t(ctx, caller, "flows.tavern_table.folded")
        elif p.dice and not p.must_load:  # a loaded die being placed: the table waits, unaware
            line += f" · {_dice_text(p.dice)} → {match_rules.hand(p).combination}"
        lines.append(line)
    fields = [Field(t(ctx, caller, "flows.tavern_table.pot"), str(match.pot), inline=True)]
    if match.phase is Phase.OVER:
        verdict = t(ctx, caller, "flows.tavern_table.dice_won", name=match.winner or "—", pot=match.pot)
    else:
        verdict = t(
            ctx,
            caller,
            f"flows.tavern_table.prompt.{match.phase.value}",
            names=", ".join(match.waiting()),
            stake=match.stake,
        )
    fields.append(Field(t(ctx, caller, "flows.tavern_table.next"), verdict))
    buttons: list[Button] = []
    selects: list[Select] = []
    rid = row.id
    if match.phase is Phase.ROLL:
        buttons.append(_button(ctx, caller, "throw", rid, match.round, ButtonStyle.PRIMARY, "🎲"))
    elif match.phase is Phase.BET:
        buttons.append(
            _button(ctx, caller, "raise", rid, match.round, ButtonStyle.PRIMARY, stake=match.stake)
        )
        buttons.append(_button(ctx, caller, "check", rid, match.round))
    elif match.phase is Phase.CALL:
        buttons.append(_button(ctx, caller, "call", rid, match.round, ButtonStyle.PRIMARY, stake=match.stake))
        buttons.append(_button(ctx, caller, "fold", rid, match.round, ButtonStyle.DANGER))
    elif match.phase is Phase.REROLL:
        selects.append(_positions(ctx, caller, "reroll", rid, match.round, single=False))
        buttons.append(_button(ctx, caller, "keep", rid, match.round))
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.dice_title", round=match.round),
        description="\n".join(lines)[:3900],
        fields=tuple(fields),
        colour=Colour.INFO,
        buttons=(tuple(buttons),) if buttons else (),
        selects=tuple(selects),
        kind="tavern_table",
        result={"session": row.id, **_public(match.to_dict())},
    )


def _public(data: dict[str, Any]) -> dict[str, Any]:
    """The board's payload without the loaded dice's secrets (who has some, the d20)."""
    players = [
        {k: v for k, v in p.items() if k not in ("loaded", "cheat_roll", "must_load")}
        | ({"dice": []} if p.get("must_load") else {})
        for p in data["players"]
    ]
    return {**data, "players": players}


def _button(
    ctx: AppContext,
    caller: Caller,
    action: str,
    session_id: int,
    round_no: int,
    style: ButtonStyle = ButtonStyle.SECONDARY,
    emoji: str | None = None,
    **params: Any,
) -> Button:
    return Button(
        label=t(ctx, caller, f"flows.tavern_table.button.{action}", **params),
        custom_id=custom_id(FLOW, action, session_id, round_no),
        style=style,
        emoji=emoji,
    )


def _positions(
    ctx: AppContext, caller: Caller, action: str, session_id: int, round_no: int, *, single: bool
) -> Select:
    return Select(
        custom_id=custom_id(FLOW, action, session_id, round_no),
        options=tuple(
            SelectOption(label=t(ctx, caller, "flows.tavern_table.die", n=n), value=str(n)) for n in POSITIONS
        ),
        placeholder=t(ctx, caller, f"flows.tavern_table.select.{action}"),
        min_values=1,
        max_values=1 if single else len(POSITIONS),
    )


def _arm_board(
    ctx: AppContext, caller: Caller, row: GameSession, match: ArmMatch, events: list[str]
) -> Reply:
    a, b = match.wrestlers
    lines = list(events)
    if lines:
        lines.append("")
    lines.append(t(ctx, caller, "flows.tavern_table.arm_score", a=a.name, b=b.name, score=match.score))
    if match.winner is not None:
        winner = a.name if match.winner == "a" else b.name
        verdict = t(ctx, caller, "flows.tavern.winner", names=winner)
    elif match.exposed:
        verdict = t(ctx, caller, "flows.tavern_table.arm_stopped")
    else:
        verdict = t(ctx, caller, "flows.tavern_table.prompt.declare", names=", ".join(match.waiting()))
    buttons: tuple[tuple[Button, ...], ...] = ()
    if not match.over:
        buttons = (
            (
                _button(ctx, caller, "pull", row.id, match.round, ButtonStyle.PRIMARY, "💪"),
                _button(ctx, caller, "cheat", row.id, match.round, ButtonStyle.SECONDARY, "🃏"),
            ),
        )
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.arm_title", round=match.round),
        description="\n".join(lines)[:3900],
        fields=(Field(t(ctx, caller, "flows.tavern_table.next"), verdict),),
        colour=Colour.INFO,
        buttons=buttons,
        kind="tavern_table",
        result={"session": row.id, **match.to_dict()},
    )


def _board(
    ctx: AppContext, caller: Caller, row: GameSession, match: DiceMatch | ArmMatch, events: list[str]
) -> Reply:
    if isinstance(match, ArmMatch):
        return _arm_board(ctx, caller, row, match, events)
    return _dice_board(ctx, caller, row, match, events)


# -- opening and closing ------------------------------------------------------------------------


async def open_match(
    ctx: AppContext, caller: Caller, *, game: str, players: str, stake: int = 0
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        if game not in GAMES:
            raise Refusal("flows.tavern.error.unknown_game")
        if await open_session(scope, KIND) is not None:
            raise Refusal("flows.tavern_table.error.already_open")
        people = parse_players(players)
        await _fill_from_sheets(scope, "arm_match" if game == "arm_wrestling" else "dice_match", True, people)
        controllers: dict[str, str | None] = {}
        for person in people:
            sheet = await find_character(scope.session, scope.guild_id, person["name"])
            mine = sheet is not None and not sheet.is_npc
            controllers[person["name"]] = str(sheet.owner_id) if sheet is not None and mine else None
        try:
            match: DiceMatch | ArmMatch
            if game == "dice":
                match = match_rules.new_dice_match(
                    [(p["name"], int(p.get("pipes", 0))) for p in people], stake
                )
            else:
                match = _new_arm(people)
        except TavernError as exc:
            raise _refuse(exc) from None
        state = {"match": match.to_dict(), "controllers": controllers}
        row = new_session(scope, KIND, t(ctx, caller, f"flows.tavern_table.game.{game}"), state)
        await scope.session.flush()
        intro = t(ctx, caller, "flows.tavern_table.opened", names=", ".join(controllers))
        return FlowResult(_board(ctx, caller, row, match, [intro]), session_id=row.id)

    return await run(ctx, caller, work)


def _new_arm(people: list[dict[str, Any]]) -> ArmMatch:
    if len(people) != 2:
        raise Refusal("flows.tavern.error.two_exactly")
    a, b = people
    # Perception is needed against an opponent who may cheat (who has Jeu).
    sides = [
        rules.Wrestler(
            p["name"],
            _need(p, "f"),
            gamble=p.get("jeu"),
            perception=_need(p, "per") if "jeu" in other else int(p.get("per", 0)),
        )
        for p, other in ((a, b), (b, a))
    ]
    return match_rules.new_arm_match(sides[0], sides[1])


async def stop(ctx: AppContext, caller: Caller) -> FlowResult:
    """The opener or the GM ends the game in this channel."""

    async def work(scope: Scope) -> FlowResult:
        row = await open_session(scope, KIND)
        if row is None:
            raise Refusal("flows.tavern_table.error.none_open")
        if not (scope.gm or row.owner_id == scope.caller.user_id):
            raise Refusal("flows.tavern_table.error.stop_not_yours")
        row.closed = True
        return FlowResult(
            Reply(
                description=t(ctx, caller, "flows.tavern_table.stopped", game=row.title),
                colour=Colour.INFO,
                kind="tavern_table",
                result={"session": row.id, "closed": True},
            )
        )

    return await run(ctx, caller, work)


# -- the moves ----------------------------------------------------------------------------------


def _positions_of(values: tuple[str, ...], choice: str | None) -> list[int]:
    """Dice positions from a select menu's values or typed « 1 3 5 »."""
    tokens = list(values) or (choice or "").replace(",", " ").split()
    if not all(is_digits(token, 1) and int(token) in POSITIONS for token in tokens):
        raise Refusal("flows.tavern_table.error.bad_positions")
    return [int(token) for token in tokens]


async def act(
    ctx: AppContext,
    caller: Caller,
    *,
    action: str,
    session_id: int | None = None,
    round_no: int | None = None,
    player: str | None = None,
    choice: str | None = None,
    values: tuple[str, ...] = (),
    dice: str | None = None,
) -> FlowResult:
    """One move: from a board's button or menu (``session_id`` and ``round_no`` from its custom
    id), or typed (the channel's open game, ``choice`` for dice positions, ``dice`` by hand)."""

    async def work(scope: Scope) -> FlowResult:
        if action not in ACTIONS:
            raise Refusal("flows.tavern_table.error.bad_action")
        if session_id is not None:
            row = await session_by_id(scope, KIND, session_id)
        else:
            found = await open_session(scope, KIND)
            if found is None:
                raise Refusal("flows.tavern_table.error.none_open")
            row = found
        state = dict(row.state)
        match = _match(state)
        if round_no is not None and round_no != _round_of(match):
            raise Refusal("flows.tavern_table.error.old_board")
        typed = parse_rolls(dice, option="dice") if dice else []
        loaded: dict[str, Any] | None = None
        try:
            if isinstance(match, ArmMatch):
                if action not in ("pull", "cheat"):
                    raise Refusal("flows.tavern_table.error.wrong_game")
                who = _acting(scope, row, state, match.waiting(), player)
                result = _arm_move(ctx, caller, match, who, action == "cheat", typed)
            else:
                if action in ("pull", "cheat"):
                    raise Refusal("flows.tavern_table.error.wrong_game")
                waiting = match.waiting()
                if action == "load":
                    waiting = [p.name for p in match.players if p.must_load]
                who = _acting(scope, row, state, waiting, player)
                events, loaded = _dice_move(
                    ctx, caller, match, who, action, _positions_of(values, choice), typed
                )
                result = None
        except TavernError as exc:
            raise _refuse(exc) from None
        state["match"] = match.to_dict()
        save_state(row, state)
        over = match.phase is Phase.OVER if isinstance(match, DiceMatch) else match.over
        if over:
            row.closed = True
        if isinstance(match, DiceMatch) and loaded is not None:
            return FlowResult(_loaded_reply(ctx, caller, row, match, loaded), session_id=row.id)
        if isinstance(match, ArmMatch):
            if result is None:
                # The first to speak is answered privately: the other must not learn his choice.
                key = (
                    "flows.tavern_table.declared_cheat"
                    if action == "cheat"
                    else "flows.tavern_table.declared"
                )
                waiting_for = ", ".join(match.waiting())
                return FlowResult(
                    Reply(
                        description=t(ctx, caller, key, name=who, other=waiting_for),
                        colour=Colour.INFO,
                        ephemeral=True,
                        kind="tavern_table",
                        result={"session": row.id, "declared": who},
                    )
                )
            events = result
        return FlowResult(_board(ctx, caller, row, match, events), session_id=row.id)

    return await run(ctx, caller, work)


def _dice_move(
    ctx: AppContext,
    caller: Caller,
    match: DiceMatch,
    who: str,
    action: str,
    positions: list[int],
    typed: list[int],
) -> tuple[list[str], dict[str, Any] | None]:
    """The move's lines for the table, or the throw event when the loaded dice worked."""
    dice = Dice(ctx.rng, {who: typed})
    rounds_before = len(match.rounds)
    events: list[str] = []
    if action == "throw":
        event = match_rules.throw(match, who, dice)
        if event.get("cheat_worked"):
            # The loaded dice worked: only the cheater learns it, and places the 6 privately; the
            # table sees the throw once the die is placed.
            return [], event
        events.append(t(ctx, caller, "flows.tavern_table.ev.throw", name=who, dice=_dice_text(event["dice"])))
    elif action == "load":
        if len(positions) != 1:
            raise Refusal("flows.tavern_table.error.one_position")
        event = match_rules.place_loaded(match, who, positions[0])
        # The table sees a plain throw: the loaded die stays the cheater's secret.
        events.append(t(ctx, caller, "flows.tavern_table.ev.throw", name=who, dice=_dice_text(event["dice"])))
    elif action in ("raise", "check"):
        match_rules.raise_bet(match, who, raise_it=action == "raise")
        events.append(
            t(ctx, caller, f"flows.tavern_table.ev.{action}", name=who, stake=match.stake, pot=match.pot)
        )
    elif action in ("call", "fold"):
        match_rules.answer_raise(match, who, call=action == "call")
        events.append(
            t(ctx, caller, f"flows.tavern_table.ev.{action}", name=who, stake=match.stake, pot=match.pot)
        )
    else:
        chosen = positions if action == "reroll" else []
        if action == "reroll" and not chosen:
            raise Refusal("flows.tavern_table.error.bad_positions")
        event = match_rules.reroll(match, who, chosen, dice)
        if chosen:
            events.append(
                t(
                    ctx,
                    caller,
                    "flows.tavern_table.ev.reroll",
                    name=who,
                    positions=", ".join(str(n) for n in event["positions"]),
                    before=_dice_text(event["before"]),
                    dice=_dice_text(event["dice"]),
                )
            )
        else:
            events.append(t(ctx, caller, "flows.tavern_table.ev.keep", name=who))
    for record in match.rounds[rounds_before:]:
        events.append(_round_end(ctx, caller, record))
    return events, None


def _loaded_reply(
    ctx: AppContext, caller: Caller, row: GameSession, match: DiceMatch, event: dict[str, Any]
) -> Reply:
    """Private to the cheater: the d20 worked, choose the die that shows the loaded face."""
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.loaded_title"),
        description=t(
            ctx,
            caller,
            "flows.tavern_table.loaded_worked",
            name=event["name"],
            dice=_dice_text(event["dice"]),
            roll=event["cheat_roll"],
        ),
        colour=Colour.INFO,
        ephemeral=True,
        selects=(_positions(ctx, caller, "load", row.id, match.round, single=True),),
        kind="tavern_table",
        result={"session": row.id, "loaded": event},
    )


def _round_end(ctx: AppContext, caller: Caller, record: dict[str, Any]) -> str:
    hands = record["hands"]
    shown = " · ".join(f"{name} {_dice_text(h['dice'])} → {h['combination']}" for name, h in hands.items())
    if record["winner"] is None:
        return t(
            ctx,
            caller,
            "flows.tavern_table.ev.tie",
            n=record["round"],
            names=", ".join(record["tied"]),
            hands=shown,
        )
    if len(hands) == 1:
        return t(ctx, caller, "flows.tavern_table.ev.alone", n=record["round"], name=record["winner"])
    combination = hands[record["winner"]]["combination"]
    return t(
        ctx,
        caller,
        "flows.tavern_table.ev.round",
        n=record["round"],
        name=record["winner"],
        combination=combination,
        hands=shown,
    )


def _arm_move(
    ctx: AppContext, caller: Caller, match: ArmMatch, who: str, cheat: bool, typed: list[int]
) -> list[str] | None:
    played = match_rules.declare(match, who, cheat=cheat, typed=typed, rng=ctx.rng)
    if played is None:
        return None
    a, b = match.wrestlers
    names = {"a": a.name, "b": b.name}
    lines: list[str] = []
    for test in played.cheats:
        me, them = names[test.who], names["b" if test.who == "a" else "a"]
        for gamble, perception in test.tests:
            lines.append(
                t(
                    ctx,
                    caller,
                    "flows.tavern.cheat_line",
                    name=me,
                    other=them,
                    gamble=roll_line(ctx, caller, gamble),
                    perception=roll_line(ctx, caller, perception),
                )
            )
        lines.append(
            t(ctx, caller, "flows.tavern.cheat_works" if test.success else "flows.tavern.exposed", name=me)
        )
    if played.a is not None and played.b is not None:
        lines.append(_pull_line(ctx, caller, a.name, played.a, b.name, played.b))
    return [f"**{t(ctx, caller, 'flows.tavern_table.round_n', n=played.number)}**", *lines]


def _pull_line(ctx: AppContext, caller: Caller, a: str, ra: CheckResult, b: str, rb: CheckResult) -> str:
    return f"{a} : {roll_line(ctx, caller, ra)} · {b} : {roll_line(ctx, caller, rb)}"
