"""Version tables read from source trees: object versions as the compiler counts them, every registration, no guess."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tree_builder import (
    OBJECT_VERSION_H,
    STUDIO_GUID,
    registration_cpp,
    studio_engine,
    studio_game,
    write,
)

from buildver.packages.custom_version_tables import CUSTOM_VERSION_TABLES
from buildver.packages.tree_tables import SourceRoot, list_tree, module_of, read_tables

WIND_GUID = "AAAA0001-0000-0000-0000-000000000001"
GAME_GUID = "BBBB0001-0000-0000-0000-000000000002"
QUEST_GUID = "BBBB0002-0000-0000-0000-000000000003"
TOOLS_GUID = "BBBB0003-0000-0000-0000-000000000004"

MIRROR = Path("/work/.mirror/elmachotroso+unreal_devtoolbox/repo")
"""A public mirror of Epic's engine: 5.0.3 (1c24a3df066f) and 5.1.1 (9d0f90ca733f); the real-file tests skip without."""
MIRROR_51 = "9d0f90ca733f"


class TestObjectVersions:
    """ObjectVersion.h's enums are counted as the compiler counts them, the licensee's entries too."""

    def test_a_licensee_engines_object_versions(self, tmp_path: Path) -> None:
        tables = read_tables([SourceRoot(studio_engine(tmp_path), "engine")])
        limits = tables.object_versions
        assert limits is not None
        # UE5: 1000 + 2 entries; UE4: 214 + 1 (the #if 0 entry is not compiled); licensee: 2 entries after NONE.
        assert (limits.file_version_ue5, limits.file_version_ue4, limits.file_version_licensee) == (1002, 215, 2)
        assert limits.legacy_file_version == -8
        assert limits.where == "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h"

    def test_without_package_file_summary_the_legacy_version_is_not_known(self, tmp_path: Path) -> None:
        write(tmp_path, {"Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h": OBJECT_VERSION_H})
        limits = read_tables([SourceRoot(tmp_path, "engine")]).object_versions
        assert limits is not None
        assert limits.legacy_file_version is None

    def test_a_tree_without_object_version_h_has_no_object_versions(self, tmp_path: Path) -> None:
        write(tmp_path, {"Engine/Source/Runtime/Core/Private/A.cpp": registration_cpp((1, 2, 3, 4), 1, "A")})
        assert read_tables([SourceRoot(tmp_path, "engine")]).object_versions is None


