"""What git refuses fails the run in one line and writes nothing (issue 23, item 1): a repository another user owns
(git's "dubious ownership"), a HEAD git cannot parse; an unborn branch is 0 commits and a detached HEAD no branch."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GitRepository, git, run_cli

from buildver.vcs import git_failure

BUILD_VERSION = (Path(__file__).parents[2] / "Build" / "Build.version").read_bytes()


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    }


@pytest.fixture
def repository(git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = git_repository("Game", commits=2)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_bytes(BUILD_VERSION)
    monkeypatch.chdir(root)
    for name in ("uebp_CL", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT", "GITHUB_REF_NAME", "GITHUB_HEAD_REF"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.mark.parametrize("head", [b"ref: refs/heads/a b\n", b"ref: refs/heads/../../../etc/passwd\n"])
def test_a_head_git_cannot_parse_fails_in_one_line_and_nothing_is_written(
    repository: Path, capsys: pytest.CaptureFixture[str], head: bytes
) -> None:
    (repository / ".git" / "HEAD").write_bytes(head)
    before = files(repository)
    for arguments in (["--skip-header", "--branch", "X"], ["--skip-header", "--cl", "5"]):
        code, out, err = run_cli(capsys, "update-local", *arguments)
        assert (code, out) == (1, "")
        assert err == f"buildver: error: {repository}: cannot read the git repository (No such ref: HEAD)\n"
    assert files(repository) == before


def test_an_unborn_branch_counts_no_commits(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repository("Empty", commits=0)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_bytes(BUILD_VERSION)
    monkeypatch.chdir(root)
    code, out, _ = run_cli(capsys, "update-local", "--skip-header", "--dry-run", "--json")
    assert code == 0
    assert '"Changelist": 0' in out


def test_a_detached_head_has_no_branch(repository: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(repository, "checkout", "--quiet", "--detach")
    code, _, err = run_cli(capsys, "update-local", "--skip-header", "--cl", "3", "--dry-run")
    assert code == 1
    assert "HEAD is detached" in err


@pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chown") is None,
    reason="needs root to give the repository to another user",
)
def test_a_repository_git_refuses_to_read_fails_in_one_line_and_nothing_is_written(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.chown(repository, user="nobody")
    for path in repository.rglob("*"):
        shutil.chown(path, user="nobody")
    before = files(repository)
    code, out, err = run_cli(capsys, "update-local", "--skip-header", "--branch", "X")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {repository}: cannot read the git repository (detected dubious ownership in repository "
        f"at '{repository}'; if you trust it: git config --global --add safe.directory {repository})\n"
    )
    code, out, err = run_cli(capsys, "guard")
    assert (code, out) == (1, "")
    assert "detected dubious ownership" in err
    assert files(repository) == before


@pytest.mark.parametrize(
    ("stderr", "message"),
    [
        ("fatal: No such ref: HEAD\n", "No such ref: HEAD"),
        ("warning: x\nerror: bad object\n", "bad object"),
        ("", "fallback"),
        ("something odd\n", "something odd"),
    ],
)
def test_git_s_reason_is_its_fatal_line(stderr: str, message: str) -> None:
    assert git_failure(stderr, "fallback") == message


# -- never waiting on git (issue 23, item 12) ---------------------------------------------------------------------

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and process groups are POSIX")
STRACE = shutil.which("strace")


def buildver(root: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """buildver in a child process, stopped by the test if it waits: a hang fails this test, not the suite."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("uebp_", "GITHUB_", "BUILDVER_")) and k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "buildver", *arguments],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**clean, **environment},
    )


def git_processes_in(root: Path) -> list[int]:
    """The processes working in ``root`` (Linux's /proc): git left running would show here."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():  # this test runs in the repository too
            try:
                if os.readlink(entry / "cwd") == str(root):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@POSIX_ONLY
@pytest.mark.parametrize("name", ["HEAD", "config", "index", "packed-refs"])
@pytest.mark.parametrize(
    "arguments", [("update-local", "--skip-header", "--branch", "X"), ("guard",)], ids=["update-local", "guard"]
)
def test_a_fifo_git_would_wait_on_is_one_error_line_at_once(
    repository: Path, name: str, arguments: tuple[str, ...]
) -> None:
    git(repository, "add", "Build/Build.version")
    target = repository / ".git" / name
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    before = files(repository)
    result = buildver(repository, *arguments)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"buildver: error: {target}: not a regular file but a FIFO (named pipe), which git would wait on forever\n"
    )
    assert files(repository) == before


@POSIX_ONLY
def test_git_waiting_on_anything_else_is_stopped_at_the_time_limit(repository: Path) -> None:
    """A FIFO as a branch's ref file: git blocks reading it; the limit stops git and its children, one line."""
    ref = repository / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    os.mkfifo(ref)
    before = files(repository)
    result = buildver(repository, "update-local", "--skip-header", "--branch", "X", BUILDVER_GIT_TIMEOUT="1")
    assert (result.returncode, result.stdout) == (1, "")
    assert re.fullmatch(
        rf"buildver: error: {re.escape(str(repository))}: git [\w-]+ did not finish within 1 s and was stopped "
        r"\(a FIFO or a stalled file system in the repository\?\); to wait longer, set BUILDVER_GIT_TIMEOUT\n",
        result.stderr,
    ), result.stderr
    assert files(repository) == before
    if Path("/proc/self/cwd").exists():
        assert git_processes_in(repository) == []


