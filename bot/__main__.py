"""Entry point: ``python -m bot [run|console|health|migrate|backup]``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
import sys
import time
from collections.abc import Sequence

from bot.config import ConfigError, Settings, load_settings

EXIT_NO_TOKEN = 2
EXIT_CONFIG = 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Mêlée, a Discord bot for French RPGs")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the default)")
    console = sub.add_parser("console", help="run the commands offline, one line at a time on stdin")
    console.add_argument("--json", action="store_true", help="one JSON object per reply")
    console.add_argument("--seed", type=int, default=None, help="seed the dice for reproducible runs")
    console.add_argument(
        "--db", default=None, help="SQLite file kept between runs: a campaign (default: a throw-away one)"
    )
    console.add_argument("--locale", choices=("fr", "en"), default="fr")
    console.add_argument("--gm", default="gm", help="name of the user who holds the GM role")
    console.add_argument(
        "--server", default=None, help="the server's name (ids derive from it; default: La Taverne)"
    )
    console.add_argument(
        "--rate-limits", action="store_true", help="apply the per-user rate limits (off by default)"
    )
    console.add_argument(
        "--save-files", metavar="DIR", default=None, help="write the files the bot sends to DIR"
    )
    console.add_argument(
        "--show-tracker", action="store_true", help="print a pinned tracker each time it changes"
    )
    health = sub.add_parser(
        "health", help="exit 0 if the bot's gateway heartbeat is fresh (container HEALTHCHECK)"
    )
    health.add_argument("--max-age", type=float, default=90.0)
    sub.add_parser("migrate", help="upgrade the database schema to the latest revision")
    backup = sub.add_parser("backup", help="copy the SQLite database safely while the bot runs")
    backup.add_argument("destination")
    return parser


def _settings_or_exit() -> Settings:
    try:
        return load_settings()
    except ConfigError as exc:
        print(f"Configuration invalide / invalid configuration: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_CONFIG) from None


def _no_token_message() -> str:
    from bot.i18n import default_catalog

    catalog = default_catalog()
    return catalog.t("fr", "common.no_token") + "\n\n" + catalog.t("en", "common.no_token")


async def _run(settings: Settings) -> None:
    from bot.app import MeleeBot

    if settings.discord_api_base:
        from bot.discord_target import point_at

        point_at(settings.discord_api_base)
    bot = MeleeBot(settings, guild_ready_timeout=0.5 if settings.discord_api_base else 2.0)
    assert settings.discord_token is not None
    # `docker stop` sends SIGTERM: close cleanly (roll log written, gateway closed) instead of dying.
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(settings.discord_token)


def run(settings: Settings) -> int:
    from bot.logging_setup import setup_logging

    if not settings.discord_token:
        print(_no_token_message(), file=sys.stderr)
        return EXIT_NO_TOKEN
    setup_logging(settings.log_level_number, [settings.discord_token])
    # No cyclic collection while discord.py, SQLAlchemy and the cogs import (about a quarter of the
    # start-up CPU time, for a few hundred cycles found): ``MeleeBot.setup_hook`` freezes what start-up
    # built and turns the collector back on.
    gc.disable()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings))
    return 0


def health(max_age: float) -> int:
    from bot.app import health_file

    try:
        beat = float(health_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 1
    return 0 if time.time() - beat <= max_age else 1


async def _migrate(settings: Settings) -> None:
    from bot.db.session import create_engine, upgrade

    engine = create_engine(settings.database_url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = args.command or "run"
    if command == "console":
        from bot.console import main as console_main

        return console_main(args)
    if command == "health":
        return health(args.max_age)
    settings = _settings_or_exit()
    if command == "migrate":
        asyncio.run(_migrate(settings))
        return 0
    if command == "backup":
        from bot.backup import backup_sqlite

        return backup_sqlite(settings.database_url, args.destination)
    return run(settings)


if __name__ == "__main__":
    raise SystemExit(main())
