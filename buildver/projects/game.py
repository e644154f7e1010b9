"""A game project's own versions, as ``show`` reports them: the project, its engine, and what Unreal's packaging
computes from the project's config files (``buildver.projects.game_version``) for that engine's release.

The Android rules depend on the UnrealBuildTool release, so the engine is found first (``buildver.projects.engine``);
its release comes from its Build.version, else from a launcher association (``5.3``). When neither is known, only
ProjectVersion is reported, with the reason; nothing is guessed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildver.errors import BuildverError
from buildver.file_names import find_project
from buildver.projects.engine import ProjectEngine, project_engine, read_registry_builds
from buildver.projects.game_version import (
    DEFAULT_GAME_INI,
    GameVersions,
    Sourced,
    load_game_versions,
    project_version,
    read_config_file,
)
from buildver.projects.lenient_version import parse_stock_engine_version
from buildver.reading import read_regular_file

__all__ = ["GAME_FIELD_NAMES", "GameProject", "read_game_project"]

GAME_FIELD_NAMES = (
    "ProjectVersion",
    "AndroidVersionCodeArmv7",
    "AndroidVersionCodeArm64",
    "AndroidVersionCodeX86",
    "AndroidVersionCodeX64",
    "AndroidVersionName",
    "IOSVersionInfo",
    "IOSBundleVersion",
)
"""Every name ``show`` may give a game's version (which ones a project has depends on its engine's release)."""


@dataclass(frozen=True, slots=True)
class GameProject:
    """A project, the engine it names (when found), and its own versions."""

    project: Path
    engine: ProjectEngine | None
    engine_release: tuple[int, int] | None
    """The UnrealBuildTool release whose packaging rules apply; None when it is not known."""
    engine_changelist: int | None
    project_version: Sourced[str]
    versions: GameVersions | None
    """Every platform's versions; None when the engine's release is not known (``note`` says why)."""
    note: str | None = None

    def fields(self) -> dict[str, Sourced[Any]]:
        """Every version under the name ``show`` uses for it (its JSON key and ``--field`` name)."""
        found: dict[str, Sourced[Any]] = {"ProjectVersion": self.project_version}
        if self.versions is not None:
            for arch, code in self.versions.android_version_codes.items():
                found[f"AndroidVersionCode{arch.value.capitalize()}"] = code
            found["AndroidVersionName"] = self.versions.android_version_name
            found["IOSVersionInfo"] = self.versions.ios.short_version
            if self.versions.ios.bundle_version.value is not None:
                found["IOSBundleVersion"] = self.versions.ios.bundle_version
        return found

    def lines(self) -> list[str]:
        """``show``'s text: the heading, then each version with the file and the rule it came from."""
        found = [self.describe()]
        for name, sourced in self.fields().items():
            found.append(f"  {name:<25}{sourced.value!s:<16}{sourced.source}: {sourced.rule}")
        return found

    def describe(self) -> str:
        """One line: the project, its engine and the rules its values follow."""
        if self.engine_release is None or self.versions is None:
            return f"{self.project.name}: the game's own versions ({self.note})"
        release = ".".join(map(str, self.engine_release))
        machine = "a build machine" if self.versions.build_machine else "not a build machine (IsBuildMachine)"
        rules = self.versions.android_rules.name
        return f"{self.project.name}: the game's own versions (Unreal {release}; {rules}; {machine})"


def read_game_project(
    start: Path,
    *,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    platform: str | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> GameProject | None:
    """The project at or above ``start`` and its own versions, or None outside a project."""
    project = find_project(start)
    if project is None:
        return None
    engine: ProjectEngine | None = None
    release: tuple[int, int] | None = None
    changelist: int | None = None
    note: str | None = None
    try:
        engine = project_engine(
            project, platform=platform or sys.platform, environ=environ, home=home, registry=registry
        )
    except BuildverError as exc:
        note = f"its engine is not found here: {str(exc).removeprefix(f'{project}: ')}"
    if engine is not None and engine.version_file.is_file():
        from buildver.versions.build_version import load_build_version

        try:
            record = load_build_version(engine.version_file).record
        except BuildverError as exc:  # the game's own versions are still worth showing
            note = f"its engine's Build.version cannot be read: {exc}"
        else:
            release, changelist = (record.major_version, record.minor_version), record.changelist
    elif engine is not None:
        note = f"its engine at {engine.root} has no Engine/Build/Build.version"
    if release is None:
        stock = parse_stock_engine_version(engine.association if engine is not None else _association(project))
        if stock is not None:  # a launcher version ("5.3") names the rules without the engine
            release, note = (stock.major, stock.minor), None
    game = read_config_file(project.parent, DEFAULT_GAME_INI)
    versions = None
    if release is not None:
        versions = load_game_versions(project.parent, engine=release, engine_changelist=changelist, environ=environ)
    elif note is None:  # pragma: no cover - a found engine always has a release or a note
        note = "its engine's release is not known"
    if versions is None and note is not None:
        note += "; Android and iOS values need the engine's release"
    version = versions.project_version if versions is not None else project_version(game)
    return GameProject(project, engine, release, changelist, version, versions, note)


def _association(project: Path) -> str:
    """The project's EngineAssociation as Unreal 5 reads it ("" when it names none)."""
    from buildver.projects.descriptor_json import read_object

    value = read_object(read_regular_file(project) or b"", str(project)).get("engineassociation")
    return value if isinstance(value, str) else ""
