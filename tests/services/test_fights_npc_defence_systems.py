"""Issue 18 in the `v1`, `d20` and `ogl` fights: NPCs in ``defense_pnj:auto`` defend at once with
the best defence their system allows (the same legality checks and targets as a defence by hand),
the bot's die shown like any defence; a fixed choice the rules refuse falls back to the best legal
one; in ``manuel`` only the legal buttons are shown, « Défense auto » too for an NPC, and the GM's
« Défense auto » click rolls his typed die.

Every die is given: the attack's by hand, the defence's by :class:`Dice` (the bot's own roll, in the
order asked)."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput, attack
from bot.services.fights.defence import defend
from bot.services.fights.npc_defence import set_npc_defence
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import check_complete

from .fight_context import next_round
from .test_fights import ALICE, CHANNEL, GM, GUILD, NoDice, ctx, ok
from .test_fights_v1 import albert

__all__ = ["ctx"]


class Dice:
    """The bot's rolls, given in advance: each ``randint(1, sides)`` takes the next (sides, value)."""

    def __init__(self, *rolls: tuple[int, int]) -> None:
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        assert self.rolls, f"unexpected bot roll d{b}"
        sides, value = self.rolls.pop(0)
        assert (a, b) == (1, sides), f"asked d{b}, expected d{sides}"
        return value


def ids(buttons: Any) -> list[str]:
    return [b.custom_id.rsplit(":", 1)[1] for row in buttons for b in row]


async def opened(ctx: AppContext, ruleset: str, npc_defence: str | None = None) -> int:
    check_complete()
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, ruleset)
    return int(ok(await open_fight(ctx, GM, name="Escarmouche", npc_defence=npc_defence))["fight_id"])


# --- v1 (seed 001, l. 60-70): the parry needs a prepared parry, a second weapon or a shield (+20 %);
# the dodge needs the Esquive skill (I + its bonus) ------------------------------------------------

GOBLIN = "CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25"


async def test_v1_npcs_defend_by_themselves_with_their_best_legal_choice(ctx: AppContext) -> None:
    await albert(ctx)
    await opened(ctx, "v1", npc_defence="auto")
    ok(await add_combatants(ctx, ALICE, who="Albert", stats=NpcStats(weapons="Épée +0")))
    shielded = NpcStats(caracs=GOBLIN + " Esquive:10", weapons="Hache, Bouclier bouclier")
    ok(await add_combatants(ctx, GM, who="Gobelin", stats=shielded, side="Gobelins"))
    ok(
        await add_combatants(
            ctx, GM, who="Brute", stats=NpcStats(caracs=GOBLIN, weapons="Hache"), side="Gobelins"
        )
    )
    ok(await next_round(ctx, GM))  # Albert 40, Gobelin 30, Brute 30, Albert 20
    # CC 45, 37 hits; the goblin's shield parry 25 + 20 = 45 beats his dodge I 30 + 10 = 40: the bot
    # rolls 30 → parried
    hit = await attack(ctx, ALICE, AttackInput(target="Gobelin", roll=37), rng=Dice((100, 30)))
    result = ok(hit)
    auto = result["auto_defence"]
    assert auto["chances"] == {"parer": 45, "esquiver": 40, "encaisser": 0} and auto["choice"] == "parer"
    assert result["pending"] is False and hit.reply.buttons == ()
    text = hit.reply.description or ""
    assert "🤖 Gobelin, défense automatique : parer (45 %, la meilleure chance)." in text
    assert result["defence"]["check"]["roll"] == 30 and result["defence"]["check"]["success"]
    # Gobelin's attack on the PC Albert (no shield, no second weapon, Esquive 0): only the legal
    # buttons, no « Défense auto » for a PC
    blow = await attack(ctx, GM, AttackInput(target="Albert", roll=10), rng=NoDice())
    assert ok(blow)["pending"] and ids(blow.reply.buttons) == ["esquiver", "encaisser"]
    ok(await defend(ctx, ALICE, choice="encaisser", rolls=DefenceRolls(), rng=Dice((6, 2))))
    # the Brute has neither: he takes it, the reply says why; the GM fixed « parer » for him
    ok(await set_npc_defence(ctx, GM, mode="parer", who="Brute"))
    ok(await attack(ctx, GM, AttackInput(target="Albert", roll=95), rng=NoDice()))  # Brute misses
    took = await attack(ctx, ALICE, AttackInput(target="Brute", roll=20, damage="1"), rng=NoDice())
    said = ok(took)["auto_defence"]
    assert said == {"choice": "encaisser", "mode": "parer", "chances": {"encaisser": 0}}
    assert (
        "🤖 Brute, défense automatique : parer impossible maintenant et aucune autre défense "
        "possible, encaisser." in (took.reply.description or "")
    )


# --- d20 (seed 003, l. 44-47, 86-88): parry (the weapon's par=) or dodge (Esquive), opposed by MR;
# bare hands cannot parry a blade ---------------------------------------------------------------

D20_FIGHTER = NpcStats(
    caracs="FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11", weapons="Épée 14 +3 tranchant par=13"
)
D20_BRAWLER = NpcStats(caracs="FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11 Bagarre:12")


