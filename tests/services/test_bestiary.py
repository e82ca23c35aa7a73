"""The GM's bestiary (``/pnj``): a template saved once per server and ruleset, added by name with a
count (« 3 Bandits » → Bandit 1 … 3), the typed stats over the template's, the seed's creature rows
offered « à compléter » until the GM saves his own values (which then win), names forgiven
(accents, hyphens, plurals, English), GM only for writes, and the other rulesets' templates."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.caller import Caller
from bot.services.fights import bestiary
from bot.services.fights._core import FightOutcome
from bot.services.fights.bestiary import TemplateInput
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import check_complete

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL, OTHER_GUILD = 820, 44, 821
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
EN_GM = Caller(user_id=4, guild_id=GUILD, channel_id=CHANNEL, locale="en-US", manage_guild=True)
PLAYER = Caller(user_id=7, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
ELSEWHERE = Caller(user_id=3, guild_id=OTHER_GUILD, channel_id=45, locale="fr", manage_guild=True)
BANDIT = TemplateInput(
    name="Bandit", cc=35, f=35, e=30, weapons="epee", armour="Chemise de mailles, maille_cousue_casque"
)


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


async def fighters(ctx: AppContext, caller: Caller = GM) -> dict[str, dict[str, Any]]:
    state = ok(await show(ctx, caller))["state"]
    return {c["name"]: c for c in state["combatants"]}


def added(outcome: FightOutcome) -> list[str]:
    return [c["name"] for c in ok(outcome)["added"]]


async def test_a_saved_bandit_comes_three_times_with_its_gear_and_typed_stats_win(ctx: AppContext) -> None:
    saved = await bestiary.save_template(ctx, GM, BANDIT)
    result = ok(saved)["template"]
    assert result["characteristics"] == {"CC": 35, "F": 35, "E": 30} and result["saved"]
    assert result["weapons"] == ["epee"] and result["armour"] == ["maille_chemise", "maille_cousue_casque"]
    assert saved.reply.title == "Modèle « Bandit » enregistré"
    text = saved.reply.description or ""
    assert "**Bandit** — personnage · CC 35 · CT 25 · F 35 · E 30 · Ag 30 · A 1 · BF 6 · BE 6 · Epée" in text
    assert "Par défaut : CT 25, Ag 30, A 1." in text
    ok(await open_fight(ctx, GM, name="Embuscade"))
    three = await add_combatants(ctx, GM, who="3 Bandits")
    assert added(three) == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert "D'après le modèle « Bandit » du serveur." in (three.reply.description or "")
    more = await add_combatants(ctx, GM, who="2 bandit", stats=NpcStats(cc=50, weapons="lance"))
    assert added(more) == ["Bandit 4", "Bandit 5"]
    team = await fighters(ctx)
    one, four = team["Bandit 1"], team["Bandit 4"]
    ch = one["characteristics"]
    assert (ch["CC"], ch["F"], ch["E"], ch["BF"], ch["BE"]) == (35, 35, 30, 6, 6)
    assert one["weapons"] == ["epee"] and set(one["armour"]) == {"corps", "bras", "tete"}
    assert four["characteristics"]["CC"] == 50 and four["characteristics"]["F"] == 35
    assert four["weapons"] == ["lance"] and set(four["armour"]) == {"corps", "bras", "tete"}
    # the reply's hint, `qui:Bandit nombre:2`, finds the template too
    assert "`/combat ajouter qui:Bandit nombre:3` pour trois (Bandit 1 à 3)" in text
    assert added(await add_combatants(ctx, GM, who="Bandit", count=2)) == ["Bandit 6", "Bandit 7"]
    assert (await fighters(ctx))["Bandit 7"]["characteristics"]["CC"] == 35


async def test_the_seed_rows_are_offered_to_complete_and_the_gm_values_win(ctx: AppContext) -> None:
    listing = await bestiary.list_templates(ctx, PLAYER)
    text = listing.reply.description or ""
    assert listing.reply.ephemeral and "Aucun modèle enregistré pour l'instant." in text
    assert "• **Troll** — monstre · BF 10 · à compléter" in text
    assert "• **Homme bête** — monstre · BF 7 · à compléter" in text
    shown = await bestiary.show_template(ctx, PLAYER, name="trolls")
    assert "F 50 tirée du BF 10 de la table des créatures." in (shown.reply.description or "")
    assert "complétez-le avec `/pnj enregistrer nom:Troll cc:… f:… e:…`" in (shown.reply.description or "")
    ok(await open_fight(ctx, GM, name="Pont"))
    before = added(await add_combatants(ctx, GM, who="troll"))
    assert before == ["Troll"]
    assert (await fighters(ctx))["Troll"]["characteristics"]["F"] == 50  # from the table's BF 10
    ok(await bestiary.save_template(ctx, GM, TemplateInput(name="Troll", cc=40, f=55, e=50, a=2)))
    assert added(await add_combatants(ctx, GM, who="2 trolls")) == ["Troll 2", "Troll 3"]
    troll = (await fighters(ctx))["Troll 2"]["characteristics"]
    # a monster: BF and BE are F and E doubled (their tens)
    assert (troll["CC"], troll["F"], troll["E"], troll["BF"], troll["BE"], troll["A"]) == (
        40,
        55,
        50,
        11,
        10,
        2,
    )
    listing = await bestiary.list_templates(ctx, GM)
    text = listing.reply.description or ""
    assert "• **Troll** — monstre · CC 40" in text and "Troll** — monstre · BF 10" not in text
    # a template of a seed creature that gives only CC: its F still comes from the table's BF
    ok(await bestiary.save_template(ctx, GM, TemplateInput(name="Homme-bête", cc=38)))
    assert added(await add_combatants(ctx, GM, who="2 hommes-bêtes")) == ["Homme-bête 1", "Homme-bête 2"]
    beast = (await fighters(ctx))["Homme-bête 1"]["characteristics"]
    assert (beast["CC"], beast["F"], beast["BF"]) == (38, 35, 7)
    assert (await fighters(ctx)).get("Homme-bête 2") is not None


async def test_names_are_forgiven_and_english_finds_the_french_template(ctx: AppContext) -> None:
    ok(await bestiary.save_template(ctx, GM, TemplateInput(name="gobelin", cc=28, f=25, e=25)))
    shown = ok(await bestiary.show_template(ctx, GM, name="GOBELINS"))["template"]
    assert shown["name"] == "Gobelin" and shown["kind"] == "monster"
    ok(await open_fight(ctx, EN_GM, name="Cave"))
    assert added(await add_combatants(ctx, EN_GM, who="2 goblins")) == ["Gobelin 1", "Gobelin 2"]
    goblin = (await fighters(ctx, EN_GM))["Gobelin 1"]["characteristics"]
    assert (goblin["CC"], goblin["BF"], goblin["BE"]) == (28, 5, 5)
    # completing: the values given replace those saved, the others stay
    updated = await bestiary.save_template(ctx, EN_GM, TemplateInput(name="Goblins", e=35))
    assert updated.reply.title == "Template “Goblins” updated"
    assert ok(updated)["template"]["characteristics"] == {"CC": 28, "F": 25, "E": 35}
    choices = await bestiary.template_choices(ctx, GM, "gob")
    assert choices == [("Goblins (renove)", "Goblins")]
    assert ("Troll — à compléter", "Troll") in await bestiary.template_choices(ctx, GM, "tro")


async def test_writes_are_the_gm_s_and_bad_templates_are_refused_unwritten(ctx: AppContext) -> None:
    refused(await bestiary.save_template(ctx, PLAYER, BANDIT), "MJ")
    refused(
        await bestiary.save_template(ctx, GM, TemplateInput(name="Bandit", cc=35, f=35)),
        "« Bandit » n'est pas une créature de la table : pour en faire un modèle, donnez `e:` (ou `be:`).",
    )
    refused(
        await bestiary.save_template(ctx, EN_GM, TemplateInput(name="Bandit", e=30)),
        "“Bandit” is no creature of the table: to make it a template, give `ws:` and `s:` (or `sb:`).",
    )
    refused(await bestiary.save_template(ctx, GM, TemplateInput(name="Troll")), "Rien à enregistrer")
    refused(
        await bestiary.save_template(
            ctx, GM, TemplateInput(name="Bandit", cc=35, f=35, e=30, weapons="bâton magique")
        ),
        "bâton magique",
    )
    refused(await bestiary.show_template(ctx, GM, name="Bandit"), "Aucun modèle « Bandit » sur ce serveur")
    ok(await bestiary.save_template(ctx, GM, BANDIT))
    refused(await bestiary.delete_template(ctx, PLAYER, name="Bandit"), "MJ")
    refused(await bestiary.show_template(ctx, ELSEWHERE, name="Bandit"), "Aucun modèle")  # per server
    refused(await bestiary.delete_template(ctx, GM, name="Orque"), "créature de la table du supplément")
    deleted = await bestiary.delete_template(ctx, GM, name="bandits")
    assert deleted.reply.description == "Modèle « Bandit » supprimé."
    refused(await bestiary.show_template(ctx, GM, name="Bandit"), "Aucun modèle")


async def test_a_v1_template_stores_the_v1_characteristics_and_stays_in_v1(ctx: AppContext) -> None:
    check_complete()  # importing the systems registers the adapters
    ok(await bestiary.save_template(ctx, GM, BANDIT))  # a renove template
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "v1")
    refused(
        await bestiary.save_template(ctx, GM, TemplateInput(name="Brigand", cc=30)),
        "En v1, donnez les caractéristiques avec l'option caracs",
    )
    refused(await bestiary.save_template(ctx, GM, TemplateInput(name="Brigand")), "Rien à enregistrer")
    refused(
        await bestiary.save_template(
            ctx, GM, TemplateInput(name="Brigand", caracs="CC:30", weapons="Épée +1 =x")
        ),
        "Épée +1 =x",
    )
    saved = ok(
        await bestiary.save_template(
            ctx,
            GM,
            TemplateInput(
                name="Brigand", caracs="CC:33 CT:25 F:3 E:3 B:7 I:30 A:1 Dex:25", weapons="Épée +1"
            ),
        )
    )
    assert saved["template"]["ruleset"] == "v1" and saved["template"]["characteristics"]["B"] == 7
    listing = await bestiary.list_templates(ctx, GM)
    text = listing.reply.description or ""
    assert "**Brigand** — CC 33" in text and "Bandit" not in text and "Troll" not in text
    ok(await open_fight(ctx, GM, name="Forêt"))
    assert added(await add_combatants(ctx, GM, who="2 brigands", stats=NpcStats(caracs="CC:40"))) == [
        "Brigand 1",
        "Brigand 2",
    ]
    brigand = (await fighters(ctx))["Brigand 1"]
    assert brigand["characteristics"]["CC"] == 40 and brigand["characteristics"]["I"] == 30
    assert brigand["weapons"] == ["epee"]
    refused(await add_combatants(ctx, GM, who="Bandit"), "Aucun personnage « Bandit »")
