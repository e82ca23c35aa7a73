"""Three fight buttons through the real bot, every die the table rolls typed by hand: the second
weapon's « Garder l'A pour parer » (renove), an ogl PC's « Éraflure » after a major wound, and the
« Confirmer » / « Annuler » an ogl free attack on an ally asks first. Each checks the French the
players read, the pinned tracker after the click, and that a click by someone else is refused."""

from __future__ import annotations

from bot.emulator.client import Player
from bot.emulator.state import Channel

from .harness import E2E
from .turns import next_round

OGL_BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10"
HP_FULL = "Jambe D 4/4 · Jambe G 4/4 · Abdomen 4/4 · Poitrine 5/5 · Bras D 3/3 · Bras G 3/3 · Tête 4/4"


def field(emu: E2E, thread: Channel, name: str) -> tuple[str, str]:
    """The tracker's field of ``name``: its title and its value."""
    for f in emu.pins(thread)[0].embeds[0]["fields"]:
        if str(f["name"]).lstrip("▶💀💤 ").split(" · ")[0] == name:
            return str(f["name"]), str(f["value"])
    raise AssertionError(f"{name} not on the tracker")


async def open_thread(emu: E2E, name: str) -> Channel:
    opened = await emu.user("gm").slash("combat ouvrir", nom=name)
    await opened.wait_followup()
    return emu.thread(name)


