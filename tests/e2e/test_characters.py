"""Character sheets through the emulator: create, equip, edit, export, delete, import, restart."""

from __future__ import annotations

import json

from bot.emulator.client import Upload

from .harness import E2E
from .turns import next_round

STATS = "CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"


def _field(embed: dict[str, object], name: str) -> str:
    for item in embed.get("fields", []):  # type: ignore[attr-defined]
        if item["name"] == name:
            return str(item["value"])
    raise AssertionError(f"no field {name!r} in {embed}")


async def test_sheet_round_trip_and_restart(emu: E2E) -> None:
    alice = emu.user("alice")
    bob = emu.user("bob")

    created = await alice.slash("perso creer", nom="Albert", caracs=STATS)
    assert created.embed["title"] == "📜 Albert"
    profile = _field(created.embed, "Profil")
    assert "CC 45" in profile and "BF 6" in profile  # F 35: 3, and +3 for a human (seed 000 l. 1240)
    assert "Humain" in created.embed["description"]
    assert not created.ephemeral  # a player character's sheet is shown to the table

    # Autocomplete offers the data's weapons, and only the user's own characters.
    weapons = await alice.autocomplete("perso equiper", "arme", "epe")
    assert any(choice["value"] == "epee" for choice in weapons)
    assert [c["value"] for c in await alice.autocomplete("perso voir", "personnage", "")] == ["Albert"]
    assert await bob.autocomplete("perso voir", "personnage", "") == []

    equipped = await alice.slash("perso equiper", arme="epee")
    assert equipped.ephemeral and "**Ajout** : Epée" in equipped.embed["description"]
    edited = await alice.slash(
        "perso modifier",
        caracs="PD:2 Fortune:2",
        competences="Esquive:10",
        talents="Ambidextre",
        etats="Sonné",
    )
    assert edited.ephemeral and "PD 2" in _field(edited.embed, "Profil")
    assert "fortune** : 2 sur 2" in _field(edited.embed, "Profil")
    assert _field(edited.embed, "Compétences") == "Esquive +10 (48)"  # Ag 38 + 10

    # Another player cannot touch it; the answer is private and in their language.
    refused = await bob.slash("perso modifier", personnage="Albert", caracs="CC:99")
    assert refused.ephemeral and "n'est pas à vous" in refused.embed["description"]
    english = await emu.user("dave", locale="en-US").slash("character show", character="Albert")
    assert english.ephemeral and "is not yours" in english.embed["description"]

    exported = await alice.slash("perso exporter")
    assert exported.ephemeral
    attachment = exported._msg().attachments[0]
    assert attachment.filename == "albert.json"
    document = json.loads(attachment.data)
    assert document["name"] == "Albert" and document["equipment"]["weapons"] == ["epee"]
    assert document["skills"] == {"Esquive": 10}

    asked = await alice.slash("perso supprimer", personnage="Albert")
    assert asked.ephemeral
    deleted = await alice.click("Supprimer définitivement", message=asked.message)
    assert "supprimé" in deleted._msg().embeds[0]["description"]
    assert (await alice.slash("perso liste")).embed["description"].startswith("Aucun personnage")

    imported = await alice.slash(
        "perso importer", fichier=Upload("albert.json", attachment.data, "application/json")
    )
    await imported.wait_response()
    sheet = imported.followups[0] if imported.followups else imported.message
    assert sheet is not None and sheet.embeds[0]["title"] == "📜 Albert"

    bad = await alice.slash(
        "perso importer", fichier=Upload("bad.json", b'{"format": "x"}', "application/json")
    )
    await bad.wait_response()
    bad_message = bad.followups[0] if bad.followups else bad.message
    assert bad_message is not None and bad_message.ephemeral
    assert "rien n'a été importé" in bad_message.embeds[0]["description"]

    # A confirmation shown before a restart still works after it (persistent button).
    asked_again = await alice.slash("perso supprimer", personnage="Albert")
    await emu.restart_bot()
    shown = await alice.slash("perso voir")
    assert shown.embed["title"] == "📜 Albert"
    assert "Epée" in _field(shown.embed, "Armes")
    assert _field(shown.embed, "Talents") == "Ambidextre"
    gone = await alice.click("Supprimer définitivement", message=asked_again.message)
    assert "supprimé" in gone._msg().embeds[0]["description"]


