"""Quick NPCs that are easy to bring in: any name with its stats (« 3 bandits » → Bandit 1 … 3,
numbering continued later), the stats a renove fight needs named when missing, creature names
forgiven (accents, hyphens, spaces, case, plurals), creatures that differ by their BF (seed 000
l. 1237-1241: a monster's F and E doubled give BF and BE, a character adds 3), the GM's values over
the defaults, the defaults said in the reply, and a lone « Gobelin » that answers to « Gobelin 1 »."""

from __future__ import annotations

from typing import Any

import pytest

from bot.context import AppContext
from bot.data_loading import load_all
from bot.db.repositories import set_channel_ruleset
from bot.services.caller import Caller
from bot.services.fights._core import QUICK_NPC_DEFAULTS, FightOutcome
from bot.services.fights.conditions import edit_condition
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight, remove_combatant
from bot.services.fights.roster import NpcStats, find_preset, quick_label
from bot.services.fights.rounds import new_round
from bot.services.fights.systems import check_complete

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL = 810, 43
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
EN_GM = Caller(user_id=4, guild_id=GUILD, channel_id=CHANNEL, locale="en-US", manage_guild=True)
DOCS = {name: table.document for name, table in load_all().items()}
BANDIT = NpcStats(cc=35, f=35, e=30, weapons="epee")


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


def table_bf(creature: str) -> int:
    return next(
        int(e["BF"]) for e in DOCS["creatures_bf"]["entries"] for c in e["creatures"] if c["id"] == creature
    )


async def opened(ctx: AppContext) -> None:
    ok(await open_fight(ctx, GM, name="Embuscade"))


async def fighters(ctx: AppContext) -> dict[str, dict[str, Any]]:
    state = ok(await show(ctx, GM))["state"]
    return {c["name"]: c for c in state["combatants"]}


def names(result: dict[str, Any]) -> list[str]:
    return [c["name"] for c in result["added"]]


async def test_bandits_of_any_name_with_their_stats_numbered_and_continued(ctx: AppContext) -> None:
    await opened(ctx)
    first = await add_combatants(ctx, GM, who="3 bandits", stats=BANDIT)
    assert names(ok(first)) == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert first.reply.title == "➕ 3 combattants ajoutés"
    text = first.reply.description or ""
    # A human: F 35 → BF 3 + 3, E 30 → BE 3 + 3 (the playable +3, as a sheet without a race).
    line = (
        "**Bandit 1** — CC 35 · CT 25 · F 35 · Ag 30 · A 1 · BF 6 · BE 6"
        " (dont +3 au BF et +3 au BE des personnages, rééquilibrage des forces)"
    )
    assert line in text
    assert "rééquilibrage des forces) · Epée\n" in text  # the weapon table's name
    assert "Par défaut : CT 25, Ag 30, A 1 (à préciser avec `ct:`, `ag:`, `a:`)." in text
    one = await add_combatants(ctx, GM, who="Bandit", stats=NpcStats(cc=40, f=40, be=5, ag=35, ct=30, a=2))
    assert names(ok(one)) == ["Bandit 4"] and one.reply.title == "➕ 1 combattant ajouté"
    # E read back from the BE given (5 − 3 = 2 tens), said as a default
    bonus = "(dont +3 au BF et +3 au BE des personnages, rééquilibrage des forces)"
    assert f"BF 7 · BE 5 {bonus}" in (one.reply.description or "")
    assert "Par défaut : E 20 (à préciser avec `caracs:E:…`)." in (one.reply.description or "")
    ok(await remove_combatant(ctx, GM, who="Bandit 1"))
    assert names(ok(await add_combatants(ctx, GM, who="bandits", count=2, stats=BANDIT))) == [
        "Bandit 5",
        "Bandit 6",
    ]
    bandit = (await fighters(ctx))["Bandit 4"]["characteristics"]
    assert (bandit["CC"], bandit["F"], bandit["BF"], bandit["BE"], bandit["A"]) == (40, 40, 7, 5, 2)
    # the GM's capitalisation kept, plurals before a linking word only, -aux → -al
    assert names(ok(await add_combatants(ctx, GM, who="2 gardes du Reik", stats=BANDIT))) == [
        "Garde du Reik 1",
        "Garde du Reik 2",
    ]
    assert quick_label("chevaux", plural=True) == "Cheval"
    assert quick_label("hommes d'armes", plural=True) == "Homme d'armes"
    assert quick_label("Mathias", plural=False) == "Mathias"


