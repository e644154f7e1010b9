"""The user's cache folder for buildver: crash reports, and the version tables read from engine trees.

``$XDG_CACHE_HOME/buildver`` (else ``~/.cache/buildver``); ``~/Library/Caches/buildver`` on macOS;
``%LOCALAPPDATA%\\buildver`` on Windows. Never inside a repository: nothing there is committed or read by git.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_cache_folder"]


def user_cache_folder() -> Path:
    """buildver's folder in the user's cache folder (it may not exist yet)."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # the XDG specification: a relative path is invalid, and ignored
            base = str(Path.home() / ".cache")
    return Path(base) / "buildver"
