"""Point discord.py at a Discord emulator instead of discord.com (tests, console).

Gated on one setting (``DISCORD_API_BASE``); production leaves it unset and no other
code path differs.
"""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl


def point_at(base_url: str) -> None:
    """Send REST calls to ``{base}/api/v10`` and open the gateway at ``{base}/gateway``."""
    base = base_url.rstrip("/")
    discord.http.Route.BASE = f"{base}/api/v10"
    ws = yarl.URL(base).with_scheme("wss" if base.startswith("https") else "ws") / "gateway"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = ws
