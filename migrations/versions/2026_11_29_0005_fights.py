"""fights: one row per fight in a thread (JSON state, version column) and its event log

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 20:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "fights",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("parent_channel_id", sa.BigInteger(), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("ruleset", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("tracker_message_id", sa.BigInteger(), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fights")),
    )
    with op.batch_alter_table("fights", schema=None) as batch_op:
        batch_op.create_index(
            "ix_fights_parent_status", ["guild_id", "parent_channel_id", "status"], unique=False
        )
        batch_op.create_index("ix_fights_thread_status", ["thread_id", "status"], unique=False)

    op.create_table(
        "fight_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("fight_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["fight_id"], ["fights.id"], name=op.f("fk_fight_events_fight_id_fights"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fight_events")),
        sa.UniqueConstraint("fight_id", "seq", name="uq_fight_events_fight_seq"),
    )


def downgrade() -> None:
    op.drop_table("fight_events")
    with op.batch_alter_table("fights", schema=None) as batch_op:
        batch_op.drop_index("ix_fights_thread_status")
        batch_op.drop_index("ix_fights_parent_status")

    op.drop_table("fights")
