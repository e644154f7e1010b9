"""Which tables judge a place's packages, their verdicts, and the cache that keeps them between runs.

The packages here are built with the project's own package builder (``tests/package_builder.py``): no public
licensee build has saved packages to test with, so their headers carry the versions such an engine writes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import run_buildver
from package_builder import EMPTY_VERSION, CustomVersionEntry, SyntheticPackage
from tree_builder import STUDIO_GUID, build_version, studio_engine, studio_game, write

from buildver.packages.tree_tables import SourceRoot
from buildver.projects.engine_tables import cached_tables, place_tables
from buildver.projects.place import find_place, place_engine

WIND_GUID = "AAAA0001-0000-0000-0000-000000000001"
QUEST_GUID = "BBBB0002-0000-0000-0000-000000000003"
UNKNOWN_GUID = "CCCC0000-0000-0000-0000-000000000000"


def studio_package(**changes: object) -> bytes:
    """A package as the studio's engine saves it: its object versions (UE4 215, UE5 1002, licensee 2)."""
    package = SyntheticPackage(
        legacy_file_version=-8,
        file_version_ue4=215,
        file_version_ue5=1002,
        licensee=2,
        saved_by=EMPTY_VERSION,
        compatible_with=EMPTY_VERSION,
        custom_versions=(CustomVersionEntry(STUDIO_GUID, 2), CustomVersionEntry(WIND_GUID, 7)),
    )
    return package.with_(**changes).build()


def scan(cwd: Path, *arguments: str) -> tuple[int, dict[str, dict[str, object]]]:
    result = run_buildver(cwd, "assets", "scan", "--json", *arguments)
    assert result.returncode in (0, 1), result.stderr
    document = json.loads(result.stdout)
    return result.returncode, {Path(str(item["path"])).name: item for item in document["packages"]}


class TestALicenseeEngine:
    """A licensee's engine tree judges its packages by its own tables, as its linker does."""

    @pytest.fixture
    def engine(self, tmp_path: Path) -> Path:
        root = studio_engine(tmp_path / "Studio")
        content = root / "Content"
        content.mkdir()
        packages = {
            "Ok.uasset": studio_package(),
            "NewerLicensee.uasset": studio_package(licensee=3),
            "NewerUE5.uasset": studio_package(file_version_ue5=1003),
            "NewerStudio.uasset": studio_package(custom_versions=(CustomVersionEntry(STUDIO_GUID, 3),)),
            "NewerWind.uasset": studio_package(custom_versions=(CustomVersionEntry(WIND_GUID, 8),)),
            "Unknown.uasset": studio_package(custom_versions=(CustomVersionEntry(UNKNOWN_GUID, 1),)),
        }
        for name, data in packages.items():
            (content / name).write_bytes(data)
        return root

    def test_each_package_is_judged_by_the_trees_tables(self, engine: Path) -> None:
        code, results = scan(engine, "Content")
        assert code == 1
        assert {name: item["status"] for name, item in results.items()} == {
            "Ok.uasset": "ok",
            "NewerLicensee.uasset": "newer-engine",
            "NewerUE5.uasset": "newer-engine",
            "NewerStudio.uasset": "newer-engine",
            "NewerWind.uasset": "newer-engine",
            "Unknown.uasset": "undecidable",
        }

    def test_each_reason_names_the_rule_and_the_tables(self, engine: Path) -> None:
        _, results = scan(engine, "Content")
        source = f"read from {engine}"
        header = "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h"
        assert results["NewerLicensee.uasset"]["error"] == (
            f"FileVersionLicenseeUE 3 is newer than this engine writes (2, {header}; {source})"
        )
        assert results["NewerStudio.uasset"]["error"] == (
            f"custom version 'StudioVer' ({STUDIO_GUID}) 3 is newer than Core at "
            f"Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp:4 registers (2); {source}"
        )
        assert "WindRuntime (plugin Wind) at Engine/Plugins/Studio/Wind/" in str(results["NewerWind.uasset"]["error"])
        assert results["Unknown.uasset"]["error"] == (
            f'1 custom version that nothing here registers: Unreal warns ("custom version not present") and loads '
            f"the package without it: {UNKNOWN_GUID} 1; {source}"
        )

    def test_against_a_release_keeps_the_shipped_tables(self, engine: Path) -> None:
        # Epic's 5.1 writes UE4 522 and UE5 1008; it has no table of the studio's custom versions.
        _, results = scan(engine, "Content", "--against", "5.1")
        assert {item["status"] for item in results.values()} == {"undecidable"}
        assert "that 5.1 does not register itself" in str(results["NewerStudio.uasset"]["error"])


