"""``python -m bot.tables_coverage``: one line per table, non-zero exit when a table is short."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot import tables_coverage as coverage
from bot.data_loading import DATA_DIR
from bot.tables_coverage import EXPECTED, main

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_data_is_complete() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.tables_coverage"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    tables = {path.stem for path in DATA_DIR.glob("*.json")}
    assert len(lines) == len(tables | set(EXPECTED))
    assert any(line.split()[:3] == ["critical_matrix", "100/100", "ok"] for line in lines)
    assert any(line.split()[:2] == ["criticals_tranchantes", "60/60"] for line in lines)
    assert any(line.split()[-1] == "n/a" for line in lines)


def test_a_short_table_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR / "schemas", data / "schemas")
    shutil.copy(DATA_DIR / "mort_subite.json", data / "mort_subite.json")
    monkeypatch.setattr(coverage, "EXPECTED", {"mort_subite": 4, "weapons_melee": 30})
    assert coverage.main(["--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert "3/4  SHORT by 1" in out
    assert "weapons_melee" in out and "MISSING" in out


def test_data_that_does_not_load_exits_2(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR / "schemas", data / "schemas")
    (data / "mort_subite.json").write_text("{", encoding="utf-8")
    assert main(["--data-dir", str(data)]) == 2
