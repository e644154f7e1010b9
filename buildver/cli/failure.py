"""How a run ends when it does not end by itself: Ctrl-C, and an unexpected exception (a crash report).

Imports only the standard library's smallest modules, so that the console script (``buildver.__main__``) can
handle Ctrl-C before typer is imported: a Ctrl-C during start-up is one line too, never a traceback.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

__all__ = [
    "CRASH_EXIT_CODE",
    "INTERRUPTED_EXIT_CODE",
    "Interrupted",
    "crash_message",
    "crash_report_folder",
    "handle_interrupts",
    "interrupted_message",
    "write_crash_report",
]

INTERRUPTED_EXIT_CODE = 130
"""Ctrl-C: 128 + SIGINT, as shells report a command that Ctrl-C stopped."""
CRASH_EXIT_CODE = 70
"""An unexpected exception, a bug in buildver: EX_SOFTWARE of BSD's sysexits.h ("internal software error")."""


class Interrupted(BaseException):
    """Ctrl-C (SIGINT), raised by buildver's own handler instead of KeyboardInterrupt.

    typer turns a KeyboardInterrupt into a silent exit 130 before buildver could say what the interrupted run
    left; this exception passes through typer untouched, and through every ``except Exception``, while every
    ``finally`` and ``except BaseException`` of the library (removing temporary files, stopping git) still runs.
    """


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    # Once only: a second Ctrl-C while the first unwinds (putting files back, stopping git) is ignored, so that the
    # clean-up finishes and the run still ends in its one line.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Interrupted


def handle_interrupts() -> Callable[[], None]:
    """Make Ctrl-C raise :class:`Interrupted` from now on; return what puts the previous handler back.

    Only where Python's own handler is in place, on the main thread: a run started with SIGINT ignored (a shell's
    background job) keeps ignoring it, and a program that calls ``main`` with a handler of its own keeps it.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        return lambda: None
    signal.signal(signal.SIGINT, _raise_interrupted)

    def restore() -> None:
        signal.signal(signal.SIGINT, previous)

    return restore


def interrupted_message() -> str:
    """The interrupted run's one line: whether it left a change half written, and what the next run does."""
    from buildver.text import printable

    changes = sys.modules.get("buildver.changes")  # not imported: nothing was written
    left: list[Path] = changes.interrupted_journals() if changes is not None else []
    if left:
        journals = ", ".join(printable(str(journal)) for journal in left)
        return (
            f"interrupted (Ctrl-C) in the middle of a change of several files: the next buildver command that "
            f"writes there finishes or undoes it, as its journal says ({journals}); nothing to do by hand"
        )
    return "interrupted (Ctrl-C); no file is half written: buildver writes each file whole or not at all"


def crash_report_folder() -> Path:
    """Where crash reports go: ``crash`` in the user's cache folder for buildver (:mod:`buildver.user_cache`)."""
    from buildver.user_cache import user_cache_folder

    return user_cache_folder() / "crash"


def _git_version() -> str:
    import subprocess

    try:
        result = subprocess.run(
            ["git", "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    return result.stdout.strip() or f"unknown (git --version exited with {result.returncode})"


def _report_text(exc: BaseException, arguments: list[str]) -> str:
    import datetime
    import platform
    import shlex
    import traceback

    from buildver import __version__

    try:
        folder = os.getcwd()
    except OSError as error:
        folder = f"unknown ({error})"
    lines = [
        "buildver crash report: attach this file to a bug report (it holds the command line below: check it first)",
        f"buildver: {__version__}",
        f"python: {sys.version} ({sys.executable})",
        f"platform: {platform.platform()} ({platform.machine()})",
        f"git: {_git_version()}",
        f"command: {shlex.join(['buildver', *arguments])}",
        f"folder: {folder}",
        f"time: {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}",
        "",
        *traceback.format_exception(exc),
    ]
    return "\n".join(line.rstrip("\n") for line in lines) + "\n"


def write_crash_report(exc: BaseException, arguments: list[str]) -> Path | str:
    """Write the crash report of ``exc`` (raised by the command ``arguments``); return its path, or why it could
    not be written. The cache folder first, the temporary folder when that fails; a new file each time (never
    one that exists), readable by its owner only, since a command line can hold a secret."""
    import tempfile
    import time

    try:
        text = _report_text(exc, arguments)
    except Exception as error:  # the report must never hide the crash
        text = f"buildver crash report (incomplete: {error!r})\n{exc!r}\n"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    reasons = []
    for folder in (crash_report_folder(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor, name = tempfile.mkstemp(prefix=f"buildver-crash-{stamp}-", suffix=".txt", dir=folder)
            with os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as stream:
                stream.write(text)
            return Path(name)
        except OSError as error:
            reasons.append(f"{folder}: {error.strerror or error}")
    return "; ".join(reasons)


def crash_message(exc: BaseException, report: Path | str) -> str:
    """The crashed run's one line: what was raised, and where the report is (or why there is none)."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    where = (
        f"a crash report is in {report}: please attach it to a bug report"
        if isinstance(report, Path)
        else f"no crash report could be written ({report})"
    )
    return f"unexpected error, a bug in buildver ({what}); {where}"
