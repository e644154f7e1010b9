"""The only module that talks to git: the changelist and branch of a repository, and the guard's staged snapshot.

Every git command runs through :func:`_run_git` or :func:`read_blobs`, as a subprocess of its own with a time
limit (:func:`git_timeout`, ``BUILDVER_GIT_TIMEOUT``): a FIFO or a stalled network file system under ``.git``
makes git itself wait forever, and a pre-commit hook or a build step that never ends is worse than one that fails.
Before the first command on a repository, the few files git reads first (``.git``, ``HEAD``, ``config``,
``index``, ``packed-refs``, ``commondir``) are checked to be regular files, so the usual case, a FIFO planted as
``.git/HEAD``, is one clear line at once instead of a wait for the limit.

buildver never writes into a repository: not even git's commit-graph cache (see :func:`_commit_count`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import posixpath
import stat
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from buildver.errors import SourceError, UsageError

if TYPE_CHECKING:
    import subprocess

__all__ = [
    "DEFAULT_GIT_TIMEOUT",
    "GIT_TIMEOUT_VARIABLE",
    "Blob",
    "GitEntry",
    "IgnoreRule",
    "LastChange",
    "RepositoryState",
    "find_repository_root",
    "git_failure",
    "git_timeout",
    "ignore_rules",
    "index_entries",
    "read_blobs",
    "read_repository",
    "staged_changes",
]

GIT_TIMEOUT_VARIABLE = "BUILDVER_GIT_TIMEOUT"
"""The environment variable that sets the time limit of every git command buildver runs, in seconds."""
DEFAULT_GIT_TIMEOUT = 120.0
"""Seconds: far above what any command buildver runs takes (counting 200,000 commits without git's
commit-graph takes 0.6 s; ``git status`` over a checkout of a million files, a few seconds)."""
_LONGEST_GIT_TIMEOUT = 24 * 3600.0


def git_timeout() -> float:
    """The time limit of each git command, in seconds: ``$BUILDVER_GIT_TIMEOUT``, or :data:`DEFAULT_GIT_TIMEOUT`."""
    text = os.environ.get(GIT_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_GIT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= _LONGEST_GIT_TIMEOUT:  # also refuses nan and inf
        raise UsageError(
            f"{GIT_TIMEOUT_VARIABLE}={text!r}: not a number of seconds above 0 and at most {_LONGEST_GIT_TIMEOUT:g}"
        )
    return value


class RepositoryState:
    """A git repository, read lazily: each value runs git only when it is first asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @functools.cached_property
    def commit_count(self) -> int:
        """The number of commits reachable from HEAD: buildver's changelist for git."""
        return _commit_count(self.root)

    @functools.cached_property
    def branch(self) -> str | None:
        """The checked-out branch, or None for a detached HEAD."""
        ref = _head_ref(self.root)
        return None if ref is None else ref.removeprefix("refs/heads/")

    def last_change(self, accept: Callable[[str], bool], *, shallow_advice: str) -> LastChange | None:
        """The newest commit on HEAD's first-parent line that changed a path ``accept`` accepts, and its changelist
        in :attr:`commit_count`'s numbering; None when no commit did.

        The first-parent line is the branch's own history: a merge counts as one change of what it brought in,
        against the branch it was merged into, whatever dates the merged commits carry (a commit from the merged
        side is not on the line, and the code it brought differs from the line's before the merge). Its
        changelist is the number of commits reachable from it: what :attr:`commit_count` would be with it
        checked out. A shallow clone is refused (``shallow_advice`` says what else to do): its history is cut.
        """
        if not _has_full_history(self.root, "the last change cannot be found or counted", shallow_advice):
            return None
        found = _newest_change(self.root, accept)
        if found is None:
            return None
        commit, path = found
        # Its ancestors are HEAD's minus those it cannot reach: a short walk when the change is recent.
        newer = int(_run_git(self.root, "rev-list", "--count", f"{commit}..HEAD")[1])
        return LastChange(commit, path, self.commit_count - newer)

    @functools.cached_property
    def remote_name(self) -> str | None:
        """The repository's name from its ``origin`` URL (``git@host:studio/Game.git`` → ``Game``), if any."""
        code, output = _run_git(self.root, "config", "--get", "remote.origin.url", allowed=(0, 1))
        url = output.decode("utf-8", "surrogateescape").strip()
        if code != 0 or not url:
            return None
        name = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        return name.removesuffix(".git") or None


