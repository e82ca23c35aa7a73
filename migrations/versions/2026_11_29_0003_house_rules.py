"""house rules: per-server overrides of data tables (/regles importer), one row per (guild, table)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:43:54.180055
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('house_rule_tables',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('table_name', sa.String(length=64), nullable=False),
    sa.Column('document', sa.JSON(), nullable=False),
    sa.Column('uploaded_by', sa.BigInteger(), nullable=False),
    sa.Column('uploaded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_house_rule_tables')),
    sa.UniqueConstraint('guild_id', 'table_name', name='uq_house_rule_tables_guild_table')
    )


def downgrade() -> None:
    op.drop_table('house_rule_tables')
