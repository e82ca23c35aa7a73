"""renove skills become masteries on their characteristic

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 22:05:00.000000

`renove` sheets held skills as absolute percentages with no link to their characteristic. Each
becomes a mastery (+0, +10, +20) where the old value reaches the skill's characteristic (rounded
down to a mastery; a value of 0, 10 or 20 under the characteristic was already typed as a mastery);
what cannot be read (a value under the characteristic, a skill the table does not know) is written
into the sheet's notes, for the GM, and dropped from the skills.
"""

import json
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa
from alembic import op

from bot.rules.renove.skills import SkillBook, convert_absolute

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SKILLS = Path(__file__).resolve().parents[2] / 'data' / 'skills.json'
NOTE = 'Compétences non converties (anciennes valeurs en %, sous la caractéristique ou inconnues) : {skills}.'

characters = sa.table(
    'characters',
    sa.column('id', sa.Integer),
    sa.column('ruleset', sa.String),
    sa.column('characteristics', sa.JSON),
    sa.column('skills', sa.JSON),
    sa.column('notes', sa.Text),
)


def upgrade() -> None:
    book = SkillBook.from_document(json.loads(SKILLS.read_text(encoding='utf-8')))
    bind = op.get_bind()
    query = sa.select(
        characters.c.id, characters.c.characteristics, characters.c.skills, characters.c.notes
    ).where(characters.c.ruleset == 'renove')
    for row_id, values, skills, notes in bind.execute(query).all():
        if not skills:
            continue
        converted, unread = convert_absolute(book, values or {}, skills)
        text = notes or ''
        if unread:
            text = (text + '\n' if text else '') + NOTE.format(skills=', '.join(unread))
        bind.execute(
            sa.update(characters).where(characters.c.id == row_id).values(skills=converted, notes=text[:2000])
        )


def downgrade() -> None:
    book = SkillBook.from_document(json.loads(SKILLS.read_text(encoding='utf-8')))
    bind = op.get_bind()
    query = sa.select(characters.c.id, characters.c.characteristics, characters.c.skills).where(
        characters.c.ruleset == 'renove'
    )
    for row_id, values, skills in bind.execute(query).all():
        absolute = {}
        for name, mastery in (skills or {}).items():
            found = book.find(name)
            base = int((values or {}).get(found[0].characteristic, 0)) if found else 0
            absolute[name] = base + int(mastery)
        bind.execute(sa.update(characters).where(characters.c.id == row_id).values(skills=absolute))
