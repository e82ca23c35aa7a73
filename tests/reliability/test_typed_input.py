"""Hostile typed input: every option that takes a typed number, modifier or dice list answers
``²``, ``①``, ``٣``, ``--5``, ``+-5``, ``5-``, ``1e9``, an empty string and a 10 000-digit string with
a private refusal in the caller's language, for a player (alice, ``fr``) and for the GM (``en-US``,
role MJ); the bot's log gains no traceback.

Which options: the STRING options of the command tree the bot synced (``support.leaves``) classified
as typed below (``TYPED`` by base name, ``TYPED_PATHS`` for one command). INTEGER and NUMBER options
are not here: Discord's client and servers only carry numbers in them (the fuzz test sends them
wrong types raw). ``test_every_typed_option_is_classified`` fails when a string option whose
description talks of dice, rolls, modifiers or numbers is classified neither way, when a typed one
has no recipe, or when a classification names an option the bot no longer has.

How: every value is sent raw through the emulator (no client-side check: what Discord's client would
refuse — the empty string, the 10 000 digits — reaches the bot as a modified client could send it;
the report marks those "raw"), once as the whole option (``²``) and, for options written as names and
numbers, once where the number goes (``Albert: ² 12 10``, ``CC:²``). The other options get plausible
values (``RECIPES``). Commands that depend on the ruleset are checked in a channel of each ruleset;
fight commands in a fight thread set up for them (the player's fighter's turn, an attack pending
against it, a bleeding foe …). The set-up is checked: once a lane's hostile values are done, a valid
value (its ``control``) sent the same way must be accepted. A hostile value the bot accepts may
change the state (an attack made, a turn passed): the lane then goes on in a fresh fight. "Someone
acted at the same time, try again" answers come from this test's concurrency and are sent again.

Judged: an answer came; it is an error (the reply model's colour), private, in the caller's language
(ids such as ``cible_a_terre_ou_de_dos`` are what the user types: not prose, not judged); the
exceptions: ``EMPTY_IS_NOT_GIVEN`` (an empty value read as "not given"), and the (option, ruleset)
pairs an ``Opt.skip`` lists with its reason (a ruleset that never reads the option accepts anything).
The failures come as one table: ``/command option value [rulesets] users → what happened``, then the
tracebacks of the bot's log, by command, exception and place in ``bot/``.

One bot process for the module; stateless commands at once (at most ``IN_FLIGHT`` interactions in
flight), every fight in its own thread, the fights side by side. ``MELEE_TYPED_DEBUG=1`` prints every
case as it is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
import pytest_asyncio

from bot.emulator.client import ClientRefused
from bot.emulator.state import GUILD_TEXT, Channel, Interaction, Json, Message
from bot.i18n import default_catalog

from .support import Harness, Leaf, Outcome, language_problems, leaves, outcome_of, settled, unexpected_texts

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

LONG = "9" * 10_000
HOSTILE = ["²", "①", "٣", "--5", "+-5", "5-", "1e9", "", LONG]
USERS = {"player": ("alice", "fr"), "gm": ("gm", "en-US")}
DEBUG = bool(os.environ.get("MELEE_TYPED_DEBUG"))
ANSWER_TIMEOUT = 20.0  # a deferred answer may take this long
FIRST_ANSWER = 4.0  # Discord's 3 s for the first callback, plus a margin
IN_FLIGHT = 24  # interactions sent at once

# -- which options take a typed number, modifier or dice list ----------------------------------------

# By base name (``rolls_a`` → ``rolls``), for every command with a string option of that name.
TYPED = frozenset(
    {
        "expression",  # /roll: a dice expression
        "dice",  # dice rolled by hand (/roll, /combat round, /tavern *, /maneuver area)
        "damage",  # damage dice typed by hand
        "coverage",  # coverage d100s
        "effects",  # the critical's / fumble's dice
        "durations",  # duration dice
        "tests",  # the side effect's test d100s
        "rolls",  # d100s rolled by hand (/extended, /oppose, /group)
        "roll",  # /interrogation question: your d100(s) (an integer option everywhere else)
        "wp_roll",  # the subject's WP d100(s)
        "hits",  # /fire burst: hit dice
        "zones",  # /fire burst: zone dice
        "situation",  # situation modifiers (ids, mod:-2, pilote:3 …)
        "stats",  # characteristics CC:45 …
        "skills",  # skills Esquive:10, Perception:+5
        "side",  # /oppose, /group: Name=45, 45 …
        "players",  # /tavern *: Name f=45 …
    }
)
TYPED_PATHS = frozenset(
    {
        ("test", "target"),  # a number (45) or a characteristic
        ("extended", "target"),
        ("simulate", "a"),  # a profile CC=45 F=35 …
        ("simulate", "b"),
    }
)
# Options a keyword of their description points at, that take no typed number (why).
NOT_TYPED = {
    "target": "a fighter's name (a number only for /test and /extended, see TYPED_PATHS)",
    "location": "a hit location's name (tete, bras_d …)",
    "character": "a character's name",
    "label": "free text, the roll's title",
    "options": "the GM's option names of a ruleset (endurance:seuil …)",
    "stat": "a characteristic's name",
    "choice": "/tavern play: dice by their position (1-5) or cards (7♠), checked by the game itself",
}
NOT_TYPED_PATHS: dict[tuple[str, str], str] = {
    ("combat add", "side"): "a side's name (Bandits, Garde), not /oppose's Name=45",
    ("combat side", "side"): "a side's name (Bandits, Garde), not /oppose's Name=45",
}
IDENTIFIER = re.compile(r"\b\w+(?:_\w+)+\b")  # ids the user types (cible_a_terre_ou_de_dos): no language
KEYWORDS = re.compile(
    r"\b(dice|die|rolls?|rolled|modifiers?|numbers?|d\d+s?|\d+d\d+|jets?|dés?|mod|modificateurs?|nombres?)\b",
    re.IGNORECASE,
)


def base_name(name: str) -> str:
    return re.sub(r"_[ab]$", "", name)


def classify(path: str, name: str) -> bool | None:
    """True: takes a typed number; False: does not; None: nobody said."""
    if (path, name) in TYPED_PATHS:
        return True
    if (path, name) in NOT_TYPED_PATHS:
        return False
    if base_name(name) in TYPED:
        return True
    if base_name(name) in NOT_TYPED:
        return False
    return None


def typed_options(all_leaves: list[Leaf]) -> list[tuple[Leaf, Json]]:
    return [
        (leaf, option)
        for leaf in all_leaves
        for option in leaf.options
        if option.get("type") == 3
        and not option.get("choices")
        and classify(leaf.qualified_name, option["name"])
    ]


# -- how each command is sent ----------------------------------------------------------------------

RULESETS = ("renove", "v1", "d20", "ogl")
CHANNELS = {"renove": "partie", "v1": "salle-v1", "d20": "salle-d20", "ogl": "salle-ogl"}
# A character sheet of each ruleset; a quick NPC's characteristics; what a PC brings to a fight.
SHEETS = {
    "renove": "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33",
    "v1": "CC:45 CT:40 F:3 E:4 B:8 I:40 A:2 Dex:35 Cd:30 Int:30 Cl:30 FM:30 Soc:30",
    "d20": "FOR:12 CON:14 AGI:13 DEX:12 PER:12 INT:12 VOL:12 CHA:12",
    "ogl": "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10",
}
QUICK = {
    "renove": "",
    "v1": "CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25",
    "d20": "FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11",
    "ogl": "STR:13 CON:12 SIZ:12 INT:10 POW:10 CHA:10 DEX:14 Esquive:40",
}
JOINING = {  # the player's fighter: weapons, and characteristics or skills beyond the sheet
    "renove": {},
    "v1": {"weapons": "Épée +0, Bouclier bouclier"},
    "d20": {
        "weapons": "Épée 14 +3 tranchant par=13, Mitraillette 13 +2 tir, Mortier 14 tir, Canon 20 +3 tir",
        "stats": "Esquive:11",
    },
    "ogl": {"weapons": "Épée 1d8+1 60%, Bouclier 1d4 40%", "stats": "PH:2 Bagarre:50 Esquive:40"},
}
FOES = {  # the GM's fighter (a renove preset takes the GM's language: "Goblin")
    "renove": {"who": "gobelin", "name": "Goblin"},
    "v1": {"who": "Gobelin", "stats": QUICK["v1"], "weapons": "Hache"},
    "d20": {"who": "Garde", "stats": QUICK["d20"], "weapons": "Épée 14 +3 tranchant par=13"},
    "ogl": {"who": "Orc", "stats": QUICK["ogl"] + " RA:2 Bagarre:40", "weapons": "Hache 1d8 50%"},
}


def first_number(text: str) -> str:
    """``"CC:45 CT:30"`` → ``"CC:{v} CT:30"``: the hostile value where the first number goes."""
    return re.sub(r":\d+", ":{v}", text, count=1)


@dataclass(frozen=True)
class Opt:
    """One option of a recipe: where the number goes in its syntax, a value the bot must accept, and
    extra options it needs. Each may be per ruleset ({"*": default, "d20": …})."""

    syntax: str | Mapping[str, str] | None = None  # e.g. "{me}: {v} 5 5"; None: the bare value only
    control: str | Mapping[str, str] = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)  # ruleset → why the option is not checked there


@dataclass(frozen=True)
class Recipe:
    base: Mapping[str, Any]  # the other options ({me}, {foe}, {fresh}, {edit} filled per lane)
    options: Mapping[str, Opt]
    rulesets: tuple[str, ...] = ("renove",)
    state: str | None = None  # what the lane needs first (see World.prepare); None: nothing
    per_ruleset: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # base overrides


def pick(value: Any, ruleset: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(ruleset, value.get("*"))
    return value


IGNORED = "this ruleset does not read the option: any value is ignored"
TAVERN_DICE = Opt(syntax="Ana {v}, Bob 20", control="Ana 45, Bob 20")


def tavern(players: str) -> Recipe:
    return Recipe(
        base={"players": players.replace("{v}", "45")},
        options={"players": Opt(syntax=players, control=players.replace("{v}", "45")), "dice": TAVERN_DICE},
    )


ROUND_ORDER = {
    "renove": "{me}: {v} 12 10; {foe}: 5 5 5",
    "d20": "{me}: {v}; {foe}: 10",
    "ogl": "{me}: {v}; {foe}: 1",
}
ROUND_CONTROL = {
    "renove": "{me}: 15 12 10; {foe}: 5 5 5",
    "d20": "{me}: 15; {foe}: 10",
    "ogl": "{me}: 5; {foe}: 1",
}
RECIPES: dict[str, Recipe] = {
    # -- no state -----------------------------------------------------------------------------
    "roll": Recipe(
        base={"expression": "1d100"},
        options={"expression": Opt(control="3d20+5"), "dice": Opt(control="42")},
    ),
    "test": Recipe(base={}, options={"target": Opt(control={"*": "45", "d20": "12"})}, rulesets=RULESETS),
    # the casting dice first, the chaos die last (seed 000: Mag 2 → two d10 and the chaos die)
    "cast": Recipe(base={"magic": 2, "difficulty": 9}, options={"dice": Opt(control="3 3 5")}),
    "extended": Recipe(
        base={"target": "45", "attempts": 3, "successes": 2},
        per_ruleset={"d20": {"target": "12"}},
        options={"target": Opt(control={"*": "45", "d20": "12"}), "rolls": Opt(control="12 17 3")},
        rulesets=RULESETS,
    ),
    "oppose": Recipe(
        base={"side_a": "Ana=45", "side_b": "Bob=40"},
        per_ruleset={"d20": {"side_a": "Ana=12", "side_b": "Bob=10"}},
        options={
            "side_a": Opt(syntax="Ana={v}", control={"*": "Ana=45", "d20": "Ana=12"}),
            "side_b": Opt(syntax="Bob={v}", control={"*": "Bob=40", "d20": "Bob=10"}),
            "rolls_a": Opt(control="3 16"),
            "rolls_b": Opt(control="15 7"),
        },
        rulesets=RULESETS,
    ),
    "group": Recipe(
        base={"side_a": "G1=40, G2=40", "side_b": "V=35"},
        per_ruleset={"d20": {"side_a": "G1=12, G2=12", "side_b": "V=10"}},
        options={
            "side_a": Opt(syntax="G1={v}, G2=40", control={"*": "G1=40, G2=40", "d20": "G1=12, G2=12"}),
            "side_b": Opt(syntax="V={v}", control={"*": "V=35", "d20": "V=10"}),
            "rolls": Opt(syntax="G1={v}, G2=9, V=7", control="G1=03, G2=9, V=7"),
        },
        rulesets=RULESETS,
    ),
    "character create": Recipe(
        base={"name": "{fresh}"},
        options={
            "stats": Opt(syntax={r: first_number(SHEETS[r]) for r in RULESETS}, control=SHEETS),
        },
        rulesets=RULESETS,
    ),
    "character edit": Recipe(
        base={"character": "{edit}"},
        options={
            "stats": Opt(syntax={r: first_number(SHEETS[r]).split()[0] for r in RULESETS}, control=SHEETS),
            "skills": Opt(syntax="Esquive:{v}", control="Esquive:10"),
        },
        rulesets=RULESETS,
    ),
    "infection test": Recipe(  # the d100s of the sheet's open wounds, read even with critical given
        base={"critical": 8, "t": 40},
        options={"rolls": Opt(control="35 72")},
    ),
    "simulate": Recipe(
        base={"a": "gobelin", "b": "gobelin", "duels": 1},
        options={
            "a": Opt(syntax="CC={v} F=35 E=40 arme=epee", control="CC=45 F=35 E=40 arme=epee"),
            "b": Opt(syntax="CC={v} F=35 E=40 arme=epee", control="CC=45 F=35 E=40 arme=epee"),
        },
    ),
    "tavern armwrestling": tavern("Ana f={v}, Bob f=40"),
    "tavern cards": tavern("Ana int={v} jeu=45 per=30, Bob int=35 jeu=40 per=40"),
    "tavern dice": tavern("Ana int={v} jeu=45, Bob int=35 jeu=40"),
    "tavern drinking": tavern("Ana res={v} per=30, Bob res=50 per=35"),
    "tavern knives": tavern("Ana ct={v}, Bob ct=35"),
    "tavern match": Recipe(
        base={"game": "dice", "players": "Ana, Bob"},
        options={"players": Opt(syntax="Ana pipes={v}, Bob", control="Ana pipes=2, Bob")},
    ),
    # -- an open tavern game (a dice match, Ana's throw) ----------------------------------------------
    "tavern play": Recipe(
        base={"move": "throw"},
        options={"dice": Opt(syntax="{v} 6 3 2 1", control="6 6 3 2 1")},
        state="tavern",
    ),
    # -- an open interrogation ---------------------------------------------------------------------
    "interrogation question": Recipe(
        base={"target": 45},
        options={"roll": Opt(control="22"), "wp_roll": Opt(control="90")},
        state="interrogation",
    ),
    # -- fights ------------------------------------------------------------------------------------
    "npc save": Recipe(  # a template of the ruleset in force; renove's name is no creature: CC, F, E
        base={"name": "{fresh}"},
        options={
            "stats": Opt(
                syntax={"renove": "Int:{v} Esquive:10", **{r: first_number(QUICK[r]) for r in RULESETS[1:]}},
                control={"renove": "Int:30 Esquive:10", **{r: QUICK[r] for r in RULESETS[1:]}},
            )
        },
        rulesets=RULESETS,
        per_ruleset={"renove": {"ws": 35, "s": 35, "t": 30}},
    ),
    "combat add": Recipe(
        base={"who": "{fresh}"},
        options={
            "stats": Opt(
                syntax={r: first_number(QUICK[r]) for r in RULESETS},
                control=QUICK,
                skip={"renove": "renove fighters take no characteristics (the option is v1, d20, ogl's)"},
            )
        },
        rulesets=RULESETS,
        state="fight",
    ),
    "combat round": Recipe(
        base={},
        options={
            "dice": Opt(
                syntax=ROUND_ORDER,
                control=ROUND_CONTROL,
                skip={"v1": "v1 initiative is not rolled: the option names draws (dégainer …)"},
            )
        },
        rulesets=RULESETS,
        state="fight",
    ),
    "macro create": Recipe(  # the same name each time: an accepted value replaces the macro
        base={"name": "frappe"}, options={"expression": Opt(control="1d10+2 # Frappe")}
    ),
    "combat action": Recipe(  # Manœuvrer: the opposed CC, then `dice` the rerolls and the Ag test
        base={"action": "manoeuvrer", "who": "{me}", "target": "{foe}", "roll": 15, "target_roll": 40},
        options={"dice": Opt(control="62")},
        state="turn",
    ),
    "combat attack": Recipe(
        # the GM acting on the player's fighter's turn names him (else he is asked who acts)
        base={"target": "{foe}", "attacker": "{me}", "roll": 5},
        per_ruleset={"ogl": {"location": "poitrine"}, "v1": {"roll": 37}},
        options={
            "damage": Opt(control="3"),
            "coverage": Opt(control="50", skip=dict.fromkeys(("v1", "d20", "ogl"), IGNORED)),
            "effects": Opt(control="20"),
            "durations": Opt(control="3", skip=dict.fromkeys(("d20", "ogl"), IGNORED)),
            "situation": Opt(
                syntax="mod:{v}", control={"renove": "cc_dans_le_dos", "ogl": "cible_surprise", "*": "mod:-2"}
            ),
        },
        rulesets=RULESETS,
        state="turn",
    ),
    "combat defend": Recipe(
        # renove: side effect 70 + F 30 − F 35 + 3 → "recule d'1 m, test d'Ag"; ogl: a fumbled parry (00)
        base={"choice": "parer", "roll": 5, "side_effect": 70},
        per_ruleset={"ogl": {"roll": 100}},
        options={
            "tests": Opt(control={"renove": "50", "ogl": "3"}, skip=dict.fromkeys(("v1", "d20"), IGNORED)),
            "situation": Opt(
                control="def_boue_pluie",
                skip={
                    r: "defence situations are renove's (the others refuse them by design)"
                    for r in RULESETS[1:]
                },
            ),
        },
        rulesets=RULESETS,
        state="pending",
    ),
    "combat test": Recipe(  # the GM's fighter bleeds: the player is refused (not hers) before the option
        base={"who": "{foe}"},
        options={
            "durations": Opt(
                control="3",
                skip={
                    "v1": "no due test in v1 fights",
                    "d20": "no due test in d20 fights",
                    "ogl": IGNORED + " (its due test, Endurance, has no duration)",
                },
            )
        },
        rulesets=RULESETS,
        state="due",
    ),
    "fire burst": Recipe(
        base={"targets": "{foe}", "shooter": "{me}", "bullets": 25, "roll": 5},
        options={
            "hits": Opt(control="2 1"),
            "situation": Opt(syntax="mod:{v}", control="mod:-2"),
            "zones": Opt(control="3", extra={"aimed": "tete"}),
            "damage": Opt(control="12 4 19"),
        },
        rulesets=("d20",),
        state="turn",
    ),
    "fire artillery": Recipe(
        base={
            "target": "{foe}",
            "shooter": "{me}",
            "weapon": "Mortier",
            "roll": 12,
            "direction": 7,
            "distance": 14,
        },
        options={"situation": Opt(syntax="mod:{v}", control="mod:-2")},
        rulesets=("d20",),
        state="turn",
    ),
    "fire air": Recipe(
        base={"target": "{foe}", "shooter": "{me}", "weapon": "Canon", "roll": 4, "die": 19, "damage": 11},
        options={
            "situation": Opt(syntax="vitesse:{v}, taille_humaine", control="vitesse:2000, taille_humaine")
        },
        rulesets=("d20",),
        state="turn",
    ),
    "maneuver area": Recipe(
        base={"name": "Boule de feu", "damage": "3d6", "targets": "{foe}: tete"},
        options={"damage": Opt(control="3d6"), "dice": Opt(control="4 5 6")},
        rulesets=("ogl",),
        state="turn",
    ),
    "maneuver counter": Recipe(
        base={"target": "{foe}", "trigger": "court", "who": "{me}", "roll": 70, "location": "poitrine"},
        options={"damage": Opt(control="2"), "effects": Opt(control="3")},
        rulesets=("ogl",),
        state="foe_turn",
    ),
    "maneuver two-weapons": Recipe(
        base={"use": "attaque", "who": "{me}", "target": "{foe}", "roll": 20, "location": "bras_g"},
        options={"damage": Opt(control="3"), "effects": Opt(control="3")},
        rulesets=("ogl",),
        state="turn",
    ),
    "maneuver grapple": Recipe(
        base={
            "action": "projeter",
            "who": "{me}",
            "target": "{foe}",
            "roll": 10,
            "location": "tete",
            "damage": 5,
        },
        options={"effects": Opt(control="1")},
        rulesets=("ogl",),
        state="pinned",
    ),
    "maneuver pull-out": Recipe(
        base={"victim": "{foe}", "who": "{me}", "roll": 10},
        options={
            "damage": Opt(
                control="3 2",
                skip={
                    "ogl": "needs a weapon impaled in the victim first, a state the world does not "
                    "prepare; its dice go through the grammar /maneuver counter damage is checked with"
                },
            )
        },
        rulesets=("ogl",),
        state="turn",
    ),
    "maneuver hero": Recipe(
        base={"use": "seconde_chance", "who": "{me}", "roll": 10},
        options={"damage": Opt(control="3")},
        rulesets=("ogl",),
        state="missed",
    ),
}

# The empty value that a command legitimately reads as "not given" answers normally (not a refusal):
# (command, option) → why. Sent bare, an empty string is refused by every option today (the bot's
# payload check: min_length 1), so each of these is about the value in the option's syntax.
EMPTY_IS_NOT_GIVEN: dict[tuple[str, str], str] = {
    ("combat round", "dice"): "'Albert:  12 10; …' types two of Albert's three dice: the bot rolls the third",
    ("group", "rolls"): "'G1=, G2=9, V=7' types no die for G1: read as none typed for G1",
    **{
        (f"tavern {game}", "dice"): "'Ana , Bob 20' types no die for Ana: the bot rolls hers"
        for game in ("armwrestling", "cards", "dice", "drinking", "knives")
    },
    ("tavern play", "dice"): "' 6 3 2 1' types four of Ana's five dice: the bot rolls the fifth",
}


# -- the world --------------------------------------------------------------------------------------

RETRIES = 5
STALE_KEYS = ("common.error.retry", "combat.error.stale", "flows.error.stale", "characters.error.stale")


@cache
def stale_texts() -> tuple[str, ...]:
    catalog = default_catalog()
    return tuple(catalog.t(lang, key)[:40] for key in STALE_KEYS for lang in ("fr", "en"))


def is_stale(outcome: Outcome) -> bool:
    return outcome.refused and any(t in outcome.text for t in stale_texts())


class SetupError(AssertionError):
    """The test's own set-up was refused: a problem of this file, not of the bot."""


