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
    ANDROID_ENGINE_INI,
    ANDROID_SETTINGS,
    DEFAULT_ENGINE_INI,
    DEFAULT_GAME_INI,
    PROJECT_SETTINGS,
    Sourced,
    platform_game_inis,
    project_version,
    project_version_order,
    set_project_version,
    set_store_version,
    store_version,
)
from buildver.projects.unreal_ini import IniDocument, IniError, IniReader, effective_value, parse_ini

if TYPE_CHECKING:
    from buildver.versions.build_version import BuildVersion
    from buildver.versions.config import Config

__all__ = ["GameFileChange", "plan_game_files"]


class GameFileChange(NamedTuple):
    """One planned edit of a game's config file, and the line ``update-local`` prints for it."""

    change: FileChange
    summary: str


def plan_game_files(
    version_path: Path, record: BuildVersion, config: Config, *, allow_backwards: bool = False
) -> list[GameFileChange]:
    """The edits the configuration asks for, of the project at or above the Build.version's folder; a value that
    would go backwards is a ConfigError unless ``allow_backwards`` (``bump --allow-backwards``)."""
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
        text = template.format_map(values)
        if key == "StoreVersion" and not (text.isascii() and text.isdigit()):
            raise ConfigError(f"{config.source}: {setting} {template!r} gives {text!r}, not a whole number")
        chains = _chains(project.parent, relative)
        planned += _plan_layers(project.parent, chains, section, key, text, setting, template, allow_backwards)
    return planned


def _chains(project_dir: Path, relative: str) -> list[tuple[str, ...]]:
    """The files each reader layers for one value, in order: StoreVersion is read by UnrealBuildTool from
    DefaultEngine.ini then ``Config/Android/AndroidEngine.ini``; ProjectVersion by the engine from DefaultGame.ini,
    and by the packaged game of each platform from DefaultGame.ini then ``Config/<Platform>/<Platform>Game.ini``."""
    if relative == DEFAULT_ENGINE_INI:
        return [(DEFAULT_ENGINE_INI, ANDROID_ENGINE_INI)]
    return [(DEFAULT_GAME_INI,), *((DEFAULT_GAME_INI, layer) for layer in platform_game_inis(project_dir))]


def _plan_layers(
    project_dir: Path,
    chains: list[tuple[str, ...]],
    section: str,
    key: str,
    text: str,
    setting: str,
    template: str,
    allow_backwards: bool = False,
) -> list[GameFileChange]:
    """Stamp ``key`` in the layer that decides it in every chain (the last file that sets it; the first file when
    none does), never backwards in any chain, and refuse when a chain would still read another value."""
    reader = IniReader.UBT if key == "StoreVersion" else IniReader.ENGINE
    relatives = list(dict.fromkeys(relative for chain in chains for relative in chain))
    old = {relative: read_existing(project_dir / relative) for relative in relatives}
    parsed = {
        relative: parse_ini(data, str(project_dir / relative)) for relative, data in old.items() if data is not None
    }
    targets: list[str] = []
    current: list[tuple[str, str]] = []
    for chain in chains:
        documents = [parsed[relative] for relative in chain if relative in parsed]
        found = effective_value(documents, section, key, reader=reader)
        target = chain[0] if found is None else _relative_of(found.path, project_dir, chain)
        current.append((target, _current(key, tuple(documents))))
        if target not in targets:
            targets.append(target)
    new: dict[str, bytes] = {}
    for target in targets:
        shown = str(project_dir / target)
        data = old[target] or b""
        if key == "StoreVersion":
            new[target] = set_store_version(data, int(text), shown)
        else:
            new[target] = set_project_version(data, text, shown)
    for target, was in current:
        if not allow_backwards and _goes_backwards(key, was, text):
            raise ConfigError(
                f"{project_dir / target}: {key} would go backwards, {was} -> {text} ({setting} {template!r}); stores "
                "refuse a version that does not grow: change the template, or the file's value by hand"
            )
    for chain in chains:
        documents = [
            parse_ini(new[relative], str(project_dir / relative)) if relative in new else parsed[relative]
            for relative in chain
            if relative in new or relative in parsed
        ]
        found = effective_value(documents, section, key, reader=reader)
        if found is None or found.value != text:
            where = "nothing" if found is None else f"{found.value!r} ({found.path}: line {found.line})"
            raise ConfigError(
                f"{project_dir / chain[-1]}: {key} would still read {where} after stamping {text!r} ({setting}): "
                "the layers' lines do not let one value decide; set it by hand"
            )
    planned = []
    for target in targets:
        shown = str(project_dir / target)
        before = parsed[target].get(section, key, reader=reader) if target in parsed else None
        summary = (
            f"{shown}: {key} {before!r} -> {text!r} ({setting})"
            if before is not None
            else f"{shown}: {key} {text!r} ({setting})"
        )
        planned.append(GameFileChange(FileChange(project_dir / target, old[target], new[target]), summary))
    return planned


def _relative_of(path: str, project_dir: Path, chain: tuple[str, ...]) -> str:
    """The chain's file a reader's value came from (values carry the path they were parsed with)."""
    for relative in chain:
        if path == str(project_dir / relative):
            return relative
    raise AssertionError(path)  # pragma: no cover - every document of the chain was parsed with its path


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
