"""``/jump`` (``/saut``): the long jump and jumping down, from the active character's sheet.

Stateless (no session row, nothing written). Ag, BF and M come from the sheet unless given; the
sheet's armour gives its Ag wearing malus to the test (the armour module's rule that the wearing
maluses are test modifiers) and says whether it is light armour, which alone reduces a fall's
damage by 1 (every covered zone's outer layer light — a reading; ``light_armour`` overrides it).
The rules live in :mod:`bot.rules.renove.jumping`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import CharacterSheet
from bot.i18n import language_of
from bot.rules.checks.common import Modifier
from bot.rules.renove import jumping as rules
from bot.rules.renove.armour import Outfit
from bot.rules.renove.damage import ArmourError
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    character_of,
    d100,
    roll_line,
    run,
    t,
)
from bot.services.house_rules import table_in_force
from bot.services.outfit import Docs, outfit_of
from bot.ui.reply import Colour, Field, Reply

TABLE: Final = "jumps"
KINDS: Final = ("longueur", "hauteur")
OUTFIT_TABLES: Final = ("armour", "armour_quality", "talents")
HEIGHT_MAX: Final = 100
ARMOUR_LABEL: Final = "jumping.modifier.armour"
EXTRA_LABEL: Final = "jumping.modifier.extra"


def distance_text(caller: Caller, value: Fraction) -> str:
    """``2,5 m`` in French, ``2.5 m`` in English (at most two decimals: quarters of a metre)."""
    number = f"{round(float(value), 2):g}"
    if language_of(caller.locale) != "en":
        number = number.replace(".", ",")
    return f"{number} m"


def _of(ctx: AppContext, caller: Caller, key: str, name: str, **params: Any) -> str:
    """A sentence naming the character: « … d'Élise » / « … de Gunnar » (the format elides)."""
    return t(ctx, caller, key, name=name, **params)


def _without_stats(name: str) -> str:
    return "jumping.error.sheet_without_stats"  # « de Élise » is elided by the catalogue's format


async def _outfit(scope: Scope, ctx: AppContext, sheet: CharacterSheet | None) -> Outfit | None:
    if sheet is None or sheet.ruleset != "renove" or not sheet.equipment.get("armour"):
        return None
    docs: Docs = {
        name: await table_in_force(scope.session, ctx, scope.guild_id, name)
        for name in OUTFIT_TABLES
        if name in ctx.tables
    }
    try:
        return outfit_of(docs, sheet.equipment.get("armour", []), sheet.talents)
    except ArmourError:
        return None  # the sheet already shows why the outfit fails; no malus counted here


def _light(worn: Outfit | None) -> bool:
    if worn is None:
        return False
    classes = {zone.armour_class for zone in worn.zones.values() if zone.covered}
    return classes == {"legere"}


def _stat(sheet: CharacterSheet | None, given: int | None, key: str, default: int | None) -> int | None:
    if given is not None:
        return given
    if sheet is not None and key in sheet.characteristics:
        return int(sheet.characteristics[key])
    return default


