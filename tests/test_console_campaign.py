"""The console as a tool: a campaign kept in a ``--db`` file, Discord's input forms, the context
instructions (``!in``, ``!pins``, ``!autocomplete``, ``!wait``), files, refusals in one line."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from bot.console import ConsoleInputError, parse_duration, parse_line
from bot.console_world import stable_id

from .console_script import ROOT, assert_no_errors, console_run

# -- parsing ------------------------------------------------------------------------------------


def test_a_channel_before_the_command_and_comments_that_start_with_a_hash() -> None:
    line = parse_line("#taverne @alice /lancer expression:1d6")
    assert (line.channel, line.user, line.command) == ("taverne", "alice", "lancer")
    assert parse_line("@bob #mj /test carac:40").channel == "mj"
    assert parse_line("#combat d'Albert : il attaque").kind == "empty"
    assert parse_line("# l'embuscade").kind == "empty"


def test_context_instructions_parse() -> None:
    assert parse_line("!in combat") == parse_line("!dans combat")
    assert parse_line("!in #La cave").target == "La cave"
    auto = parse_line("!autocomplete /combat attaque cible:Go")
    assert (auto.kind, auto.command, auto.target, auto.options) == (
        "autocomplete",
        "combat attaque",
        "cible",
        {"cible": "Go"},
    )
    assert parse_line("!role @dave -Joueurs").options == {"role": "Joueurs", "add": ""}
    assert parse_line("!pins").kind == "pins"


@pytest.mark.parametrize(
    ("text", "seconds"), [("10m", 600), ("90s", 90), ("2h", 7200), ("1h30m", 5400), ("1j", 86400), ("45", 45)]
)
def test_wait_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "dix minutes", "10x"])
def test_bad_durations_are_refused(bad: str) -> None:
    with pytest.raises(ConsoleInputError, match="10m"):
        parse_duration(bad)


@pytest.mark.parametrize("bad", ["!frobnicate", "!autocomplete combat", "!role dave MJ", "!in"])
def test_bad_instructions_are_refused_with_how_to_write_them(bad: str) -> None:
    with pytest.raises(ConsoleInputError, match=r"!\w+ "):
        parse_line(bad)


def test_an_option_given_twice_is_refused() -> None:
    with pytest.raises(ConsoleInputError, match="expression is given twice"):
        parse_line("/roll expression:1d6 expression:2d6")


def test_ids_derive_from_names_only() -> None:
    assert stable_id("user", "alice") == stable_id("user", "alice")
    assert stable_id("user", "alice") != stable_id("user", "bob")
    assert stable_id("guild", "La Taverne") != stable_id("guild", "Le Donjon")
    # A real snowflake: its timestamp is in January 2021, older than every id drawn at run time.
    created_ms = (int(stable_id("role", "La Taverne", "mj")) >> 22) + 1_420_070_400_000
    assert 1_609_459_200_000 <= created_ms < 1_609_459_200_000 + (1 << 31)


# -- a campaign in a file -----------------------------------------------------------------------

FIRST_EVENING = """
@alice /perso creer nom:Albert caracs:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"
/perso creer nom:Gork caracs:"CC:35 CT:20 F:40 E:40 Ag:30 Int:20 FM:25 Soc:15" pnj:oui
!role @dave Conteurs
/config mj role:@&Conteurs destinataire:@dave
"""
SECOND_EVENING = """
@alice /perso liste
@alice /perso voir personnage:Albert
@dave /perso liste
@dave /perso voir personnage:Gork
@dave /config voir
"""


def test_two_runs_on_one_database_are_one_campaign(tmp_path: Path) -> None:
    db = str(tmp_path / "campagne.db")
    first = console_run(FIRST_EVENING, "--db", db)
    assert first.returncode == 0, first.errors or first.stderr[-2000:]
    assert_no_errors(first.records)
    created = next(r for r in first.records if r["command"] == "/perso creer" and r["user"] == "alice")
    owner_mention = re.search(r"<@[0-9]+>", json.dumps(created["embeds"]))
    assert owner_mention is not None
    assert (tmp_path / "campagne.world.json").exists()

    second = console_run(SECOND_EVENING, "--db", db)
    assert second.returncode == 0, second.errors or second.stderr[-2000:]
    listing, sheet, gm_listing, npc, settings = second.records
    text = json.dumps(listing, ensure_ascii=False)
    assert "Albert" in text and owner_mention.group(0) in text  # the same owner, by the same id
    assert sheet["embeds"][0]["title"].endswith("Albert")
    # dave keeps the role Conteurs, which is still the GM role: he sees the NPC
    assert "Gork" in json.dumps(gm_listing, ensure_ascii=False)
    assert npc["embeds"][0]["title"].endswith("Gork")
    role_line = json.dumps(settings, ensure_ascii=False)
    assert "<@&" + stable_id("role", "La Taverne", "conteurs") + ">" in role_line


def test_another_server_name_is_another_campaign(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    console_run(
        '@alice /perso creer nom:Albert caracs:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"\n',
        "--db",
        db,
    )
    other = console_run("@alice /perso liste\n", "--db", db, "--server", "Le Donjon")
    assert "Albert" not in json.dumps(other.records, ensure_ascii=False)


# -- Discord's input forms ----------------------------------------------------------------------


def test_mentions_roles_channels_booleans_and_numbers(tmp_path: Path) -> None:
    script = "\n".join(
        [
            "/config mj role:@MJ destinataire:@bob",
            "/config canal-mj canal:#mj",
            "/test carac:45 mod:+10 pour:<@" + stable_id("user", "bob") + "> secret:oui",
            "/test carac:45 mod:+10%",
            "/test carac:45 secret:peut-être",
            "@alice /lancer expression:1d6",
        ]
    )
    run = console_run(script + "\n")
    assert run.returncode == 1  # two lines were refused
    assert "Traceback" not in run.stderr
    gm_role, channel, secret, bad_mod, bad_bool, roll = run.records
    assert "<@&" + stable_id("role", "La Taverne", "mj") + ">" in json.dumps(gm_role)
    assert "<@" + stable_id("user", "bob") + ">" in json.dumps(gm_role)
    assert "<#" + stable_id("channel", "La Taverne", "mj") + ">" in json.dumps(channel)
    assert secret["result"] is not None and not secret.get("error")
    # the console's own words follow its --locale (French by default)
    assert bad_mod["error"] == "mod prend un nombre entier (mod:10, mod:-20), reçu '+10%'"
    assert "oui ou non" in bad_bool["error"]
    assert roll["result"]["total"] in range(1, 7)


def test_files_are_read_from_disk_and_checked_like_discord(tmp_path: Path) -> None:
    export = console_run(
        '@alice /perso creer nom:Gunther caracs:"CC:42 CT:31 F:38 E:41 Ag:33 Int:29 FM:31 Soc:28"\n'
        "@alice /perso exporter personnage:Gunther\n",
        "--save-files",
        str(tmp_path / "out"),
    )
    exported = export.records[-1]
    assert exported["attachments"][0]["filename"] == "gunther.json"
    saved = tmp_path / "out" / "gunther.json"
    assert exported["attachments"][0]["size"] == saved.stat().st_size > 0
    sheet = json.loads(saved.read_text(encoding="utf-8"))
    sheet_text = json.dumps(sheet, ensure_ascii=False)
    (tmp_path / "big.json").write_bytes(b" " * (10 * 1024 * 1024 + 1))
    (tmp_path / "gunther.json").write_text(sheet_text.replace("Gunther", "Gunthilde"), encoding="utf-8")
    run = console_run(
        "@bob /perso importer fichier:@gunther.json\n"
        "@bob /perso importer fichier:@big.json\n"
        "@bob /perso importer fichier:@absent.json\n"
        "@bob /perso importer fichier:gunther.json\n",
        cwd=tmp_path,
    )
    imported, big, absent, without_at = run.records
    assert "Gunthilde" in json.dumps(imported, ensure_ascii=False)
    assert (
        big["error"] == "fichier : big.json pèse 10,0 Mio ; Discord accepte des fichiers de 10,0 Mio au plus"
    )
    assert absent["error"].startswith("fichier : aucun fichier 'absent.json'")
    assert "error" not in without_at  # a path without @ works too (the bot refuses the duplicate name)
    assert run.returncode == 1


# -- context --------------------------------------------------------------------------------------

FIGHT = """
/combat ouvrir nom:Embuscade
!in combat
/combat ajouter qui:"2 gobelins"
!autocomplete /combat attaque cible:Go
!pins
#général @alice /lancer expression:1d6
!wait 8j
!in combat
"""


def test_acting_in_the_fight_thread_pins_autocomplete_and_time() -> None:
    run = console_run(FIGHT)
    _opened, added, choices, pinned, roll, late = run.records
    assert "error" not in added and "Gobelin 1" in json.dumps(added, ensure_ascii=False)
    assert [c["name"] for c in choices["choices"]] == ["Gobelin 1", "Gobelin 2"]
    assert pinned["to"] == "📌 #Embuscade" and "Gobelin 2" in json.dumps(pinned, ensure_ascii=False)
    assert roll["result"]["total"] in range(1, 7)
    # A week without a message (fight threads auto-archive after 7 days): Discord archives the
    # thread, so there is no fight thread to go to.
    assert late["error"].startswith("aucun fil de combat n'est ouvert")
    assert run.returncode == 1


DEFENCE_WAIT = """
@alice /perso creer nom:Élise stats:"CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33"
/combat ouvrir nom:Embuscade
!in combat
@alice /combat ajouter qui:Élise
/combat ajouter qui:gobelin
/combat round des:"Élise: 15 15 15; Gobelin: 1 1 1"
@alice /combat posture posture:normale
/combat posture posture:normale qui:Gobelin
@alice /combat attaque cible:Gobelin jet:20 degats:5
@alice !click Encaisser
!wait 2m
@alice !click Encaisser
!wait 61s
@alice !click Encaisser
"""


def test_wait_moves_the_bots_own_timers_too() -> None:
    """``!wait`` moves the bot's game time, not only Discord's: the defence wait (3 minutes) lapses,
    then the attacker's player may press for the silent NPC, who defends at his best."""
    records = console_run(DEFENCE_WAIT).records
    *_, early, later, lapsed = records
    texts = [" ".join(json.dumps(r, ensure_ascii=False).split()) for r in (early, later, lapsed)]
    # real seconds pass between the lines too (a loaded machine): « 3 min » or « 2 min 58 s »
    assert early["ephemeral"] and re.search(r"encore (3 min|2 min \d+ s)\)", texts[0]), texts[0]
    assert later["ephemeral"] and re.search(r"encore (1 min|\d+ s)\)", texts[1]), texts[1]
    assert not lapsed["ephemeral"] and "défense automatique" in texts[2], texts[2]


