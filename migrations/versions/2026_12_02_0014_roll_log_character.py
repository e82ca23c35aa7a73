"""roll log: indexes for /historique (a character's rolls, a channel's rolls, in a server)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 03:50:00.000000

At 1.6 million rows, ``/historique personnage:X`` scanned the guild's whole log (no index on
``character_id``): 5.7-10.4 s for 20 concurrent calls (issue 23).
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('roll_log', schema=None) as batch_op:
        batch_op.create_index(
            'ix_roll_log_guild_character_created', ['guild_id', 'character_id', 'created_at'], unique=False
        )
        batch_op.create_index(
            'ix_roll_log_guild_channel_created', ['guild_id', 'channel_id', 'created_at'], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table('roll_log', schema=None) as batch_op:
        batch_op.drop_index('ix_roll_log_guild_channel_created')
        batch_op.drop_index('ix_roll_log_guild_character_created')
