"""The rules core stays pure: standard library and other bot.rules modules only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "bot" / "rules"
FORBIDDEN_TOP = {"discord", "sqlalchemy", "aiosqlite", "asyncpg", "alembic", "aiohttp", "asyncio", "dotenv"}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: stays inside bot.rules by construction
                continue
            names.append(node.module or "")
    return names


RULE_FILES = sorted(RULES.rglob("*.py"))


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_import_only_stdlib_and_rules(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN_TOP, f"{path} imports {name}"
        if top == "bot":
            assert name.startswith("bot.rules"), f"{path} imports {name} from outside bot.rules"
        else:
            assert top in sys.stdlib_module_names or top == "__future__", f"{path} imports non-stdlib {name}"


def test_rules_never_use_the_global_random() -> None:
    for path in RULE_FILES:
        text = path.read_text(encoding="utf-8")
        for call in (
            "random.randint(",
            "random.random(",
            "random.choice(",
            "random.shuffle(",
            "random.seed(",
        ):
            assert call not in text, f"{path} uses the module-level RNG ({call})"


def test_services_and_rules_never_import_cogs() -> None:
    for folder in ("rules", "services", "db", "ui"):
        for path in (ROOT / "bot" / folder).rglob("*.py"):
            for name in _imports(path):
                assert not name.startswith("bot.cogs"), (
                    f"{path} imports {name}: dependencies point cogs → services"
                )


def test_extensions_load_and_command_names_do_not_collide() -> None:
    from bot.app import EXTENSIONS

    for extension in EXTENSIONS:
        assert (ROOT / (extension.replace(".", "/") + ".py")).is_file(), extension
