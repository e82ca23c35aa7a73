from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings, redact_url

ROOT = Path(__file__).resolve().parent.parent


def test_defaults_use_a_sqlite_file_under_var() -> None:
    settings = load_settings({})
    assert settings.database_url == "sqlite+aiosqlite:///var/melee.db"
    assert settings.discord_token is None
    assert settings.dev_guild_id is None
    assert settings.log_level == "INFO"


def test_values_are_parsed() -> None:
    settings = load_settings(
        {
            "DISCORD_TOKEN": "abc.def.ghi",
            "DATABASE_URL": "postgresql://u:pw@127.0.0.1/melee",
            "DEV_GUILD_ID": "123",
            "LOG_LEVEL": "debug",
            "SHARD_COUNT": "4",
            "SHARD_IDS": "2,3",
        }
    )
    assert settings.database_url == "postgresql+asyncpg://u:pw@127.0.0.1/melee"
    assert settings.dev_guild_id == 123
    assert settings.log_level == "DEBUG"
    assert settings.shard_ids == (2, 3)


@pytest.mark.parametrize(
    "env",
    [
        {"DEV_GUILD_ID": "abc"},
        {"LOG_LEVEL": "loud"},
        {"SHARD_IDS": "0,1"},
        {"SHARD_COUNT": "2", "SHARD_IDS": "0,2"},
    ],
)
def test_bad_values_name_the_variable(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env)
    assert any(name in str(info.value) for name in env)


def test_token_never_in_repr() -> None:
    settings = load_settings(
        {"DISCORD_TOKEN": "super-secret-token", "DATABASE_URL": "postgresql://u:pw@h/db"}
    )
    text = repr(settings)
    assert "super-secret-token" not in text
    assert "pw" not in text.replace("postgresql", "")
    assert redact_url("postgresql+asyncpg://u:pw@h/db") == "postgresql+asyncpg://u:***@h/db"


def test_no_token_exits_2_with_a_bilingual_message_and_no_traceback(tmp_path: Path) -> None:
    # Run from an empty folder so no .env is picked up.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "DISCORD_TOKEN" in proc.stderr
    assert "python -m bot console" in proc.stderr
    assert "jeton" in proc.stderr and "token" in proc.stderr
    assert "Traceback" not in proc.stderr
