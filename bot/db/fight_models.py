"""Rows of the fights (``/combat``): one row per fight, its event log.

The whole fight lives in ``state`` (``FightState.to_dict()`` plus the service's bookkeeping: the
pending defences, the combatants' owners and sources). ``version`` guards concurrent writers
(``version_id_col``): two clicks on the same pending defence → the second flush raises
``StaleDataError`` and its transaction writes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow


class Fight(Base):
    """A fight in a thread: the thread, its parent channel, the pinned tracker and the state."""

    __tablename__ = "fights"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    thread_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    parent_channel_id: Mapped[int] = mapped_column(BigInteger)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    ruleset: Mapped[str] = mapped_column(String(16), default="renove")
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | closed
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    tracker_message_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    round: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API
    __table_args__ = (
        Index("ix_fights_thread_status", "thread_id", "status"),
        Index("ix_fights_parent_status", "guild_id", "parent_channel_id", "status"),
    )


class FightEvent(Base):
    """One thing that happened in a fight (an attack, a defence, a critical …), in order."""

    __tablename__ = "fight_events"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    fight_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), ForeignKey("fights.id", ondelete="CASCADE")
    )
    seq: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str | None] = mapped_column(String(64), default=None)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # taken back by ``/combat annuler``: the event stays in the log, read by nobody but the log
    undone: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    __table_args__ = (UniqueConstraint("fight_id", "seq", name="uq_fight_events_fight_seq"),)


class FightAction(Base):
    """One use case that changed an open fight (n° ``number`` of that fight), with its exact reverse:
    ``reverse`` turns the document after it back into the one before (``bot.db.fight_journal``),
    ``sheets`` holds the before- and after-values of each character field it wrote, ``after_hash``
    the document it left. Its events are the fight's ``first_seq`` … ``last_seq``."""

    __tablename__ = "fight_actions"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    fight_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), ForeignKey("fights.id", ondelete="CASCADE")
    )
    number: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)
    reverse: Mapped[dict[str, Any]] = mapped_column(JSON)
    sheets: Mapped[dict[str, Any]] = mapped_column(JSON)
    after_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    undone_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    undone_by: Mapped[int | None] = mapped_column(BigInteger, default=None)

    __table_args__ = (UniqueConstraint("fight_id", "number", name="uq_fight_actions_fight_number"),)
