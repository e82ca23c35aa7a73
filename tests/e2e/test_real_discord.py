"""The bot on a Discord as strict as the real one (issue 22): Pin Messages, per-channel
permissions, threads that auto-archive, the tracker's edit order under rate limits, hour-old
edits, threads the GM made, the first-followup ephemeral rule."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.emulator.client import ClientRefused
from bot.emulator.server import EmulatorConfig
from bot.emulator.state import Message, Perm

from .harness import E2E
from .turns import next_round, skip_turn

DAY = 24 * 3600


def _text(message: Message | dict[str, object]) -> str:
    embeds = message.embeds if isinstance(message, Message) else message.get("embeds")
    return json.dumps(embeds, ensure_ascii=False)


def _tracker(emu: E2E, thread_name: str) -> Message:
    [tracker] = emu.pins(emu.thread(thread_name))
    return tracker


async def _open(emu: E2E, name: str) -> Message:
    opened = await emu.user("gm").slash("combat ouvrir", nom=name)
    await opened.wait_followup()
    return _tracker(emu, name)


async def _end(emu: E2E, name: str) -> None:
    thread = emu.thread(name)
    await emu.user("gm").slash("combat fin", channel=thread)
    await emu.emu.wait_until(lambda: thread.archived, timeout=10, what="the thread to be archived")


class TestWithoutPinMessages:
    @pytest.fixture
    def emu_config(self) -> EmulatorConfig:
        # The invite the README asked for before: Manage Messages, which no longer allows pinning.
        return EmulatorConfig(bot_permissions=Perm.OLD_INVITE)

    async def test_the_gm_is_told_privately_that_the_tracker_is_not_pinned(self, emu: E2E) -> None:
        gm = emu.user("gm")
        opened = await gm.slash("combat ouvrir", nom="Sans épingle")
        public = await opened.wait_followup()
        assert not public.ephemeral and "Sans épingle" in _text(public)
        warning = await opened.wait_followup(2)
        assert warning.ephemeral
        assert "il me manque la permission « Épingler des messages »" in _text(warning)
        # The bot did not try what Discord would refuse (the teardown fails on any refusal),
        # not even when it posts a fresh tracker an hour later.
        thread = emu.thread("Sans épingle")
        assert not emu.pins(thread)
        [first] = emu.channel_messages(thread)
        await emu.emu.advance(56 * 60)
        await gm.slash("combat ajouter", qui="Gobelin", channel=thread)

        def fresh_tracker() -> bool:
            trackers = [m for m in emu.channel_messages(thread) if m.interaction_metadata is None]
            return first.deleted and len(trackers) == 1 and "Gobelin" in _text(trackers[0])

        await emu.emu.wait_until(fresh_tracker, timeout=10, what="a fresh tracker")
        await _end(emu, "Sans épingle")


async def test_no_thread_permission_is_refused_privately_before_anything_is_opened(emu: E2E) -> None:
    gm = emu.user("gm")
    bot_role = emu.guild.role(emu.emu.config.bot_name)
    emu.emu.set_overwrite("partie", bot_role, deny=Perm.CREATE_PUBLIC_THREADS)
    await emu.emu.update_channel("partie")
    refused = await gm.slash("combat ouvrir", nom="Interdit")
    assert refused.callback_type == 4 and refused.ephemeral  # refused before any defer: private
    assert refused.message is not None and "« Créer des fils publics »" in _text(refused.message)
    assert not [t for t in emu.threads if t.name == "Interdit"]
    # Nothing half-opened: once allowed, the same channel opens a fight.
    emu.emu.set_overwrite("partie", bot_role, allow=Perm.CREATE_PUBLIC_THREADS)
    await emu.emu.update_channel("partie")
    await _open(emu, "Permis")
    await _end(emu, "Permis")


async def test_a_quiet_fight_thread_stays_open_and_comes_back_when_archived(emu: E2E) -> None:
    gm = emu.user("gm")
    tracker = await _open(emu, "Siège")
    thread = emu.thread("Siège")
    assert thread.auto_archive_duration == 10080  # the longest Discord offers
    await gm.slash("combat ajouter", qui="2 gobelins", channel=thread)
    await emu.emu.wait_until(lambda: "Gobelin 2" in _text(tracker), timeout=10, what="the tracker edit")
    await emu.emu.advance(2 * DAY)
    assert not thread.archived
    # A week without a message: Discord archives it; the GM carries on from the parent channel.
    await emu.emu.advance(8 * DAY)
    assert thread.archived
    round1 = await gm.slash("combat round", des="Gobelin 1: 5 5 5; Gobelin 2: 4 4 4")
    # The result is posted in the thread (which that unarchives); the GM gets a private link.
    assert round1.ephemeral and f"<#{thread.id}>" in _text(round1.message or {})
    assert any("Round 1 — initiative" in _text(m) for m in emu.channel_messages(thread))
    assert not any("Round 1 — initiative" in _text(m) for m in emu.channel_messages("partie"))

    # The bot unarchived its thread to bring the tracker up to date there (a fresh one: the old
    # message is days old), pinned as before.
    def shows_round_1() -> bool:
        pins = emu.pins(thread)
        return len(pins) == 1 and "Round 1" in _text(pins[0])

    await emu.emu.wait_until(shows_round_1, timeout=10, what="the tracker to show round 1, alone pinned")
    assert not thread.archived
    await _end(emu, "Siège")


class TestUnderRateLimits:
    @pytest.fixture
    def emu_config(self) -> EmulatorConfig:
        return EmulatorConfig(rate_limits={"PATCH /channels/{cid}/messages/{mid}": (2, 2.0)})

    async def test_the_tracker_ends_on_the_newest_state_and_never_goes_back(self, emu: E2E) -> None:
        gm = emu.user("gm")
        tracker = await _open(emu, "Cohue")
        thread = emu.thread("Cohue")
        names = ["Gobelin", "Orque", "Humain", "Halfling", "Spadassin", "Homme bête"]
        mark = len(emu.emu.requests)
        results = await asyncio.gather(*(gm.slash("combat ajouter", qui=n, channel=thread) for n in names))
        assert all(not r.failed for r in results)
        # Replies are immediate: none waited behind the tracker's rate limit.
        assert all(r.interaction.callbacks[0].at - r.interaction.created_at < 3 for r in results)

        def shows_everyone() -> bool:
            return all(n in _text(tracker) for n in names)

        await emu.emu.wait_until(shows_everyone, timeout=15, what="the tracker to show every fighter")
        edits = [
            r
            for r in emu.emu.requests[mark:]
            if r.method == "PATCH" and r.path.endswith(f"/messages/{tracker.id}") and r.status == 200
        ]
        assert len(edits) < len(names)  # what piled up was merged
        shown = [*tracker.history, tracker]
        counts = [sum(n in _text(version) for n in names) for version in shown]
        assert counts == sorted(counts) and counts[-1] == len(names)  # never backwards
        await _end(emu, "Cohue")


class TestHourOldEdits:
    @pytest.fixture
    def emu_config(self) -> EmulatorConfig:
        return EmulatorConfig(old_message_edits=0)

    async def test_the_tracker_is_reposted_and_repinned_before_it_is_an_hour_old(self, emu: E2E) -> None:
        gm = emu.user("gm")
        first = await _open(emu, "Longue")
        thread = emu.thread("Longue")
        await gm.slash("combat ajouter", qui="Gobelin", channel=thread)
        await emu.emu.wait_until(lambda: "Gobelin" in _text(first), timeout=10, what="the first edit")
        await emu.emu.advance(56 * 60)
        await gm.slash("combat ajouter", qui="Orque", channel=thread)

        def new_tracker() -> Message | None:
            pins = emu.pins(thread)
            return pins[0] if len(pins) == 1 and pins[0].id != first.id else None

        second = await emu.emu.wait_until(new_tracker, timeout=10, what="a fresh pinned tracker")
        assert "Orque" in _text(second) and "Gobelin" in _text(second)
        await emu.emu.wait_until(lambda: first.deleted, timeout=10, what="the old tracker to be deleted")
        # Later actions edit the new tracker.
        await gm.slash("combat ajouter", qui="Humain", channel=thread)
        await emu.emu.wait_until(lambda: "Humain" in _text(second), timeout=10, what="the new tracker's edit")
        await _end(emu, "Longue")


async def test_ending_a_fight_opened_in_the_gms_own_thread_leaves_it_open(emu: E2E) -> None:
    gm = emu.user("gm")
    thread = await gm.start_thread("Table de Gorak")
    opened = await gm.slash("combat ouvrir", nom="Dans le fil", channel=thread)
    await opened.wait_followup()
    [tracker] = emu.pins(thread)
    ended = await gm.slash("combat fin", channel=thread)
    assert not ended.failed
    await emu.emu.wait_until(lambda: "Combat terminé" in _text(tracker), timeout=10)
    # A thread the GM made is theirs: the bot does not archive it (nor did it create another).
    # The bot as it was archived it right after this last tracker edit: give it a moment to.
    with pytest.raises(TimeoutError):
        await emu.emu.wait_for_request("PATCH", rf"^/channels/{thread.id}$", timeout=1.5)
    assert not thread.archived
    assert [t.name for t in emu.threads] == ["Table de Gorak"]


async def test_a_failed_command_sync_does_not_keep_the_bot_offline(tmp_path: Path) -> None:
    harness = E2E(tmp_path)
    await harness.start(bot=False)
    try:
        harness.emu.inject_error(
            "PUT", "/applications/{app}/guilds/{guild}/commands", 503, 0, "Service Unavailable"
        )
        await harness.start_bot()  # connects although Discord answered the sync with a 503
        [failed] = harness.sync_requests()
        assert failed.status == 503
        # The next start tries again (nothing was recorded), and the start after it does not
        # sync an unchanged tree.
        await harness.restart_bot()
        assert [r.status for r in harness.sync_requests()] == [503, 200]
        await harness.restart_bot()
        assert [r.status for r in harness.sync_requests()] == [503, 200]
        rolled = await harness.user("alice").slash("lancer", expression="1d6")
        assert not rolled.failed
        assert harness.bot is not None and "command sync failed" in harness.bot.log_text()
    finally:
        await harness.close()
    assert not harness.problems()


async def test_the_attacked_player_is_really_notified(emu: E2E) -> None:
    gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
    await alice.slash("perso creer", nom="Albert", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33")
    await alice.slash("perso equiper", arme="epee")
    await bob.slash("perso creer", nom="Bertha", caracs="CC:30 CT:45 F:30 E:35 Ag:40 Int:31 FM:35 Soc:33")
    await bob.slash("perso equiper", arme="epee")
    await _open(emu, "Duel")
    thread = emu.thread("Duel")
    await alice.slash("combat ajouter", qui="Albert", channel=thread)
    await bob.slash("combat ajouter", qui="Bertha", channel=thread)
    sided = await gm.slash("combat camp", qui="Bertha", camp="Rivaux", channel=thread)  # a duel: two sides
    assert not sided.ephemeral, sided.embed
    await gm.slash("combat round", des="Albert: 15 12 10; Bertha: 10 10 10", channel=thread)
    attack = await alice.slash("combat attaque", cible="Bertha", jet=20, degats="5", channel=thread)
    assert attack.message is not None and attack.components, attack.embed
    payload = emu.emu.message_payload(attack.message)
    # Discord notifies only mentions in the content that allowed_mentions lets through.
    assert [u["id"] for u in payload["mentions"]] == [bob.id]
    assert attack.message.content == bob.mention
    assert emu.pinged_everyone() == []
    await bob.click("Encaisser", message=attack.message)
    await _end(emu, "Duel")


async def test_server_only_commands_are_not_offered_in_dms(emu: E2E) -> None:
    synced = {c["name"]: c for c in emu.emu.commands[emu.guild.id]}
    for name in ("config", "simulate", "combat"):
        assert synced[name]["contexts"] == [0], name  # guild only: Discord hides it in DMs
    # Synced globally (production), the client would not offer them in a DM.
    emu.emu.commands[None] = [synced["config"], synced["roll"]]
    alice = emu.user("alice")
    with pytest.raises(ClientRefused, match="servers only"):
        await alice.slash("config voir", channel="dm")


async def test_a_secret_result_the_gm_cannot_receive_is_not_announced_as_delivered(emu: E2E) -> None:
    alice, carol = emu.user("alice"), emu.user("carol")
    emu.expect_failures = True  # Discord refuses the DM: that is the point
    emu.emu.config.dm_closed.add(carol.id)  # the owner (who gets secret results) closed their DMs
    notice = await alice.slash("test", competence="Perception", carac="40", jet=35)
    assert not notice.ephemeral
    assert "n'a pas pu être remis au MJ" in _text(notice.message or {})
    assert "est parti au MJ" not in _text(notice.message or {})
    private = await notice.wait_followup()
    assert private.ephemeral and private.visible_to == alice.id
    assert "n'accepte pas les messages privés" in _text(private) and "35 sous" not in _text(private)
    assert [f.kind for f in emu.emu.failures] == ["dm_closed"]
    # As the roller is told: the GM finds it in the history (others do not see it there).
    history = await emu.user("gm").slash("historique")
    assert "**35** — Perception 🔒" in _text(history.message or {})
    others = await emu.user("bob").slash("historique")
    assert "Perception" not in _text(others.message or {})


async def test_the_gm_channel_must_be_writable_and_is_forgotten_once_deleted(emu: E2E) -> None:
    alice, gm, carol = emu.user("alice"), emu.user("gm"), emu.user("carol")
    bot_role = emu.guild.role(emu.emu.config.bot_name)
    emu.emu.set_overwrite("hors-jeu", bot_role, deny=Perm.VIEW_CHANNEL)
    await emu.emu.update_channel("hors-jeu")
    refused = await gm.slash("config canal-mj", canal="hors-jeu")
    assert refused.ephemeral and "« Voir le salon »" in _text(refused.message or {})
    emu.emu.set_overwrite("hors-jeu", bot_role, allow=Perm.VIEW_CHANNEL)
    await emu.emu.update_channel("hors-jeu")
    accepted = await gm.slash("config canal-mj", canal="hors-jeu")
    assert not accepted.ephemeral
    # The channel is deleted: the bot forgets it, secret results go back to the owner's DMs.
    gone = emu.emu.channel("hors-jeu")
    await emu.emu.delete_channel(gone)
    for _ in range(20):  # the bot handles CHANNEL_DELETE on its own time
        shown = await gm.slash("config voir")
        if f"<#{gone.id}>" not in _text(shown.message or {}):
            break
    else:
        raise AssertionError("the deleted GM channel is still configured")
    notice = await alice.slash("test", competence="Perception", carac="40", jet=35)
    assert "n'a pas pu" not in _text(notice.message or {})
    await emu.emu.wait_until(lambda: carol.dm_messages, what="the owner's DM")
    assert "35 sous 40" in _text(carol.dm_messages[-1])


async def test_a_refusal_after_a_public_defer_stays_private(emu: E2E) -> None:
    gm = emu.user("gm")
    # Discord refuses the thread although the permissions said yes (a race with an admin's edit).
    emu.emu.inject_error("POST", "/channels/{cid}/threads", 403, 50013, "Missing Permissions")
    opened = await gm.slash("combat ouvrir", nom="Raté")
    assert opened.callback_type == 5  # deferred publicly: the fight's opening is public
    refusal = await opened.wait_followup()
    assert refusal.ephemeral and refusal.visible_to == gm.id
    assert "Impossible de créer le fil" in _text(refusal)
    public = [m for m in emu.channel_messages("partie") if "Impossible" in _text(m) or m.loading]
    assert public == []
    # Nothing half-opened: the next try opens the fight.
    await _open(emu, "Réussi")
    await _end(emu, "Réussi")


class TestTwoHourFight:
    @pytest.fixture
    def emu_config(self) -> EmulatorConfig:
        return EmulatorConfig(
            rate_limits={"PATCH /channels/{cid}/messages/{mid}": (5, 5.0)},
            latency=0.2,
            old_message_edits=0,  # no edit at all of an hour-old message
        )

    async def test_the_tracker_ends_pinned_in_the_thread_on_the_last_state(self, emu: E2E) -> None:
        gm, alice, bob = emu.user("gm"), emu.user("alice"), emu.user("bob")
        await alice.slash(
            "perso creer", nom="Albert", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
        )
        await alice.slash("perso equiper", arme="epee")
        await bob.slash("perso creer", nom="Bertha", caracs="CC:30 CT:45 F:30 E:35 Ag:40 Int:31 FM:35 Soc:33")
        await bob.slash("perso equiper", arme="epee")
        await _open(emu, "Marathon")
        thread = emu.thread("Marathon")
        await alice.slash("combat ajouter", qui="Albert", channel=thread)
        await bob.slash("combat ajouter", qui="Bertha", channel=thread)
        await gm.slash("combat ajouter", qui="Gobelin", channel=thread)
        rounds = 12
        for number in range(1, rounds + 1):
            await next_round(gm, thread, des="Albert: 15 12 10; Bertha: 10 10 10; Gobelin: 5 5 5")
            await alice.slash("combat attaque", cible="Gobelin", jet=90, channel=thread)
            await bob.slash("combat attaque", cible="Gobelin", jet=91, channel=thread)
            if number < rounds:
                await skip_turn(gm, thread)  # the goblin's slot: the round is over
                await emu.emu.advance(10 * 60)  # ten minutes of talk at the table

        def last_state_pinned() -> Message | None:
            pins = emu.pins(thread)
            if len(pins) == 1 and f"Round {rounds}" in _text(pins[0]) and "Gobelin" in _text(pins[0]):
                return pins[0]
            return None

        tracker = await emu.emu.wait_until(last_state_pinned, timeout=30, what="the last state, pinned")
        assert tracker.channel_id == thread.id and not tracker.deleted
        replies = [i for i in emu.emu.interactions.values() if i.callbacks]
        assert all(i.callbacks[0].at - i.created_at < 3 for i in replies)
        assert len(replies) >= 4 * rounds
        await _end(emu, "Marathon")
        assert "Combat terminé" in _text(emu.pins(thread)[0])


async def test_a_chase_in_a_channel_the_bot_cannot_read_tells_who_plays(emu: E2E) -> None:
    gm = emu.user("gm")
    bot_role = emu.guild.role(emu.emu.config.bot_name)
    emu.emu.set_overwrite("hors-jeu", bot_role, deny=Perm.VIEW_CHANNEL)
    await emu.emu.update_channel("hors-jeu")
    opened = await gm.slash("poursuite ouvrir", avance=10, channel="hors-jeu")
    assert not opened.ephemeral  # the board itself (an interaction answer needs no permission)
    warning = await opened.wait_followup()
    assert warning.ephemeral and "« Voir le salon »" in _text(warning)
    for role, name in (("fuyard", "Abel"), ("poursuivant", "Garde")):
        await gm.slash("poursuite ajouter", role=role, nom=name, m=4, be=3, e=35, ag=40, channel="hors-jeu")
    ran = await gm.slash("poursuite courir", nom="Abel", jet=30, channel="hors-jeu")
    frozen = await ran.wait_followup()
    assert frozen.ephemeral and "`/poursuite tableau`" in _text(frozen)
    await gm.slash("poursuite fin", channel="hors-jeu")


@pytest.fixture
async def distant(tmp_path: Path) -> AsyncIterator[E2E]:
    """The bot on a database 3.2 s away per transaction: without deferring, answers come late."""
    harness = E2E(tmp_path)
    harness.extra_env["MELEE_DB_DELAY"] = "3.2"
    try:
        await harness.start()
        yield harness
    finally:
        await harness.close()
    problems = harness.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


async def test_a_distant_database_still_answers_within_three_seconds(distant: E2E) -> None:
    alice, gm = distant.user("alice"), distant.user("gm")
    created = await alice.slash(
        "perso creer", nom="Albert", caracs="CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
    )
    assert created.callback_type == 5  # deferred in time
    sheet = await created.wait_followup(timeout=20)
    assert not sheet.ephemeral and "Albert" in _text(sheet)
    refused = await alice.slash("combat ouvrir", nom="Pas MJ")
    assert refused.callback_type == 5
    refusal = await refused.wait_followup(timeout=20)
    assert refusal.ephemeral  # a refusal after the (public) deferral stays private
    opened = await gm.slash("combat ouvrir", nom="Lointain")
    assert opened.callback_type == 5
    await opened.wait_followup(timeout=30)
    assert distant.pins(distant.thread("Lointain"))
    late = [
        i for i in distant.emu.interactions.values() if i.callbacks and i.callbacks[0].at - i.created_at >= 3
    ]
    assert late == []


async def test_the_interrogation_form_uses_labels(emu: E2E) -> None:
    gm = emu.user("gm")
    form = await gm.slash("interrogatoire ouvrir", sujet="Hans", fm=30, reticent=False)
    assert form.modal is not None
    rows = form.modal["components"]
    # Discord's current form: each text input inside a Label (type 18), not an action row.
    assert [r["type"] for r in rows] == [18] * 5
    assert rows[0]["label"] == "Sujet" and rows[0]["component"]["type"] == 4
    assert rows[0]["component"].get("label") is None
    opened = await gm.submit_modal(sujet="Hans", tier_0="Il a vu un homme.")
    assert not opened.ephemeral and "Il a vu un homme." in _text(opened.message or {})


async def test_with_a_gm_channel_interrogation_secrets_go_there_too(emu: E2E) -> None:
    gm = emu.user("gm")
    await gm.slash("config canal-mj", canal="hors-jeu")
    await gm.slash("interrogatoire ouvrir", sujet="Hans", fm=30, reticent=False)
    await gm.submit_modal(tier_0="Il a vu un homme.", tier_1="Il boitait.")

    def in_gm_channel() -> bool:
        return any("Il boitait." in _text(m) for m in emu.channel_messages("hors-jeu"))

    await emu.emu.wait_until(in_gm_channel, what="the secret summary in the GM channel")
    assert not any("Il boitait." in _text(m) for m in emu.dms(gm))
