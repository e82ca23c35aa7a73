"""Names that carry a grammatical gender, so that the catalogue agrees with them (« Élise est touchée »)."""

from __future__ import annotations

from typing import Final

GENDERS: Final = ("m", "f")
DEFAULT_GENDER: Final = "m"


class Name(str):
    """A ``str`` (the name as typed) with a ``gender``: ``"m"`` (default) or ``"f"``.

    It behaves as the plain string everywhere (comparison, hashing, JSON); the catalogue's
    ``{name, gender, f {…} other {…}}`` reads its ``gender``. String operations return plain ``str``.
    """

    gender: str

    def __new__(cls, text: str, gender: str | None = DEFAULT_GENDER) -> Name:
        obj = super().__new__(cls, text)
        obj.gender = gender if gender in GENDERS else DEFAULT_GENDER
        return obj

    def __reduce__(self) -> tuple[type[Name], tuple[str, str]]:
        return (Name, (str(self), self.gender))


def parse_gender(text: str | None) -> str | None:
    """``"f"``/``"m"`` from what a user typed (« f », « féminin », « female », « m », « masculin »…)."""
    if text is None:
        return None
    word = text.strip().lower()
    if not word:
        return None
    if word[0] == "f":
        return "f"
    if word[0] in ("m", "h"):
        return "m"
    return None
