"""What several test modules share: git run with a throwaway identity, and the type of the repository fixture.

Test modules import these from here, never from ``conftest`` (which pytest loads by itself, as a plugin).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = ["GIT_IDENTITY", "GitRepository", "git"]

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Build Machine",
    "GIT_AUTHOR_EMAIL": "build@example.com",
    "GIT_COMMITTER_NAME": "Build Machine",
    "GIT_COMMITTER_EMAIL": "build@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *arguments: str) -> str:
    """Run git in ``cwd`` and return its output (the test fails when git does)."""
    result = subprocess.run(
        ["git", *arguments], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_IDENTITY}
    )
    return result.stdout.strip()


GitRepository = Callable[..., Path]