@dataclass
class Place:
    """Where a lane's cases go: a channel or a fight thread, and the names its options use."""

    channel: Channel
    me: str = ""  # the player's fighter (or character)
    foe: str = ""  # the GM's fighter


@dataclass
class Case:
    command: str
    option: str
    ruleset: str
    value: str  # the hostile value (or the control's)
    form: str  # how it is written in the option: "{v}" (the whole option) or the syntax around it
    user: str  # "player" | "gm"
    control: bool = False
    shape: str = ""  # the form with the lane's names filled in ("Albert: {v} 12 10; Goblin: 5 5 5")
    sent: str = ""  # the option's value as sent
    client_refuses: bool = False  # Discord's client would not send it (sent raw all the same)
    verdict: str = ""  # "" = as required
    excerpt: str = ""


class World:
    def __init__(self, harness: Harness) -> None:
        self.h = harness
        self.emu = harness.emu
        self.players = {key: harness.user(name, locale=locale) for key, (name, locale) in USERS.items()}
        self.gate = asyncio.Semaphore(IN_FLIGHT)
        self.forms = asyncio.Lock()  # the GM submits "his last form": one interrogation form at a time
        self.counter = itertools.count(1)
        self.leaves = {leaf.qualified_name: leaf for leaf in leaves(self.emu.commands[harness.guild.id])}
        # alice's characters per ruleset: her fighter, and a sheet for /character edit
        self.names = {
            "renove": ("Albert", "Edrenove"),
            "v1": ("Aldo", "Edvun"),
            "d20": ("Amaury", "Edvingt"),
            "ogl": ("Anselme", "Edogl"),
        }

    def fresh(self, base: str) -> str:
        return f"{base}{next(self.counter)}"

    # sending ------------------------------------------------------------------------------------

    async def send(self, user: str, leaf: Leaf, options: Mapping[str, Any], channel: Channel) -> Outcome:
        """Raw: the option values as given, whatever Discord's client would say. "Someone acted at
        the same time, try again" is about this test's concurrency, not the value: sent again."""
        definitions = {d["name"]: d for d in leaf.options}
        entries = [{"name": k, "type": definitions[k]["type"], "value": v} for k, v in options.items()]
        player = self.players[user]
        for attempt in range(RETRIES):
            async with self.gate:
                interaction = await self.emu.dispatch_interaction(
                    player.user, 2, leaf.data(entries), channel, locale=player.locale
                )
                await self.settle(interaction)
            outcome = outcome_of(self.emu.messages, interaction)
            if not is_stale(outcome):
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        return outcome

    async def settle(self, interaction: Interaction) -> None:
        def done() -> bool:
            late = time.perf_counter() - interaction.dispatched_perf > FIRST_ANSWER
            return (late and not interaction.callbacks) or settled(self.emu.messages, interaction)

        with contextlib.suppress(TimeoutError):  # the silent ones are findings
            await self.emu.wait_until(done, timeout=ANSWER_TIMEOUT, what="the answer")

    async def act(self, user: str, command: str, channel: Channel | str, **options: Any) -> Outcome:
        """A set-up step through the real client; it must be accepted."""
        player = self.players[user]
        for attempt in range(RETRIES):
            async with self.gate:
                result = await player.slash(command, channel=channel, timeout=ANSWER_TIMEOUT, **options)
                await self.settle(result.interaction)
            outcome = outcome_of(self.emu.messages, result.interaction)
            if not is_stale(outcome):
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        if not outcome.answered or outcome.refused or not outcome.messages:
            raise SetupError(f"set-up /{command} {options} was refused: {outcome.text[:300]!r}")
        return outcome

    async def confirmed(self, user: str, command: str, channel: Channel | str, **options: Any) -> Outcome:
        """A set-up step that may ask first (« Suivant », a mid-round « round »): its button pressed."""
        outcome = await self.act(user, command, channel, **options)
        for message in outcome.messages:
            for component in message.iter_components():
                custom = str(component.get("custom_id") or "")
                if component.get("type") == 2 and (":next:" in custom or ":round:" in custom):
                    async with self.gate:
                        result = await self.players[user].click(
                            custom, message=message, timeout=ANSWER_TIMEOUT
                        )
                        await self.settle(result.interaction)
                    return outcome_of(self.emu.messages, result.interaction)
        return outcome

    # set-up -------------------------------------------------------------------------------------

    async def start(self) -> None:
        for ruleset in RULESETS[1:]:
            await self.act("gm", "config ruleset", CHANNELS[ruleset], ruleset=ruleset, scope="channel")
        for ruleset in RULESETS:
            fighter, edited = self.names[ruleset]
            for name in (edited, fighter):  # the fighter last: alice's active character there
                await self.act(
                    "player", "character create", CHANNELS[ruleset], name=name, stats=SHEETS[ruleset]
                )
        await self.act("player", "character equip", "partie", character="Albert", weapon="epee")

    async def prepare(self, state: str | None, ruleset: str, home: str) -> Place:
        me, edited = self.names[ruleset]
        if state is None:
            return Place(self.emu.channel(CHANNELS[ruleset]), me=me, foe=edited)
        if state == "interrogation":
            return await self.interrogation(self.emu.channel(home))
        if state == "tavern":
            return await self.tavern(self.emu.channel(home))
        return await self.fight(ruleset, state)

    async def tavern(self, channel: Channel) -> Place:
        """A fresh dice match in the lane's own channel (one per channel): the old one stopped.
        Ana and Bob have no sheet: the GM plays them."""
        gm = self.players["gm"]
        stopped = await gm.slash("tavern stop", channel=channel, timeout=ANSWER_TIMEOUT)
        await self.settle(stopped.interaction)
        opened = await gm.slash(
            "tavern match", game="dice", players="Ana, Bob", channel=channel, timeout=ANSWER_TIMEOUT
        )
        await self.settle(opened.interaction)
        if outcome_of(self.emu.messages, opened.interaction).refused:
            raise SetupError("the tavern game did not open")
        return Place(channel)

    async def interrogation(self, channel: Channel) -> Place:
        """A fresh interrogation in the lane's own channel (one per channel): the old one closed."""
        gm = self.players["gm"]
        async with self.forms:
            closed = await gm.slash("interrogation close", channel=channel, timeout=ANSWER_TIMEOUT)
            await self.settle(closed.interaction)
            await gm.slash(
                "interrogation open",
                subject="Hans",
                wp=30,
                reluctant=False,
                channel=channel,
                timeout=ANSWER_TIMEOUT,
            )
            opened = await gm.submit_modal(tier_0="He saw a man.", tier_1="He limped.", tier_2="The butcher.")
            await self.settle(opened.interaction)
        if outcome_of(self.emu.messages, opened.interaction).refused:
            raise SetupError("the interrogation did not open")
        return Place(channel)

    async def fight(self, ruleset: str, state: str) -> Place:
        """A fight thread in the ruleset's channel: the player's fighter and the GM's, then ``state``:
        fight (no round yet), turn (the player's fighter acts), foe_turn, pending (the foe's attack
        waits for the player's defence), due (the foe bleeds: his test is due), pinned (the player's
        fighter holds the foe immobilised: ogl), missed (the player's fighter just missed: ogl)."""
        name = self.fresh(f"F{ruleset}-")
        await self.act("gm", "combat open", CHANNELS[ruleset], name=name)
        await self.emu.wait_until(
            lambda: any(c.name == name and c.is_thread for c in self.emu.channels.values()),
            timeout=ANSWER_TIMEOUT,
            what="the fight's thread",
        )
        thread = self.emu.channel(name)
        me = self.names[ruleset][0]
        foe = FOES[ruleset].get("name") or FOES[ruleset]["who"]
        await self.act("player", "combat add", thread, who=me, **JOINING[ruleset])
        await self.act("gm", "combat add", thread, **{k: v for k, v in FOES[ruleset].items() if k != "name"})
        place = Place(thread, me=me, foe=foe)
        if state == "fight":
            return place
        first, second = (foe, me) if state in ("foe_turn", "pending") else (me, foe)
        await self.round(ruleset, thread, first, second)
        if state == "pending":
            hit = {"roll": 5, "damage": "3", **({"location": "poitrine"} if ruleset == "ogl" else {})}
            await self.act("gm", "combat attack", thread, target=me, **hit)
        elif state == "due":  # a head critical, grid 11: the foe bleeds; the round ends, his test is due
            await self.act(  # the GM plays the player's fighter: he names him (issue 18)
                "gm",
                "combat attack",
                thread,
                target=foe,
                attacker=me,
                roll=10,
                damage="8",
                critical=65,
                effects="20",
                durations="5 6",  # typed: a 1 on the death timer's 1d10/2 would kill him, no test due
            )
            taken = await self.act("gm", "combat defend", thread, choice="encaisser")
            if "🩸" not in taken.text:
                raise SetupError(f"the foe's bleeding test is not due: {taken.text[:300]!r}")
        elif state == "pinned":
            grapple = {"who": me, "target": foe}
            await self.act(
                "gm", "maneuver grapple", thread, action="saisir", **grapple, roll=30, target_roll=20
            )
            await self.round(ruleset, thread, me, foe)
            await self.act("gm", "maneuver grapple", thread, action="immobiliser", **grapple, roll=20)
            await self.round(ruleset, thread, me, foe)
        elif state == "missed":
            await self.act(
                "gm", "combat attack", thread, target=foe, attacker=me, roll=95, location="poitrine"
            )
        return place

    async def round(self, ruleset: str, thread: Channel, first: str, second: str) -> None:
        if ruleset == "v1":
            await self.confirmed("gm", "combat round", thread)  # by I: Aldo's 40 before the Gobelin's 30
            if first != self.names[ruleset][0]:
                await self.confirmed("gm", "combat next", thread)
            return
        order = {
            "renove": f"{first}: 15 12 10; {second}: 5 5 5",
            "d20": f"{first}: 15; {second}: 10",
            "ogl": f"{first}: 5; {second}: 1",
        }[ruleset]
        await self.confirmed("gm", "combat round", thread, dice=order)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    """One bot for the module; the rulesets' channels and the interrogations' exist before it starts.
    No teardown check of the log: the test reports the tracebacks itself, case by case."""
    harness = Harness(tmp_path_factory.mktemp("typed"), log_level="WARNING", env={"MELEE_RATE_LIMITS": "off"})
    guild = harness.guild
    homes = [f"interro-{o}" for o in RECIPES["interrogation question"].options]
    homes += [f"tavern-{o}" for o in RECIPES["tavern play"].options]
    for name in (*(CHANNELS[r] for r in RULESETS[1:]), *homes):
        channel = Channel(
            id=harness.emu.ids.next(),
            type=GUILD_TEXT,
            name=name,
            guild_id=guild.id,
            position=len(guild.channels),
        )
        guild.channels.append(channel)
        harness.emu.channels[channel.id] = channel
    try:
        await harness.start()
        world = World(harness)
        await world.start()
        yield world
    finally:
        await harness.close()


