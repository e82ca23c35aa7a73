"""Rows of the table-play flows (interrogations, chases, …): one row per running session.

The whole state of a flow lives in ``state`` (JSON, rebuilt into the pure rules objects by the
service); ``version`` guards concurrent clicks (``version_id_col``: a stale write raises
``StaleDataError`` at flush, nothing half-written).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow


class GameSession(Base):
    """A running flow in a channel: its kind, its owner (the GM who opened it) and its state."""

    __tablename__ = "game_sessions"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(32))
    owner_id: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(100), default="")
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The live message the bot edits (a chase's board), once posted.
    message_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    closed: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API
    __table_args__ = (Index("ix_game_sessions_channel_kind", "channel_id", "kind", "closed"),)
