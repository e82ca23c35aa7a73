"""Character rows ↔ ``CharacterSheet``; every query filters by ``guild_id``.

Writes go through ORM rows so the ``version`` column (``version_id_col``) guards them: an
update whose version changed under it raises ``sqlalchemy.orm.exc.StaleDataError`` at flush.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, case, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import ActiveCharacter, Character, RollLog
from bot.rules.names import Name
from bot.rules.sheets import Profile, SheetData, fold
from bot.rules.wounds import WoundSheet, empty_record

MAX_CHARACTERS_PER_USER = 25
MAX_NPCS_PER_SERVER = 500


@dataclass(frozen=True, slots=True)
class CharacterSheet:
    """A read-only snapshot of a character, for any service (``/test carac:CC`` …)."""

    id: int
    guild_id: int
    owner_id: int
    name: str
    ruleset: str
    characteristics: dict[str, int]
    skills: dict[str, int]
    talents: list[str]
    equipment: dict[str, list[str]]
    conditions: list[str]
    is_npc: bool
    version: int
    skill_innate: dict[str, int] = field(default_factory=dict)
    notes: str = ""
    profile: dict[str, Any] = field(default_factory=lambda: Profile().to_dict())
    wounds: dict[str, Any] = field(default_factory=empty_record)

    @property
    def race(self) -> str:
        return Profile.from_dict(self.profile).race

    @property
    def wound_sheet(self) -> WoundSheet:
        return WoundSheet.from_dict(self.wounds)

    def data(self) -> SheetData:
        return SheetData(
            name=self.name,
            ruleset=self.ruleset,
            characteristics=dict(self.characteristics),
            skills=dict(self.skills),
            skill_innate=dict(self.skill_innate),
            talents=list(self.talents),
            weapons=list(self.equipment.get("weapons", [])),
            armour=list(self.equipment.get("armour", [])),
            off_hand=next(iter(self.equipment.get("off_hand") or ()), None),
            conditions=list(self.conditions),
            notes=self.notes,
            is_npc=self.is_npc,
            profile=dict(self.profile),
            wounds=dict(self.wounds),
        )


def _int_dict(value: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in (value or {}).items()}


def to_sheet(row: Character) -> CharacterSheet:
    equipment = row.equipment or {}
    profile = Profile.from_dict(row.profile)
    return CharacterSheet(
        id=row.id,
        guild_id=row.guild_id,
        owner_id=row.owner_id,
        name=Name(row.name, profile.gender),  # a str that carries the gender the replies agree with
        ruleset=row.ruleset,
        characteristics=_int_dict(row.characteristics),
        skills=_int_dict(row.skills),
        talents=list(row.talents or []),
        equipment={
            "weapons": list(equipment.get("weapons", [])),
            "armour": list(equipment.get("armour", [])),
            **({"off_hand": list(equipment["off_hand"])} if equipment.get("off_hand") else {}),
        },
        conditions=list(row.conditions or []),
        is_npc=row.is_npc,
        version=row.version,
        skill_innate=_int_dict(row.skill_innate),
        notes=row.notes or "",
        profile=profile.to_dict(),
        wounds=WoundSheet.from_dict(row.wounds).to_dict(),
    )


def equipment_of(data: SheetData) -> dict[str, list[str]]:
    """The stored equipment: weapons, armour and, when the player said it, the off hand's weapon."""
    out = {"weapons": list(data.weapons), "armour": list(data.armour)}
    if data.off_hand and data.off_hand in data.weapons:
        out["off_hand"] = [data.off_hand]
    return out


def name_key(name: str) -> str:
    return fold(name)[:64]


def new_row(guild_id: int, owner_id: int, data: SheetData) -> Character:
    return Character(
        guild_id=guild_id,
        owner_id=owner_id,
        name=data.name,
        name_key=name_key(data.name),
        ruleset=data.ruleset,
        characteristics=dict(data.characteristics),
        skills=dict(data.skills),
        skill_innate=dict(data.skill_innate),
        talents=list(data.talents),
        equipment=equipment_of(data),
        conditions=list(data.conditions),
        notes=data.notes,
        is_npc=data.is_npc,
        profile=dict(data.profile),
        wounds=dict(data.wounds),
    )


def write_data(row: Character, data: SheetData) -> None:
    """Replace a row's content (JSON columns get new objects so SQLAlchemy sees the change)."""
    row.name = data.name
    row.name_key = name_key(data.name)
    row.ruleset = data.ruleset
    row.characteristics = dict(data.characteristics)
    row.skills = dict(data.skills)
    row.skill_innate = dict(data.skill_innate)
    row.talents = list(data.talents)
    row.equipment = equipment_of(data)
    row.conditions = list(data.conditions)
    row.notes = data.notes
    row.profile = dict(data.profile)
    row.wounds = dict(data.wounds)


async def get_row(session: AsyncSession, guild_id: int, character_id: int) -> Character | None:
    return (
        await session.scalars(
            select(Character).where(Character.guild_id == guild_id, Character.id == character_id)
        )
    ).one_or_none()


