"""Skill tests in the four rulesets, one module per use case: :mod:`.single` (``/test``),
:mod:`.opposed` (``/oppose``), :mod:`.group` (``/groupe``), :mod:`.extended` (``/etendu``) and
:mod:`.chance` (``/chance``), on top of :mod:`.participants` (the sides of ``/oppose`` and
``/groupe``), :mod:`.tables` (the data tables in force, the server's setting, the autocomplete
choices) and :mod:`.common` (errors, sheet lookups, hand-entered dice, the roll log).
"""