# -- running and judging ----------------------------------------------------------------------------


@dataclass
class Lane:
    """One (command, option, ruleset): its cases in order, then the control."""

    recipe: Recipe
    leaf: Leaf
    option: str
    ruleset: str
    cases: list[Case]

    @property
    def command(self) -> str:
        return self.leaf.qualified_name


def plan(world: World) -> tuple[list[Lane], list[str]]:
    """Every (command, option, ruleset) to check with its cases; and what is skipped, why."""
    lanes: list[Lane] = []
    skipped: list[str] = []
    for leaf, definition in typed_options(list(world.leaves.values())):
        name = definition["name"]
        recipe = RECIPES[leaf.qualified_name]
        option = recipe.options[name]
        for ruleset in recipe.rulesets:
            if ruleset in option.skip:
                skipped.append(f"/{leaf.qualified_name} {name} [{ruleset}]: {option.skip[ruleset]}")
                continue
            syntax = pick(option.syntax, ruleset)
            forms = ["{v}", *([syntax] if syntax else [])]
            cases = [
                Case(leaf.qualified_name, name, ruleset, value, form, user)
                for form in forms
                for value in HOSTILE
                for user in USERS
            ]
            control = pick(option.control, ruleset)
            cases.append(Case(leaf.qualified_name, name, ruleset, control, control, "gm", control=True))
            lanes.append(Lane(recipe, leaf, name, ruleset, cases))
    return lanes, skipped


