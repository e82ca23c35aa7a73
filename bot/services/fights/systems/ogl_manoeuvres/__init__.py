"""The ``/manoeuvre`` use cases of `ogl` fights (seed 004), one module each, on top of the adapter
:mod:`bot.services.fights.systems.ogl` and its layers (:mod:`~bot.services.fights.systems.ogl_ledger`,
:mod:`~bot.services.fights.systems.ogl_wounds`, :mod:`~bot.services.fights.systems.ogl_area` — the
area effect ``/manoeuvre zone`` lives there): :mod:`.hero` (hero points), :mod:`.counter` (the
counter-attack), :mod:`.two_weapons`, :mod:`.mount`, :mod:`.grapple`. Callers import the use-case
module they need; nothing is re-exported here.
"""
