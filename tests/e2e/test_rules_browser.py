"""/regles (/rules) through the emulator: browse a critical, house rules import/export/reset, rights."""

from __future__ import annotations

import json
from typing import Any

from bot.emulator.client import Upload

from .harness import E2E


def _text(embed: dict[str, Any]) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts)


def _json(document: Any) -> Upload:
    return Upload("house.json", json.dumps(document, ensure_ascii=False).encode(), "application/json")


async def test_browse_a_critical_entry_with_autocomplete(emu: E2E) -> None:
    alice = emu.user("alice")
    tables = await alice.autocomplete("regles voir", "table", "tranch")
    assert "criticals_tranchantes" in [c["value"] for c in tables]
    entries = await alice.autocomplete("regles voir", "entree", "jambes 5", table="criticals_tranchantes")
    assert entries[0]["value"] == "jambes 5"
    result = await alice.slash("regles voir", table="criticals_tranchantes", entree="jambes 5")
    assert result.callback_type == 4 and not result.ephemeral
    text = _text(result.embed)
    assert "Coups critiques — armes tranchantes — Jambes 5" in text
    assert "Test d'" in text and "Effets" in text
    assert "lignes 2475-2752" in text
    english = await emu.user("bob", locale="en-US").slash(
        "rules show", table="criticals_tranchantes", entry="tete 12"
    )
    english_text = _text(english.embed)
    assert "Head 12" in english.embed["title"] and "throat" in english_text
    # the table's note about this entry, in English (#21), not the French reading
    assert "Layout of the Body/Head page" in english_text and "Découpage" not in english_text


async def test_house_rules_bad_file_then_good_file_export_and_reset(emu: E2E) -> None:
    gm = emu.user("gm")
    # Bad: a JSON syntax error, with line and column; nothing stored.
    broken = await gm.slash(
        "regles importer", fichier=Upload("x.json", b'{"table": "weapons_melee",\n "entries": [,]}')
    )
    message = await broken.wait_response()
    assert message.ephemeral
    assert "ligne 2, colonne 14" in _text(message.embeds[0])
    # Bad: schema problems, listed as "path: message", at most 15 shown, the rest counted.
    entries = []
    for weapon_id in ("epee", "dague", "hache_pic"):
        entries.append(
            {
                "id": weapon_id,
                "name": weapon_id,
                "damage": 3,
                "kind": 4,
                "two_handed": 5,
                "price": 6,
                "attributes": 7,
            }
        )
    invalid = await gm.slash("regles importer", fichier=_json({"table": "weapons_melee", "entries": entries}))
    text = _text((await invalid.wait_response()).embeds[0])
    assert "Règles maison refusées" in text and "entries/0/" in text and "autres problèmes" in text
    assert "Rien n'a été enregistré" in text
    unchanged = await gm.slash("regles voir", table="weapons_melee", entree="epee")
    fields = {f["name"]: f["value"] for f in unchanged.embed["fields"]}
    assert fields["Dégâts"] == "BF" and "Règles maison" not in _text(unchanged.embed)

    # Good: start from the export, change the sword, add a weapon.
    export = await gm.slash("regles exporter", table="weapons_melee")
    attachment = export.message.attachments[0] if export.message else None
    assert attachment is not None and attachment.filename == "weapons_melee.json"
    base = json.loads(attachment.data)
    sword = next(e for e in base["entries"] if e["id"] == "epee")
    sword["damage"] = {"base": "BF", "modifier": 1}
    rune = dict(sword, id="epee_runique", name="Épée runique", name_en="Rune sword")
    stored = await gm.slash(
        "regles importer", fichier=_json({"table": "weapons_melee", "entries": [sword, rune]})
    )
    text = _text((await stored.wait_response()).embeds[0])
    assert "1 entrée remplacée, 1 ajoutée" in text

    # The next lookup and the export use it.
    after = await emu.user("alice").slash("regles voir", table="weapons_melee", entree="epee")
    fields = {f["name"]: f["value"] for f in after.embed["fields"]}
    assert fields["Dégâts"] == "BF+1" and "Règles maison" in _text(after.embed)
    added = await emu.user("alice").slash("regles voir", table="weapons_melee", entree="epee_runique")
    assert "Épée runique" in added.embed["title"]
    export = await gm.slash("regles exporter", table="weapons_melee")
    assert export.message is not None
    merged = json.loads(export.message.attachments[0].data)
    assert next(e for e in merged["entries"] if e["id"] == "epee")["damage"]["modifier"] == 1
    assert len(merged["entries"]) == len(base["entries"]) + 1

    # Reset: asks to confirm, then the book applies again.
    prompt = await gm.slash("regles reinitialiser", table="weapons_melee")
    assert prompt.ephemeral
    done = await gm.click("Confirmer la réinitialisation", message=prompt.message)
    assert "supprimées" in _text(done.embed)
    back = await gm.slash("regles voir", table="weapons_melee", entree="epee")
    assert {f["name"]: f["value"] for f in back.embed["fields"]}["Dégâts"] == "BF"


async def test_a_player_cannot_import_and_is_told_in_french(emu: E2E) -> None:
    sword = {"table": "weapons_melee", "entries": []}
    refused = await emu.user("alice").slash("regles importer", fichier=_json(sword))
    message = await refused.wait_response()
    assert message.ephemeral
    assert "Seul le MJ" in _text(message.embeds[0])
    still = await emu.user("alice").slash("regles reinitialiser", table="weapons_melee")
    assert still.ephemeral and "Seul le MJ" in _text(still.embed)
