"""Settings from the environment and ``.env``, built once in ``__main__`` and passed in."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DATA_DIR = Path("var")
DEFAULT_SQLITE_NAME = "melee.db"
LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class ConfigError(Exception):
    """A setting has a value the bot cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    discord_token: str | None = field(repr=False)
    database_url: str
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    discord_api_base: str | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    rate_limit_store: str = "memory"  # memory | database (bot.services.rate_limit)

    def __repr__(self) -> str:  # the token never appears in logs or tracebacks
        token = "set" if self.discord_token else "unset"
        return (
            f"Settings(discord_token=<{token}>, database_url={redact_url(self.database_url)!r}, "
            f"dev_guild_id={self.dev_guild_id}, log_level={self.log_level!r}, "
            f"discord_api_base={self.discord_api_base!r})"
        )

    @property
    def log_level_number(self) -> int:
        return int(getattr(logging, self.log_level))


def redact_url(url: str) -> str:
    """Hide a password in a database URL."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


def default_database_url(data_dir: Path = DEFAULT_DATA_DIR) -> str:
    return f"sqlite+aiosqlite:///{data_dir / DEFAULT_SQLITE_NAME}"


def _optional_int(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from exc
    if value < 0:
        raise ConfigError(f"{name} must not be negative")
    return value


def load_settings(env: Mapping[str, str] | None = None, *, dotenv_path: str | None = ".env") -> Settings:
    """Build the settings from ``env`` (default: ``os.environ`` after loading ``.env``)."""
    if env is None:
        if dotenv_path:
            from dotenv import load_dotenv

            load_dotenv(dotenv_path, override=False)
        env = os.environ
    token = env.get("DISCORD_TOKEN", "").strip() or None
    database_url = env.get("DATABASE_URL", "").strip() or default_database_url()
    if database_url.startswith("postgresql://"):
        database_url = "postgresql+asyncpg://" + database_url.removeprefix("postgresql://")
    if database_url.startswith("sqlite:///"):
        database_url = "sqlite+aiosqlite:///" + database_url.removeprefix("sqlite:///")
    log_level = (env.get("LOG_LEVEL", "").strip() or "INFO").upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    shard_ids_raw = env.get("SHARD_IDS", "").strip()
    shard_ids: tuple[int, ...] | None = None
    if shard_ids_raw:
        try:
            shard_ids = tuple(int(part) for part in shard_ids_raw.split(",") if part.strip())
        except ValueError as exc:
            raise ConfigError(f"SHARD_IDS must be comma-separated numbers, got {shard_ids_raw!r}") from exc
    shard_count = _optional_int(env, "SHARD_COUNT")
    if shard_ids is not None and shard_count is None:
        raise ConfigError("SHARD_IDS needs SHARD_COUNT")
    if shard_ids is not None and shard_count is not None and any(i >= shard_count for i in shard_ids):
        raise ConfigError("every id in SHARD_IDS must be lower than SHARD_COUNT")
    store = env.get("MELEE_RATE_LIMIT_STORE", "").strip().lower()
    if store not in ("", "memory", "database"):
        raise ConfigError(f"MELEE_RATE_LIMIT_STORE must be memory or database, got {store!r}")
    # Several shards usually mean several processes: share the buckets unless told otherwise.
    store = store or ("database" if shard_count is not None and shard_count > 1 else "memory")
    return Settings(
        discord_token=token,
        database_url=database_url,
        dev_guild_id=_optional_int(env, "DEV_GUILD_ID"),
        log_level=log_level,
        discord_api_base=env.get("DISCORD_API_BASE", "").strip() or None,
        shard_count=shard_count,
        shard_ids=shard_ids,
        rate_limit_store=store,
    )
