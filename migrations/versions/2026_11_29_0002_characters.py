"""characters: per-server sheets (optimistic locking by version) and the active character per user

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 15:40:12.136851
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('characters',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('owner_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('name_key', sa.String(length=64), nullable=False),
    sa.Column('ruleset', sa.String(length=16), nullable=False),
    sa.Column('characteristics', sa.JSON(), nullable=False),
    sa.Column('skills', sa.JSON(), nullable=False),
    sa.Column('skill_innate', sa.JSON(), nullable=False),
    sa.Column('talents', sa.JSON(), nullable=False),
    sa.Column('equipment', sa.JSON(), nullable=False),
    sa.Column('conditions', sa.JSON(), nullable=False),
    sa.Column('notes', sa.Text(), nullable=False),
    sa.Column('is_npc', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_characters')),
    sa.UniqueConstraint('guild_id', 'name_key', name='uq_characters_guild_name')
    )
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.create_index('ix_characters_guild_owner', ['guild_id', 'owner_id'], unique=False)

    op.create_table('active_characters',
    sa.Column('guild_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('user_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('character_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_active_characters_character_id_characters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('guild_id', 'user_id', name=op.f('pk_active_characters'))
    )
    with op.batch_alter_table('active_characters', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_active_characters_character_id'), ['character_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('active_characters', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_active_characters_character_id'))

    op.drop_table('active_characters')
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_index('ix_characters_guild_owner')

    op.drop_table('characters')
