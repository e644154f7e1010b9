"""Scan content folders: find every package under them and say whether this engine can load it safely.

The walk is sorted and streams (memory stays flat however large the tree); names that are not regular files
(FIFOs, devices, dangling links) are reported without being opened; ``jobs > 1`` spreads the reading over
processes. Each package's status is ``buildver.packages.verdicts.classify``'s. Nothing here prints.

Where this install has the compiled core (``_native.c``; :func:`native_core`), it lists the folders and reads the
common headers, and each distinct header is classified once; everything else goes to the Python reader
(``buildver.packages.reader``), which holds every rule.
"""

from __future__ import annotations

import itertools
import operator
import os
import stat
import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

from buildver._records import trusted_builder
from buildver.errors import PackageFormatError
from buildver.file_names import PACKAGE_EXTENSIONS
from buildver.packages.engine_ini import zero_engine_version_warning
from buildver.packages.object_versions import (
    KNOWN_MAX_FILE_VERSION_UE4,
    KNOWN_MAX_FILE_VERSION_UE5,
    KNOWN_MIN_LEGACY_FILE_VERSION,
)
from buildver.packages.reader import read_package_summary
from buildver.packages.verdicts import (
    SHARED_RESULTS_LIMIT,
    ScanResult,
    ScanStatus,
    classify,
    classify_shared,
    scan_file,
    unreadable,
)
from buildver.reading import file_kind

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from concurrent.futures import Future
    from types import ModuleType

    from buildver.packages.tree_tables import VersionTables
    from buildver.versions.engine_version import EngineVersion

__all__ = [
    "PARALLEL_THRESHOLD",
    "default_jobs",
    "iter_packages",
    "jobs_for",
    "native_core",
    "reader_description",
    "scan",
    "scan_shared",
    "watch_parent",
]

CHUNK_SIZE = 256
"""Files per task when scanning with several processes: large enough to amortize the pickling."""


def iter_packages(root: Path) -> Iterator[tuple[str, str | None]]:
    """``(path, None)`` for each package under ``root`` in sorted walk order, ``(path, reason)`` for a folder that
    cannot be listed and for a package name that is not a regular file (a FIFO, socket or device, a dangling or
    looping symbolic link, a link to a folder). ``root`` itself is scanned when it is a file, whatever its name."""
    for path, problem in _walk(root):
        yield path, None if problem is None else problem[1]


_BY_NAME = operator.attrgetter("name")
_Problem = tuple[ScanStatus, str]
"""A status decided without reading the file, and why."""


def _walk(root: Path) -> Iterator[tuple[str, _Problem | None]]:
    """The walk behind :func:`iter_packages`: each package path, with the status of one that is not read.

    A package name that is not a regular file is reported from the folder listing and never opened: opening a
    FIFO for reading waits for a writer wherever O_NONBLOCK does not exist, and a device such as ``/dev/zero``
    never ends.
    """
    top = os.fspath(root)
    if not os.path.isdir(top):
        yield top, _special_file(top)
        return
    core = native_core()
    stack = [top]
    while stack:
        folder = stack.pop()
        listing = None if core is None else core.scan_folder(folder, False)
        if listing is None:
            files, subfolders = _list_folder(folder)
            yield from files
        else:  # listed by the core, nothing read: a regular file is -1, a name to look at (a link, a FIFO) -2
            numbered, subfolders = listing
            for path, code in numbered:
                yield path, None if code != _NOT_LISTED_AS_REGULAR else _special_file(path)
        stack.extend(reversed(subfolders))


def _list_folder(folder: str) -> tuple[list[tuple[str, _Problem | None]], list[str]]:
    """The packages of one folder in sorted order (as :func:`_walk` yields them) and its subfolders, sorted."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=_BY_NAME)
    except OSError as exc:
        return [(folder, (ScanStatus.CORRUPT, f"cannot list the folder: {exc.strerror or exc}"))], []
    files: list[tuple[str, _Problem | None]] = []
    subfolders = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
                continue
        except OSError:
            pass
        if not entry.name.lower().endswith(PACKAGE_EXTENSIONS):
            continue
        try:
            regular = entry.is_file()  # from the listing itself, except for a symbolic link
        except OSError:
            regular = False
        files.append((entry.path, None if regular else _special_file(entry.path)))
    return files, subfolders


def _special_file(path: str) -> _Problem | None:
    """Why ``path`` is not read as a package (None for a regular file, or a link to one); from ``stat`` alone."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        try:
            target = os.readlink(path)
        except OSError:
            return ScanStatus.CORRUPT, "cannot read: no such file"  # removed since the folder was listed
        return ScanStatus.CORRUPT, f"cannot read: a symbolic link to {target!r}, which does not exist"
    except OSError as exc:  # a loop of links, a folder that cannot be searched, ...
        return ScanStatus.CORRUPT, f"cannot read: {_reason(exc)}"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return ScanStatus.NOT_A_PACKAGE, "a symbolic link to a folder, which is not followed"
    return ScanStatus.NOT_A_PACKAGE, f"not a regular file: {file_kind(mode)}, never opened"


