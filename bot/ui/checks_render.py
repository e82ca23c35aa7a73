"""Rules-core results (checks, opposed, group opposed, extended, chance) → Reply parts.

Pure presentation: every text goes through the catalogue in the user's language; labels that
are catalogue keys (``checks.…``, ``tests.…``) are translated, anything else (a skill name typed
by the user, "F × 10") is shown as is.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Catalog, language_of
from bot.rules.checks.common import CheckResult, Modifier, Outcome, System
from bot.rules.d20.checks import ChanceResult
from bot.rules.extended import Duration, ExtendedState
from bot.rules.opposed import GroupOpposedResult, OpposedResult, OpposedRound, Status, Verdict
from bot.ui.reply import Colour, Field

_COLOURS = {
    Outcome.CRITICAL_SUCCESS: Colour.CRITICAL_SUCCESS,
    Outcome.SUCCESS: Colour.SUCCESS,
    Outcome.FAILURE: Colour.FAILURE,
    Outcome.CRITICAL_FAILURE: Colour.CRITICAL_FAILURE,
}
_EMOJI = {
    Outcome.CRITICAL_SUCCESS: "🌟",
    Outcome.SUCCESS: "✅",
    Outcome.FAILURE: "❌",
    Outcome.CRITICAL_FAILURE: "💀",
}
_TRANSLATED_PREFIXES = ("skills.", "checks.", "tests.")


def label_text(catalog: Catalog, locale: str, label: str) -> str:
    if label.startswith(_TRANSLATED_PREFIXES) and catalog.has(label):
        return catalog.t(locale, label)
    return label


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else (f"−{-value}" if value < 0 else "0")


def ruleset_name(catalog: Catalog, locale: str, ruleset: str) -> str:
    return catalog.t(locale, f"tests.ruleset.{ruleset}")


def ruleset_footer(catalog: Catalog, locale: str, ruleset: str, *extra: str) -> str:
    parts = [catalog.t(locale, "tests.footer.ruleset", name=ruleset_name(catalog, locale, ruleset))]
    parts.extend(x for x in extra if x)
    return " · ".join(parts)


def colour_of(result: CheckResult) -> int:
    return int(_COLOURS[result.outcome])


def outcome_text(catalog: Catalog, locale: str, result: CheckResult) -> str:
    return f"{_EMOJI[result.outcome]} {catalog.t(locale, result.outcome_key)}"


def modifiers_text(catalog: Catalog, locale: str, modifiers: Sequence[Modifier], target: int) -> str:
    lines = []
    for index, item in enumerate(modifiers):
        value = str(item.value) if index == 0 else signed(item.value)
        lines.append(f"{label_text(catalog, locale, item.label)} : {value}")
    lines.append(catalog.t(locale, "tests.target_total", target=target))
    return "\n".join(lines)


def degrees_text(catalog: Catalog, locale: str, result: CheckResult) -> str:
    """°R/°E (renove), margin and band (v1), MR (d20), margin and critical score (ogl)."""
    t = catalog.t
    if result.system is System.RENOVE:
        key = "checks.degrees.success" if result.success else "checks.degrees.failure"
        return t(locale, key, degrees=result.degrees or 0)
    key = "checks.margin.success" if result.success else "checks.margin.failure"
    text = t(locale, key, margin=result.margin)
    if result.system is System.V1 and result.band:
        text += f" ({t(locale, result.band)})"
    if result.system is System.OGL:
        text += " · " + t(locale, "tests.ogl_critical", score=max(0, result.target) // 10)
    return text


def check_fields(
    catalog: Catalog, locale: str, result: CheckResult, *, lenient: bool = False
) -> tuple[Field, ...]:
    t = catalog.t
    fields = [
        Field(t(locale, "tests.field.roll"), f"**{result.roll_text}**", inline=True),
        Field(t(locale, "tests.field.target"), f"**{result.target}**", inline=True),
        Field(t(locale, "tests.field.outcome"), outcome_text(catalog, locale, result), inline=True),
        Field(t(locale, "tests.field.degrees"), degrees_text(catalog, locale, result), inline=True),
        Field(
            t(locale, "tests.field.modifiers"),
            modifiers_text(catalog, locale, result.modifiers, result.target),
        ),
    ]
    notes = [label_text(catalog, locale, note) for note in result.notes]
    if notes:
        fields.append(Field(t(locale, "tests.field.notes"), "\n".join(notes)))
    if lenient and result.lenient and not result.success:
        fields.append(Field(t(locale, "tests.field.lenient"), t(locale, result.lenient)))
    return tuple(fields)


def check_line(catalog: Catalog, locale: str, result: CheckResult) -> str:
    """One line: "35 sous 40 → ✅ Réussite (0 °R)"."""
    roll = catalog.t(locale, "checks.roll_line", roll=result.roll_text, target=result.target)
    return f"{roll} → {outcome_text(catalog, locale, result)} ({degrees_text(catalog, locale, result)})"


def masked_check_line(catalog: Catalog, locale: str, result: CheckResult) -> str:
    """A hidden participant's line: the die and the outcome, no target, no degrees."""
    roll = catalog.t(locale, "checks.roll_line_hidden", roll=result.roll_text)
    return f"{roll} → {outcome_text(catalog, locale, result)}"


def _line(catalog: Catalog, locale: str, result: CheckResult, hidden: bool) -> str:
    return masked_check_line(catalog, locale, result) if hidden else check_line(catalog, locale, result)


# --- opposed ------------------------------------------------------------------------------------