class TestAGame:
    """A game beside its engine: its modules', plugins' and AdditionalPluginDirectories' registrations count."""

    def test_a_game_plugins_custom_version_is_checked_against_its_registration(self, tmp_path: Path) -> None:
        studio_engine(tmp_path)
        project = studio_game(tmp_path)
        place = find_place(project.parent)
        engine = place_engine(place)
        tables = place_tables(place, engine, cache_folder=tmp_path / "cache")
        assert tables is not None
        assert tables.custom_versions[QUEST_GUID].module == "Quests (plugin Quests)"
        assert "BBBB0003-0000-0000-0000-000000000004" in tables.custom_versions  # SharedPlugins, outside the game
        (project.parent / "Content").mkdir()
        (project.parent / "Content" / "Quest.uasset").write_bytes(
            studio_package(custom_versions=(CustomVersionEntry(QUEST_GUID, 6),))
        )
        _, results = scan(project.parent, "Content")
        assert results["Quest.uasset"]["status"] == "newer-engine"
        assert "Quests (plugin Quests) at Game/Plugins/Quests/" in str(results["Quest.uasset"]["error"])

    def test_a_game_on_a_release_gets_the_release_s_tables_and_its_own_registrations(self, tmp_path: Path) -> None:
        """A game whose engine is known by its release only (a launcher association, the engine on another
        machine): Epic's shipped tables of that release, with the game's and its plugins' registrations on top."""
        from buildver.packages.tree_tables import shipped_tables

        project = studio_game(tmp_path)
        project.write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.1"}))
        place = find_place(project.parent)
        engine = place_engine(place)
        assert engine.release_only
        tables = place_tables(place, engine, cache_folder=tmp_path / "cache")
        assert tables is not None
        release = shipped_tables(5, 1)
        assert release is not None
        assert set(release.custom_versions) < set(tables.custom_versions)  # every engine registration kept
        assert tables.custom_versions[QUEST_GUID].version == 5
        assert tables.custom_versions[QUEST_GUID].module == "Quests (plugin Quests)"
        (project.parent / "Content").mkdir()
        for name, version in (("Quest5.uasset", 5), ("Quest6.uasset", 6)):  # saved by Epic's 5.1, not a licensee's
            (project.parent / "Content" / name).write_bytes(
                studio_package(licensee=0, custom_versions=(CustomVersionEntry(QUEST_GUID, version),))
            )
        _, results = scan(project.parent, "Content")
        assert results["Quest6.uasset"]["status"] == "newer-engine"
        assert "Quests (plugin Quests) at Plugins/Quests/" in str(results["Quest6.uasset"]["error"])  # from the game
        assert results["Quest5.uasset"]["status"] == "empty-engine-version"  # the builder saves no engine version


CESIUM = Path("/work/.mirror/CesiumGS+cesium-unreal/repo")
"""A public plugin that registers a custom version (Cesium for Unreal, v2.29.0): the test skips without it."""
CESIUM_GUID = "A5DCCA38-DDA3-4991-98E7-B2F215E17470"


