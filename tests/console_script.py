"""Running a script through the console (``python -m bot console --json``) for the scripted-fight
tests: the JSON records it printed, and the fight's own answers among them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class ConsoleRun:
    """One console run: its exit status, the JSON records it printed and its standard error."""

    returncode: int
    records: list[dict[str, Any]]
    stderr: str

    @property
    def errors(self) -> list[str]:
        return [r["error"] for r in self.records if "error" in r]


def console_run(script: str, *args: str, locale: str = "fr", cwd: Path | None = None) -> ConsoleRun:
    """Run ``script`` through the console (seed 5, no Discord token) whatever its exit status."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--json", "--seed", "5", "--locale", locale, *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=cwd or ROOT,
    )
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return ConsoleRun(proc.returncode, records, proc.stderr)


def console_records(script: str, *args: str, locale: str = "fr") -> list[dict[str, Any]]:
    """Every JSON line the console printed for ``script`` (seed 5, no Discord token); ``args`` go to
    the console after ``--locale``."""
    run = console_run(script, *args, locale=locale)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.records


def assert_no_errors(records: Sequence[dict[str, Any]]) -> None:
    assert not [r for r in records if "error" in r and r.get("command")], records


def answers(records: Sequence[dict[str, Any]], commands: Sequence[str]) -> list[dict[str, Any]]:
    """The records with a structured result whose command is one of ``commands`` (``/combat`` …)."""
    return [r for r in records if r.get("result") and r.get("command", "").split(" ")[0] in commands]
