"""100 interactions at once on one character sheet, and on one fight (then on two fights in
parallel), from different users.

Every accepted change is in the final sheet, none is lost or applied twice; the accepted ones
are serialised in one consistent order (their answers show versions v0+1 … v0+n, and the sheet
shown at version v holds exactly the changes accepted up to v); the refused ones are told why,
privately and in their language.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sqlite3
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from bot.db.session import create_engine
from bot.emulator.client import Result
from bot.emulator.state import Message
from bot.i18n import default_catalog
from bot.services.fights._core import QUICK_NPC_DEFAULTS

from .conftest import running
from .support import Harness, Outcome, embed_text, language_problems, outcome_of, settled

pytestmark = pytest.mark.slow

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL")
STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
AT_ONCE = 100
_FOOTER = re.compile(r"(?:version|version) (\d+)")


def _sheet(db: Path, name: str) -> tuple[int, list[str], int]:
    with sqlite3.connect(db) as connection:
        row = connection.execute("SELECT * FROM characters WHERE name = ?", (name,)).fetchone()
        columns = [c[1] for c in connection.execute("PRAGMA table_info(characters)")]
    record = dict(zip(columns, row, strict=True))
    stats = record["characteristics"]
    stats = json.loads(stats) if isinstance(stats, str) else stats
    talents = record["talents"]
    talents = json.loads(talents) if isinstance(talents, str) else talents
    return int(record["version"]), list(talents), int(stats.get("PF", 0))


def _talents_shown(result: Result) -> set[str]:
    for item in result.embed.get("fields", []):
        if item["name"] == "Talents":
            return {t.strip() for t in item["value"].split(",") if t.strip().startswith("Autre : T")}
    return set()


def _version_shown(result: Result) -> int:
    match = _FOOTER.search((result.embed.get("footer") or {}).get("text", ""))
    assert match, result.embed
    return int(match.group(1))


async def test_100_edits_at_once_on_one_sheet(tmp_path: Path) -> None:
    async with running(tmp_path) as table:
        alice = table.user("alice")
        created = await alice.slash("perso creer", nom="Albert", caracs=STATS)
        assert created.embed.get("color") != 0xED4245, created.embed
        v0, talents0, pf0 = _sheet(table.db_path, "Albert")
        assert talents0 == []

        # Owner, GM, server manager (may edit); another player and strangers (may not).
        actors = (
            [("alice", "fr")] * 40
            + [("gm", "fr")] * 25
            + [("carol", "en-GB")] * 15
            + [("bob", "en-US")] * 10
            + [(f"curieux{i}", "fr" if i % 2 else "en-US") for i in range(10)]
        )
        assert len(actors) == AT_ONCE
        players = [table.user(name, locale=locale) for name, locale in actors]
        talents = [f"Autre : T{i:03d}" for i in range(AT_ONCE)]  # renove sheets: known talents or notes
        results = await asyncio.gather(
            *(
                player.slash(
                    "perso modifier" if player.locale == "fr" else "character edit",
                    personnage="Albert",
                    caracs="PF:+1",
                    talents=talent,
                    timeout=30,
                )
                for player, talent in zip(players, talents, strict=True)
            )
        )
        await table.emu.wait_until(
            lambda: all(r.message is not None and not r.message.loading for r in results),
            timeout=30,
            what="every answer",
        )

        accepted: dict[int, str] = {}  # version shown -> talent added
        catalog = default_catalog()
        reasons = {
            catalog.t(lang, key).split("{")[0][:25]
            for lang in ("fr", "en")
            for key in (
                "characters.error.stale",
                "characters.error.not_yours",
                "characters.error.conflict",
                "common.error.retry",
                "reliability.rate_limited",
            )
        }
        refused_talents = []
        for player, talent, result in zip(players, talents, results, strict=True):
            outcome = outcome_of(table.emu.messages, result.interaction)
            assert outcome.answered, result
            problems = language_problems(outcome.text, player.locale, [talent, "Albert"])
            assert not problems, (player, problems, outcome.text)
            if outcome.refused:
                assert result.ephemeral, outcome.text
                text = embed_text(result.embed)
                assert any(reason.split("**")[-1].strip()[:15] in text for reason in reasons), text
                refused_talents.append(talent)
                if player.name.startswith(("bob", "curieux")):
                    continue
            else:
                assert not player.name.startswith(("bob", "curieux")), "a stranger edited the sheet"
                version = _version_shown(result)
                assert version not in accepted, f"two edits answered with version {version}"
                accepted[version] = talent

        version, final_talents, pf = _sheet(table.db_path, "Albert")
        # Nothing lost, nothing twice, nothing from a refused edit.
        assert sorted(accepted) == list(range(v0 + 1, v0 + len(accepted) + 1))
        assert version == v0 + len(accepted)
        assert sorted(final_talents) == sorted(accepted.values())
        assert pf == pf0 + len(accepted)
        assert not set(refused_talents) & set(final_talents)
        # One order: the sheet shown at version v holds exactly the edits accepted up to v.
        by_talent = {talent: version for version, talent in accepted.items()}
        for talent, result in zip(talents, results, strict=True):
            if talent in by_talent:
                shown = _talents_shown(result)
                expected = {t for t, v in by_talent.items() if v <= by_talent[talent]}
                assert shown == expected, (talent, by_talent[talent], shown ^ expected)
        assert len(accepted) >= 10, f"only {len(accepted)} of 80 allowed edits went through"
        print(
            f"\nconcurrency: {AT_ONCE} edits at once, {len(accepted)} accepted, "
            f"{len(refused_talents)} refused"
        )


# -- fights ---------------------------------------------------------------------------------------
#
# A renove fight in a thread: Albert (alice), Bertha (bob), Dieter (dave) and three goblins (the
# GM's). Round 1 leaves five attacks waiting for a defence (their buttons are on the messages);
# round 2 starts, then the burst: attacks by the owners, the GM and strangers (each with its own
# d100, typed, so it can be found again in the event log), defence buttons and /combat defend on the
# waiting attacks, GM edits of Gobelin 3 (conditions with distinct values, /combat fix of Int with
# distinct values) and the same edits from players. Afterwards every accepted answer has exactly one
# event, refused ones none; the events are numbered 1…n; the state is what replaying the accepted
# edits in event order gives; the attacks follow the initiative order.

FIGHTERS = {"alice": "Albert", "bob": "Bertha", "dave": "Dieter"}
PC_STATS = {
    "Albert": "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33",
    "Bertha": "CC:40 CT:45 F:30 E:35 Ag:40 Int:31 FM:35 Soc:33",
    "Dieter": "CC:42 CT:30 F:38 E:38 Ag:30 Int:28 FM:30 Soc:30",
}
INITIATIVE = (
    "{A}: 19 19 19; {B}: 18 18 18; {D}: 17 17 17; Gobelin 1: 5 5 5; Gobelin 2: 4 4 4; Gobelin 3: 3 3 3"
)
RETRY = ("combat.error.stale",)
RIGHTS = ("combat.error.not_yours", "combat.defence.not_yours", "combat.error.gm_only")
NOT_NOW = (
    "combat.error.not_your_turn",
    "combat.error.slot_spent",
    "combat.error.round_not_started",
    "combat.error.self_attack",
    "combat.error.which_combatant",
    "combat.defence.already_resolved",
    "combat.defence.nothing_pending",
)


@dataclass
class Fighting:
    """One fight under test: its thread, its fighters' names, the attacks waiting before the burst."""

    name: str
    thread: Any
    pcs: dict[str, str]  # user -> character
    waiting: dict[int, tuple[str, Message]] = field(default_factory=dict)  # seq -> (defender, message)
    offset: int = 0  # keeps the values typed in this fight apart from the other fight's
    fight_id: int = 0