def fill(value: Any, place: Place, world: World, ruleset: str) -> Any:
    if not isinstance(value, str):
        return value
    value = (
        value.replace("{me}", place.me).replace("{foe}", place.foe).replace("{edit}", world.names[ruleset][1])
    )
    return value.replace("{fresh}", world.fresh("Pj")) if "{fresh}" in value else value


def client_refuses(world: World, leaf: Leaf, name: str, value: str, channel: Channel) -> bool:
    definition = next(d for d in leaf.options if d["name"] == name)
    try:
        world.players["gm"]._option_value(definition, value, {}, channel)
    except ClientRefused:
        return True
    return False


def judge(case: Case, outcome: Outcome, messages: dict[str, Message]) -> None:
    """Fill ``case.verdict``: "" when the answer is a private refusal in the caller's language (for
    the control: when it is accepted)."""
    interaction = outcome.interaction
    text = outcome.text
    case.excerpt = " ".join(text.split())[:80]
    public = any(not m.ephemeral for m in outcome.messages)
    if not settled(messages, interaction):
        case.verdict = "no answer (the interaction failed)"
    elif not outcome.answered:
        case.verdict = "Discord refused the bot's answer"
    elif any(u in text for u in unexpected_texts()):
        case.verdict, case.excerpt = "CRASH ('unexpected error')", ""
    elif interaction.response_type == 9:
        case.verdict = "a form was shown"
    elif not outcome.messages:
        case.verdict = "answered with no message"
    elif case.control:
        case.verdict = "" if not outcome.refused else "SET-UP: the valid control value was refused"
    elif not outcome.refused:
        empty_ok = case.value == "" and case.sent != "" and (case.command, case.option) in EMPTY_IS_NOT_GIVEN
        case.verdict = "" if empty_ok else "ACCEPTED (answered as a valid value)"
    elif public:
        case.verdict = "refused in public"
    else:
        locale = USERS[case.user][1]
        case.verdict = "; ".join(
            language_problems(IDENTIFIER.sub(" ", text), locale, [case.sent, case.value])
        )
    if not case.verdict:
        case.excerpt = ""


