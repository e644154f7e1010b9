"""Planned file changes: a diff for ``--dry-run``, and one all-or-nothing atomic apply under a lock.

Every file buildver writes goes through :func:`apply_changes`:

1. each new content is written to a temporary file created safely in the target's own folder (random name,
   ``O_EXCL`` so a planted symlink is never followed), with the original file's permissions, and fsynced;
2. each existing target is hard-linked to a backup name, so that it can be put back;
3. the temporary files are renamed over their targets; if any rename fails, the targets already replaced are
   restored from their backups, so that every file is exactly as it was;
4. the folders are fsynced and the backups removed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import time
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

from buildver.errors import LockTimeoutError, WriteError
from buildver.reading import NotRegularFileError, read_regular_file
from buildver.text import printable

__all__ = [
    "FileChange",
    "JournalProject",
    "apply_changes",
    "find_leftovers",
    "interrupted_journals",
    "is_reserved_name",
    "locked",
    "open_for_append",
    "read_existing",
    "recover",
    "remove_leftovers",
    "transaction",
    "write_atomic",
]

TEMP_SUFFIX = ".buildver-tmp"
"""Temporary and backup files end with this, so that a later run can recognise and remove leftovers."""
JOURNAL_NAME = ".buildver-journal"
LOCK_NAME = ".buildver-lock"
"""The lock file, where the folder itself cannot be locked (Windows)."""


class FileChange(NamedTuple):
    """A file's content before (None when it does not exist yet) and after a planned change."""

    path: Path
    old: bytes | None
    new: bytes

    @property
    def changed(self) -> bool:
        """Whether applying this change would alter the file."""
        return self.old != self.new

    def diff(self) -> str:
        """A unified diff of the change (empty when nothing changes)."""
        if not self.changed:
            return ""
        import difflib  # only --dry-run and the checks show diffs

        old_lines = [] if self.old is None else _lines(_text(self.old))
        new_lines = _lines(_text(self.new))
        lines = list(
            difflib.unified_diff(
                old_lines,
                new_lines,
                # A name with a line break or an escape sequence must not start a line of its own.
                fromfile="/dev/null" if self.old is None else printable(_diff_name("a", self.path)),
                tofile=printable(_diff_name("b", self.path)),
            )
        )
        # Unreal writes Build.version without a final newline; say so the way git does. Every line is shown as
        # printable shows a value (tabs kept; a CRLF line keeps its end): a file's own line holding an escape
        # sequence, or a context line " ::add-mask::..." (GitHub's runner trims the space), must not reach the
        # terminal or the runner as it is.
        shown = []
        for line in lines:
            body = line.removesuffix("\n")
            end = line[len(body) :]
            if end and body.endswith("\r"):
                body, end = body[:-1], "\r\n"
            shown.append(printable(body, tabs=True) + (end or "\n\\ No newline at end of file\n"))
        return "".join(shown)


class JournalProject(NamedTuple):
    """The project a run writes in, as the run finds it itself (a game: the folder of its ``.uproject``), never as
    a journal says: recovery writes only where the recovering run would write.

    A journal in a folder of ``root`` records its targets relative to ``root`` (``"root": "../.."`` in the journal,
    relative to the journal's folder, so that a moved tree still recovers), rather than to the folder holding the
    journal's folder: a game's ``Config/`` lies outside ``Versioning/Build/..``.
    """

    root: Path
    linked: tuple[Path, ...] = ()
    """Folders in ``root`` that may be symbolic links out of it and that the run writes through (a game's
    ``Config/`` shared by several games); the journal's own folder is always one. Any other link is refused."""


_RANDOM_BYTES = 6


def _random_name() -> str:
    # os.urandom rather than the secrets module: as unpredictable, and without importing random and friends
    # on every run's start-up.
    return os.urandom(_RANDOM_BYTES).hex()


def _diff_name(side: str, path: Path) -> str:
    """``a/relative/path`` as git shows it: from the root of the git repository holding the file, wherever in it
    the command runs; outside a repository from the current folder; else the absolute path."""
    from buildver.vcs import find_repository_root  # a walk up the folders: runs no git

    absolute = path.resolve()
    for base in (find_repository_root(absolute.parent), Path.cwd().resolve()):
        if base is not None and absolute.is_relative_to(base):
            return f"{side}/{absolute.relative_to(base).as_posix()}"
    return str(path)


