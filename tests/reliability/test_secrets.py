"""Secrets and supply chain: the token only from the environment and never logged, a non-root
container with a read-only code directory, dependencies pinned with hashes, an online backup."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import sqlite3
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from bot.config import load_settings
from bot.db import session as db_session
from bot.emulator.client import Upload

from .support import Harness

REPO = Path(__file__).resolve().parents[2]
STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"


# -- the token -------------------------------------------------------------------------------------


class TokenHarness(Harness):
    def __init__(self, tmp_path: Path, token: str) -> None:
        super().__init__(tmp_path, log_level="DEBUG")
        self.token = token

    def bot_env(self) -> dict[str, str]:
        env = super().bot_env()
        env["DISCORD_TOKEN"] = self.token
        return env


@pytest.mark.slow
async def test_the_token_never_reaches_the_log_even_at_debug(tmp_path: Path) -> None:
    token = "MTk4NjIy." + secrets.token_urlsafe(24)
    harness = TokenHarness(tmp_path, token)
    try:
        await harness.start()
        alice, bob, gm = harness.user("alice"), harness.user("bob", locale="en-US"), harness.user("gm")
        await alice.slash("lancer", expression="3d6 # Initiative")
        await bob.slash("roll", expression="1d0")  # an error
        await alice.slash("perso creer", nom="Albert", caracs=STATS)
        exported = await alice.slash("perso exporter")
        data = exported._msg().attachments[0].data
        await alice.slash("perso importer", fichier=Upload("a.json", data, "application/json"))
        await gm.slash("config systeme", systeme="ogl")
        await alice.slash("aide")
        await harness.drop_gateway()  # RESUME sends the token again
        await harness.restart_bot()  # and so does IDENTIFY
        await alice.slash("perso voir")
    finally:
        await harness.close()
    log = harness.bot.log_text() if harness.bot else ""
    assert "DEBUG" in log, "the bot did not log at DEBUG"
    assert token not in log
    assert token.split(".", 1)[1] not in log
    # Nor in anything the bot sent to Discord.
    for message in harness.emu.messages.values():
        assert token not in repr(message.payload())


def test_the_token_comes_from_the_environment_only(tmp_path: Path) -> None:
    settings = load_settings({"DISCORD_TOKEN": "secret-token-value"}, dotenv_path=None)
    assert "secret-token-value" not in repr(settings) and "secret-token-value" not in str(settings)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr  # EXIT_NO_TOKEN: no token, no start
    # No token-like string committed in the code or the configuration files.
    pattern = re.compile(r"[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}")
    for path in [*REPO.glob("bot/**/*.py"), *REPO.glob("*.toml"), *REPO.glob("*.ini"), REPO / "Dockerfile"]:
        assert not pattern.search(path.read_text(encoding="utf-8", errors="replace")), path


# -- the container -----------------------------------------------------------------------------------


def _instructions() -> list[tuple[str, str]]:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    text = re.sub(r"\\\n", " ", text)
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def test_the_container_runs_as_a_non_root_user_on_read_only_code() -> None:
    steps = _instructions()
    users = [rest for keyword, rest in steps if keyword == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), users
    user = users[-1].split(":")[0]
    last_user = max(i for i, (keyword, _) in enumerate(steps) if keyword == "USER")
    assert all(keyword not in ("COPY", "ADD") for keyword, _ in steps[last_user:]), (
        "code copied as the bot user"
    )
    copies = [rest for keyword, rest in steps if keyword in ("COPY", "ADD")]
    code = [c for c in copies if re.search(r"\b(bot|data|migrations)/", c)]
    assert code, copies
    assert not any("--chown" in c or "--chmod" in c for c in code), "code must stay root's"
    runs = " && ".join(rest for keyword, rest in steps if keyword == "RUN")
    # Nothing gives the bot user the code: only /app/var (its data volume) is chowned to it.
    for chown in re.findall(r"chown\s+(?:-\w+\s+)*(\S+)\s+([^&;]+)", runs):
        owner, paths = chown
        if owner.split(":")[0] == user:
            assert all(p.startswith("/app/var") for p in paths.split()), chown
    assert re.search(r"chmod -R a-w\S*\s+/app/bot", runs), "the code directory is not made read-only"
    assert not re.search(r"chmod\s+(-R\s+)?(777|666|a\+w|o\+w|u\+w)", runs)
    volumes = " ".join(rest for keyword, rest in steps if keyword == "VOLUME")
    assert "/app/var" in volumes


def test_dependencies_are_pinned_with_hashes() -> None:
    lock = (REPO / "requirements.lock").read_text(encoding="utf-8")
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=[A-Za-z])", re.sub(r"\\\n\s*", " ", lock)):
        line = block.split("#", 1)[0].strip() if not block.startswith("#") else ""
        if not line:
            continue
        requirement, *hashes = line.split(" --hash=")
        name, _, version = requirement.partition("==")
        assert version, f"not pinned: {requirement}"
        assert hashes and all(h.startswith("sha256:") for h in hashes), f"no hash for {name}"
        pins[name.strip().lower().replace("_", "-")] = version.strip()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        name = requirement.name.lower().replace("_", "-").replace(".", "-")
        assert name in pins, f"{name} is not in requirements.lock"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} does not satisfy {spec}"
    steps = " ".join(rest for keyword, rest in _instructions() if keyword == "RUN")
    assert "--require-hashes -r requirements.lock" in steps, "the image does not install from the lock"


# -- backups -----------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_backup_while_a_writer_writes(tmp_path: Path) -> None:
    database = tmp_path / "melee.db"
    url = f"sqlite+aiosqlite:///{database}"
    engine = db_session.create_engine(url)
    await db_session.upgrade(engine)
    await engine.dispose()
    written = [0]
    stop, enough = threading.Event(), threading.Event()

    def writer() -> None:
        connection = sqlite3.connect(database, timeout=10, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        while not stop.is_set():
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(
                "INSERT INTO roll_log (user_id, kind, expression, secret, result, created_at) "
                "VALUES (?, 'roll', '1d6', 0, '{}', CURRENT_TIMESTAMP)",
                [(i,) for i in range(50)],
            )
            connection.execute("COMMIT")
            written[0] += 50
            if written[0] >= 2000:
                enough.set()
        connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert await asyncio.to_thread(enough.wait, 30)
        before = written[0]
        env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(REPO)}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "backup",
            str(tmp_path / "copies" / "melee.db"),
            cwd=REPO,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        after = written[0]
    finally:
        stop.set()
        thread.join(10)
    copy = sqlite3.connect(tmp_path / "copies" / "melee.db")
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = copy.execute("SELECT count(*) FROM roll_log").fetchone()[0]
        assert copy.execute("SELECT count(*) FROM alembic_version").fetchone()[0] == 1
    finally:
        copy.close()
    assert before <= rows <= after + 50 and rows % 50 == 0, (before, rows, after)  # whole transactions only
