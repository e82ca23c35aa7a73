"""``/aide`` (``/help``) that teaches, through the console against the real command tree, read by the
GM and two players in French and in English (issue #21): page 1 « Démarrer », the groups in the order
a table meets them, « Déroulé d'un combat », only the system in force (the others on one page), and
``/aide commande:`` with every option of a command, found by its own name."""

from __future__ import annotations

from typing import Any

from .console_script import assert_no_errors, console_records

PAGES = 7  # renove: Démarrer, dice … characters, fight, Déroulé d'un combat, flows, rules …, others
FRENCH = "\n".join(
    [
        "@alice /aide",
        *[f"@alice /aide page:{n}" for n in range(2, PAGES + 1)],
        "@bob /aide commande:attaque",
        "@bob /aide commande:test",
        "@bob /aide commande:voir",
        "@alice /aide commande:/combat",
        "@alice /aide commande:inexistante",
        "/config systeme systeme:ogl",
        "/aide",
        "/aide page:3",
        "/aide commande:lutte",
    ]
)
ENGLISH = "\n".join(["@bob /help", "@bob /help page:4", "@alice /help command:attack"])


def _embed(record: dict[str, Any]) -> dict[str, Any]:
    embed: dict[str, Any] = record["embeds"][0]
    return embed


def _text(record: dict[str, Any]) -> str:
    embed = _embed(record)
    parts = [str(embed.get("title") or ""), str(embed.get("description") or "")]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def _size(record: dict[str, Any]) -> int:
    embed = _embed(record)
    fields = sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
    return (
        len(embed.get("title") or "")
        + len(embed.get("description") or "")
        + fields
        + len(embed.get("footer") or "")
    )


def test_help_teaches_in_french() -> None:
    records = [r for r in console_records(FRENCH) if r.get("command")]
    assert_no_errors(records)
    pages, rest = records[:PAGES], records[PAGES:]
    attack, test, seen, group, unknown, _, ogl_start, ogl_fight, grapple = rest
    assert all(r["ephemeral"] and _size(r) < 4000 for r in records if r["command"] == "/aide")
    start = pages[0]
    assert _embed(start)["title"] == "Mêlée — Démarrer" and start["result"]["pages"] == PAGES
    names = [f["name"] for f in _embed(start)["fields"]]
    assert names == [
        "1. 🎲 Lancer des dés",
        "2. 🎯 Faire un test",
        "3. 🧙 Créer son personnage",
        "4. ⚔️ Rejoindre un combat",
        "5. ❓ Trouver une commande",
    ]
    text = _text(start)
    for sample in (
        "`/lancer expression:1d100`",
        "`/test carac:45 difficulte:difficile etiquette:Escalade`",
        '`/perso creer nom:Gunther caracs:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"`',
        "`/combat ajouter qui:Gunther`",
        "`/aide commande:attaque`",
    ):
        assert sample in text, sample
    assert "Système en vigueur ici : Warhammer rénové" in _embed(start)["footer"]
    # The groups in the order a table meets them, the fight walked through after its commands.
    titles = [f["name"].rstrip(" …") for r in pages[1:] for f in _embed(r)["fields"]]
    order = [titles.index(t) for t in ("🎲 Dés", "🎯 Tests de compétence", "🧙 Personnages", "⚔️ Combat")]
    assert order == sorted(order) and titles.index("⚙️ Configuration") > titles.index("⚔️ Combat")
    walk = next(r for r in pages if _embed(r)["title"] == "Mêlée — Déroulé d'un combat")
    assert "`/combat ouvrir nom:Embuscade`" in _text(walk) and "`/combat fin`" in _text(walk)
    assert pages.index(walk) == 3
    # Only renove's commands on the pages; d20's and ogl's behind the last one.
    listed = "\n".join(_text(r) for r in pages[:-1])
    assert "`/saut`" in listed and "`/tir rafale`" not in listed and "`/manoeuvre lutte`" not in listed
    others = pages[-1]
    assert _embed(others)["title"] == "Mêlée — Autres systèmes"
    assert "`/tir rafale`" in _text(others) and "`/manoeuvre lutte`" in _text(others)
    # One command: every option, its type, optional or not, its choices, an example.
    assert _embed(attack)["title"] == "/combat attaque"
    attack_text = _text(attack)
    assert "**cible** (texte, obligatoire) — Qui est attaqué" in attack_text
    assert "**jet** (nombre entier, facultative)" in attack_text and "de 0 à 100" in attack_text
    assert "choix : Jambes (`jambes`), Bras (`bras`)" in attack_text
    assert '↳ `/combat attaque cible:"Gobelin 1" jet:34 degats:7 critique:45`' in attack_text
    assert "**difficulte** (texte, facultative)" in _text(test)
    assert "le bot propose des valeurs pendant la frappe" in _text(test)
    assert all(f"`/{name} voir` —" in _text(seen) for name in ("perso", "combat", "pnj", "config"))
    assert "`/combat ouvrir`" in _text(group) and "`/combat fin`" in _text(group)
    assert unknown["result"]["error"] and "« inexistante »" in _text(unknown)
    # In an ogl channel: ogl's manoeuvres come with the fight, renove's own commands go behind.
    assert "Système en vigueur ici : OGL" in _embed(ogl_start)["footer"]
    assert "`/manoeuvre lutte`" in _text(ogl_fight) and "`/saut`" not in _text(ogl_fight)
    assert _embed(grapple)["title"] == "/manoeuvre lutte"


def test_help_teaches_in_english() -> None:
    records = [r for r in console_records(ENGLISH, locale="en") if r.get("command")]
    assert_no_errors(records)
    start, walk, attack = records
    assert _embed(start)["title"] == "Mêlée — Getting started"
    assert "`/roll expression:1d100`" in _text(start) and "`/combat add who:Gunther`" in _text(start)
    assert _embed(walk)["title"] == "Mêlée — How a fight goes"
    assert "`/combat open name:Embuscade`" in _text(walk)
    assert _embed(attack)["title"] == "/combat attack"
    assert "**target** (text, required)" in _text(attack) and "choices: Legs (`jambes`)" in _text(attack)
