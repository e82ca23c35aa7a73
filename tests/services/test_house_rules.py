"""House rules: upload parsing, merge by entry key, validation, storage, the table in force, rights."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.db.house_rules_models import HouseRuleTable
from bot.services import house_rules as svc
from bot.services.caller import Caller

GUILD = 900


@cache
def tables() -> dict[str, Table]:
    return load_all()


def caller(user_id: int, **kwargs: Any) -> Caller:
    base: dict[str, Any] = {"guild_id": GUILD, "channel_id": 10, "locale": "fr"}
    base.update(kwargs)
    return Caller(user_id=user_id, **base)


PLAYER = caller(1)
PLAYER_EN = caller(1, locale="en-US")
GM = caller(3, role_names=frozenset({"MJ"}))
ADMIN = caller(2, manage_guild=True)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return tables()


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


def weapon(weapon_id: str) -> dict[str, Any]:
    entry = next(e for e in tables()["weapons_melee"].entries if e["id"] == weapon_id)
    return copy.deepcopy(entry)


def upload(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


async def do_import(ctx: AppContext, who: Caller, data: bytes) -> Any:
    async def read() -> bytes:
        return data

    return await svc.import_house_rules(ctx, who, filename="x.json", size=len(data), read=read)


async def rows(ctx: AppContext) -> int:
    async with ctx.sessions.begin() as session:
        return int(await session.scalar(select(func.count()).select_from(HouseRuleTable)) or 0)


# -- pure parts ----------------------------------------------------------------------------------


def test_entry_keys() -> None:
    assert svc.entry_key("criticals", {"zone": "jambes", "value": 5}) == "jambes 5"
    assert svc.entry_key("weapons", {"id": "epee"}) == "epee"
    assert svc.entry_key("critical_matrix", {"label": "01-10"}) == "01-10"
    assert svc.entry_key("weapons", {"name": "no id"}) is None


def test_every_table_has_unique_entry_keys() -> None:
    for name, table in tables().items():
        keys = [svc.entry_key(table.schema, e) for e in table.entries]
        assert None not in keys, name
        assert len(set(keys)) == len(keys), name


def test_bad_json_reports_line_and_column() -> None:
    with pytest.raises(svc.HouseRuleError) as err:
        svc.parse_upload(b'{\n  "table": "weapons_melee",\n  "entries": [,]\n}')
    assert err.value.key == "rules.import.bad_json"
    assert err.value.params["line"] == 3 and err.value.params["column"] == 15


def test_size_limit_and_non_objects() -> None:
    with pytest.raises(svc.HouseRuleError) as err:
        svc.parse_upload(b" " * (svc.MAX_UPLOAD_BYTES + 1))
    assert err.value.key == "rules.import.too_big"
    with pytest.raises(svc.HouseRuleError) as err:
        svc.parse_upload(b"[1, 2]")
    assert err.value.key == "rules.import.not_object"
    with pytest.raises(svc.HouseRuleError) as err:
        svc.parse_upload(b"\xff\xfe{}")
    assert err.value.key == "rules.import.not_utf8"


@pytest.mark.parametrize(
    ("document", "key", "sample"),
    [
        (b"[" * 990 + b"]" * 990, "rules.import.limit.depth", ""),
        (b'{"table": "x", "n": ' + b"9" * 5000 + b"}", "rules.import.limit.number", "999999999999…"),
        (b'{"table": "x", "n": -1.5e' + b"9" * 40 + b"}", "rules.import.limit.number", "-1.5e9999999…"),
        (b'{"table": "x", "n": NaN}', "rules.import.limit.constant", "NaN"),
    ],
)
def test_hostile_json_is_refused_with_what_was_wrong(document: bytes, key: str, sample: str) -> None:
    """A 990-level document crashed with RecursionError, a 5 000-digit integer with ValueError (#23)."""
    with pytest.raises(svc.HouseRuleError) as err:
        svc.parse_upload(document)
    assert err.value.key == key
    assert err.value.params.get("sample", "") == sample


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    deep_text = '{"table": "weapons_melee", "note": "' + "[" * 200 + '", "entries": []}'
    assert svc.parse_upload(deep_text.encode())["note"] == "[" * 200


def test_merge_replaces_by_key_and_appends_new_entries() -> None:
    sword = weapon("epee")
    sword["damage"] = {"base": "BF", "modifier": 1}
    new = weapon("epee") | {"id": "epee_runique", "name": "Épée runique", "name_en": "Rune sword"}
    base, merged = svc.check_override(tables(), {"table": "weapons_melee", "entries": [sword, new]})
    assert (merged.replaced, merged.added) == (1, 1)
    entries = merged.document["entries"]
    assert len(entries) == len(base.entries) + 1
    assert next(e for e in entries if e["id"] == "epee")["damage"]["modifier"] == 1
    assert entries[-1]["id"] == "epee_runique"
    # the base table is untouched
    assert weapon("epee")["damage"] == {"base": "BF", "modifier": 0}


def test_critical_entries_merge_by_zone_and_value() -> None:
    entry = copy.deepcopy(tables()["criticals_tranchantes"].entries[4])
    entry["narration"] = {"fr": "Maison.", "en": "House."}
    _, merged = svc.check_override(tables(), {"table": "criticals_tranchantes", "entries": [entry]})
    assert merged.replaced == 1 and merged.added == 0
    assert merged.document["entries"][4]["narration"]["fr"] == "Maison."


def test_validation_problems_point_into_the_uploaded_file() -> None:
    good = weapon("epee")
    bad = weapon("dague")
    bad["damage"] = "lots"
    bad["two_handed"] = "yes"
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"table": "weapons_melee", "entries": [good, bad]})
    problems = err.value.problems
    assert problems and all(p.startswith("entries/1/") for p in problems), problems
    assert any("two_handed" in p for p in problems)


