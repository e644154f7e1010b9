"""Every version gate of the package reader, at its threshold, one below and one above.

A gate decides whether a field is in the summary (``docs/package-rules.md`` section 2 and the gates of section
3). A reader whose gate is off by one reads every later field at the wrong place: the package is then refused, or
read with wrong values. Each case builds a package with ``tests/package_builder.py`` (written from the reference,
not from the reader) and checks every value the summary reports against what was written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from package_builder import CORE, FILTER_EDITOR_ONLY, CustomVersionEntry, SyntheticPackage

from buildver import EngineVersion, read_package_summary
from buildver.errors import PackageFormatError
from buildver.packages.reader import parse_package_summary
from buildver.packages.summary import PackageSummary

OLDEST_LOADABLE_UE4 = 214
NEWEST_KNOWN_UE4 = 522
NEWEST_KNOWN_UE5 = 1018

UE4_GATES = {
    224: "WorldTileInfoDataOffset",
    278: "one ChunkID",
    326: "ChunkIDs as an array",
    336: "SavedByEngineVersion instead of EngineChangelist",
    384: "SoftPackageReferences",
    444: "CompatibleWithEngineVersion",
    459: "GatherableTextData",
    507: "PreloadDependencies",
    510: "SearchableNamesOffset",
    516: "LocalizationId (uncooked)",
    518: "PersistentGuid and OwnerPersistentGuid (uncooked)",
    520: "no OwnerPersistentGuid from here (uncooked)",
    522: "FixCorruptEngineVersion no longer applied",
}
UE5_GATES = {
    1001: "NamesReferencedFromExportDataCount",
    1002: "PayloadTocOffset",
    1008: "SoftObjectPaths",
    1009: "DataResourceOffset",
    1014: "MetaDataOffset",
    1015: "cell exports and imports",
    1016: "SavedHash first, no Guid",
    1018: "import type hierarchies",
}

SAVED_BY = (4, 27, 2, 18319896, "++UE4+Release-4.27")
COMPATIBLE_WITH = (4, 27, 0, 17155196, "++UE4+Release-4.27")
HASH = bytes(range(100, 120))


def around(gate: int, low: int, high: int) -> list[int]:
    return [value for value in (gate - 1, gate, gate + 1) if low <= value <= high]


def ue4_package(ue4: int, *, cooked: bool) -> SyntheticPackage:
    # LegacyFileVersion -7 reads every FileVersionUE4 the same way; a custom version and a changelist that is not
    # 0 make every field of the summary count.
    return SyntheticPackage(
        legacy_file_version=-7,
        file_version_ue4=ue4,
        custom_versions=(CustomVersionEntry(CORE, 3),),
        package_name="/Game/Maps/Gate",
        package_flags=0x40000 | (FILTER_EDITOR_ONLY if cooked else 0),
        saved_by=SAVED_BY,
        compatible_with=COMPATIBLE_WITH,
        engine_changelist=2318281,
        chunk_ids=(3, 7) if ue4 >= 326 else (),
        saved_hash=HASH,
    )


def ue5_package(ue5: int, *, legacy: int, cooked: bool) -> SyntheticPackage:
    return SyntheticPackage(
        legacy_file_version=legacy,
        file_version_ue4=NEWEST_KNOWN_UE4,
        file_version_ue5=ue5,
        custom_versions=(CustomVersionEntry(CORE, 5),),
        package_name="/Game/Maps/Gate",
        package_flags=0x40000 | (FILTER_EDITOR_ONLY if cooked else 0),
        saved_by=(5, 6, 1, 44394996, "++UE5+Release-5.6"),
        compatible_with=(5, 6, 0, 43139311, "++UE5+Release-5.6"),
        chunk_ids=(1,),
        saved_hash=HASH,
    )


def expected_saved_by(package: SyntheticPackage) -> EngineVersion:
    if package.file_version_ue4 >= 336:
        return EngineVersion.from_raw_changelist(*package.saved_by)
    changelist = package.engine_changelist
    return EngineVersion.from_raw_changelist(4, 0, 0, changelist, "") if changelist else EngineVersion(0, 0, 0)


def check_reads_as_written(package: SyntheticPackage, summary: PackageSummary) -> None:
    """Every value the summary reports is the one the builder wrote."""
    assert summary.newer_format is None
    assert summary.legacy_file_version == package.legacy_file_version
    assert summary.file_version_ue4 == package.file_version_ue4
    assert summary.file_version_ue5 == package.file_version_ue5
    assert summary.file_version_licensee == package.licensee
    assert summary.package_name == package.package_name
    assert summary.package_flags == package.package_flags
    assert summary.total_header_size == package.summary_size() + package.body_size
    assert [(c.guid, c.version) for c in summary.custom_versions] == [
        (entry.key, entry.version) for entry in package.custom_versions
    ]
    saved_by = expected_saved_by(package)
    assert summary.saved_by_engine_version == saved_by
    if package.file_version_ue4 >= 444:
        assert summary.compatible_with_engine_version == EngineVersion.from_raw_changelist(*package.compatible_with)
    else:  # before 444 the loader copies SavedByEngineVersion
        assert summary.compatible_with_engine_version == saved_by
    if package.file_version_ue5 >= 1016:
        assert summary.saved_hash == package.saved_hash
    else:
        assert summary.saved_hash is None


UE4_CASES = [
    pytest.param(ue4, cooked, id=f"{gate}-{what}-at-{ue4}-{'cooked' if cooked else 'uncooked'}")
    for gate, what in UE4_GATES.items()
    for ue4 in around(gate, OLDEST_LOADABLE_UE4, NEWEST_KNOWN_UE4)
    for cooked in (False, True)
]


@pytest.mark.parametrize(("ue4", "cooked"), UE4_CASES)
@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_each_file_version_ue4_gate_reads_every_value_at_below_and_above(
    ue4: int, cooked: bool, big_endian: bool
) -> None:
    package = ue4_package(ue4, cooked=cooked).with_(big_endian=big_endian)
    check_reads_as_written(package, parse_package_summary(package.build(), "Gate.uasset"))


UE5_CASES = [
    pytest.param(ue5, legacy, cooked, id=f"{gate}-{what}-at-{ue5}-L{legacy}-{'cooked' if cooked else 'uncooked'}")
    for gate, what in UE5_GATES.items()
    for ue5 in around(gate, 1000, NEWEST_KNOWN_UE5)
    for legacy in (-8, -9)
    for cooked in (False, True)
]


@pytest.mark.parametrize(("ue5", "legacy", "cooked"), UE5_CASES)
def test_each_file_version_ue5_gate_reads_every_value_at_below_and_above(ue5: int, legacy: int, cooked: bool) -> None:
    package = ue5_package(ue5, legacy=legacy, cooked=cooked)
    check_reads_as_written(package, parse_package_summary(package.build(), "Gate.uasset"))


@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_a_1016_package_carries_its_saved_hash_first(big_endian: bool) -> None:
    """FileVersionUE5 1016 (PACKAGE_SAVED_HASH) is the first with the SavedHash; 1015 has the Guid instead."""
    at_gate = ue5_package(1016, legacy=-8, cooked=False).with_(big_endian=big_endian)
    summary = parse_package_summary(at_gate.build(), "Saved.uasset")
    assert summary.saved_hash == HASH
    assert summary.custom_versions[0].version == 5
    below = ue5_package(1015, legacy=-8, cooked=False).with_(big_endian=big_endian)
    assert parse_package_summary(below.build(), "Saved.uasset").saved_hash is None


def test_a_1016_package_file_reads_as_written(tmp_path: Path) -> None:
    package = ue5_package(1016, legacy=-9, cooked=False)
    path = tmp_path / "Saved.uasset"
    path.write_bytes(package.build())
    check_reads_as_written(package, read_package_summary(path))


# -- the oldest loadable FileVersionUE4 -------------------------------------------------------------------------


@pytest.mark.parametrize("legacy", [-2, -3, -7])
@pytest.mark.parametrize("ue4", [OLDEST_LOADABLE_UE4, OLDEST_LOADABLE_UE4 + 1])
def test_the_oldest_loadable_file_version_and_the_next_are_read(legacy: int, ue4: int) -> None:
    package = ue4_package(ue4, cooked=False).with_(legacy_file_version=legacy)
    if legacy == -2:  # enum custom versions
        package = package.with_(custom_versions=(CustomVersionEntry(0xF99D40C1, 1),))
    summary = parse_package_summary(package.build(), "Old.uasset")
    assert summary.file_version_ue4 == ue4
    assert summary.package_name == package.package_name
    assert summary.saved_by_engine_version == EngineVersion.from_raw_changelist(4, 0, 0, 2318281, "")


@pytest.mark.parametrize(("legacy", "at"), [(-3, 12), (-4, 8), (-7, 12)])
def test_one_below_the_oldest_loadable_file_version_is_refused_naming_it(legacy: int, at: int) -> None:
    package = ue4_package(OLDEST_LOADABLE_UE4 - 1, cooked=False).with_(legacy_file_version=legacy)
    with pytest.raises(PackageFormatError) as caught:
        parse_package_summary(package.build(), "Old.uasset")
    assert str(caught.value) == (f"Old.uasset: byte {at}: FileVersionUE4 213 is below 214, the oldest any engine loads")


# -- the newest known versions: at them a package is read in full, above them it is a newer format ------------


@pytest.mark.parametrize(("ue4", "ue5", "newer"), [(522, 1018, False), (523, 1018, True), (522, 1019, True)])
def test_the_newest_known_file_versions_and_one_above(ue4: int, ue5: int, newer: bool) -> None:
    package = ue5_package(ue5, legacy=-9, cooked=False).with_(file_version_ue4=ue4)
    summary = parse_package_summary(package.build(), "New.uasset")
    assert (summary.newer_format is not None) is newer
    assert summary.file_version_ue4 == ue4
    assert summary.file_version_ue5 == ue5


# -- FixCorruptEngineVersion: FileVersionUE4 below 522, 4.26.0, changelist 12740027 or more, licensee bit ----------


FIX_CASES = [
    # (FileVersionUE4, raw changelist, fixed?)
    (521, 0x80000000 | 12740027, True),
    (521, 0x80000000 | 12740028, True),
    (521, 0x80000000 | 12740026, False),
    (522, 0x80000000 | 12740027, False),
    (520, 12740027, False),
]


@pytest.mark.parametrize(("ue4", "raw_changelist", "fixed"), FIX_CASES)
def test_fix_corrupt_engine_version_applies_at_its_thresholds_only(ue4: int, raw_changelist: int, fixed: bool) -> None:
    written = (4, 26, 0, raw_changelist, "++UE4+Release-4.26")
    package = ue4_package(ue4, cooked=False).with_(saved_by=written, compatible_with=written)
    summary = parse_package_summary(package.build(), "Fix.uasset")
    fixed_version = EngineVersion(4, 26, 0, raw_changelist & 0x7FFFFFFF, "//UE4/Release-4.26")
    expected = fixed_version if fixed else EngineVersion.from_raw_changelist(*written)
    assert summary.saved_by_engine_version == expected
    assert summary.compatible_with_engine_version == expected


# -- LegacyFileVersion gates -----------------------------------------------------------------------------------

LEGACY_CASES = [
    # (LegacyFileVersion, FileVersionUE4, FileVersionUE5, custom versions)
    (-1, 385, 0, ()),
    (-2, 385, 0, (CustomVersionEntry(0xF99D40C1, 1),)),
    (-3, 385, 0, (CustomVersionEntry(CORE, 1, "Core"),)),
    (-4, 434, 0, (CustomVersionEntry(CORE, 1, "Core"),)),
    (-5, 434, 0, (CustomVersionEntry(CORE, 1, "Core"),)),
    (-6, 482, 0, (CustomVersionEntry(CORE, 1),)),
    (-7, 522, 0, (CustomVersionEntry(CORE, 1),)),
    (-8, 522, 1013, (CustomVersionEntry(CORE, 1),)),
    (-9, 522, 1018, (CustomVersionEntry(CORE, 1),)),
]


@pytest.mark.parametrize(("legacy", "ue4", "ue5", "custom"), LEGACY_CASES, ids=[f"L{c[0]}" for c in LEGACY_CASES])
@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_each_legacy_file_version_reads_every_value(
    legacy: int, ue4: int, ue5: int, custom: tuple[CustomVersionEntry, ...], big_endian: bool
) -> None:
    package = ue4_package(ue4, cooked=False).with_(
        legacy_file_version=legacy, file_version_ue5=ue5, custom_versions=custom, big_endian=big_endian
    )
    summary = parse_package_summary(package.build(), "Legacy.uasset")
    assert summary.newer_format is None
    assert summary.legacy_file_version == legacy
    assert summary.file_version_ue4 == ue4
    assert summary.file_version_ue5 == ue5
    assert summary.package_name == package.package_name
    assert summary.total_header_size == package.summary_size() + package.body_size
    assert len(summary.custom_versions) == len(custom)
    assert summary.custom_versions[0].version == 1 if custom else summary.custom_versions == ()
    assert summary.saved_by_engine_version == expected_saved_by(package)


# -- unversioned (cooked) packages: LegacyFileVersion -9 has the 5.6 layout, SavedHash first ------------------------


@pytest.mark.parametrize(("legacy", "saved_hash_first"), [(-7, False), (-8, False), (-9, True)])
@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_an_unversioned_package_reads_up_to_its_flags_in_its_eras_layout(
    legacy: int, saved_hash_first: bool, big_endian: bool
) -> None:
    package = SyntheticPackage(
        legacy_file_version=legacy,
        file_version_ue4=0,
        file_version_ue5=0,
        package_name="/Game/Cooked",
        package_flags=0x40000 | FILTER_EDITOR_ONLY,
        saved_hash=HASH,
        big_endian=big_endian,
    )
    summary = parse_package_summary(package.build(), "Cooked.uasset")
    assert (summary.file_version_ue4, summary.file_version_ue5, summary.file_version_licensee) == (0, 0, 0)
    assert summary.package_name == package.package_name
    assert summary.package_flags == package.package_flags
    assert summary.total_header_size == package.summary_size() + package.body_size
    assert summary.saved_hash == (HASH if saved_hash_first else None)