def _target_of(filename: object, pending: Sequence[FileChange]) -> object:
    """The file a user asked for, when the OSError names one of buildver's temporary or backup files beside it."""
    if not filename:
        return None
    path = Path(os.fsdecode(filename)) if isinstance(filename, (str, bytes)) else None
    for change in pending:
        if path is not None and path.parent == change.path.parent and path.name.startswith(f".{change.path.name}."):
            return change.path
    return filename


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n``: split there only, so that any other line-breaking character
    (a lone CR, a form feed, U+2028) stays in its line and is shown escaped."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def apply_changes(
    changes: Sequence[FileChange],
    *,
    force: bool = False,
    journal: Path | None = None,
    project: JournalProject | None = None,
) -> list[Path]:
    """Write every changed file, or none of them; return the paths written.

    A target whose content is no longer ``old`` (someone changed it since it was read) or that is read-only
    (unless ``force``, which clears the read-only flag as Unreal's MakeFileWriteable does) is refused before
    anything is written. Raises WriteError; every file is then exactly as it was (or, when a file could not even
    be put back, the error says so and the journal stays for the next run to undo).

    With several files and a ``journal`` path, the renames are recorded there first, so that a run killed
    between two renames is finished by the next run's :func:`recover` (see :func:`transaction`). ``project`` is the
    project the run writes in (:class:`JournalProject`); without it, the folder holding the journal's folder.

    Once every file is written, removing the journal and the backups only tidies up: a failure there does not undo
    the write, it is reported as a :class:`~buildver.errors.CleanupWarning` naming what is left (the next run on
    the folder removes it).
    """
    pending = [change for change in changes if change.changed]
    modes = [_check_target(change, force) for change in pending]
    # One random part names every file this run makes (temporaries, backups, the journal's temporary file): a
    # Ctrl-C handled as a creating call returns, before its name reaches this function, still finds them.
    token = _random_name()
    temps: list[Path] = []
    backups: list[Path | None] = []
    replaced: list[int] = []
    journaled = False
    syncing: Path | None = None
    try:
        for change, mode in zip(pending, modes, strict=True):
            temps.append(_write_temp(change.path, change.new, mode, token))
        for change in pending:
            backups.append(_link_backup(change.path, token) if change.old is not None else None)
        if journal is not None and len(pending) > 1:
            _write_journal(journal, pending, temps, backups, project, token)
            journaled = True  # from here on, a killed run is finished or undone by the next one
            _fsync_folder(journal.parent)  # failing, the journal is voided with the rest: nothing was renamed
        for index, (change, temp, mode) in enumerate(zip(pending, temps, modes, strict=True)):
            if os.name == "nt" and change.old is not None and force:
                os.chmod(change.path, mode)  # Windows refuses to replace a read-only file
            os.replace(temp, change.path)
            replaced.append(index)
        for folder in {change.path.parent for change in pending}:
            syncing = folder
            _fsync_folder(folder)
    except OSError as exc:
        failed = _target_of(exc.filename, pending) or _failed_step(pending, replaced, syncing)
        reason = f"{failed}: cannot write ({exc.strerror or exc})"
        not_restored = _roll_back(pending, backups, replaced)
        if not_restored and journaled:
            # The journal and the backups are what the next run needs to put these files back: keep them all.
            names = ", ".join(f"{path} ({why})" for path, why in not_restored)
            raise WriteError(
                f"{reason}; could not put back {names}: the next buildver run here undoes the change"
            ) from exc
        # Without a journal, a backup whose file could not be put back is the only copy of its old content: keep it.
        stranded = {path for path, _ in not_restored}
        pairs = list(zip(pending, backups, strict=False))
        kept = [(change.path, backup) for change, backup in pairs if change.path in stranded]
        # A restored target's backup was renamed back over it: only the backups of targets never replaced remain.
        removable = [backup for index, backup in enumerate(backups) if backup is not None and index not in replaced]
        unrenamed = [temp for index, temp in enumerate(temps) if index not in replaced]
        # The temporary files go before the journal: a journal left with them would finish the write next run.
        left = _remove_files([*unrenamed, *removable])
        if journal is not None and journaled:
            left += _void_journal(journal)
        elif journal is not None and len(pending) > 1:
            # The journal's own temporary file, when its rename failed (under the lock: no other run's).
            left += _remove_files(find_leftovers(journal.parent, JOURNAL_NAME))
        changed = "; ".join(
            f"{path} could not be put back ({why}){_backup_text(kept, path)}" for path, why in not_restored
        )
        raise WriteError(f"{reason}; {changed or 'no file was changed'}{_left_text(left)}") from exc
    except BaseException:
        # An interrupt (Ctrl-C) before the journal: nothing was renamed, remove what was made. After it, the
        # temporary files and backups are the next run's to finish or undo with.
        if not journaled:
            folders = {change.path.parent for change in pending} | ({journal.parent} if journal else set())
            _remove_files([*temps, *_present(backups), *_made_by(token, folders)])
        raise
    # Written and durable. The journal goes first: a journal whose backups are gone still recovers (every rename
    # is done, so the next run just removes it); no fsync after this, for the same reason.
    tidy = [*([journal] if journal and journaled else []), *_present(backups)]
    try:
        left = _remove_files(tidy)
    except BaseException:  # Ctrl-C: the write is done; finish tidying (a second one is ignored), then stop
        _remove_files(tidy)
        raise
    if left:
        import warnings

        from buildver.errors import CleanupWarning

        written = ", ".join(str(change.path) for change in pending)
        warnings.warn(CleanupWarning(f"{written}: written{_left_text(left)}"), stacklevel=2)
    return [change.path for change in pending]