class LastChange(NamedTuple):
    """A commit found by :meth:`RepositoryState.last_change`: its hash, the path that made it count, and its
    changelist (the number of commits reachable from it)."""

    commit: str
    path: str
    changelist: int


def _newest_change(root: Path, accept: Callable[[str], bool]) -> tuple[str, str] | None:
    """``(commit, path)``: the newest commit on HEAD's first-parent line whose change against its first parent
    names a path ``accept`` accepts; None when none does.

    One ``git log`` walks the line, newest first, and lists the paths each commit changed (a deleted file and both
    names of a renamed one included, as Perforce lists them); buildver reads as git writes and stops git at the
    first path it accepts, so a recent change costs a few commits' diffs, not the history's. No pathspec narrows
    the walk: git would match every pathspec against every name of every tree it compares, not only the changed
    ones, and 17 globs (``**/*.cpp``...) over a folder of 1,000 assets took 61 s of CPU for 10,000 commits, where
    listing every changed path took 0.8 s. The whole walk is under the time limit of every git command.
    """
    import subprocess
    import tempfile

    limit = git_timeout()
    _require_plain_git_files(root)
    command = [
        *("git", "log", "--first-parent", "-m", "--root", "--no-renames", "--no-ext-diff", "--no-color"),
        *("--no-show-signature", "--format=%x00%H", "--name-only", "-z", "HEAD", "--"),
    ]
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: git can never block on what it says there
        try:
            process = subprocess.Popen(
                command,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=_NEW_SESSION,
            )
        except OSError as exc:
            raise SourceError(f"{root}: cannot run git ({exc.strerror or exc})") from exc
        assert process.stdout is not None
        watchdog = _Watchdog(process, limit)
        watchdog.arm()
        found: tuple[str, str] | None = None
        try:
            found = _first_accepted(process.stdout, accept)
        finally:
            watchdog.close()
            if found is not None:
                _stop(process)  # the rest of the walk is not needed; git only reads, so a kill is safe
            process.stdout.close()
            try:
                process.wait(limit)
            except subprocess.TimeoutExpired:
                _stop(process)
                process.wait()
        if found is not None:
            return found
        if watchdog.fired:
            raise _timed_out(root, "log", limit)
        if process.returncode != 0:
            errors.seek(0)
            message = git_failure(errors.read().decode("utf-8", "replace"), f"git log exited with {process.returncode}")
            raise SourceError(f"{root}: cannot read the git repository ({message})")
    return None


def _first_accepted(stream: IO[bytes], accept: Callable[[str], bool]) -> tuple[str, str] | None:
    """The first ``(commit, path)`` with an accepted path in ``git log --format=%x00%H --name-only -z`` output.

    Each commit is a NUL, its hash, a NUL, then its paths, each ended by a NUL, the first one after a newline.
    A path is never empty, so an empty field is always the start of a commit.
    """
    pending = b""
    commit: str | None = None
    expect_commit = first_path = False
    while chunk := stream.read1(1 << 16):  # type: ignore[attr-defined]  # a BufferedReader's
        *fields, pending = (pending + chunk).split(b"\0")
        for field in fields:
            if not field:
                expect_commit = True
            elif expect_commit:
                commit = field.decode("ascii")
                expect_commit, first_path = False, True
            elif commit is not None:
                path = os.fsdecode(field[1:] if first_path and field.startswith(b"\n") else field)
                first_path = False
                if accept(path):
                    return commit, path
    return None


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


class IgnoreRule(NamedTuple):
    """The rule that makes git ignore a path (``git check-ignore -v``), and the exception that would keep it."""

    source: str  # the file holding the rule: a .gitignore (relative to the repository), .git/info/exclude, ...
    line: str
    pattern: str
    exception: str  # the ``!`` line that keeps the path, as the rule's own file names it

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.pattern}"