async def test_npcs_history_and_bad_input(emu: E2E) -> None:
    gm = emu.user("gm")
    alice = emu.user("alice")
    npc = await gm.slash(
        "perso creer",
        nom="Gork",
        systeme="ogl",
        caracs="STR:14 CON:12 SIZ:15 INT:8 POW:9 DEX:11 CHA:6",
        pnj=True,
    )
    assert npc.ephemeral and npc.embed["title"] == "📜 Gork"
    refused = await alice.slash("perso creer", nom="Sbire", caracs=STATS, pnj=True)
    assert refused.ephemeral and "MJ" in refused.embed["description"]
    bad = await alice.slash("perso creer", nom="Albert", caracs="CC:450 Foo:3")
    assert bad.ephemeral
    assert "Foo" in bad.embed["description"] and "CC = 450" in bad.embed["description"]
    assert [c["value"] for c in await gm.autocomplete("perso voir", "personnage", "go")] == ["Gork"]

    await alice.slash("perso creer", nom="Albert", caracs=STATS)
    await alice.slash("lancer", expression="1d100 # Perception")
    history = await alice.slash("historique")
    assert history.ephemeral and "`1d100`" in history.embed["description"]
    assert "Perception" in history.embed["description"]
    assert (await alice.slash("historique", personnage="Albert")).embed["description"].startswith("Aucun jet")


