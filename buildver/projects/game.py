"""A game project's own versions, as ``show`` reports them: the project, its engine, and what Unreal's packaging
computes from the project's config files (``buildver.projects.game_version``) for that engine's release.

The Android rules depend on the UnrealBuildTool release, so the engine comes first: the one
``buildver.projects.place`` chose for the game (its EngineAssociation resolved on this machine, the ``engine``
setting, or the release a launcher association names). When no release is known, only ProjectVersion is reported,
with the reason; nothing is guessed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from buildver.projects.game_version import (
    DEFAULT_GAME_INI,
    GameVersions,
    Sourced,
    load_game_versions,
    platform_project_versions,
    project_version,
    read_config_file,
)

if TYPE_CHECKING:
    from buildver.projects.place import PlaceEngine

__all__ = ["GAME_FIELD_NAMES", "GameProject", "read_game_project"]

GAME_FIELD_NAMES = (
    "ProjectVersion",
    "AndroidVersionCodeArmv7",
    "AndroidVersionCodeArm64",
    "AndroidVersionCodeX86",
    "AndroidVersionCodeX64",
    "AndroidVersionCodeBundle",
    "AndroidVersionName",
    "IOSVersionInfo",
    "IOSBundleVersion",
)
"""Every name ``show`` may give a game's version (which ones a project has depends on its engine's release), besides
``ProjectVersion<Platform>`` for each platform whose ``Config/<Platform>/<Platform>Game.ini`` sets ProjectVersion."""


@dataclass(frozen=True, slots=True)
class GameProject:
    """A project, the engine it names (when found), and its own versions."""

    project: Path
    engine: PlaceEngine
    """The engine the game's versions are computed for (``buildver.projects.place``)."""
    engine_release: tuple[int, int] | None
    """The UnrealBuildTool release whose packaging rules apply; None when it is not known."""
    engine_changelist: int | None
    project_version: Sourced[str]
    versions: GameVersions | None
    """Every platform's versions; None when the engine's release is not known (``note`` says why)."""
    note: str | None = None
    platform_project_versions: Mapping[str, Sourced[str]] = field(default_factory=dict)
    """ProjectVersion as the packaged game of each platform reads it, where ``Config/<Platform>/<Platform>Game.ini``
    sets it (``game_version.platform_project_versions``)."""

    def fields(self) -> dict[str, Sourced[Any]]:
        """Every version under the name ``show`` uses for it (its JSON key and ``--field`` name); a value of None
        is one Unreal computes but the config does not give, its rule says why."""
        found: dict[str, Sourced[Any]] = {"ProjectVersion": self.project_version}
        for platform, version in self.platform_project_versions.items():
            found[f"ProjectVersion{platform}"] = version
        if self.versions is not None:
            for arch, code in self.versions.android_version_codes.items():
                found[f"AndroidVersionCode{arch.value.capitalize()}"] = code
            if self.versions.android_bundle_version_code is not None:
                found["AndroidVersionCodeBundle"] = self.versions.android_bundle_version_code
            found["AndroidVersionName"] = self.versions.android_version_name
            found["IOSVersionInfo"] = self.versions.ios.short_version
            found["IOSBundleVersion"] = self.versions.ios.bundle_version
        return found

    def lines(self) -> list[str]:
        """``show``'s text: the heading, then each version with the file and the rule it came from."""
        found = [self.describe()]
        for name, sourced in self.fields().items():
            if sourced.value is None:
                found.append(f"  {name:<25}{'(not given)':<16}{sourced.rule}")
            else:
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


def read_game_project(project: Path, engine: PlaceEngine, *, environ: Mapping[str, str] = os.environ) -> GameProject:
    """The game's own versions of the ``.uproject`` at ``project``, for ``engine``'s release."""
    release = engine.release
    changelist = None if engine.version is None or engine.release_only else engine.version.changelist
    note = None
    if release is None:
        note = f"its engine is not known here ({engine.missing}); Android and iOS values need the engine's release"
    game = read_config_file(project.parent, DEFAULT_GAME_INI)
    versions = None
    if release is not None:
        versions = load_game_versions(project.parent, engine=release, engine_changelist=changelist, environ=environ)
    version = versions.project_version if versions is not None else project_version(game)
    platforms = platform_project_versions(project.parent, game)
    return GameProject(project, engine, release, changelist, version, versions, note, platforms)
