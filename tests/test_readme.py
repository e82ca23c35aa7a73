"""The README stays true: its two set-up commands, every command with an example, every setting."""

from __future__ import annotations

import re
from pathlib import Path

from bot.i18n import default_catalog

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_two_setup_commands_at_the_top_and_ci_runs_the_test_one() -> None:
    first_block = re.search(r"```(?:sh|bash)?\n(.*?)```", README, re.S)
    assert first_block is not None
    assert README.index(first_block.group(0)) < 200, "the set-up commands open the README"
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["bash scripts/run.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _french_commands() -> list[str]:
    catalog = default_catalog()
    names = []
    for key in sorted(catalog.keys("fr")):
        if not (key.startswith("cmd.") and key.endswith(".example")):
            continue
        parts = key[4:-8].split(".")
        french = [
            catalog.raw("fr", "cmd." + ".".join(parts[: i + 1]) + ".name") or p for i, p in enumerate(parts)
        ]
        names.append("/" + " ".join(french))
    return names


def test_every_command_is_in_the_readme_with_an_example() -> None:
    commands = _french_commands()
    assert commands
    missing = [name for name in commands if f"`{name}" not in README]
    assert missing == [], f"commands missing from README.md: {missing}"


def test_every_setting_is_documented_and_in_env_example() -> None:
    config = (ROOT / "bot" / "config.py").read_text(encoding="utf-8")
    settings = set(re.findall(r'env(?:\.get)?\(\s*"([A-Z_]+)"', config)) | set(
        re.findall(r'_optional_int\(env, "([A-Z_]+)"\)', config)
    )
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert {"DISCORD_TOKEN", "DATABASE_URL", "DEV_GUILD_ID", "LOG_LEVEL"} <= settings
    for name in settings:
        assert f"`{name}`" in README, name
        assert f"{name}=" in example, name
