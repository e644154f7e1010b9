"""A game's own versions stamped by ``update-local``: ProjectVersion in ``Config/DefaultGame.ini`` and Android's
StoreVersion in ``Config/DefaultEngine.ini``, from templates over the new Build.version's numbers.

Only when the configuration asks (``project-version``, ``android-store-version``); planned as file changes that
the same all-or-nothing write as Build.version applies. The ini files are edited in place
(``buildver.projects.unreal_ini``): every byte but the value keeps its place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from buildver.changes import FileChange, read_existing
from buildver.errors import ConfigError
from buildver.file_names import find_project
from buildver.projects.game_version import (
    ANDROID_SETTINGS,
    DEFAULT_ENGINE_INI,
    DEFAULT_GAME_INI,
    GOOGLE_PLAY_MAX_VERSION_CODE,
    PROJECT_SETTINGS,
    Sourced,
    project_version,
    project_version_order,
    set_project_version,
    set_store_version,
    store_version,
)
from buildver.projects.unreal_ini import IniDocument, IniError, IniReader, parse_ini

if TYPE_CHECKING:
    from buildver.versions.build_version import BuildVersion
    from buildver.versions.config import Config

__all__ = ["GameFileChange", "plan_game_files"]


class GameFileChange(NamedTuple):
    """One planned edit of a game's config file, and the line ``update-local`` prints for it."""

    change: FileChange
    summary: str


def plan_game_files(version_path: Path, record: BuildVersion, config: Config) -> list[GameFileChange]:
    """The edits the configuration asks for, of the project at or above the Build.version's folder."""
    templates = [
        ("project-version", config.project_version, DEFAULT_GAME_INI, PROJECT_SETTINGS, "ProjectVersion"),
        ("android-store-version", config.android_store_version, DEFAULT_ENGINE_INI, ANDROID_SETTINGS, "StoreVersion"),
    ]
    wanted = [entry for entry in templates if entry[1] is not None]
    if not wanted:
        return []
    project = find_project(Path(os.path.abspath(version_path)).parent)
    if project is None:
        raise ConfigError(
            f"{config.source}: {wanted[0][0]} is set, but there is no .uproject at or above {version_path.parent}"
        )
    values = {
        "Major": record.major_version,
        "Minor": record.minor_version,
        "Patch": record.patch_version,
        "Changelist": record.changelist,
        "CompatibleChangelist": record.effective_compatible_changelist,
    }
    planned = []
    for setting, template, relative, section, key in wanted:
        assert template is not None
        path = project.parent / relative
        old = read_existing(path)
        text = template.format_map(values)
        shown = str(path)
        if key == "StoreVersion":
            if not (text.isascii() and text.isdigit()):
                raise ConfigError(f"{config.source}: {setting} {template!r} gives {text!r}, not a whole number")
            new = set_store_version(old or b"", int(text), shown)
            if int(text) > GOOGLE_PLAY_MAX_VERSION_CODE:  # pragma: no cover - set_store_version refuses it first
                raise ConfigError(f"{shown}: StoreVersion {text} is above Google Play's limit")
        else:
            new = set_project_version(old or b"", text, shown)
        documents = () if old is None else (parse_ini(old, shown),)
        reader = IniReader.UBT if key == "StoreVersion" else IniReader.ENGINE
        before = documents[0].get(section, key, reader=reader) if documents else None
        was = _current(key, documents)
        if _goes_backwards(key, was, text):
            raise ConfigError(
                f"{shown}: {key} would go backwards, {was} -> {text} ({setting} {template!r}); stores refuse a "
                "version that does not grow: change the template, or the file's value by hand"
            )
        summary = (
            f"{shown}: {key} {before!r} -> {text!r} ({setting})"
            if before is not None
            else (f"{shown}: {key} {text!r} ({setting})")
        )
        planned.append(GameFileChange(FileChange(path, old, new), summary))
    return planned


def _current(key: str, documents: tuple[IniDocument, ...]) -> str:
    """The value Unreal reads now, as ``show`` reads it: StoreVersion by UnrealBuildTool's ``Int32.TryParse``
    (BaseEngine.ini's 1 when unset), ProjectVersion as :func:`project_version_numbers` (BaseGame.ini's 1.0.0.0 when
    unset). A value that cannot be read is refused, naming its line: it cannot be compared, so it is not replaced."""
    try:
        if key == "StoreVersion":
            return str(store_version(documents).value)
        found = project_version(documents)
        project_version_order(found)
        return found.value
    except IniError as exc:
        raise IniError(f"{exc}: update-local does not replace a value it cannot compare; correct it by hand") from exc


def _goes_backwards(key: str, before: str, after: str) -> bool:
    """Whether ``after`` is lower than ``before``, both as :func:`_current` reads them (StoreVersion as a number,
    ProjectVersion as Unreal's packaging and the guard order it)."""
    if key == "StoreVersion":
        return int(after) < int(before)
    return project_version_order(Sourced(after, key)) < project_version_order(Sourced(before, key))
