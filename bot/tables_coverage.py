"""Coverage of the data tables: entries present against entries expected, one line per table.

``python -m bot.tables_coverage [--data-dir data]`` prints ``name  present/expected  status``
and exits 1 if any table is short (2 if the data does not load). Expected counts are declared
once, in :data:`EXPECTED`: an ``int`` counts entries, a ``(rows, columns)`` pair counts the
cells of a grid (``values`` of each row). Tables with no known expected count print ``n/a``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.data_loading import DATA_DIR, DataError, Table, load_all

# Where a count comes from: the book's printed tables (see each table's notes).
EXPECTED: Mapping[str, int | tuple[int, int]] = {
    "criticals_tranchantes": 60,  # 4 zones × 15 values
    "criticals_contondantes": 60,
    "criticals_projectiles": 60,
    "criticals_pugilat": 60,
    "critical_matrix": (10, 10),  # 10 d100 bands × 10 damage columns
    "weapons_melee": 30,  # "30 noms Hache/Pic … Brise-lame"
    "hit_location": 4,  # jambes, bras, corps, tête
    "mort_subite": 3,
    "postures": 5,
    "secret_tests": 15,  # "Total : 15 lignes"
    "v1_standard_tests": 35,  # "35 lignes, dans l'ordre imprimé"
    "d20_artillery_scatter": 20,  # "20 rows transcribed"
    "skills": 48,  # WFRP 2e rulebook: 20 basic + 28 advanced skills
}


def present(table: Table, expected: int | tuple[int, int]) -> int:
    if isinstance(expected, tuple):
        return sum(
            len(row["values"]) if isinstance(row, dict) and isinstance(row.get("values"), list) else 0
            for row in table.entries
        )
    return len(table.entries)


def _total(expected: int | tuple[int, int]) -> int:
    return expected[0] * expected[1] if isinstance(expected, tuple) else expected


def coverage_lines(
    tables: Mapping[str, Table], expected: Mapping[str, int | tuple[int, int]] = EXPECTED
) -> tuple[list[str], list[str]]:
    """(one line per table, the names of the short or missing tables)."""
    width = max((len(name) for name in [*tables, *expected]), default=10)
    lines: list[str] = []
    short: list[str] = []
    for name in sorted(set(tables) | set(expected)):
        want = expected.get(name)
        table = tables.get(name)
        if table is None:
            assert want is not None
            lines.append(f"{name:<{width}}  0/{_total(want)}  MISSING")
            short.append(name)
            continue
        if want is None:
            has_entries = isinstance(table.document.get("entries"), list)
            count = str(len(table.entries)) if has_entries else "-"
            lines.append(f"{name:<{width}}  {count}  n/a")
            continue
        have, total = present(table, want), _total(want)
        status = "ok" if have >= total else f"SHORT by {total - have}"
        if have < total:
            short.append(name)
        lines.append(f"{name:<{width}}  {have}/{total}  {status}")
    return lines, short


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.tables_coverage", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    try:
        tables = load_all(args.data_dir)
    except DataError as exc:
        print(f"the data does not load: {exc}", file=sys.stderr)
        return 2
    # the shipped data only: an upload-only table (an empty base, no file) is a server's to fill
    tables = {name: t for name, t in tables.items() if (args.data_dir / f"{name}.json").is_file()}
    lines, short = coverage_lines(tables, EXPECTED)
    print("\n".join(lines))
    if short:
        print(f"{len(short)} table(s) short: {', '.join(short)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
