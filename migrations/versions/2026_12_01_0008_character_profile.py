"""character profile (race, career, experience, purse); renove PF becomes Points de Folie

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 21:50:00.000000

Existing `renove` sheets kept their Fortune points under "PF": they move to "Fortune" and "PF" (now
Points de Folie, insanity) starts at 0. Every existing sheet gets a profile; `renove` sheets are
human, so BF, BE and BA carry the seed's +3 from now on, on the sheet (fights added it to player
characters only, and only in the fight).
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PROFILE = {"race": "humain", "career": "", "xp": {"total": 0, "spent": 0}, "money": {"co": 0, "pa": 0, "s": 0}}
BONUS = 3

characters = sa.table(
    'characters',
    sa.column('id', sa.Integer),
    sa.column('ruleset', sa.String),
    sa.column('characteristics', sa.JSON),
    sa.column('profile', sa.JSON),
)


def _renove(values: dict[str, Any], bonus: int) -> dict[str, Any]:
    out = dict(values)
    if 'Fortune' not in out:
        out['Fortune'] = out.pop('PF', out.get('PD', 0))
    out['PF'] = 0
    for code, source in (('BF', 'F'), ('BE', 'E'), ('BA', 'Ag')):
        out[code] = int(out.get(source, 0)) // 10 + bonus
    return out


def upgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('profile', sa.JSON(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.select(characters.c.id, characters.c.ruleset, characters.c.characteristics)).all()
    for row_id, ruleset, values in rows:
        update: dict[str, Any] = {'profile': dict(PROFILE)}
        if ruleset == 'renove':
            update['characteristics'] = _renove(values or {}, BONUS)
        bind.execute(sa.update(characters).where(characters.c.id == row_id).values(**update))
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.alter_column('profile', existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(characters.c.id, characters.c.ruleset, characters.c.characteristics)).all()
    for row_id, ruleset, values in rows:
        if ruleset != 'renove':
            continue
        out = dict(values or {})
        out['PF'] = out.pop('Fortune', 0)
        for code, source in (('BF', 'F'), ('BE', 'E'), ('BA', 'Ag')):
            out[code] = int(out.get(source, 0)) // 10
        bind.execute(sa.update(characters).where(characters.c.id == row_id).values(characteristics=out))
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_column('profile')
