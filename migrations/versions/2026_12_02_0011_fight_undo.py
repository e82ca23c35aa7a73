"""fight undo: the fight's actions with their exact reverse, and undone events

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 12:00:00.000000

Every transaction that changes an open fight's document becomes one numbered *action*
(``fight_actions``, see ``bot.db.fight_journal``): who did it, the range of events it logged, a
reverse JSON patch of the fight document, the before- and after-values of each character-sheet field
it wrote, and a hash of the document after it. ``/combat annuler`` applies the reverses newest first
and marks the actions and their events undone (``fight_events.undone``): the log keeps them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('fight_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('undone', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        'fight_actions',
        sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
        sa.Column('fight_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.BigInteger(), nullable=True),
        sa.Column('first_seq', sa.Integer(), nullable=False),
        sa.Column('last_seq', sa.Integer(), nullable=False),
        sa.Column('reverse', sa.JSON(), nullable=False),
        sa.Column('sheets', sa.JSON(), nullable=False),
        sa.Column('after_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('undone_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('undone_by', sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ['fight_id'], ['fights.id'], name=op.f('fk_fight_actions_fight_id_fights'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_fight_actions')),
        sa.UniqueConstraint('fight_id', 'number', name='uq_fight_actions_fight_number'),
    )


def downgrade() -> None:
    op.drop_table('fight_actions')
    with op.batch_alter_table('fight_events', schema=None) as batch_op:
        batch_op.drop_column('undone')