@pytest.mark.skipif(STRACE is None or sys.platform != "linux", reason="needs strace (Linux) to stall git's reads")
def test_a_stalled_file_system_under_git_is_stopped_at_the_time_limit(repository: Path) -> None:
    """strace holds every open of .git/HEAD for 5 s, as a hung network file system would: the limit of 1 s wins."""
    assert STRACE is not None
    head = str(repository / ".git" / "HEAD")
    command = [STRACE, "-f", "-qq", "-o", os.devnull, "-e", "trace=openat", "-P", head]
    command += ["-e", "inject=openat:delay_enter=5000000", sys.executable, "-m", "buildver", "update-local"]
    command += ["--skip-header", "--branch", "X"]
    before = files(repository)
    result = subprocess.run(
        command,
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "BUILDVER_GIT_TIMEOUT": "1"},
    )
    assert result.returncode == 1
    assert "did not finish within 1 s and was stopped" in result.stderr.splitlines()[-1], result.stderr
    assert files(repository) == before


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf", "86401"])
def test_a_time_limit_that_is_not_a_number_of_seconds_is_a_usage_error(repository: Path, value: str) -> None:
    before = files(repository)
    result = buildver(repository, "update-local", "--skip-header", "--branch", "X", BUILDVER_GIT_TIMEOUT=value)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"buildver: error: BUILDVER_GIT_TIMEOUT={value!r}: not a number of seconds above 0 and at most 86400\n"
    )
    assert files(repository) == before


def test_a_generous_time_limit_changes_nothing(repository: Path) -> None:
    result = buildver(repository, "update-local", "--skip-header", "--branch", "X", BUILDVER_GIT_TIMEOUT="0.5e3")
    assert result.returncode == 0, result.stderr
    assert "Changelist" in result.stdout


# -- git's state: buildver never writes into a repository (issue 23, item 8) --------------------------------------


@pytest.mark.skipif(STRACE is None or sys.platform != "linux", reason="needs strace (Linux) to list what git runs")
def test_update_local_runs_no_git_command_that_writes(repository: Path) -> None:
    """No ``git commit-graph write`` (a kill during it left commit-graph-chain.lock, which broke git's own), nor any
    other command that takes one of git's locks: every git process buildver starts only reads."""
    assert STRACE is not None
    trace = repository.parent / "execve.trace"
    command = [STRACE, "-f", "-qq", "-s", "200", "-e", "trace=execve", "-o", str(trace), sys.executable, "-m"]
    result = subprocess.run(
        [*command, "buildver", "update-local", "--skip-header", "--branch", "X"],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    commands = [line for line in trace.read_text().splitlines() if 'execve("' in line and '"git"' in line]
    assert commands, "git was not run"
    read_only = ("symbolic-ref", "rev-parse", "rev-list", "config")
    for line in commands:
        subcommand = line.split('["git", "', 1)[1].split('"', 1)[0]
        assert subcommand in read_only, line
    assert not (repository / ".git" / "objects" / "info" / "commit-graphs").exists()


@POSIX_ONLY
def test_a_fifo_as_head_of_a_repository_kept_elsewhere_is_found_through_the_git_file(tmp_path: Path) -> None:
    """A ``.git`` file (``git init --separate-git-dir``, a linked worktree, a submodule) points to the git folder."""
    root = tmp_path / "Game"
    git_folder = tmp_path / "elsewhere.git"
    root.mkdir()
    git(root, "init", "--quiet", f"--separate-git-dir={git_folder}")
    git(root, "commit", "--quiet", "--allow-empty", "-m", "first")
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_bytes(BUILD_VERSION)
    assert (root / ".git").is_file()
    (git_folder / "HEAD").unlink()
    os.mkfifo(git_folder / "HEAD")
    before = files(root)
    result = buildver(root, "update-local", "--skip-header", "--branch", "X")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"buildver: error: {git_folder / 'HEAD'}: not a regular file but a FIFO (named pipe), which git would wait "
        "on forever\n"
    )
    assert files(root) == before


@POSIX_ONLY
def test_a_fifo_as_the_index_a_hook_is_given_is_one_error_line(repository: Path, tmp_path: Path) -> None:
    """``git commit -a`` runs pre-commit hooks with GIT_INDEX_FILE naming a temporary index: it is checked too."""
    fifo = tmp_path / "index.lock"
    os.mkfifo(fifo)
    result = buildver(repository, "guard", GIT_INDEX_FILE=str(fifo))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"buildver: error: {fifo}: not a regular file but a FIFO (named pipe), which git would wait on forever\n"
    )
