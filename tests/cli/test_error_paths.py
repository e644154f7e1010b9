"""Error paths users hit, on the real ``buildver`` command: one ``buildver: error:`` line naming the file, the
documented exit code, no traceback, and nothing written or left behind.

Files that cannot be read, folders that cannot be made and files that vanish are real kernel errors: strace fails
the system call of the running process (``tests/helpers.py``), so that they happen to root too. Git missing is a
PATH without it; git failing is a repository whose objects are gone; Ctrl-C is a SIGINT sent to the process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    BUILDVER,
    GIT_IDENTITY,
    default_ctrl_c,
    git,
    needs_strace,
    run_with_failed_syscall,
    syscall_ordinal,
)

from buildver.changes import locked

DATA = Path(__file__).parents[1] / "data"
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
OPENS = "open,openat"
READ_DENIED = "Permission denied"
BRANCH = ["--branch", "++Game+Main"]


def every_file(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def every_entry(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def tree(root: Path, *, header: bool = False) -> Path:
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(UE503)
    if header:
        subprocess.run([BUILDVER, "update-local", "--cl", "1", *BRANCH], cwd=root, check=True, capture_output=True)
    return root


def assert_one_error_line(result: subprocess.CompletedProcess[str], code: int, message: str) -> None:
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    assert result.stderr == f"buildver: error: {message}\n"


# -- files that cannot be read ----------------------------------------------------------------------------------


@needs_strace
@pytest.mark.parametrize(
    "argv",
    [["show"], ["update-local", "--cl", "6", *BRANCH], ["header"], ["header", "--check"]],
    ids=["show", "update-local", "header", "header-check"],
)
def test_a_build_version_that_cannot_be_read_is_one_error_and_nothing_is_written(
    tmp_path: Path, argv: list[str]
) -> None:
    root = tree(tmp_path / "game", header=True)
    target = root / "Build" / "Build.version"
    before = every_file(root)
    result = run_with_failed_syscall([BUILDVER, *argv], root, OPENS, "EACCES", path=target)
    assert_one_error_line(result, 1, f"{target}: cannot read the file ({READ_DENIED})")
    assert every_file(root) == before


@needs_strace
@pytest.mark.parametrize(
    "argv",
    [["update-local", "--cl", "6", *BRANCH], ["header"], ["header", "--check"]],
    ids=["update-local", "header", "header-check"],
)
def test_an_existing_header_that_cannot_be_read_is_one_error_and_nothing_is_written(
    tmp_path: Path, argv: list[str]
) -> None:
    root = tree(tmp_path / "game", header=True)
    header = root / "Build" / "BuildVersion.h"
    before = every_file(root)
    result = run_with_failed_syscall([BUILDVER, *argv], root, OPENS, "EACCES", path=header)
    assert_one_error_line(
        result,
        1,
        f"{header}: cannot read the header ({READ_DENIED}); to leave the header alone, pass --skip-header "
        "or set skip-header = true in [tool.buildver]",
    )
    assert every_file(root) == before


SETTINGS = 'version-file = "Build/Build.version"\n'


@needs_strace
def test_a_buildver_toml_that_cannot_be_read_is_one_error(tmp_path: Path) -> None:
    root = tree(tmp_path / "game")
    (root / "buildver.toml").write_text(SETTINGS)
    result = run_with_failed_syscall([BUILDVER, "show"], root, OPENS, "EACCES", path=root / "buildver.toml")
    assert_one_error_line(result, 1, f"{root / 'buildver.toml'}: cannot read the settings ({READ_DENIED})")


@needs_strace
def test_a_pyproject_toml_that_cannot_be_read_is_one_error(tmp_path: Path) -> None:
    root = tree(tmp_path / "game")
    (root / "pyproject.toml").write_text("[tool.buildver]\n" + SETTINGS)
    result = run_with_failed_syscall([BUILDVER, "show"], root, OPENS, "EACCES", path=root / "pyproject.toml")
    assert_one_error_line(result, 1, f"{root / 'pyproject.toml'}: cannot read the settings ({READ_DENIED})")


@pytest.mark.parametrize(
    ("content", "at"),
    [
        (b'[project]\nname = "\xff"\n[tool.buildver]\n', 18),
        (b"[tool.buildver]\n# caf\xe9 in latin-1\n", 21),
        (b"\xef\xbb\xbf[tool.buildver]\n\xc3(\n", 19),
    ],
    ids=["latin-1-in-a-string", "latin-1-in-a-comment", "bom-then-a-bad-sequence"],
)
@pytest.mark.parametrize("argv", [["show"], ["update-local", "--cl", "6", *BRANCH]], ids=["show", "update-local"])
def test_a_pyproject_toml_that_is_not_utf8_is_one_error_naming_the_byte(
    tmp_path: Path, content: bytes, at: int, argv: list[str]
) -> None:
    root = tree(tmp_path / "game")
    (root / "pyproject.toml").write_bytes(content)
    before = every_file(root)
    result = subprocess.run([BUILDVER, *argv], cwd=root, capture_output=True, text=True, check=False)
    assert_one_error_line(result, 1, f"{root / 'pyproject.toml'}: byte {at}: the file is not UTF-8")
    assert every_file(root) == before


# -- a configuration file that vanished while buildver was working -----------------------------------------------


@needs_strace
@pytest.mark.parametrize(
    ("name", "content", "when"),
    [
        # buildver.toml is found by its name (a stat), then read once: that read finds it gone.
        ("buildver.toml", SETTINGS, 1),
        # pyproject.toml is read once to see whether it has [tool.buildver], then again to load it: gone then.
        ("pyproject.toml", "[tool.buildver]\n" + SETTINGS, 2),
    ],
)
def test_a_configuration_file_that_vanished_is_one_error(tmp_path: Path, name: str, content: str, when: int) -> None:
    root = tree(tmp_path / "game")
    (root / name).write_text(content)
    result = run_with_failed_syscall(
        [BUILDVER, "update-local", "--cl", "6", *BRANCH], root, OPENS, "ENOENT", when=when, path=root / name
    )
    message = "cannot read the settings (the file was removed while buildver was working)"
    assert_one_error_line(result, 1, f"{root / name}: {message}")
    assert (root / "Build" / "Build.version").read_bytes() == UE503


# -- init: a folder it cannot make, and the clean-up of the ones it made -------------------------------------------


def test_init_whose_folder_is_blocked_by_a_file_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "Deep").write_text("a file where init needs a folder\n")
    before = every_entry(tmp_path)
    result = subprocess.run(
        [BUILDVER, "init", "--version", "5.3.0", "--file", "Deep/Nested/Build.version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 3, result.stderr
    # The system's reason in between ("Not a directory" on Linux and macOS) is the platform's wording.
    assert result.stderr.startswith(f"buildver: error: {tmp_path / 'Deep' / 'Nested'}: cannot create the folder (")
    assert result.stderr.endswith("); nothing was written\n")
    assert result.stderr.count("\n") == 1
    assert every_entry(tmp_path) == before


@needs_strace
def test_init_that_cannot_make_a_folder_removes_the_folders_it_made(tmp_path: Path) -> None:
    root = tmp_path / "game"
    root.mkdir()
    blocked = root / "Engine" / "Build"
    result = run_with_failed_syscall(
        [BUILDVER, "init", "--version", "5.3.0", "--file", "Engine/Build/Build.version"],
        root,
        "mkdir,mkdirat",
        "ENOSPC",
        path=blocked,
    )
    assert_one_error_line(
        result, 3, f"{blocked}: cannot create the folder (No space left on device); nothing was written"
    )
    assert every_entry(root) == set()  # Engine/, made first, is gone again


@needs_strace
@pytest.mark.parametrize("failing", ["Build.version", "buildver.toml"])
def test_init_whose_write_fails_removes_the_folders_it_made(tmp_path: Path, failing: str) -> None:
    command = [BUILDVER, "init", "--version", "5.3.0", "--file", "Engine/Build/Build.version"]
    targets = {"Build.version": Path("Engine/Build/Build.version"), "buildver.toml": Path("buildver.toml")}
    probe = tmp_path / "probe"
    probe.mkdir()
    renames = "rename,renameat,renameat2"
    ordinal = syscall_ordinal(command, probe, renames, targets[failing])
    root = tmp_path / "game"
    root.mkdir()
    result = run_with_failed_syscall(command, root, renames, "EROFS", when=ordinal)
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("buildver: error: ")
    assert "Read-only file system" in result.stderr
    assert result.stderr.count("\n") == 1
    assert every_entry(root) == set()


# -- git missing or failing ---------------------------------------------------------------------------------------


def git_tree(root: Path) -> Path:
    tree(root)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "one")
    return root


def without_git(tmp_path: Path) -> dict[str, str]:
    """The environment with a PATH that has no git (an empty folder)."""
    empty = tmp_path / "no-git-here"
    empty.mkdir(exist_ok=True)
    return {**os.environ, **GIT_IDENTITY, "PATH": str(empty)}


@pytest.mark.parametrize(
    "argv",
    [["update-local", *BRANCH], ["update-local", "--cl", "5"], ["update-local", "--dry-run"]],
    ids=["changelist-from-git", "branch-from-git", "dry-run"],
)
def test_update_local_without_git_on_path_is_one_error_and_writes_nothing(tmp_path: Path, argv: list[str]) -> None:
    root = git_tree(tmp_path / "game")
    before = every_file(root)
    result = subprocess.run(
        [BUILDVER, *argv], cwd=root, capture_output=True, text=True, check=False, env=without_git(tmp_path)
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"buildver: error: {root}: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert every_file(root) == before


def test_update_local_without_git_on_path_says_git_cannot_be_run(tmp_path: Path) -> None:
    root = git_tree(tmp_path / "game")
    result = subprocess.run(
        [BUILDVER, "update-local", *BRANCH],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env=without_git(tmp_path),
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"buildver: error: {root}: ")
    assert "cannot run git" in result.stderr
    assert result.stderr.count("\n") == 1


def test_the_guard_without_git_on_path_is_one_error(tmp_path: Path) -> None:
    root = git_tree(tmp_path / "game")
    result = subprocess.run(
        [BUILDVER, "guard"], cwd=root, capture_output=True, text=True, check=False, env=without_git(tmp_path)
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"buildver: error: {root}: ")
    assert "cannot run git" in result.stderr
    assert result.stderr.count("\n") == 1


def test_update_local_when_git_fails_names_the_repository_and_gits_reason(tmp_path: Path) -> None:
    root = git_tree(tmp_path / "game")
    for loose in (root / ".git" / "objects").glob("??"):  # every object gone: HEAD names a commit git cannot find
        for entry in loose.iterdir():
            entry.unlink()
        loose.rmdir()
    before = every_file(root)
    result = subprocess.run([BUILDVER, "update-local", *BRANCH], cwd=root, capture_output=True, text=True, check=False)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"buildver: error: {root}: ")
    assert "bad object HEAD" in result.stderr  # git's own reason
    assert result.stderr.count("\n") == 1
    assert every_file(root) == before


# -- Ctrl-C -------------------------------------------------------------------------------------------------------


def wait_until_it_holds_open(process: subprocess.Popen[str], folder: Path) -> None:
    """Wait until ``process`` has ``folder`` open: it then waits for the folder's lock (flock on the folder).

    Where /proc does not list open files (macOS), wait three seconds instead.
    """
    descriptors = Path(f"/proc/{process.pid}/fd")
    if not descriptors.parent.is_dir():
        time.sleep(3)
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(OSError):  # a descriptor closed while it was listed
            if any(os.readlink(entry) == str(folder) for entry in descriptors.iterdir()):
                time.sleep(0.2)  # from the open to the first attempt at the lock
                return
        time.sleep(0.02)
    raise AssertionError(f"buildver never opened {folder}: {process.communicate()}")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to another process is a POSIX notion")
@pytest.mark.parametrize("argv", [["update-local", "--cl", "5", *BRANCH], ["header"]], ids=["update-local", "header"])
def test_ctrl_c_while_waiting_for_the_lock_exits_130_and_writes_nothing(tmp_path: Path, argv: list[str]) -> None:
    root = tree(tmp_path / "game")
    before = every_file(root)
    with locked(root / "Build"):  # another run holds the folder: buildver waits for it
        process = subprocess.Popen(
            [BUILDVER, *argv],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # A shell starts background jobs (CI scripts run with &) with SIGINT ignored, and a child inherits that:
            # give buildver the default, as a terminal's Ctrl-C finds it.
            preexec_fn=default_ctrl_c,
        )
        wait_until_it_holds_open(process, root / "Build")
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert out == ""
    assert "Traceback" not in err
    assert err.count("\n") <= 1
    assert every_file(root) == before
