"""Running a script through the console (``python -m bot console --json``) for the scripted-fight
tests: the JSON records it printed, and the fight's own answers among them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def console_records(script: str, *args: str) -> list[dict[str, Any]]:
    """Every JSON line the console printed for ``script`` (seed 5, no Discord token; ``args``: more
    console options, e.g. ``--locale en``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--json", "--seed", "5", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def assert_no_errors(records: Sequence[dict[str, Any]]) -> None:
    assert not [r for r in records if "error" in r and r.get("command")], records


def answers(records: Sequence[dict[str, Any]], commands: Sequence[str]) -> list[dict[str, Any]]:
    """The records with a structured result whose command is one of ``commands`` (``/combat`` …)."""
    return [r for r in records if r.get("result") and r.get("command", "").split(" ")[0] in commands]
