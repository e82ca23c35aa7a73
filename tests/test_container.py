"""The Dockerfile's steps, run in a fresh virtual environment (no Docker engine runs here).

The container installs the project from pyproject.toml, then runs the migrations and the bot
from the code directory; these tests do the same and check the health check's behaviour.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def test_dockerfile_runs_as_non_root_with_a_volume_and_a_healthcheck() -> None:
    assert re.search(r"^FROM python:3\.\d+-slim", DOCKERFILE, re.M)
    users = re.findall(r"^USER (\S+)", DOCKERFILE, re.M)
    assert users and users[-1] not in ("root", "0")
    assert 'VOLUME ["/app/var"]' in DOCKERFILE
    assert "HEALTHCHECK" in DOCKERFILE and 'bot", "health"' in DOCKERFILE
    assert "python -m bot migrate" in DOCKERFILE
    # The bytecode is compiled at build time, after the code is copied (start-up time, issue #11).
    compile_step = DOCKERFILE.index("python -m compileall -q bot")
    assert DOCKERFILE.index("COPY bot/ bot/") < compile_step < DOCKERFILE.index("USER ")


@pytest.mark.slow
def test_the_container_steps_pass_in_a_fresh_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # `pip install .` as in the Dockerfile (from a copy, so the checkout is untouched).
    app = tmp_path / "app"
    app.mkdir()
    for name in ("pyproject.toml", "README.md", "alembic.ini"):
        shutil.copy(ROOT / name, app / name)
    for folder in ("bot", "data", "migrations"):
        shutil.copytree(ROOT / folder, app / folder, ignore=shutil.ignore_patterns("__pycache__"))
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "."], cwd=app, capture_output=True, text=True, timeout=900
    )
    assert install.returncode == 0, install.stderr[-2000:]
    compiled = subprocess.run(
        [str(python), "-m", "compileall", "-q", "bot", "migrations"],
        cwd=app,
        capture_output=True,
        timeout=300,
    )
    assert compiled.returncode == 0 and (app / "bot" / "__pycache__").is_dir(), compiled.stderr
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/var/melee.db",
        "MELEE_HEALTH_FILE": str(tmp_path / "var" / "health"),
    }
    migrate = subprocess.run(
        [str(python), "-m", "bot", "migrate"], cwd=app, env=env, capture_output=True, text=True, timeout=120
    )
    assert migrate.returncode == 0, migrate.stderr
    assert (tmp_path / "var" / "melee.db").is_file()
    # No heartbeat yet: unhealthy. A fresh one: healthy. A stale one: unhealthy again.
    health = [str(python), "-m", "bot", "health"]
    assert subprocess.run(health, cwd=app, env=env, timeout=60).returncode == 1
    (tmp_path / "var" / "health").write_text(str(time.time()))
    assert subprocess.run(health, cwd=app, env=env, timeout=60).returncode == 0
    (tmp_path / "var" / "health").write_text(str(time.time() - 600))
    assert subprocess.run(health, cwd=app, env=env, timeout=60).returncode == 1
    bot = [str(python), "-m", "bot"]
    run = subprocess.run(bot, cwd=app, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "DISCORD_TOKEN" in run.stderr and "Traceback" not in run.stderr
