"""The guard on staged files made to break it (issue 23): it never opens a special file, never waits, never reads a
file larger than any real one, and asks git for every blob by its object id, so that a path git would parse
(``1:/Build.version``, index stage 1) or one holding a newline is checked like any other."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import GIT_IDENTITY, GitRepository, git

from buildver.guard.run import STAGED_SIZE_LIMITS, _check_package_file
from buildver.guard.settings import Finding, GuardSettings
from buildver.versions.build_version import BuildVersion, render_new_file

VERSION = BuildVersion(5, 3, 2, 1000, branch_name="++Game+Main")
GOOD = render_new_file(VERSION).encode()
NEGATIVE = GOOD.replace(b'"Changelist": 1000', b'"Changelist": -5')
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")


def guard(root: Path, *files: str, timeout: float = 60, **environment: str) -> subprocess.CompletedProcess[str]:
    """``buildver guard`` in a child process that is stopped if it waits: a hang fails the test, never the suite."""
    return subprocess.run(
        [sys.executable, "-m", "buildver", "guard", *files],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **GIT_IDENTITY, "NO_COLOR": "1", **environment},
    )


def stage(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    git(root, "add", "--", *files)


PEAK_MEMORY = (
    "import sys\n"
    "with open('/proc/self/clear_refs', 'w') as refs:\n"
    "    refs.write('5')  # resets the peak, which Linux carries over from the process that forked this one\n"
    "from buildver.cli.app import main\n"
    "code = main(['guard'])\n"
    "with open('/proc/self/status') as status:\n"
    "    peak = next(line for line in status if line.startswith('VmHWM:'))\n"
    "print('peak', int(peak.split()[1]) * 1024, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def guard_with_peak_memory(root: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """The guard run in a child process, and the most memory it held at once (bytes)."""
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("measuring a process's peak memory needs Linux's /proc/self/clear_refs")
    result = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    return result, int(result.stderr.split("peak ")[1])


def write_large(path: Path, start: bytes, size: int) -> None:
    """A file of ``size`` bytes starting with ``start``, written in pieces so that this process stays small."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        stream.write(start)
        piece = b" " * (1 << 20)
        left = size - len(start)
        while left > 0:
            left -= stream.write(piece[: min(left, len(piece))])


@pytest.fixture
def repo(git_repository: GitRepository) -> Path:
    root = git_repository(commits=0)
    stage(root, {"Build/Build.version": GOOD})
    git(root, "commit", "--quiet", "--no-verify", "-m", "first")
    return root


# -- paths git would parse, and newlines (item 14) -------------------------------------------------------------

ODD_PATHS = [
    ("index stage 1", "1:/Build.version"),
    ("stage 0 spelled out", "0:x/Build.version"),
    ("a newline", "a\nb/Build.version"),
    ("HEAD-like", "HEAD:/Build.version"),
]


@pytest.mark.skipif(sys.platform == "win32", reason="':' and newlines are not allowed in Windows file names")
@pytest.mark.parametrize(("name", "path"), ODD_PATHS, ids=[name for name, _ in ODD_PATHS])
def test_a_staged_build_version_at_a_path_git_would_parse_is_checked_like_any_other(
    repo: Path, name: str, path: str
) -> None:
    stage(repo, {path: NEGATIVE})
    result = guard(repo)
    assert result.returncode == 1, result.stdout
    escaped = path.replace("\n", "\\n")
    assert f"{escaped}: error[version-invalid]: " in result.stdout
    assert "Changelist" in result.stdout
    assert result.stdout.splitlines()[-1] == "buildver guard: 1 file checked: 1 error, 0 warnings"


@pytest.mark.skipif(sys.platform == "win32", reason="':' is not allowed in Windows file names")
def test_a_file_named_like_an_index_stage_is_compared_with_head_s_own(repo: Path) -> None:
    stage(repo, {"1:/Build.version": GOOD})
    git(repo, "commit", "--quiet", "--no-verify", "-m", "second")
    stage(repo, {"1:/Build.version": GOOD.replace(b'"Changelist": 1000', b'"Changelist": 999')})
    result = guard(repo, "1:/Build.version")
    assert result.returncode == 1
    assert "1:/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD, 999 staged" in (
        result.stdout
    )