async def find_row(session: AsyncSession, guild_id: int, name: str) -> Character | None:
    return (
        await session.scalars(
            select(Character).where(Character.guild_id == guild_id, Character.name_key == name_key(name))
        )
    ).one_or_none()


async def name_taken(
    session: AsyncSession, guild_id: int, name: str, *, except_id: int | None = None
) -> bool:
    query = select(Character.id).where(Character.guild_id == guild_id, Character.name_key == name_key(name))
    if except_id is not None:
        query = query.where(Character.id != except_id)
    return (await session.scalar(query)) is not None


async def count_owned(session: AsyncSession, guild_id: int, owner_id: int, *, npc: bool) -> int:
    query = (
        select(func.count())
        .select_from(Character)
        .where(Character.guild_id == guild_id, Character.is_npc == npc)
    )
    if not npc:
        query = query.where(Character.owner_id == owner_id)
    return int(await session.scalar(query) or 0)


async def list_visible(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    *,
    gm: bool,
    search: str = "",
    limit: int = 25,
) -> list[Character]:
    """Characters ``user_id`` may see: their own, and every one for the GM (own first, then NPCs)."""
    query = select(Character).where(Character.guild_id == guild_id)
    if not gm:
        query = query.where(Character.owner_id == user_id)
    wanted = fold(search)
    if wanted:
        escaped = wanted.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(Character.name_key.like(f"%{escaped}%", escape="\\"))
    own_first = case((Character.owner_id == user_id, 0), (Character.is_npc.is_(True), 1), else_=2)
    if wanted:
        starts = case((Character.name_key.like(f"{escaped}%", escape="\\"), 0), else_=1)
        query = query.order_by(starts, own_first, Character.name_key)
    else:
        query = query.order_by(own_first, Character.name_key)
    return list((await session.scalars(query.limit(limit))).all())


async def renove_rows(session: AsyncSession, guild_id: int) -> list[Character]:
    """The server's `renove` player characters (a new session refills their Fortune)."""
    query = select(Character).where(
        Character.guild_id == guild_id, Character.ruleset == "renove", Character.is_npc.is_(False)
    )
    return list((await session.scalars(query.order_by(Character.name_key).limit(200))).all())


async def active_row(session: AsyncSession, guild_id: int, user_id: int) -> Character | None:
    return (
        await session.scalars(
            select(Character)
            .join(ActiveCharacter, ActiveCharacter.character_id == Character.id)
            .where(
                ActiveCharacter.guild_id == guild_id,
                ActiveCharacter.user_id == user_id,
                Character.guild_id == guild_id,
            )
        )
    ).one_or_none()


async def set_active(session: AsyncSession, guild_id: int, user_id: int, character_id: int) -> None:
    row = await session.get(ActiveCharacter, (guild_id, user_id))
    if row is None:
        session.add(ActiveCharacter(guild_id=guild_id, user_id=user_id, character_id=character_id))
    else:
        row.character_id = character_id
    await session.flush()


async def delete_row(session: AsyncSession, row: Character) -> None:
    """Delete a character (version-checked) and whoever had it active."""
    await session.execute(
        delete(ActiveCharacter).where(
            ActiveCharacter.guild_id == row.guild_id, ActiveCharacter.character_id == row.id
        )
    )
    await session.delete(row)
    await session.flush()


async def recent_rolls(
    session: AsyncSession,
    guild_id: int,
    *,
    character_id: int | None = None,
    channel_id: int | None = None,
    secrets: bool = True,
    limit: int = 10,
    offset: int = 0,
) -> list[RollLog]:
    """Newest first; without ``secrets`` (a player's history), no secret roll at all — not even
    the viewer's own: a secret result is the GM's alone."""
    query = recent_rolls_query(
        guild_id,
        character_id=character_id,
        channel_id=channel_id,
        secrets=secrets,
        limit=limit,
        offset=offset,
    )
    return list((await session.scalars(query)).all())


def recent_rolls_query(
    guild_id: int,
    *,
    character_id: int | None = None,
    channel_id: int | None = None,
    secrets: bool = True,
    limit: int = 10,
    offset: int = 0,
) -> Select[RollLog]:
    """The query of :func:`recent_rolls` (an index serves it: ``ix_roll_log_guild_character_created`` for
    a character, ``ix_roll_log_guild_channel_created`` for a channel)."""
    query = select(RollLog).where(RollLog.guild_id == guild_id)
    if not secrets:
        query = query.where(RollLog.secret.is_(False))
    if character_id is not None:
        query = query.where(RollLog.character_id == character_id)
    if channel_id is not None:
        query = query.where(RollLog.channel_id == channel_id)
    return query.order_by(RollLog.created_at.desc(), RollLog.id.desc()).limit(limit).offset(offset)


# -- the small API other services use --------------------------------------------------------


async def get_active_character(session: AsyncSession, guild_id: int, user_id: int) -> CharacterSheet | None:
    row = await active_row(session, guild_id, user_id)
    return to_sheet(row) if row is not None else None


async def find_character(session: AsyncSession, guild_id: int, name: str) -> CharacterSheet | None:
    row = await find_row(session, guild_id, name)
    return to_sheet(row) if row is not None else None