def _exception(root: Path, source: str, relative: str) -> str:
    """The ``!`` pattern that re-includes ``relative`` (a path from the repository's root) when written in
    ``source``: a ``.gitignore`` names paths from its own folder; ``.git/info/exclude`` and the user's excludes file
    name them from the repository's root (gitignore(5))."""
    folder = posixpath.dirname(source)
    if posixpath.basename(source) == ".gitignore" and not posixpath.isabs(source) and folder not in ("", "."):
        relative = posixpath.relpath(relative, folder)
    return f"!/{relative}"


def ignore_rules(paths: Iterable[Path]) -> dict[Path, IgnoreRule]:
    """The rule that makes git ignore each of ``paths`` that ``git add`` would refuse (``git check-ignore -v``);
    paths git keeps, tracked files and paths outside any repository are left out.

    The paths need not exist (``init`` asks before it creates them). Each is asked of the repository that holds it.
    """
    by_root: dict[Path, dict[str, Path]] = {}
    for path in paths:
        absolute = Path(os.path.abspath(path))
        root = find_repository_root(absolute.parent)
        if root is None:
            continue  # outside git nothing is ignored
        relative = os.path.relpath(absolute, root)
        if relative.startswith(os.pardir):
            continue
        by_root.setdefault(root, {})[Path(relative).as_posix()] = path
    rules: dict[Path, IgnoreRule] = {}
    for root, wanted in by_root.items():
        given = b"".join(os.fsencode(name) + b"\0" for name in wanted)
        output = _run_git(root, "check-ignore", "-v", "-z", "--stdin", allowed=(0, 1), given=given)[1]
        # Each answer is "<source> NUL <line> NUL <pattern> NUL <path> NUL"; a negated pattern ("!Build/*/") that
        # matched last means the path is kept.
        fields = output.split(b"\0")
        for index in range(0, len(fields) - 3, 4):
            source, line, pattern, name = (os.fsdecode(field) for field in fields[index : index + 4])
            if name in wanted and not pattern.startswith("!"):
                source = Path(source).as_posix()
                rules[wanted[name]] = IgnoreRule(source, line, pattern, _exception(root, source, name))
    return rules


def read_repository(start: Path) -> RepositoryState | None:
    """The git repository holding ``start`` (nothing is read yet), or None outside a repository."""
    root = find_repository_root(start.resolve())
    return None if root is None else RepositoryState(root)


def _head_ref(root: Path) -> str | None:
    """The ref HEAD names (``refs/heads/main``), or None when it is detached.

    Asked of git itself, never read from ``.git/HEAD``: git refuses a repository another user owns ("dubious
    ownership") and a HEAD it cannot parse, and what git refuses must fail the run, not become a changelist of 0
    or a branch made up from a file.
    """
    code, output = _run_git(root, "symbolic-ref", "-q", "HEAD", allowed=(0, 1))
    return None if code == 1 else output.decode("utf-8", "surrogateescape").strip()  # 1: a detached HEAD


def _commit_count(root: Path) -> int:
    """The number of commits reachable from HEAD, counted by ``git rev-list --count``.

    Counting is fast when git's commit-graph exists (``git gc``, ``git maintenance`` and ``git commit-graph
    write`` make it): 0.09 s for 200,000 commits on this project's benchmark machine, against 0.64 s without.
    buildver used to write the graph when it was missing, but a run killed during that write leaves git's
    ``commit-graph-chain.lock`` behind, and git's own ``commit-graph write`` then fails until someone removes it;
    writing it also costs 0.97 s on a fresh clone (a CI checkout), which counts once. So buildver only reads.
    """
    if not _has_full_history(root, "its commit count is not a changelist", "pass --cl N"):
        return 0  # an unborn branch: a repository without commits yet
    return int(_run_git(root, "rev-list", "--count", "HEAD")[1])