async def test_stats_given_through_caracs_skills_included(ctx: AppContext) -> None:
    await opened(ctx)
    added = ok(await add_combatants(ctx, GM, who="Spadassin", stats=NpcStats(caracs="CC:50 E:40 Esquive:10")))
    fighter = (await fighters(ctx))["Spadassin"]
    ch = fighter["characteristics"]
    # Spadassin: a character of the table, BF 7 → F 40; E 40 given → BE 4 + 3.
    assert (ch["CC"], ch["F"], ch["E"], ch["BF"], ch["BE"]) == (50, 40, 40, table_bf("spadassin"), 7)
    assert names(added) == ["Spadassin"]


async def test_what_a_quick_npc_lacks_is_named(ctx: AppContext) -> None:
    await opened(ctx)
    refused(
        await add_combatants(ctx, GM, who="Bandit"),
        "« Bandit » n'est ni un personnage ni une créature connue (gobelin, orque, troll…) : pour en faire un"
        " PNJ rapide, donnez `cc:`, `f:` (ou `bf:`) et `caracs:E:…` (ou `be:`).",
    )
    refused(
        await add_combatants(ctx, GM, who="3 bandits", stats=NpcStats(cc=35, f=35)),
        "pour en faire un PNJ rapide, donnez `caracs:E:…` (ou `be:`).",
    )
    refused(
        await add_combatants(ctx, EN_GM, who="2 bandits", stats=NpcStats(be=4)),
        "“bandits” is neither a character nor a known creature (goblin, orc, troll…): to make it a quick"
        " NPC, give `ws:` and `s:` (or `sb:`).",
    )
    assert not (await fighters(ctx))


@pytest.mark.parametrize(
    "text",
    ["homme-bête", "hommes-bêtes", "Homme bête", "HOMMES BETES", "hommes_betes", "Hommebête", "beastmen"],
)
def test_creature_names_are_forgiven(text: str) -> None:
    preset = find_preset(DOCS, text)
    assert preset is not None and preset["id"] == "homme_bete"


def test_other_creatures_are_found_and_a_bandit_is_not() -> None:
    texts = ("Orques noirs", "black orcs", "TROLLS", "orc")
    found = {t: (find_preset(DOCS, t) or {}).get("id") for t in texts}
    assert found == dict(zip(texts, ("orque_noir", "orque_noir", "troll", "orque"), strict=True))
    assert find_preset(DOCS, "bandit") is None and find_preset(DOCS, "orques noires blanches") is None


async def test_creatures_differ_by_their_bf_and_the_gm_values_win(ctx: AppContext) -> None:
    await opened(ctx)
    troll = await add_combatants(ctx, GM, who="troll")
    text = troll.reply.description or ""
    # Troll, a monster of BF 10: F 50 (doubled: 100 → BF 10), E = F, so BE 10.
    assert "**Troll** — CC 30 · CT 25 · F 50 · Ag 30 · A 1 · BF 10 · BE 10 · " in text
    assert (
        "F 50 tirée du BF 10 de la table des créatures. E 50 = F par défaut (la table ne donne pas de BE)."
        " Monstre : BF et BE sont ses F et E doublées."
    ) in text
    assert "Par défaut : CC 30, CT 25, F 50, E 50, Ag 30, A 1 (à préciser avec `cc:`, `ct:`, `f:`," in text
    ok(await add_combatants(ctx, GM, who="2 orques"))
    ok(await add_combatants(ctx, GM, who="humain"))
    ok(await add_combatants(ctx, GM, who="orque noir", stats=NpcStats(f=45, caracs="E:35", cc=45)))
    ok(await add_combatants(ctx, GM, who="minotaure", stats=NpcStats(bf=8, be=7)))
    seen = {name: c["characteristics"] for name, c in (await fighters(ctx)).items()}
    profile = {name: (ch["F"], ch["E"], ch["BF"], ch["BE"]) for name, ch in seen.items()}
    assert profile == {
        "Troll": (50, 50, table_bf("troll"), 10),
        "Orque 1": (35, 35, table_bf("orque"), 7),
        "Orque 2": (35, 35, 7, 7),
        "Humain": (30, 30, table_bf("humain"), 6),  # a character: 30 // 10 + 3
        "Orque noir": (45, 35, 9, 7),  # the GM's F 45 and E 35, doubled
        "Minotaure": (45, 45, 8, 7),  # the GM's BF and BE as given
    }
    assert seen["Orque noir"]["CC"] == 45 and seen["Troll"]["Ag"] == QUICK_NPC_DEFAULTS["Ag"]


