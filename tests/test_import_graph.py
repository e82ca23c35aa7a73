"""The shape of ``bot/``: no import circle, no re-exporting package, one home per rule system.

The graph counts every import of a ``bot`` module, at module level or inside a function (an import
moved into a function to dodge a cycle is still a cycle); only ``if TYPE_CHECKING:`` blocks are left
out. Importing ``a.b.c`` also imports the packages ``a.b`` and ``a``, so those are edges too (except
a module's own parent packages, which Python has imported before it runs).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
SYSTEMS = ("renove", "v1", "d20", "ogl")


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


@cache
def modules() -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(BOT.rglob("*.py")):
        name, is_package = _module_name(path)
        found[name] = (path, is_package)
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
            ):
                for child in node.body:
                    skipped.update(id(n) for n in ast.walk(child))
    return skipped


def _known(name: str) -> str | None:
    """The longest prefix of ``name`` that is a ``bot`` module."""
    mods = modules()
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> Iterator[str]:
    path, is_package = modules()[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "bot" and (found := _known(alias.name)):
                    yield found
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source.split(".")[0] != "bot":
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                found = full if full in modules() else _known(source)
                if found:
                    yield found


@cache
def graph() -> dict[str, frozenset[str]]:
    edges: dict[str, frozenset[str]] = {}
    for module in modules():
        targets: set[str] = set()
        for target in _imports(module):
            targets.add(target)
            parts = target.split(".")
            for i in range(1, len(parts)):
                parent = ".".join(parts[:i])
                if parent in modules() and not module.startswith(parent + "."):
                    targets.add(parent)
        targets.discard(module)
        edges[module] = frozenset(targets)
    return edges


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    # The check must be able to fail: a made-up graph with a circle through a function-level import.
    assert cycles(
        {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    ) == [["a", "b", "c"]]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_function_level_and_package_imports_are_edges() -> None:
    edges = graph()
    # bot.services.fights.kit imports bot.services.fights.registry; the registry module exists.
    assert "bot.services.fights.registry" in edges["bot.services.fights.kit"]
    # importing bot.rules.renove.checks also imports the package bot.rules.renove
    users = [m for m, targets in edges.items() if "bot.rules.renove.checks" in targets]
    assert users and all(
        "bot.rules.renove" in edges[m] for m in users if not m.startswith("bot.rules.renove")
    )


def test_no_import_cycle_in_bot() -> None:
    found = cycles(graph())
    assert not found, "import circles in bot/: " + "; ".join(" → ".join(c) for c in found)


@pytest.mark.parametrize("path", sorted(BOT.rglob("__init__.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_package_re_exports_its_modules(path: Path) -> None:
    """A package's ``__init__`` may hold code of its own, never a list of names for others to import back."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    assert "__all__" not in assigned, f"{path} declares __all__"
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                name = alias.asname or alias.name
                assert name in used, f"{path} imports {name} only to re-export it"


def test_each_rule_system_has_its_home() -> None:
    for system in SYSTEMS:
        assert (BOT / "rules" / system / "checks.py").is_file(), f"bot/rules/{system}/checks.py"
    for system in ("v1", "d20", "ogl"):
        assert (BOT / "rules" / system / "combat.py").is_file(), f"bot/rules/{system}/combat.py"
        assert (BOT / "services" / "fights" / "systems" / f"{system}.py").is_file()
    assert (BOT / "rules" / "renove" / "attack.py").is_file()
    loose = sorted(p.name for p in (BOT / "services").glob("fight_*.py")) + sorted(
        p.name for p in (BOT / "services").glob("flow_*.py")
    )
    assert not loose, f"loose system or flow modules in bot/services/: {loose}"


def test_shared_fight_machinery_never_names_a_system_adapter() -> None:
    edges = graph()
    adapters = "bot.services.fights.systems"
    shared = [m for m in edges if m.startswith("bot.services.fights.") and not m.startswith(adapters)]
    assert shared
    for module in shared:
        named = sorted(t for t in edges[module] if t == adapters or t.startswith(adapters + "."))
        assert not named, f"{module} imports {named}: look the system up in the registry instead"


def test_rule_systems_do_not_import_each_other() -> None:
    edges = graph()
    for system in SYSTEMS:
        for module in (m for m in edges if m.startswith(f"bot.rules.{system}.")):
            for other in SYSTEMS:
                if other == system:
                    continue
                bad = sorted(t for t in edges[module] if t.startswith(f"bot.rules.{other}"))
                # every system may use the renove resolver for plain d100 tests the seeds share
                if other == "renove":
                    bad = [t for t in bad if t != "bot.rules.renove.checks" and t != "bot.rules.renove"]
                assert not bad, f"{module} imports {bad} of another system"
