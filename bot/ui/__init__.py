"""Rendering: the reply model and its renderers (Discord embeds/views, console text/JSON)."""