@pytest.mark.skipif(not CESIUM.is_dir(), reason=f"no mirror of Cesium for Unreal at {CESIUM}")
def test_a_real_public_plugins_custom_version_is_checked_against_its_registration(tmp_path: Path) -> None:
    studio_engine(tmp_path)
    project = studio_game(tmp_path)
    plugin = project.parent / "Plugins" / "CesiumForUnreal"
    plugin.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(CESIUM), "archive", "HEAD", "--", "CesiumForUnreal.uplugin", "Source"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(plugin)], input=archive, check=True)
    (project.parent / "Content").mkdir()
    # CesiumCustomVersion.h counts to WebMapTileServiceProjectionAsEnum = 8: LatestVersion is 8.
    for name, version in (("Cesium8.uasset", 8), ("Cesium9.uasset", 9)):
        (project.parent / "Content" / name).write_bytes(
            studio_package(custom_versions=(CustomVersionEntry(CESIUM_GUID, version),))
        )
    _, results = scan(project.parent, "Content")
    assert results["Cesium8.uasset"]["status"] == "ok"
    assert results["Cesium9.uasset"]["status"] == "newer-engine"
    assert str(results["Cesium9.uasset"]["error"]).startswith(
        f"custom version 'CesiumVer' ({CESIUM_GUID}) 9 is newer than CesiumRuntime (plugin CesiumForUnreal) at "
        "Game/Plugins/CesiumForUnreal/Source/CesiumRuntime/Private/CesiumCustomVersion.cpp:10 registers (8)"
    )


