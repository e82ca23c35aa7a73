"""Revisions 0008, 0009 and 0010 on real SQLite and PostgreSQL: `renove` Fortune moves out of PF,
BF/BE/BA get +3, skills become masteries on their characteristic, sheets get a wound record."""

from __future__ import annotations

import json

from sqlalchemy import text

from bot.db.session import create_engine, downgrade, upgrade

OLD = {"CC": 45, "CT": 30, "F": 35, "E": 41, "Ag": 33, "Int": 29, "FM": 31, "Soc": 28, "A": 1, "M": 4,
       "Mag": 0, "BF": 3, "BE": 4, "BA": 3, "PF": 2, "PD": 1}  # fmt: skip
SKILLS = {"Esquive": 43, "Perception": 29, "Fouille": 10, "Charme": 50, "Escalade": 30}
INSERT = text(
    "INSERT INTO characters (guild_id, owner_id, name, name_key, ruleset, characteristics, skills,"
    " skill_innate, talents, equipment, conditions, notes, is_npc, created_at, updated_at, version)"
    " VALUES (1, 2, :name, :key, :ruleset, :stats, :skills, '{}', '[]', '{}', '[]', '', :npc,"
    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1)"
)


def _loads(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else json.loads(str(value))


async def test_renove_sheets_are_converted_and_others_get_a_profile(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine, "0007")
        async with engine.begin() as conn:
            await conn.execute(INSERT, {"name": "Gunther", "key": "gunther", "ruleset": "renove",
                                        "stats": json.dumps(OLD), "skills": json.dumps(SKILLS),
                                        "npc": False})  # fmt: skip
            await conn.execute(INSERT, {"name": "Baron", "key": "baron", "ruleset": "renove",
                                        "stats": json.dumps({**OLD, "F": 40}), "skills": "{}",
                                        "npc": True})  # fmt: skip
            await conn.execute(INSERT, {"name": "Ogl", "key": "ogl", "ruleset": "ogl",
                                        "stats": json.dumps({"STR": 12}),
                                        "skills": json.dumps({"Grimper": 45}), "npc": False})  # fmt: skip
        await upgrade(engine)
        async with engine.connect() as conn:
            rows = {
                name: (_loads(stats), _loads(profile), _loads(skills), notes)
                for name, stats, profile, skills, notes in (
                    await conn.execute(
                        text("SELECT name, characteristics, profile, skills, notes FROM characters")
                    )
                ).all()
            }
        gunther, profile, skills, notes = rows["Gunther"]
        # Ag 33: Esquive 43 → +10; Int 29: Perception 29 → +0; Fouille 10 was typed as a mastery;
        # an unknown skill and a value under its characteristic go to the notes for the GM.
        assert skills == {"Esquive": 10, "Perception": 0, "Fouille": 10}
        assert "Charme 50" in notes and "Escalade 30" in notes
        assert (gunther["Fortune"], gunther["PF"], gunther["PD"]) == (2, 0, 1)
        assert (gunther["BF"], gunther["BE"], gunther["BA"]) == (6, 7, 6)
        assert profile["race"] == "humain"
        assert rows["Baron"][0]["BF"] == 7  # a human NPC with F 40 (the example)
        assert rows["Ogl"][0] == {"STR": 12} and rows["Ogl"][1]["race"] == "humain"
        assert rows["Ogl"][2] == {"Grimper": 45}  # other systems keep their percentages
        await downgrade(engine, "0007")
        async with engine.connect() as conn:
            stats = (
                await conn.execute(text("SELECT characteristics FROM characters WHERE name = 'Gunther'"))
            ).one()
        back = _loads(stats[0])
        assert (back["PF"], back["BF"], back["BE"]) == (2, 3, 4)
    finally:
        await engine.dispose()


async def test_sheets_get_an_empty_wound_record_and_lose_it_on_downgrade(database_url: str) -> None:
    """Revision 0010: every sheet starts with no wound and alive; the downgrade drops the column."""
    engine = create_engine(database_url)
    try:
        await upgrade(engine, "0009")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO characters (guild_id, owner_id, name, name_key, ruleset, characteristics,"
                    " skills, skill_innate, talents, equipment, conditions, notes, is_npc, profile,"
                    " created_at, updated_at, version) VALUES (1, 2, 'Grimli', 'grimli', 'renove', :stats,"
                    " '{}', '{}', '[]', '{}', '[]', '', :npc, '{}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1)"
                ),
                {"stats": json.dumps(OLD), "npc": False},
            )
        await upgrade(engine)
        async with engine.connect() as conn:
            (wounds,) = (await conn.execute(text("SELECT wounds FROM characters"))).one()
        assert _loads(wounds) == {"wounds": [], "dead": None}
        await downgrade(engine, "0009")
        async with engine.connect() as conn:
            (name,) = (await conn.execute(text("SELECT name FROM characters"))).one()
        assert name == "Grimli"
        await upgrade(engine)
    finally:
        await engine.dispose()