# -- special files: a symbolic link to a FIFO (item 6) -------------------------------------------------------------


@POSIX_ONLY
def test_a_staged_package_that_is_a_symbolic_link_to_a_fifo_is_refused_without_opening_it(
    repo: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (repo / "Content").mkdir()
    (repo / "Content" / "A.uasset").symlink_to(fifo)
    git(repo, "add", "Content/A.uasset")
    result = guard(repo)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines()[0] == (
        "Content/A.uasset: error[package-unreadable]: is a symbolic link in the index, not a file: the commit "
        "would hold that, not the package; not read"
    )


@POSIX_ONLY
def test_a_staged_package_whose_work_tree_file_became_a_fifo_is_read_from_git(repo: Path, tmp_path: Path) -> None:
    stage(repo, {"Content/A.uasset": b"not a package at all, but a regular file"})
    (repo / "Content" / "A.uasset").unlink()
    os.mkfifo(repo / "Content" / "A.uasset")
    result = guard(repo, "Content/A.uasset")
    assert result.returncode == 1
    assert "Content/A.uasset: error[package-unreadable]: not an Unreal package" in result.stdout


@POSIX_ONLY
@pytest.mark.parametrize("target", ["fifo", "link to a fifo"])
def test_reading_a_package_file_that_is_a_fifo_never_waits(tmp_path: Path, target: str) -> None:
    """The Git LFS fallback reads a file the package reader refused: it must not open a FIFO swapped in since."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = fifo
    if target == "link to a fifo":
        path = tmp_path / "A.uasset"
        path.symlink_to(fifo)
    findings: list[Finding] = []

    def read() -> None:
        findings.extend(_check_package_file("A.uasset", path, None, True, GuardSettings.from_table({}), tmp_path))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # it waits on the FIFO: open the other end, so that the suite goes on, and fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the guard waited on a FIFO")
    assert [finding.check for finding in findings] == ["package-unreadable"]
    assert "not a regular file" in findings[0].message


# -- sizes (item 5, the guard's part) --------------------------------------------------------------------------


def test_every_kind_the_guard_reads_whole_has_a_limit_far_above_any_real_file() -> None:
    kinds = {"version", "game-config", "header", "manifest", "plugin", "project", "engine-ini"}
    assert set(STAGED_SIZE_LIMITS) == kinds
    assert min(STAGED_SIZE_LIMITS.values()) >= 16 << 20


LARGE = [
    ("Build/Build.version", "version", "version-invalid"),
    ("Game/Config/DefaultGame.ini", "game-config", "game-config-invalid"),
    ("Plugins/P/P.uplugin", "plugin", "plugin-invalid"),
    ("Binaries/Win64/UnrealEditor.modules", "manifest", "modules-build-id"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "kind", "check"), LARGE, ids=[kind for _, kind, _ in LARGE])
def test_a_staged_file_above_its_limit_is_one_finding_and_is_never_read(
    repo: Path, path: str, kind: str, check: str
) -> None:
    """The guard's own memory shows that the blob was not read: it stays far below the file's size."""
    size = STAGED_SIZE_LIMITS[kind] + (48 << 20)
    write_large(repo / path, b"", size)
    git(repo, "add", "--", path)
    (repo / path).write_bytes(b"")  # the work tree has no copy to read either
    result, peak = guard_with_peak_memory(repo)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"{path}: error[{check}]: {size:,} bytes staged, more than the {STAGED_SIZE_LIMITS[kind]:,} that any such "
        "file needs: not read"
    )
    assert peak < size / 2, result.stderr


@pytest.mark.slow
def test_a_staged_package_of_any_size_is_read_only_as_far_as_its_header(repo: Path) -> None:
    """A package of 200 MiB staged (its work-tree copy changed since): the guard holds its start and its end only."""
    size = 200 << 20
    write_large(repo / "Content" / "Big.uasset", b"\xc1\x83\x2a\x9e" + b"\0" * 1024, size)
    git(repo, "add", "Content/Big.uasset")
    (repo / "Content" / "Big.uasset").write_bytes(b"changed since")
    result, peak = guard_with_peak_memory(repo)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0].startswith("Content/Big.uasset: error[package-unreadable]: "), result.stdout
    assert peak < 100 << 20, result.stderr