class TestTheCache:
    """Kept outside the tree, used while nothing the tables depend on changed, read again when anything did."""

    def roots(self, root: Path) -> list[SourceRoot]:
        return [SourceRoot(studio_engine(root), "engine")]

    def test_it_is_written_in_the_users_cache_folder_not_in_the_tree(self, tmp_path: Path) -> None:
        roots = self.roots(tmp_path / "engine")
        cached_tables(roots)
        cache = Path(os.environ["XDG_CACHE_HOME"]) / "buildver" / "tables"
        assert len(list(cache.glob("*.json"))) == 1
        assert not list((tmp_path / "engine").rglob("*.json"))

    def test_a_changed_registration_is_seen_on_the_next_run(self, tmp_path: Path) -> None:
        roots = self.roots(tmp_path / "engine")
        cache = tmp_path / "cache"
        assert cached_tables(roots, cache_folder=cache).custom_versions[STUDIO_GUID].version == 2
        header = tmp_path / "engine/Engine/Source/Runtime/Core/Public/UObject/StudioObjectVersion.h"
        header.write_text(header.read_text().replace("AddedWind,", "AddedWind,\n\t\tAddedRain,"))
        assert cached_tables(roots, cache_folder=cache).custom_versions[STUDIO_GUID].version == 3

    def test_a_changed_object_version_header_is_seen_on_the_next_run(self, tmp_path: Path) -> None:
        roots = self.roots(tmp_path / "engine")
        cache = tmp_path / "cache"
        cached_tables(roots, cache_folder=cache)
        header = tmp_path / "engine/Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h"
        header.write_text(header.read_text().replace("VER_LIC_STUDIO_WIND,", "VER_LIC_STUDIO_WIND,\n\tVER_LIC_RAIN,"))
        limits = cached_tables(roots, cache_folder=cache).object_versions
        assert limits is not None
        assert limits.file_version_licensee == 3

    def test_a_new_file_that_registers_is_seen_on_the_next_run(self, tmp_path: Path) -> None:
        roots = self.roots(tmp_path / "engine")
        cache = tmp_path / "cache"
        cached_tables(roots, cache_folder=cache)
        write(
            tmp_path / "engine",
            {
                "Engine/Source/Runtime/Engine/Private/Rain.cpp": (
                    "static const FGuid RainGuid(0xDDDD0001, 0, 0, 1);\n"
                    'FCustomVersionRegistration GRegisterRain(RainGuid, 4, TEXT("RainVer"));\n'
                )
            },
        )
        tables = cached_tables(roots, cache_folder=cache)
        assert tables.custom_versions["DDDD0001-0000-0000-0000-000000000001"].version == 4

    def test_a_changed_x_macro_list_is_seen_on_the_next_run(self, tmp_path: Path) -> None:
        inl = "MAIN_VERSION(BeforeCustomVersionWasAdded, 0)\nMAIN_VERSION(SomeChange, 1)\n"
        engine = tmp_path / "engine"
        write(
            engine,
            {
                "Engine/Source/Runtime/Core/Public/UObject/MainVersions.inl": (
                    "#if defined(DEFINE_MAIN_VERSIONS)\n#define MAIN_VERSION(Version, ID) Version,\n#endif\n" + inl
                ),
                "Engine/Source/Runtime/Core/Public/UObject/MainVersion.h": (
                    "struct FMainVersion\n{\n\tenum Type\n\t{\n#define DEFINE_MAIN_VERSIONS\n"
                    '#include "UObject/MainVersions.inl"\n#undef DEFINE_MAIN_VERSIONS\n'
                    "\t\tVersionPlusOne,\n\t\tLatestVersion = VersionPlusOne - 1\n\t};\n"
                    "\tstatic const FGuid GUID;\n};\n"
                ),
                "Engine/Source/Runtime/Core/Private/Main.cpp": (
                    '#include "UObject/MainVersion.h"\n'
                    "const FGuid FMainVersion::GUID(0x697DD581, 0xE64F41AB, 0xAA4A51EC, 0xBEB7B628);\n"
                    "FDevVersionRegistration GRegisterMain(\n"
                    '\tFMainVersion::GUID, FMainVersion::LatestVersion, TEXT("UE5-Main"));\n'
                ),
            },
        )
        roots = [SourceRoot(engine, "engine")]
        cache = tmp_path / "cache"
        guid = "697DD581-E64F-41AB-AA4A-51ECBEB7B628"
        assert cached_tables(roots, cache_folder=cache).custom_versions[guid].version == 1
        listing = engine / "Engine/Source/Runtime/Core/Public/UObject/MainVersions.inl"
        listing.write_text(listing.read_text() + "MAIN_VERSION(AnotherChange, 2)\n")
        assert cached_tables(roots, cache_folder=cache).custom_versions[guid].version == 2

    @pytest.mark.parametrize(
        "content",
        [
            b"not json",
            b"\xff\xfe",
            b"[]",
            b'{"format": 1}',
            b'{"format": 999, "key": "", "base": "", "folders": [], "times": [], "files": [], "tables": {}}',
        ],
    )
    def test_a_corrupt_cache_is_read_again_from_the_sources(self, tmp_path: Path, content: bytes) -> None:
        roots = self.roots(tmp_path / "engine")
        cache = tmp_path / "cache"
        first = cached_tables(roots, cache_folder=cache)
        (written,) = (cache / "tables").glob("*.json")
        written.write_bytes(content)
        assert cached_tables(roots, cache_folder=cache) == first
        assert json.loads(written.read_bytes())["format"] == 1  # rewritten

    @pytest.mark.parametrize(
        ("where", "value"),
        [
            (("tables", "custom_versions", 0, 2), "2"),  # a version as text
            (("tables", "custom_versions"), {}),  # not a list
            (("tables", "object_versions"), [215, 1002]),  # not its five values
            (("tables", "undecided"), []),  # not a mapping
            (("tables", "source"), 7),  # not a string
            (("times",), []),  # a time fewer than the folders
        ],
        ids=[
            "version-as-text",
            "customs-not-a-list",
            "object-versions-short",
            "undecided-not-a-map",
            "source",
            "times",
        ],
    )
    def test_a_cache_with_wrong_types_is_not_trusted(
        self, tmp_path: Path, where: tuple[str | int, ...], value: object
    ) -> None:
        roots = self.roots(tmp_path / "engine")
        cache = tmp_path / "cache"
        first = cached_tables(roots, cache_folder=cache)
        (written,) = (cache / "tables").glob("*.json")
        document = json.loads(written.read_bytes())
        parent = document
        for key in where[:-1]:
            parent = parent[key]
        parent[where[-1]] = value
        written.write_text(json.dumps(document))
        assert cached_tables(roots, cache_folder=cache) == first
        assert json.loads(written.read_bytes()) != document  # read again from the sources and written anew

    def test_a_cache_that_cannot_be_written_costs_only_time(self, tmp_path: Path) -> None:
        roots = self.roots(tmp_path / "engine")
        blocked = tmp_path / "cache"
        blocked.write_text("a file where the cache folder would be")
        assert cached_tables(roots, cache_folder=blocked).custom_versions[STUDIO_GUID].version == 2


