"""Mêlée — a Discord bot for French tabletop role-playing games."""

__version__ = "0.1.0"