async def test_keeping_the_second_weapons_a_passes_the_slot(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Albert", caracs="CC:45 CT:40 F:35 E:40 Ag:38 Int:30 FM:30 Soc:33")
    await alice.slash("perso equiper", arme="epee", main_gauche="dague")
    thread = await open_thread(emu, "Duel")
    await alice.slash("combat ajouter", qui="Albert", channel=thread)
    await gm.slash(
        "combat ajouter",
        qui="Bandit",
        cc=50,
        f=35,
        caracs="E:30",
        armes="epee",
        camp="Bandits",
        channel=thread,
    )
    await gm.slash("combat round", des="Albert: 20 20 20; Bandit: 1 1 1", channel=thread)
    sword = await alice.slash("combat attaque", cible="Bandit", arme="epee", jet=95, channel=thread)
    assert sword.embed["description"] == (
        "Test de CC : CC 45 · ajustement (50 − CC adverse) +0 = **45 %**\n"
        "Jet **95** → Échec (5 °E)\n"
        "Bandit n'est pas touché.\n"
        "Albert a encore l'A de sa seconde arme, pour une attaque ou une feinte sur ce créneau ; "
        "sinon, le MJ passe son tour avec /combat suivant.\n"
        "▶ Au tour d'**Albert**."
    )
    [[keep]] = [row["components"] for row in sword.components]
    assert keep["label"] == "Garder l'A pour parer" and keep["custom_id"] == "melee:fight:1:keep:1:0"
    await emu.emu.wait_until(
        lambda: (
            field(emu, thread, "Albert")[0] == "▶ Albert · PJ"
            and "Attaques : 1 sur 2" in field(emu, thread, "Albert")[1]
        ),
        what="Albert's slot, one attack made",
    )

    other = await bob.click("Garder l'A pour parer", message=sword.message)
    assert other.ephemeral and other.embed["description"] == "Albert n'est pas à vous."
    kept = await alice.click("Garder l'A pour parer", message=sword.message)
    assert not kept.ephemeral
    assert kept.embed["description"] == (
        "Albert garde son A supplémentaire pour parer : son créneau passe.\n▶ Au tour de **Bandit**."
    )
    await emu.emu.wait_until(
        lambda: (
            field(emu, thread, "Albert")[0] == "Albert · PJ"
            and "Attaques : 1 sur 2" in field(emu, thread, "Albert")[1]
            and field(emu, thread, "Bandit")[0] == "▶ Bandit · Bandits"
        ),
        what="the slot passed to the Bandit on the tracker",
    )
    stale = await alice.click("Garder l'A pour parer", message=sword.message)
    assert stale.ephemeral
    assert stale.embed["description"] == "Ce bouton n'est plus valable : c'est au tour de Bandit."

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def add_orc(gm: Player, thread: Channel) -> None:
    """The ogl scenarios' foe: an orc with an axe, on the « Orcs » side."""
    await gm.slash(
        "combat ajouter",
        qui="Orc",
        caracs=OGL_BODY + " RA:2",
        armes="Hache 1d8 50%",
        camp="Orcs",
        channel=thread,
    )


async def test_a_major_wound_offers_the_player_his_graze(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    await alice.slash("perso creer", nom="Aude", systeme="ogl", caracs=OGL_BODY)
    thread = await open_thread(emu, "Lice")
    await alice.slash(
        "combat ajouter", qui="Aude", caracs="PH:1 Esquive:40", armes="Épée 1d8+1 60%", channel=thread
    )
    await add_orc(gm, thread)
    # the axe's 8 typed on the chest (5 HP): 5 − 8 = −3, serious; the second blow: −11 < −5, major
    for _ in range(2):
        await next_round(gm, thread, des="Orc: 9; Aude: 1")
        blow = await gm.slash(
            "combat attaque",
            attaquant="Orc",
            cible="Aude",
            jet=10,
            localisation="poitrine",
            degats="8",
            effets="2",
            channel=thread,
        )
        taken = await alice.click("Encaisser", message=blow.message)
    text = taken.embed["description"]
    assert "Poitrine : dégâts 8 = **8** → PV -3 → **-11**/5\nBlessure grave pour Aude." in text
    assert (
        "🦸 Blessure grave pour Aude : un point d'héroïsme (Éraflure) la ramène à une blessure sérieuse "
        "(il lui en reste un) ; le bouton ci-dessous est pour son joueur."
    ) in text
    button = "Éraflure : dépenser un point d'héroïsme (Aude)"
    await emu.emu.wait_until(
        lambda: (
            "Poitrine **-3/5**" in field(emu, thread, "Aude")[1] and "PH 1" in field(emu, thread, "Aude")[1]
        ),
        what="Aude's chest and hero point on the tracker",
    )

    refused = "Seul le joueur du personnage peut dépenser ce point d'héroïsme (Aude)."
    by_gm = await gm.click(button, message=taken.message)
    assert by_gm.ephemeral and by_gm.embed["description"] == refused
    by_bob = await bob.click(button, message=taken.message)
    assert by_bob.ephemeral and by_bob.embed["description"] == refused
    spent = await alice.click(button, message=taken.message)
    assert not spent.ephemeral and spent.embed["title"] == "Point d'héroïsme — Aude"
    text = spent.embed["description"]
    assert text.startswith(
        "Aude dépense un point d'héroïsme : éraflure.\nPoitrine : dégâts 8 → 2, PV -5.\n"
        "Blessure sérieuse pour Aude.\n"
    )
    assert text.endswith(
        "Aude doit réussir un test d'Endurance ou perdre connaissance : /combat test.\n"
        "Points d'héroïsme d'Aude : 0."
    )
    await emu.emu.wait_until(
        lambda: (
            "Poitrine **-5/5**" in field(emu, thread, "Aude")[1] and "PH" not in field(emu, thread, "Aude")[1]
        ),
        what="the chest at −5 and no hero point left on the tracker",
    )
    again = await alice.click(button, message=taken.message)
    assert again.ephemeral and again.embed["description"] == (
        "Cette Éraflure n'est plus proposée (déjà dépensée, ou le combattant a quitté le combat)."
    )

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")


async def test_free_attacks_on_an_ally_ask_first(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config systeme", systeme="ogl", portee="canal")
    thread = await open_thread(emu, "Lice")
    body = OGL_BODY + " Esquive:40"
    await gm.slash(
        "combat ajouter",
        qui="Chevalier",
        caracs=body,
        armes="Épée 1d8+1 60%, Bouclier 1d4 40%",
        camp="Ordre",
        channel=thread,
    )
    await gm.slash(
        "combat ajouter", qui="Écuyer", caracs=body, armes="Épée 1d8+1 60%", camp="Ordre", channel=thread
    )
    await add_orc(gm, thread)
    await next_round(gm, thread, des="Chevalier: 5; Orc: 1; Écuyer: 1")
    fresh = ("▶ Chevalier · Ordre", f"{HP_FULL}\nréactions 0/1\nAttaques : 0 sur 1")
    await emu.emu.wait_until(lambda: field(emu, thread, "Chevalier") == fresh, what="round 1 on the tracker")
    question = (
        "⚠️ Chevalier attaque un allié : confirmer ?",
        "Écuyer est du même camp (Ordre). Rien n'est lancé ni dépensé avant votre réponse.",
    )

    # « Annuler »: nothing rolled nor spent
    off_hand = dict(
        usage="attaque", qui="Chevalier", cible="Écuyer", jet=95, localisation="tete", channel=thread
    )
    asked = await gm.slash("manoeuvre deux-armes", **off_hand)
    assert asked.ephemeral and (asked.embed["title"], asked.embed["description"]) == question
    assert [b["label"] for b in asked.components[0]["components"]] == ["Confirmer", "Annuler"]
    cancelled = await gm.click("Annuler", message=asked.message)
    assert cancelled.ephemeral and cancelled.embed["description"] == "Attaque annulée : rien n'a changé."
    assert field(emu, thread, "Chevalier") == fresh

    # « Confirmer » on the counter-attack: rolled (the typed 95 misses), the reaction spent
    counter = dict(cible="Écuyer", declencheur="court", qui="Chevalier", jet=95, localisation="tete")
    asked = await gm.slash("manoeuvre riposte", **counter, channel=thread)
    assert asked.ephemeral and (asked.embed["title"], asked.embed["description"]) == question
    done = await gm.click("Confirmer", message=asked.message)
    assert not done.ephemeral and done.embed["title"] == "⚔️ Chevalier → Écuyer (Épée)"
    assert done.embed["description"] == (
        "Chevalier contre-attaque Écuyer qui court.\n"
        "Attaque (Épée) : arme 60 · contre-attaque sur une course +20 = **80 %**\n"
        "Jet **95** → Échec (ME 15)\nRaté."
    )
    again = await gm.click("Confirmer", message=asked.message)
    assert again.ephemeral and again.embed["description"] == "Cette question a déjà reçu sa réponse."
    # « Confirmer » on the off hand's attack: rolled, the off hand used this round
    asked = await gm.slash("manoeuvre deux-armes", **off_hand)
    done = await gm.click("Confirmer", message=asked.message)
    assert done.embed["description"] == (
        "Chevalier frappe de sa seconde arme (Bouclier), une attaque de plus ce round.\n"
        "Attaque (Bouclier) : arme 40 = **40 %**\nJet **95** → Échec (ME 55)\nRaté."
    )
    spent = ("▶ Chevalier · Ordre", f"{HP_FULL}\nréactions 1/1\nseconde arme : attaque\nAttaques : 0 sur 1")
    await emu.emu.wait_until(
        lambda: field(emu, thread, "Chevalier") == spent,
        what="the reaction and the off hand spent on the tracker",
    )
    assert field(emu, thread, "Écuyer")[1] == f"{HP_FULL}\nréactions 0/1\nAttaques : 0 sur 1"

    await gm.slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, what="the thread to be archived")
