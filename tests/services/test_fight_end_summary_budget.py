"""`/combat fin` after a long fight (#25): at 40 fighters after 1 000 actions the summary used to go
over Discord's 6 000 characters per message, the interaction failed (the fight closed, the thread
not archived). The summary now keeps within every embed limit, says what it left out, and the
end event keeps every hit."""

from __future__ import annotations

import random

from sqlalchemy import func, select

from bot.context import AppContext
from bot.db.fight_models import Fight, FightEvent
from bot.emulator.limits import validate_message
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight
from bot.services.fights.opening import add_combatants
from bot.ui.discord_render import to_embed

from .fight_context import ctx, ok
from .test_fights_undo_property import _current, _fight_id, _next, _read, _round, _setup

__all__ = ["ctx"]

ACTIONS = 1000


async def test_the_summary_of_a_long_fight_at_40_fighters_fits_one_discord_message(ctx: AppContext) -> None:
    rng = random.Random(40)
    ctx.rng = random.Random(4040)  # the bot's dice
    table = await _setup(ctx, 40)
    gm = table.gm
    ok(await add_combatants(ctx, table.players["Albert"], who="Albert"))
    ok(await add_combatants(ctx, table.players["Élise"], who="Élise"))
    for count in (12, 12, 12, 2):  # at most 12 at a time
        ok(await add_combatants(ctx, gm, who=f"{count} gobelins"))
    await _round(ctx, gm)
    names = [c["name"] for c in (await _read(ctx, table))[1].doc["fight"]["combatants"]]
    assert len(names) == 40
    # real attacks and defences through the services (their hits, criticals and conditions) …
    played = 0
    while played < 300:
        doc = (await _read(ctx, table))[1].doc
        if doc.get("pending"):
            seq = int(min(doc["pending"], key=int))
            await defend(ctx, gm, choice="encaisser", seq=seq)
        else:
            attacker = _current(doc) or rng.choice(names)
            target = rng.choice([n for n in names if n != attacker])
            result = await fights_attacks.attack(ctx, gm, AttackInput(target=target, attacker=attacker))
            # no attack left, or the round is over: the GM moves on
            if result.reply.is_error and (await _next(ctx, gm)).reply.is_error:
                await _round(ctx, gm)
        played += 1
    # … then as many more of those hits, on every fighter, as 1 000 actions leave (copies of the
    # real events: what the summary reads of a hit)
    fid = await _fight_id(ctx, table)
    async with ctx.sessions.begin() as session:
        real = (
            await session.scalars(
                select(FightEvent).where(FightEvent.fight_id == fid, FightEvent.kind == "hit")
            )
        ).all()
        assert len(real) >= 3, len(real)
        fighters = sorted({e.actor for e in real if e.actor})
        seq = int(
            await session.scalar(select(func.max(FightEvent.seq)).where(FightEvent.fight_id == fid)) or 0
        )
        ids = [c["id"] for c in (await _read(ctx, table))[1].doc["fight"]["combatants"]]
        for n in range(ACTIONS - played):
            model = real[n % len(real)]
            seq += 1
            session.add(
                FightEvent(
                    fight_id=fid,
                    seq=seq,
                    round=1 + n // 40,
                    kind="hit",
                    actor=ids[n % len(ids)],
                    payload=dict(model.payload),
                )
            )
        row = await session.get(Fight, fid)
        assert row is not None
        row.state = {**row.state, "seq": seq}  # the fight's event counter, past the copies
    assert fighters
    end = await end_fight(ctx, gm)
    reply = end.reply
    assert not reply.is_error, reply.description
    embed = to_embed(reply)
    assert embed is not None
    errors = validate_message({"embeds": [embed.to_dict()]})
    assert not errors, errors.body()
    size = len(reply.title or "") + len(reply.description or "")
    size += sum(len(f.name) + len(f.value) for f in reply.fields)
    assert size <= 6000 and len(reply.fields) <= 25
    assert all(len(f.value) <= 1024 for f in reply.fields)
    # what was left out is said, not silently cut: fighters past 24 are named in the last field,
    # a fighter's cut field ends « … et N autres lignes »
    assert reply.fields[-1].name == "Et 16 autres combattants", reply.fields[-1].name
    assert any("autres lignes" in f.value.split("\n")[-1] for f in reply.fields[:-1])
    # the whole summary stays in the result (and the fight's end event): every hit
    assert len((reply.result or {})["hits"]) >= ACTIONS - played
    # the summary would have been far over the limit uncut
    assert len("".join(str(h) for h in (reply.result or {})["hits"])) > 6000
    assert end.archive  # the thread is archived
