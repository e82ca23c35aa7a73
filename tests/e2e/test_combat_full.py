"""The issue's "done when" fight through the emulator and the real bot process: three rounds, two PCs
(Albert: sword and shield; Bertha: a bow) against three goblins, every die typed by hand except the
one defence that goes through the bot's Parer button (whose dice are read back from the roll log).

Every number the bot shows is recomputed here from the data tables (``data/*.json``) and the seed's
rules (combat WS, postures, weapon attributes, range bands, armour coverage, the critical grid, the
parry side-effect bands …), never copied from the bot's output. The tracker is the one pinned
message, edited once per action; a SIGKILL mid-round resumes the same fight; two fights in two
threads do not see each other; every roll of the fight is in the roll log.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from collections.abc import Awaitable
from fractions import Fraction
from typing import Any

from bot.data_loading import load_all
from bot.emulator.client import Result
from bot.emulator.state import Channel, Message
from bot.services.fights._core import QUICK_NPC_DEFAULTS

from .harness import E2E

TABLES = {name: table.document for name, table in load_all().items()}

# -- the rules, recomputed from the data tables --------------------------------------------------


def _s(n: int) -> str:
    """The French plural mark: « 1 round », « 2 rounds » (0 and 1 take the singular)."""
    return "s" if n > 1 else ""


def entry(table: str, entry_id: str) -> dict[str, Any]:
    return next(e for e in TABLES[table]["entries"] if e.get("id") == entry_id)


def weapon(wid: str) -> dict[str, Any]:
    for table in ("weapons_melee", "weapons_ranged"):
        for e in TABLES[table]["entries"]:
            if e["id"] == wid:
                return e
    raise KeyError(wid)


def mechanics(attribute: str, kind: str) -> list[dict[str, Any]]:
    return [m for m in entry("weapon_attributes", attribute)["mechanics"] if m["type"] == kind]


def posture_mod(posture: str, stat: str, option: str | None = None) -> int:
    spec = entry("postures", posture)
    mods = list(spec.get("modifiers") or [])
    for opt in spec.get("options") or []:
        if opt["id"] == option:
            mods += opt["effects"]
    return sum(int(m["value"]) for m in mods if m.get("stat") == stat)


def defence_bonus(wid: str, who: str, defence: str) -> int:
    """Défensive (wielder) / Lente, Rapide (opponent) on a parry or a dodge."""
    return sum(
        int(m["value"])
        for a in weapon(wid)["attributes"]
        for m in mechanics(a, "defence_modifier")
        if m["who"] == who and defence in m["defences"]
    )


def by_armour_class(wid: str, armour_class: str) -> int:
    return sum(
        int(m["modifiers"][armour_class])
        for a in weapon(wid)["attributes"]
        for m in mechanics(a, "damage_by_armour_class")
    )


def range_band(wid: str, distance: float) -> dict[str, Any]:
    ranges = weapon(wid)["range"]
    for band in TABLES["range_bands"]["entries"]:
        up_to = band["up_to"]
        if up_to is None:
            return band
        limit = Fraction(ranges[up_to["range"]] * up_to["numerator"], up_to["denominator"])
        if distance <= limit:
            return band
    raise AssertionError("no band")


def shield(wid: str) -> dict[str, Any]:
    entries = TABLES["shields"]["entries"]
    return next(
        (s for s in entries if wid in s["weapons"]),
        next(s for s in entries if s["default_for_other_weapons"]),
    )


def weapon_damage(wid: str, bf: int) -> int:
    damage = weapon(wid)["damage"]
    return int(damage["value"]) if damage["base"] == "fixed" else bf + int(damage["modifier"])


def piece(pid: str) -> dict[str, Any]:
    return entry("armour", pid)


def family(fid: str) -> dict[str, Any]:
    return next(f for f in TABLES["armour"]["families"] if f["id"] == fid)


ARMOUR_PV = next(q["pv"] for q in TABLES["armour_quality"]["entries"] if q["quality"] == "normale")
WEAR = TABLES["armour_quality"]["wear"]["pv_per_hit"]


def grid(d100: int, damage: int) -> int:
    matrix = TABLES["critical_matrix"]
    row = next(e for e in matrix["entries"] if e["d100_min"] <= d100 <= e["d100_max"])
    column = min(damage, matrix["damage_columns"][-1])
    overflow = max(0, damage - matrix["damage_columns"][-1]) * row["overflow_per_point"]
    value = row["values"][matrix["damage_columns"].index(column)] + overflow
    return max(matrix["clamp"]["min"], min(matrix["clamp"]["max"], value))


def row_label(d100: int) -> str:
    matrix = TABLES["critical_matrix"]
    return next(e["label"] for e in matrix["entries"] if e["d100_min"] <= d100 <= e["d100_max"])


def critical_entry(kind: str, zone: str, value: int) -> dict[str, Any]:
    doc = TABLES[f"criticals_{kind}"]
    return next(e for e in doc["entries"] if e["zone"] == zone and e["value"] == value)


def critical(kind: str, zone: str, value: int) -> list[dict[str, Any]]:
    return list(critical_entry(kind, zone, value)["mechanics"])


def narration(kind: str, zone: str, value: int) -> str:
    return "> " + critical_entry(kind, zone, value)["narration"]["fr"]


def side_band(total: int) -> dict[str, Any]:
    for band in TABLES["parry_side_effects"]["entries"]:
        if (band["min"] is None or total >= band["min"]) and (band["max"] is None or total <= band["max"]):
            return band
    raise AssertionError(total)


def take_share(band: dict[str, Any], damage: int) -> int:
    taken = 0
    for effect in band["effects"]:
        if effect["type"] == "take_damage":
            share = Fraction(effect["fraction"]) * damage
            taken += math.ceil(share) if effect["rounding"] == "up" else int(share)
    return taken


def degrees(target: int, roll: int) -> tuple[bool, int]:
    """renove: success if roll ≤ target; °R/°E = |target − roll| // 10 (no 01/02 or 99/00 here)."""
    assert 3 <= roll <= 98, "keep the scripted rolls clear of the 01/02 and 99/00 specials"
    return (roll <= target, (target - roll) // 10 if roll <= target else (roll - target) // 10)


def zone_for(r: int) -> str:
    return "tete" if r >= 4 else "corps" if r == 3 else "bras" if r == 2 else "jambes"


ZONE = {"tete": "tête", "corps": "corps", "bras": "bras", "jambes": "jambes"}
REACH = {0: "jambes", 1: "jambes", 2: "jambes, bras", 3: "jambes, bras, corps"}


def reachable(r: int) -> str:
    return REACH.get(r, "jambes, bras, corps, tête")


def roll_text(roll: int) -> str:
    return "00" if roll == 100 else f"{roll:02d}"


def check_line(target: int, roll: int) -> str:
    success, deg = degrees(target, roll)
    return f"Jet **{roll:02d}** → {'Réussite' if success else 'Échec'} ({deg} {'°R' if success else '°E'})"


# -- the people --------------------------------------------------------------------------------

ALBERT = {"CC": 45, "CT": 30, "F": 35, "E": 40, "Ag": 38, "Int": 31, "FM": 29, "Soc": 33}
BERTHA = {"CC": 30, "CT": 45, "F": 30, "E": 35, "Ag": 40, "Int": 31, "FM": 35, "Soc": 33}
GOBLIN = dict(QUICK_NPC_DEFAULTS)  # the quick-NPC defaults (documented reading of the service)
BONUS = TABLES["creatures_bf"]["rule"]["playable_bonus"]
BF = {
    "albert": ALBERT["F"] // 10 + BONUS["BF"],
    "bertha": BERTHA["F"] // 10 + BONUS["BF"],
    "goblin": next(
        e["BF"] for e in TABLES["creatures_bf"]["entries"] for c in e["creatures"] if c["id"] == "gobelin"
    ),
}
BE = {
    "albert": ALBERT["E"] // 10 + BONUS["BE"],
    "bertha": BERTHA["E"] // 10 + BONUS["BE"],
    "goblin": BF["goblin"],  # creatures_bf gives no BE: E = F by default, so BE = BF (service reading)
}
GAMBISON = "matelassee_gambison_court"
PADDED = piece(GAMBISON)
PADDED_PA = family(PADDED["family"])["pa"]
PADDED_CLASS = family(PADDED["family"])["class"]
SHIELD = shield("bouclier")
WS = 50  # CCcombat = CC + (50 − CC opponent)


def caracs(stats: dict[str, int]) -> str:
    return " ".join(f"{k}:{v}" for k, v in stats.items())


def dice_line(dice: dict[str, tuple[int, int, int]]) -> str:
    return "; ".join(f"{name}: {' '.join(map(str, d))}" for name, d in dice.items())


INITIATIVE = {
    "Albert": (15, 12, 15),
    "Bertha": (10, 10, 10),
    "Gobelin 1": (5, 5, 5),
    "Gobelin 2": (4, 4, 4),
    "Gobelin 3": (3, 3, 3),
}
AG = {"Albert": ALBERT["Ag"], "Bertha": BERTHA["Ag"], **{f"Gobelin {i}": GOBLIN["Ag"] for i in (1, 2, 3)}}


# -- watching the thread -----------------------------------------------------------------------


class Table:
    """One fight's thread: its pinned tracker, edited once per public action."""

    def __init__(self, emu: E2E, thread: Channel, name: str) -> None:
        self.emu = emu
        self.thread = thread
        self.name = name
        [self.tracker] = emu.pins(thread)
        self.tracker_id = self.tracker.id
        self.edits = len(self.tracker.history)

    def trackers(self) -> list[Message]:
        return [
            m
            for m in self.emu.channel_messages(self.thread)
            if m.embeds and m.embeds[0].get("title") == f"🛡️ {self.name}"
        ]

    async def act(self, action: Awaitable[Result]) -> Result:
        """A public action: its reply, then exactly one edit of the same pinned tracker."""
        result = await action
        assert not result.ephemeral, result.embed
        await self.emu.emu.wait_until(lambda: len(self.tracker.history) > self.edits, what="the tracker edit")
        self.edits += 1
        assert len(self.tracker.history) == self.edits
        [pinned] = self.emu.pins(self.thread)
        assert pinned.id == self.tracker_id and self.trackers() == [self.tracker]
        return result

    async def refused(self, action: Awaitable[Result], text: str) -> None:
        """An ephemeral refusal: nothing posted, the tracker untouched."""
        result = await action
        assert result.ephemeral and text in result.embed["description"], result.embed
        assert len(self.tracker.history) == self.edits

    def status(self) -> str:
        return str(self.tracker.embeds[0]["description"])

    def fields(self) -> dict[str, str]:
        return {
            f["name"].lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f["value"]
            for f in self.tracker.embeds[0]["fields"]
        }

    def lines(self, who: str) -> list[str]:
        return self.fields()[who].split("\n")


def text(result: Result) -> str:
    return str(result.embed["description"])


def lines_of(result: Result) -> list[str]:
    return text(result).split("\n")


def rolls(emu: E2E, channel: Channel) -> list[tuple[str, int | None, dict[str, Any]]]:
    path = emu.database_url.split(":///", 1)[1]
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT kind, total, result FROM roll_log WHERE channel_id = ? ORDER BY id", (int(channel.id),)
        ).fetchall()
    return [(kind, total, json.loads(result)) for kind, total, result in rows]