def test_the_consoles_own_words_are_english_with_locale_en(tmp_path: Path) -> None:
    run = console_run("/lancer expression:1d6 expression:2d6\n!wait soon\n!frobnicate\n", locale="en")
    assert [r["error"] for r in run.records] == [
        "expression is given twice: write each option once",
        "!wait takes a duration like 10m, 90s, 2h or 1h30m, got 'soon'",
        "unknown instruction !frobnicate: the console knows !click, !select, !modal, !in, !pins, "
        "!autocomplete, !wait and !role",
    ]
    french = console_run("!frobnicate\n").records[0]["error"]
    assert french.startswith("instruction inconnue !frobnicate : la console connaît")


def test_show_tracker_prints_the_tracker_after_each_change() -> None:
    run = console_run(
        '/combat ouvrir nom:Embuscade\n/combat ajouter qui:"2 gobelins"\n/combat voir\n', "--show-tracker"
    )
    trackers = [r for r in run.records if r["command"] == "!pins"]
    assert len(trackers) == 2  # after the opening and after the fighters came; /combat voir changes nothing
    assert "Gobelin 2" in json.dumps(trackers[-1], ensure_ascii=False)


# -- replies once, quickly, without rate limits ----------------------------------------------------


def test_each_reply_is_printed_once() -> None:
    run = console_run(
        '/combat ouvrir nom:Embuscade\n/simuler a:"CC=45 F=35 E=40 arme=epee" b:Orque duels:200\n'
    )
    assert [r["command"] for r in run.records] == ["/combat ouvrir", "/simuler"]


