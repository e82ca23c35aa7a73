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
from bot.rules.grammar import is_digits
from bot.rules.renove import tavern as rules
from bot.rules.renove import tavern_match as match_rules
from bot.rules.renove.tavern import Dice, TavernError
from bot.rules.renove.tavern_match import (
    ArmMatch,
    CardPhase,
    CardPlayer,
    CardsMatch,
    DiceMatch,
    KnivesMatch,
    Phase,
)
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    custom_id,
    english,
    new_session,
    open_session,
    parse_rolls,
    run,
    save_state,
    session_by_id,
    t,
)
from bot.services.flows.tavern import TABLE, fill_from_sheets, need, parse_dice, parse_players
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply, Select, SelectOption

KIND: Final = "tavern"
FLOW: Final = "tavern"
GAMES: Final = ("dice", "arm_wrestling", "cards", "knives")
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
    "hand",
    "swap",
    "stand",
    "slip",
    "knife",
    "luck",
    "miss",
)
KNIFE_ACTIONS: Final = ("knife", "luck", "miss")
CARD_ACTIONS: Final = ("raise", "check", "call", "fold", "hand", "swap", "stand", "slip")
POSITIONS: Final = (1, 2, 3, 4, 5)


def _refuse(exc: TavernError) -> Refusal:
    return Refusal(f"flows.tavern_table.error.{exc.code}", **exc.params)


Match = DiceMatch | ArmMatch | CardsMatch | KnivesMatch


def _match(state: dict[str, Any]) -> Match:
    data = state["match"]
    if data.get("game") == "arm_wrestling":
        return ArmMatch.from_dict(data)
    if data.get("game") == "cards":
        return CardsMatch.from_dict(data)
    if data.get("game") == "knives":
        return KnivesMatch.from_dict(data)
    return DiceMatch.from_dict(data)


def _round_of(match: Match) -> int:
    return match.round


def _over(match: Match) -> bool:
    if isinstance(match, ArmMatch | KnivesMatch):
        return match.over
    if isinstance(match, CardsMatch):
        return match.phase is CardPhase.OVER
    return match.phase is Phase.OVER


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
            key = "not_yours" if state["controllers"].get(wanted) is not None else "not_yours_gm"
            raise Refusal(f"flows.tavern_table.error.{key}", name=wanted)
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
    score = f"{match.score:+d}".replace("-", "−") if match.score else "0"
    lines.append(t(ctx, caller, "flows.tavern_table.arm_score", a=a.name, b=b.name, score=score))
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


def _board(ctx: AppContext, caller: Caller, row: GameSession, match: Match, events: list[str]) -> Reply:
    if isinstance(match, ArmMatch):
        return _arm_board(ctx, caller, row, match, events)
    if isinstance(match, CardsMatch):
        return _cards_board(ctx, caller, row, match, events)
    if isinstance(match, KnivesMatch):
        return _knives_board(ctx, caller, row, match, events)
    return _dice_board(ctx, caller, row, match, events)


def _knives_board(
    ctx: AppContext, caller: Caller, row: GameSession, match: KnivesMatch, events: list[str]
) -> Reply:
    lines = list(events)
    if lines:
        lines.append("")
    for p in match.players:
        points = " + ".join(str(t_["points"]) for t_ in p.throws) or "—"
        line = f"**{p.name}** ({p.target} %) : {points} = **{p.total}**"
        if p.fortune:
            line += " · " + t(ctx, caller, "flows.tavern_table.knife_fortune_left")
        lines.append(line)
    if match.over:
        verdict = t(ctx, caller, "flows.tavern.winner", names=", ".join(match.winners))
    else:
        verdict = t(ctx, caller, "flows.tavern_table.prompt.knives", names=", ".join(match.waiting()))
    buttons: tuple[tuple[Button, ...], ...] = ()
    if not match.over:
        row_buttons = [_button(ctx, caller, "knife", row.id, match.round, ButtonStyle.PRIMARY, "🔪")]
        if any(p.pending for p in match.players):
            row_buttons.append(_button(ctx, caller, "luck", row.id, match.round, ButtonStyle.SUCCESS, "🍀"))
            row_buttons.append(_button(ctx, caller, "miss", row.id, match.round))
        buttons = (tuple(row_buttons),)
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.knives_title"),
        description="\n".join(lines)[:3900],
        fields=(Field(t(ctx, caller, "flows.tavern_table.next"), verdict),),
        colour=Colour.INFO,
        buttons=buttons,
        kind="tavern_table",
        result={"session": row.id, **match.to_dict()},
    )