def _reason(exc: OSError) -> str:
    return exc.strerror.lower() if exc.strerror else str(exc)


def _problem_result(path: str, problem: _Problem) -> ScanResult:
    status, reason = problem
    return ScanResult(path, status, error=f"{path}: {reason}")


PARALLEL_THRESHOLD = 5_000
"""Packages from which ``scan(jobs=None)`` reads with several processes: below it, starting them costs more than
they save (about 25 ms; benchmarks/bench_assets.py measures both sides)."""


def default_jobs() -> int:
    """Processes for a large scan: one per CPU this process may use that other work leaves idle."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpus = os.cpu_count() or 1
    try:
        load: float | None = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no load average
        load = None
    return jobs_for(cpus, load)


def jobs_for(cpus: int, load: float | None) -> int:
    """Processes worth starting on ``cpus`` CPUs under a one-minute load average of ``load`` (None: unknown).

    A busy CPU gives a second process nothing to gain: on a loaded machine the extra processes only add their
    start-up and the passing of results (benchmarks/bench_assets.py), so only the idle CPUs count.

    >>> jobs_for(8, 0.2), jobs_for(8, 6.7), jobs_for(2, 3.5), jobs_for(4, None)
    (8, 1, 1, 4)
    """
    if load is None:
        return max(1, cpus)
    return max(1, min(cpus, round(cpus - load)))


def scan(
    roots: Iterable[Path], engine: EngineVersion, *, jobs: int | None = 1, tables: VersionTables | None = None
) -> Iterator[ScanResult]:
    """Scan every package under ``roots`` against ``engine``, in walk order; ``jobs`` processes read the headers.

    ``jobs=None`` chooses: :func:`default_jobs` processes once the walk has found :data:`PARALLEL_THRESHOLD`
    packages, else one. The ZeroEngineVersionWarning setting is looked up once per root, in the project that holds it.
    ``tables``: the engine's own version tables (:func:`buildver.packages.verdicts.classify`).
    """
    for path, result in scan_shared(roots, engine, jobs=jobs, tables=tables):
        yield result if result.path else _with_path(result, path)


def scan_shared(
    roots: Iterable[Path], engine: EngineVersion, *, jobs: int | None = 1, tables: VersionTables | None = None
) -> Iterator[tuple[str, ScanResult]]:
    """:func:`scan` as ``(path, result)`` pairs, where packages with the same header share one result.

    A shared result's ``path`` is empty: the pair's ``path`` is the file's. A project's packages have a few dozen
    distinct headers (the same versions, the same custom versions), so each is classified once, and a caller
    that formats results (``assets scan --json``) can format each shared one once too.
    """
    roots = list(roots)
    chosen = jobs is None
    if jobs is None:
        jobs = default_jobs()
    core = native_core()
    if jobs <= 1 and core is not None:
        yield from _scan_native(roots, engine, core, tables)
        return
    tasks = _tasks(roots)
    if chosen and jobs > 1:
        # Walk ahead until the tree is known to be large enough (a bounded look-ahead: memory stays flat).
        ahead: list[tuple[list[str], list[ScanResult], bool]] = []
        found = 0
        for task in tasks:
            ahead.append(task)
            found += len(task[0])
            if found >= PARALLEL_THRESHOLD:
                break
        else:
            jobs = 1
        tasks = itertools.chain(ahead, tasks)
    if jobs <= 1:  # without the core; or the look-ahead found too few packages for processes: go on with its walk
        for paths, before, warn_empty in tasks:
            yield from _results((before, paths, warn_empty), engine, tables)
        return
    from concurrent.futures import ProcessPoolExecutor

    # This process reads every jobs-th chunk itself, between writing out the others' results: one process
    # fewer to start, and no process idle while the others read. Each worker watches this process and ends when
    # it is gone (killed), rather than waiting forever on its task queue.
    pool = ProcessPoolExecutor(max_workers=jobs - 1, initializer=watch_parent)
    pending: deque[tuple[list[ScanResult], list[str], Future[list[ScanResult]] | bool]] = deque()
    try:
        for index, (paths, before, warn_empty) in enumerate(tasks):
            if index % jobs == 0:
                pending.append((before, paths, warn_empty))
            else:
                pending.append((before, paths, pool.submit(_scan_chunk, paths, engine, warn_empty, tables)))
            # A bounded queue keeps memory flat: the walk runs only a few chunks ahead of the output.
            while len(pending) > 4 * jobs:
                yield from _results(pending.popleft(), engine, tables)
        while pending:
            yield from _results(pending.popleft(), engine, tables)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _with_path(result: ScanResult, path: str) -> ScanResult:
    return _new_result(
        path,
        result.status,
        result.legacy_file_version,
        result.file_version_ue4,
        result.file_version_ue5,
        result.licensee_version,
        result.saved_by,
        result.compatible_with,
        result.error,
    )


_new_result = trusted_builder(ScanResult)


def _read(
    path: str,
    engine: EngineVersion,
    warn_empty: bool,
    memo: dict[int, ScanResult],
    key: int | None,
    tables: VersionTables | None = None,
) -> ScanResult:
    """The file read by the Python reader; its result shared under ``key``, the core's number for its header (None
    or negative: the core did not read it, or handed it back: then shared by what the summary holds)."""
    try:
        summary = read_package_summary(path, listed_as_file=True)
    except PackageFormatError as exc:
        return unreadable(path, exc)  # its reason names the file: never shared
    if key is not None and key >= 0:
        shared = classify("", summary, engine, warn_empty, tables)
        if len(memo) >= SHARED_RESULTS_LIMIT:
            memo.clear()
        memo[key] = shared
        return shared
    # Without the core: shared by what the summary holds.
    return classify_shared(summary, engine, warn_empty, tables)


_MEMOS: dict[tuple[EngineVersion, bool, VersionTables | None], dict[int, ScanResult]] = {}
"""By the core's number for a header."""


