"""The GM's bestiary: NPC templates saved once per server (``/pnj enregistrer``) and added to a
fight by name with a count (``/combat ajouter qui:"3 bandits"``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow


class NpcTemplate(Base):
    """One NPC profile of one server and ruleset: ``key`` is the name as compared (accents, case,
    hyphens and plurals forgiven: ``bot.services.fights.roster.creature_key``); ``characteristics``
    are the ruleset's codes the GM gave (renove: CC, F, E … and BF/BE when given), ``skills`` the
    other names; ``weapons`` and ``armour`` as the fight reads them (renove: table ids; the other
    rulesets: the ``armes:`` profile text); ``kind`` ``monster`` or ``character`` (renove's BF rule)."""

    __tablename__ = "npc_templates"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(16), default="character")
    characteristics: Mapped[dict[str, Any]] = mapped_column(JSON)
    skills: Mapped[dict[str, Any]] = mapped_column(JSON)
    weapons: Mapped[list[Any]] = mapped_column(JSON)
    armour: Mapped[list[Any]] = mapped_column(JSON)
    created_by: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - SQLAlchemy's declarative API
    __table_args__ = (
        UniqueConstraint("guild_id", "ruleset", "key", name="uq_npc_templates_guild_ruleset_key"),
    )