def _card(ctx: AppContext, caller: Caller, card: str) -> str:
    """French ranks (V, D, R, As) in French; J, Q, K, A in English."""
    if not english(caller):
        return card
    rank, suit = card[:-1], card[-1]
    return {"V": "J", "D": "Q", "R": "K", "As": "A"}.get(rank, rank) + suit


def _cards_text(ctx: AppContext, caller: Caller, cards: list[str]) -> str:
    return " ".join(_card(ctx, caller, c) for c in cards)


def _cards_board(
    ctx: AppContext, caller: Caller, row: GameSession, match: CardsMatch, events: list[str]
) -> Reply:
    lines = list(events)
    if lines:
        lines.append("")
    over = match.phase is CardPhase.OVER
    for index, p in enumerate(match.players):
        line = f"**{p.name}**"
        if over and p.name in match.hands:
            shown = match.hands[p.name]
            line += f" : {_cards_text(ctx, caller, shown['cards'])} → {shown['combination']}"
        else:
            bits = []
            if index == 0 and not over:
                bits.append(t(ctx, caller, "flows.tavern_table.first"))
            if p.folded:
                bits.append(t(ctx, caller, "flows.tavern_table.cards_folded"))
            elif p.exchanged is not None:
                key = "kept" if p.exchanged == 0 else "changed.one" if p.exchanged == 1 else "changed.many"
                bits.append(t(ctx, caller, f"flows.tavern_table.cards_{key}", n=p.exchanged))
            if bits:
                line += " — " + " · ".join(bits)
        lines.append(line)
    fields = [Field(t(ctx, caller, "flows.tavern_table.pot"), str(match.pot), inline=True)]
    if match.exposed:
        verdict = t(ctx, caller, "flows.tavern_table.cards_stopped")
    elif over:
        key = "one" if len(match.winners) == 1 else "many"
        verdict = t(
            ctx, caller, f"flows.tavern_table.cards_won.{key}", names=", ".join(match.winners), pot=match.pot
        )
    else:
        phase = match.phase.value
        verdict = t(
            ctx,
            caller,
            f"flows.tavern_table.prompt.{'cards_' + phase if phase in ('exchange', 'call') else phase}",
            names=", ".join(match.waiting()),
            stake=match.stake,
        )
    fields.append(Field(t(ctx, caller, "flows.tavern_table.next"), verdict))
    buttons: list[Button] = []
    rid = row.id
    if match.phase is CardPhase.BET:
        buttons.append(
            _button(ctx, caller, "raise", rid, match.round, ButtonStyle.PRIMARY, stake=match.stake)
        )
        buttons.append(_button(ctx, caller, "check", rid, match.round))
    elif match.phase is CardPhase.CALL:
        buttons.append(_button(ctx, caller, "call", rid, match.round, ButtonStyle.PRIMARY, stake=match.stake))
        buttons.append(_button(ctx, caller, "fold", rid, match.round, ButtonStyle.DANGER))
    if not over:
        buttons.append(_button(ctx, caller, "hand", rid, match.round, ButtonStyle.SECONDARY, "🃏"))
    public = match.to_dict()
    public.pop("deck")
    public["players"] = [
        {k: v for k, v in p.items() if k not in ("hand", "hidden", "cheated")} for p in public["players"]
    ]
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.cards_title", size=len(match.ranks) * 4),
        description="\n".join(lines)[:3900],
        fields=tuple(fields),
        colour=Colour.INFO,
        buttons=(tuple(buttons),) if buttons else (),
        kind="tavern_table",
        result={"session": rid, **public},
    )