async def test_plural_creature_names_with_hyphens_and_in_english(ctx: AppContext) -> None:
    await opened(ctx)
    assert names(ok(await add_combatants(ctx, GM, who="2 hommes-bêtes"))) == ["Homme bête 1", "Homme bête 2"]
    english = await add_combatants(ctx, EN_GM, who="2 Beastmen")
    assert names(ok(english)) == ["Beastman 1", "Beastman 2"]
    assert english.reply.title == "➕ 2 fighters added"
    assert "Monster: its SB and TB are its S and T doubled." in (english.reply.description or "")
    assert "Defaults: WS 30, BS 25, S 35, T 35, Ag 30, A 1 (set them with `ws:`, `bs:`, `s:`," in (
        english.reply.description or ""
    )
    # « homme-bete 2 », « HOMME BÊTE 2 » name the same fighter
    ok(await edit_condition(ctx, GM, who="homme-bete 2", op="add", kind="prone"))
    state = await fighters(ctx)
    assert [k["kind"] for k in state["Homme bête 2"]["conditions"]] == ["prone"]


async def test_a_lone_goblin_answers_to_gobelin_and_gobelin_1(ctx: AppContext) -> None:
    await opened(ctx)
    assert names(ok(await add_combatants(ctx, GM, who="gobelin"))) == ["Gobelin"]
    ok(await new_round(ctx, GM, dice="Gobelin 1: 10 10 10"))
    ok(await edit_condition(ctx, GM, who="Gobelin 1", op="add", kind="prone"))
    ok(await edit_condition(ctx, GM, who="GOBELIN", op="add", stat="CC", value=-10, rounds=2))
    assert len((await fighters(ctx))["Gobelin"]["conditions"]) == 2
    # a second one is « Gobelin 2 »; « Gobelin » and « Gobelin 1 » still name the first
    assert names(ok(await add_combatants(ctx, GM, who="gobelin"))) == ["Gobelin 2"]
    ok(await edit_condition(ctx, GM, who="gobelin 1", op="remove", index=1))
    assert [k["kind"] for k in (await fighters(ctx))["Gobelin"]["conditions"]] == ["modifier"]


async def test_a_name_that_starts_two_fighters_is_refused_listing_them(ctx: AppContext) -> None:
    await opened(ctx)
    assert names(ok(await add_combatants(ctx, GM, who="2 gobelins"))) == ["Gobelin 1", "Gobelin 2"]
    refused(
        await edit_condition(ctx, GM, who="Gobelin", op="add", kind="prone"),
        "« Gobelin » désigne plusieurs combattants : Gobelin 1, Gobelin 2. Donnez le nom entier.",
    )
    refused(
        await remove_combatant(ctx, EN_GM, who="gob"),
        "“gob” matches several fighters: Gobelin 1, Gobelin 2. Give the full name.",
    )
    ok(await edit_condition(ctx, GM, who="gobelin 2", op="add", kind="prone"))


async def test_v1_quick_npcs_are_numbered_the_same_way(ctx: AppContext) -> None:
    check_complete()  # importing the systems registers the v1 adapter
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "v1")
    await opened(ctx)
    caracs = NpcStats(caracs="CC:30 CT:25 F:3 E:3 B:7 I:30 A:1 Dex:25")
    assert names(ok(await add_combatants(ctx, GM, who="3 chevaux", stats=caracs))) == [
        "Cheval 1",
        "Cheval 2",
        "Cheval 3",
    ]
    assert names(ok(await add_combatants(ctx, GM, who="cheval", stats=caracs))) == ["Cheval 4"]