async def run_lane(world: World, lane: Lane) -> None:
    """The cases one after the other in the lane's place; after an accepted one (the state may have
    moved on: an attack made, a turn passed), the next goes to a fresh place."""
    recipe = lane.recipe
    place: Place | None = None
    for case in lane.cases:
        if place is None:
            home = f"{'tavern' if recipe.state == 'tavern' else 'interro'}-{lane.option}"
            place = await world.prepare(recipe.state, lane.ruleset, home)
        given = {
            **recipe.base,
            **recipe.per_ruleset.get(lane.ruleset, {}),
            **recipe.options[lane.option].extra,
        }
        options = {k: fill(v, place, world, lane.ruleset) for k, v in given.items()}
        case.shape = fill(case.form, place, world, lane.ruleset)
        case.sent = case.shape.replace("{v}", case.value)
        options[lane.option] = case.sent
        case.client_refuses = client_refuses(world, lane.leaf, lane.option, case.sent, place.channel)
        outcome = await world.send(case.user, lane.leaf, options, place.channel)
        judge(case, outcome, world.emu.messages)
        if DEBUG:
            mark = "ok " if not case.verdict else "BAD"
            print(f"{mark} {row([case])} | {' '.join(outcome.text.split())[:120]}")
        if recipe.state is not None and outcome.answered and not outcome.refused:
            place = None