def _hand_reply(ctx: AppContext, caller: Caller, row: GameSession, match: CardsMatch, who: str) -> Reply:
    """Private: the player's hand, and in the exchange the menus to change cards or cheat."""
    player = match.player(who)
    combination = rules.card_combination(player.hand, match.ranking, match.ranks)[1]
    lines = [
        t(
            ctx,
            caller,
            "flows.tavern_table.hand",
            name=who,
            cards=_cards_text(ctx, caller, player.hand),
            combination=combination,
        )
    ]
    if player.hidden:
        lines.append(
            t(ctx, caller, "flows.tavern_table.hidden", cards=_cards_text(ctx, caller, player.hidden))
        )
    selects: list[Select] = []
    buttons: tuple[tuple[Button, ...], ...] = ()
    if match.phase is CardPhase.EXCHANGE and who in match.waiting():
        selects.append(
            Select(
                custom_id=custom_id(FLOW, "swap", row.id, match.round),
                options=tuple(SelectOption(label=_card(ctx, caller, c), value=c) for c in player.hand),
                placeholder=t(ctx, caller, "flows.tavern_table.select.swap"),
                min_values=1,
                max_values=match_rules.EXCHANGE_MAX,
            )
        )
        if player.hidden and player.gamble is not None and not player.cheated:
            selects.append(
                Select(
                    custom_id=custom_id(FLOW, "slip", row.id, match.round),
                    options=tuple(
                        SelectOption(
                            label=f"{_card(ctx, caller, hidden)} ↔ {_card(ctx, caller, card)}",
                            value=f"{hidden}>{card}",
                        )
                        for hidden in player.hidden
                        for card in player.hand
                    ),
                    placeholder=t(ctx, caller, "flows.tavern_table.select.slip"),
                )
            )
        buttons = ((_button(ctx, caller, "stand", row.id, match.round),),)
    return Reply(
        title=t(ctx, caller, "flows.tavern_table.hand_title"),
        description="\n".join(lines),
        colour=Colour.INFO,
        ephemeral=True,
        buttons=buttons,
        selects=tuple(selects),
        kind="tavern_table",
        result={"session": row.id, "hand": list(player.hand), "hidden": list(player.hidden)},
    )


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
        wanted = {"arm_wrestling": "arm_match", "cards": "cards_match", "knives": "knives_match"}.get(
            game, "dice_match"
        )
        await fill_from_sheets(scope, wanted, True, people)
        controllers: dict[str, str | None] = {}
        for person in people:
            sheet = await find_character(scope.session, scope.guild_id, person["name"])
            mine = sheet is not None and not sheet.is_npc
            controllers[person["name"]] = str(sheet.owner_id) if sheet is not None and mine else None
        try:
            match: Match
            if game == "dice":
                match = match_rules.new_dice_match(
                    [(p["name"], int(p.get("pipes", 0))) for p in people], stake
                )
            elif game == "cards":
                match = _new_cards(ctx, caller, people, stake)
            elif game == "knives":
                match = match_rules.new_knives_match(
                    [(p["name"], need(p, "ct"), bool(p.get("maitrise")), "jeu" in p) for p in people]
                )
            else:
                match = _new_arm(people)
        except TavernError as exc:
            raise _refuse(exc) from None
        # A GM's NPC sheet: the table sees its dice, not its values (as in the one-command games).
        hidden = [p["name"] for p in people if p.get("_npc")]
        state = {"match": match.to_dict(), "controllers": controllers, "hidden": hidden}
        row = new_session(scope, KIND, t(ctx, caller, f"flows.tavern_table.game.{game}"), state)
        await scope.session.flush()
        intro = t(ctx, caller, "flows.tavern_table.opened", names=", ".join(controllers))
        return FlowResult(_board(ctx, caller, row, match, [intro]), session_id=row.id)

    return await run(ctx, caller, work)


