"""ORM rows only: the core rows here, the others in the ``*_models`` modules, imported at the end so
that ``Base.metadata`` is whole once this module is. Every schema change goes through an Alembic
revision in ``migrations/``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow


class GuildSettings(Base):
    """A server's settings: ruleset in force, GM role and channel, preferred locale."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    ruleset: Mapped[str] = mapped_column(String(16), default="renove")
    gm_role_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    gm_channel_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    # The GM whose DMs receive secret results when no GM channel is set.
    gm_user_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    locale: Mapped[str | None] = mapped_column(String(16), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API


class ChannelSettings(Base):
    """A channel or thread that overrides the server's ruleset."""

    __tablename__ = "channel_settings"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("guild_settings.guild_id", ondelete="CASCADE"), index=True
    )
    ruleset: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class RollLog(Base):
    """Who rolled what, when, where, and the full structured result."""

    __tablename__ = "roll_log"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    user_id: Mapped[int] = mapped_column(BigInteger)
    character_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    kind: Mapped[str] = mapped_column(String(32))
    ruleset: Mapped[str | None] = mapped_column(String(16), default=None)
    expression: Mapped[str] = mapped_column(Text)
    label: Mapped[str | None] = mapped_column(String(100), default=None)
    total: Mapped[int | None] = mapped_column(BigInteger, default=None)
    secret: Mapped[bool] = mapped_column(default=False)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (
        Index("ix_roll_log_guild_created", "guild_id", "created_at"),
        Index("ix_roll_log_channel_created", "channel_id", "created_at"),
        Index("ix_roll_log_guild_character_created", "guild_id", "character_id", "created_at"),
        Index("ix_roll_log_guild_channel_created", "guild_id", "channel_id", "created_at"),
    )


class RollFace(Base):
    """The dice of the roll log, counted per face (``/stats``): one row per roll and face shown, with
    the roll's scope copied so one aggregate query over an index answers, without reading JSON."""

    __tablename__ = "roll_faces"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    channel_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    user_id: Mapped[int] = mapped_column(BigInteger)
    character_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    secret: Mapped[bool] = mapped_column(default=False)
    manual: Mapped[bool] = mapped_column(default=False)  # dice entered by hand
    sides: Mapped[int] = mapped_column(Integer)
    face: Mapped[int] = mapped_column(Integer)
    count: Mapped[int] = mapped_column(Integer)
    # A test's own die: its ruleset, target and +1 critical success, −1 critical failure, 0 neither.
    ruleset: Mapped[str | None] = mapped_column(String(16), default=None)
    target: Mapped[int | None] = mapped_column(Integer, default=None)
    crit: Mapped[int | None] = mapped_column(Integer, default=None)
    # All of the above but the scope, packed (bot.rules.dice_stats.StatKey): what /stats groups by.
    stat_key: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    # Covering, in GROUP BY order: a scope's dice are summed while its index is read, no sort.
    __table_args__ = (
        Index("ix_roll_faces_guild", "guild_id", "stat_key", "created_at", "count"),
        Index("ix_roll_faces_user", "guild_id", "user_id", "stat_key", "created_at", "count"),
        Index("ix_roll_faces_channel", "guild_id", "channel_id", "stat_key", "created_at", "count"),
        Index("ix_roll_faces_character", "guild_id", "character_id", "stat_key", "created_at", "count"),
    )


class Character(Base):
    """A character sheet on one server: characteristics per ruleset, skills, equipment, conditions."""

    __tablename__ = "characters"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(64))
    # Case- and accent-folded name: unique per server, what lookups compare.
    name_key: Mapped[str] = mapped_column(String(64))
    ruleset: Mapped[str] = mapped_column(String(16))
    characteristics: Mapped[dict[str, Any]] = mapped_column(JSON)
    skills: Mapped[dict[str, Any]] = mapped_column(JSON)
    skill_innate: Mapped[dict[str, Any]] = mapped_column(JSON)
    talents: Mapped[list[str]] = mapped_column(JSON)
    equipment: Mapped[dict[str, Any]] = mapped_column(JSON)
    conditions: Mapped[list[str]] = mapped_column(JSON)
    notes: Mapped[str] = mapped_column(Text, default="")
    is_npc: Mapped[bool] = mapped_column(default=False)
    # Race, career, experience, purse (``bot.rules.sheets.Profile``); added by revision 0008.
    profile: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Lasting wounds and states, death (``bot.rules.wounds.WoundSheet``); added by revision 0010.
    wounds: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API
    __table_args__ = (
        UniqueConstraint("guild_id", "name_key", name="uq_characters_guild_name"),
        Index("ix_characters_guild_owner", "guild_id", "owner_id"),
    )


class ActiveCharacter(Base):
    """The character a user plays on a server."""

    __tablename__ = "active_characters"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    character_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"),
        ForeignKey("characters.id", ondelete="CASCADE"),
        index=True,
    )
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


from bot.db import command_sync as command_sync  # noqa: E402
from bot.db import fight_models as fight_models  # noqa: E402
from bot.db import flow_models as flow_models  # noqa: E402
from bot.db import house_rules_models as house_rules_models  # noqa: E402
from bot.db import macro_models as macro_models  # noqa: E402
from bot.db import npc_models as npc_models  # noqa: E402
from bot.db import rate_limit_models as rate_limit_models  # noqa: E402