@dataclass
class Act:
    """One interaction of the burst and what it is meant to change if accepted."""

    user: str
    locale: str
    kind: str  # attack | click | defend | condition | fix | show
    fight: Fighting
    command: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    custom_id: str = ""
    message: Message | None = None
    marker: int = 0  # the attack's d100, the condition's value, the fixed Int, the pending seq
    role: str = "player"  # player | gm | stranger


def _templates() -> list[tuple[str, re.Pattern[str]]]:
    catalog = default_catalog()
    found = []
    for lang in ("fr", "en"):
        for key in catalog.keys(lang):
            if key.startswith(("combat.error.", "combat.defence.", "combat.refusal.", "combat.condition.")):
                raw = catalog.raw(lang, key) or ""
                if not raw.strip():
                    continue
                pattern = re.escape(raw)
                while True:  # nested plural / gender parts collapse from the inside out
                    reduced = re.sub(r"\\\{[^{}]*\\\}", ".+?", pattern)
                    if reduced == pattern:
                        break
                    pattern = reduced
                found.append((key, re.compile(pattern, re.S)))
    return found


def refusal_key(text: str) -> str | None:
    for key, pattern in _templates_cached():
        if pattern.fullmatch(text.strip()):
            return key
    return None


_TEMPLATES: list[tuple[str, re.Pattern[str]]] = []