def _void_journal(journal: Path) -> list[tuple[Path, str]]:
    """Remove the journal of a rolled-back write; where it cannot be removed (a folder that refuses removals),
    empty its list in place, so that the next run finds nothing to finish; return it when neither worked."""
    left = _remove_files([journal])
    if not left:
        return []
    try:
        with open(journal, "r+b") as stream:
            stream.truncate(0)
            stream.write(json.dumps({"buildver-journal": JOURNAL_VERSION, "entries": []}).encode())
            stream.flush()
            os.fsync(stream.fileno())
    except OSError:
        return left
    return [(journal, f"{left[0][1]}; it lists nothing to finish now")]


def _present(backups: Sequence[Path | None]) -> list[Path]:
    return [backup for backup in backups if backup is not None]


def _remove_files(paths: Sequence[Path]) -> list[tuple[Path, str]]:
    """Remove each file (one already gone is fine); return those that could not be removed, and why."""
    left = []
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            left.append((path, exc.strerror or str(exc)))
    return left


def _backup_text(kept: Sequence[tuple[Path, Path | None]], path: Path) -> str:
    backup = next((backup for target, backup in kept if target == path), None)
    return "" if backup is None else f", its old content is in {backup}"


def _left_text(left: Sequence[tuple[Path, str]]) -> str:
    """What a run leaves behind, for its message: empty when nothing is left."""
    if not left:
        return ""
    names = ", ".join(str(path) for path, _ in left)
    return f"; left {names} ({left[0][1]}), which the next buildver run here removes"


def _failed_step(pending: Sequence[FileChange], replaced: Sequence[int], syncing: Path | None) -> object:
    """What was being written when an error named no file: the folder being flushed after every rename, else
    the next file to rename."""
    if syncing is not None:
        return f"{syncing} (making the renames durable)"
    return pending[len(replaced)].path if len(replaced) < len(pending) else ""


def _digest(data: bytes | None) -> str | None:
    import hashlib  # OpenSSL takes a few milliseconds to load; only journals need it

    return None if data is None else hashlib.sha256(data).hexdigest()


def _write_journal(
    journal: Path,
    pending: Sequence[FileChange],
    temps: Sequence[Path],
    backups: Sequence[Path | None],
    project: JournalProject | None,
    token: str,
) -> None:
    """Write the journal atomically (complete or absent); the caller makes its rename durable."""
    scope = _project_scope(journal, project) or _default_scope(journal)
    entries = [
        {
            "target": _journal_path(change.path, scope),
            "temp": temp.name,
            "inode": temp.stat().st_ino,
            "old": _digest(change.old),
            "new": _digest(change.new),
            "backup": None if backup is None else backup.name,
            "backup-inode": None if backup is None else backup.stat().st_ino,
        }
        for change, temp, backup in zip(pending, temps, backups, strict=True)
    ]
    # The journal itself is written atomically: it is either complete or absent. A journal of the folder above its
    # own keeps version 3, which every buildver since 3 reads; one with a project of its own is version 4.
    document: dict[str, object] = {"buildver-journal": JOURNAL_VERSION, "entries": entries}
    if scope.recorded is not None:
        document = {"buildver-journal": PROJECT_JOURNAL_VERSION, "root": scope.recorded, "entries": entries}
    temp = _write_temp(journal, json.dumps(document).encode(), 0o644, token)
    try:
        os.replace(temp, journal)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()  # else apply_changes names it among what is left
        raise OSError(exc.errno, exc.strerror, str(journal)) from exc


class _Scope(NamedTuple):
    """Where a journal's relative targets lie, and which of them recovery may write."""

    root: Path
    """The project, resolved: relative targets are relative to it."""
    named: Path
    """The project as the run names it (its links not followed): targets are recorded relative to this."""
    recorded: str | None
    """The journal's ``root`` (the project relative to the journal's folder); None: the folder holding it."""
    linked: tuple[tuple[Path, Path], ...] = ()
    """The folders of the project a target may reach through a symbolic link: (relative to the project, resolved)."""

    def landing(self, relative: Path) -> Path | None:
        """The folder (resolved) that the target at ``relative`` lies in once its links are followed: the project,
        or one of its linked folders that the path goes through; None when a link leads it anywhere else."""
        resolved = (self.root / relative).resolve()
        if resolved.is_relative_to(self.root):
            return self.root
        for folder, real in self.linked:
            if relative.is_relative_to(folder) and resolved.is_relative_to(real):
                return real
        return None


def _journal_root(journal: Path) -> Path:
    """The project a journal belongs to: the folder holding the journal's folder (both resolved, so that a ``Build``
    folder that is a link records its targets in the folder it leads to), but never above the git repository that
    holds the journal: a journal at a repository's root (``version-file = "Build.version"``) has that root."""
    from buildver.vcs import find_repository_root  # a walk up the folders: runs no git

    folder = journal.parent.resolve()
    repository = find_repository_root(folder)
    if repository is not None and not folder.parent.is_relative_to(repository.resolve()):
        return folder
    return folder.parent


