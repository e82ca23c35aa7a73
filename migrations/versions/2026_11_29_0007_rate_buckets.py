"""rate buckets shared by every bot process

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29 18:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'rate_buckets',
        sa.Column('key', sa.String(length=100), nullable=False),
        sa.Column('tokens', sa.Float(), nullable=False),
        sa.Column('updated', sa.Float(), nullable=False),
        sa.Column('granted', sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_rate_buckets')),
    )
    with op.batch_alter_table('rate_buckets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rate_buckets_updated'), ['updated'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('rate_buckets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rate_buckets_updated'))
    op.drop_table('rate_buckets')