async def jump(
    ctx: AppContext,
    caller: Caller,
    *,
    kind: str,
    height: float | None = None,
    run_up: bool = True,
    character: str | None = None,
    ag: int | None = None,
    bf: int | None = None,
    m: int | None = None,
    light_armour: bool | None = None,
    extra: int = 0,
    roll: int | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        if kind not in KINDS:
            raise Refusal("jumping.error.kind", value=str(kind)[:20])
        table = ctx.tables.get(TABLE)
        if table is None:
            raise Refusal("jumping.error.no_table")
        document = await table_in_force(scope.session, ctx, scope.guild_id, TABLE)
        if kind == "hauteur" and height is None:
            raise Refusal("jumping.error.no_height")
        die = d100(roll)
        sheet = None
        if character or ag is None or (kind == "longueur" and (bf is None or m is None)):
            sheet = await character_of(scope, character)
        agility = _stat(sheet, ag, "Ag", None)
        if agility is None:
            if sheet is not None:  # a sheet of another system: no Ag on it
                raise Refusal(_without_stats(sheet.name), name=sheet.name)
            raise Refusal("jumping.error.no_agility")
        worn = await _outfit(scope, ctx, sheet)
        modifiers: list[Modifier] = []
        if worn is not None and worn.maluses.ag and ag is None:
            modifiers.append(Modifier(ARMOUR_LABEL, worn.maluses.ag))
        if extra:
            modifiers.append(Modifier(EXTRA_LABEL, extra))
        who = sheet.name if sheet is not None else f"<@{caller.user_id}>"
        if kind == "longueur":
            strength = bf
            if strength is None and sheet is not None:
                strength = int(sheet.characteristics.get("BF", sheet.characteristics.get("F", 0) // 10))
            move = _stat(sheet, m, "M", None)
            if strength is None or move is None:
                if sheet is not None:
                    raise Refusal(_without_stats(sheet.name), name=sheet.name)
                raise Refusal("jumping.error.no_stats")
            try:
                result = rules.long_jump(
                    document,
                    bf=strength,
                    m=move,
                    ag=agility,
                    run_up=run_up,
                    modifiers=modifiers,
                    rng=ctx.rng,
                    roll=die,
                )
            except rules.JumpError as exc:
                raise Refusal(f"jumping.error.{exc.code}", **exc.params) from None
            return FlowResult(_long_reply(ctx, caller, who, result, sheet))
        assert height is not None
        if not 0 <= height <= HEIGHT_MAX:
            raise Refusal("jumping.error.height_range", max=HEIGHT_MAX)
        light = _light(worn) if light_armour is None else light_armour
        try:
            down = rules.height_jump(
                document,
                height=Fraction(str(round(height, 2))),
                ag=agility,
                light_armour=light,
                modifiers=modifiers,
                rng=ctx.rng,
                roll=die,
            )
        except rules.JumpError as exc:
            raise Refusal(f"jumping.error.{exc.code}", **exc.params) from None
        return FlowResult(_height_reply(ctx, caller, who, down, sheet, typed=roll is not None))

    return await run(ctx, caller, work)


def _modifier_lines(ctx: AppContext, caller: Caller, modifiers: tuple[Modifier, ...]) -> str:
    """``Ag : 40`` then each modifier, signed (« Hauteur : +10 »)."""
    out = []
    for item in modifiers:
        if item.label == "checks.modifier.base":
            out.append(t(ctx, caller, "jumping.modifier.base_line", value=item.value))
        else:
            label = t(ctx, caller, item.label)
            out.append(t(ctx, caller, "jumping.modifier.line", label=label, value=f"{item.value:+d}"))
    return "\n".join(out)


def _long_reply(
    ctx: AppContext, caller: Caller, who: str, result: rules.LongJump, sheet: CharacterSheet | None
) -> Reply:
    test = result.test
    lines = [
        t(
            ctx,
            caller,
            "jumping.long.reach",
            bf=result.bf,
            m=result.m,
            distance=distance_text(caller, result.max_distance),
        ),
        t(ctx, caller, "jumping.test_line") + " " + roll_line(ctx, caller, test),
    ]
    if test.success:
        lines.append(t(ctx, caller, "jumping.long.success"))
    else:
        lines.append(
            t(
                ctx,
                caller,
                "jumping.long.failure",
                lost=distance_text(caller, result.lost),
                degrees=int(test.degrees or 0),
            )
        )
    if not result.run_up:
        lines.append(t(ctx, caller, "jumping.long.halved"))
    verdict = t(
        ctx,
        caller,
        "jumping.long.verdict",
        name=who,
        distance=distance_text(caller, result.distance),
    )
    fields = [Field(t(ctx, caller, "jumping.modifiers"), _modifier_lines(ctx, caller, test.modifiers))]
    footer_key = "jumping.long.footer_run_up" if result.run_up else "jumping.long.footer_standing"
    return Reply(
        title=_of(ctx, caller, "jumping.long.title", who),
        description="\n".join([*lines, "", f"**{verdict}**"]),
        fields=tuple(fields),
        footer=t(
            ctx,
            caller,
            footer_key,
            low=distance_text(caller, Fraction(result.run_up_min)),
            high=distance_text(caller, Fraction(result.run_up_max)),
        ),
        colour=Colour.SUCCESS if test.success else Colour.FAILURE,
        kind="jump",
        result={"character": sheet.name if sheet is not None else None, **result.to_dict()},
    )


def _height_reply(
    ctx: AppContext,
    caller: Caller,
    who: str,
    result: rules.HeightJump,
    sheet: CharacterSheet | None,
    *,
    typed: bool,
) -> Reply:
    height = distance_text(caller, result.height)
    lines: list[str] = []
    fields: list[Field] = []
    row = result.row
    if result.test is None:
        lines.append(t(ctx, caller, f"jumping.height.{row.outcome}", height=height))
        if typed:
            lines.append(t(ctx, caller, "jumping.height.roll_unused"))
    else:
        lines.append(
            t(ctx, caller, "jumping.height.row", height=height, modifier=f"{int(row.ag_modifier or 0):+d}")
        )
        lines.append(t(ctx, caller, "jumping.test_line") + " " + roll_line(ctx, caller, result.test))
        fields.append(
            Field(t(ctx, caller, "jumping.modifiers"), _modifier_lines(ctx, caller, result.test.modifiers))
        )
    if result.landed:
        verdict = t(ctx, caller, "jumping.height.landed", name=who)
    else:
        damage = int(result.damage or 0)
        lines.append(
            t(
                ctx,
                caller,
                "jumping.height.damage_open" if row.open_ended else "jumping.height.damage",
                damage=int(result.damage_rolled or 0),
            )
        )
        if result.armour_reduction:
            lines.append(t(ctx, caller, "jumping.height.light_armour", reduction=result.armour_reduction))
        key = "jumping.height.hurt_one" if damage == 1 else "jumping.height.hurt"
        if damage == 0:
            key = "jumping.height.unhurt"
        verdict = t(ctx, caller, key, name=who, damage=damage)
    return Reply(
        title=t(ctx, caller, "jumping.height.title", name=who, height=height),
        description="\n".join([*lines, "", f"**{verdict}**"]),
        fields=tuple(fields),
        footer=t(ctx, caller, "jumping.height.footer"),
        colour=Colour.SUCCESS if result.landed else Colour.FAILURE,
        kind="jump",
        result={"character": sheet.name if sheet is not None else None, **result.to_dict()},
    )