def _default_scope(journal: Path) -> _Scope:
    root = _journal_root(journal)
    return _Scope(root, root, None)


def _project_scope(journal: Path, project: JournalProject | None) -> _Scope | None:
    """The scope of the project the run writes in, for ``journal``: None when there is none, when the journal's
    folder does not lie in it, or when it reaches above the git repository that holds the journal."""
    from buildver.vcs import find_repository_root  # a walk up the folders: runs no git

    if project is None:
        return None
    folder = Path(os.path.abspath(journal.parent))
    named = Path(os.path.abspath(project.root))
    if not folder.is_relative_to(named):
        return None
    repository = find_repository_root(folder)
    if repository is not None and not named.is_relative_to(Path(os.path.abspath(repository))):
        return None
    linked = []
    for each in (folder, *project.linked):
        path = Path(os.path.abspath(each))
        if path != named and path.is_relative_to(named):
            linked.append((path.relative_to(named), path.resolve()))
    recorded = Path(os.path.relpath(named, folder)).as_posix()
    return _Scope(named.resolve(), named, recorded, tuple(linked))


def _journal_path(target: Path, scope: _Scope) -> str:
    """A target as the journal records it: relative to the project (so that a moved tree still recovers), or
    absolute when it lies outside the project (a header the command line named there; recovery never writes it)."""
    named = Path(os.path.abspath(target))
    if scope.recorded is not None and named.is_relative_to(scope.named):
        relative = named.relative_to(scope.named)
        if scope.landing(relative) is not None:
            return relative.as_posix()
    real = target.parent.resolve() / target.name  # the target itself is never a link (refused before writing)
    return real.relative_to(scope.root).as_posix() if real.is_relative_to(scope.root) else str(real)


JOURNAL_VERSION = 3
"""3 records targets relative to the project and the inode of each file buildver made, so that recovery writes
only files the killed run made itself; journals of older versions (absolute paths, no inodes) are refused."""
PROJECT_JOURNAL_VERSION = 4
"""4 adds ``root``, the project relative to the journal's folder, when the run names a project of its own
(:class:`JournalProject`); recovery accepts it only when the recovering run names the same project."""

_VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".p4", ".plastic"})
"""Folders no target of buildver ever lies in: a journal naming one is refused whole."""
_IGNORED_IN_NAMES = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


def _is_vcs_folder(part: str) -> bool:
    """Whether a path component names a version-control folder, in any spelling a file system may take for it:
    case, Unicode forms, characters macOS ignores, Windows' trailing dots and spaces, its streams (``::$DATA``)
    and its short names (``GIT~1``)."""
    import unicodedata

    name = unicodedata.normalize("NFKC", part).translate(_IGNORED_IN_NAMES).casefold()
    name = name.split(":", 1)[0].rstrip(". ")
    return name in _VCS_FOLDERS or (name[:4] in ("git~", "svn~") and name[4:].isdigit())


class _JournalEntry(NamedTuple):
    target: Path
    temp: Path
    inode: int
    """The inode of the temporary file the killed run made, which the target has once renamed."""
    old: str | None
    new: str
    backup: Path | None
    backup_inode: int | None
    trusted: bool
    """The target lies inside the project: recovery may write it. Targets outside are never written."""

    def state(self) -> str:
        """``to do`` while the temporary file is still there, ``done`` once it is the target, else ``changed``
        (someone changed or removed the file since; it is theirs)."""
        if _is_file(self.temp, self.inode):
            return "to do"
        if _is_file(self.target, self.inode) and _digest(read_regular_file(self.target)) == self.new:
            return "done"
        return "changed"


def _is_file(path: Path, inode: int | None) -> bool:
    """Whether ``path`` is a regular file (not a link) with that inode: the very file the killed run made."""
    try:
        status = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and status.st_ino == inode


def recover(journal: Path, project: JournalProject | None = None) -> list[Path]:
    """Finish, or undo, the renames a killed run recorded in ``journal``; then remove its temporary files.

    The journal lies in a folder anyone may commit to, so recovery trusts it no further than it can check it on
    disk. It writes only files the killed run made itself (each temporary file and backup has the inode the
    journal records, which no one committing a journal can know), beside targets inside the project (the folder
    holding the journal's folder, or ``project``, the one the recovering run writes in, when the journal names
    that one), never in a version-control folder, and never a target outside the project, even one a user named
    on the command line (``--header ../out/Version.h``, which the README allows). So:

    - when every rename still to do is inside the project, they are done (rolled forward);
    - otherwise, when every rename already done is inside the project, those are undone from the backups the
      journal records (rolled back), and the targets outside keep their old content;
    - otherwise (several targets outside, some renamed and some not) nothing is changed and the error says so.

    A target is only written while it holds the content recovery expects (the old one to roll forward, the new
    one to roll back); a file someone changed since is left as it is. A journal that names a path relative to
    nothing, a path out of the project through ``..``, a version-control folder, or a temporary file that is
    there but was not made by the killed run, or a project other than ``project``, is refused whole (WriteError),
    and nothing is changed. Returns the targets written.
    """
    entries = _read_journal(journal, project)
    try:
        return _recover(journal, entries)
    except OSError as exc:
        # A target that became a folder or a FIFO, a read-only folder: the journal stays for a later run.
        raise WriteError(
            f"{journal}: cannot finish or undo a killed run's changes ({exc.filename}: {exc.strerror or exc})"
        ) from exc