def _new_cards(ctx: AppContext, caller: Caller, people: list[dict[str, Any]], stake: int) -> CardsMatch:
    table_data = ctx.tables.get(TABLE)
    entry = next((e for e in (table_data.entries if table_data else []) if e.get("id") == "cards_full"), None)
    if entry is None:
        raise Refusal("flows.tavern.error.no_table")
    size = rules.deck_size(len(people), entry["deck_sizes"])
    ranking = next(r["low_to_high"] for r in entry["hand_rankings"] if size in r["deck_sizes"])
    deck = rules.build_deck(size)
    watched = any(p.get("cachees") for p in people)
    players = [
        CardPlayer(
            p["name"],
            [match_rules.parse_card(c, deck, english=english(caller)) for c in p.get("main", [])],
            [match_rules.parse_card(c, deck, english=english(caller)) for c in p.get("cachees", [])],
            gamble=p.get("jeu"),
            # Perception is needed against a cheater (someone with hidden cards).
            perception=need(p, "per") if watched else int(p.get("per", 0)),
        )
        for p in people
    ]
    return match_rules.new_cards_match(players, stake=stake, deck_size=size, ranking=ranking, rng=ctx.rng)


def _new_arm(people: list[dict[str, Any]]) -> ArmMatch:
    if len(people) != 2:
        raise Refusal("flows.tavern.error.two_exactly")
    a, b = people
    # Perception is needed against an opponent who may cheat (who has Jeu).
    sides = [
        rules.Wrestler(
            p["name"],
            need(p, "f"),
            gamble=p.get("jeu"),
            perception=need(p, "per") if "jeu" in other else int(p.get("per", 0)),
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
        typed = parse_rolls(dice, option="dice") if dice and not isinstance(match, CardsMatch) else []
        loaded: dict[str, Any] | None = None
        try:
            if not isinstance(match, KnivesMatch) and action in KNIFE_ACTIONS:
                raise Refusal("flows.tavern_table.error.wrong_game")
            if isinstance(match, CardsMatch):
                if action not in CARD_ACTIONS:
                    raise Refusal("flows.tavern_table.error.wrong_game")
                waiting = [p.name for p in match.in_hand()] if action == "hand" else match.waiting()
                who = _acting(scope, row, state, waiting, player)
                if action == "hand":
                    return FlowResult(_hand_reply(ctx, caller, row, match, who), session_id=row.id)
                events, private = _cards_move(
                    ctx, caller, match, who, action, values, choice, dice, state.get("hidden", [])
                )
                state["match"] = match.to_dict()
                save_state(row, state)
                if _over(match):
                    row.closed = True
                if private is not None:
                    return FlowResult(private, session_id=row.id)
                return FlowResult(_board(ctx, caller, row, match, events), session_id=row.id)
            if isinstance(match, KnivesMatch):
                if action not in KNIFE_ACTIONS:
                    raise Refusal("flows.tavern_table.error.wrong_game")
                waiting = match.waiting()
                if action != "knife":
                    waiting = [p.name for p in match.players if p.pending]
                who = _acting(scope, row, state, waiting, player)
                events = _knife_move(ctx, caller, match, who, action, typed)
                state["match"] = match.to_dict()
                save_state(row, state)
                if _over(match):
                    row.closed = True
                return FlowResult(_board(ctx, caller, row, match, events), session_id=row.id)
            if isinstance(match, ArmMatch):
                if action not in ("pull", "cheat"):
                    raise Refusal("flows.tavern_table.error.wrong_game")
                who = _acting(scope, row, state, match.waiting(), player)
                result = _arm_move(ctx, caller, match, who, action == "cheat", typed, state.get("hidden", []))
            else:
                if action in CARD_ACTIONS[4:]:
                    raise Refusal("flows.tavern_table.error.wrong_game")
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
        if _over(match):
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
                    positions=_listed(ctx, caller, [str(n) for n in event["positions"]]),
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
    ctx: AppContext,
    caller: Caller,
    match: ArmMatch,
    who: str,
    cheat: bool,
    typed: list[int],
    hidden: list[str],
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
                    gamble=_shown(ctx, caller, me, gamble.to_dict(), hidden),
                    perception=_shown(ctx, caller, them, perception.to_dict(), hidden),
                )
            )
        lines.append(
            t(ctx, caller, "flows.tavern.cheat_works" if test.success else "flows.tavern.exposed", name=me)
        )
    if played.a is not None and played.b is not None:
        lines.append(
            f"{a.name} : {_shown(ctx, caller, a.name, played.a.to_dict(), hidden)} · "
            f"{b.name} : {_shown(ctx, caller, b.name, played.b.to_dict(), hidden)}"
        )
    for side, bonus in match.carry.items():
        if bonus:
            # Both succeeded: the larger margin's excess goes to S next round (seed l. 1816).
            lines.append(t(ctx, caller, "flows.tavern_table.carry", name=names[side], bonus=bonus))
    return [f"**{t(ctx, caller, 'flows.tavern_table.round_n', n=played.number)}**", *lines]