async def test_d20_auto_defence_and_the_legal_buttons(ctx: AppContext) -> None:
    fid = await opened(ctx, "d20")
    ok(await add_combatants(ctx, GM, who="Bretteur", stats=D20_FIGHTER, side="Rouges"))
    ok(await add_combatants(ctx, GM, who="Lutteur", stats=D20_BRAWLER, side="Verts"))
    ok(await add_combatants(ctx, GM, who="Garde", stats=D20_FIGHTER, side="Bleus", defence="auto"))
    ok(await next_round(ctx, GM, dice="Bretteur: 15; Lutteur: 10; Garde: 5"))
    # the fight is « manuel »: the Lutteur, bare-handed, cannot parry a blade (l. 47): his dodge,
    # « Encaisser » and « Défense auto » only
    asked = await attack(ctx, GM, AttackInput(target="Lutteur", roll=12), rng=NoDice())
    seq = ok(asked)["seq"]
    assert ok(asked)["pending"] and ids(asked.reply.buttons) == ["esquiver", "encaisser", "auto"]
    # the GM's « Défense auto » with his own d20: Esquive 11 (55 %), 5 rolled
    done = ok(await defend(ctx, GM, choice="auto", fight_id=fid, seq=seq, rolls=DefenceRolls(roll=5)))
    assert done["auto_defence"]["chances"] == {"esquiver": 55, "encaisser": 0}
    assert done["choice"] == "esquiver" and done["exchange"]["defence"]["roll"] == 5
    # the Lutteur's turn: his fists on the Garde (« auto » for him alone): his parry 13 (65 %) beats
    # his dodge 11 (55 %); the bot's d20 is 2
    hit = await attack(ctx, GM, AttackInput(target="Garde", roll=4, location="tete"), rng=Dice((20, 2)))
    auto = ok(hit)["auto_defence"]
    assert auto["chances"] == {"parer": 65, "esquiver": 55, "encaisser": 0} and auto["choice"] == "parer"
    assert "🤖 Garde, défense automatique : parer (65 %, la meilleure chance)." in (
        hit.reply.description or ""
    )
    assert ok(hit)["exchange"]["defence"]["roll"] == 2


# --- ogl (seed 004, l. 5-6): one reaction per combat action, parry with the weapon, dodge with
# Esquive, En Défense +20 % ------------------------------------------------------------------------

BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"


async def test_ogl_auto_defence_counts_the_reactions_left(ctx: AppContext) -> None:
    await opened(ctx, "ogl", npc_defence="auto")
    sword = NpcStats(caracs=BODY, weapons="Épée 1d8+1 60%")
    ok(await add_combatants(ctx, GM, who="Guerrier", stats=sword, side="Arène"))
    ok(await add_combatants(ctx, GM, who="Second", stats=sword, side="Arène"))
    ok(
        await add_combatants(
            ctx, GM, who="Cible", stats=NpcStats(caracs=BODY, weapons="Dague 1d4+1 50%"), side="Bleus"
        )
    )
    ok(await next_round(ctx, GM, dice="Guerrier: 9; Second: 5; Cible: 1"))
    # the Cible's dagger parry 50 % beats her Esquive 40 %; the bot's d100 is 20, above the
    # attack's 10: parried
    hit = await attack(
        ctx, GM, AttackInput(target="Cible", roll=10, location="poitrine"), rng=Dice((100, 20))
    )
    auto = ok(hit)["auto_defence"]
    assert auto["chances"] == {"parer": 50, "esquiver": 40, "encaisser": 0} and auto["choice"] == "parer"
    assert ok(hit)["exchange"]["defence"]["roll"] == 20
    # her one reaction spent: against the Second's attack she can only take it
    took = await attack(
        ctx,
        GM,
        AttackInput(target="Cible", roll=30, location="poitrine", damage="3", effects="2"),
        rng=NoDice(),
    )
    assert ok(took)["auto_defence"] == {"choice": "encaisser", "mode": "auto", "chances": {"encaisser": 0}}
    assert "🤖 Cible, défense automatique : ni parade ni esquive possible, encaisser." in (
        took.reply.description or ""
    )


async def test_v1_a_lapsed_wait_makes_the_npc_defend_at_his_best(ctx: AppContext) -> None:
    """``manuel``: the goblin's buttons are his legal ones and « Défense auto »; Albert's player may
    not answer for him until the 3 minutes are over, then his press makes the goblin defend at his
    best (the shield's parry, 45 %), not take the blow."""
    from datetime import UTC, datetime, timedelta

    from bot.db.fight_models import Fight

    await albert(ctx)
    fid = await opened(ctx, "v1")
    ok(await add_combatants(ctx, ALICE, who="Albert", stats=NpcStats(weapons="Épée +0")))
    shielded = NpcStats(caracs=GOBLIN + " Esquive:10", weapons="Hache, Bouclier bouclier")
    ok(await add_combatants(ctx, GM, who="Gobelin", stats=shielded, side="Gobelins"))
    ok(await next_round(ctx, GM))
    hit = await attack(ctx, ALICE, AttackInput(target="Gobelin", roll=37, damage="2"), rng=NoDice())
    seq = ok(hit)["seq"]
    assert ids(hit.reply.buttons) == ["parer", "esquiver", "encaisser", "auto"]
    early = await defend(ctx, ALICE, choice="encaisser", fight_id=fid, seq=seq)
    assert early.reply.is_error and "Gobelin" in (early.reply.description or "")
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fid)
        assert row is not None
        data = dict(row.state)
        pending = dict(data["pending"])
        lapsed = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
        pending[str(seq)] = {**pending[str(seq)], "expires_at": lapsed}
        row.state = {**data, "pending": pending}
    late = ok(await defend(ctx, ALICE, choice="encaisser", fight_id=fid, seq=seq, rng=Dice((100, 30))))
    assert late["choice"] == "parer" and late["auto_defence"]["chances"]["parer"] == 45
    assert late["defence"]["check"]["roll"] == 30 and late["defence"]["check"]["success"]
