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
    "find_project",
]

VERSION_FILE_NAME = "Build.version"
PACKAGE_EXTENSIONS = (".uasset", ".umap")
MANIFEST_SUFFIX = ".modules"
PLUGIN_SUFFIX = ".uplugin"
PROJECT_SUFFIX = ".uproject"


def find_project(start: Path) -> Path | None:
    """The ``.uproject`` at ``start``, in it, or in the nearest folder above it that has one (the first by name if
    several)."""
    folder = Path(os.path.abspath(start))
    if folder.is_file():
        if folder.name.lower().endswith(PROJECT_SUFFIX):
            return folder
        folder = folder.parent  # a plugin or a package: its project is above it
    for candidate in (folder, *folder.parents):
        try:
            projects = sorted(
                entry
                for entry in candidate.iterdir()
                if entry.name.lower().endswith(PROJECT_SUFFIX) and entry.is_file()
            )
        except OSError:
            continue
        if projects:
            return projects[0]
    return None