class TestEngineVersions:
    """``buildver engine --versions`` prints the tables packages are judged by here."""

    def test_it_prints_the_object_versions_and_each_registration(self, tmp_path: Path) -> None:
        root = studio_engine(tmp_path / "Studio")
        result = run_buildver(root, "engine", "--versions")
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [
            "engine: 5.1.1-0+++Studio+Main (this engine tree's Build.version)",
            f"tables: read from {root}",
            "object versions: UE4 215, UE5 1002, licensee 2, LegacyFileVersion -8 "
            "(Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h)",
            "custom versions: 2",
            f"  {STUDIO_GUID} StudioVer 2 [Core] Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp:4",
            f"  {WIND_GUID} WindVer 7 [WindRuntime (plugin Wind)] "
            "Engine/Plugins/Studio/Wind/Source/WindRuntime/Private/WindVersion.cpp:2",
        ]

    def test_json(self, tmp_path: Path) -> None:
        root = studio_engine(tmp_path / "Studio")
        result = run_buildver(root, "engine", "--versions", "--json")
        document = json.loads(result.stdout)
        assert document["source"] == f"read from {root}"
        assert document["object_versions"]["file_version_licensee"] == 2
        assert document["custom_versions"][0] == {
            "guid": STUDIO_GUID,
            "name": "StudioVer",
            "version": 2,
            "module": "Core",
            "where": "Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp:4",
        }
        assert document["engine"]["release"] == "5.1"

    def test_an_engine_without_sources_shows_its_releases_shipped_tables(self, tmp_path: Path) -> None:
        write(tmp_path, {"Engine/Build/Build.version": build_version(5, 1, 1, licensee=False)})
        (tmp_path / "Engine" / "Source").mkdir()
        result = run_buildver(tmp_path, "engine", "--versions")
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[1:4] == [
            "tables: release 5.1's shipped tables",
            "object versions: UE4 522, UE5 1008, licensee 0, LegacyFileVersion -8 (release 5.1's shipped table)",
            "custom versions: 58",
        ]

    def test_no_engine_is_one_line_on_stderr(self, tmp_path: Path) -> None:
        result = run_buildver(tmp_path, "engine", "--versions")
        assert result.returncode != 0
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert result.stderr.startswith("buildver: error: ")


class TestTheGuard:
    """The guard judges a staged package by the tables of the engine tree it is committed in."""

    def test_a_package_newer_than_the_trees_licensee_version_is_refused(self, tmp_path: Path) -> None:
        root = studio_engine(tmp_path / "Studio")
        environment = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
        environment |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

        def git(*arguments: str) -> None:
            subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True, env=environment)

        git("init", "--quiet")
        git("add", "--all")
        git("commit", "--quiet", "-m", "engine")
        write(root, {"Content/.keep": ""})
        (root / "Content" / "Ok.uasset").write_bytes(studio_package())
        (root / "Content" / "Newer.uasset").write_bytes(studio_package(licensee=3))
        git("add", "Content")
        # From a folder below the root: the engine's Build.version is still read from the repository's root.
        result = run_buildver(root / "Content", "guard")
        assert result.returncode == 1, result.stderr
        assert result.stdout.splitlines()[0] == (
            "Content/Newer.uasset: error[package-newer]: saved by a newer engine than 5.1.1-0+++Studio+Main: "
            "FileVersionLicenseeUE 3 is newer than this engine writes "
            f"(2, Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h; read from {root})"
        )
