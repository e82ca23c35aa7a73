"""The fight journal: every transaction that changes an open fight becomes one numbered *action*
(:class:`~bot.db.fight_models.FightAction`) carrying the exact reverse of what it changed, so that
``/combat annuler`` can take it back (``bot.services.fights.undo``).

How it is captured, without any code in the use cases:

* When a :class:`~bot.db.fight_models.Fight` or :class:`~bot.db.models.Character` row is loaded
  into a session, its journaled values are copied (as plain JSON) into ``session.info`` — at load
  time, because the services mutate nested parts of a loaded document in place, so the ORM's own
  history would already hold the changed object.
* Just before the session commits, each fight loaded in it whose document (or ``round``) was
  assigned and differs from the copy (or that logged events), and which is still open, gets an
  action: the next number of that fight, the user the service named (:func:`watch`, done by
  ``_core.run``; ``None`` elsewhere), the range of events it logged, a reverse patch of the
  document (:func:`diff`) and a hash of the document it left. The character fields assigned a new
  value in the same transaction (a permanent change, a destiny point, anything) go onto the first
  such action as ``[before, after]`` pairs. A row only changed in place in memory, never assigned,
  is not written by SQLAlchemy: it is not part of an action either.
* A transaction that fails writes nothing, so it records nothing; a transaction that only reads, or
  only moves the tracker message, records nothing either. Opening a fight (a new row) and ending it
  (the fight is then closed) are not actions: neither can be undone.

The document's ``seq`` (the counter of event numbers) is outside the journal: it only grows, so
an undone attack's number (and its buttons' custom ids) is never given to a new attack.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, object_session

from bot.db.fight_models import Fight, FightAction
from bot.db.models import Character

_KEY: Final = "melee.fight_journal"
_USER: Final = "melee.fight_journal.user"
_OFF: Final = "melee.fight_journal.off"
# ``seq`` only grows (see above); ``asks`` / ``ask_seq`` are questions put before an action (an
# ally as the target …): asking and answering « Annuler » change nothing in the fight, so they are
# not actions, and an undo leaves open questions as they are.
UNTRACKED: Final = ("seq", "asks", "ask_seq")
FIGHT_FIELDS: Final = ("round",)
SHEET_FIELDS: Final = (
    "name",
    "name_key",
    "ruleset",
    "characteristics",
    "skills",
    "skill_innate",
    "talents",
    "equipment",
    "conditions",
    "notes",
    "is_npc",
    "profile",
    "wounds",
)


def plain(value: Any) -> Any:
    """``value`` as the database gives it back (a deep copy; tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def document(state: dict[str, Any] | None) -> dict[str, Any]:
    """The journaled part of a fight document: all of it but :data:`UNTRACKED`."""
    out: dict[str, Any] = plain(state or {})
    for key in UNTRACKED:
        out.pop(key, None)
    return out


def doc_hash(doc: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# -- a reverse JSON patch -------------------------------------------------------------------
#
# A patch turns one JSON value (``new``) back into another (``old``):
#   {"=": v}                          replace by v
#   {"d": {key: patch}, "x": [keys]}  a dict: patch these keys (absent ones are added), drop those
#   {"l": {index: patch}, "n": n, "t": [items]}
#                                     a list: patch these items, cut it to n items or extend it by t


def diff(new: Any, old: Any) -> dict[str, Any]:
    """The smallest patch (of the forms above) that turns ``new`` into ``old``."""
    if isinstance(new, dict) and isinstance(old, dict):
        changed = {k: diff(new[k], v) if k in new else {"=": v} for k, v in old.items() if new.get(k, v) != v}
        changed.update({k: {"=": v} for k, v in old.items() if k not in new})
        return {"d": changed, "x": [k for k in new if k not in old]}
    if isinstance(new, list) and isinstance(old, list) and new and old:
        common = min(len(new), len(old))
        items = {str(i): diff(new[i], old[i]) for i in range(common) if new[i] != old[i]}
        return {"l": items, "n": len(old), "t": old[common:]}
    return {"=": old}


def patch(value: Any, change: dict[str, Any]) -> Any:
    """``value`` with ``change`` (a :func:`diff`) applied; ``value`` itself is left as it is."""
    if "=" in change:
        return plain(change["="])
    if "d" in change:
        out = dict(value)
        for key in change["x"]:
            out.pop(key, None)
        for key, sub in change["d"].items():
            out[key] = patch(out.get(key), sub)
        return out
    items = list(value)[: int(change["n"])]
    for index, sub in change["l"].items():
        items[int(index)] = patch(items[int(index)], sub)
    items.extend(plain(change["t"]))
    return items


# -- capture ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Seen:
    row: Fight | Character  # held here so the session's weak identity map cannot drop it
    values: dict[str, Any]
    seq: int = 0
    written: bool = False  # a journaled column was assigned: the row is really written at commit


def watch(session: Any, user_id: int) -> None:
    """Name the user whose actions this session's commit records (``_core.run`` does it)."""
    session.info[_USER] = user_id


def suspend(session: Any) -> None:
    """This session records no action (the undo itself: it is not an action, nothing redoes it)."""
    session.info[_OFF] = True


def _fight_values(row: Fight) -> dict[str, Any]:
    return {"state": document(row.state), **{f: getattr(row, f) for f in FIGHT_FIELDS}}


def sheet_values(row: Character) -> dict[str, Any]:
    return {f: plain(getattr(row, f)) for f in SHEET_FIELDS}


@event.listens_for(Fight, "load")
def _fight_loaded(row: Fight, context: Any) -> None:
    session = object_session(row)
    if session is not None:
        seen = session.info.setdefault(_KEY, {})
        if ("fight", row.id) not in seen:
            seen["fight", row.id] = _Seen(row, _fight_values(row), int((row.state or {}).get("seq", 0)))


@event.listens_for(Character, "load")
def _sheet_loaded(row: Character, context: Any) -> None:
    session = object_session(row)
    if session is not None:
        seen = session.info.setdefault(_KEY, {})
        if ("sheet", row.id) not in seen:
            seen["sheet", row.id] = _Seen(row, sheet_values(row))


def _assigned(row: Any, value: Any, old: Any, initiator: Any) -> None:
    session = object_session(row)
    item = (session.info.get(_KEY) or {}).get((_kind(row), row.id)) if session is not None else None
    if item is not None:
        item.written = True


def _kind(row: Any) -> str:
    return "fight" if isinstance(row, Fight) else "sheet"


for _column in ("state", *FIGHT_FIELDS):
    event.listen(getattr(Fight, _column), "set", _assigned)
for _column in SHEET_FIELDS:
    event.listen(getattr(Character, _column), "set", _assigned)


@event.listens_for(Session, "before_commit")
def _record(session: Session) -> None:
    seen: dict[tuple[str, int], _Seen] = session.info.get(_KEY) or {}
    if not any(kind == "fight" for kind, _ in seen) or session.info.get(_OFF):
        seen.clear()
        return
    if session.in_nested_transaction():
        return
    sheets: dict[str, dict[str, list[Any]]] = {}
    fights: list[tuple[Fight, _Seen, dict[str, Any]]] = []
    for (kind, _), item in sorted(seen.items()):
        # a row only changed in place in memory, never assigned, is not written: not an action
        if not item.written or item.row in session.deleted or _gone(item.row):
            continue
        if kind == "sheet":
            assert isinstance(item.row, Character)
            now = sheet_values(item.row)
            changed = {f: [item.values[f], now[f]] for f in SHEET_FIELDS if now[f] != item.values[f]}
            if changed:
                sheets[str(item.row.id)] = changed
        else:
            assert isinstance(item.row, Fight)
            after = _fight_values(item.row)
            logged = int((item.row.state or {}).get("seq", 0)) != item.seq  # events only: an action too
            if (after != item.values or logged) and item.row.status == "open":
                fights.append((item.row, item, after))
    for i, (row, item, after) in enumerate(fights):
        last = session.execute(select(func.max(FightAction.number)).where(FightAction.fight_id == row.id))
        reverse = {"state": diff(after["state"], item.values["state"])}
        reverse.update({f: item.values[f] for f in FIGHT_FIELDS})
        session.add(
            FightAction(
                fight_id=row.id,
                number=int(last.scalar() or 0) + 1,
                user_id=session.info.get(_USER),
                first_seq=item.seq + 1,
                last_seq=int((row.state or {}).get("seq", 0)),
                reverse=reverse,
                sheets=sheets if i == 0 else {},
                after_hash=doc_hash(after["state"]),
            )
        )
    seen.clear()  # a session used again after its commit starts a new journal


def _gone(row: Any) -> bool:
    from sqlalchemy import inspect

    state = inspect(row)
    return bool(state.deleted or state.was_deleted or state.detached)
