"""The Build.version in use, the one every command and the Python API read, and what Unreal derives from it.

One decision in one place: ``--file`` (``file``), else the configuration's ``version-file``, else the first
``Build/Build.version`` or ``Engine/Build/Build.version`` found from the current folder up to the repository root.

>>> current_engine_version()          # doctest: +SKIP
EngineVersion('5.3.2-0+++UE5+Release-5.3')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.versions.build_version import VersionFile, find_build_version, load_build_version
from buildver.versions.config import Config, load_config

if TYPE_CHECKING:
    from buildver.versions.engine_version import EngineVersion

__all__ = ["compatible_engine_version", "current_engine_version", "load_version_file", "version_file_path"]


def version_file_path(
    file: str | os.PathLike[str] | None = None, *, config: Config | None = None, start: Path | None = None
) -> Path:
    """The Build.version to use: ``file``, else ``config``'s ``version-file`` (the settings found from ``start``
    when ``config`` is None), else the one found from ``start`` (default: the current folder)."""
    if file is not None:
        return Path(file)
    if config is None:
        config = load_config(start)
    if config.version_file is not None:
        return config.version_file
    return find_build_version(start)


def load_version_file(
    file: str | os.PathLike[str] | None = None, *, config: Config | None = None, start: Path | None = None
) -> VersionFile:
    """Read and validate the Build.version ``version_file_path`` chooses."""
    return load_build_version(version_file_path(file, config=config, start=start))


def current_engine_version(file: str | os.PathLike[str] | None = None) -> EngineVersion:
    """FEngineVersion::Current() of the Build.version in use (or of ``file``)."""
    return load_version_file(file).record.engine_version


def compatible_engine_version(file: str | os.PathLike[str] | None = None) -> EngineVersion:
    """FEngineVersion::CompatibleWith() of the Build.version in use: the oldest version this build can load."""
    return load_version_file(file).record.compatible_engine_version