def _recover(journal: Path, entries: list[_JournalEntry] | None) -> list[Path]:
    written: list[Path] = []
    if entries is not None:
        folders = {journal.parent, *(entry.target.parent for entry in entries if entry.trusted)}
        states = [(entry, entry.state()) for entry in entries]
        for entry, state in states:
            if state == "changed" and entry.temp.exists():
                raise WriteError(
                    f"{journal}: {entry.temp} was not made by the run the journal records (a copied tree, or a "
                    "planted file); nothing was changed: check the files the journal names, then remove it"
                )
        to_finish = [entry for entry, state in states if state == "to do"]
        done = [entry for entry, state in states if state == "done"]
        # A target that is neither the run's temporary file nor its new file was put back by the run's own roll-back
        # (a rename that failed, then a kill before the clean-up), or changed by someone since: finishing the other
        # renames would mix old and new files, so the run is undone instead.
        rolled_back = any(state == "changed" for _, state in states)
        if all(entry.trusted for entry in to_finish) and not (rolled_back and to_finish):
            for entry in to_finish:
                if _digest(read_regular_file(entry.target)) == entry.old:
                    os.replace(entry.temp, entry.target)
                    written.append(entry.target)
        elif all(entry.trusted for entry in done):
            for entry in done:
                written += _undo(entry)
        else:
            outside = next(entry.target for entry in entries if not entry.trusted)
            raise WriteError(
                f"{journal}: a killed run's changes can be neither finished nor undone without writing {outside}, "
                "outside the project; check the files the journal names, then remove it"
            )
        for folder in folders:
            _fsync_folder(folder)
        try:
            journal.unlink()
        except OSError as exc:
            raise WriteError(
                f"{journal}: the files it names are complete, but the journal cannot be removed "
                f"({exc.strerror or exc}); remove it once the folder allows it"
            ) from exc
        _fsync_folder(journal.parent)
        # Then the run's temporary and backup files; outside the journal's own folder only those, never a folder's
        # other files (they may be another run's).
        for entry in entries:
            if entry.trusted:
                for path, inode in ((entry.temp, entry.inode), (entry.backup, entry.backup_inode)):
                    if path is not None and _is_file(path, inode):
                        path.unlink()
    remove_leftovers(journal.parent)  # the folder recovery locked: every leftover there is a killed run's
    return written


def _undo(entry: _JournalEntry) -> list[Path]:
    """Put back the content a renamed target had before the killed run (from its backup), or remove a new file."""
    if entry.backup is None:
        if entry.old is None:
            entry.target.unlink()
            return [entry.target]
        return []
    if not _is_file(entry.backup, entry.backup_inode) or _digest(read_regular_file(entry.backup)) != entry.old:
        return []
    os.replace(entry.backup, entry.target)
    return [entry.target]


def _read_journal(journal: Path, project: JournalProject | None = None) -> list[_JournalEntry] | None:
    """The journal's entries, or None when there is none.

    The journal lies in a folder anyone may commit to, so it is trusted no further than buildver writes it: each
    temporary and backup file is a name beside its target under buildver's own name for it, a target is a path
    inside the project without ``..`` or an absolute path outside it, and a target is marked trusted only when it
    lies inside the project where it is now: the folder that holds the journal's folder (the project or engine
    root), or the project the recovering run writes in, when the journal names that one (version 4's ``root``).
    """
    try:
        data = read_regular_file(journal)
    except OSError as exc:
        raise WriteError(f"{journal}: cannot read the recovery journal ({exc.strerror})") from exc
    if data is None:
        return None
    try:
        document = json.loads(data)
        if not isinstance(document, dict) or "buildver-journal" not in document:
            raise ValueError("not a buildver journal")
        version = document["buildver-journal"]
        if type(version) is not int or version not in (JOURNAL_VERSION, PROJECT_JOURNAL_VERSION):
            raise ValueError(
                f"version {version!r}, not {JOURNAL_VERSION} or {PROJECT_JOURNAL_VERSION}: written by another buildver"
            )
        scope = _default_scope(journal)
        if version == PROJECT_JOURNAL_VERSION:
            scope = _recorded_scope(journal, document["root"], project)
        entries = [_journal_entry(entry, scope) for entry in document["entries"]]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, OSError, RuntimeError) as exc:
        raise WriteError(
            f"{journal}: unreadable recovery journal ({exc}); remove it after checking the files it names"
        ) from exc
    return entries