def _verdict_text(catalog: Catalog, locale: str, rnd: OpposedRound, name_a: str, name_b: str) -> str:
    t = catalog.t
    reason = t(locale, rnd.reason)
    if rnd.verdict is Verdict.A:
        return f"{t(locale, 'checks.opposed.winner', name=name_a)} ({reason})"
    if rnd.verdict is Verdict.B:
        return f"{t(locale, 'checks.opposed.winner', name=name_b)} ({reason})"
    if rnd.verdict is Verdict.REROLL:
        return f"{reason} → {t(locale, 'tests.opposed.reroll')}"
    return f"{reason} → {t(locale, 'checks.opposed.status.no_winner')}"


def opposed_round_field(
    catalog: Catalog,
    locale: str,
    rnd: OpposedRound,
    name_a: str,
    name_b: str,
    *,
    hidden: frozenset[str] = frozenset(),
) -> Field:
    """One round; the sides named in ``hidden`` show their die and outcome only."""
    lines = [
        f"**{name_a}** : {_line(catalog, locale, rnd.a, name_a in hidden)}",
        f"**{name_b}** : {_line(catalog, locale, rnd.b, name_b in hidden)}",
        _verdict_text(catalog, locale, rnd, name_a, name_b),
    ]
    if rnd.a.system is System.D20 and not hidden:
        lines.append(
            catalog.t(locale, "tests.opposed.margin_difference", value=signed(rnd.margin_difference))
        )
    return Field(catalog.t(locale, "checks.opposed.round", number=rnd.number), "\n".join(lines))


def status_text(catalog: Catalog, locale: str, status: Status, rounds: int) -> str:
    return catalog.t(locale, status.key, rounds=rounds)


def opposed_summary(catalog: Catalog, locale: str, result: OpposedResult) -> str:
    winner = result.winner
    if winner is not None:
        return "🏆 " + catalog.t(locale, "checks.opposed.winner", name=winner.name)
    return status_text(catalog, locale, result.status, len(result.rounds))


def opposed_colour(result: OpposedResult) -> int:
    if result.status is Status.DECIDED:
        return int(Colour.SUCCESS)
    if result.status is Status.PENDING:
        return int(Colour.INFO)
    return int(Colour.NEUTRAL)


# --- group opposed ------------------------------------------------------------------------------


def group_round_field(
    catalog: Catalog,
    locale: str,
    rnd: Sequence[tuple[str, CheckResult]],
    number: int,
    *,
    hidden: frozenset[str] = frozenset(),
) -> Field:
    lines = [f"**{name}** : {_line(catalog, locale, res, name in hidden)}" for name, res in rnd]
    return Field(catalog.t(locale, "checks.opposed.round", number=number), "\n".join(lines))


def group_summary_lines(catalog: Catalog, locale: str, result: GroupOpposedResult) -> list[str]:
    t = catalog.t
    lines = []
    for pair in result.pairs:
        if pair.winner is not None and pair.loser is not None:
            reason = t(locale, pair.rounds[-1].reason)
            lines.append(
                f"🏆 {t(locale, 'checks.opposed.beats', winner=pair.winner, loser=pair.loser)} ({reason})"
            )
        else:
            status = status_text(catalog, locale, pair.status, len(pair.rounds))
            lines.append(f"⚖️ {pair.a} / {pair.b} : {status}")
    return lines


# --- extended -----------------------------------------------------------------------------------


def _singular(locale: str, amount: int) -> bool:
    """French counts 0 and 1 in the singular (« 0 tentative restante »), English only 1."""
    return amount == 1 if language_of(locale) == "en" else amount <= 1


def _counted_key(catalog: Catalog, locale: str, key: str, amount: int) -> str:
    one = key + "_one"
    return one if _singular(locale, amount) and catalog.has(one) else key


def duration_text(catalog: Catalog, locale: str, duration: Duration) -> str:
    key = _counted_key(catalog, locale, f"checks.time.{duration.unit.value}", duration.amount)
    return catalog.t(locale, key, amount=duration.amount)


def extended_progress(catalog: Catalog, locale: str, state: ExtendedState) -> str:
    t = catalog.t
    lines = [
        f"**{t(locale, state.status.key)}**",
        t(
            locale,
            _counted_key(catalog, locale, "checks.extended.progress", state.attempts_left),
            successes=state.successes,
            needed=state.test.successes_needed,
            left=state.attempts_left,
        ),
        t(locale, "checks.extended.elapsed", elapsed=duration_text(catalog, locale, state.elapsed)),
    ]
    return "\n".join(lines)


def extended_colour(state: ExtendedState) -> int:
    if state.status.value == "succeeded":
        return int(Colour.SUCCESS)
    if state.status.value == "failed":
        return int(Colour.FAILURE)
    return int(Colour.INFO)


def attempt_marks(outcomes: Sequence[bool]) -> str:
    return " ".join("✅" if ok else "❌" for ok in outcomes) or "—"


# --- chance (d20) -------------------------------------------------------------------------------


def chance_fields(catalog: Catalog, locale: str, result: ChanceResult) -> tuple[Field, ...]:
    t = catalog.t
    gm = str(result.gm_roll) if not result.gm_malus else f"{result.gm_roll} + {result.gm_malus}"
    return (
        Field(t(locale, "tests.chance.player"), f"**{result.player_roll}**", inline=True),
        Field(t(locale, "tests.chance.gm"), f"**{gm}**", inline=True),
        Field(
            t(locale, "tests.field.outcome"),
            ("🍀 " if result.lucky else "🌧️ ") + t(locale, result.outcome_key),
            inline=True,
        ),
    )
