"""Secrets stay secret, played through the console by a GM and two players, in French and in
English (issues #19 item 18, #22 item 3, #23 items 2 and 3): every secret result reaches the GM
channel and only it, the table's notice says why the test is secret, a player cannot make an
always-secret skill public, ``/oppose`` and ``/groupe`` have a secret mode, another player's sheet
stays hidden, and a roller does not read his secret results back in ``/historique``."""

from __future__ import annotations

import json
import re
from typing import Any

from .console_script import assert_no_errors, console_records

HANS = "CC:40 CT:33 F:38 E:41 Ag:36 Int:31 FM:30 Soc:29"
BERTHA = "CC:30 CT:45 F:30 E:35 Ag:40 Int:47 FM:35 Soc:33"
BARON = "CC:55 CT:35 F:45 E:44 Ag:38 Int:47 FM:52 Soc:41"
GUARDS = 'camp_a:"G1=40, G2=40" competence_a:Perception camp_b:V=35 jets:"G1=03, G2=89 56, V=75 27"'

FRENCH = f"""
/config canal-mj canal:#mj
@alice /perso creer nom:Hans caracs:"{HANS}"
@alice /perso modifier competences:"Filature, Perception"
@bob /perso creer nom:Bertha caracs:"{BERTHA}"
@bob /perso modifier competences:"Perception +20"
/perso creer nom:"Baron Noir" caracs:"{BARON}" pnj:oui
@alice /test competence:Fouille carac:40 jet:35 secret:non
@alice /test competence:Fouille carac:40 jet:35
@alice /lancer expression:1d100 etiquette:Piste secret:oui des:64
@alice /oppose camp_a:Hans competence_a:Filature camp_b:"Baron Noir" jets_a:80 jets_b:30 secret:oui
@alice /oppose camp_a:Hans competence_a:Filature camp_b:Bertha jets_a:20 jets_b:30
@bob /groupe {GUARDS} secret:oui
/test competence:Fouille carac:40 jet:12 secret:non
@alice /historique
/historique
"""

ENGLISH = f"""
/config gm-channel channel:#gm
@alice /character create name:Hans stats:"{HANS}"
@alice /character edit skills:"Shadowing, Perception"
@bob /character create name:Bertha stats:"{BERTHA}"
@bob /character edit skills:"Perception +20"
@alice /test skill:Search target:40 roll:35 secret:false
@alice /test skill:Search target:40 roll:35
@alice /roll expression:1d100 label:Tracks secret:true dice:64
@alice /oppose side_a:Hans skill_a:Shadowing side_b:G=40 rolls_a:20 rolls_b:50 secret:true
@alice /oppose side_a:Hans skill_a:Shadowing side_b:Bertha rolls_a:20 rolls_b:30
@alice /history
/history
"""


def text(record: dict[str, Any]) -> str:
    """What a reader sees, mentions shown as ``@…`` (their ids are no part of it)."""
    parts = [record.get("content") or ""]
    for embed in record.get("embeds", []):
        parts += [embed.get("title") or "", embed.get("description") or "", embed.get("footer") or ""]
        parts.extend(f"{f['name']}: {f['value']}" for f in embed.get("fields", []))
    return re.sub(r"<(?:@[!&]?|#)[0-9]+>", "@…", "\n".join(parts))


