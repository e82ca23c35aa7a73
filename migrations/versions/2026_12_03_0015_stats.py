"""roll faces: the roll log's dice counted per face, for /stats

Revision ID: 0015_stats
Revises: 0014_macros
Create Date: 2026-12-03 04:10:00.000000

``/stats`` over a million rolls cannot read a million JSON results in a second: each roll's dice
are written, counted per face, beside its log row (same transaction), and the rows already in the
log are counted here once.
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_stats"
down_revision: str | None = '0014_macros'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5000


def upgrade() -> None:
    op.create_table(
        "roll_faces",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("character_id", sa.BigInteger(), nullable=True),
        sa.Column("secret", sa.Boolean(), nullable=False),
        sa.Column("manual", sa.Boolean(), nullable=False),
        sa.Column("sides", sa.Integer(), nullable=False),
        sa.Column("face", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=16), nullable=True),
        sa.Column("target", sa.Integer(), nullable=True),
        sa.Column("crit", sa.Integer(), nullable=True),
        sa.Column("stat_key", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    # Covering, in GROUP BY order: a scope's dice are summed while its index is read, no sort.
    with op.batch_alter_table("roll_faces", schema=None) as batch_op:
        rest = ["stat_key", "created_at", "count"]
        batch_op.create_index("ix_roll_faces_guild", ["guild_id", *rest], unique=False)
        batch_op.create_index("ix_roll_faces_user", ["guild_id", "user_id", *rest], unique=False)
        batch_op.create_index("ix_roll_faces_channel", ["guild_id", "channel_id", *rest], unique=False)
        batch_op.create_index("ix_roll_faces_character", ["guild_id", "character_id", *rest], unique=False)
    _count_existing_rolls()


def _count_existing_rolls() -> None:
    from bot.db.roll_log import FACE_COLUMNS, face_rows

    table = sa.table("roll_faces", *(sa.column(name) for name in FACE_COLUMNS))
    bind = op.get_bind()
    columns = "id, guild_id, channel_id, user_id, character_id, secret, result, created_at"
    last = 0
    while True:
        rows = (
            bind.execute(
                sa.text(f"SELECT {columns} FROM roll_log WHERE id > :last ORDER BY id LIMIT {BATCH}"),
                {"last": last},
            )
            .mappings()
            .all()
        )
        if not rows:
            return
        last = rows[-1]["id"]
        logged = []
        for row in rows:
            result = row["result"]
            if isinstance(result, str):
                try:
                    result = json.loads(result)
                except ValueError:
                    continue
            if isinstance(result, dict):
                logged.append({**row, "result": result})
        faces = face_rows(logged)
        if faces:
            bind.execute(sa.insert(table), faces)


def downgrade() -> None:
    with op.batch_alter_table("roll_faces", schema=None) as batch_op:
        for name in (
            "ix_roll_faces_character",
            "ix_roll_faces_channel",
            "ix_roll_faces_user",
            "ix_roll_faces_guild",
        ):
            batch_op.drop_index(name)
    op.drop_table("roll_faces")
