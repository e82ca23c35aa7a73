"""Dice macros (``/macro creer``): a named expression of one user, or of the whole server (GM)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow

#: ``owner_id`` of a server macro (Discord user ids are never 0).
SERVER_OWNER = 0


class Macro(Base):
    """``name`` as typed, ``name_key`` folded (case and accents: what lookups compare), ``expression``
    as typed, its ``# label`` included; ``owner_id`` the user, or :data:`SERVER_OWNER`."""

    __tablename__ = "macros"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(64))
    expression: Mapped[str] = mapped_column(String(500))
    created_by: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)

    __table_args__ = (
        UniqueConstraint("guild_id", "owner_id", "name_key", name="uq_macros_guild_owner_name"),
    )
