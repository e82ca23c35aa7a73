"""End-to-end fixtures: ``emu`` is the table with the real bot (``python -m bot``) behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.emulator.server import EmulatorConfig

from .harness import E2E

E2E_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Everything under tests/e2e drives the real bot: mark it so `-m "not e2e"` skips it.
    for item in items:
        if E2E_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def emu_config() -> EmulatorConfig:
    """Override in a test module to grant intents, close DMs, change the bot's permissions."""
    return EmulatorConfig()


@pytest.fixture
async def emu(tmp_path: Path, emu_config: EmulatorConfig) -> AsyncIterator[E2E]:
    """The emulator started, the bot started on a fresh SQLite file, commands synced."""
    harness = E2E(tmp_path, emu_config)
    try:
        await harness.start()
        yield harness
    finally:
        await harness.close()
    problems = harness.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
