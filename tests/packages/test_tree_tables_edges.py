"""The edges of the version tables: releases buildver has no table of, a game that registers one of the engine's
GUIDs differently, a tree whose ObjectVersion.h buildver cannot count, and roots with nothing in common."""

from __future__ import annotations

from pathlib import Path

from tree_builder import registration_cpp, write

from buildver.packages.tree_tables import SourceRoot, read_tables, shipped_tables, with_registrations


def test_a_release_without_any_table_has_no_shipped_tables() -> None:
    assert shipped_tables(3, 9) is None
    assert shipped_tables(5, 1) is not None


def test_a_game_that_registers_an_engine_guid_differently_leaves_that_guid_undecided(tmp_path: Path) -> None:
    release = shipped_tables(5, 1)
    assert release is not None
    guid, engine_entry = next(iter(release.custom_versions.items()))
    digits = guid.replace("-", "")
    numbers = tuple(int(digits[index : index + 8], 16) for index in range(0, 32, 8))
    write(
        tmp_path,
        {"Game/Source/Game/Private/Clash.cpp": registration_cpp(numbers, engine_entry.version + 50, "ClashVer")},  # type: ignore[arg-type]
    )
    read = read_tables([SourceRoot(tmp_path / "Game", "game")])
    combined = with_registrations(release, read)
    assert guid not in combined.custom_versions  # neither registration is trusted
    assert combined.undecided[guid].startswith(f"{guid} is registered differently: {engine_entry.name} ")
    assert f"ClashVer {engine_entry.version + 50} at " in combined.undecided[guid]


def test_an_object_version_header_buildver_cannot_count_gives_no_object_versions(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h": (
                "enum EUnrealEngineObjectUE4Version { VER_UE4_OLDEST = GetOldest(), VER_UE4_AUTOMATIC_VERSION };\n"
            )
        },
    )
    assert read_tables([SourceRoot(tmp_path, "engine")]).object_versions is None


def test_no_roots_read_nothing() -> None:
    tables = read_tables([])
    assert (tables.object_versions, tables.custom_versions, tables.problems) == (None, {}, ())
