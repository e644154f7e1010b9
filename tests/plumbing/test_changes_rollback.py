"""A rename that fails half-way through a multi-file write: every file is put back, nothing is left behind.

The failure is real: the kernel fails the chosen ``rename`` system call of a real buildver process, as strace's
fault injection makes it (``-e inject=rename:error=EROFS:when=N``), where a read-only file system or a full disk
would. Which call to fail is found by a first, traced run of the same command on an identical tree. Without
strace (or where it cannot trace, as in some containers) these tests skip and say why; a read-only folder cannot
stand in, since buildver creates its temporary files in the target's folder before renaming anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers import BUILDVER, needs_strace, run_with_failed_syscall, syscall_ordinal

DATA = Path(__file__).parents[1] / "data"
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()


RENAMES = "rename,renameat,renameat2"


def run_with_failed_rename(command: Sequence[str], cwd: Path, ordinal: int) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with its ``ordinal``-th rename failing as on a read-only file system (EROFS)."""
    return run_with_failed_syscall(command, cwd, RENAMES, "EROFS", when=ordinal)


def every_file(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, hidden ones included, with its content."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


UPDATE = [BUILDVER, "update-local", "--cl", "4321", "--branch", "++UE5+Main"]


def engine_tree(root: Path, *, header: bool) -> Path:
    """A Build.version and, with ``header``, the BuildVersion.h an earlier run wrote beside it."""
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(UE503)
    if header:
        earlier = [BUILDVER, "update-local", "--cl", "1", "--branch", "++UE5+Release-5.0"]
        subprocess.run(earlier, cwd=root, capture_output=True, check=True)
        assert (root / "Build" / "BuildVersion.h").is_file()
    return root


@needs_strace
@pytest.mark.parametrize(
    ("failing", "header"),
    [
        ("BuildVersion.h", True),  # the last rename: Build.version was already replaced and is put back
        ("BuildVersion.h", False),  # the header is new: Build.version is put back, no header is created
        ("Build.version", True),  # the first rename: nothing was replaced yet
    ],
    ids=["last-rename-existing-header", "last-rename-new-header", "first-rename"],
)
def test_update_local_whose_rename_fails_leaves_every_file_as_it_was(
    tmp_path: Path, failing: str, header: bool
) -> None:
    probe = engine_tree(tmp_path / "probe", header=header)
    ordinal = syscall_ordinal(UPDATE, probe, RENAMES, probe / "Build" / failing)
    tree = engine_tree(tmp_path / "tree", header=header)
    before = every_file(tree)

    result = run_with_failed_rename(UPDATE, tree, ordinal)

    assert result.returncode == 3, result.stderr
    assert result.stdout == ""
    # One line naming the file and the system's reason (the rest of the wording is the writer's to choose).
    assert result.stderr.startswith(f"buildver: error: {tree / 'Build' / failing}: ")
    assert "Read-only file system" in result.stderr
    assert result.stderr.count("\n") == 1
    # Byte for byte as before, and no temporary, backup or journal file left in the folder.
    assert every_file(tree) == before
    # The same run without the failure writes both files: the injected failure was what stopped it.
    assert subprocess.run(UPDATE, cwd=tree, capture_output=True, check=False).returncode == 0
    assert every_file(tree) != before


APPLY_SCRIPT = """
import sys
from pathlib import Path
from buildver import FileChange, apply_changes
from buildver.errors import WriteError

folder = Path(sys.argv[1])
changes = []
for name in sys.argv[2:]:
    path = folder / name
    old = path.read_bytes() if path.exists() else None
    changes.append(FileChange(path, old, b"new " + name.encode()))
try:
    apply_changes(changes, journal=folder / ".buildver-journal")
except WriteError as error:
    print(error, file=sys.stderr)
    sys.exit(error.exit_code)
"""

NAMES = ["First.txt", "Second.txt", "Third.txt"]


@needs_strace
@pytest.mark.parametrize("failing", NAMES)
@pytest.mark.parametrize("new_file", [None, *NAMES], ids=["all-exist", *(f"{n}-new" for n in NAMES)])
def test_apply_changes_puts_back_every_renamed_file_when_a_later_rename_fails(
    tmp_path: Path, failing: str, new_file: str | None
) -> None:
    def make(folder: Path) -> Path:
        folder.mkdir()
        for name in NAMES:
            if name != new_file:
                (folder / name).write_bytes(f"old {name}\n".encode())
        return folder

    command = [sys.executable, "-c", APPLY_SCRIPT, ".", *NAMES]
    probe = make(tmp_path / "probe")
    ordinal = syscall_ordinal(command, probe, RENAMES, failing)
    folder = make(tmp_path / "folder")
    before = every_file(folder)

    result = run_with_failed_rename(command, folder, ordinal)

    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(f"{failing}: ")
    assert "Read-only file system" in result.stderr
    assert result.stderr.count("\n") == 1
    assert every_file(folder) == before
    assert sorted(os.listdir(folder)) == sorted(before)


@needs_strace
def test_a_run_killed_between_its_two_renames_is_finished_by_the_next_run(tmp_path: Path) -> None:
    """SIGKILL at the header's rename, Build.version already replaced: the journal survives the kill, and the next
    writing run finishes the renames before its own work."""
    probe = engine_tree(tmp_path / "probe", header=True)
    header = Path("Build") / "BuildVersion.h"
    ordinal = syscall_ordinal(UPDATE, probe, RENAMES, probe / header)
    tree = engine_tree(tmp_path / "tree", header=True)
    old_header = (tree / header).read_bytes()

    killed = run_with_failed_syscall(UPDATE, tree, RENAMES, "EROFS", when=ordinal, signal="KILL")

    assert killed.returncode != 0
    assert (tree / header).read_bytes() == old_header  # the header's rename never happened
    assert (tree / "Build" / ".buildver-journal").is_file()  # recorded before the first rename
    assert subprocess.run(UPDATE, cwd=tree, capture_output=True, check=False).returncode == 0
    assert sorted(path.name for path in (tree / "Build").iterdir()) == ["Build.version", "BuildVersion.h"]
    assert b"4321" in (tree / header).read_bytes()
    assert b'"Changelist": 4321' in (tree / "Build" / "Build.version").read_bytes()