class TestCustomVersions:
    """Every registration of the engine, its plugins and the game, with the module that registers it."""

    def test_engine_and_plugin_registrations_name_their_module(self, tmp_path: Path) -> None:
        tables = read_tables([SourceRoot(studio_engine(tmp_path), "engine")])
        studio = tables.custom_versions[STUDIO_GUID]
        assert (studio.name, studio.version, studio.module) == ("StudioVer", 2, "Core")
        assert studio.where == "Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp:4"
        wind = tables.custom_versions[WIND_GUID]
        assert (wind.name, wind.version, wind.module) == ("WindVer", 7, "WindRuntime (plugin Wind)")
        assert set(tables.custom_versions) == {STUDIO_GUID, WIND_GUID}  # not ThirdParty's, not Programs'
        assert not tables.problems
        assert not tables.undecided

    def test_the_game_its_plugins_and_additional_plugin_directories(self, tmp_path: Path) -> None:
        studio_engine(tmp_path)
        studio_game(tmp_path)
        roots = [
            SourceRoot(tmp_path, "engine"),
            SourceRoot(tmp_path / "Game", "game"),
            SourceRoot(tmp_path / "SharedPlugins", "plugins"),
        ]
        tables = read_tables(roots)
        found = {guid: (entry.name, entry.version, entry.module) for guid, entry in tables.custom_versions.items()}
        assert found == {
            STUDIO_GUID: ("StudioVer", 2, "Core"),
            WIND_GUID: ("WindVer", 7, "WindRuntime (plugin Wind)"),
            GAME_GUID: ("GameSaveVer", 3, "Game"),
            QUEST_GUID: ("QuestVer", 5, "Quests (plugin Quests)"),
            TOOLS_GUID: ("ToolsVer", 9, "ToolsModule (plugin Tools)"),
        }
        assert tables.custom_versions[TOOLS_GUID].where == "SharedPlugins/Tools/Source/ToolsModule/Private/Tools.cpp:2"
        assert not tables.problems
        assert not tables.undecided

    def test_a_guid_registered_twice_differently_is_undecided_and_named(self, tmp_path: Path) -> None:
        studio_engine(tmp_path)
        write(
            tmp_path,
            {"Engine/Plugins/Studio/Wind2/Wind2.uplugin": "{}"}
            | {
                "Engine/Plugins/Studio/Wind2/Source/Wind2/Private/W.cpp": registration_cpp(
                    (0xAAAA0001, 0, 0, 1), 8, "WindVer"
                )
            },
        )
        tables = read_tables([SourceRoot(tmp_path, "engine")])
        assert WIND_GUID not in tables.custom_versions
        why = tables.undecided[WIND_GUID]
        assert "WindVer 7 at Engine/Plugins/Studio/Wind/" in why
        assert "WindVer 8 at Engine/Plugins/Studio/Wind2/" in why

    def test_a_registration_that_cannot_be_resolved_is_named_and_nothing_guessed(self, tmp_path: Path) -> None:
        write(
            tmp_path,
            {
                "Engine/Source/Runtime/Core/Private/A.cpp": (
                    'FCustomVersionRegistration GRegisterA(FNowhere::GUID, 1, TEXT("A"));\n'
                ),
                "Engine/Source/Runtime/Core/Private/B.cpp": (
                    "const FGuid BGuid(1, 2, 3, 4);\n"
                    'FCustomVersionRegistration GRegisterB(BGuid, FNowhere::LatestVersion, TEXT("B"));\n'
                ),
            },
        )
        tables = read_tables([SourceRoot(tmp_path, "engine")])
        assert tables.custom_versions == {}
        assert tables.problems == (
            "Engine/Source/Runtime/Core/Private/A.cpp:1: cannot resolve the registration's GUID "
            "(GUID FNowhere::GUID: 0 definitions)",
        )
        assert list(tables.undecided) == ["00000001-0000-0002-0000-000300000004"]
        assert "FNowhere::LatestVersion" in tables.undecided["00000001-0000-0002-0000-000300000004"]

    def test_only_files_that_can_register_and_what_they_include_are_read(self, tmp_path: Path) -> None:
        tables = read_tables([SourceRoot(studio_engine(tmp_path), "engine")])
        read = {Path(path).relative_to(tmp_path).as_posix() for path in tables.read_files}
        assert "Engine/Source/Runtime/Engine/Private/Unrelated.cpp" not in read
        assert "Engine/Source/Runtime/Core/Public/UObject/StudioObjectVersion.h" in read  # included, names the GUID
        assert "Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp" in read

    def test_the_listing_skips_third_party_programs_and_plugin_content(self, tmp_path: Path) -> None:
        studio_engine(tmp_path)
        write(tmp_path, {"Engine/Plugins/Studio/Wind/Intermediate/Build/Wind.gen.h": "FCustomVersionRegistration"})
        listed = {
            Path(path).relative_to(tmp_path).as_posix() for path in list_tree([SourceRoot(tmp_path, "engine")]).files
        }
        assert not any("ThirdParty" in path or "Programs" in path or "Intermediate" in path for path in listed)


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("Engine/Source/Runtime/Core/Private/UObject/DevObjectVersion.cpp", "Core"),
        ("Engine/Source/Editor/UnrealEd/Private/Editor.cpp", "UnrealEd"),
        ("Engine/Plugins/Animation/IKRig/Source/IKRig/Private/IKRig.cpp", "IKRig (plugin IKRig)"),
        ("Game/Source/Game/Private/GameSave.cpp", "Game"),
        ("Game/Plugins/Quests/Source/Quests/Quests.cpp", "Quests (plugin Quests)"),
    ],
)
def test_the_module_of_a_source_file(path: str, module: str) -> None:
    assert module_of(path) == module


