"""Logging that never prints the Discord token."""

from __future__ import annotations

import logging


class RedactFilter(logging.Filter):
    """Replace every occurrence of the given secrets in a record's final message."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 4]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        redacted = message
        for secret in self.secrets:
            redacted = redacted.replace(secret, "***")
        if redacted != message:
            record.msg = redacted
            record.args = None
        return True


def setup_logging(level: int, secrets: list[str]) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    handler.addFilter(RedactFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # discord.py is chatty at INFO about every gateway event.
    logging.getLogger("discord").setLevel(max(level, logging.INFO))
    logging.getLogger("discord.gateway").setLevel(max(level, logging.WARNING))
