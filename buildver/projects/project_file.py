"""Which project a folder belongs to: the ``.uproject`` at or above it.

Its own small module because ``show`` asks at every run, and only a folder in a project pays for reading one.
"""

from __future__ import annotations

import os
from pathlib import Path

from buildver.file_names import PROJECT_SUFFIX

__all__ = ["find_project"]


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