def _has_full_history(root: Path, what_is_wrong: str, advice: str) -> bool:
    """Whether HEAD names a commit (False: an unborn branch, no commit yet); a SourceError when the history is cut
    (a shallow clone: ``what_is_wrong`` then, and ``advice``) or HEAD names nothing git can read."""
    head = _head_ref(root)
    code, output = _run_git(root, "rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD", allowed=(0, 1))
    if code == 1:
        if head is not None:
            return False
        raise SourceError(f"{root}: cannot read the git repository (HEAD names no commit)")
    if output.split(b"\n", 1)[0].strip() == b"true":
        # CI checkouts are often shallow (actions/checkout fetches one commit): counts would be wrong.
        raise SourceError(
            f"{root}: the clone is shallow, so {what_is_wrong}; "
            f"fetch the whole history (actions/checkout: fetch-depth: 0) or {advice}"
        )
    return True


# -- running git, never waiting forever ---------------------------------------------------------------------------

_GIT_FILES = ("HEAD", "config", "index", "packed-refs", "commondir")
"""Files git opens in a repository's git folder before anything else; a FIFO among them makes git wait forever."""


def _require_regular(path: Path) -> bool:
    """Whether ``path`` exists, refusing (SourceError) anything but a regular file or a folder there."""
    from buildver.reading import file_kind

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing, or a dangling link: git says what is wrong with it
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return True
    raise SourceError(f"{path}: not a regular file but {file_kind(mode)}, which git would wait on forever")


def _git_folders(root: Path) -> list[Path]:
    """The repository's git folder, and its common folder for a linked worktree, as far as plain files tell."""
    from buildver.reading import read_regular_file

    dot_git = root / os.environ.get("GIT_DIR", ".git")  # git hooks may name the git folder so
    if not _require_regular(dot_git):
        return []
    folders = [dot_git]
    if dot_git.is_file():  # a linked worktree or a submodule: "gitdir: <path>"
        try:
            text = (read_regular_file(dot_git) or b"")[:4096].decode("utf-8", "surrogateescape")
        except OSError:
            return []
        if not text.startswith("gitdir:"):
            return []
        folders = [root / text.removeprefix("gitdir:").strip()]
    commondir = folders[0] / "commondir"
    if _require_regular(commondir) and commondir.is_file():
        with contextlib.suppress(OSError):
            text = (read_regular_file(commondir) or b"")[:4096].decode("utf-8", "surrogateescape").strip()
            folders.append(folders[0] / text)
    return folders


def _require_plain_git_files(root: Path) -> None:
    """SourceError when one of the files git reads first in ``root``'s repository is a FIFO, socket or device."""
    for folder in _git_folders(root):
        for name in _GIT_FILES:
            _require_regular(folder / name)
    index = os.environ.get("GIT_INDEX_FILE")  # ``git commit -a`` and ``git commit PATH`` run hooks on their own
    if index:
        _require_regular(root / index)


