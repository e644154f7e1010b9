"""Custom versions: the table of what each release registers, the linker's rule on newer ones, and its generator."""

from __future__ import annotations

import csv
import importlib.util
import itertools
import re
import sys
from pathlib import Path
from types import ModuleType

import helpers
import pytest
from package_builder import CORE, ERAS, FOLIAGE, CustomVersionEntry, SyntheticPackage

from buildver import EngineVersion
from buildver.guard.checks import check_package
from buildver.packages.custom_version_tables import CONFIRMED_RELEASES, CUSTOM_VERSION_TABLES, SOURCES
from buildver.packages.engine_custom_versions import (
    newer_custom_version,
    registered_custom_versions,
    unregistered_custom_versions,
)
from buildver.packages.reader import parse_package_summary, read_package_summary
from buildver.packages.scanning import scan
from buildver.packages.verdicts import ScanStatus, classify
from buildver.versions.custom_versions import StoredCustomVersion

REPOSITORY = Path(__file__).resolve().parents[2]
TOOL = REPOSITORY / "tools" / "generate_custom_versions.py"
MODULE = REPOSITORY / "buildver" / "packages" / "custom_version_tables.py"
FIXTURES = helpers.FIXTURES  # the shared real packages (skipped where absent)

UE5_MAIN = "697DD581-E64F-41AB-AA4A-51ECBEB7B628"
EDITOR = "E4B068ED-F494-42E9-A231-DA0B2E46BB41"
NIAGARA_PLUGIN = "FCF57AFA-5076-4283-B9A9-E658FFA02D32"
"""NiagaraVer: registered by the engine module Runtime/Niagara in 4.16, by the Niagara plugin from 4.18 on."""
STUDIO_PLUGIN = "0B5E5A1D-5C0F-4D6E-9A31-7E2D1C4B8F60"
"""A studio plugin's custom version: in no release's table."""


def V(text: str) -> EngineVersion:
    return EngineVersion.parse(text)


