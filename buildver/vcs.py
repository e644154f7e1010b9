"""The only module that talks to git: changelist and branch of a repository, through GitPython.

GitPython costs about 130 ms to import and runs ``git`` at import time, so it is imported only inside the
functions here, and only when a command actually needs a value from the repository.
"""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from buildver.errors import SourceError

__all__ = [
    "RepositoryState",
    "find_repository_root",
    "git_failure",
    "read_repository",
    "repository_writes",
    "require_readable",
]

T = TypeVar("T")

_CACHES_WRITABLE: ContextVar[bool] = ContextVar("buildver_git_caches_writable", default=True)


@contextlib.contextmanager
def repository_writes(*, allowed: bool) -> Iterator[None]:
    """Within this block, whether buildver may write into a repository: git's commit-graph cache is its only write.

    A run that must write nothing (``--dry-run``) passes ``allowed=False``: its commits are then counted the slow
    way, and the repository is left exactly as it was.
    """
    token = _CACHES_WRITABLE.set(allowed)
    try:
        yield
    finally:
        _CACHES_WRITABLE.reset(token)


class RepositoryState:
    """A git repository, read lazily: each value runs git only when it is first asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _read(self, reader: Callable[[Any], T]) -> T:
        """Open the repository, read one value, and close it again.

        GitPython keeps ``git cat-file`` processes running for a Repo until it is closed; closing after each
        read leaves no process or pipe behind.
        """
        os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
        import git

        try:
            repository = git.Repo(self.root)
        except (git.GitError, ValueError, OSError) as exc:
            raise self._error(exc) from exc
        try:
            return reader(repository)
        except (git.GitError, ValueError, OSError) as exc:
            raise self._error(exc) from exc
        finally:
            repository.close()

    def _error(self, exc: Exception) -> SourceError:
        if isinstance(exc, SourceError):
            return exc
        stderr = getattr(exc, "stderr", None)
        text = stderr if isinstance(stderr, str) and stderr.strip() else str(exc)
        # GitPython quotes git's stderr ("stderr: 'fatal: ...'"): take the lines as git wrote them.
        if "stderr: '" in text:
            text = text.split("stderr: '", 1)[1].removesuffix("'")
        return SourceError(f"{self.root}: cannot read the git repository ({git_failure(text, type(exc).__name__)})")

    @functools.cached_property
    def commit_count(self) -> int:
        """The number of commits reachable from HEAD: buildver's changelist for git."""
        return self._read(_commit_count)

    @functools.cached_property
    def branch(self) -> str | None:
        """The checked-out branch, or None for a detached HEAD."""
        return self._read(_branch)

    @functools.cached_property
    def remote_name(self) -> str | None:
        """The repository's name from its ``origin`` URL (``git@host:studio/Game.git`` → ``Game``), if any."""
        return self._read(_remote_name)