def _typed_for(match: CardsMatch, who: str, dice: str | None) -> dict[str, list[int]]:
    """A cheat's typed dice: plain numbers are the cheater's, « Name 60 » another player's."""
    if not dice or not dice.strip():
        return {}
    text = dice.strip()
    if text[0].isdigit():
        head, _sep, rest = text.partition(",")
        typed = {who: parse_rolls(head, option="dice")}
        return typed | (parse_dice(rest, [p.name for p in match.players]) if rest.strip() else {})
    return parse_dice(text, [p.name for p in match.players])


def _cards_move(
    ctx: AppContext,
    caller: Caller,
    match: CardsMatch,
    who: str,
    action: str,
    values: tuple[str, ...],
    choice: str | None,
    dice: str | None,
    secret: list[str],
) -> tuple[list[str], Reply | None]:
    """The move's lines for the table, or a private reply (a cheat nobody saw)."""
    deck = rules.build_deck(len(match.ranks) * 4)

    def cards_of(tokens: list[str]) -> list[str]:
        return [match_rules.parse_card(c, deck, english=english(caller)) for c in tokens]

    tokens = list(values) or (choice or "").replace(",", " ").split()
    if action in ("raise", "check"):
        match_rules.cards_bet(match, who, raise_it=action == "raise")
        key = action
    elif action in ("call", "fold"):
        match_rules.cards_answer(match, who, call=action == "call")
        key = "call" if action == "call" else "cards_fold"
    elif action in ("swap", "stand"):
        if action == "swap" and not tokens:
            raise Refusal("flows.tavern_table.error.no_cards")
        event = match_rules.exchange(match, who, cards_of(tokens) if action == "swap" else [])
        count = event["count"]
        line = t(
            ctx,
            caller,
            "flows.tavern_table.ev.kept"
            if count == 0
            else f"flows.tavern_table.ev.changed.{'one' if count == 1 else 'many'}",
            name=who,
            n=count,
        )
        return [line, *_show_down_lines(ctx, caller, match)], None
    else:  # slip: a hidden card in place of one of the hand
        pair = tokens[0].split(">") if len(tokens) == 1 and ">" in tokens[0] else tokens
        if len(pair) != 2:
            raise Refusal("flows.tavern_table.error.slip_pair")
        hidden, card = cards_of(pair)
        event = match_rules.cheat_cards(match, who, card, hidden, Dice(ctx.rng, _typed_for(match, who, dice)))
        lines = _cheat_lines(ctx, caller, who, event["tests"], secret)
        if event["success"]:
            lines.append(
                t(
                    ctx,
                    caller,
                    "flows.tavern_table.slipped",
                    hidden=_card(ctx, caller, hidden),
                    card=_card(ctx, caller, card),
                    cards=_cards_text(ctx, caller, event["hand"]),
                )
            )
            return [], Reply(
                title=t(ctx, caller, "flows.tavern_table.hand_title"),
                description="\n".join(lines),
                colour=Colour.INFO,
                ephemeral=True,
                kind="tavern_table",
                result={"cheat": event},
            )
        lines.append(t(ctx, caller, "flows.tavern.exposed", name=who))
        return lines, None
    line = t(ctx, caller, f"flows.tavern_table.ev.{key}", name=who, stake=match.stake, pot=match.pot)
    return [line, *_show_down_lines(ctx, caller, match)], None


