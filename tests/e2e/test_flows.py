"""Flows through the emulator against the real bot: interrogation, chase, infection, tavern, fortune.

Also the console (``python -m bot console --json``) replaying the seed's two worked examples with
every die entered by hand: Arnolf's interrogation and Abel's chase.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .harness import E2E

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def _console(script: str) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DISCORD_TOKEN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--json", "--seed", "1"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


# -- the console replays the seed's examples ------------------------------------------------------


def test_console_replays_arnolf_interrogation() -> None:
    example = json.loads((DATA / "interrogation.json").read_text(encoding="utf-8"))["example"]
    lines = [line["text"]["fr"] for line in example["lines"]]
    script = "\n".join(
        [
            "/interrogatoire ouvrir sujet:suspect fm:35 reticent:oui",
            "!modal " + " ".join(f'tier_{i}:"{text}"' for i, text in enumerate(lines)),
            # Arnolf: Intimidation 45, rolls 22 (2 °R); the suspect's FM 35 rolls 30 (success, 0 °R).
            "@arnolf /interrogatoire interroger methode:intimidation cible:45 jet:22 jet_fm:30",
        ]
    )
    records = _console(script + "\n")
    assert records[0]["modal"] is not None
    opened = next(r for r in records if r["command"] == "!modal" and not r.get("to"))
    assert opened["result"]["revealed"] == []
    secret = next(r for r in records if r["command"] == "!modal" and r.get("to"))
    assert secret["to"] == "DM gm" and secret["result"]["state"]["subject"]["fm"] == 35
    asked = [r for r in records if r["command"] == "/interrogatoire interroger"]
    public = next(r for r in asked if not r.get("to"))
    assert public["user"] == "arnolf" and not public["ephemeral"]
    assert public["result"]["revealed"] == example["tiers_revealed"] == [0, 1, 2]
    assert public["result"]["lines"] == lines[:3]
    assert lines[3] not in json.dumps(public, ensure_ascii=False)
    gm = next(r for r in asked if r.get("to"))
    questioning = gm["result"]["questioning"]
    test, fm = questioning["rounds"][0]["test"], questioning["rounds"][0]["fm"]
    assert (test["roll"], test["degrees"], test["success"]) == (22, 2, True)
    assert (fm["success"], fm["degrees"]) == (True, 0)
    assert questioning["net_degrees"] == example["net_degrees"]


def test_console_replays_abel_chase() -> None:
    example = json.loads((DATA / "chases.json").read_text(encoding="utf-8"))["example"]
    names = {p["id"]: p["name"] for p in example["participants"]}
    script = ["/poursuite ouvrir avance:10"]
    for p in example["participants"]:
        role = "fuyard" if p["role"] == "fugitive" else "poursuivant"
        flee = " fuite:oui" if "Fuite" in p["talents"] else ""
        script.append(f'/poursuite ajouter role:{role} nom:"{p["name"]}" m:{p["M"]} be:3 e:40 ag:40{flee}')
    for step in example["steps"]:
        for r in step["results"]:
            name = names[r["participant"]]
            if step["kind"] == "movement":
                ag = r["ag_test"]
                extra = "" if ag is None else f" jet_ag:{20 if ag['success'] else 90}"
                roll = "00" if r["roll"] == 100 else r["roll"]
                script.append(f'/poursuite courir nom:"{name}" jet:{roll}{extra}')
            else:
                script.append(f'/poursuite endurance nom:"{name}" jet:{20 if r["success"] else 90}')
    script.append("/poursuite fin")
    records = _console("\n".join(script) + "\n")
    assert not [r for r in records if r.get("error") or r.get("ephemeral")], records
    moves = [m for r in records if r["command"] == "/poursuite courir" for m in r["result"]["movements"]]
    expected = [r for s in example["steps"] if s["kind"] == "movement" for r in s["results"]]
    assert [(m["modified_roll"], m["penalty_m"], m["distance_m"], m["out"]) for m in moves] == [
        (r["modified_roll"], r["penalty_m"], r["distance_m"], r["out"]) for r in expected
    ]
    gaps = [r["result"]["round"]["gaps"] for r in records if r["result"] and "round" in r["result"]]
    printed = [s["lead_after_m"] for s in example["steps"] if s["kind"] == "movement"]
    assert [list(g.values()) for g in gaps] == [[x] for x in printed]
    endurance = [
        e for r in records if r["command"] == "/poursuite endurance" for e in r["result"]["endurance"]
    ]
    assert [(e["modifier"], e["success"]) for e in endurance] == [
        (r["modifier"], r["success"])
        for s in example["steps"]
        if s["kind"] == "endurance"
        for r in s["results"]
    ]
    assert records[-1]["result"]["chase"]["gaps"] == {"Garde 1": example["final_lead_m"]}


# -- interrogation -----------------------------------------------------------------------------


async def test_interrogation_form_buttons_secret_and_persistence(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    refused = await alice.slash("interrogatoire ouvrir", sujet="Hans", fm=30, reticent=True)
    assert refused.ephemeral and "MJ" in refused.embed["description"]
    form = await gm.slash("interrogatoire ouvrir", sujet="Hans", fm=30, reticent=False)
    assert form.modal is not None and form.modal["title"]
    opened = await gm.submit_modal(tier_0="Il a vu un homme.", tier_1="Il boitait.", tier_2="Le boucher.")
    board = opened.embed
    assert not opened.ephemeral and "Il a vu un homme." in board["fields"][0]["value"]
    assert "boitait" not in json.dumps(opened.embeds) and "30" not in board["fields"][0]["value"]
    await emu.emu.wait_until(
        lambda: any("Il boitait." in (e.get("description") or "") for m in emu.dms(gm) for e in m.embeds),
        what="the GM's secret summary by DM",
    )
    # Alice has no character: the button asks for a target.
    no_char = await alice.click("Intimider")
    assert no_char.ephemeral and "cible" in no_char.embed["description"]
    # Survives a restart: the board's buttons are persistent and the state is in the database.
    await emu.restart_bot()
    await alice.slash("perso creer", nom="Alice", caracs="CC:40 CT:40 F:40 E:40 Ag:40 Int:40 FM:40 Soc:40")
    await alice.slash("perso modifier", competences="Intimidation:100")
    asked = await alice.click("Intimider", message=opened.message)
    assert not asked.ephemeral, asked.embed
    assert asked.embed["title"].endswith("Hans")
    assert "Il boitait." in asked.embed["description"] or "ne dit rien" in asked.embed["description"]
    seen = await alice.slash("interrogatoire voir")
    assert seen.ephemeral and "Il a vu un homme." in json.dumps(seen.embeds, ensure_ascii=False)
    closed = await gm.slash("interrogatoire clore")
    assert not closed.ephemeral
    after = await alice.slash("interrogatoire interroger", cible=50, jet=10)
    assert after.ephemeral and "Aucun interrogatoire" in after.embed["description"]


async def test_interrogation_form_submitted_after_a_restart(emu: E2E) -> None:
    """The form's options ride in its id: a form shown before a restart still opens the session."""
    gm, alice = emu.user("gm"), emu.user("alice")
    form = await gm.slash("interrogatoire ouvrir", sujet="Greta", fm=42, reticent=True)
    assert form.modal is not None
    await emu.restart_bot()
    opened = await gm.submit_modal(tier_0="Elle a entendu un cri.", tier_1="Au moulin.")
    assert not opened.ephemeral, opened.embed
    assert opened.embed["title"].endswith("Greta")
    # Reluctant: not even tier 0 is public yet.
    public = json.dumps(opened.embeds, ensure_ascii=False)
    assert "entendu un cri" not in public and "moulin" not in public
    # The session holds the form's options and lines: the GM's view shows them all.
    shown = await gm.slash("interrogatoire voir")
    text = json.dumps(shown.embeds, ensure_ascii=False)
    assert "42" in text and "Elle a entendu un cri." in text and "Au moulin." in text, text
    # A player replaying the same form id is refused like the command would be.
    await gm.slash("interrogatoire clore")
    form_again = await gm.slash("interrogatoire ouvrir", sujet="Greta", fm=42, reticent=True)
    assert form_again.modal is not None
    # (a modified client: Alice submits the form the GM was shown)
    alice.emu.modals[alice.user.id] = gm.emu.modals.pop(gm.user.id)
    replay = await alice.submit_modal(tier_0="Faux.")
    assert replay.ephemeral and "MJ" in replay.embed["description"], replay.embed