def _memo_for(engine: EngineVersion, warn_empty: bool, tables: VersionTables | None = None) -> dict[int, ScanResult]:
    """The shared results of this process for one engine, warning setting and tables (a worker keeps them between
    chunks)."""
    memo = _MEMOS.get((engine, warn_empty, tables))
    if memo is None:
        if len(_MEMOS) >= 8:
            _MEMOS.clear()
        memo = _MEMOS[engine, warn_empty, tables] = {}
    return memo


def _scan_native(
    roots: Iterable[Path], engine: EngineVersion, core: ModuleType, tables: VersionTables | None = None
) -> Iterator[tuple[str, ScanResult]]:
    """One process, the core listing each folder and reading each package; the Python reader reads the first file
    of each distinct header, and every file the core hands back (see ``_native.c``)."""
    scan_folder = core.scan_folder
    for root in roots:
        warn_empty = zero_engine_version_warning(root)
        memo = _memo_for(engine, warn_empty, tables)
        top = os.fspath(root)
        if not os.path.isdir(top):
            yield top, _listed(top, _special_file(top), engine, warn_empty, tables)
            continue
        stack = [top]
        while stack:
            folder = stack.pop()
            listing = scan_folder(folder)
            if listing is None:  # Python lists this folder (an error, a name that is not UTF-8, Windows)
                files, subfolders = _list_folder(folder)
                for path, problem in files:
                    if problem is not None:
                        yield path, _problem_result(path, problem)
                        continue
                    key = core.read_key(path)
                    shared = memo.get(key)
                    yield path, shared if shared is not None else _read(path, engine, warn_empty, memo, key, tables)
            else:
                numbered, subfolders = listing
                for path, key in numbered:
                    shared = memo.get(key)
                    if shared is not None:
                        yield path, shared
                    elif key >= 0:
                        yield path, _read(path, engine, warn_empty, memo, key, tables)
                    elif key == _NOT_LISTED_AS_REGULAR:
                        yield path, _listed(path, _special_file(path), engine, warn_empty, tables)
                    else:
                        yield path, _read(path, engine, warn_empty, memo, None, tables)
            stack.extend(reversed(subfolders))


