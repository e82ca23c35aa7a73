"""command sync: the command tree last synced to Discord, per scope, and who is syncing it

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 00:15:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'command_syncs',
        sa.Column('scope', sa.String(length=64), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('claimed_until', sa.DateTime(timezone=True), nullable=True),
        sa.Column('synced_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('scope', name=op.f('pk_command_syncs')),
    )


def downgrade() -> None:
    op.drop_table('command_syncs')