def load_generator() -> ModuleType:
    """``tools/generate_custom_versions.py``, imported from its path (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("generate_custom_versions", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


generator = load_generator()


# -- the table ------------------------------------------------------------------------------------------------


class TestTable:
    """What each release registers, read from its engine's sources (docs/package-rules.md §4)."""

    def test_every_release_names_the_repository_and_commit_it_was_read_from(self) -> None:
        assert list(CONFIRMED_RELEASES) == sorted(SOURCES) == sorted(CUSTOM_VERSION_TABLES)
        for release, source in SOURCES.items():
            assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{12} \(", source), source
            assert f"{release[0]}.{release[1]}" in source

    @pytest.mark.parametrize("release", [(4, 17), (5, 2), (5, 7), (5, 8), (4, 11), (6, 0)])
    def test_a_release_that_could_not_be_confirmed_is_absent(self, release: tuple[int, int]) -> None:
        assert release not in CUSTOM_VERSION_TABLES
        assert registered_custom_versions(EngineVersion(*release, 0)) is None

    def test_keys_are_guids_as_the_package_reader_writes_them(self) -> None:
        guid = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
        for table in CUSTOM_VERSION_TABLES.values():
            for key, (name, latest) in table.items():
                assert guid.match(key), key
                assert name
                assert latest >= 0

    def test_a_custom_version_never_goes_down_from_one_release_to_the_next(self) -> None:
        for older, newer in itertools.pairwise(sorted(CUSTOM_VERSION_TABLES)):
            for key, (_, latest) in CUSTOM_VERSION_TABLES[older].items():
                if key in CUSTOM_VERSION_TABLES[newer]:
                    assert CUSTOM_VERSION_TABLES[newer][key][1] >= latest, (older, newer, key)

    @pytest.mark.parametrize(
        ("release", "guid", "expected"),
        [
            ("4.12.5", CORE, ("Dev-Core", 1)),
            ("4.16.3", FOLIAGE, ("FoliageVer", 11)),
            ("4.27.2", "CFFC743F-43B0-4480-9391-14DF171D2073", ("Dev-Framework", 37)),
            ("5.4.4", UE5_MAIN, ("UE5-Main", 119)),
            ("5.6.1", "D89B5E42-24BD-4D46-8412-ACA8DF641779", ("UE5-Release", 56)),  # 5.6.0 saved 55
        ],
    )
    def test_known_entries(self, release: str, guid: str, expected: tuple[str, int]) -> None:
        registered = registered_custom_versions(V(release))
        assert registered is not None
        assert registered[guid] == expected

    def test_plugins_custom_versions_are_not_the_engines(self) -> None:
        for release, table in CUSTOM_VERSION_TABLES.items():
            assert (NIAGARA_PLUGIN in table) == (release == (4, 16)), release

    def test_the_module_is_exactly_what_the_generator_writes(self) -> None:
        tables, sources = generator.load_module(MODULE)
        assert generator.render_module(tables, sources) == MODULE.read_text(encoding="utf-8")


# -- the linker's rule ----------------------------------------------------------------------------------------

SAVED_BY_55 = ERAS["-8"]
"""A 5.5.4 save, compatible with 5.5.0-37670630; the tests give it the custom versions they need."""


def with_custom_versions(package: SyntheticPackage, *entries: tuple[str, int]) -> SyntheticPackage:
    return package.with_(custom_versions=tuple(CustomVersionEntry(key, version) for key, version in entries))


CASES = [
    # (what, package, engine, status, words the reason must hold)
    (
        "newer than the release registers",
        with_custom_versions(SAVED_BY_55, (CORE, 4), (UE5_MAIN, 120)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.NEWER_ENGINE,
        ("'UE5-Main'", UE5_MAIN, "120", "5.5 registers (119)"),
    ),
    (
        "equal to what the release registers",
        with_custom_versions(SAVED_BY_55, (CORE, 4), (UE5_MAIN, 119)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.OK,
        (),
    ),
    (
        "older than the release registers",
        with_custom_versions(SAVED_BY_55, (UE5_MAIN, 1)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.OK,
        (),
    ),
    (
        "a GUID the release does not register (a plugin's)",
        with_custom_versions(SAVED_BY_55, (NIAGARA_PLUGIN, 999)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.UNDECIDABLE,
        (),
    ),
    (
        "a release the table does not hold: no check, no guess",
        with_custom_versions(SAVED_BY_55.with_(file_version_ue5=1009), (UE5_MAIN, 999)),
        "5.2.1",
        ScanStatus.OK,
        (),
    ),
    (
        "a licensee build: Epic's release says nothing of what it registers",
        with_custom_versions(SAVED_BY_55, (UE5_MAIN, 120)),
        "5.5.4-2147483748+++Studio+Main",
        ScanStatus.OK,
        (),
    ),
    (
        "several newer: the first is named, the others counted",
        with_custom_versions(SAVED_BY_55, (EDITOR, 99), (UE5_MAIN, 120)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.NEWER_ENGINE,
        ("'Dev-Editor'", "99", "(40)", "and 1 more"),
    ),
    (
        # The case: object versions equal, CompatibleWith let through by the Changelist-0 rule.
        "a newer release's save that the object versions and CompatibleWith let through",
        with_custom_versions(SAVED_BY_55.with_(file_version_ue5=1009), (CORE, 4), (UE5_MAIN, 119)),
        "5.3.2",
        ScanStatus.NEWER_ENGINE,
        ("'UE5-Main'", "119", "5.3 registers (118)"),
    ),
    (
        "the Guids layout of 4.7 (LegacyFileVersion -5) is checked too",
        ERAS["-5"].with_(custom_versions=(CustomVersionEntry(FOLIAGE, 12, "FoliageVer"),)),
        "4.12.5",
        ScanStatus.NEWER_ENGINE,
        ("'FoliageVer'", "12", "4.12 registers (11)"),
    ),
    (
        "a big-endian container is checked the same",
        with_custom_versions(SAVED_BY_55.with_(big_endian=True), (UE5_MAIN, 120)),
        "5.5.4-40574608+++UE5+Release-5.5",
        ScanStatus.NEWER_ENGINE,
        ("'UE5-Main'", "120"),
    ),
    (
        "the file versions are checked first, as the linker does",
        with_custom_versions(SAVED_BY_55, (UE5_MAIN, 120)),
        "5.4.4",
        ScanStatus.NEWER_ENGINE,
        ("FileVersionUE5 1013",),
    ),
]


class TestNewerCustomVersions:
    """A custom version newer than the engine's release registers is refused, as LinkerLoad refuses it."""

    @pytest.mark.parametrize(
        ("package", "engine", "status", "words"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
    )
    def test_classify(self, package: SyntheticPackage, engine: str, status: ScanStatus, words: tuple[str]) -> None:
        summary = parse_package_summary(package.build())
        result = classify("Content/A.uasset", summary, V(engine))
        assert result.status is status
        if status is ScanStatus.NEWER_ENGINE:
            assert result.error is not None
            for word in words:
                assert word in result.error
            assert summary.newer_than(V(engine)) == result.error
        else:
            assert summary.newer_than(V(engine)) is None

    def test_the_guard_reports_it_as_package_newer(self) -> None:
        data = with_custom_versions(SAVED_BY_55, (UE5_MAIN, 120)).build()
        findings = check_package("Content/A.uasset", data, V("5.5.4-40574608+++UE5+Release-5.5"))
        assert [finding.check for finding in findings] == ["package-newer"]
        assert "custom version 'UE5-Main'" in findings[0].message
        assert "120 is newer than 5.5 registers (119)" in findings[0].message

    def test_assets_scan_reports_it(self, tmp_path: Path) -> None:
        (tmp_path / "A.uasset").write_bytes(with_custom_versions(SAVED_BY_55, (UE5_MAIN, 120)).build())
        (tmp_path / "B.uasset").write_bytes(with_custom_versions(SAVED_BY_55, (UE5_MAIN, 119)).build())
        results = list(scan([tmp_path], V("5.5.4-40574608+++UE5+Release-5.5")))
        assert [(Path(r.path).name, r.status) for r in results] == [
            ("A.uasset", ScanStatus.NEWER_ENGINE),
            ("B.uasset", ScanStatus.OK),
        ]

    def test_the_same_container_gets_the_same_answer_for_each_engine(self) -> None:
        container = (StoredCustomVersion(UE5_MAIN, 119),)
        engines = [V("5.3.2"), V("5.4.4"), V("5.3.2"), V("5.2.1")]
        answers = [newer_custom_version(container, engine) for engine in engines]
        assert answers[0] is not None
        assert answers[0] == answers[2]
        assert answers[1] is None
        assert answers[3] is None
        assert newer_custom_version((), V("5.3.2")) is None


class TestUndecidable:
    """A custom version the engine does not register is not refused: the package is undecidable, naming it."""

    @pytest.mark.parametrize(
        ("saved_by", "engine"),
        [
            ((5, 5, 4, 40574608, "++UE5+Release-5.5"), "5.3.2"),  # a newer release, let through by Changelist-0
            ((5, 5, 4, 40574608, "++UE5+Release-5.5"), "5.5.4-40574608+++UE5+Release-5.5"),  # the same release
            ((5, 3, 2, 29314046, "++UE5+Release-5.3"), "5.5.4-40574608+++UE5+Release-5.5"),  # an older one
        ],
    )
    def test_a_plugins_custom_version_is_undecidable_with_its_guid(
        self, saved_by: tuple[int, int, int, int, str], engine: str
    ) -> None:
        """Issue 31 item 3: it was ok, without a word, unless a newer release saved it."""
        package = with_custom_versions(
            SAVED_BY_55.with_(saved_by=saved_by, file_version_ue5=1009), (CORE, 4), (STUDIO_PLUGIN, 40)
        )
        result = classify("A.uasset", parse_package_summary(package.build()), V(engine))
        release = ".".join(engine.split(".")[:2])
        assert (result.status, result.error) == (
            ScanStatus.UNDECIDABLE,
            f"1 custom version that {release} does not register itself (a plugin's?): Unreal warns if nothing "
            f"registers them, and refuses the package if a plugin registers an older version: {STUDIO_PLUGIN} 40",
        )
        assert not result.status.is_failure

    def test_the_name_is_given_where_a_releases_table_knows_it(self) -> None:
        """A custom version that a later release registers, in a package checked against an earlier one (and
        NiagaraVer, which 4.16's engine module registered before the plugin did)."""
        only_55 = sorted(set(CUSTOM_VERSION_TABLES[5, 5]) - set(CUSTOM_VERSION_TABLES[5, 3]))[0]
        name = CUSTOM_VERSION_TABLES[5, 5][only_55][0]
        package = with_custom_versions(
            SAVED_BY_55.with_(
                saved_by=(5, 3, 2, 29314046, "++UE5+Release-5.3"),
                compatible_with=(5, 3, 0, 27405482, "++UE5+Release-5.3"),
                file_version_ue5=1009,
            ),
            (only_55, 1),
        )
        result = classify("A.uasset", parse_package_summary(package.build()), V("5.3.2-29314046"))
        assert result.status is ScanStatus.UNDECIDABLE
        assert str(result.error).endswith(f": {name!r} ({only_55}) 1")
        niagara = with_custom_versions(SAVED_BY_55.with_(file_version_ue5=1009), (NIAGARA_PLUGIN, 40))
        result = classify("A.uasset", parse_package_summary(niagara.build()), V("5.5.4-40574608"))
        assert str(result.error).endswith(f": 'NiagaraVer' ({NIAGARA_PLUGIN}) 40")

    @pytest.mark.parametrize("engine", ["5.2.1", "5.5.4-2147483748"], ids=["no table", "licensee"])
    def test_nothing_is_undecidable_where_nothing_is_checked(self, engine: str) -> None:
        package = with_custom_versions(SAVED_BY_55.with_(file_version_ue5=1009), (STUDIO_PLUGIN, 40))
        result = classify("A.uasset", parse_package_summary(package.build()), V(engine))
        assert (result.status, result.error) == (ScanStatus.OK, None)

    def test_registered_custom_versions_alone_are_ok(self) -> None:
        package = with_custom_versions(SAVED_BY_55.with_(file_version_ue5=1009), (CORE, 4))
        result = classify("A.uasset", parse_package_summary(package.build()), V("5.5.4-40574608"))
        assert (result.status, result.error) == (ScanStatus.OK, None)

    def test_nothing_is_singled_out_for_a_release_without_a_table(self) -> None:
        stored = (StoredCustomVersion(NIAGARA_PLUGIN, 1), StoredCustomVersion(UE5_MAIN, 1))
        assert unregistered_custom_versions(stored, V("5.2.1")) == ()
        assert unregistered_custom_versions(stored, V("5.3.2")) == (stored[0],)


# -- real packages -----------------------------------------------------------------------------------------------


def _manifest() -> list[dict[str, str]]:
    if not (FIXTURES / "MANIFEST.tsv").is_file():
        return []
    with (FIXTURES / "MANIFEST.tsv").open(encoding="utf-8", newline="") as manifest:
        return list(csv.DictReader(manifest, delimiter="\t"))


ROWS = _manifest()
needs_fixtures = pytest.mark.skipif(not ROWS, reason="../shared/fixtures/uasset/ is not there")


def _release(row: dict[str, str]) -> tuple[int, int]:
    major, minor = row["SavedByEngineVersion"].split(".")[:2]
    return int(major), int(minor)


TABLED_ROWS = [row for row in ROWS if _release(row) in CUSTOM_VERSION_TABLES]
"""The saves of the releases in the table (4.10, 4.11, 4.17 and 5.2 have fixtures but no table)."""


@needs_fixtures
class TestRealPackages:
    """Packages saved by real editors (../shared/fixtures/uasset/MANIFEST.tsv)."""

    @pytest.mark.parametrize("row", TABLED_ROWS, ids=[row["path"] for row in TABLED_ROWS])
    def test_no_custom_version_of_a_save_is_newer_than_its_release_registers(self, row: dict[str, str]) -> None:
        table = CUSTOM_VERSION_TABLES[_release(row)]
        summary = read_package_summary(FIXTURES / row["path"])
        for stored in summary.custom_versions:
            if stored.guid in table:
                assert stored.version <= table[stored.guid][1], (stored, table[stored.guid])
        assert newer_custom_version(summary.custom_versions, V(row["SavedByEngineVersion"])) is None

    @pytest.mark.parametrize(
        ("saved", "engine", "spared"),
        [
            # Object versions equal, and no changelist on the engine (the Changelist-0 rule): only the custom
            # versions tell these apart, as Unreal's linker does. ``spared``: the packages not refused (by file
            # name; None: none is refused).
            ("4.17", "4.16.3", ()),
            ("4.20", "4.19.2", ()),
            ("4.22", "4.21.2", ()),
            ("4.23", "4.22.3", ()),
            ("4.25", "4.24.3", ()),
            ("4.27", "4.26.2", ("SimpleRefsDefaultsRef.uasset", "SimpleRefsSoftRef.uasset")),  # nothing newer
            ("5.3", "5.2.1", None),  # 5.2 is not in the table: not checked
        ],
    )
    def test_a_newer_releases_save_with_the_same_object_versions(
        self, saved: str, engine: str, spared: tuple[str, ...] | None
    ) -> None:
        rows = [row for row in ROWS if row["SavedByEngineVersion"].startswith(saved + ".")]
        assert rows
        results = [classify(row["path"], read_package_summary(FIXTURES / row["path"]), V(engine)) for row in rows]
        newer = [result for result in results if result.status is ScanStatus.NEWER_ENGINE]
        expected = [] if spared is None else [row["path"] for row in rows if Path(row["path"]).name not in spared]
        assert [result.path for result in newer] == expected
        assert all(result.error is not None and result.error.startswith("custom version '") for result in newer)
        assert all(result.status is ScanStatus.OK for result in results if result not in newer)


# -- the generator ------------------------------------------------------------------------------------------------

BUILD_VERSION = '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 9,\n\t"PatchVersion": 1,\n\t"Changelist": 0\n}\n'

ENUM_HEADER = """\
#pragma once
#include "Misc/Guid.h"

// Custom serialization version for changes made in the Dev-Foo stream
struct CORE_API FFooObjectVersion
{
\tenum Type
\t{
\t\t// Before any version changes were made
\t\tBeforeCustomVersionWasAdded = 0,
\t\tFirstChange,
\t\tSecondChange,
\t\t// -----<new versions can be added above this line>-----
\t\tVersionPlusOne,
\t\tLatestVersion = VersionPlusOne - 1
\t};

\tconst static FGuid GUID;
};
"""
REGISTRATION = """\
#include "UObject/FooObjectVersion.h"

const FGuid FFooObjectVersion::GUID(0x11111111, 0x22223333, 0x44445555, 0x66667777);
FDevVersionRegistration GRegisterFooObjectVersion(
	FFooObjectVersion::GUID, FFooObjectVersion::LatestVersion, TEXT("Dev-Foo"));
"""
FOO = "11111111-2222-3333-4444-555566667777"

# Each case: the files of a tree (paths under Engine/Source), and the table the generator must find.
GENERATOR_CASES: dict[str, tuple[dict[str, str], dict[str, tuple[str, int]]]] = {
    "an enum's LatestVersion, counted as the compiler does, with the GUID in another file": (
        {"Runtime/Core/Public/UObject/FooObjectVersion.h": ENUM_HEADER, "Runtime/Core/Private/Foo.cpp": REGISTRATION},
        {FOO: ("Dev-Foo", 2)},
    ),
    "explicit values, a cast, an enum class and a braced GUID": (
        {
            "Runtime/Bar/Private/Bar.cpp": """\
enum class EBarVersion : int32 { Initial = 3, Next = 7, Later, Latest = Later };
static const FGuid BarGuid{0xAAAAAAAA, 0xBBBBBBBB, 0xCCCCCCCC, 0xDDDDDDDD};
FCustomVersionRegistration GRegisterBar(BarGuid, static_cast<int32>(EBarVersion::Latest), TEXT("Bar"));
"""
        },
        {"AAAAAAAA-BBBB-BBBB-CCCC-CCCCDDDDDDDD": ("Bar", 8)},
    ),
    "a namespace, a local GUID and an unqualified version": (
        {
            "Runtime/Baz/Private/Baz.cpp": """\
namespace UE::Baz::Private
{
\tnamespace Version { enum Type { V0, V1, V2, Latest = V2 }; }
\tconst FGuid GUID(0x00000001, 0x00000002, 0x00000003, 0x00000004);
\tFCustomVersionRegistration BazVersion(GUID, Version::Latest, TEXT("BazVersion"));
}
"""
        },
        {"00000001-0000-0002-0000-000300000004": ("BazVersion", 2)},
    ),
    "a constructor's initializer list": (
        {
            "Runtime/Qux/Private/Qux.cpp": """\
struct FQuxCustomVersion
{
\tenum EType { Added = 0, Changed = 1, VersionPlusOne, LatestVersion = VersionPlusOne - 1 };
\tconst FGuid GUID;
\tFCustomVersionRegistration Registration;
\tFQuxCustomVersion()
\t: GUID{0x0000000A, 0x0000000B, 0x0000000C, 0x0000000D}
\t, Registration(GUID, FQuxCustomVersion::LatestVersion, TEXT("QuxCustomVersion"))
\t{}
};
static FQuxCustomVersion GQuxCustomVersion;
"""
        },
        {"0000000A-0000-000B-0000-000C0000000D": ("QuxCustomVersion", 1)},
    ),
    "an X-macro .inl list, as 5.6+ writes UE5-Main": (
        {
            "Runtime/Core/Public/UObject/MainVersions.inl": """\
#if defined(DEFINE_MAIN_VERSIONS)
#define MAIN_VERSION(Version, ID) Version,
#endif
MAIN_VERSION(BeforeCustomVersionWasAdded, 0)
// a comment between entries
MAIN_VERSION(SomeChange, 1)
MAIN_VERSION(AnotherChange, 2)
#undef MAIN_VERSION
""",
            "Runtime/Core/Public/UObject/MainVersion.h": """\
struct FMainVersion
{
\tenum Type
\t{
#define DEFINE_MAIN_VERSIONS
#include "UObject/MainVersions.inl"
#undef DEFINE_MAIN_VERSIONS
\t\tVersionPlusOne,
\t\tLatestVersion = VersionPlusOne - 1
\t};
\tstatic const FGuid GUID;
};
""",
            "Runtime/Core/Private/Main.cpp": """\
const FGuid FMainVersion::GUID(0x697DD581, 0xE64F41AB, 0xAA4A51EC, 0xBEB7B628);
FDevVersionRegistration GRegisterMain(FMainVersion::GUID, FMainVersion::LatestVersion, TEXT("UE5-Main"));
""",
        },
        {UE5_MAIN: ("UE5-Main", 2)},
    ),
    "a GUID a function returns, as NetworkVersion.cpp does": (
        {
            "Runtime/Core/Private/Net.cpp": """\
namespace UE::Net { FGuid GetNetGuid() { static FGuid Guid = FGuid(0x62915CA3, 0x1C8E4BF7, 0xA30E12C7, 0xC8219DF7);
return Guid; } }
struct FNetVersion { enum Type { Initial, LatestVersion = Initial }; static const FGuid Guid; };
const FGuid FNetVersion::Guid = UE::Net::GetNetGuid();
FCustomVersionRegistration GRegisterNet(FNetVersion::Guid, FNetVersion::LatestVersion, TEXT("NetVersion"));
"""
        },
        {"62915CA3-1C8E-4BF7-A30E-12C7C8219DF7": ("NetVersion", 0)},
    ),
    "code that never runs in the editor, comments and #if 0 are not registrations": (
        {
            "ThirdParty/Lib/Lib.cpp": REGISTRATION,
            "Programs/Tool/Tool.cpp": REGISTRATION,
            "Runtime/Old/Private/Old.cpp": """\
// FCustomVersionRegistration GCommented(FGuid(1, 2, 3, 4), 1, TEXT("Commented"));
#if 0
FCustomVersionRegistration GDisabled(FGuid(1, 2, 3, 4), 1, TEXT("Disabled"));
#endif
""",
        },
        {},
    ),
}


def write_tree(root: Path, files: dict[str, str], build_version: bool = True) -> Path:
    for relative, text in files.items():
        path = root / "Engine" / "Source" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if build_version:
        (root / "Engine" / "Build").mkdir(parents=True, exist_ok=True)
        (root / "Engine" / "Build" / "Build.version").write_text(BUILD_VERSION, encoding="utf-8")
    (root / "Engine" / "Source").mkdir(parents=True, exist_ok=True)
    return root


def table_of(root: Path) -> tuple[dict[str, tuple[str, int]], list[str], list[str]]:
    report = generator.scan_engine(root)
    table: dict[str, tuple[str, int]] = report.table()
    return table, list(report.problems), list(report.notes)


class TestGenerator:
    """tools/generate_custom_versions.py, on small engine trees written for the tests."""

    @pytest.mark.parametrize(("files", "expected"), list(GENERATOR_CASES.values()), ids=list(GENERATOR_CASES))
    def test_finds_what_the_engine_registers(
        self, tmp_path: Path, files: dict[str, str], expected: dict[str, tuple[str, int]]
    ) -> None:
        table, problems, notes = table_of(write_tree(tmp_path, files))
        assert (table, problems, notes) == (expected, [], [])

    def test_a_version_computed_at_run_time_is_left_out_and_said_so(self, tmp_path: Path) -> None:
        files = {
            "Runtime/Cache/Private/Cache.cpp": """\
const FGuid FCacheVersion::GameKey(0x03D4EB48, 0xB50B4CC3, 0xA598DE41, 0x5C6CC993);
FCustomVersionRegistration GRegisterGame(FCacheVersion::GameKey, (int32)FEngineVersion::Current().GetChangelist(),
\tTEXT("ShaderCacheGameVersion"));
"""
        }
        table, problems, notes = table_of(write_tree(tmp_path, files))
        assert (table, problems) == ({}, [])
        assert len(notes) == 1
        assert "computed at run time" in notes[0]

    @pytest.mark.parametrize(
        ("files", "problem"),
        [
            (
                {"Runtime/A/Private/A.cpp": 'FCustomVersionRegistration GA(FMissing::GUID, 1, TEXT("A"));\n'},
                "FMissing::GUID",
            ),
            (
                {
                    "Runtime/A/Private/A.cpp": 'FCustomVersionRegistration GA(FGuid(1, 2, 3, 4), 1, TEXT("A"));\n',
                    "Runtime/B/Private/B.cpp": 'FCustomVersionRegistration GB(FGuid(1, 2, 3, 4), 2, TEXT("A"));\n',
                },
                "registered differently",
            ),
        ],
        ids=["an unresolved name", "one GUID registered with two versions"],
    )
    def test_what_it_cannot_decide_makes_it_fail_without_writing(
        self, tmp_path: Path, files: dict[str, str], problem: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_tree(tmp_path / "engine", files)
        module = tmp_path / "tables.py"
        assert generator.main([str(root), "--update", str(module), "--source", "o/r@0123456789ab (5.9.1)"]) == 1
        assert problem in capsys.readouterr().err
        assert not module.exists()

    def test_update_writes_the_module_and_a_second_release_joins_it(self, tmp_path: Path) -> None:
        root = write_tree(tmp_path / "engine", GENERATOR_CASES[next(iter(GENERATOR_CASES))][0])
        module = tmp_path / "tables.py"
        arguments = [str(root), "--update", str(module), "--source", "owner/repository@0123456789ab"]
        assert generator.main(arguments) == 0
        assert generator.main([*arguments[:-1], "owner/other@ba9876543210 (5.8.0)", "--release", "5.8"]) == 0
        namespace: dict[str, object] = {}
        exec(compile(module.read_text(encoding="utf-8"), str(module), "exec"), namespace)
        assert namespace["CUSTOM_VERSION_TABLES"] == {(5, 8): {FOO: ("Dev-Foo", 2)}, (5, 9): {FOO: ("Dev-Foo", 2)}}
        assert namespace["SOURCES"] == {
            (5, 8): "owner/other@ba9876543210 (5.8.0)",
            (5, 9): "owner/repository@0123456789ab (5.9.1)",  # the patch comes from Build.version
        }
        assert namespace["CONFIRMED_RELEASES"] == ((5, 8), (5, 9))
        before = module.read_text(encoding="utf-8")
        assert generator.main(arguments) == 0
        assert module.read_text(encoding="utf-8") == before

    def test_prints_the_table_without_update(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        root = write_tree(tmp_path, GENERATOR_CASES[next(iter(GENERATOR_CASES))][0])
        assert generator.main([str(root)]) == 0
        out = capsys.readouterr().out
        assert out == f'    (5, 9): {{\n        "{FOO}": ("Dev-Foo", 2),\n    }},\n'

    def test_a_tree_without_build_version_needs_the_release(self, tmp_path: Path) -> None:
        root = write_tree(tmp_path, {"Runtime/Core/Private/Foo.cpp": REGISTRATION}, build_version=False)
        with pytest.raises(SystemExit) as raised:
            generator.main([str(root)])
        assert raised.value.code == 2