_NEW_SESSION = os.name == "posix"
"""git runs in a process group of its own on POSIX, so that a time limit stops its children too (its filters);
Windows has no process groups to kill, and ignores the flag."""


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill git and whatever it started, for good."""
    if _NEW_SESSION:
        import signal

        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()


def _timed_out(root: Path, command: str, limit: float) -> SourceError:
    return SourceError(
        f"{root}: git {command} did not finish within {limit:g} s and was stopped (a FIFO or a stalled file "
        f"system in the repository?); to wait longer, set {GIT_TIMEOUT_VARIABLE}"
    )


def _run_git(root: Path, *arguments: str, allowed: tuple[int, ...] = (0,), given: bytes = b"") -> tuple[int, bytes]:
    """``(exit code, stdout)`` of git run in ``root`` within the time limit; SourceError when it fails otherwise."""
    import subprocess

    limit = git_timeout()
    _require_plain_git_files(root)
    try:
        process = subprocess.Popen(
            ["git", *arguments],
            cwd=root,
            stdin=subprocess.PIPE if given else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=_NEW_SESSION,
        )
    except OSError as exc:
        raise SourceError(f"{root}: cannot run git ({exc.strerror or exc})") from exc
    try:
        stdout, stderr = process.communicate(given or None, timeout=limit)
    except subprocess.TimeoutExpired:
        _stop(process)
        process.communicate()
        raise _timed_out(root, arguments[0], limit) from None
    except BaseException:  # KeyboardInterrupt: git must not outlive buildver
        _stop(process)
        process.wait()
        raise
    if process.returncode not in allowed:
        message = git_failure(stderr.decode("utf-8", "replace"), f"git {arguments[0]} exited with {process.returncode}")
        raise SourceError(f"{root}: cannot read the git repository ({message})")
    return process.returncode, stdout


# -- the staged snapshot, for ``buildver guard`` ----------------------------------------------------------------
# The guard runs on every commit, so these functions run git plumbing directly: one ``git cat-file --batch``
# process reads any number of blobs. Git honours GIT_INDEX_FILE, so a ``git commit -a`` or ``git commit PATH``
# (which commit a temporary index) is judged on the index it commits. Blobs are named by their object ids, taken
# from ``git ls-files --stage -z`` and ``git diff --cached --raw -z``: never as ``:path`` or ``HEAD:path``, which
# git parses (``:1:Build.version`` is stage 1 of ``Build.version``, not the file ``1:/Build.version``) and which
# cannot hold a newline. Every path is read NUL-terminated (``-z``) and matched literally (``:(literal)``).


# NamedTuples rather than dataclasses: update-local --dry-run imports this module to name its diff's files, and
# importing dataclasses costs it 0.5-0.6 ms.
class GitEntry(NamedTuple):
    """A file as git stores it in the index or a tree: its mode (``0o100644``, ``0o120000`` a symbolic link,
    ``0o160000`` a submodule) and its object id."""

    mode: int
    oid: str

    @property
    def is_file(self) -> bool:
        """A regular file (executable or not): its blob is the file's content."""
        return self.mode & 0o170000 == 0o100000

    @property
    def kind(self) -> str:
        """What the entry is, for a message: "a symbolic link", "a submodule", "a file"."""
        kinds = {0o120000: "a symbolic link", 0o160000: "a submodule", 0o040000: "a folder"}
        return kinds.get(self.mode & 0o170000, "a file")


class Blob(NamedTuple):
    """A blob as read: its size, and its content (whole, or only its first and last bytes as asked)."""

    size: int
    data: bytes
    """The whole content, or its first ``head`` bytes when it is longer than ``head + tail``; empty when skipped."""
    tail: bytes
    """Its last ``tail`` bytes (``b""`` when no tail was asked for)."""
    skipped: bool = False
    """Larger than its limit: not a byte of it was read."""


def staged_changes(root: Path, paths: Iterable[str] | None = None) -> dict[str, tuple[GitEntry, GitEntry | None]]:
    """The files the index adds or modifies against HEAD (what the next commit changes), each with its index entry
    and HEAD's (None for a new file); with ``paths``, only those of them.

    One ``git diff --cached --raw -z`` gives both sides' modes and object ids; on a first commit git diffs the empty
    tree. ``--no-renames``: a renamed file is judged as the file it becomes.
    """
    wanted = None if paths is None else set(paths)
    scopes = [[]] if wanted is None else list(_scoped_pathspecs(wanted))
    changes: dict[str, tuple[GitEntry, GitEntry | None]] = {}
    for pathspecs in scopes:
        arguments = ["--", *pathspecs] if pathspecs else []
        output = _run_git(
            root,
            *("diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-ext-diff", "--diff-filter=d"),
            *arguments,
        )[1]
        # Each change is ":<old mode> <new mode> <old id> <new id> <status>" then the path, NUL-terminated.
        records = output.split(b"\0")
        for info, name in zip(records[0::2], records[1::2], strict=False):
            fields = info.lstrip(b":").split(b" ")
            path = os.fsdecode(name)
            if len(fields) != 5 or (wanted is not None and path not in wanted):
                continue
            old_mode, new_mode = int(fields[0], 8), int(fields[1], 8)
            if new_mode:  # 0: an unmerged path, which git will not commit
                head = GitEntry(old_mode, fields[2].decode("ascii")) if old_mode else None
                changes[path] = (GitEntry(new_mode, fields[3].decode("ascii")), head)
    return changes


