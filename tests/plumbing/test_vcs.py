"""What git refuses fails the run in one line and writes nothing (issue 23, item 1): a repository another user owns
(git's "dubious ownership"), a HEAD git cannot parse; an unborn branch is 0 commits and a detached HEAD no branch."""

from __future__ import annotations

import os
import shutil
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
