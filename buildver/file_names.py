"""What Unreal's files are called: the one place that knows the names and suffixes the commands look for, and the
one search for a project's ``.uproject`` (here, in the plumbing, because ``show`` asks at every run and this module
costs nothing to import)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "MANIFEST_SUFFIX",
    "PACKAGE_EXTENSIONS",
    "PLUGIN_SUFFIX",
    "PROJECT_SUFFIX",
    "VERSION_FILE_NAME",
    "files_in",
    "find_project",
]

VERSION_FILE_NAME = "Build.version"
PACKAGE_EXTENSIONS = (".uasset", ".umap")
MANIFEST_SUFFIX = ".modules"
PLUGIN_SUFFIX = ".uplugin"
PROJECT_SUFFIX = ".uproject"


def find_project(start: Path) -> Path | None:
    """The ``.uproject`` at ``start``, in it, or in the nearest folder above it that has one (the first by name if
    several).

    A folder that cannot be listed (permissions, too many open files) is an error, not "no project here": the
    answer decides the engine every command judges by and the names of a generated header.
    """
    folder = Path(os.path.abspath(start))
    if folder.is_file():
        if folder.name.lower().endswith(PROJECT_SUFFIX):
            return folder
        folder = folder.parent  # a plugin or a package: its project is above it
    for candidate in (folder, *folder.parents):
        projects = sorted(entry for entry in files_in(candidate) if entry.name.lower().endswith(PROJECT_SUFFIX))
        if projects:
            return projects[0]
    return None


def files_in(folder: Path) -> list[Path]:
    """The regular files (or links to them) in ``folder``; none when it does not exist; ProjectSearchError when it
    cannot be listed."""
    from buildver.errors import ProjectSearchError

    try:
        with os.scandir(folder) as entries:
            return [Path(entry.path) for entry in entries if _is_file(entry)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise ProjectSearchError(
            f"{folder}: cannot list the folder to look for a .uproject or .uplugin ({exc.strerror or exc})"
        ) from None


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:  # a link to a folder this user cannot search: not a project's file
        return False