def index_paths_under(root: Path, folders: list[str]) -> list[str]:
    """The repository-relative paths in the index under ``folders`` (repository-relative, ``""`` for the root)."""
    if not folders:
        return []
    pathspecs = [f":(literal){folder}/" if folder else ":(literal)." for folder in folders]
    output = _run_git(root, "ls-files", "-z", "--", *pathspecs)[1]
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def index_paths_ending(root: Path, suffix: str) -> list[str]:
    """The repository-relative paths in the index whose names end with ``suffix`` (any case), in any folder."""
    output = _run_git(root, "ls-files", "-z", "--", f":(glob,icase)**/*{suffix}")[1]
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def _scoped_pathspecs(paths: Iterable[str]) -> Iterator[list[str]]:
    """Literal pathspecs covering ``paths``, by at most 1,000: one per folder, not per file.

    git matches every pathspec against every path (1,000 files cost 50 ms as files, 10 ms as their folders), so
    callers filter what the folders give. Files at the root are named, so that the whole tree is not walked.
    """
    scopes = sorted({posixpath.dirname(path) + "/" if "/" in path else path for path in paths})
    for start in range(0, len(scopes), 1000):  # keeps the command line short whatever the number of folders
        yield [f":(literal){scope}" for scope in scopes[start : start + 1000]]


def index_entries(root: Path, paths: Iterable[str]) -> dict[str, GitEntry]:
    """The index's entry (stage 0) of each of ``paths`` that is in it."""
    wanted = set(paths)
    entries: dict[str, GitEntry] = {}
    for pathspecs in _scoped_pathspecs(wanted):
        output = _run_git(root, "ls-files", "--stage", "-z", "--", *pathspecs)[1]
        for record in output.split(b"\0"):  # "<mode> <oid> <stage>\t<path>"
            info, tab, name = record.partition(b"\t")
            fields = info.split(b" ")
            path = os.fsdecode(name)
            if tab and len(fields) == 3 and fields[2] == b"0" and path in wanted:
                entries[path] = GitEntry(int(fields[0], 8), fields[1].decode("ascii"))
    return entries


class _Watchdog:
    """Stops a git process that has not answered within the time limit since it was asked (:meth:`arm`)."""

    def __init__(self, process: subprocess.Popen[bytes], limit: float) -> None:
        import threading

        self._process = process
        self._limit = limit
        self._deadline: float | None = None
        self._done = False
        self.fired = False
        self._condition = threading.Condition()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def arm(self) -> None:
        import time

        with self._condition:
            idle = self._deadline is None
            self._deadline = time.monotonic() + self._limit
            if idle:
                self._condition.notify()

    def disarm(self) -> None:
        with self._condition:
            self._deadline = None

    def close(self) -> None:
        with self._condition:
            self._done = True
            self._condition.notify()
        self._thread.join()

    def _watch(self) -> None:
        import time

        with self._condition:
            while not self._done:
                if self._deadline is None:
                    self._condition.wait()
                    continue
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    self.fired = True
                    _stop(self._process)
                    return
                self._condition.wait(remaining)


def read_blobs(
    root: Path,
    oids: list[str],
    *,
    head: int | None = None,
    tail: int = 0,
    limits: Mapping[str, int] | None = None,
) -> Iterator[tuple[str, Blob | None]]:
    """``(oid, blob)`` for each of ``oids`` in order; None when it is not a blob of the repository.

    One ``git cat-file --batch`` process serves every object; blobs are yielded one at a time, so memory holds one.
    With ``head``, a longer blob is kept only as its first ``head`` and last ``tail`` bytes; the rest passes through
    a small buffer (a package of gigabytes needs only its header and its last 4 bytes). A blob larger than its
    ``limits`` entry is yielded ``skipped``, not a byte of it read: git announces each blob's size before its
    content, and that git process is stopped there (another one serves the objects after it). git must answer each
    object within the time limit (:func:`git_timeout`), or it is stopped and the run fails.
    """
    remaining = oids
    while remaining:
        answered = 0
        with contextlib.closing(_cat_file(root, remaining, head, tail, limits or {})) as stream:
            for oid, blob in stream:
                answered += 1
                yield oid, blob
                if blob is not None and blob.skipped:
                    break
        remaining = remaining[answered:]