def _recorded_scope(journal: Path, recorded: object, project: JournalProject | None) -> _Scope:
    """The project a version 4 journal names (``root``, relative to its folder), which must be the very project the
    recovering run writes in: a journal cannot widen where recovery writes."""
    if not isinstance(recorded, str) or not all(part == ".." for part in Path(recorded).parts):
        raise ValueError(f"its project {recorded!r} is not a folder above the journal's")
    scope = _project_scope(journal, project)
    if scope is None or scope.recorded != recorded:
        mine = "none" if scope is None else repr(scope.recorded)
        raise ValueError(f"its project {recorded!r} is not the one this run writes in ({mine}, from the journal)")
    return scope


def _journal_entry(entry: dict[str, object], scope: _Scope) -> _JournalEntry:
    recorded, temp_name, backup_name = entry["target"], entry["temp"], entry.get("backup")
    old, new, inode, backup_inode = entry["old"], entry["new"], entry["inode"], entry.get("backup-inode")
    if not isinstance(recorded, str) or not recorded:
        raise ValueError(f"the target {recorded!r} is not a path")
    relative = Path(recorded)
    root, landing = scope.root, None
    if relative.is_absolute() or relative.drive or relative.root:
        target, trusted = relative, False
        if relative.is_relative_to(root) or relative.resolve().is_relative_to(root):
            raise ValueError(f"{recorded} is inside the project but recorded as an absolute path")
    else:
        if ".." in relative.parts:
            raise ValueError(f"{recorded} leaves the project through '..'")
        if not relative.parts:
            raise ValueError(f"{recorded!r} names the project itself, not a file in it")
        target = root / relative
        landing = scope.landing(relative)
        if landing is None:
            raise ValueError(f"{recorded} leads out of the project through a symbolic link")
        trusted = True
    resolved = target.resolve()
    # Out of the project (through its linked folder), every part of the path counts: ``Config`` -> ``/x/.git/y``.
    inside = resolved.relative_to(root).parts if landing == root else resolved.parts
    if any(_is_vcs_folder(part) for part in (*target.parts, *inside)):
        raise ValueError(f"{recorded} lies in a version-control folder, where buildver writes nothing")
    if not isinstance(temp_name, str) or not _names_a_file_of(temp_name, target.name, backup=False):
        raise ValueError(f"{temp_name!r} is not a temporary file of {target}")
    if backup_name is not None and not (
        isinstance(backup_name, str) and _names_a_file_of(backup_name, target.name, backup=True)
    ):
        raise ValueError(f"{backup_name!r} is not a backup of {target}")
    if not (isinstance(new, str) and (old is None or isinstance(old, str))):
        raise ValueError(f"a digest of {target} is not text")
    if not (type(inode) is int and (backup_inode is None or type(backup_inode) is int)):
        raise ValueError(f"an inode of {target} is not a number")
    if (backup_name is None) != (backup_inode is None):
        raise ValueError(f"the backup of {target} has no inode, or an inode without a backup")
    backup = None if backup_name is None else target.with_name(backup_name)
    return _JournalEntry(target, target.with_name(temp_name), inode, old, new, backup, backup_inode, trusted)


def _names_a_file_of(name: str, target_name: str, *, backup: bool) -> bool:
    """Whether ``name`` is buildver's name for a temporary (or backup) file of ``target_name``, in the same folder."""
    return (
        name.endswith(TEMP_SUFFIX)
        and os.path.basename(name) == name
        and "/" not in name
        and "\\" not in name
        and _is_leftover(name, {target_name})
        and name.endswith(".backup" + TEMP_SUFFIX) == backup
    )


@contextlib.contextmanager
def transaction(folder: Path, timeout: float = 30.0, project: JournalProject | None = None) -> Iterator[Path]:
    """Lock ``folder``, finish what a killed run left there, and yield the journal path for apply_changes (which
    takes the same ``project``, the one the run writes in: see :class:`JournalProject`)."""
    with locked(folder, timeout):
        journal = folder / JOURNAL_NAME
        try:
            recover(journal, project)
            yield journal
        except BaseException as exc:
            # An interrupt (Ctrl-C), not an error: a journal on disk now is the next run's to finish or undo with.
            if not isinstance(exc, (Exception, GeneratorExit)) and os.path.lexists(journal):
                _interrupted_journals.append(journal)
            raise


_interrupted_journals: list[Path] = []


def interrupted_journals() -> list[Path]:
    """The journals that transactions interrupted in this process (by Ctrl-C) left on disk: each is the next
    run's to finish or undo (:func:`recover`)."""
    return list(_interrupted_journals)


def read_existing(path: Path) -> bytes | None:
    """A file's bytes, or None when it does not exist yet (any other OSError is the caller's to report).

    Only regular files are read: a FIFO or a device raises NotRegularFileError instead of blocking or never ending.
    """
    return read_regular_file(path)


