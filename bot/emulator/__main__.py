"""Run the local Discord emulator on its own: ``python -m bot.emulator [--port 8765]``.

It prints the settings to start the real bot against it (in another terminal); the console
(``python -m bot console``) is the usual way to talk to the bot through it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from bot.emulator.server import Emulator


async def serve(port: int) -> None:
    emu = Emulator()
    guild = emu.add_default_world()
    base = await emu.start(port=port)
    print(f"Discord emulator listening on {base}")
    print("Start the bot against it in another terminal:")
    print(f"  DISCORD_API_BASE={base} DISCORD_TOKEN=dev DEV_GUILD_ID={guild.id} python -m bot")
    print(f"Server {guild.name!r}: channels {', '.join(c.name or '' for c in guild.channels)}")
    print("Members: " + ", ".join(m.user.username for m in guild.members.values() if not m.user.bot))
    try:
        await asyncio.Event().wait()
    finally:
        await emu.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.emulator", description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
