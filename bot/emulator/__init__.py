"""A local Discord (REST + Gateway) for end-to-end tests and the console.

``Emulator`` serves the API on 127.0.0.1; ``Table``/``Player`` drive it like users at a table.
"""

from .client import ClientRefused, Player, Result, Table, Upload
from .server import ApiError, Emulator, EmulatorConfig
from .state import FakeClock, Intents, Message, OffsetClock, Perm

__all__ = [
    "ApiError",
    "ClientRefused",
    "Emulator",
    "EmulatorConfig",
    "FakeClock",
    "Intents",
    "Message",
    "OffsetClock",
    "Perm",
    "Player",
    "Result",
    "Table",
    "Upload",
]
