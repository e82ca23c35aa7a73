"""Read every table in ``data/``, validate it against its JSON Schema and fail fast.

Each ``data/*.json`` file names its schema in its ``schema`` field; schemas live in
``data/schemas/<name>.schema.json`` and may reference ``common.schema.json``.

A schema with an ``x-upload-only`` object describes a table the seeds name but do not print
(``d20_damage_by_location``): it has no data file, and :func:`load_all` gives it an empty base
(that object's ``ruleset``/``title``/``source``/``notes``, no entries) so a server can upload its own
with ``/regles importer``, validated against the schema like any other table.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
SCHEMA_DIR = DATA_DIR / "schemas"


class DataError(Exception):
    """A data file is missing, unreadable or does not match its schema."""

    def __init__(self, path: str, problems: list[str]) -> None:
        super().__init__(f"{path}: " + "; ".join(problems))
        self.path = path
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    schema: str
    document: Mapping[str, Any]

    @property
    def entries(self) -> list[Any]:
        entries = self.document.get("entries", [])
        return list(entries) if isinstance(entries, list) else []


SCHEMA_BASE_URI = "https://melee.invalid/schemas/"


@cache
def _schemas(schema_dir: Path) -> dict[str, Any]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(schema_dir.glob("*.schema.json"))
    }


@cache
def _validator(schema_dir: Path, schema_name: str) -> jsonschema_rs.Draft202012Validator:
    schemas = _schemas(schema_dir)
    file_name = f"{schema_name}.schema.json"
    if file_name not in schemas:
        raise DataError(str(schema_dir / file_name), [f"unknown schema {schema_name!r}"])

    def retrieve(uri: str) -> Any:
        # Schemas reference each other by file name (common.schema.json#/$defs/...); nothing is fetched.
        name = uri.rsplit("/", 1)[-1]
        if name not in schemas:
            raise ValueError(f"unknown schema reference {uri}")
        return schemas[name]

    return jsonschema_rs.Draft202012Validator(
        schemas[file_name], retriever=retrieve, base_uri=SCHEMA_BASE_URI + file_name
    )


def release_validators() -> None:
    """Drop the compiled validators and parsed schemas (about 5 MiB of native memory once all are
    built): the bot validates every table at start-up, then only the odd upload, which rebuilds
    the one validator it needs."""
    _validator.cache_clear()
    _schemas.cache_clear()


def _format_error(error: Any) -> str:
    where = "/".join(str(p) for p in error.instance_path) or "(root)"
    return f"{where}: {_without_instance(str(error.message), error.instance)}"


def _without_instance(message: str, instance: Any) -> str:
    """« [{…whole table…}] has less than 7 items » → « the list of 2 entries has less than 7 items »:
    the validator quotes the whole value, a user needs what is wrong with it (and in no language)."""
    if message[:1] not in "[{":
        return message
    depth, quoted, escaped = 0, False, False
    for index, char in enumerate(message):
        if quoted:
            escaped, quoted = (False, quoted) if escaped else (char == "\\", char != '"')
            continue
        if char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                rest = message[index + 1 :]
                if isinstance(instance, list):
                    return f"the list of {len(instance)} entries{rest}"
                return f"the object{rest}"
    return message[:120] + "…"


def validate_document(document: Any, *, schema_dir: Path = SCHEMA_DIR, origin: str = "<document>") -> str:
    """Validate one table document; return its schema name or raise DataError with every problem."""
    if not isinstance(document, dict):
        raise DataError(origin, ["the document must be a JSON object"])
    schema_name = document.get("schema")
    if not isinstance(schema_name, str):
        raise DataError(origin, ["missing 'schema' field naming data/schemas/<schema>.schema.json"])
    validator = _validator(schema_dir, schema_name)
    errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.instance_path])
    if errors:
        raise DataError(origin, [_format_error(e) for e in errors[:50]])
    bands = _schemas(schema_dir).get(f"{schema_name}.schema.json", {}).get(BANDS_KEY)
    if isinstance(bands, dict):
        gaps = band_problems(document.get("entries", []), bands)
        if gaps:
            raise DataError(origin, gaps[:50])
    return schema_name


BANDS_KEY = "x-bands"


def band_problems(entries: Any, spec: Mapping[str, Any]) -> list[str]:
    """A banded table (``x-bands`` in its schema: the ``min`` and ``max`` field names, and the domain
    ``from``..``to`` the bands must cover, ``null`` for an open end) covers its domain without a gap
    or an overlap: a lookup then always finds exactly one band (a gap crashed fights, issue 23)."""
    low_key, high_key = str(spec["min"]), str(spec["max"])
    start, end = spec.get("from"), spec.get("to")
    rows = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    if not rows:
        return []

    def bound(row: Mapping[str, Any], key: str) -> int | None:
        value = row.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def label(row: Mapping[str, Any]) -> str:
        low, high = bound(row, low_key), bound(row, high_key)
        return f"{'…' if low is None else low}-{'…' if high is None else high}"

    problems: list[str] = []

    def start_of(row: Mapping[str, Any]) -> int:
        low = bound(row, low_key)
        return -(10**12) if low is None else low

    ordered = sorted(rows, key=start_of)
    first, last = ordered[0], ordered[-1]
    first_low, last_high = bound(first, low_key), bound(last, high_key)
    if first_low is not None and (start is None or first_low > start):
        problems.append(f"entries: nothing covers {'…' if start is None else start}-{first_low - 1}")
    if last_high is not None and (end is None or last_high < end):
        problems.append(f"entries: nothing covers {last_high + 1}-{'…' if end is None else end}")
    for before, after in itertools.pairwise(ordered):
        high, low = bound(before, high_key), bound(after, low_key)
        if high is None or low is None or low <= high:
            problems.append(f"entries: the bands {label(before)} and {label(after)} overlap")
        elif low > high + 1:
            problems.append(
                f"entries: nothing covers {high + 1}-{low - 1} (between {label(before)} and {label(after)})"
            )
    for row in rows:
        low, high = bound(row, low_key), bound(row, high_key)
        if low is not None and high is not None and low > high:
            problems.append(f"entries: the band {label(row)} ends before it starts")
    return problems


def validate_file(path: Path, *, schema_dir: Path = SCHEMA_DIR) -> Table:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(str(path), [str(exc)]) from exc
    schema_name = validate_document(document, schema_dir=schema_dir, origin=str(path))
    if document.get("table") != path.stem:
        raise DataError(str(path), [f"'table' must equal the file name {path.stem!r}"])
    return Table(name=path.stem, schema=schema_name, document=document)


def iter_data_files(data_dir: Path = DATA_DIR) -> Iterator[Path]:
    yield from sorted(data_dir.glob("*.json"))


UPLOAD_ONLY_KEY = "x-upload-only"


def upload_only_tables(schema_dir: Path = SCHEMA_DIR) -> dict[str, Table]:
    """The empty bases of the tables that only exist as a server's upload (see the module doc)."""
    out: dict[str, Table] = {}
    for file_name, schema in _schemas(schema_dir).items():
        base = schema.get(UPLOAD_ONLY_KEY) if isinstance(schema, dict) else None
        if not isinstance(base, dict):
            continue
        name = file_name.removesuffix(".schema.json")
        document = {"schema": name, "table": name, **base, "entries": []}
        out[name] = Table(name=name, schema=name, document=document)
    return out


def load_all(data_dir: Path = DATA_DIR) -> dict[str, Table]:
    """Load and validate every table (and the upload-only bases); raise DataError listing every bad file."""
    tables: dict[str, Table] = {}
    problems: list[str] = []
    for path in iter_data_files(data_dir):
        try:
            table = validate_file(path, schema_dir=data_dir / "schemas")
        except DataError as exc:
            problems.append(str(exc))
            continue
        tables[table.name] = table
    if problems:
        raise DataError(str(data_dir), problems)
    for name, table in upload_only_tables(data_dir / "schemas").items():
        tables.setdefault(name, table)
    return tables
