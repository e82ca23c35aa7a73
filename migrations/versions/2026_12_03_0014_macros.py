"""macros: named dice expressions per user and per server (/macro creer)

Revision ID: 0014_macros
Revises: 0014
Create Date: 2026-12-03 04:30:00.000000

One row per (guild, owner, folded name); ``owner_id`` 0 is the server's (the GM's) macro. Nothing
to fill for existing servers.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014_macros'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('macros',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('owner_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=32), nullable=False),
    sa.Column('name_key', sa.String(length=64), nullable=False),
    sa.Column('expression', sa.String(length=500), nullable=False),
    sa.Column('created_by', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_macros')),
    sa.UniqueConstraint('guild_id', 'owner_id', 'name_key', name='uq_macros_guild_owner_name')
    )


def downgrade() -> None:
    op.drop_table('macros')
