"""Who acts, where, in which language, with which rights — built by the cog from the interaction."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.db.repositories import ServerConfig

# Without a configured GM role, a role with one of these names counts as the GM role.
DEFAULT_GM_ROLE_NAMES = frozenset({"mj", "gm", "maître du jeu", "maitre du jeu", "game master"})


@dataclass(frozen=True, slots=True)
class Caller:
    user_id: int
    guild_id: int | None
    channel_id: int | None
    locale: str
    parent_channel_id: int | None = None  # the channel a thread belongs to
    role_ids: frozenset[int] = field(default_factory=frozenset)
    role_names: frozenset[str] = field(default_factory=frozenset)
    manage_guild: bool = False
    display_name: str = ""
    # The server's language as Discord gives it (``interaction.guild_locale``), when it means something:
    # the shared messages (the pinned tracker) use it, the caller's own replies use ``locale``.
    guild_locale: str | None = None

    @property
    def channel_chain(self) -> list[int]:
        """The thread (or channel) first, then its parent: where a ruleset override is looked up."""
        return [c for c in (self.channel_id, self.parent_channel_id) if c is not None]

    def is_gm(self, config: ServerConfig | None) -> bool:
        if self.manage_guild:
            return True
        if config is not None and config.gm_role_id is not None:
            return config.gm_role_id in self.role_ids
        return any(name.casefold() in DEFAULT_GM_ROLE_NAMES for name in self.role_names)
