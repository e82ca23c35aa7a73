"""``/regles`` browsing: critical mechanics as sentences, weapons, generic tables, notes, autocomplete."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from bot.context import AppContext
from bot.data_loading import Table, load_all
from bot.i18n import default_catalog
from bot.services import rules_browser as svc
from bot.services.caller import Caller
from bot.services.house_rules import entry_key

FR = Caller(user_id=1, guild_id=700, channel_id=10, locale="fr")
EN = Caller(user_id=1, guild_id=700, channel_id=10, locale="en-GB")


@cache
def tables() -> dict[str, Table]:
    return load_all()


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """Browsing is read-only: SQLite is enough here (no PostgreSQL run)."""
    return f"sqlite+aiosqlite:///{tmp_path}/browse.db"


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return tables()


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


def test_mechanics_read_as_sentences() -> None:
    fr = svc.MechanicsRenderer(default_catalog(), "fr")
    test = {
        "type": "test",
        "characteristic": "E",
        "modifier": -10,
        "on_failure": [{"type": "fall"}, {"type": "lose_time", "amount": 2, "unit": "round"}],
    }
    assert fr.effect(test) == "Test d'E −10 % ; en cas d'échec : chute, perd 2 rounds"
    assert fr.effect({"type": "test", "characteristic": "FM", "modifier": 0}) == "Test de FM"
    assert fr.effect({"type": "lose_time", "amount": 1, "unit": "half_round"}) == "perd ½ round"
    modifier = {
        "type": "modifier",
        "stat": "CC",
        "value": -20,
        "duration": {"amount": "1d10", "unit": "round"},
    }
    assert fr.effect(modifier) == "CC −20 % pendant 1d10 rounds"
    assert fr.effect({"type": "modifier", "stat": "M", "value": -1, "duration": {"until": "healed"}}) == (
        "M −1 jusqu'à la guérison"
    )
    assert fr.effect(
        {"type": "death_timer", "within": {"amount": "1d10", "unit": "hour"}, "unless": "healed"}
    ) == ("mort dans 1d10 heures, sauf guérison")
    en = svc.MechanicsRenderer(default_catalog(), "en")
    assert en.effect(test) == "E test −10 % ; on a failure: falls, loses 2 rounds"
    assert en.effect({"type": "no_such_effect", "x": 1}) == "no_such_effect (x=1)"


def test_every_critical_effect_renders_without_raw_vocabulary() -> None:
    for language in ("fr", "en"):
        renderer = svc.MechanicsRenderer(default_catalog(), language)
        for name, table in tables().items():
            if table.schema != "criticals":
                continue
            for entry in table.entries:
                for effect in entry["mechanics"]:
                    text = renderer.effect(effect)
                    assert "rules." not in text and "_" not in text.replace("1d10", ""), (name, text)


def test_critical_mentions_in_notes() -> None:
    assert svc.critical_mentions("Bras 8 et 9 : …") == {("bras", 8), ("bras", 9)}
    assert ("corps", 7) in svc.critical_mentions("Corps 3 à 10 (flanc …)")
    assert ("tete", 15) in svc.critical_mentions("Valeur 15 : mort dans les quatre zones")
    assert ("jambes", 1) not in svc.critical_mentions("Jambes 12, Bras 12 et Corps 11")


async def test_show_a_critical_entry(ctx: AppContext) -> None:
    reply = await svc.show_entry(ctx, FR, name="criticals_tranchantes", entry="Jambes 12")
    assert not reply.is_error and reply.result is not None
    assert reply.result["entry"] == "jambes 12"
    assert reply.title == "Coups critiques — armes tranchantes — Jambes 12"
    assert reply.description and reply.description.startswith("*")
    text = "\n".join(f.value for f in reply.fields)
    assert "pied perdu" in text and "Test d'E après BE rounds" in text
    assert any("Jambes 12 :" in f.value for f in reply.fields)  # the note about this entry
    assert reply.footer and "2475-2752" in reply.footer
    english = await svc.show_entry(ctx, EN, name="criticals_tranchantes", entry="tête 12")
    assert english.title == "Critical hits — edged weapons — Head 12"


async def test_show_a_weapon_an_armour_piece_and_a_modifier(ctx: AppContext) -> None:
    sword = await svc.show_entry(ctx, FR, name="weapons_melee", entry="epee")
    fields = {f.name: f.value for f in sword.fields}
    assert fields["Dégâts"] == "BF" and "Coup perforant" in fields["Actions spéciales"]
    assert fields["Prix"] == "12 pa"
    armour = await svc.show_entry(ctx, EN, name="armour", entry="cuir_bouilli_cerveliere")
    assert not armour.is_error and "Boiled leather skullcap" in (armour.title or "")
    modifier = await svc.show_entry(ctx, FR, name="combat_modifiers", entry="cc_adversaire_desarme")
    assert modifier.footer and "seed_line: 1354" in modifier.footer


async def test_every_entry_of_every_table_fits_an_embed(ctx: AppContext) -> None:
    for name, table in tables().items():
        for entry in table.entries[:80]:
            key = entry_key(table.schema, entry)
            assert key is not None
            reply = await svc.show_entry(ctx, FR, name=name, entry=key)
            assert not reply.is_error, (name, key, reply.description)
            size = len(reply.title or "") + len(reply.description or "") + len(reply.footer or "")
            size += sum(len(f.name) + len(f.value) for f in reply.fields)
            assert size <= 6000 and len(reply.fields) <= 25, (name, key)


async def test_unknown_table_and_entry_are_ephemeral_errors(ctx: AppContext) -> None:
    missing = await svc.show_entry(ctx, FR, name="nope", entry="x")
    assert missing.is_error and missing.ephemeral
    close = await svc.show_entry(ctx, EN, name="weapons_melee", entry="epe")
    assert close.is_error and "`epee`" in close.fields[0].value
    no_entries = await svc.show_entry(ctx, FR, name="chases", entry="x")
    assert no_entries.is_error


async def test_tables_and_notes(ctx: AppContext) -> None:
    listing = await svc.list_tables(ctx, FR)
    assert listing.result is not None and listing.result["tables"]["criticals_tranchantes"] == 60
    text = "\n".join(f.value for f in listing.fields)
    assert "`weapons_melee` (30)" in text
    notes = await svc.show_notes(ctx, FR, name="criticals_tranchantes", page=99)
    assert notes.result is not None and notes.result["page"] == notes.result["pages"] > 1
    assert notes.description and len(notes.description) <= 4096


async def test_autocomplete(ctx: AppContext) -> None:
    choices = svc.table_choices(ctx, "fr", "tranch")
    assert ("Coups critiques — armes tranchantes (criticals_tranchantes)", "criticals_tranchantes") in choices
    assert len(svc.table_choices(ctx, "fr", "")) == 25
    entries = await svc.entry_choices(ctx, FR, "criticals_tranchantes", "jambes 1")
    values = [v for _, v in entries]
    assert values[:2] == ["jambes 1", "jambes 10"] or "jambes 1" in values
    assert all(len(n) <= 100 for n, _ in entries)
    swords = await svc.entry_choices(ctx, FR, "weapons_melee", "épée")
    assert "epee" in [v for _, v in swords]
    assert await svc.entry_choices(ctx, FR, "nope", "") == []


async def test_every_talent_reads_in_french_and_english_without_raw_keys(ctx: AppContext) -> None:
    for entry in tables()["talents"].entries:
        for caller in (FR, EN):
            reply = await svc.show_entry(ctx, caller, name="talents", entry=entry["id"])
            assert not reply.is_error, reply.description
            notes = default_catalog().t(caller.locale, "rules.field.note")
            text = "\n".join(f"{f.name}: {f.value}" for f in reply.fields if f.name != notes)
            assert "rules." not in text and "_" not in text and "{" not in text, (entry["id"], text)
    tireur = await svc.show_entry(ctx, FR, name="talents", entry="Tireur d'élite")
    shown = {f.name: f.value for f in tireur.fields}
    assert shown["Effets"] == "• CT +5 %" and shown["Reporté sur le profil de base"] == "oui"
    assert shown["Origine"] == "Warhammer rénové, l. 1253-1254"
    hardy = {
        f.name: f.value for f in (await svc.show_entry(ctx, FR, name="talents", entry="dur a cuire")).fields
    }
    assert hardy["Effets"] == "• valeur des critiques subis −1\n• E +10 % au test contre l'infection"
    precise = await svc.show_entry(ctx, EN, name="talents", entry="Sure Shot")
    assert "°R for the zone hit +1, when shooting" in str(precise.fields)


async def test_notes_follow_the_callers_language(ctx: AppContext) -> None:
    """#21: /rules notes and /regles voir show a table's notes in the caller's language (notes_en)."""
    document = ctx.tables["criticals_tranchantes"].document
    french, english = document["notes"], document["notes_en"]
    fr_notes = await svc.show_notes(ctx, FR, name="criticals_tranchantes")
    en_notes = await svc.show_notes(ctx, EN, name="criticals_tranchantes")
    assert fr_notes.description and en_notes.description
    assert french[1][:60] in fr_notes.description and english[1][:60] not in fr_notes.description
    assert english[1][:60] in en_notes.description and french[1][:60] not in en_notes.description
    # an entry's notes: the same note (matched on « Bras 8 » / « Arm 8 »), in each language
    fr_entry = await svc.show_entry(ctx, FR, name="criticals_tranchantes", entry="bras 8")
    en_entry = await svc.show_entry(ctx, EN, name="criticals_tranchantes", entry="bras 8")
    fr_fields = [f.value for f in fr_entry.fields]
    en_fields = [f.value for f in en_entry.fields]
    assert any(v.startswith("Bras 8 et 9") for v in fr_fields)
    assert any(v.startswith("Arm 8 and 9") for v in en_fields)
    assert not any(v.startswith("Bras 8 et 9") for v in en_fields)


def test_localized_notes_fall_back_to_the_original() -> None:
    document = {"notes": ["Première lecture.", "Deuxième lecture."], "notes_en": ["First reading.", ""]}
    assert svc.localized_notes(document, "en") == ["First reading.", "Deuxième lecture."]
    assert svc.localized_notes(document, "fr") == ["Première lecture.", "Deuxième lecture."]
    assert svc.localized_notes({"notes": ["Only one."]}, "en") == ["Only one."]
