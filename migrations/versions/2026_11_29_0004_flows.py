"""flows: game sessions (interrogations, chases, …) with their JSON state and a version column

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 18:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_sessions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("closed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_sessions")),
    )
    with op.batch_alter_table("game_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_game_sessions_channel_kind", ["channel_id", "kind", "closed"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("game_sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_game_sessions_channel_kind")
    op.drop_table("game_sessions")
