"""The polearms' profiles (seed l. 293-295): the halberd combines the long battle axe and the pike, the
poleaxe the long battle axe and the long war hammer; « on peut utiliser au choix une des deux armes
lors de chaque attaque ». The attacker names the profile — « Hallebarde (pique) », « Hallebarde
pique », or the profile's own weapon (« pique ») when he carries the halberd — and the attack takes
that weapon's damage, attributes, critical kind and special actions."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.rules.combat.state import Combatant
from bot.rules.sheets import fold
from bot.services.fights._core import FightRefusal, Scope
from bot.services.fights.hits import _pick_weapon
from bot.services.fights.roster import _resolve_weapon
from bot.services.fights.text import Words

_PARENS = re.compile(r"^(?P<base>.+?)\s*\((?P<profile>[^()]+)\)\s*$")


def _key(text: str) -> str:
    """Folded, the typographic apostrophe of the tables (« d’Hast ») read as the typed one."""
    return fold(text.replace("\u2019", "'"))


@dataclass(frozen=True, slots=True)
class AttackWeapon:
    """The weapon an attack is made with: ``carried`` (on the sheet) and ``profile`` (the weapon whose
    numbers apply: the carried one itself, or the profile picked of a combined weapon)."""

    carried: str
    profile: str

    @property
    def combined(self) -> bool:
        return self.carried != self.profile


def profile_word(words: Words, profile: str) -> str:
    """« hache », « pique », « marteau » (en: « axe », « pike », « hammer »): the word that names a
    profile — the first word of its French name, the last of its English one."""
    name = words.weapon(profile).split()
    return (name[-1] if words.en else name[0]).lower() if name else profile


def short_name(words: Words, weapon: str) -> str:
    """« Hallebarde » for « Hallebarde/Armes d'Hast » (the name before a slash)."""
    return words.weapon(weapon).split("/")[0].strip()


def label(words: Words, weapon: AttackWeapon) -> str:
    """« Hallebarde (pique) » for a combined weapon's profile, the weapon's name otherwise."""
    if not weapon.combined:
        return words.weapon(weapon.carried)
    return f"{short_name(words, weapon.carried)} ({profile_word(words, weapon.profile)})"


def choices(words: Words, carried: str, profiles: tuple[str, ...]) -> str:
    """« Hallebarde (hache) » ou « Hallebarde (pique) »."""
    names = [f"« {label(words, AttackWeapon(carried, p))} »" for p in profiles]
    return f" {words.t('combat.word.or')} ".join(names)


def profile_buttons(words: Words, carried: str, profiles: tuple[str, ...]) -> list[tuple[str, str]]:
    """(the text ``arme:`` accepts, the label) of each profile of a combined weapon."""
    return [(f"{carried} ({p})", label(words, AttackWeapon(carried, p))) for p in profiles]


def attack_weapon(scope: Scope, c: Combatant, text: str | None) -> AttackWeapon:
    """The weapon ``c`` attacks with, its profile named when the weapon combines two (refused, with
    the choices, when it is not)."""
    tables = scope.tables
    if text:
        found = _named_profile(scope, c, text)
        if found is not None:
            return found
    carried = _pick_weapon(scope, c, text)
    profiles = tables.weapons[carried].combines
    if profiles:
        raise FightRefusal(
            "combat.error.pick_profile",
            weapon=short_name(scope.words, carried),
            choices=choices(scope.words, carried, profiles),
        )
    return AttackWeapon(carried, carried)


def _named_profile(scope: Scope, c: Combatant, text: str) -> AttackWeapon | None:
    """« Hallebarde (pique) », « hallebarde pique », « pique » (a carried halberd's profile): the
    weapon and its profile, or None when the text names no profile of a carried combined weapon."""
    tables = scope.tables
    combined = [w for w in c.weapons if w in tables.weapons and tables.weapons[w].combines]
    if not combined:
        return None
    match = _PARENS.match(text.strip())
    wanted = _key(text)
    for carried in combined:
        profiles = tables.weapons[carried].combines
        if match is not None:
            if _names(scope, carried, match.group("base")):
                return AttackWeapon(carried, _profile(scope, carried, profiles, match.group("profile")))
            continue
        for profile in profiles:  # « pique » alone, or « hallebarde pique »
            if wanted in _profile_names(scope, profile) or any(
                wanted == f"{base} {word}"
                for base in _base_names(scope, carried)
                for word in _profile_names(scope, profile)
            ):
                return AttackWeapon(carried, profile)
    return None


def _names(scope: Scope, carried: str, text: str) -> bool:
    if _key(text) in _base_names(scope, carried):
        return True
    try:
        return _resolve_weapon(scope, text) == carried
    except FightRefusal:
        return False


def _base_names(scope: Scope, carried: str) -> set[str]:
    weapon = scope.tables.weapons[carried]
    return {
        _key(carried),
        _key(carried.replace("_", " ")),
        _key(weapon.name),
        _key(weapon.name.split("/")[0]),
        _key(scope.words.weapon(carried)),
        _key(short_name(scope.words, carried)),
    }


def _profile_names(scope: Scope, profile: str) -> set[str]:
    weapon = scope.tables.weapons[profile]
    return {
        _key(profile),
        _key(profile.replace("_", " ")),
        _key(weapon.name),
        _key(scope.words.weapon(profile)),
        _key(profile_word(scope.words, profile)),
        _key(weapon.name.split()[0]),
    }


def _profile(scope: Scope, carried: str, profiles: tuple[str, ...], text: str) -> str:
    wanted = _key(text)
    for profile in profiles:
        if wanted in _profile_names(scope, profile):
            return profile
    raise FightRefusal(
        "combat.error.pick_profile",
        weapon=short_name(scope.words, carried),
        choices=choices(scope.words, carried, profiles),
    )