async def run_stateless(world: World, lane: Lane) -> None:
    """Nothing to keep between cases: all at once (the world's gate bounds what is in flight)."""
    single = [Lane(lane.recipe, lane.leaf, lane.option, lane.ruleset, [case]) for case in lane.cases]
    await asyncio.gather(*(run_lane(world, one) for one in single))


def shown(value: str) -> str:
    return repr(value) if len(value) <= 20 else f"'{value[:3]}…' ({len(value)} chars)"


def row(cases: list[Case]) -> str:
    """``/command option 'value' (as 'CC:{v}') [rulesets] users → what happened — the answer``."""
    first = cases[0]
    rulesets = " ".join(dict.fromkeys(c.ruleset for c in cases))
    users = "+".join(f"{u}({locale})" for u, (_, locale) in USERS.items() if any(c.user == u for c in cases))
    form = "" if first.form == "{v}" or first.control else f" as {first.shape[:40]!r}"
    raw = " (raw: Discord's client refuses it)" if first.client_refuses else ""
    excerpt = f" — {first.excerpt}" if first.excerpt else ""
    what = f"/{first.command} {first.option} {shown(first.value)}{form}{raw}"
    return f"{what} [{rulesets}] {users} → {first.verdict}{excerpt}"


def table(cases: list[Case]) -> list[str]:
    """The wrong cases, one line per (command, option, value, form, verdict): rulesets and users merged."""
    groups: dict[tuple[str, ...], list[Case]] = {}
    for case in cases:
        form = case.form if isinstance(case.form, str) else "syntax"
        key = (case.command, case.option, "" if form == "{v}" else "syntax", case.value, case.verdict)
        groups.setdefault(key, []).append(case)
    order = {v: i for i, v in enumerate(HOSTILE)}
    keys = sorted(groups, key=lambda k: (k[0], k[1], k[2], order.get(k[3], len(order)), k[4]))
    return [row(groups[k]) for k in keys]


