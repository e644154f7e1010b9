"""The only module that talks to git: changelist and branch of a repository, through GitPython.

GitPython costs about 130 ms to import and runs ``git`` at import time, so it is imported only inside the
functions here, and only when a command actually needs a value from the repository.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from buildver.errors import SourceError

__all__ = ["RepositoryState", "find_repository_root", "read_repository"]

T = TypeVar("T")


class RepositoryState:
    """A git repository, read lazily: each value runs git only when it is first asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @functools.cached_property
    def _repository(self) -> Any:
        os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
        import git

        return self._read(lambda: git.Repo(self.root))

    def _read(self, reader: Callable[[], T]) -> T:
        import git

        try:
            return reader()
        except (git.GitError, ValueError, OSError) as exc:
            text = str(exc).strip()
            message = text.splitlines()[-1] if text else type(exc).__name__
            raise SourceError(f"{self.root}: cannot read the git repository ({message})") from exc

    @functools.cached_property
    def commit_count(self) -> int:
        """The number of commits reachable from HEAD: buildver's changelist for git."""
        return self._read(lambda: _commit_count(self._repository))

    @functools.cached_property
    def branch(self) -> str | None:
        """The checked-out branch, or None for a detached HEAD."""
        repository = self._repository
        return self._read(lambda: None if repository.head.is_detached else repository.active_branch.name)

    @functools.cached_property
    def remote_name(self) -> str | None:
        """The repository's name from its ``origin`` URL (``git@host:studio/Game.git`` → ``Game``), if any."""
        return self._read(lambda: _remote_name(self._repository))


def find_repository_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a file for worktrees)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def read_repository(start: Path) -> RepositoryState | None:
    """The git repository holding ``start`` (nothing is read yet), or None outside a repository."""
    root = find_repository_root(start.resolve())
    return None if root is None else RepositoryState(root)


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