def _entry(table: str, entry_id: str, key: str = "id") -> dict[str, Any]:
    return dict(next(e for e in tables()[table].entries if e[key] == entry_id))


def test_a_banded_table_with_a_gap_or_an_overlap_is_refused_at_upload() -> None:
    """``parry_side_effects`` with 31-60 in no band was accepted, then the next parry crashed with
    StopIteration (#23): every banded table must cover its domain once."""
    narrow = {**_entry("parry_side_effects", "tout_va_bien"), "max": 30}
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"table": "parry_side_effects", "entries": [narrow]})
    assert err.value.key == "rules.import.invalid"
    assert "entries: nothing covers 31-60 (between …-30 and 61-70)" in err.value.problems
    wide = {**_entry("v1_hit_location", "head"), "max": 40}  # 01-15 becomes 01-40 over the right arm
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"table": "v1_hit_location", "entries": [wide]})
    assert any("overlap" in p for p in err.value.problems), err.value.problems
    short = {**_entry("critical_matrix", 91, key="d100_min"), "d100_max": 99}
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"table": "critical_matrix", "entries": [short]})
    assert "entries: nothing covers 100-100" in err.value.problems
    # a band moved consistently is fine: 01-50 and 51-70 instead of 01-60 and 61-70
    moved = [
        {**_entry("parry_side_effects", "tout_va_bien"), "max": 50},
        {**_entry("parry_side_effects", "recul_1m"), "min": 51},
    ]
    svc.check_override(tables(), {"table": "parry_side_effects", "entries": moved})


def test_structural_problems() -> None:
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"entries": []})
    assert err.value.key == "rules.import.no_table"
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(tables(), {"table": "nope", "entries": []})
    assert err.value.key == "rules.import.unknown_table"
    with pytest.raises(svc.HouseRuleError) as err:
        svc.check_override(
            tables(),
            {
                "table": "weapons_melee",
                "schema": "armour",
                "entries": [weapon("epee"), weapon("epee"), {"x": 1}, 3],
            },
        )
    text = "\n".join(err.value.problems)
    assert "schema:" in text and "duplicate key 'epee'" in text and "entries/2: no key" in text
    assert "entries/3: must be an object" in text


# -- use cases --------------------------------------------------------------------------------------


async def test_players_cannot_import_and_nothing_is_stored(ctx: AppContext) -> None:
    reply = await do_import(ctx, PLAYER, upload({"table": "weapons_melee", "entries": [weapon("epee")]}))
    assert reply.is_error and reply.ephemeral and "MJ" in (reply.description or "")
    english = await do_import(ctx, PLAYER_EN, upload({"table": "weapons_melee", "entries": []}))
    assert "Only the GM" in (english.description or "")
    assert await rows(ctx) == 0