def tracebacks(log: str) -> list[str]:
    """One line per kind of logged traceback: the command, the exception, where in bot/ it was raised."""
    found: Counter[str] = Counter()
    for record in re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", log):
        if "Traceback (most recent call last)" not in record:
            continue
        lines = [line for line in record.splitlines() if line.strip()]
        command = re.search(r"in (/[\w -]+)", lines[0])
        frames = re.findall(r'File ".*?/(bot/[^"]+)", line (\d+), in (\w+)', record)
        where = f" at {frames[-1][0]}:{frames[-1][1]} {frames[-1][2]}" if frames else ""
        found[f"{command.group(1) if command else lines[0][:60]}: {lines[-1].strip()[:110]}{where}"] += 1
    return [f"[{n}×] {line}" for line, n in sorted(found.items())]


# -- the tests --------------------------------------------------------------------------------------


async def test_every_typed_option_is_classified(world: World) -> None:
    """A string option whose description talks of dice, rolls, modifiers or numbers is classified
    typed or not; every typed one has a recipe; nothing classified is gone from the bot."""
    all_leaves = list(world.leaves.values())
    unclassified, names, paths = [], set(), set()
    for leaf in all_leaves:
        for option in leaf.options:
            if option.get("type") != 3 or option.get("choices"):
                continue
            names.add(base_name(option["name"]))
            paths.add((leaf.qualified_name, option["name"]))
            texts = [
                option.get("description") or "",
                *(option.get("description_localizations") or {}).values(),
            ]
            if classify(leaf.qualified_name, option["name"]) is None and any(
                KEYWORDS.search(t) for t in texts
            ):
                unclassified.append(f"/{leaf.qualified_name} {option['name']}: {option.get('description')!r}")
    assert not unclassified, (
        "string options that may take a typed number, classified neither way (add them to TYPED or "
        "NOT_TYPED in this file):\n" + "\n".join(unclassified)
    )
    stale = sorted((TYPED | set(NOT_TYPED)) - names)
    stale += sorted(str(p) for p in (TYPED_PATHS | set(NOT_TYPED_PATHS)) - paths)
    assert not stale, f"classified options the bot no longer has: {stale}"
    covered = typed_options(all_leaves)
    missing = [
        f"/{leaf.qualified_name} {o['name']}"
        for leaf, o in covered
        if leaf.qualified_name not in RECIPES or o["name"] not in RECIPES[leaf.qualified_name].options
    ]
    assert not missing, f"typed options without a recipe (add them to RECIPES): {missing}"
    unknown = sorted(set(RECIPES) - set(world.leaves))
    assert not unknown, f"recipes for commands the bot no longer has: {unknown}"
    print(
        f"\n{len(covered)} typed options:\n"
        + "\n".join(f"  /{leaf.qualified_name} {o['name']}" for leaf, o in covered)
    )


