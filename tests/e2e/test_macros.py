"""``/macro`` and sheet values in ``/lancer`` through the emulator against the real bot (issue #26):
a player's macro with its label, the GM's server macro for another player, a roll-under test from
the sheet, the refusals in private, the autocomplete of ``/lancer``."""

from __future__ import annotations

from .harness import E2E

STATS = "CC:45 CT:30 F:36 E:30 Ag:35 Int:30 FM:30 Soc:30"


def _fields(embed: dict[str, object]) -> dict[str, str]:
    return {str(f["name"]): str(f["value"]) for f in embed.get("fields", [])}  # type: ignore[attr-defined]


async def test_macros_and_sheet_values(emu: E2E) -> None:
    alice, bob, gm = emu.user("alice"), emu.user("bob"), emu.user("gm")

    no_sheet = await alice.slash("lancer", expression="1d10+BF")
    assert no_sheet.ephemeral and "Pas de personnage actif" in no_sheet.embed["description"]
    await alice.slash("perso creer", nom="Élise", caracs=STATS)

    rolled = await alice.slash("lancer", expression="1d10+BF", des="7")
    assert not rolled.ephemeral and rolled.embed["fields"][0]["value"] == "**13**"
    assert "BF = 6" in _fields(rolled.embed)["Fiche"]

    test = await alice.slash("lancer", expression="1d100<=CC", des="30")
    assert "✅" in str(test.embed) and "1 °R" in str(test.embed)

    created = await alice.slash("macro creer", nom="frappe", expression="1d10+BF # Frappe")
    assert created.ephemeral and "« frappe » enregistrée" in created.embed["description"]
    frappe = await alice.slash("lancer", expression="frappe", des="4")
    assert frappe.embed["title"] == "🎲 Frappe" and frappe.embed["fields"][0]["value"] == "**10**"

    refused = await bob.slash("macro creer", nom="soin", expression="1d10", serveur=True)
    assert refused.ephemeral and "Seul le MJ" in refused.embed["description"]
    server = await gm.slash("macro creer", nom="soin", expression="1d10 # Soin", serveur=True)
    assert "Macro du serveur « soin » enregistrée" in server.embed["description"]
    healed = await bob.slash("lancer", expression="soin", des="6")
    assert healed.embed["title"] == "🎲 Soin" and healed.embed["fields"][0]["value"] == "**6**"

    offered = await alice.autocomplete("lancer", "expression", "fr")
    assert [c["value"] for c in offered] == ["fr", "frappe"]
    every = await bob.autocomplete("lancer", "expression", "")
    assert [c["value"] for c in every] == ["soin"]

    listed = await alice.slash("macro lister")
    assert listed.ephemeral and "frappe" in str(listed.embed) and "soin" in str(listed.embed)
    deleted = await alice.slash("macro supprimer", nom="frappe")
    assert "supprimée" in deleted.embed["description"]
    gone = await alice.slash("lancer", expression="frappe")
    assert (
        gone.ephemeral
        and "« frappe » n'est ni une valeur de votre fiche (Élise)" in gone.embed["description"]
    )
