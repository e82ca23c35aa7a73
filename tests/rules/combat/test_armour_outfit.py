"""A whole outfit (seed 000, II – Armures): the combination table per zone, PA per zone, the class,
the wearing maluses of each family and Robuste. Expected numbers are the seed's, line by line."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules.combat.tables import CombatTables
from bot.rules.renove.armour import maluses, outfit, wearing_cancels
from bot.rules.renove.damage import ArmourError, build_armour

ROBUSTE = {"Ag": 5, "CC": 5}

# pieces → (Ag, CC, CT, perception auditive); the seed lines the maluses come from
MALUSES = [
    (("matelassee_gambison",), (0, 0, 0, 0)),  # l. 726-729: padded has no malus
    (("cuir_bouilli_plastron",), (0, 0, 0, 0)),  # l. 53: « aucun malus d'Agilité »
    (("cuir_bouilli_calotte",), (0, 0, 0, -10)),  # l. 685-686
    (("cuir_bouilli_cerveliere",), (0, 0, 0, 0)),  # ½ head: not « en entier »
    (("maille_chemise",), (-5, -5, -5, 0)),  # l. 775-777: body covered, arms fully covered
    (("maille_chemise_courte",), (-5, 0, 0, 0)),  # arms ½: no CC/CT malus
    (("maille_haubert",), (-5, -5, -5, 0)),  # legs ½: no leg malus
    (("maille_jambieres",), (-5, 0, 0, 0)),  # l. 775: legs fully covered, body bare
    (("maille_chemise", "maille_jambieres"), (-10, -5, -5, 0)),
    (("maille_camail",), (0, 0, 0, -10)),  # l. 773-774
    (("maille_cousue_broigne",), (-5, -5, -5, 0)),  # l. 756-758 (printed again 761-763: once)
    (("plaques_brigandine",), (-5, 0, 0, 0)),  # l. 802
    (("ecailles_chemise",), (-10, -10, -10, 0)),  # l. 860-862
    (("ecailles_manteau", "ecailles_jambieres"), (-20, -10, -10, 0)),
    (("plates_plastron",), (-10, 0, 0, 0)),  # l. 873
    (("plates_heaume",), (0, 0, 0, -10)),  # l. 872
    (
        (
            "plates_gantelet",
            "plates_canon_d_avant_bras",
            "plates_brassard_d_arriere_bras",
            "plates_spallieres",
        ),
        (0, 0, 0, 0),  # plate has no arm malus, even four quarters
    ),
    (("matelassee_gambison", "maille_haubert", "plates_plastron"), (-15, -5, -5, 0)),  # maluses add up
    (("cuir_bouilli_calotte", "maille_chemise"), (-5, -5, -5, -10)),  # different zones: both count
]


@pytest.mark.parametrize(("pieces", "expected"), MALUSES)
def test_wearing_maluses(tables: CombatTables, pieces: tuple[str, ...], expected: tuple[int, ...]) -> None:
    worn = outfit(tables.armour, pieces)
    m = worn.maluses
    assert (m.ag, m.cc, m.ct, m.of("perception_auditive")) == expected
    assert m.initiative == m.ag  # initiative is 3d20 + Ag (l. 50-51)


# pieces → (Ag, CC, CT) with Robuste (l. 1293-1295: 5 of Ag and 5 of CC, not CT)
ROBUSTE_CASES = [
    (("maille_chemise",), (0, 0, -5)),
    (("plates_plastron",), (-5, 0, 0)),
    (("ecailles_chemise",), (-5, -5, -10)),
    (("matelassee_gambison", "maille_haubert", "plates_plastron"), (-10, 0, -5)),
    (("matelassee_gambison",), (0, 0, 0)),
]


@pytest.mark.parametrize(("pieces", "expected"), ROBUSTE_CASES)
def test_robuste(tables: CombatTables, pieces: tuple[str, ...], expected: tuple[int, int, int]) -> None:
    cancels = wearing_cancels(tables.talent_effects, {"robuste"})
    assert cancels == ROBUSTE
    m = outfit(tables.armour, pieces, cancels).maluses
    assert (m.ag, m.cc, m.ct) == expected


def test_layers_conflict_only_on_the_same_zone(tables: CombatTables) -> None:
    # cuir bouilli is « non cumulable » (l. 695) — with a layer on the same zone only
    worn = outfit(tables.armour, ["cuir_bouilli_calotte", "maille_chemise"])
    assert worn.zones["tete"].families == ("cuir_bouilli",) and worn.zones["corps"].families == ("maille",)
    with pytest.raises(ArmourError) as err:
        outfit(tables.armour, ["maille_chemise", "cuir_bouilli_plastron"])
    assert err.value.reason == "combat.armour.not_combinable"
    assert (err.value.pieces, err.value.zone) == (("cuir_bouilli_plastron", "maille_chemise"), "corps")
    # plaques « n'est cumulable qu'avec de la maille » (l. 62): not with padded, on the body
    with pytest.raises(ArmourError) as err:
        build_armour(tables, ["matelassee_gilet", "plaques_brigandine"])
    assert err.value.pieces == ("matelassee_gilet", "plaques_brigandine")
    # three layers: padded + mail + plate (l. 66-67), but not padded + mail + scale
    assert (
        outfit(tables.armour, ["matelassee_gambison", "maille_haubert", "plates_plastron"])
        .zones["corps"]
        .sure
        == 5
    )
    with pytest.raises(ArmourError) as err:
        outfit(tables.armour, ["matelassee_gambison", "maille_haubert", "ecailles_gilet"])
    assert err.value.pieces == ("maille_haubert", "ecailles_gilet")


def test_pa_per_zone_partial_shares_and_class(tables: CombatTables) -> None:
    worn = outfit(tables.armour, ["plates_salade", "matelassee_gambison_court", "maille_cotte"])
    tete, bras, corps, jambes = (worn.zones[z] for z in ("tete", "bras", "corps", "jambes"))
    assert (tete.sure, tete.partial, tete.armour_class) == (0, ((2, Fraction(1, 2)),), "lourde")
    assert (corps.sure, corps.partial, corps.armour_class) == (3, (), "moyenne")
    assert bras.partial == ((1, Fraction(1, 2)), (2, Fraction(1, 2))) and bras.sure == 0
    assert jambes.families == ("matelassee", "maille")
    # quarters of one family add up to a whole zone (l. 891-892)
    arms = outfit(
        tables.armour,
        [
            "plates_gantelet",
            "plates_canon_d_avant_bras",
            "plates_brassard_d_arriere_bras",
            "plates_spallieres",
        ],
    )
    assert (arms.zones["bras"].sure, arms.zones["bras"].partial) == (2, ())
    assert outfit(tables.armour, []).zones["corps"].armour_class == "none"


def test_maluses_read_the_layers_a_fight_builds(tables: CombatTables) -> None:
    layers = build_armour(tables, ["maille_chemise"])
    assert maluses(tables.armour, layers).totals == {"CC": -5, "CT": -5, "Ag": -5}