_NOT_LISTED_AS_REGULAR = -2
"""The core's code for a package name that the listing does not give as a regular file."""


def _listed(
    path: str, problem: _Problem | None, engine: EngineVersion, warn_empty: bool, tables: VersionTables | None = None
) -> ScanResult:
    if problem is not None:
        return _problem_result(path, problem)
    return scan_file(path, engine, warn_empty, listed_as_file=True, tables=tables)


def _results(
    task: tuple[list[ScanResult], list[str], Future[list[ScanResult]] | bool],
    engine: EngineVersion,
    tables: VersionTables | None = None,
) -> Iterator[tuple[str, ScanResult]]:
    before, paths, work = task
    for result in before:
        yield result.path, result
    results = _scan_chunk(paths, engine, work, tables) if isinstance(work, bool) else work.result()
    yield from zip(paths, results, strict=True)


def _scan_chunk(
    paths: list[str], engine: EngineVersion, warn_empty: bool, tables: VersionTables | None = None
) -> list[ScanResult]:
    """The results of ``paths``, in order; results shared by several files have an empty path (and are pickled
    once per chunk when they come from a worker)."""
    memo = _memo_for(engine, warn_empty, tables)
    core = native_core()
    if core is None:
        return [_read(path, engine, warn_empty, memo, None, tables) for path in paths]
    read_key = core.read_key
    results = []
    for path in paths:
        key = read_key(path)
        shared = memo.get(key)
        results.append(shared if shared is not None else _read(path, engine, warn_empty, memo, key, tables))
    return results


def watch_parent() -> None:
    """In a worker process: end it as soon as the process that started it is gone.

    A worker waits on its task queue, a pipe whose writing end every worker inherited too: when the parent is
    killed (SIGKILL, TerminateProcess: nothing to clean up), no end of file ever comes, and the workers would wait
    forever. multiprocessing gives each worker a sentinel of its parent, which becomes ready when the parent ends: a
    pipe the parent alone writes to on POSIX, the parent's process handle on Windows. A thread waits on it.
    """
    import multiprocessing
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="buildver-watch-parent", daemon=True).start()


_CORE: list[ModuleType | None] = []


def native_core() -> ModuleType | None:
    """The compiled core (``buildver.packages._native``) when this install has one and it is not turned off by
    ``BUILDVER_PURE_PYTHON=1``; else None, and the pure-Python reader reads every file, with the same results."""
    if not _CORE:
        _CORE.append(_load_core())
    return _CORE[0]


def _load_core() -> ModuleType | None:
    if os.environ.get("BUILDVER_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from buildver.packages import _native
    except ImportError:
        return None
    # The core never accepts a header newer than the Python reader knows: that reader decides what is newer.
    _native.configure(KNOWN_MIN_LEGACY_FILE_VERSION, KNOWN_MAX_FILE_VERSION_UE4, KNOWN_MAX_FILE_VERSION_UE5)
    return _native


def reader_description() -> str:
    """Which reader reads package headers in this process, for ``assets scan --verbose``."""
    if native_core() is not None:
        return "the compiled core (buildver.packages._native), the Python reader for unusual files"
    if os.environ.get("BUILDVER_PURE_PYTHON", "") not in ("", "0"):
        return "the pure-Python reader (BUILDVER_PURE_PYTHON is set)"
    return "the pure-Python reader (this install has no compiled core)"


def _tasks(roots: Iterable[Path]) -> Iterator[tuple[list[str], list[ScanResult], bool]]:
    """Chunks of package paths to read, each with the results decided without reading that come before it (folders
    that could not be listed, names that are not regular files) and its warning setting."""
    for root in roots:
        warn_empty = zero_engine_version_warning(root)
        paths: list[str] = []
        before: list[ScanResult] = []
        for path, problem in _walk(root):
            if problem is not None:
                if paths:
                    yield paths, before, warn_empty
                    paths, before = [], []
                before.append(_problem_result(path, problem))
                continue
            paths.append(path)
            if len(paths) >= CHUNK_SIZE:
                yield paths, before, warn_empty
                paths, before = [], []
        if paths or before:
            yield paths, before, warn_empty
