"""House rules: a server's overrides of a data table (``/regles importer``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow


class HouseRuleTable(Base):
    """One table's house rules on one server: the uploaded document (entries merged by key).

    ``version`` is bumped on every import (optimistic locking); with ``uploaded_at`` it keys
    the in-process cache of the merged table (see ``bot.services.house_rules``).
    """

    __tablename__ = "house_rule_tables"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    table_name: Mapped[str] = mapped_column(String(64))
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    uploaded_by: Mapped[int] = mapped_column(BigInteger)
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API
    __table_args__ = (UniqueConstraint("guild_id", "table_name", name="uq_house_rule_tables_guild_table"),)
