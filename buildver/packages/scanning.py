"""Scan content folders: find every package under them and say whether this engine can load it safely.

The walk is sorted and streams (memory stays flat however large the tree); names that are not regular files
(FIFOs, devices, dangling links) are reported without being opened; ``jobs > 1`` spreads the reading over
processes. Each package's status is ``buildver.packages.verdicts.classify``'s. Nothing here prints.
"""

from __future__ import annotations

import itertools
import operator
import os
import stat
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.file_names import PACKAGE_EXTENSIONS
from buildver.packages.engine_ini import zero_engine_version_warning
from buildver.packages.verdicts import ScanResult, ScanStatus, scan_file
from buildver.reading import file_kind

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from concurrent.futures import Future

    from buildver.versions.engine_version import EngineVersion

__all__ = ["PARALLEL_THRESHOLD", "default_jobs", "iter_packages", "jobs_for", "scan"]

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
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=_BY_NAME)
        except OSError as exc:
            yield folder, (ScanStatus.CORRUPT, f"cannot list the folder: {exc.strerror or exc}")
            continue
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
            yield entry.path, None if regular else _special_file(entry.path)
        stack.extend(reversed(subfolders))


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


def scan(roots: Iterable[Path], engine: EngineVersion, *, jobs: int | None = 1) -> Iterator[ScanResult]:
    """Scan every package under ``roots`` against ``engine``, in walk order; ``jobs`` processes read the headers.

    ``jobs=None`` chooses: :func:`default_jobs` processes once the walk has found :data:`PARALLEL_THRESHOLD`
    packages, else one. The ZeroEngineVersionWarning setting is looked up once per root, in the project that holds it.
    """
    tasks = _tasks(roots)
    if jobs is None:
        jobs = default_jobs()
        if jobs > 1:
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
    if jobs <= 1:
        for paths, before, warn_empty in tasks:
            yield from before
            for path in paths:
                yield scan_file(path, engine, warn_empty, listed_as_file=True)
        return
    from concurrent.futures import ProcessPoolExecutor

    # This process reads every jobs-th chunk itself, between writing out the others' results: one process
    # fewer to start, and no process idle while the others read.
    pool = ProcessPoolExecutor(max_workers=jobs - 1)
    pending: deque[tuple[list[ScanResult], Future[list[ScanResult]] | tuple[list[str], bool]]] = deque()
    try:
        for index, (paths, before, warn_empty) in enumerate(tasks):
            if index % jobs == 0:
                pending.append((before, (paths, warn_empty)))
            else:
                pending.append((before, pool.submit(_scan_chunk, paths, engine, warn_empty)))
            # A bounded queue keeps memory flat: the walk runs only a few chunks ahead of the output.
            while len(pending) > 4 * jobs:
                yield from _results(pending.popleft(), engine)
        while pending:
            yield from _results(pending.popleft(), engine)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _results(
    task: tuple[list[ScanResult], Future[list[ScanResult]] | tuple[list[str], bool]], engine: EngineVersion
) -> Iterator[ScanResult]:
    before, work = task
    yield from before
    if isinstance(work, tuple):
        paths, warn_empty = work
        yield from _scan_chunk(paths, engine, warn_empty)
    else:
        yield from work.result()


def _scan_chunk(paths: list[str], engine: EngineVersion, warn_empty: bool) -> list[ScanResult]:
    return [scan_file(path, engine, warn_empty, listed_as_file=True) for path in paths]


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