def _cat_file(
    root: Path, oids: list[str], head: int | None, tail: int, limits: Mapping[str, int]
) -> Generator[tuple[str, Blob | None]]:
    """One ``git cat-file --batch`` over ``oids``, up to the first blob above its limit (see :func:`read_blobs`)."""
    import subprocess
    import threading

    limit = git_timeout()
    _require_plain_git_files(root)
    try:
        process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=_NEW_SESSION,
        )
    except OSError as exc:
        raise SourceError(f"{root}: cannot run git ({exc.strerror or exc})") from exc
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    request = "".join(f"{oid}\n" for oid in oids).encode("ascii")

    def feed() -> None:
        # A thread writes the requests while this one reads the answers: writing them all first could fill
        # both pipes and leave git and buildver each waiting for the other.
        with contextlib.suppress(OSError):  # git exited early: reading its output reports the problem
            stdin.write(request)
        with contextlib.suppress(OSError):
            stdin.close()

    def exactly(count: int) -> bytes:
        data = stdout.read(count)
        if len(data) != count:
            raise EOFError
        return data

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    watchdog = _Watchdog(process, limit)
    finished = False
    try:
        for oid in oids:
            watchdog.arm()
            try:
                fields = stdout.readline().split()
                if not fields:
                    raise EOFError
                if len(fields) != 3 or fields[1] not in (b"blob", b"tree", b"commit", b"tag"):
                    blob = None  # "<oid> missing"
                else:
                    size = int(fields[2])
                    if fields[1] == b"blob" and size > limits.get(oid, size):
                        watchdog.disarm()
                        yield oid, Blob(size, b"", b"", skipped=True)
                        return
                    if fields[1] != b"blob":
                        _skip(stdout, size)
                        blob = None
                    elif head is None or size <= head + tail:
                        data = exactly(size)
                        blob = Blob(size, data, data[len(data) - tail :] if tail else b"")
                    else:
                        first = exactly(head)
                        _skip(stdout, size - head - tail)
                        blob = Blob(size, first, exactly(tail))
                    exactly(1)  # the newline after every object
            except EOFError:
                if watchdog.fired:
                    raise _timed_out(root, "cat-file", limit) from None
                raise SourceError(f"{root}: git cat-file stopped before answering for {oid}") from None
            watchdog.disarm()
            yield oid, blob
        finished = True
    finally:
        watchdog.close()
        if not finished:
            _stop(process)  # a blob skipped, or a caller that stopped early: git only reads, so a kill is safe
        stdout.close()
        try:
            process.wait(limit)
        except subprocess.TimeoutExpired:
            _stop(process)
            process.wait()
        writer.join()


def _skip(stream: IO[bytes], count: int) -> None:
    """Read and drop ``count`` bytes of ``stream`` through a 1 MiB buffer."""
    read = stream.read
    while count > 0:
        chunk = read(min(count, 1 << 20))
        if not chunk:
            raise EOFError
        count -= len(chunk)


def git_common_dir(root: Path) -> Path:
    """The folder holding the repository's shared data (``.git``, also for a linked worktree)."""
    output = _run_git(root, "rev-parse", "--git-common-dir")[1].decode("utf-8", "surrogateescape").strip()
    return (root / output).resolve()


def unstaged_paths(root: Path, paths: list[str]) -> set[str]:
    """Those of ``paths`` whose working-tree file is not the staged one: modified or deleted since, or not staged.

    For the others the working-tree file holds the staged content as the checkout shows it (after Git LFS and other
    filters), so a reader can read just the part it needs instead of the whole blob.
    """
    wanted = set(paths)
    changed: set[str] = set()
    for pathspecs in _scoped_pathspecs(paths):
        output = _run_git(
            root, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--ignored", "--", *pathspecs
        )[1]
        # Each entry is "XY path": Y is the working tree against the index ("?" untracked, "!" ignored).
        for entry in output.split(b"\0"):
            path = os.fsdecode(entry[3:])
            if entry[1:2] != b" " and path in wanted:
                changed.add(path)
    return changed