async def test_interrogation_seed_example_and_english_errors(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("interrogatoire ouvrir", sujet="le suspect", fm=35, reticent=True)
    await gm.submit_modal(
        tier_0="Un homme grand.", tier_1="Il boitait.", tier_2="Un sosie.", tier_3="Le boucher."
    )
    arnolf = emu.user("arnolf")
    result = await arnolf.slash("interrogatoire interroger", cible=45, jet="22", jet_fm="30")
    text = json.dumps(result.embeds, ensure_ascii=False)
    assert "Un homme grand." in text and "Il boitait." in text and "Un sosie." in text
    assert "Le boucher." not in text
    bob = emu.user("bob", locale="en-US")
    bad = await bob.slash("interrogation question", target=40, roll="abc")
    assert bad.ephemeral and "expects dice rolled by hand" in bad.embed["description"]
    torture = await bob.slash("interrogation question", method="charisme", target=40, roll="10", wp_roll="90")
    assert torture.ephemeral and "not discreet" in torture.embed["description"]


# -- chase -------------------------------------------------------------------------------------


async def test_chase_board_is_edited_and_buttons_roll(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    opened = await gm.slash("poursuite ouvrir", avance=10)
    board = opened.message
    assert board is not None and "round 1" in board.embeds[0]["title"]
    await alice.slash("perso creer", nom="Abel", caracs="CC:30 CT:30 F:30 E:35 Ag:40 Int:30 FM:30 Soc:30 M:4")
    await alice.slash("perso modifier", talents="Fuite")
    joined = await alice.slash("poursuite ajouter", role="fuyard")
    assert not joined.ephemeral and "Abel" in joined.embed["description"], joined.embed
    await gm.slash("poursuite ajouter", role="poursuivant", nom="Garde", m=4, be=3, e=40, ag=30)
    refused = await alice.slash("poursuite courir", nom="Garde", jet=10)
    assert refused.ephemeral
    await alice.click("Courir", message=board)
    ran = await gm.click("Courir", message=board)
    assert "Fin du round 1" in ran.embed["description"]
    await emu.emu.wait_until(
        lambda: "round 2" in board.embeds[0]["title"] or "Endurance" in board.embeds[0]["fields"][0]["value"],
        what="the board to move on",
    )
    ended = await gm.slash("poursuite fin")
    assert "décision du MJ" in ended.embed["description"]
    await emu.emu.wait_until(
        lambda: all(c.get("disabled") for c in board.iter_components() if c.get("type") == 2),
        what="the board's buttons to be disabled",
    )
    english = await emu.user("bob", locale="en-US").slash("chase run", name="Abel", roll=10)
    assert english.ephemeral and "No chase" in english.embed["description"]


# -- infection, tavern, fortune and destiny ---------------------------------------------------


async def test_infection_tavern_fortune_and_destiny(emu: E2E) -> None:
    alice = emu.user("alice")
    await alice.slash(
        "perso creer", nom="Alice", caracs="CC:40 CT:40 F:40 E:38 Ag:40 Int:40 FM:40 Soc:40 PD:1"
    )
    infected = await alice.slash("infection test", critique=8, arme="sale", lavee=True, jet=80)
    assert not infected.ephemeral and "gangrène" in infected.embed["description"]
    # gangrene kills after 5 + BE days: E 38 gives BE 3, +3 for a human on the sheet
    assert "11 jours" in json.dumps(infected.embeds, ensure_ascii=False)
    exempt = await alice.slash("infection test", critique=1)
    assert "jamais" in exempt.embed["description"]
    bad = await emu.user("bob", locale="en-US").slash("infection test", critical=5)
    assert bad.ephemeral and "Toughness" in bad.embed["description"]
    game = await alice.slash(
        "taverne bras_de_fer", joueurs="Gunnar f=45, Otto f=40", des="Gunnar 10, Otto 90"
    )
    assert "Gunnar" in game.embed["fields"][0]["value"]
    wrong = await alice.slash("taverne boisson", joueurs="Gunnar")
    assert wrong.ephemeral
    shown = await alice.slash("fortune")
    assert shown.ephemeral and shown.embed["fields"][0]["value"] == "1 sur 1"  # Fortune refills to PD
    rerolled = await alice.slash("fortune", usage="reroll", cible=45, jet_precedent=62, jet=30)
    assert not rerolled.ephemeral and rerolled.embed["fields"][0]["value"] == "0 sur 1"
    empty = await alice.slash("fortune", usage="scenery")
    assert empty.ephemeral
    limb = await alice.slash("destin", contre="limb_loss")
    assert limb.ephemeral and "membre" in limb.embed["description"]
    saved = await alice.slash("destin", contre="death")
    assert "mort" in saved.embed["description"] and saved.embed["fields"][1]["value"] == "0"


async def test_tavern_games_read_the_sheets(emu: E2E) -> None:
    alice, bob = emu.user("alice"), emu.user("bob", locale="en-US")
    await alice.slash("perso creer", nom="Grimli", caracs="CC:45 CT:28 F:41 E:45 Ag:25 Int:30 FM:35 Soc:22")
    await alice.slash("perso modifier", competences="Résistance à l'alcool +10")
    drink = await alice.slash(
        "taverne boisson", joueurs="Grimli, Hans res=40", des="Grimli 55 55 55 55, Hans 41 41 41 41"
    )
    text = json.dumps(drink.embeds, ensure_ascii=False)
    assert "de la fiche : Résistance à l'alcool 55" in text and "à la main : Résistance à l'alcool 40" in text
    refused = await alice.slash("taverne boisson", joueurs="Grimli, Hans")
    assert refused.ephemeral and "« Hans » n'est pas une fiche" in refused.embed["description"]
    await bob.slash("character create", name="Bob", stats="CC:40 CT:40 F:38 E:40 Ag:40 Int:40 FM:40 Soc:40")
    arm = await bob.slash("tavern armwrestling", players="Bob, Otto f=30", dice="Bob 10, Otto 90")
    english = json.dumps(arm.embeds)
    assert "from the sheet: S 38" in english and "typed: S 30" in english
    stranger = await bob.slash("tavern armwrestling", players="Bob, Grimli")
    assert stranger.ephemeral and '"Grimli" is not a sheet you may read' in stranger.embed["description"]