def _show_down_lines(ctx: AppContext, caller: Caller, match: CardsMatch) -> list[str]:
    if match.phase is not CardPhase.OVER or match.exposed:
        return []
    return [t(ctx, caller, "flows.tavern_table.show_down")]


def _cheat_lines(
    ctx: AppContext, caller: Caller, who: str, tests: list[dict[str, Any]], hidden: list[str]
) -> list[str]:
    """Every round of the cheater's Jeu against each player's Perception (roll lines)."""
    lines = []
    for test in tests:
        for pair in test["rounds"]:
            lines.append(
                t(
                    ctx,
                    caller,
                    "flows.tavern.cheat_line",
                    name=who,
                    other=test["against"],
                    gamble=_shown(ctx, caller, who, pair["a"], hidden),
                    perception=_shown(ctx, caller, test["against"], pair["b"], hidden),
                )
            )
    return lines


def _roll_text(ctx: AppContext, caller: Caller, data: dict[str, Any]) -> str:
    """A check's roll line from its stored dict (the same text as :func:`roll_line`)."""
    unit = "°R" if data["success"] else "°E"
    outcome = t(ctx, caller, str(data["outcome_key"]))
    return f"{data['target']} % · **{data['roll_text']}** → {outcome} ({data['degrees'] or 0} {unit})"


def _shown(ctx: AppContext, caller: Caller, name: str, data: dict[str, Any], hidden: list[str]) -> str:
    """A roll line, its target hidden for a GM's NPC sheet."""
    if name in hidden:
        outcome = t(ctx, caller, str(data["outcome_key"]))
        return t(ctx, caller, "flows.tavern.hidden_roll", roll=data["roll_text"], outcome=outcome)
    return _roll_text(ctx, caller, data)


def _listed(ctx: AppContext, caller: Caller, items: list[str]) -> str:
    """« 4 et 5 », « 1, 3 et 5 »."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {t(ctx, caller, 'flows.tavern_table.and')} {items[-1]}"


def _knife_move(
    ctx: AppContext, caller: Caller, match: KnivesMatch, who: str, action: str, typed: list[int]
) -> list[str]:
    dice = Dice(ctx.rng, {who: typed})
    if action == "knife":
        event = match_rules.knife(match, who, dice)
    else:
        event = match_rules.knife_fortune(match, who, dice, spend=action == "luck")
    number = len(match.player(who).throws) + (1 if event.get("pending") else 0)
    test = _roll_text(ctx, caller, event["test"])
    if event.get("pending"):
        return [t(ctx, caller, "flows.tavern_table.ev.knife_missed", name=who, n=number, test=test)]
    if event["miss_die"] is None:
        line = t(
            ctx,
            caller,
            "flows.tavern_table.ev.knife_hit",
            name=who,
            n=number,
            test=test,
            points=event["points"],
        )
    else:
        line = t(
            ctx,
            caller,
            "flows.tavern_table.ev.knife_miss",
            name=who,
            n=number,
            test=test,
            die=event["miss_die"],
        )
    if event["move"] == "luck":
        line = t(ctx, caller, "flows.tavern_table.ev.knife_luck", name=who) + "\n" + line
    return [line]