def _git_show(commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(MIRROR), "show", f"{commit}:{path}"], capture_output=True, check=True
    ).stdout


def _mirror_files(commit: str, folders: tuple[str, ...]) -> list[str]:
    listing = subprocess.run(
        ["git", "-C", str(MIRROR), "ls-tree", "-r", "--name-only", commit, "--", *folders],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in listing.splitlines() if line.endswith((".h", ".cpp", ".inl"))]


def studio_fork_of_epic(root: Path) -> Path:
    """A licensee's fork of Epic's 5.1.1, made as a studio makes it, from Epic's real files (a public mirror):
    Core's UObject folder and PackageFileSummary.cpp as Epic wrote them, two licensee enum entries added to
    ObjectVersion.h, a custom version added to Core, and IsLicenseeVersion 1."""
    folders = ("Engine/Source/Runtime/Core/Public/UObject", "Engine/Source/Runtime/Core/Private/UObject")
    paths = [
        *_mirror_files(MIRROR_51, folders),
        "Engine/Source/Runtime/CoreUObject/Private/UObject/PackageFileSummary.cpp",
    ]
    for path in [*paths, "Engine/Build/Build.version"]:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git_show(MIRROR_51, path))
    header = root / "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h"
    text = header.read_text(encoding="utf-8")
    assert "\tVER_LIC_NONE = 0,\n" in text
    header.write_text(
        text.replace("\tVER_LIC_NONE = 0,\n", "\tVER_LIC_NONE = 0,\n\tVER_LIC_STUDIO_LODS,\n\tVER_LIC_STUDIO_WIND,\n"),
        encoding="utf-8",
    )
    from tree_builder import STUDIO_VERSION_CPP, STUDIO_VERSION_H

    write(
        root,
        {
            "Engine/Source/Runtime/Core/Public/UObject/StudioObjectVersion.h": STUDIO_VERSION_H,
            "Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp": STUDIO_VERSION_CPP,
        },
    )
    version = root / "Engine/Build/Build.version"
    version.write_text(version.read_text(encoding="utf-8").replace('"IsLicenseeVersion": 0', '"IsLicenseeVersion": 1'))
    return root


needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no public engine mirror at {MIRROR}")


@needs_mirror
class TestAFork:
    """A licensee's fork made from Epic's real 5.1.1 files: its tables are Epic's plus what the studio added."""

    def test_object_versions_are_epics_plus_the_licensees(self, tmp_path: Path) -> None:
        limits = read_tables([SourceRoot(studio_fork_of_epic(tmp_path), "engine")]).object_versions
        assert limits is not None
        # 5.1 writes UE4 522 and UE5 1008 (docs/package-rules.md §8); the studio's two licensee entries.
        assert (limits.file_version_ue4, limits.file_version_ue5, limits.file_version_licensee) == (522, 1008, 2)
        assert limits.legacy_file_version == -8

    def test_custom_versions_are_epics_plus_the_studios(self, tmp_path: Path) -> None:
        tables = read_tables([SourceRoot(studio_fork_of_epic(tmp_path), "engine")])
        epic = CUSTOM_VERSION_TABLES[5, 1]
        read = {guid: (entry.name, entry.version) for guid, entry in tables.custom_versions.items()}
        assert read.pop(STUDIO_GUID) == ("StudioVer", 2)
        assert len(read) >= 20  # DevObjectVersion.cpp's registrations of Core's custom versions
        assert all(epic[guid] == value for guid, value in read.items())
        assert not tables.problems
        assert not tables.undecided