def open_for_append(path: Path) -> BinaryIO:
    """A regular file opened for appending (and reading), created when absent: for logs such as GITHUB_OUTPUT.

    Appending cannot be atomic, so this is for files that only ever grow. A FIFO or a device (``/dev/full``)
    raises NotRegularFileError before anything is written, like every other target: a FIFO could block, and a
    device would fail only after the run's other files were written.
    """
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder fails to open, with the system's words
            read_regular_file(name)  # raises the error that names what the path is
    except FileNotFoundError:
        pass
    except ValueError:
        raise OSError(errno.EINVAL, "the path contains a NUL character", name) from None
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(name, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # swapped since the stat
            raise NotRegularFileError(errno.EINVAL, "not a regular file", name)
        return os.fdopen(descriptor, "a+b")
    except BaseException:
        os.close(descriptor)
        raise


def write_atomic(path: Path, data: bytes, *, force: bool = False) -> bool:
    """Write one file atomically when its content differs; return whether it was written.

    It takes the folder's lock: do not call it while holding that lock (a second lock from the same process
    waits for the first, until the timeout).
    """
    try:
        old = read_existing(path)
    except OSError as exc:
        raise WriteError(f"{path}: cannot read ({exc.strerror})") from exc
    # Under the folder's lock, so that a run removing this file's leftovers never takes the live temporary file.
    with locked(path.parent):
        return bool(apply_changes([FileChange(path, old, data)], force=force))


def _check_target(change: FileChange, force: bool) -> int:
    """The permission bits the new file gets; refuses read-only or changed targets, and buildver's own files."""
    if is_reserved_name(change.path.name):
        # Writing there would be undone by buildver itself: the journal and temporaries are removed after a run.
        raise WriteError(
            f"{change.path}: is a name buildver keeps for its own journal, lock or temporary files; "
            "choose another name; nothing was written"
        )
    if change.path.is_symlink():
        # Writing would replace the link with a file (and leave the file it names unchanged); writing through it
        # could reach outside the repository. The caller can pass the file the link names instead.
        raise WriteError(f"{change.path}: is a symbolic link; pass the file it points to; nothing was written")
    try:
        current = read_regular_file(change.path)
        mode = stat.S_IMODE(change.path.stat().st_mode) if current is not None else 0
    except NotRegularFileError as exc:
        # A device (/dev/full) or a FIFO: renaming over it would replace it, writing into it could block.
        raise WriteError(f"{change.path}: is {exc.strerror}; nothing was written") from exc
    except OSError as exc:
        raise WriteError(f"{change.path}: cannot read ({exc.strerror}); nothing was written") from exc
    if current is None:
        if change.old is not None:
            message = "the file was removed while buildver was working; nothing was written"
            raise WriteError(f"{change.path}: {message}")
        return 0o666 & ~_umask()
    if current != change.old:
        raise WriteError(f"{change.path}: the file changed while buildver was working; nothing was written")
    if not mode & stat.S_IWUSR:
        if not force:
            raise WriteError(f"{change.path}: the file is read-only; pass --force to make it writable")
        mode |= stat.S_IWUSR
    return mode


def is_reserved_name(name: str) -> bool:
    """Whether ``name`` is one of buildver's own: its journal, its lock, or a temporary or backup file.

    Compared without case, since Windows and macOS folders do not tell ``.Buildver-Journal`` from the journal.
    """
    folded = name.casefold()
    return folded in (JOURNAL_NAME, LOCK_NAME) or folded.endswith(TEMP_SUFFIX)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_temp(target: Path, data: bytes, mode: int, token: str | None = None) -> Path:
    # A random name and O_EXCL: nothing planted in the folder (a symlink, a guessed name) is followed or reused.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    temp = target.with_name(f".{target.name}.{token or _random_name()}{TEMP_SUFFIX}")
    descriptor = os.open(temp, flags | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
        if not hasattr(os, "fchmod"):  # Windows: only the read-only attribute exists, set after closing
            os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    return temp


def _link_backup(target: Path, token: str) -> Path:
    backup = target.with_name(f".{target.name}.{token}.backup{TEMP_SUFFIX}")
    os.link(target, backup)
    return backup


def _made_by(token: str, folders: Collection[Path]) -> list[Path]:
    """The files of ``folders`` named with this run's ``token``: what it made, found by name."""
    mark = f".{token}."
    found = []
    for folder in folders:
        with contextlib.suppress(OSError):
            found += [folder / name for name in os.listdir(folder) if mark in name and name.endswith(TEMP_SUFFIX)]
    return found


def _roll_back(
    pending: Sequence[FileChange], backups: Sequence[Path | None], replaced: Sequence[int]
) -> list[tuple[Path, str]]:
    """Put back every target already replaced, last first; return those that could not be put back, and why."""
    failures = []
    for index in reversed(replaced):
        backup = backups[index]
        try:
            if backup is None:
                pending[index].path.unlink()
            else:
                os.replace(backup, pending[index].path)
        except OSError as exc:
            failures.append((pending[index].path, exc.strerror or str(exc)))
    return failures


def _fsync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # Not every platform can open a folder (Windows); the rename is still atomic there.
    try:
        os.fsync(descriptor)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(descriptor)


def remove_leftovers(folder: Path, name: str | Collection[str] | None = None) -> list[Path]:
    """Remove temporary and backup files killed runs left in ``folder`` (only those of the file or files ``name``).

    Call it under the folder's lock: another run's temporaries are not leftovers while that run is alive. The
    folder is listed once, however many names are given.
    """
    removed = []
    for leftover in find_leftovers(folder, name):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
            removed.append(leftover)
    return removed


def find_leftovers(folder: Path, name: str | Collection[str] | None = None) -> list[Path]:
    """The temporary and backup files in ``folder`` (only those of the file or files ``name``), sorted by name."""
    names = {name} if isinstance(name, str) else None if name is None else set(name)
    try:
        entries = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / entry for entry in entries if _is_leftover(entry, names)]


def _is_leftover(entry: str, names: Collection[str] | None) -> bool:
    """Whether ``entry`` is a temporary (``.NAME.RANDOM.buildver-tmp``) or backup (``…RANDOM.backup…``) file.

    With ``names``, only those of these files: ``.Build.version.orig.….buildver-tmp`` belongs to another file.
    """
    if not (entry.startswith(".") and entry.endswith(TEMP_SUFFIX)):
        return False
    if names is None:
        return True
    stem, _, token = entry[1 : -len(TEMP_SUFFIX)].removesuffix(".backup").rpartition(".")
    return stem in names and len(token) == 2 * _RANDOM_BYTES and all(c in "0123456789abcdef" for c in token)


@contextlib.contextmanager
def locked(folder: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` so that concurrent buildver runs on its files take turns.

    POSIX: ``flock`` on the folder itself, so no lock file is ever left behind. Windows, where a folder cannot be
    locked: ``msvcrt.locking`` on a lock file (``.buildver-lock``) in the folder, removed again on release.
    Windows refuses to remove a file that another process holds open, so a run waiting for the lock never loses
    its lock file to the run that releases it. (The standard library's msvcrt, not the filelock package: that
    costs 25-40 ms to import on every run, for the same call.)
    """
    lock = _FolderLock(folder)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.005
        while not lock.try_acquire():
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    f"{folder}: another buildver run held the lock for more than {timeout:g} s; nothing was written"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        yield
    finally:
        lock.release()


_LOCK_FILE_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)


class _FolderLock:
    """The platform's exclusive, non-blocking lock on a folder: one attempt per call of ``try_acquire``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.descriptor: int | None = None
        self.held = False

    def try_acquire(self) -> bool:
        """Take the lock if no other run holds it; return whether it is now held."""
        if sys.platform == "win32":
            import msvcrt

            if self.descriptor is None:
                self.descriptor = self._open_lock_file()
                if self.descriptor is None:
                    return False
            try:
                # One byte at offset 0 (the descriptor never moves); Windows allows locking past the end of a file.
                msvcrt.locking(self.descriptor, msvcrt.LK_NBLCK, 1)
            except OSError:
                return False
        else:
            import fcntl

            if self.descriptor is None:
                try:
                    self.descriptor = os.open(self.folder, os.O_RDONLY)
                except OSError as exc:
                    raise WriteError(f"{self.folder}: cannot open the folder to lock it ({exc.strerror})") from exc
            try:
                fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
        self.held = True
        return True

    def _open_lock_file(self) -> int | None:
        """Windows: the lock file, created when absent; None while another run is removing it (try again)."""
        path = self.folder / LOCK_NAME
        try:
            return os.open(path, _LOCK_FILE_FLAGS, 0o666)
        except PermissionError as exc:
            # A lock file being removed by the run that just released it refuses to open for a moment; a folder
            # this user cannot write to refuses for good.
            if os.access(self.folder, os.W_OK):
                return None
            raise WriteError(f"{path}: cannot create the lock file ({exc.strerror}); nothing was written") from exc
        except OSError as exc:
            raise WriteError(f"{path}: cannot create the lock file ({exc.strerror}); nothing was written") from exc

    def release(self) -> None:
        """Release the lock (if held) and close it; on Windows, remove the lock file unless another run has it open."""
        if self.descriptor is None:
            return
        if sys.platform == "win32":
            import msvcrt

            if self.held:
                with contextlib.suppress(OSError):
                    msvcrt.locking(self.descriptor, msvcrt.LK_UNLCK, 1)
            os.close(self.descriptor)
            with contextlib.suppress(OSError):
                os.unlink(self.folder / LOCK_NAME)
        else:
            os.close(self.descriptor)  # closing the folder releases its flock
        self.descriptor = None
        self.held = False
