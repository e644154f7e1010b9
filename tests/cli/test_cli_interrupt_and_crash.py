"""Issue 30, item 10 and its crash report: how a run ends when it does not end by itself.

Ctrl-C is a real SIGINT that the process sends itself at a chosen moment (while typer is being imported; between
the renames of a change of several files): one ``buildver: error: interrupted ...`` line, exit 130, no traceback.
An unexpected exception is one line naming a crash report, exit 70; the report holds the versions, the command and
the traceback.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import BUILDVER, default_ctrl_c

from buildver.changes import JOURNAL_NAME

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a SIGINT sent to a process is a POSIX notion")

UE503 = (Path(__file__).parents[1] / "data" / "build_version" / "ue5.0.3.version").read_bytes()
BRANCH = ["--branch", "++Game+Main"]


def run_script(
    cwd: Path, script: str, *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``script`` (which prepares the moment of the signal), then buildver's console script with ``arguments``."""
    program = textwrap.dedent(script) + "\nimport sys\nsys.argv = ['buildver', *sys.argv[1:]]\n"
    program += "from buildver.__main__ import run\nrun()\n"
    return subprocess.run(
        [sys.executable, "-c", program, *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        # A shell starts background jobs with SIGINT ignored, and a child inherits that: give buildver the default.
        preexec_fn=default_ctrl_c,
    )


CTRL_C_WHILE_IMPORTING_TYPER = """
import importlib.abc, os, signal, sys

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
"""

CTRL_C_BETWEEN_TWO_RENAMES = """
import os, signal
replace = os.replace

def replace_then_ctrl_c(source, target, *arguments, **settings):
    replace(source, target, *arguments, **settings)
    if not os.fspath(target).endswith(".buildver-journal"):
        os.replace = replace
        os.kill(os.getpid(), signal.SIGINT)

os.replace = replace_then_ctrl_c
"""


def test_ctrl_c_during_start_up_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """It was a KeyboardInterrupt traceback, and the process died of SIGINT."""
    result = run_script(tmp_path, CTRL_C_WHILE_IMPORTING_TYPER, "compare", "1.0.0", "1.0.1")
    assert result.returncode == 130, result.stderr
    assert result.stdout == ""
    assert result.stderr == (
        "buildver: error: interrupted (Ctrl-C); no file is half written: buildver writes each file whole or not "
        "at all\n"
    )


def test_ctrl_c_in_the_middle_of_a_change_says_what_the_next_run_does_and_it_does(tmp_path: Path) -> None:
    """It was exit 130 with nothing on stderr, and a journal left for the next run without a word."""
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_bytes(UE503)
    result = run_script(tmp_path, CTRL_C_BETWEEN_TWO_RENAMES, "update-local", "--cl", "5", *BRANCH)
    assert result.returncode == 130, result.stderr
    assert result.stdout == ""
    journal = tmp_path / "Build" / JOURNAL_NAME
    assert journal.exists()
    assert result.stderr == (
        "buildver: error: interrupted (Ctrl-C) in the middle of a change of several files: the next buildver "
        f"command that writes there finishes or undoes it, as its journal says ({journal}); nothing to do by hand\n"
    )
    again = subprocess.run(
        [BUILDVER, "update-local", "--cl", "5", *BRANCH], cwd=tmp_path, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    assert not journal.exists()
    check = subprocess.run([BUILDVER, "header", "--check"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert '"Changelist": 5,' in (tmp_path / "Build" / "Build.version").read_text()


def test_ctrl_c_ignored_by_the_shell_stays_ignored(tmp_path: Path) -> None:
    """A background job (started with SIGINT ignored) is not stopped by a Ctrl-C meant for the foreground."""
    script = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n" + CTRL_C_WHILE_IMPORTING_TYPER
    result = run_script(tmp_path, script, "compare", "1.0.0", "1.0.1")
    assert result.returncode == 12, result.stderr
    assert result.stderr == ""


BUG = """
import buildver.versions.engine_version as engine_version

def parse(text):
    raise ZeroDivisionError("a bug, planted")

engine_version.EngineVersion.parse = staticmethod(parse)
"""


def test_an_unexpected_exception_is_one_line_and_a_crash_report(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    result = run_script(tmp_path, BUG, "compare", "1.0.0", "1.0.1", env={"XDG_CACHE_HOME": str(cache)})
    assert result.returncode == 70, result.stderr
    assert result.stdout == ""
    match = re.fullmatch(
        r"buildver: error: unexpected error, a bug in buildver \(ZeroDivisionError: a bug, planted\); a crash report "
        r"is in (?P<report>\S+): please attach it to a bug report\n",
        result.stderr,
    )
    assert match is not None, result.stderr
    report = Path(match["report"])
    assert report.parent == cache / "buildver" / "crash"
    assert oct(report.stat().st_mode & 0o777) == oct(0o600)
    text = report.read_text()
    from buildver import __version__

    for expected in (
        f"buildver: {__version__}\n",
        f"python: {sys.version}",
        "platform: ",
        "git: git version ",
        "command: buildver compare 1.0.0 1.0.1\n",
        f"folder: {tmp_path}\n",
        "Traceback (most recent call last):",
        "ZeroDivisionError: a bug, planted\n",
    ):
        assert expected in text, text


def test_a_crash_report_goes_to_the_temporary_folder_when_the_cache_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    result = run_script(
        tmp_path,
        BUG,
        "compare",
        "1.0.0",
        "1.0.1",
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(temporary)},
    )
    assert result.returncode == 70, result.stderr
    reports = list(temporary.glob("buildver-crash-*.txt"))
    assert len(reports) == 1
    assert f"a crash report is in {reports[0]}: " in result.stderr
