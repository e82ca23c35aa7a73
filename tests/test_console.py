"""The offline console: parsing lines, and the real bot answering through the emulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.console import ConsoleInputError, parse_line

ROOT = Path(__file__).resolve().parent.parent


def test_parse_slash_with_user_subcommands_and_quoted_options() -> None:
    line = parse_line('@alice /combat ouvrir name:"Embuscade au pont" secret:true')
    assert line.user == "alice"
    assert line.kind == "slash"
    assert line.command == "combat ouvrir"
    assert line.options == {"name": "Embuscade au pont", "secret": "true"}


def test_parse_click_modal_and_comments() -> None:
    assert parse_line("!click Parer").target == "Parer"
    assert parse_line("@bob !modal nom:Albert cc:40").options == {"nom": "Albert", "cc": "40"}
    assert parse_line("# a comment").kind == "empty"
    assert parse_line("   ").kind == "empty"


def test_parse_select_takes_the_menu_then_the_choices() -> None:
    line = parse_line('@alice !select Cible "Gobelin 1"')
    assert (line.user, line.kind, line.target) == ("alice", "select", "Cible")
    assert line.options["values"].split("\n") == ["Gobelin 1"]


def test_selects_and_mentions_render_for_discord() -> None:
    from bot.ui.discord_render import allowed_mentions_of, to_view
    from bot.ui.reply import Button, Reply, Select, SelectOption

    reply = Reply(
        content="<@42> à toi",
        mentions=(42,),
        buttons=((Button("Suivant", "melee:fight:1:next"),),),
        selects=(
            Select("melee:fight:1:tgt", (SelectOption("Gobelin 1", "gobelin-1"),), placeholder="Cible"),
        ),
    )
    view = to_view(reply)
    assert view is not None
    kinds = [(type(item).__name__, item.row) for item in view.children]
    assert kinds == [("Button", 0), ("Select", 1)]
    allowed = allowed_mentions_of(reply).to_dict()
    assert allowed["users"] == [42] and allowed["parse"] == []
    assert allowed_mentions_of(Reply(content="<@42>")).to_dict() == {"parse": []}


BAD_LINES = [
    '/roll expression:"1d6',
    "@ /roll",
    "@alice",
    "roll expression:1d6",
    "/ expression:1",
    "!select Cible",
]


@pytest.mark.parametrize("bad", BAD_LINES)
def test_parse_refuses_malformed_lines(bad: str) -> None:
    with pytest.raises(ConsoleInputError):
        parse_line(bad)


def _console(stdin: str, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def test_console_roll_prints_one_json_line_with_every_die() -> None:
    proc = _console("/roll expression:3d20+56\n", "--json", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["command"] == "/roll" and record["user"] == "gm"
    group = record["result"]["groups"][0]
    values = [d["value"] for d in group["dice"]]
    assert group["sides"] == 20 and len(values) == 3 and all(1 <= v <= 20 for v in values)
    assert record["result"]["total"] == sum(values) + 56
    assert record["embeds"][0]["fields"][0]["value"] == f"**{sum(values) + 56}**"


def test_console_same_seed_same_rolls_and_french_names() -> None:
    first = _console("/lancer expression:4d6kh3\n", "--json", "--seed", "7")
    second = _console("/roll expression:4d6kh3\n", "--json", "--seed", "7")
    assert json.loads(first.stdout)["result"]["total"] == json.loads(second.stdout)["result"]["total"]


def test_console_hostile_inputs_answer_errors_quickly_and_keep_going() -> None:
    hostile = ["1000000d1000000", "1d1!", "1" * 10_000, "(" * 500 + "1" + ")" * 500]
    # Longer than the 500-character option limit: the emulator refuses like Discord's client would.
    stdin = "".join(f"/roll expression:{h}\n" for h in hostile) + "/roll expression:1d6\n"
    started = time.perf_counter()
    proc = _console(stdin, "--json", "--seed", "3")
    elapsed = time.perf_counter() - started
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(records) == len(hostile) + 1
    for record in records[:-1]:
        assert record.get("error") or (record["ephemeral"] and record["result"]["error"])
    assert records[-1]["result"]["total"] in range(1, 7)
    assert elapsed < 60


def test_console_as_another_user_in_english() -> None:
    proc = _console("@alice /help command:roll\n", "--locale", "en")
    assert proc.returncode == 0, proc.stderr
    assert "alice" in proc.stdout and "`/roll` —" in proc.stdout and "↳ `/roll expression:" in proc.stdout