async def test_armour_named_checked_shown_and_applied_by_the_next_fight(emu: E2E) -> None:
    gm, alice = emu.user("gm"), emu.user("alice")
    await alice.slash("perso creer", nom="Albert", caracs="CC:50 CT:40 F:35 E:40 Ag:70 Int:31 FM:29 Soc:33")

    # Autocomplete shows material, PA and zones; the value is the piece's id.
    offered = await alice.autocomplete("perso equiper", "armure", "chemise de m")
    assert {"name": "Chemise de mailles · Maille · 2 PA · bras, corps", "value": "maille_chemise"} in offered

    equipped = await alice.slash(
        "perso equiper", arme="epee", armure="Casque de maille cousue, Chemise de mailles"
    )
    assert equipped.ephemeral and not equipped.embed.get("fields")
    text = equipped.embed["description"]
    assert "**Ajout** : Epée, Casque de maille cousue, Chemise de mailles" in text
    assert "**PA** : Tête 2 · Bras 2 · Corps 2 · Jambes 0" in text

    refused = await alice.slash("perso equiper", armure="Plastron de cuir bouilli")
    assert refused.ephemeral and refused.embed["description"].startswith(
        "« Plastron de cuir bouilli » et « Chemise de mailles » ne se superposent pas sur le corps"
    )
    await alice.slash("perso equiper", retirer="Casque de maille cousue")
    shown = await alice.slash("perso voir")
    assert _field(shown.embed, "Armure") == (
        "Chemise de mailles\n**PA** : Tête 0 · Bras 2 · Corps 2 · Jambes 0\n**Classe** : moyenne\n"
        "**Malus** : Ag -5 · Initiative -5 · CC -5 · CT -5"
    )

    opened = await gm.slash("combat ouvrir", nom="Duel")
    await opened.wait_followup()
    thread = emu.thread("Duel")
    await alice.slash("combat ajouter", qui="Albert", channel=thread)
    await gm.slash("combat ajouter", qui="Orque", cc=50, ag=30, channel=thread)
    round1 = await next_round(gm, thread, des="Albert: 10 10 10; Orque: 1 1 1")
    assert "Ag 65 (70 -5 : armure) = **95**" in round1.embed["description"]
    attack = await alice.slash("combat attaque", cible="Orque", jet=46, channel=thread)
    assert "armure -5 = **45 %**" in attack.embed["description"]
    # End the fight and wait for its archive: nothing of it is still in flight when the bot stops.
    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_a_wfrp_sheet_skills_race_profile_and_fortune(emu: E2E) -> None:
    """Issue 17's first part, through Discord: Gunther's skills on their characteristic, the seed's
    +3 on the sheet, race, career, experience and purse, a private sheet unless asked, Fortune."""
    alice = emu.user("alice")
    gm = emu.user("gm")
    created = await alice.slash(
        "perso creer", nom="Gunther", caracs="CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28", race="nain"
    )
    assert "BF 6 · BE 7 · BA 6" in _field(created.embed, "Profil") and "Nain" in created.embed["description"]
    edited = await alice.slash(
        "perso modifier",
        competences="Esquive +10, Perception",
        px="120/80",
        carriere="Ratier",
        bourse="3 co 5 pa",
    )
    assert "Nain · Ratier · 120 PX (40 à dépenser) · 3 co, 5 pa, 0 s" in edited.embed["description"]
    assert edited.ephemeral and _field(edited.embed, "Compétences") == "Esquive +10 (43) · Perception (29)"
    dodge = await alice.slash("test", competence="Esquive", jet=43)
    assert dodge.embed["fields"][1]["value"] == "**43**"  # the target: Ag 33 + 10
    untrained = await alice.slash("test", competence="Intimidation", jet=19)
    assert "compétence de base non acquise (moitié)" in json.dumps(untrained.embeds, ensure_ascii=False)
    advanced = await alice.slash("test", competence="Crochetage", jet=5)
    assert advanced.ephemeral and "compétence avancée" in advanced.embed["description"]
    wrong = await alice.slash("perso modifier", competences="Esquive:45")
    assert wrong.ephemeral and "+0, +10 ou +20" in wrong.embed["description"]
    shown = await alice.slash("perso voir")
    assert shown.ephemeral and "120 PX (40 à dépenser)" in shown.embed["description"]
    public = await alice.slash("perso voir", public=True)
    assert not public.ephemeral
    english = await emu.user("erin", locale="en-US").slash(
        "character create", name="Hans", stats="CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"
    )
    assert "**Main**: CC 42" in _field(english.embed, "Profile")
    await alice.slash("perso modifier", caracs="PD:2")
    refilled = await gm.slash("fortune", usage="refresh")
    assert "**Gunther** : fortune rechargée à 2" in refilled.embed["description"]
    refused = await alice.slash("fortune", usage="refresh")
    assert refused.ephemeral and "Seul le MJ" in refused.embed["description"]


async def test_talents_known_only_and_applied_in_a_fight(emu: E2E) -> None:
    alice = emu.user("alice")
    gm = emu.user("gm")
    await alice.slash("perso creer", nom="Hans", caracs=STATS)
    refused = await alice.slash("perso modifier", talents="Coups precsi, Ambidextre")
    assert refused.ephemeral
    assert (
        "Talent inconnu : « Coups precsi ». Vouliez-vous dire : Coups précis ?"
        in refused.embed["description"]
    )
    edited = await alice.slash("perso modifier", talents="Strike to Injure, tireur d'elite, autre: Chance")
    assert _field(edited.embed, "Talents") == "Coups précis, Tireur d'élite, Autre : Chance"
    assert "CT 35" in _field(edited.embed, "Profil")  # CT 30 + 5 on the base profile
    assert "Tireur d'élite : CT +5, reporté sur le profil de base (30 → 35)." in edited.embed["description"]

    opened = await gm.slash("combat ouvrir", nom="Ruelle")
    await opened.wait_followup()
    thread = emu.thread("Ruelle")  # the fight's own thread (another test's fight may still be open)
    await alice.slash("combat ajouter", qui="Hans", channel=thread)
    await gm.slash("combat ajouter", qui="gobelin", channel=thread)
    await next_round(gm, thread, des="Hans: 15 12 10; Gobelin: 5 5 10")
    attack = await alice.slash("combat attaque", cible="Gobelin", jet=25, channel=thread)
    text = str(attack.embed)
    assert "Coups précis" in text, text  # +1 °R for the location, found by its English name
    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
