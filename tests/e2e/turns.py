"""The GM's « Suivant » and « round » as a table plays them since they ask first (issue 18): the
command, then its confirmation button when there is one."""

from __future__ import annotations

from typing import Any

from bot.emulator.client import Player, Result


def _buttons(result: Result) -> list[dict[str, Any]]:
    if result.message is None:
        return []
    return [c for c in result.message.iter_components() if c.get("type") == 2]


async def skip_turn(gm: Player, thread: Any) -> Result:
    """``/combat suivant`` and its « Passer le tour de … » button."""
    asked = await gm.slash("combat suivant", channel=thread)
    [button] = [b for b in _buttons(asked) if ":next:" in str(b.get("custom_id"))]
    return await gm.click(str(button["custom_id"]), message=asked.message)


async def next_round(gm: Player, thread: Any, **options: Any) -> Result:
    """``/combat round``, confirmed with « Lancer le round N » when the round was not over."""
    started = await gm.slash("combat round", channel=thread, **options)
    confirm = [b for b in _buttons(started) if ":round:" in str(b.get("custom_id"))]
    if not started.ephemeral or not confirm:
        return started
    return await gm.click(str(confirm[0]["custom_id"]), message=started.message)
