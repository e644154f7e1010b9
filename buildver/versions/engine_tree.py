"""Whether a Build.version is an engine tree's: ``<root>/Engine/Build/Build.version`` beside ``Engine/Source/``.

update-local follows the engine's own UAT rules there, and ``project check`` finds the engine's plugins from it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["engine_root"]


def engine_root(version_path: Path) -> Path | None:
    """The engine root when ``version_path`` is ``<root>/Engine/Build/Build.version`` beside ``Engine/Source/``."""
    build_folder = Path(os.path.abspath(version_path)).parent
    engine = build_folder.parent
    # Windows and macOS checkouts may differ in case: compare names as the file system would match them.
    if build_folder.name.lower() != "build" or engine.name.lower() != "engine":
        return None
    return engine.parent if (engine / "Source").is_dir() else None