@pytest.mark.timeout(600)
async def test_hostile_typed_values_are_refused_privately(world: World) -> None:
    harness = world.h
    mark = harness.checkpoint()
    lanes, skipped = plan(world)
    started = time.perf_counter()
    results = await asyncio.gather(
        *((run_lane if lane.recipe.state else run_stateless)(world, lane) for lane in lanes),
        return_exceptions=True,
    )
    elapsed = time.perf_counter() - started
    cases = [c for lane in lanes for c in lane.cases]
    bad = [c for c in cases if c.verdict]
    print(
        f"\n{len(cases)} cases over {len(lanes)} (command, option, ruleset) in {elapsed:.0f} s, "
        f"{len(bad)} wrong; not checked:\n  " + "\n  ".join(skipped)
    )
    message = ""
    setup = [
        f"/{lane.command} {lane.option} [{lane.ruleset}]: {type(r).__name__}: {r}"
        for lane, r in zip(lanes, results, strict=True)
        if isinstance(r, BaseException)
    ]
    if setup:
        message += "set-up failures (this test's, not the bot's):\n" + "\n".join(setup) + "\n"
    if bad:
        counts = Counter(c.verdict for c in bad)
        message += (
            f"{len(bad)} of {len(cases)} cases not refused privately in the caller's language "
            f"({', '.join(f'{n} {v}' for v, n in counts.most_common())}):\n" + "\n".join(table(bad)) + "\n"
        )
    log = (harness.bot.log_text() if harness.bot else "")[mark[1] :]
    traced = tracebacks(log)
    if traced:
        message += "tracebacks in the bot's log:\n" + "\n".join(traced) + "\n"
    others = [p for p in harness.problems_since(mark) if not p.startswith("the bot logged a traceback")]
    message += "\n".join(others)
    assert not message, message