def git_failure(stderr: str, fallback: str) -> str:
    """Why git failed, in one line: its ``fatal:`` (or ``error:``) line, and the ``safe.directory`` to add when it
    refuses a repository another user owns; ``fallback`` when git said nothing."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    reason = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[-1] if lines else "")
    message = reason.removeprefix("fatal:").removeprefix("error:").strip()
    advice = next((line for line in lines if line.startswith("git config --global --add safe.directory")), None)
    if advice is not None:
        message += f"; if you trust it: {advice}"
    return message or fallback


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


def _head_ref(repository: Any) -> str | None:
    """The ref HEAD names (``refs/heads/main``), or None when it is detached.

    Asked of git itself, never read from ``.git/HEAD``: git refuses a repository another user owns ("dubious
    ownership") and a HEAD it cannot parse, and what git refuses must fail the run, not become a changelist of 0
    or a branch made up from a file.
    """
    import git

    try:
        return str(repository.git.symbolic_ref("-q", "HEAD"))
    except git.GitCommandError as exc:
        if exc.status == 1:  # not a symbolic ref: a detached HEAD
            return None
        raise


def _branch(repository: Any) -> str | None:
    ref = _head_ref(repository)
    return None if ref is None else ref.removeprefix("refs/heads/")


def _commit_count(repository: Any) -> int:
    import git

    head = _head_ref(repository)
    try:
        repository.git.rev_parse("--verify", "-q", "HEAD")
    except git.GitCommandError as exc:
        if exc.status == 1 and head is not None:
            return 0  # an unborn branch: a repository without commits yet
        raise
    # common_dir, not git_dir: a linked worktree of a shallow clone keeps the shallow file in the main .git.
    if (Path(repository.common_dir) / "shallow").exists():
        # CI checkouts are often shallow (actions/checkout fetches one commit): the count would be wrong.
        raise SourceError(
            f"{repository.working_tree_dir}: the clone is shallow, so its commit count is not a changelist; "
            "fetch the whole history (actions/checkout: fetch-depth: 0) or pass --cl N"
        )
    _ensure_commit_graph(repository)
    return int(repository.git.rev_list("--count", "HEAD"))


def _ensure_commit_graph(repository: Any) -> None:
    """Write git's commit-graph once when the repository has none, so that counting commits stays fast.

    Without it, ``rev-list --count`` inflates every commit object: 0.59 s for 100,000 commits on this project's
    benchmark machine, against 0.09 s with it. It is the cache ``git gc`` and ``git maintenance`` write; a
    repository where it cannot be written (a read-only mirror) is simply counted the slow way.
    """
    if not _CACHES_WRITABLE.get():
        return  # a dry run writes nothing, not even this cache
    info = Path(repository.common_dir) / "objects" / "info"
    if (info / "commit-graph").exists() or (info / "commit-graphs" / "commit-graph-chain").exists():
        return
    import git

    with contextlib.suppress(git.GitError, OSError):
        repository.git.commit_graph("write", "--reachable", "--split")


def _remote_name(repository: Any) -> str | None:
    try:
        url = repository.remotes.origin.url
    except (AttributeError, IndexError):
        return None
    name = str(url).rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name.removesuffix(".git")
    return name or None


# -- the staged snapshot, for ``buildver guard`` ----------------------------------------------------------------
# The guard runs on every commit, so these functions run git plumbing through subprocess instead of GitPython:
# importing GitPython alone costs about 8x ``python -c pass``, more than half the guard's whole budget, and one
# ``git cat-file --batch`` process reads any number of blobs. Git honours GIT_INDEX_FILE, so a ``git commit -a``
# or ``git commit PATH`` (which commit a temporary index) is judged on the index it commits.


def _run_git(root: Path, *arguments: str) -> bytes:
    import subprocess

    try:
        result = subprocess.run(["git", *arguments], cwd=root, capture_output=True, check=False)
    except OSError as exc:
        raise SourceError(f"{root}: cannot run git ({exc.strerror or exc})") from exc
    if result.returncode != 0:
        message = git_failure(
            result.stderr.decode("utf-8", "replace"), f"git {arguments[0]} exited with {result.returncode}"
        )
        raise SourceError(f"{root}: cannot read the git repository ({message})")
    return result.stdout


def require_readable(root: Path) -> None:
    """SourceError unless git itself accepts the repository at ``root``: it refuses one another user owns (its
    "dubious ownership"), and then ``git diff --cached`` would run outside any repository instead."""
    _run_git(root, "rev-parse", "--git-dir")


def staged_paths(root: Path) -> list[str]:
    """The repository-relative paths of the files added or modified in the index (what the next commit changes)."""
    # --no-renames: a renamed file is judged as the file it becomes; on a first commit git diffs the empty tree.
    output = _run_git(root, "diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=d")
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def index_paths_under(root: Path, folders: list[str]) -> list[str]:
    """The repository-relative paths in the index under ``folders`` (repository-relative, ``""`` for the root)."""
    if not folders:
        return []
    pathspecs = [f":(literal){folder}/" if folder else ":(literal)." for folder in folders]
    output = _run_git(root, "ls-files", "-z", "--", *pathspecs)
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def read_blobs(root: Path, specs: list[str]) -> Iterator[tuple[str, bytes | None]]:
    """``(spec, contents)`` for each ``:path`` (staged) or ``REV:path`` in order; None when there is no such blob.

    One ``git cat-file --batch`` process serves every spec; blobs are yielded one at a time, so memory holds one.
    A spec containing a newline cannot be asked for and is reported missing.
    """
    import contextlib
    import subprocess
    import threading

    if not specs:
        return
    try:
        process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise SourceError(f"{root}: cannot run git ({exc.strerror or exc})") from exc
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    asked = [spec for spec in specs if "\n" not in spec]
    request = "".join(f"{spec}\n" for spec in asked).encode("utf-8", "surrogateescape")

    def feed() -> None:
        # A thread writes the requests while this one reads the answers: writing them all first could fill
        # both pipes and leave git and buildver each waiting for the other.
        with contextlib.suppress(OSError):  # git exited early: reading its output reports the problem
            stdin.write(request)
        with contextlib.suppress(OSError):
            stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        answers = iter(asked)
        for spec in specs:
            if "\n" in spec:
                yield spec, None
                continue
            next(answers)
            line = stdout.readline()
            if not line:
                raise SourceError(f"{root}: git cat-file stopped before answering for {spec!r}")
            fields = line.split()
            if len(fields) == 3 and fields[1] in (b"blob", b"tree", b"commit", b"tag"):
                data = stdout.read(int(fields[2]))
                stdout.read(1)  # the newline after every object
                yield spec, data if fields[1] == b"blob" else None
            else:
                yield spec, None  # "<spec> missing" or "ambiguous"
    finally:
        stdout.close()
        process.wait()
        writer.join()


def git_common_dir(root: Path) -> Path:
    """The folder holding the repository's shared data (``.git``, also for a linked worktree)."""
    output = _run_git(root, "rev-parse", "--git-common-dir").decode("utf-8", "surrogateescape").strip()
    return (root / output).resolve()


def unstaged_paths(root: Path, paths: list[str]) -> set[str]:
    """Those of ``paths`` whose working-tree file is not the staged one: modified or deleted since, or not staged.

    For the others the working-tree file holds the staged content as the checkout shows it (after Git LFS and other
    filters), so a reader can read just the part it needs instead of the whole blob.
    """
    wanted = set(paths)
    # One pathspec per folder, not per file: git matches every pathspec against every path (1,000 files cost
    # 50 ms as files, 10 ms as their folders). Files at the root are named, so that the whole tree is not walked.
    scopes = sorted({posixpath.dirname(path) + "/" if "/" in path else path for path in paths})
    changed: set[str] = set()
    for start in range(0, len(scopes), 1000):  # keeps the command line short whatever the number of folders
        pathspecs = [f":(literal){scope}" for scope in scopes[start : start + 1000]]
        output = _run_git(
            root, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--ignored", "--", *pathspecs
        )
        # Each entry is "XY path": Y is the working tree against the index ("?" untracked, "!" ignored).
        for entry in output.split(b"\0"):
            path = os.fsdecode(entry[3:])
            if entry[1:2] != b" " and path in wanted:
                changed.add(path)
    return changed
