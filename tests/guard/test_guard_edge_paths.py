"""Paths of the guard and of git's reading that users meet rarely: a file named on the command line that is not
staged, a Git LFS pointer whose object id is not one, a ``.git`` file that does not name a git folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import git, run_buildver

VERSION = (
    b'{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    b'\t"IsLicenseeVersion": 0,\n\t"BranchName": ""\n}'
)


def buildver(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return run_buildver(root, *arguments, env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    root = tmp_path / "Game"
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(VERSION)
    git(root, "init", "--quiet", "--initial-branch", "main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    return root


NOT_STAGED = [
    ("Plugins/X/X.uplugin", "Plugins/X/X.uplugin: error[plugin-invalid]: not in the index (stage it with git add)"),
    ("Content/B.uasset", "Content/B.uasset: error[package-unreadable]: not in the index (stage it with git add)"),
]


@pytest.mark.parametrize(("name", "finding"), NOT_STAGED, ids=[name for name, _ in NOT_STAGED])
def test_a_file_named_but_not_staged_is_a_finding(repository: Path, name: str, finding: str) -> None:
    result = buildver(repository, "guard", name)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [finding, "buildver guard: 1 file checked: 1 error, 0 warnings"]


@pytest.mark.parametrize(
    "oid_line",
    [b"oid sha256:zzzz\n", b"oid sha1:" + b"a" * 40 + b"\n", b""],
    ids=["not hexadecimal", "another hash", "no oid line"],
)
def test_a_lfs_pointer_without_a_valid_object_id_is_read_as_the_text_it_is(repository: Path, oid_line: bytes) -> None:
    pointer = b"version https://git-lfs.github.com/spec/v1\n" + oid_line + b"size 12345\n"
    (repository / "Content").mkdir()
    (repository / "Content" / "A.uasset").write_bytes(pointer)
    git(repository, "add", "Content/A.uasset")
    result = buildver(repository, "guard")
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        "Content/A.uasset: error[package-unreadable]: not an Unreal package: byte 0: no package tag: a text file"
    )


@pytest.mark.parametrize("command", [["update-local", "--skip-header"], ["guard"]], ids=" ".join)
def test_a_git_file_that_names_no_git_folder_is_one_error(tmp_path: Path, command: list[str]) -> None:
    root = tmp_path / "Game"
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(VERSION)
    (root / ".git").write_text("hello\n")  # a worktree's .git file says "gitdir: <path>"
    result = buildver(root, *command)
    assert result.returncode == 1, result.stderr
    assert (
        result.stderr
        == f"buildver: error: {root}: cannot read the git repository (invalid gitfile format: {root / '.git'})\n"
    )
    assert (root / "Build" / "Build.version").read_bytes() == VERSION
