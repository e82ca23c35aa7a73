from __future__ import annotations

import pytest

from bot.data_loading import load_all
from bot.rules.combat.tables import CombatTables


@pytest.fixture(scope="session")
def tables() -> CombatTables:
    return CombatTables.from_documents({name: t.document for name, t in load_all().items()})
