"""The Build.version in use, the one every command and the Python API read, and what Unreal derives from it.

One decision in one place: ``--file`` (``file``), else the configuration's ``version-file``, else the first
``Build/Build.version`` or ``Engine/Build/Build.version`` found from the current folder up to the repository root.

The engine *in use* (in a game, the engine its ``.uproject`` names, never the game's own Build.version) is
``buildver.projects.place``'s decision: ``buildver.current_engine_version()``.
"""

from __future__ import annotations

import os
from pathlib import Path

from buildver.errors import VersionFileError
from buildver.versions.build_version import VersionFile, find_build_version, load_build_version
from buildver.versions.config import Config, load_config

__all__ = [
    "backslash_advice",
    "load_version_file",
    "version_file_path",
]


def version_file_path(
    file: str | os.PathLike[str] | None = None, *, config: Config | None = None, start: Path | None = None
) -> Path:
    """The Build.version to use: ``file``, else ``config``'s ``version-file`` (the settings found from ``start``
    when ``config`` is None), else the one found from ``start`` (default: the current folder).

    A ``file`` that is missing because it is written with backslashes where they are not separators is a
    VersionFileError that says so; finding none is a NoVersionFileError.
    """
    if file is not None:
        path = Path(file)
        advice = backslash_advice(path)
        if advice is not None:
            raise VersionFileError(f"{path}: the version file is missing ({advice})")
        return path
    if config is None:
        config = load_config(start)
    if config.version_file is not None:
        return config.version_file
    return find_build_version(start)


def backslash_advice(path: Path) -> str | None:
    """Why ``path`` is not found when it holds backslashes that this system does not take for separators
    (``Engine\\Build\\Build.version`` on Linux or macOS names one file in the current folder), with the path written
    with ``/`` when that one exists; None when that is not the case."""
    text = str(path)
    if os.sep == "\\" or os.altsep == "\\" or "\\" not in text or os.path.lexists(text):
        return None
    forward = Path(text.replace("\\", "/"))
    advice = "a backslash is not a path separator on this system"
    return f"{advice}; use {forward}" if forward.exists() else f"{advice}: write the path with /"


def load_version_file(
    file: str | os.PathLike[str] | None = None, *, config: Config | None = None, start: Path | None = None
) -> VersionFile:
    """Read and validate the Build.version ``version_file_path`` chooses."""
    return load_build_version(version_file_path(file, config=config, start=start))