def test_a_long_script_is_neither_slow_nor_rate_limited() -> None:
    lines = 300
    started = time.perf_counter()
    run = console_run("@alice /lancer expression:1d100\n" * lines)
    elapsed = time.perf_counter() - started
    assert run.returncode == 0
    assert len(run.records) == lines and all(r["result"]["total"] in range(1, 101) for r in run.records)
    # Polling every 250 ms made this 75 s; the reply now wakes the console at once.
    assert elapsed < 40
    limited = console_run("@alice /lancer expression:1d100\n" * 35, "--rate-limits")
    assert "Doucement" in json.dumps(limited.records[-1], ensure_ascii=False)


def test_the_example_evening_runs_green() -> None:
    script = (ROOT / "examples" / "soiree.txt").read_text(encoding="utf-8")
    run = console_run(script)
    assert run.returncode == 0, run.errors
    assert_no_errors(run.records)
    commands = {r["command"] for r in run.records}
    assert {
        "/perso creer",
        "/test",
        "/combat attaque",
        "!click Encaisser",
        "/interrogatoire interroger",
    } <= commands


def test_a_fight_left_open_goes_on_in_its_thread_next_run(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    first = console_run('/combat ouvrir nom:Embuscade\n/combat ajouter qui:"2 gobelins"\n', "--db", db)
    assert first.returncode == 0, first.errors
    second = console_run('!in combat\n/combat ajouter qui:"1 gobelin"\n/combat fin\n', "--db", db)
    assert second.returncode == 0, second.errors
    added, ended = second.records
    assert "Gobelin 3" in json.dumps(added, ensure_ascii=False)
    assert "Embuscade" in ended["embeds"][0]["title"]