def kinds(found: list[tuple[str, int | None, dict[str, Any]]], kind: str) -> list[int | None]:
    return [total for k, total, _ in found if k == kind]


# -- the scenario ------------------------------------------------------------------------------


ORC_CHOOSES = "**⏳ Orque 2 choisit sa posture (c'est son tour)**\nPostures à choisir : Orque 1\nRound 1"


async def setup_party(emu: E2E) -> Table:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Albert", caracs=caracs(ALBERT))
    await alice.slash("perso equiper", arme="epee")
    await alice.slash("perso equiper", arme="bouclier")
    await bob.slash("perso creer", nom="Bertha", caracs=caracs(BERTHA))
    await bob.slash("perso equiper", arme="arc_simple")
    opened = await gm.slash("combat ouvrir", nom="Embuscade")
    await opened.wait_followup()
    table = Table(emu, emu.thread("Embuscade"), "Embuscade")
    assert table.status() == "**Le MJ ajoute les combattants, puis lance le round 1 (/combat round).**"
    thread = table.thread
    await table.refused(bob.slash("combat ajouter", qui="Albert", channel=thread), "Albert n'est pas à vous")
    await table.act(alice.slash("combat ajouter", qui="Albert", channel=thread))
    await table.act(bob.slash("combat ajouter", qui="Bertha", channel=thread))
    added = await table.act(gm.slash("combat ajouter", qui="3 gobelins", armure=GAMBISON, channel=thread))
    # The short gambeson: whole body, half of the arms and legs (the "*" marks a partial layer).
    shares = PADDED["coverage"]
    assert shares["corps"] == 1 and shares["bras"] == shares["jambes"] == 0.5
    for i in (1, 2, 3):
        assert (
            f"**Gobelin {i}** — CC {GOBLIN['CC']} · CT {GOBLIN['CT']} · F {GOBLIN['F']} · Ag {GOBLIN['Ag']}"
            f" · A 1 · BF {BF['goblin']} · BE {BE['goblin']} · Hache/Pic"
            f" · PA corps {PADDED_PA}, bras {PADDED_PA}*, jambes {PADDED_PA}*"
        ) in text(added)
    assert set(table.fields()) == {"Ordre", "Albert", "Bertha", "Gobelin 1", "Gobelin 2", "Gobelin 3"}
    # Albert's shield: its PV from shields.json
    assert f"Bouclier {SHIELD['pv']}/{SHIELD['pv']} PV" in table.lines("Albert")
    return table


