"""npc templates: the GM's bestiary per server and ruleset (/pnj enregistrer)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 12:00:00.000000

One row per (guild, ruleset, name key): a quick NPC's characteristics, skills, weapons and armour,
added to a fight by name with a count. Nothing to fill for existing servers (the seed's creature
rows are offered from the data table until the GM saves his own).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('npc_templates',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('ruleset', sa.String(length=16), nullable=False),
    sa.Column('key', sa.String(length=80), nullable=False),
    sa.Column('name', sa.String(length=60), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('characteristics', sa.JSON(), nullable=False),
    sa.Column('skills', sa.JSON(), nullable=False),
    sa.Column('weapons', sa.JSON(), nullable=False),
    sa.Column('armour', sa.JSON(), nullable=False),
    sa.Column('created_by', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_npc_templates')),
    sa.UniqueConstraint('guild_id', 'ruleset', 'key', name='uq_npc_templates_guild_ruleset_key')
    )


def downgrade() -> None:
    op.drop_table('npc_templates')