async def test_a_bad_file_lists_problems_and_stores_nothing(ctx: AppContext) -> None:
    entries = []
    for weapon_id in ("epee", "dague", "hache_pic"):
        entry = weapon(weapon_id)
        for field in ("damage", "kind", "two_handed", "attributes", "price", "critical_kind"):
            entry[field] = 12345
        entries.append(entry)
    reply = await do_import(ctx, GM, upload({"table": "weapons_melee", "entries": entries}))
    assert reply.is_error and reply.ephemeral and reply.result is not None
    assert reply.result["stored"] is False
    assert len(reply.result["problems"]) > svc.MAX_PROBLEMS_SHOWN
    assert "autres problèmes" in (reply.description or "")
    assert "entries/0/" in (reply.description or "")
    assert await rows(ctx) == 0


async def test_good_file_then_table_in_force_export_and_reset(ctx: AppContext) -> None:
    sword = weapon("epee")
    sword["damage"] = {"base": "BF", "modifier": 2}
    reply = await do_import(ctx, GM, upload({"table": "weapons_melee", "entries": [sword]}))
    assert not reply.is_error, reply.description
    assert reply.result == {
        "table": "weapons_melee",
        "stored": True,
        "replaced": 1,
        "added": 0,
        "filename": "x.json",
    }
    async with ctx.sessions.begin() as session:
        doc = await svc.table_in_force(session, ctx, GUILD, "weapons_melee")
        again = await svc.table_in_force(session, ctx, GUILD, "weapons_melee")
        other = await svc.table_in_force(session, ctx, GUILD + 1, "weapons_melee")
    assert again is doc  # cached
    assert next(e for e in doc["entries"] if e["id"] == "epee")["damage"]["modifier"] == 2
    assert other is ctx.tables["weapons_melee"].document
    export = await svc.export_table(ctx, PLAYER, name="weapons_melee")
    assert export.data is not None and export.filename == "weapons_melee.json"
    exported = json.loads(export.data)
    assert next(e for e in exported["entries"] if e["id"] == "epee")["damage"]["modifier"] == 2
    # the exported (full) document is itself a valid upload
    assert not (await do_import(ctx, ADMIN, export.data)).is_error
    # a second import replaces the first one (version bumped, cache invalidated)
    sword["damage"] = {"base": "BF", "modifier": 3}
    assert not (await do_import(ctx, GM, upload({"table": "weapons_melee", "entries": [sword]}))).is_error
    async with ctx.sessions.begin() as session:
        doc = await svc.table_in_force(session, ctx, GUILD, "weapons_melee")
    assert next(e for e in doc["entries"] if e["id"] == "epee")["damage"]["modifier"] == 3
    assert await rows(ctx) == 1
    # reset: players refused, GM asked to confirm, then the base applies again
    assert (await svc.reset_prompt(ctx, PLAYER, name="weapons_melee")).is_error
    prompt = await svc.reset_prompt(ctx, GM, name="weapons_melee")
    assert prompt.buttons and prompt.buttons[0][0].custom_id == svc.RESET_CUSTOM_ID_PREFIX + "weapons_melee"
    assert (await svc.reset_house_rules(ctx, PLAYER, name="weapons_melee")).is_error
    assert not (await svc.reset_house_rules(ctx, GM, name="weapons_melee")).is_error
    async with ctx.sessions.begin() as session:
        doc = await svc.table_in_force(session, ctx, GUILD, "weapons_melee")
    assert doc is ctx.tables["weapons_melee"].document
    assert (await svc.reset_house_rules(ctx, GM, name="weapons_melee")).is_error  # nothing left
    assert await rows(ctx) == 0


async def test_direct_messages_have_no_house_rules(ctx: AppContext) -> None:
    in_dm = caller(3, guild_id=None, role_names=frozenset({"MJ"}))
    reply = await do_import(ctx, in_dm, upload({"table": "weapons_melee", "entries": []}))
    assert reply.is_error
    async with ctx.sessions.begin() as session:
        doc = await svc.table_in_force(session, ctx, None, "weapons_melee")
    assert doc is ctx.tables["weapons_melee"].document
