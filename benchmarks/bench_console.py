"""Console throughput (issue #24): how many script lines per second the offline console plays.

Run: ``.venv/bin/python -m benchmarks.bench_console [--lines 1000] [--command "/lancer expression:1d100"]``.

``python -m bot console --json`` is fed a script of ``--lines`` lines (three users taking turns) on
standard input, as a GM replaying a session would; every answer's arrival is timed on its standard
output. Lines per second are counted from the first answer to the last (start-up apart); the wall
time of the whole run, start-up included, is printed too. Targets: ≥ 200 lines/s for ``/lancer``, a
1 000-line script in under 10 s.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USERS = ("alice", "bob", "carol")


@dataclass(frozen=True)
class ConsoleFigures:
    lines: int
    answers: int
    rate: float  # lines per second, first answer to last
    wall: float  # the whole run, start-up included
    startup: float  # from the spawn to the first answer

    def report(self, command: str) -> None:
        print(
            f"  console {command}: {self.answers}/{self.lines} lines answered, {self.rate:,.0f} lines/s"
            f" after start-up ({self.startup:.2f} s); whole script {self.wall:.2f} s"
        )


def measure(lines: int = 1000, command: str = "/lancer expression:1d100") -> ConsoleFigures:
    # The bot's bytecode first, as the container image has it (only the bot's own modules).
    compileall.compile_dir(str(ROOT / "bot"), quiet=1)
    script = "".join(f"@{USERS[i % len(USERS)]} {command}\n" for i in range(lines))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "console", "--json", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        proc.stdin.write(script)
        proc.stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    stamps: list[float] = []
    for raw in proc.stdout:
        if raw.strip():
            record = json.loads(raw)
            if "error" in record:
                raise RuntimeError(f"the console refused a line: {record['error']}")
            stamps.append(time.perf_counter())
    proc.wait(timeout=120)
    wall = time.perf_counter() - began
    writer.join(timeout=5)
    if len(stamps) < 2:
        raise RuntimeError(f"the console answered {len(stamps)} of {lines} lines")
    rate = (len(stamps) - 1) / (stamps[-1] - stamps[0])
    return ConsoleFigures(lines, len(stamps), rate, wall, stamps[0] - began)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--command", default="/lancer expression:1d100")
    args = parser.parse_args()
    figures = measure(args.lines, args.command)
    figures.report(args.command.split()[0])
    return 0 if figures.rate >= 200 and figures.wall < 10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
