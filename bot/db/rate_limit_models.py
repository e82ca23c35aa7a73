"""Rate-limit buckets shared by every bot process (``MELEE_RATE_LIMIT_STORE=database``).

One row per (category, user) bucket: the tokens left at ``updated`` (wall-clock seconds since the
epoch, so every process reads the same time line) and whether the last take was granted (what the
single atomic ``INSERT … ON CONFLICT DO UPDATE … RETURNING`` statement reports back).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Float, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base


class RateBucket(Base):
    __tablename__ = "rate_buckets"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float, index=True)
    granted: Mapped[bool] = mapped_column(Boolean, default=True)