def _templates_cached() -> list[tuple[str, re.Pattern[str]]]:
    if not _TEMPLATES:
        _TEMPLATES.extend(_templates())
    return _TEMPLATES


async def _read_fight(url: str, fight_id: int) -> tuple[dict[str, Any], int, list[dict[str, Any]]]:
    """(the fight document, its version, its events in order), read through SQLAlchemy."""
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.text("SELECT state, version FROM fights WHERE id = :id"), {"id": fight_id}
                )
            ).one()
            events = (
                await conn.execute(
                    sa.text(
                        "SELECT seq, round, kind, actor, payload FROM fight_events "
                        "WHERE fight_id = :id ORDER BY seq"
                    ),
                    {"id": fight_id},
                )
            ).all()
    finally:
        await engine.dispose()

    def loads(value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    return (
        loads(row[0]),
        int(row[1]),
        [{"seq": e[0], "round": e[1], "kind": e[2], "actor": e[3], "payload": loads(e[4])} for e in events],
    )


def _buttons(result: Result) -> list[str]:
    return [
        c["custom_id"] for row in result.components for c in row.get("components", []) if "custom_id" in c
    ]


async def _open_fight(table: Harness, name: str, parent: str, pcs: dict[str, str], offset: int) -> Fighting:
    gm = table.user("gm")
    opened = await gm.slash("combat open", name=name, channel=parent)
    await opened.wait_followup()
    thread = table.thread(name)
    fight = Fighting(name, thread, pcs, offset=offset)
    for user, pc in pcs.items():
        await table.user(user).slash("combat add", who=pc, channel=thread)
    added = await gm.slash("combat add", who="3 gobelins", channel=thread)
    assert "Gobelin 3" in embed_text(added.embed), added.embed
    dice = INITIATIVE.format(A=pcs["alice"], B=pcs["bob"], D=pcs["dave"])
    await gm.slash("combat round", dice=dice, channel=thread)
    # Round 1: Alice's fighter hits Gobelin 1 and the attack waits for its defence; the turn waits
    # with it (it passes once the defence is answered), so the burst races on that one defence.
    shot = await table.user("alice").slash(
        "combat attack", target="Gobelin 1", roll=5, damage="4", channel=thread
    )
    ids = _buttons(shot)
    assert ids, shot.embed
    seq = int(ids[0].split(":")[4])
    fight.fight_id = int(ids[0].split(":")[2])
    fight.waiting[seq] = ("Gobelin 1", shot.message)  # type: ignore[assignment]
    return fight


def _plan(fight: Fighting, scale: int) -> list[Act]:
    """The burst on one fight: ``scale`` = 2 gives 100 interactions, 1 gives 50."""
    acts: list[Act] = []
    o = fight.offset
    pcs = fight.pcs
    roll = iter(range(10, 60))  # distinct attack d100s (hits or misses, no natural roll, no fumble)
    for user, target in (("alice", "Gobelin 1"), ("bob", "Gobelin 2"), ("dave", "Gobelin 1")):
        for _ in range(4 * scale):
            r = next(roll)
            options = {"target": target, "attacker": pcs[user], "roll": r, "damage": "3"}
            acts.append(Act(user, "", "attack", fight, "combat attack", options, marker=r))
    for i in range(5 * scale):
        r = next(roll)
        target = pcs["alice"] if i % 2 else pcs["bob"]
        acts.append(
            Act(
                "gm", "", "attack", fight, "combat attack", {"target": target, "roll": r}, marker=r, role="gm"
            )
        )
    for i in range(3 * scale):
        r = next(roll)
        options = {"target": "Gobelin 1", "attacker": pcs["alice"], "roll": r}
        acts.append(
            Act(f"curieux{i}", "", "attack", fight, "combat attack", options, marker=r, role="stranger")
        )
    owner_of = {pc: user for user, pc in pcs.items()}
    for seq, (defender, message) in fight.waiting.items():
        owner = owner_of.get(defender, "gm")
        wrong = "bob" if owner != "bob" else "dave"
        clickers = [(owner, "encaisser"), ("gm", "encaisser"), (wrong, "encaisser")]
        if scale > 1:
            clickers += [(owner, "parer"), (f"curieux{seq % 3}", "esquiver")]
        # the one defence the turn waits for: five times as many clicks race on it
        clickers *= 5
        for user, choice in clickers:
            custom = f"melee:fight:{fight.fight_id}:def:{seq}:{choice}"
            role = "gm" if user == "gm" else "stranger" if user.startswith("curieux") else "player"
            acts.append(
                Act(user, "", "click", fight, custom_id=custom, message=message, marker=seq, role=role)
            )
        if owner != "gm":
            options = {"choice": "encaisser", "attack": seq}
            acts.append(Act(owner, "", "defend", fight, "combat defend", options, marker=seq))
    for i in range(7 * scale):
        value = -(i + 1 + o)
        options = {"who": "Gobelin 3", "op": "add", "stat": "Soc", "value": value}
        acts.append(Act("gm", "", "condition", fight, "combat condition", options, marker=value, role="gm"))
    for i in range(5 * scale):
        value = 100 + i + o
        options = {"who": "Gobelin 3", "field": "Int", "value": value}
        acts.append(Act("gm", "", "fix", fight, "combat fix", options, marker=value, role="gm"))
    for i in range(2 * scale):
        options = {"who": "Gobelin 3", "op": "add", "stat": "Soc", "value": 50 + i + o}
        acts.append(Act("bob", "", "condition", fight, "combat condition", options, marker=50 + i + o))
        options = {"who": "Gobelin 3", "field": "Int", "value": 300 + i + o}
        acts.append(Act("dave", "", "fix", fight, "combat fix", options, marker=300 + i + o))
    while len(acts) < 50 * scale:
        acts.append(Act("carol", "", "show", fight, "combat show"))
    return acts


LOCALES = {"alice": "fr", "gm": "fr", "bob": "en-US", "dave": "en-GB", "carol": "en-US"}


async def _send(table: Harness, act: Act) -> Result:
    act.locale = LOCALES.get(act.user, "fr" if act.user.endswith(("0", "2", "4", "6", "8")) else "en-US")
    player = table.user(act.user, locale=act.locale)
    if act.kind == "click":
        assert act.message is not None
        return await player.click(act.custom_id, message=act.message, timeout=60)
    return await player.slash(act.command, channel=act.fight.thread, timeout=60, **act.options)


@dataclass
class Tally:
    accepted: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    deferred: int = 0  # answers acknowledged first (the fight's queue was long), then given


def _asks(outcome: Outcome) -> bool:
    """The answer is a question (« Confirmer » / « Annuler », a menu of who acts)."""
    return any(
        re.search(r":ask(?:who)?:", str(c.get("custom_id") or ""))
        for m in outcome.messages
        for c in m.iter_components()
    )


def _check_answers(table: Harness, acts: list[Act], results: list[Result], tally: Tally) -> list[bool]:
    """Each answer: given, in the user's language; a refusal is private and says why. → accepted?"""
    accepted: list[bool] = []
    for act, result in zip(acts, results, strict=True):
        outcome = outcome_of(table.emu.messages, result.interaction)
        if act.message is not None:  # a deferred click "updates" the clicked message: not its answer
            outcome = Outcome(result.interaction, [m for m in outcome.messages if m.id != act.message.id])
        assert outcome.answered, (act, result)
        inputs = [str(v) for v in act.options.values()] + [act.fight.name, *act.fight.pcs.values()]
        problems = language_problems(outcome.text, act.locale, inputs)
        assert not problems, (act.user, act.kind, problems, outcome.text)
        if not outcome.refused and _asks(outcome):
            # a question before acting (an ally as the target, the GM on a PC's turn): private,
            # nothing done until it is answered
            main = outcome.main
            assert main is not None and main.visible_to == table.user(act.user).id, outcome.text
            tally.refused["asked"] += 1
            accepted.append(False)
            continue
        if not outcome.refused:
            assert act.role != "stranger", f"a stranger's {act.kind} went through: {outcome.text}"
            if act.kind in ("condition", "fix"):
                assert act.role == "gm", f"{act.user}'s GM edit went through: {outcome.text}"
            if act.kind != "show":  # the table sees the result, even when the answer was deferred
                assert any(m.visible_to is None and m.embeds for m in outcome.messages), outcome.text
            tally.accepted[act.kind] += 1
            tally.deferred += result.interaction.response_type in (5, 6)
            accepted.append(True)
            continue
        main = outcome.main
        assert main is not None and main.visible_to == table.user(act.user).id, outcome.text  # ephemeral
        key = refusal_key((main.embeds[0].get("description") or "").strip())
        assert key is not None, f"refused without a known reason: {outcome.text!r}"
        if act.role == "stranger" or (act.kind in ("condition", "fix") and act.role != "gm"):
            assert key in RIGHTS or key in NOT_NOW, (act, key)  # "resolved" may come before "not yours"
            if act.kind != "click":
                assert key in RIGHTS, (act, key)
        tally.refused[key.rsplit(".", 1)[-1]] += 1
        tally.deferred += result.interaction.response_type in (5, 6)
        accepted.append(False)
    return accepted


async def _check_fight(url: str, fight: Fighting, acts: list[Act], accepted: list[bool]) -> None:
    """The fight's rows against the accepted answers: nothing lost, nothing twice, one order."""
    doc, version, events = await _read_fight(url, fight.fight_id)
    mine = [(a, ok) for a, ok in zip(acts, accepted, strict=True) if a.fight is fight]
    # Events numbered 1…n with no gap; the document knows n; nothing from another fight.
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert int(doc["seq"]) == len(events)
    state = doc["fight"]
    by_name = {c["name"]: c for c in state["combatants"]}
    ids = {c["id"] for c in state["combatants"]}
    assert all(e["actor"] in ids for e in events if e["actor"]), "an event of another fight"
    burst = [e for e in events if e["seq"] > max(fight.waiting)]
    # Attacks: exactly one event per accepted attack (found by its typed d100), none per refused.
    attack_events = [e for e in burst if e["kind"] == "attack"]
    rolls = Counter(int(e["payload"]["attack"]["check"]["roll"]) for e in attack_events)
    for act, ok in mine:
        if act.kind == "attack":
            assert rolls[act.marker] == (1 if ok else 0), (act.user, act.options, ok, rolls[act.marker])
    # ... taken in the initiative order, one per slot.
    order = [slot["combatant"] for slot in state["order"]]
    slots = [order.index(e["actor"]) for e in attack_events]
    assert slots == sorted(set(slots)), f"attacks out of the initiative order: {slots}"
    # Defences: at most one accepted answer per waiting attack, and exactly its one event.
    answered = Counter(a.marker for a, ok in mine if ok and a.kind in ("click", "defend"))
    resolved = Counter(
        int(e["payload"]["seq"]) for e in events if e["kind"] in ("hit", "defence") and "seq" in e["payload"]
    )
    for seq in fight.waiting:
        assert answered[seq] <= 1, f"attack {seq} answered {answered[seq]} times"
        assert resolved[seq] == answered[seq], (seq, resolved[seq], answered[seq])
    attacks_made = {int(e["seq"]) for e in events if e["kind"] == "attack"}
    still = {int(s) for s in doc.get("pending", {})}
    assert still <= attacks_made and not still & set(resolved), (still, set(resolved))
    # GM edits of Gobelin 3: the state is the accepted edits replayed in event order.
    gob3 = by_name["Gobelin 3"]
    conditions = [
        e["payload"]["value"] for e in events if e["kind"] == "condition" and e["actor"] == gob3["id"]
    ]
    assert sorted(conditions) == sorted(a.marker for a, ok in mine if ok and a.kind == "condition")
    kept = [c["value"] for c in gob3["conditions"] if c["source"] == "gm" and c["stat"] == "Soc"]
    assert kept == conditions, (kept, conditions)
    fixes = [e["payload"] for e in events if e["kind"] == "correct" and e["actor"] == gob3["id"]]
    assert sorted(f["after"] for f in fixes) == sorted(a.marker for a, ok in mine if ok and a.kind == "fix")
    before = QUICK_NPC_DEFAULTS["Int"]
    for f in fixes:  # each fix saw the previous one: no lost update
        assert f["field"] == "Int" and f["before"] == before, (f, before)
        before = f["after"]
    assert gob3["characteristics"]["Int"] == before
    # The version counts the writes: one per accepted change (the setup's included).
    assert version > len([a for a, ok in mine if ok and a.kind != "show"])


async def _burst(table: Harness, fights: list[Fighting], scale: int) -> tuple[list[Act], list[Result]]:
    acts = [act for fight in fights for act in _plan(fight, scale)]
    random.Random(7).shuffle(acts)
    results = await asyncio.gather(*(_send(table, act) for act in acts))
    await table.emu.wait_until(
        lambda: all(_answered(table, r) for r in results), timeout=60, what="every answer"
    )
    return acts, list(results)


def _answered(table: Harness, result: Result) -> bool:
    """Settled for good, deferred answers included: a deferred click has its followup; a deferred
    command whose private "thinking" became a note (no embed) has its public result too."""
    interaction = result.interaction
    if not settled(table.emu.messages, interaction):
        return False
    if interaction.response_type == 6:
        return bool(interaction.followup_ids)
    if interaction.response_type == 5:
        original = table.emu.messages.get(interaction.original_message_id or "")
        return original is not None and (bool(original.embeds) or len(interaction.followup_ids) >= 2)
    return True


async def _characters(table: Harness, pcs: dict[str, str]) -> None:
    for user, pc in pcs.items():
        player = table.user(user, locale=LOCALES[user])
        await player.slash("character create", name=pc, stats=PC_STATS.get(pc, STATS))
        await player.slash("character equip", character=pc, weapon="epee")


def _report(label: str, total: int, tally: Tally) -> None:
    print(
        f"\nconcurrency: {total} {label}, {sum(tally.accepted.values())} accepted "
        f"{dict(tally.accepted)}, {sum(tally.refused.values())} refused {dict(tally.refused)}, "
        f"{tally.deferred} deferred"
    )


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(not POSTGRES_URL, reason="TEST_POSTGRES_URL not set"),
            ],
        ),
    ]
)
async def fight_database(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """ "" for the harness's SQLite file, else a fresh PostgreSQL database (dropped afterwards)."""
    if request.param == "sqlite":
        yield ""
        return
    assert POSTGRES_URL
    name = "melee_fight_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES_URL)
    async with admin.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


def _db_env(url: str) -> dict[str, str]:
    # Per-user rate limits are not under test here (the GM sends 30 commands at once).
    env = {"MELEE_RATE_LIMITS": "off"}
    if url:
        env["DATABASE_URL"] = url
    return env


def _db_url(table: Harness, url: str) -> str:
    return url or table.database_url


async def test_100_actions_at_once_on_one_fight(tmp_path: Path, fight_database: str) -> None:
    async with running(tmp_path, env=_db_env(fight_database)) as table:
        await _characters(table, FIGHTERS)
        fight = await _open_fight(table, "Mêlée", "partie", FIGHTERS, 0)
        acts, results = await _burst(table, [fight], scale=2)
        assert len(acts) == AT_ONCE, len(acts)
        tally = Tally()
        accepted = _check_answers(table, acts, results, tally)
        await _check_fight(_db_url(table, fight_database), fight, acts, accepted)
        assert tally.accepted["attack"] >= 1 and tally.accepted["condition"] + tally.accepted["fix"] >= 1
        assert sum(tally.accepted[k] for k in ("click", "defend")) >= 1, tally
        _report("fight actions at once on one fight", len(acts), tally)


async def test_two_fights_hammered_at_once_stay_apart(tmp_path: Path) -> None:
    async with running(tmp_path, env=_db_env("")) as table:
        second = {"alice": "Aline", "bob": "Boris", "dave": "Dora"}
        await _characters(table, FIGHTERS)
        await _characters(table, second)
        fights = [
            await _open_fight(table, "Mêlée", "partie", FIGHTERS, 0),
            await _open_fight(table, "Rixe", "général", second, 20),
        ]
        assert fights[0].fight_id != fights[1].fight_id
        acts, results = await _burst(table, fights, scale=1)
        tally = Tally()
        accepted = _check_answers(table, acts, results, tally)
        for fight in fights:
            await _check_fight(_db_url(table, ""), fight, acts, accepted)
        _report("fight actions at once on two fights", len(acts), tally)
