"""character wounds: lasting wounds and states left by fights, and death

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 10:00:00.000000

Each sheet gets a ``wounds`` record (``bot.rules.wounds.WoundSheet``): the wounds and states a fight
left (criticals' lasting effects, death timers, parts lost, open wounds for the infection test) and
``dead`` with its cause. Existing sheets start with none.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EMPTY = {"wounds": [], "dead": None}

characters = sa.table('characters', sa.column('id', sa.Integer), sa.column('wounds', sa.JSON))


def upgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('wounds', sa.JSON(), nullable=True))
    op.get_bind().execute(sa.update(characters).values(wounds=dict(EMPTY)))
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.alter_column('wounds', existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_column('wounds')
