"""The only module that talks to git: changelist and branch of a repository, through GitPython.

GitPython costs about 130 ms to import and runs ``git`` at import time, so it is imported only inside the
functions here, and only when a command actually needs a value from the repository.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildver.errors import SourceError

__all__ = ["RepositoryState", "find_repository_root", "read_repository"]


@dataclass(frozen=True, slots=True)
class RepositoryState:
    """What update-local needs from a git repository."""

    root: Path
    commit_count: int
    """The number of commits reachable from HEAD: buildver's changelist for git."""
    branch: str | None
    """The checked-out branch, or None for a detached HEAD."""
    remote_name: str | None
    """The repository's name from its ``origin`` URL (``git@host:studio/Game.git`` → ``Game``), if any."""


def find_repository_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a file for worktrees)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def read_repository(start: Path) -> RepositoryState | None:
    """The state of the git repository holding ``start``, or None outside a repository."""
    root = find_repository_root(start.resolve())
    if root is None:
        return None
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        import git
    except ImportError as exc:  # pragma: no cover - git itself missing from the machine
        raise SourceError(f"{root}: cannot read the git repository: {exc}") from exc
    try:
        repository = git.Repo(root)
        commit_count = _commit_count(repository)
        branch = None if repository.head.is_detached else repository.active_branch.name
        remote_name = _remote_name(repository)
    except (git.GitError, ValueError, OSError) as exc:
        message = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise SourceError(f"{root}: cannot read the git repository ({message})") from exc
    return RepositoryState(root, commit_count, branch, remote_name)


def _commit_count(repository: Any) -> int:
    if not repository.head.is_valid():
        return 0  # a repository without commits yet
    if (Path(repository.git_dir) / "shallow").exists():
        # CI checkouts are often shallow (actions/checkout fetches one commit): the count would be wrong.
        raise SourceError(
            f"{repository.working_tree_dir}: the clone is shallow, so its commit count is not a changelist; "
            "fetch the whole history (actions/checkout: fetch-depth: 0) or pass --cl N"
        )
    # rev-list --count walks the commit graph in C: about 0.1 s for 100,000 commits.
    return int(repository.git.rev_list("--count", "HEAD"))


def _remote_name(repository: Any) -> str | None:
    try:
        url = repository.remotes.origin.url
    except (AttributeError, IndexError):
        return None
    name = str(url).rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name.removesuffix(".git")
    return name or None