def split(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answers, one per command line in order, and the deliveries (to the GM channel)."""
    answers = [r for r in records if r.get("command") and not r.get("to")]
    return answers, [r for r in records if r.get("to")]


def test_a_french_table_keeps_its_secrets() -> None:
    records = console_records(FRENCH)
    answers, delivered = split(records)
    (
        _,
        _,
        _,
        _,
        _,
        _,
        refused,
        fouille,
        piste,
        filature,
        bertha,
        group,
        gm_public,
        alice_history,
        gm_history,
    ) = answers
    assert {r["to"] for r in delivered} == {"#mj"}  # every secret result in the GM channel, none by DM
    # The always-secret Fouille: a player's secret:non refused, privately, in French.
    assert refused["ephemeral"] and "Fouille est toujours un test secret" in text(refused)
    assert "seul le MJ peut le rendre public" in text(refused) and "35" not in text(refused)
    # The notice says why; the result went to the GM channel only.
    assert not fouille["ephemeral"] and "35 sous" not in text(fouille)
    assert "a lancé un test secret : Fouille. Le résultat est parti au MJ." in text(fouille)
    assert "Fouille : test secret selon les règles." in text(fouille)
    assert "a fait un jet secret : Piste." in text(piste) and "64" not in text(piste)
    assert "Piste : jet secret à la demande du joueur." in text(piste)
    # The seed's Filature against Perception, in secret: nothing of it for the table.
    assert "Filature contre Perception : test secret à la demande du joueur." in text(filature)
    assert "80" not in text(filature) and "Baron" not in json.dumps(filature, ensure_ascii=False)
    assert "a lancé en secret un test opposé de groupe : Perception contre Dissimulation." in text(
        group
    ) and "l'emporte" not in text(group)
    by_line = {r["command"] + str(i): text(r) for i, r in enumerate(delivered)}
    gm_side = "\n".join(by_line.values())
    assert "35 sous 40" in gm_side and "**64**" in gm_side and "80 sous 36" in gm_side
    assert "G1 l'emporte sur V" in gm_side and "Test secret demandé par" in gm_side
    # Bertha is Bob's: Alice sees her dice, not her Perception (Int 47 + 20 = 67); the GM does.
    assert "30 sous une valeur cachée" in text(bertha) and "67" not in text(bertha) + json.dumps(
        bertha["result"]
    )
    assert "Les valeurs de Bertha (personnage d'un autre joueur) restent cachées" in text(bertha)
    assert "30 sous 67" in gm_side
    # The GM may roll an always-secret skill in public.
    assert not gm_public["ephemeral"] and "12 sous 40" in text(gm_public)
    # Alice's history keeps none of her secret results; the GM's has them all, marked.
    mine = text(alice_history)
    assert "Fouille 🔒" not in mine and "Piste" not in mine and "🔒" not in mine
    assert "**12** — Fouille" in mine and "Page 1 · 2 jets" in mine
    theirs = text(gm_history)
    assert (
        "**35** — Fouille 🔒" in theirs
        and "**64** — Piste 🔒" in theirs
        and "`Hans vs Baron Noir` 🔒" in theirs
    )
    for record in answers:
        body = text(record)
        assert "(s)" not in body and "{" not in body and " de Élise" not in body, body


def test_an_english_table_keeps_its_secrets() -> None:
    records = console_records(ENGLISH, locale="en")
    assert_no_errors(records)
    answers, delivered = split(records)
    configured, _, _, _, _, refused, search, tracks, shadowing, bertha, alice_history, gm_history = answers
    assert "Secret results will go to @…." in text(configured)
    assert {r["to"] for r in delivered} == {"#gm"}
    assert refused["ephemeral"] and "Search is always a secret test" in text(refused)
    assert "Search: secret test by the rules." in text(search) and "35 against" not in text(search)
    assert "Tracks: secret roll at the player's request." in text(tracks) and "64" not in text(tracks)
    assert "Shadowing against Perception: secret test at the player's request." in text(shadowing)
    assert "Hans wins" not in text(shadowing)
    assert "30 against a hidden target" in text(bertha) and "67" not in text(bertha) + json.dumps(
        bertha["result"]
    )
    assert "The values of Bertha (another player's character) stay hidden" in text(bertha)
    gm_side = "\n".join(text(r) for r in delivered)
    assert (
        "35 against 40" in gm_side
        and "**64**" in gm_side
        and "Hans wins" in gm_side
        and "30 against 67" in gm_side
    )
    assert "Search" not in text(alice_history) and "Tracks" not in text(alice_history)
    assert "Page 1 · 1 roll" in text(alice_history)
    assert "**35** — Search 🔒" in text(gm_history) and "**64** — Tracks 🔒" in text(gm_history)