async def new_round(table: Table, number: int) -> Result:
    gm = table.emu.user("gm")
    result = await table.act(gm.slash("combat round", des=dice_line(INITIATIVE), channel=table.thread))
    assert result.embed["title"] == f"⏱️ Round {number} — initiative"
    body = text(result)
    for name in ("Bertha", "Gobelin 1", "Gobelin 2", "Gobelin 3"):
        dice = INITIATIVE[name]
        total = sum(dice) + AG[name]
        line = f"**{name}** : {'+'.join(map(str, dice))} + Ag {AG[name]} = **{total}** → {total}"
        assert line in body, (line, body)
    # Albert's line: his dice; his Ag is checked by the service test of the shield's −5 Ag
    # (tests/services/test_fights_extra.py::test_a_shield_in_the_left_hand_costs_5_ag).
    assert "**Albert** : 15+12+15 + Ag" in body
    order = [line.split(" — ")[1].split(" (")[0] for line in table.fields()["Ordre"].split("\n")]
    assert order == ["Albert", "Bertha", "Gobelin 1", "Gobelin 2", "Gobelin 3"]
    return result


async def test_three_round_fight_every_die_by_hand(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    table = await setup_party(emu)
    thread = table.thread

    # ================================ round 1 ================================================
    round1 = await new_round(table, 1)
    assert table.status().split("\n") == [
        "**⏳ Albert choisit sa posture (c'est son tour)**",
        "Postures à choisir : Bertha, Gobelin 1, Gobelin 2, Gobelin 3",
        "Round 1",
    ]
    await table.act(alice.click("Téméraire", message=round1.message))
    assert table.lines("Albert")[0] == "Posture : téméraire"

    # Albert attacks Gobelin 1: CC 45 + (50 − 30) + 10 (téméraire) = 75; 34 → 4 °R → the head.
    target = ALBERT["CC"] + (WS - GOBLIN["CC"]) + posture_mod("temeraire", "attack")
    assert target == 75
    swing = await table.act(
        alice.slash("combat attaque", cible="Gobelin 1", jet=34, degats="7", channel=thread)
    )
    assert swing.embed["title"] == "⚔️ Albert → Gobelin 1 (Epée)"
    assert lines_of(swing)[:3] == [
        f"Test de CC : CC {ALBERT['CC']} · ajustement (50 − CC adverse) +{WS - GOBLIN['CC']}"
        f" · posture téméraire +{posture_mod('temeraire', 'attack')} = **{target} %**",
        check_line(target, 34),
        f"Localisation : °R 4 = **4** → **tête** (zones possibles : {reachable(4)})",
    ]
    assert [b["label"] for b in swing.components[0]["components"]] == [
        "Parer",
        "Esquiver",
        "Encaisser",
        "Défense auto",
    ]
    assert table.status().startswith("**⏳ Gobelin 1 doit se défendre contre Albert (attaque n° ")

    # Gobelin 1 parries with its axe (an A of this round): 30 + (50 − 45) = 35; 20 succeeds.
    parry_target = GOBLIN["CC"] + (WS - ALBERT["CC"]) + defence_bonus("epee", "opponent", "parry")
    parry = await table.act(
        gm.slash("combat defense", choix="parer", jet=20, contrecoup=60, tests="90", channel=thread)
    )
    axe = shield("hache_pic")  # an ordinary weapon's BE for the parry side effect
    vs_parry = max(0, 7 + BF["albert"] - axe["be"])
    side_total = 60 + ALBERT["F"] - GOBLIN["F"] + vs_parry
    band = side_band(side_total)
    ag_test = next(e for e in band["effects"] if e["type"] == "test")
    ag_target = GOBLIN["Ag"] + ag_test["modifier"]
    assert (vs_parry, side_total, band["label"], ag_target) == (7, 72, "71-80", 40)
    assert lines_of(parry) == [
        f"Gobelin 1 pare (une A de ce round, Hache/Pic) : CC {GOBLIN['CC']}"
        f" · ajustement (50 − CC adverse) +{WS - ALBERT['CC']} = **{parry_target} %**",
        check_line(parry_target, 20),
        f"Dégâts contre la parade : dé 7 · BF {BF['albert']} · BE d'Arme normale -{axe['be']} = {vs_parry}",
        f"Contrecoup : d100 60 · F attaquant +{ALBERT['F']} · F défenseur -{GOBLIN['F']}"
        f" · dégâts contre la parade +{vs_parry} = **{side_total}** → {band['label']} :"
        " recule de 2 m, test d'Ag +10 % ou chute",
        f"Test d'Ag de Gobelin 1 : Ag {GOBLIN['Ag']} · modificateur de l'effet +{ag_test['modifier']}"
        f" = **{ag_target} %**",
        check_line(ag_target, 90),
        "• à terre · jusqu'à se relever",
        "• Gobelin 1 tombe.",
        "▶ Au tour de **Bertha**.",
    ]
    assert "1. à terre · jusqu'à se relever" in table.lines("Gobelin 1")
    assert "doit se défendre" not in table.status()

    # Bertha's arrow at 10 m: short range 24 → ≤ 12 m is point blank (+10): 45 + 10 = 55.
    band10 = range_band("arc_simple", 10)
    bow_target = BERTHA["CT"] + band10["ct_modifier"]
    shot = await table.act(
        bob.slash(
            "combat attaque",
            cible="Gobelin 2",
            distance=10.0,
            jet=10,
            degats="9",
            critique=65,
            effets="20",
            durees="3 3",
            channel=thread,
        )
    )
    assert lines_of(shot) == [
        f"Test de CT : CT {BERTHA['CT']} · portée {band10['label']} +{band10['ct_modifier']}"
        f" = **{bow_target} %**",
        check_line(bow_target, 10),
        f"Localisation : °R 4 = **4** → **tête** (zones possibles : {reachable(4)})",
        f"🛡️ Gobelin 2 {gm.mention} : esquiver ou encaisser ?",
        # the turn stays Bertha's until the defence is answered
        "⏳ En attente de la défense : Gobelin 2 — le tour passe ensuite.",
    ]
    # Bob presses the goblin's button: refused, only to him, nothing written.
    wrong = await bob.click("Encaisser", message=shot.message)
    assert wrong.ephemeral and "Le MJ choisit cette défense pour l'instant" in wrong.embed["description"]

    # ---- the bot dies mid-round (SIGKILL), the defence still pending --------------------------
    await emu.kill_bot()
    await emu.restart_bot()
    shown = await gm.slash("combat voir", channel=thread)
    assert shown.ephemeral and shown.embed["description"].split("\n")[1:] == ["Round 1"]
    assert shown.embed["description"].startswith("**⏳ Gobelin 2 doit se défendre contre Bertha (attaque n° ")
    taken = await table.act(gm.click("Encaisser", message=shot.message))
    damage = 9 + weapon_damage("arc_simple", BF["bertha"]) - BE["goblin"]  # no armour on the head
    value = grid(65, damage)
    assert (damage, value) == (9, 11)
    tete11 = critical("projectiles", "tete", value)
    assert [m["type"] for m in tete11][:4] == ["no_action", "test", "modifier", "death_timer"]
    no_action = 3  # 1d10 → 3
    timer = 3 // 2  # 1d10/2 → 3 → 1 hour
    cc_malus = tete11[2]["value"]
    bleed = tete11[1]["on_success"][0]
    assert (
        lines_of(taken)[:18]
        == [
            "Gobelin 2 encaisse.",
            f"Dégâts (tête) : dé 9 · arme {weapon_damage('arc_simple', 0)} · BE -{BE['goblin']}"
            f" = **{damage}**",
            f"Critique : d100 65 (ligne {row_label(65)}), {damage} dégâts → table {value} = **{value}**"
            " — projectiles, tête",
            narration("projectiles", "tete", value),
            f"Test d'E de Gobelin 2 : E {GOBLIN['E']} = **{GOBLIN['E']} %**",
            check_line(GOBLIN["E"], 20),
            "Durée 1d10 : 1d10 (3) = 3",
            f"Durée 1d10 / 2 : 1d10 (3) / 2 = {timer}",
            f"• aucune action · {no_action} round{_s(no_action)}",
            f"• saigne : test d'E {bleed['modifier']:+d} % dans {bleed['every']} round{_s(bleed['every'])}",
            f"• CC {cc_malus:+d} · jusqu'à la fin du combat",
            f"• mourra s'il n'est pas soigné · {timer} heure{_s(timer)}",
            "• Le MJ tranche un effet pour Gobelin 2 (voir la narration).",
            "• Changement permanent proposé pour Gobelin 2 : Soc -5 (le MJ confirme)"
            " (pas de fiche : à noter à la main)",
            "• Changement permanent proposé pour Gobelin 2 : Intimidation +3 (le MJ confirme)"
            " (pas de fiche : à noter à la main)",
            # Gobelin 1 spent its only A on the parry, Gobelin 2 may not act: their slots pass
            "Gobelin 1 ne peut pas agir : son créneau passe.",
            "Gobelin 2 ne peut pas agir : son créneau passe.",
            "▶ Au tour de **Gobelin 3**.",
        ][:18]
    )
    # the bleeding test is not due yet: nothing prompted, /combat test refuses
    assert "/combat test" not in text(taken)
    await table.refused(
        gm.slash("combat test", qui="Gobelin 2", jet=15, channel=thread), "aucun test en attente"
    )
    stale = await gm.click("Encaisser", message=shot.message)
    assert stale.ephemeral and "déjà résolue" in stale.embed["description"]

    # Gobelin 3 swings at Albert: 30 + (50 − 45) = 35; 25 → 1 °R → the legs.
    g3_target = GOBLIN["CC"] + (WS - ALBERT["CC"])
    swing3 = await table.act(
        gm.slash(
            "combat attaque",
            cible="Albert",
            jet=25,
            degats="9",
            critique=15,
            effets="25",
            durees="4",
            channel=thread,
        )
    )
    assert lines_of(swing3) == [
        f"Test de CC : CC {GOBLIN['CC']} · ajustement (50 − CC adverse) +{WS - ALBERT['CC']}"
        f" = **{g3_target} %**",
        check_line(g3_target, 25),
        f"Localisation : °R 1 = **1** → **jambes** (zones possibles : {reachable(1)})",
        f"🛡️ Albert {alice.mention} : parer, esquiver ou encaisser ?",
        "⏳ En attente de la défense : Albert — le tour passe ensuite.",
    ]
    # Albert parries with his shield (the shield's A, his own A is spent):
    # 45 + (50 − 30) − 10 (téméraire) + 10 (shield: Défensive) + 10 (the axe is Lente) = 75.
    albert_parry = (
        ALBERT["CC"]
        + (WS - GOBLIN["CC"])
        + posture_mod("temeraire", "parry")
        + defence_bonus("bouclier", "wielder", "parry")
        + defence_bonus("hache_pic", "opponent", "parry")
    )
    assert albert_parry == 75
    shielded = await table.act(
        alice.slash("combat defense", choix="parer", jet=30, contrecoup=95, channel=thread)
    )
    vs_shield = max(0, 9 + BF["goblin"] - SHIELD["be"])
    shield_after = SHIELD["pv"] - vs_shield
    side = 95 + GOBLIN["F"] - ALBERT["F"] + vs_shield
    band = side_band(side)
    failed = 9 + BF["goblin"] - BE["albert"]  # Albert wears no armour
    share = take_share(band, failed)
    crit = grid(15, share)
    jambes = critical("tranchantes", "jambes", crit)
    e_test = jambes[0]
    e_target = ALBERT["E"] + e_test["modifier"]
    cc_rounds = 4 // 2
    assert (vs_shield, shield_after, side, band["label"], failed, share, crit) == (
        7,
        73,
        97,
        "91-100",
        8,
        2,
        5,
    )
    assert lines_of(shielded) == [
        f"Albert pare (une A de ce round, Bouclier) : CC {ALBERT['CC']} · ajustement (50 − CC adverse)"
        f" +{WS - GOBLIN['CC']} · posture téméraire {posture_mod('temeraire', 'parry')} · Défensive +10"
        f" · Lente +10 = **{albert_parry} %**",
        check_line(albert_parry, 30),
        f"Dégâts contre la parade : dé 9 · BF {BF['goblin']} · BE de Bouclier cerclé, en bois -{SHIELD['be']}"
        f" = {vs_shield}",
        f"Bouclier : {SHIELD['pv']} → {shield_after} PV (sur {SHIELD['pv']})",
        f"Contrecoup : d100 95 · F attaquant +{GOBLIN['F']} · F défenseur -{ALBERT['F']}"
        f" · dégâts contre la parade +{vs_shield} = **{side}** → {band['label']} :"
        " chute et subit ¼ des dégâts",
        "• à terre · jusqu'à se relever",
        "• Albert tombe.",
        f"Le défenseur subit {share} des {failed} dégâts.",
        f"Critique : d100 15 (ligne {row_label(15)}), {share} dégâts → table {crit} = **{crit}**"
        " — tranchantes, jambes",
        narration("tranchantes", "jambes", crit),
        f"Test d'E d'Albert : E {ALBERT['E']} · modificateur de l'effet {e_test['modifier']}"
        f" = **{e_target} %**",
        check_line(e_target, 25),
        "Durée 1d10 / 2 : 1d10 (4) / 2 = 2",
        f"• CC {jambes[1]['value']} · {cc_rounds} round{_s(cc_rounds)}",
        # the round ends here; the bleeding test falls due (every 1 round, at −10 %)
        "Fin du round 1.",
        f"🩸 Gobelin 2 saigne : test d'E {bleed['modifier']} % (/combat test).",
        "Le MJ lance le round 2 avec /combat round ou le bouton « Nouveau round ».",
    ]
    assert table.status() == "**Le round 1 est fini : le MJ lance le round 2**"
    # between two rounds no posture is shown: it is chosen for the next round
    assert table.lines("Albert")[1:] == [
        f"Bouclier {shield_after}/{SHIELD['pv']} PV",
        "1. à terre · jusqu'à se relever",
        f"2. CC {jambes[1]['value']} · {cc_rounds - 1} round{_s(cc_rounds - 1)}",
    ]
    assert table.lines("Gobelin 2")[1:] == [
        f"1. aucune action · {no_action - 1} round{_s(no_action - 1)}",
        f"2. saigne : test d'E {bleed['modifier'] + bleed['step']} %"
        f" dans {bleed['every']} round{_s(bleed['every'])}",
        f"3. CC {cc_malus} · jusqu'à la fin du combat",
        f"4. mourra s'il n'est pas soigné · {timer} heure{_s(timer)}",
    ]

    # The bleeding test: Bob may not roll it for the GM's goblin; E 30 − 10 = 20, 15 succeeds.
    await table.refused(
        bob.slash("combat test", qui="Gobelin 2", jet=15, channel=thread), "Gobelin 2 n'est pas à vous"
    )
    bled = await table.act(gm.slash("combat test", qui="Gobelin 2", jet=15, channel=thread))
    bleed_target = GOBLIN["E"] + bleed["modifier"]
    assert lines_of(bled) == [
        "🩸 Saignement de Gobelin 2 :",
        f"Test d'E de Gobelin 2 : E {GOBLIN['E']} · modificateur de l'effet {bleed['modifier']}"
        f" = **{bleed_target} %**",
        check_line(bleed_target, 15),
    ]

    # ================================ round 2 ================================================
    round2 = await new_round(table, 2)
    await table.act(alice.slash("combat posture", posture="normale", channel=thread))
    # Albert's CC is 45 − 10 (the critical, one round left): 35 + 20 = 55; 24 → 3 °R; he picks the arms.
    cc_now = ALBERT["CC"] + jambes[1]["value"]
    a2_target = cc_now + (WS - GOBLIN["CC"])
    cut = await table.act(
        alice.slash(
            "combat attaque",
            cible="Gobelin 3",
            jet=24,
            zone="bras",
            degats="6",
            couverture="80",
            critique=30,
            durees="2",
            channel=thread,
        )
    )
    assert lines_of(cut)[:3] == [
        f"Test de CC : CC {cc_now} · ajustement (50 − CC adverse) +{WS - GOBLIN['CC']} = **{a2_target} %**",
        check_line(a2_target, 24),
        f"Localisation : °R 3 = **3** → **bras** (zones possibles : {reachable(3)})",
    ]
    hit = await table.act(gm.click("Encaisser", message=cut.message))
    # The gambeson covers ½ of the arms: d100 80 > 50 → missed, no PA; the sword is Vicelarde (+1 unarmoured)
    threshold = int(PADDED["coverage"]["bras"] * 100)
    assert threshold < 80
    vicious = by_armour_class("epee", "none")
    cut_damage = 6 + BF["albert"] - BE["goblin"] + vicious
    cut_crit = grid(30, cut_damage)
    bras = critical("tranchantes", "bras", cut_crit)
    assert (cut_damage, cut_crit) == (7, 9)
    assert [m["type"] for m in bras] == ["drop_item", "no_action", "disabled", "modifier"]
    assert lines_of(hit) == [
        "Gobelin 3 encaisse.",
        f"Dégâts (bras) : dé 6 · BF {BF['albert']} · BE -{BE['goblin']} · Vicelarde (sans armure) +{vicious}"
        f" = **{cut_damage}**",
        f"Matelassée couvre {threshold} % : d100 80 → manquée",
        f"Critique : d100 30 (ligne {row_label(30)}), {cut_damage} dégâts → table {cut_crit} = **{cut_crit}**"
        " — tranchantes, bras",
        narration("tranchantes", "bras", cut_crit),
        "Durée 1d10 : 1d10 (2) = 2",
        "• aucune action · 2 rounds",
        "• bras hors d'usage · jusqu'à guérison",
        f"• CC {bras[3]['value']} · jusqu'à la fin du combat",
        "• Gobelin 3 lâche ce qu'il tient.",
        "▶ Au tour de **Bertha**.",
    ]
    assert not any(line.startswith("Usure") for line in table.lines("Gobelin 3"))

    # Bertha goes suicidal (+20 attack) and shoots Gobelin 1 at 30 m (≤ ¾ of 48: −10 CT, −1 damage).
    await table.act(bob.click("suicidaire (+20 attaque)", message=round2.message))
    band30 = range_band("arc_simple", 30)
    b2_target = BERTHA["CT"] + posture_mod("suicidaire", "attack", "attaque") + band30["ct_modifier"]
    arrow = await table.act(
        bob.slash(
            "combat attaque",
            cible="Gobelin 1",
            distance=30.0,
            zone="bras",
            jet=15,
            degats="4",
            couverture="30",
            critique=80,
            effets="70",
            channel=thread,
        )
    )
    assert lines_of(arrow)[:2] == [
        f"Test de CT : CT {BERTHA['CT']} · posture suicidaire (+20 attaque) +20 · portée {band30['label']}"
        f" {band30['ct_modifier']} = **{b2_target} %**",
        check_line(b2_target, 15),
    ]
    pierced = await table.act(gm.click("Encaisser", message=arrow.message))
    # 30 ≤ 50: the gambeson's half of the arm is hit (1 PA, worn 10 → 9); arrows have no attribute.
    arrow_damage = 4 + weapon_damage("arc_simple", 0) + band30["damage_modifier"] - BE["goblin"] - PADDED_PA
    arrow_crit = grid(80, arrow_damage)
    assert (arrow_damage, arrow_crit) == (2, 2)
    [e_bras] = critical("projectiles", "bras", arrow_crit)
    assert lines_of(pierced) == [
        "Gobelin 1 encaisse.",
        f"Dégâts (bras) : dé 4 · arme 6 · portée {band30['label']} {band30['damage_modifier']}"
        f" · BE -{BE['goblin']} · armure -{PADDED_PA} = **{arrow_damage}**",
        f"Matelassée couvre {threshold} % : d100 30 → touchée ({PADDED_PA} PA)",
        f"Usure : Matelassée (bras) {ARMOUR_PV} → {ARMOUR_PV - WEAR} PV",
        f"Critique : d100 80 (ligne {row_label(80)}), {arrow_damage} dégâts → table {arrow_crit}"
        f" = **{arrow_crit}** — projectiles, bras",
        narration("projectiles", "bras", arrow_crit),
        f"Test d'E de Gobelin 1 : E {GOBLIN['E']} = **{GOBLIN['E']} %**",
        check_line(GOBLIN["E"] + e_bras["modifier"], 70),
        "• Gobelin 1 lâche ce qu'il tient.",
        "▶ Au tour de **Gobelin 1**.",
    ]
    assert f"Usure : bras {ARMOUR_PV - WEAR}/{ARMOUR_PV}" in table.lines("Gobelin 1")

    # Bob may not act for Alice's Albert.
    await table.refused(
        bob.slash("combat attaque", attaquant="Albert", cible="Gobelin 1", jet=10, channel=thread),
        "Albert n'est pas à vous",
    )
    # Gobelin 1 hits Bertha: 30 + (50 − 30) = 50; 40 → 1 °R → legs. Gobelins 2 and 3 can do nothing.
    g1_target = GOBLIN["CC"] + (WS - BERTHA["CC"])
    axe_blow = await table.act(
        gm.slash(
            "combat attaque",
            cible="Bertha",
            jet=40,
            degats="5",
            critique=55,
            effets="60",
            durees="5",
            channel=thread,
        )
    )
    assert lines_of(axe_blow) == [
        f"Test de CC : CC {GOBLIN['CC']} · ajustement (50 − CC adverse) +{WS - BERTHA['CC']}"
        f" = **{g1_target} %**",
        check_line(g1_target, 40),
        f"Localisation : °R 1 = **1** → **jambes** (zones possibles : {reachable(1)})",
        f"🛡️ Bertha {bob.mention} : encaisser (ni parade ni esquive possible maintenant).",
        "⏳ En attente de la défense : Bertha — le tour passe ensuite.",
    ]
    # the suicidal posture forbids dodging
    await table.refused(
        bob.slash("combat defense", choix="esquiver", jet=15, channel=thread),
        "La posture suicidaire interdit cela",
    )
    endured = await table.act(bob.click("Encaisser", message=axe_blow.message))
    leg_damage = 5 + BF["goblin"] - BE["bertha"]
    leg_crit = grid(55, leg_damage)
    jambes4 = critical("tranchantes", "jambes", leg_crit)
    leg_target = BERTHA["E"] + jambes4[0]["modifier"]
    assert (leg_damage, leg_crit, leg_target) == (5, 4, 25)
    assert lines_of(endured) == [
        "Bertha encaisse.",
        f"Dégâts (jambes) : dé 5 · BF {BF['goblin']} · BE -{BE['bertha']} = **{leg_damage}**",
        f"Critique : d100 55 (ligne {row_label(55)}), {leg_damage} dégâts → table {leg_crit} = **{leg_crit}**"
        " — tranchantes, jambes",
        narration("tranchantes", "jambes", leg_crit),
        f"Test d'E de Bertha : E {BERTHA['E']} · modificateur de l'effet {jambes4[0]['modifier']}"
        f" = **{leg_target} %**",
        check_line(leg_target, 60),
        "Durée 1d10 / 2 : 1d10 (5) / 2 = 2",
        "• à terre · jusqu'à se relever",
        "• perd du temps · 1 round",
        f"• CC {jambes4[1]['value']} · 2 rounds",
        "• Bertha tombe.",
        # the turn passes once Bertha has answered: Gobelins 2 and 3 can do nothing
        "Gobelin 2 ne peut pas agir : son créneau passe.",
        "Gobelin 3 ne peut pas agir : son créneau passe.",
        "Fin du round 2.",
        f"Albert : fin de « CC {jambes[1]['value']} ».",
        "Bertha : fin de « perd du temps ».",
        f"🩸 Gobelin 2 saigne : test d'E {bleed['modifier'] + bleed['step']} % (/combat test).",
        "Le MJ lance le round 3 avec /combat round ou le bouton « Nouveau round ».",
    ]

    # ================================ round 3 ================================================
    await new_round(table, 3)
    second = bleed["modifier"] + bleed["step"]
    bled2 = await table.act(gm.slash("combat test", qui="Gobelin 2", jet=5, channel=thread))
    assert lines_of(bled2)[1:] == [
        f"Test d'E de Gobelin 2 : E {GOBLIN['E']} · modificateur de l'effet {second}"
        f" = **{GOBLIN['E'] + second} %**",
        check_line(GOBLIN["E"] + second, 5),
    ]
    # the defensive posture forbids attacking
    await table.act(alice.slash("combat posture", posture="defensive", channel=thread))
    await table.refused(
        alice.slash("combat attaque", cible="Gobelin 1", jet=14, channel=thread),
        "La posture défensive interdit cela",
    )
    await table.act(alice.slash("combat posture", posture="normale", channel=thread))
    # 45 + (50 − 30) = 65; 14 → 5 °R → the head. The GM answers with the bot's Parer button.
    a3_target = ALBERT["CC"] + (WS - GOBLIN["CC"])
    last = await table.act(
        alice.slash(
            "combat attaque", cible="Gobelin 1", jet=14, degats="1", critique=70, durees="6", channel=thread
        )
    )
    assert lines_of(last)[1] == check_line(a3_target, 14) and "→ **tête**" in text(last)
    before = rolls(emu, thread)
    button = await table.act(gm.click("Parer", message=last.message))
    new = rolls(emu, thread)[len(before) :]
    # The button rolls the parry and side-effect dice itself: read them back from the roll log.
    [parry_roll] = kinds(new, "combat.parry")
    assert parry_roll is not None
    # Gobelin 1 is still on the ground since his fall in round 1: "Parer/Esquiver en étant à terre"
    prone = entry("combat_modifiers", "def_a_terre")
    g1_parry = GOBLIN["CC"] + (WS - ALBERT["CC"]) + prone["value"]
    body = lines_of(button)
    assert body[0] == (
        f"Gobelin 1 pare (une A de ce round, Hache/Pic) : CC {GOBLIN['CC']}"
        f" · ajustement (50 − CC adverse) +{WS - ALBERT['CC']}"
        f" · {prone['name']} {prone['value']} = **{g1_parry} %**"
    )
    assert body[1].startswith(f"Jet **{roll_text(parry_roll)}** → ")
    head_damage = 1 + BF["albert"] - BE["goblin"] + vicious  # no armour on the head
    if parry_roll <= g1_parry and parry_roll < 99:
        vs_axe = max(0, 1 + BF["albert"] - axe["be"])
        [side_roll] = kinds(new, "combat.parry_side_effect")
        assert side_roll is not None
        total = side_roll + ALBERT["F"] - GOBLIN["F"] + vs_axe
        band = side_band(total)
        assert f"= **{total}** → {band['label']} :" in text(button)
        taken_share = take_share(band, head_damage)
        if taken_share:
            assert f"Le défenseur subit {taken_share} des {head_damage} dégâts." in text(button)
            assert f"table {grid(70, taken_share)} = **{grid(70, taken_share)}**" in text(button)
        tests = [e for e in band["effects"] if e["type"] == "test"]
        assert len(kinds(new, "combat.effect_test")) == len(tests)
        for test_roll, test in zip(kinds(new, "combat.effect_test"), tests, strict=True):
            assert f"= **{GOBLIN['Ag'] + test['modifier']} %**\nJet **{roll_text(test_roll)}** →" in text(
                button
            )
    else:
        assert f"Dégâts (tête) : dé 1 · BF {BF['albert']} · BE -{BE['goblin']}" in text(button)
        assert f"= **{head_damage}**" in text(button)
        assert kinds(new, "combat.critical") == [70]
        assert f"table {grid(70, head_damage)} = **{grid(70, head_damage)}** — tranchantes, tête" in text(
            button
        )

    # ---- every roll of the fight is in the roll log (every d100 and every initiative) ---------
    found = rolls(emu, thread)
    totals = [sum(INITIATIVE[n]) + AG[n] for n in ("Bertha", "Gobelin 1", "Gobelin 2", "Gobelin 3")]
    initiative = kinds(found, "combat.initiative")
    assert len(initiative) == 15 and all(t in initiative for t in totals)
    for _, _, result in found:
        if result.get("name") == "Albert":
            assert result["dice"] == list(INITIATIVE["Albert"])
    assert kinds(found, "combat.attack") == [34, 10, 25, 24, 15, 40, 14]
    assert kinds(found, "combat.parry") == [20, 30, parry_roll]
    assert kinds(found, "combat.parry_side_effect")[:2] == [60, 95]
    assert kinds(found, "combat.critical")[:5] == [65, 15, 30, 80, 55]
    assert kinds(found, "combat.effect_test")[:7] == [90, 20, 25, 15, 70, 60, 5]
    assert all(r["fight_id"] == found[0][2]["fight_id"] for _, _, r in found)

    # ---- the end: a summary, the thread archived --------------------------------------------
    ended = await table.act(gm.slash("combat fin", channel=thread))
    assert ended.embed["title"] == "🏁 Fin du combat : Embuscade"
    summary = {f["name"]: f["value"] for f in ended.embed["fields"]}
    assert summary["Gobelin 2"].startswith(f"R1 · tête · {damage} → critique {value}")
    assert summary["Gobelin 3"].startswith(f"R2 · bras · {cut_damage} → critique {cut_crit}")
    assert summary["Bertha"].startswith(f"R2 · jambes · {leg_damage} → critique {leg_crit}")
    assert table.status() == "Combat terminé."
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
    assert table.trackers() == [table.tracker]


async def test_two_fights_in_two_threads_do_not_interfere(emu: E2E) -> None:
    gm = emu.user("gm")
    tables = {}
    for name in ("Embuscade", "Duel"):
        opened = await gm.slash("combat ouvrir", nom=name)
        await opened.wait_followup()
        tables[name] = Table(emu, emu.thread(name), name)
    ambush, duel = tables["Embuscade"], tables["Duel"]
    assert ambush.thread.id != duel.thread.id and ambush.tracker_id != duel.tracker_id
    # from the parent channel, with two fights open, the bot asks to play in the thread
    where = await gm.slash("combat voir")
    assert where.ephemeral and "Plusieurs combats" in where.embed["description"]

    # both threads at once: each command lands in its own fight and edits only its own tracker
    a, b = await asyncio.gather(
        ambush.act(gm.slash("combat ajouter", qui="2 gobelins", channel=ambush.thread)),
        duel.act(gm.slash("combat ajouter", qui="2 orques", channel=duel.thread)),
    )
    assert "Gobelin 2" in text(a) and "Orque" not in text(a)
    assert "Orque 2" in text(b) and "Gobelin" not in text(b)
    # the two goblins fight each other: on two sides
    await ambush.act(gm.slash("combat camp", qui="Gobelin 2", camp="Rivaux", channel=ambush.thread))
    await asyncio.gather(
        ambush.act(
            gm.slash("combat round", des="Gobelin 1: 10 10 10; Gobelin 2: 1 1 1", channel=ambush.thread)
        ),
        duel.act(gm.slash("combat round", des="Orque 1: 2 2 2; Orque 2: 9 9 9", channel=duel.thread)),
    )
    assert ambush.status() == (
        "**⏳ Gobelin 1 choisit sa posture (c'est son tour)**\nPostures à choisir : Gobelin 2\nRound 1"
    )
    assert duel.status() == ORC_CHOOSES
    # A name of the other fight is unknown here.
    await ambush.refused(
        gm.slash("combat attaque", cible="Orque 1", jet=50, channel=ambush.thread), "Orque 1"
    )
    duel_edits = duel.edits
    blow = await ambush.act(gm.slash("combat attaque", cible="Gobelin 2", jet=50, channel=ambush.thread))
    assert "Gobelin 1 → Gobelin 2" in blow.embed["title"]
    assert ambush.status().startswith("**⏳ Gobelin 2 doit se défendre contre Gobelin 1 (attaque n° ")
    assert duel.status() == ORC_CHOOSES and duel.edits == duel_edits
    # the defence command of the other thread sees no pending attack
    await duel.refused(gm.slash("combat defense", choix="encaisser", channel=duel.thread), "Aucune attaque")
    # the rolls are logged against their own thread
    assert kinds(rolls(emu, ambush.thread), "combat.attack") == [50]
    assert kinds(rolls(emu, duel.thread), "combat.attack") == []
    assert sorted(t for t in kinds(rolls(emu, duel.thread), "combat.initiative") if t is not None) == [
        GOBLIN["Ag"] + 6,
        GOBLIN["Ag"] + 27,
    ]
    # ending one fight leaves the other open
    await ambush.act(gm.slash("combat fin", channel=ambush.thread))
    await emu.emu.wait_until(lambda: ambush.thread.archived, what="the thread to be archived")
    shown = await gm.slash("combat voir", channel=duel.thread)
    assert shown.ephemeral and shown.embed["description"] == ORC_CHOOSES
    assert not duel.thread.archived


async def test_every_die_of_a_hit_is_in_the_roll_log(emu: E2E) -> None:
    gm = emu.user("gm")
    opened = await gm.slash("combat ouvrir", nom="Journal")
    await opened.wait_followup()
    table = Table(emu, emu.thread("Journal"), "Journal")
    await table.act(gm.slash("combat ajouter", qui="2 gobelins", armure=GAMBISON, channel=table.thread))
    await table.act(gm.slash("combat camp", qui="Gobelin 2", camp="Rivaux", channel=table.thread))
    await table.act(
        gm.slash("combat round", des="Gobelin 1: 10 10 10; Gobelin 2: 1 1 1", channel=table.thread)
    )
    # 50 % (30 + 20); 24 → 2 °R: the arms: damage d10 7, the gambeson's coverage d100 80,
    # critical d100 30 → 7 damage … → tranchantes bras 9 with a 1d10 duration (2).
    blow = await table.act(
        gm.slash(
            "combat attaque",
            cible="Gobelin 2",
            jet=24,
            zone="bras",
            degats="7",
            couverture="80",
            critique=30,
            durees="2",
            channel=table.thread,
        )
    )
    await table.act(gm.click("Encaisser", message=blow.message))
    logged = json.dumps([r for _, _, r in rolls(emu, table.thread)])
    found = rolls(emu, table.thread)
    assert kinds(found, "combat.attack") == [24] and kinds(found, "combat.critical") == [30]
    # the three other dice of that hit: the damage d10, the coverage d100, the 1d10 duration
    assert any(k.startswith("combat.damage") for k, _, _ in found), logged
    assert any(k.startswith("combat.coverage") for k, _, _ in found), logged
    assert any(k.startswith("combat.duration") for k, _, _ in found), logged
