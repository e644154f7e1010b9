"""Small engine, plugin and game source trees for the version-table tests, written as studios write them.

The C++ here is written for the tests in the forms Unreal's own files use (an enum counted to its
``AUTOMATIC_VERSION``, a ``struct`` with ``const static FGuid GUID``, a registration in a ``.cpp``); the tests that
need Epic's real files take them from a public engine mirror (``test_tree_tables.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

OBJECT_VERSION_H = """\
#pragma once
// The UE5 enum first, as 5.x writes it.
enum class EUnrealEngineObjectUE5Version : uint32
{
	INITIAL_VERSION = 1000,
	NAMES_REFERENCED_FROM_EXPORT_DATA,
	PAYLOAD_TOC,
	AUTOMATIC_VERSION_PLUS_ONE,
	AUTOMATIC_VERSION = AUTOMATIC_VERSION_PLUS_ONE - 1
};

enum EUnrealEngineObjectUE4Version
{
	VER_UE4_OLDEST_LOADABLE_PACKAGE = 214,
	VER_UE4_BLUEPRINT_VARS_NOT_READ_ONLY,
#if 0
	VER_UE4_NEVER_COMPILED,
#endif
	VER_UE4_AUTOMATIC_VERSION_PLUS_ONE,
	VER_UE4_AUTOMATIC_VERSION = VER_UE4_AUTOMATIC_VERSION_PLUS_ONE - 1
};

enum EUnrealEngineObjectLicenseeUEVersion
{
	VER_LIC_NONE = 0,
	VER_LIC_STUDIO_LODS,
	VER_LIC_STUDIO_WIND,
	VER_LIC_AUTOMATIC_VERSION_PLUS_ONE,
	VER_LIC_AUTOMATIC_VERSION = VER_LIC_AUTOMATIC_VERSION_PLUS_ONE - 1
};
"""
"""UE5 1002, UE4 215, licensee 2, as the compiler counts them."""

PACKAGE_FILE_SUMMARY_CPP = """\
void FPackageFileSummary::Serialize()
{
	const int32 CurrentLegacyFileVersion = -8;
}
"""

STUDIO_GUID = "11111111-2222-2222-3333-333344444444"
STUDIO_VERSION_H = """\
#pragma once
struct CORE_API FStudioObjectVersion
{
	enum Type
	{
		BeforeCustomVersionWasAdded = 0,
		AddedLods,
		AddedWind,
		VersionPlusOne,
		LatestVersion = VersionPlusOne - 1
	};
	const static FGuid GUID;
};
"""
STUDIO_VERSION_CPP = """\
#include "UObject/StudioObjectVersion.h"

const FGuid FStudioObjectVersion::GUID(0x11111111, 0x22222222, 0x33333333, 0x44444444);
FCustomVersionRegistration GRegisterStudio(
	FStudioObjectVersion::GUID, FStudioObjectVersion::LatestVersion, TEXT("StudioVer"));
"""
"""Registers StudioVer at 2 (line 4)."""


def registration_cpp(guid: tuple[int, int, int, int], version: int, name: str) -> str:
    """A ``.cpp`` registering ``name`` at ``version`` from a file-local GUID (line 2)."""
    a, b, c, d = guid
    return (
        f"namespace {{ const FGuid LocalGuid(0x{a:08X}, 0x{b:08X}, 0x{c:08X}, 0x{d:08X}); }}\n"
        f'FCustomVersionRegistration GRegister{name.replace("-", "")}(LocalGuid, {version}, TEXT("{name}"));\n'
    )


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build_version(major: int, minor: int, patch: int, *, licensee: bool) -> str:
    return json.dumps(
        {
            "MajorVersion": major,
            "MinorVersion": minor,
            "PatchVersion": patch,
            "Changelist": 0,
            "CompatibleChangelist": 0,
            "IsLicenseeVersion": int(licensee),
            "IsPromotedBuild": 0,
            "BranchName": "++Studio+Main",
        },
        indent="\t",
    )


def studio_engine(root: Path) -> Path:
    """A licensee's engine tree: its own object-version enums, a custom version in Core, a plugin's, IsLicensee 1."""
    write(
        root,
        {
            "Engine/Build/Build.version": build_version(5, 1, 1, licensee=True),
            "Engine/Binaries/Win64/.keep": "",  # an engine's folder holds Engine/Binaries, as Unreal looks for it
            "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h": OBJECT_VERSION_H,
            "Engine/Source/Runtime/CoreUObject/Private/UObject/PackageFileSummary.cpp": PACKAGE_FILE_SUMMARY_CPP,
            "Engine/Source/Runtime/Core/Public/UObject/StudioObjectVersion.h": STUDIO_VERSION_H,
            "Engine/Source/Runtime/Core/Private/UObject/StudioObjectVersion.cpp": STUDIO_VERSION_CPP,
            "Engine/Source/Runtime/Engine/Private/Unrelated.cpp": "int32 Unrelated() { return 1; }\n",
            # Never part of the editor that loads packages: left out, as Unreal's build of the editor leaves it.
            "Engine/Source/ThirdParty/Lib/Private/Lib.cpp": registration_cpp((9, 9, 9, 9), 4, "ThirdPartyVer"),
            "Engine/Source/Programs/Tool/Private/Tool.cpp": registration_cpp((8, 8, 8, 8), 4, "ProgramVer"),
            "Engine/Plugins/Studio/Wind/Wind.uplugin": '{"FileVersion": 3}',
            "Engine/Plugins/Studio/Wind/Source/WindRuntime/Private/WindVersion.cpp": registration_cpp(
                (0xAAAA0001, 0, 0, 1), 7, "WindVer"
            ),
        },
    )
    return root


def studio_game(root: Path, *, extra_plugins: str = "../SharedPlugins") -> Path:
    """A game beside the engine: a module and a plugin that register, and a plugin folder outside the project."""
    project = root / "Game" / "Game.uproject"
    write(
        root,
        {
            "Game/Game.uproject": json.dumps(
                {"FileVersion": 3, "EngineAssociation": "", "AdditionalPluginDirectories": [extra_plugins]}
            ),
            "Game/Source/Game/Private/GameSave.cpp": registration_cpp((0xBBBB0001, 0, 0, 2), 3, "GameSaveVer"),
            "Game/Plugins/Quests/Quests.uplugin": '{"FileVersion": 3}',
            "Game/Plugins/Quests/Source/Quests/Private/Quests.cpp": registration_cpp(
                (0xBBBB0002, 0, 0, 3), 5, "QuestVer"
            ),
            "SharedPlugins/Tools/Tools.uplugin": '{"FileVersion": 3}',
            "SharedPlugins/Tools/Source/ToolsModule/Private/Tools.cpp": registration_cpp(
                (0xBBBB0003, 0, 0, 4), 9, "ToolsVer"
            ),
        },
    )
    return project
