"""A multi-file write stopped by Ctrl-C or by a failed fsync of its journal's folder leaves nothing behind.

Found by the attack harness (``tools/attack``, kills): strace delivers SIGINT at the very system call that creates a
temporary file, a backup link or the journal's temporary file (``openat``, ``link``); Python runs buildver's handler
as the call returns, before its result (the new name) reaches the code that removes what it made, so the file was
left though no journal was written ("no file is half written", exit 130). And an fsync of the folder failing just
after the journal was renamed into place left that journal beside files it never changed (exit 3, "no file was
changed").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BUILDVER, NO_BYTECODE, default_ctrl_c, needs_strace, run_with_failed_syscall

pytestmark = [needs_strace, pytest.mark.skipif(sys.platform == "win32", reason="strace")]

DATA = Path(__file__).parents[1] / "data"
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
UPDATE = [BUILDVER, "update-local", "--cl", "4321", "--branch", "++UE5+Main"]


def every_file(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def project(root: Path) -> Path:
    """A Build.version and the BuildVersion.h an earlier run wrote beside it: update-local changes both."""
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(UE503)
    earlier = [BUILDVER, "update-local", "--cl", "1", "--branch", "++UE5+Release-5.0"]
    subprocess.run(earlier, cwd=root, capture_output=True, check=True)
    return root


def creations(root: Path) -> list[tuple[str, int]]:
    """Each (system call, its ordinal among the calls of that name) that makes one of buildver's own files."""
    log = root.parent / "trace.log"
    trace = ["strace", "-qq", "-s", "4096", "-e", "signal=none", "-e", "trace=openat,link", "-o", str(log)]
    subprocess.run([*trace, *UPDATE], cwd=root, capture_output=True, check=True, env={**os.environ, **NO_BYTECODE})
    counts = {"openat": 0, "link": 0}
    found = []
    for line in log.read_text().splitlines():
        name = line.split("(", 1)[0]
        if name not in counts:
            continue
        counts[name] += 1
        made = ".buildver-tmp" in line and (name == "link" or "O_CREAT" in line)
        if made and re.search(r"\) = \d+$", line):
            found.append((name, counts[name]))
    log.unlink()
    return found


def test_ctrl_c_at_each_creation_of_a_temporary_file_leaves_nothing_behind(tmp_path: Path) -> None:
    reference = project(tmp_path / "reference")
    points = creations(reference)
    assert [name for name, _ in points] == ["openat", "openat", "link", "link", "openat"]  # temps, backups, journal
    for name, ordinal in points:
        root = project(tmp_path / f"{name}-{ordinal}")
        before = every_file(root)
        inject = f"inject={name}:signal=INT:when={ordinal}"
        result = subprocess.run(
            ["strace", "-qq", "-o", os.devnull, "-e", f"trace={name}", "-e", inject, *UPDATE],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **NO_BYTECODE},
            preexec_fn=default_ctrl_c,
        )
        assert result.returncode == 130, (name, ordinal, result.stderr)
        assert "no file is half written" in result.stderr
        assert every_file(root) == before, (name, ordinal)


def test_a_failed_fsync_of_the_journals_folder_leaves_no_journal(tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    before = every_file(root)
    # The journal is renamed into Build/ first; the first fsync of that folder makes its rename durable.
    result = run_with_failed_syscall(UPDATE, root, "fsync", "EIO", when=1, path=root / "Build")
    assert result.returncode == 3, result.stderr
    assert result.stderr.endswith("cannot write (Input/output error); no file was changed\n"), result.stderr
    assert every_file(root) == before


def test_ctrl_c_while_the_finished_write_tidies_up_leaves_nothing_behind(tmp_path: Path) -> None:
    """Every file was renamed; the run removes the journal, then the backups. A Ctrl-C at the first of those
    removals left the other backups beside the new files, no journal naming them (exit 130)."""
    reference = project(tmp_path / "reference")
    log = tmp_path / "unlinks.log"
    trace = ["strace", "-qq", "-s", "4096", "-e", "signal=none", "-e", "trace=unlink", "-o", str(log)]
    subprocess.run([*trace, *UPDATE], cwd=reference, capture_output=True, check=True, env={**os.environ, **NO_BYTECODE})
    after = every_file(reference)
    # The run's own removals (coverage, when it measures the run, removes a data file of its own at exit).
    unlinks = [line for line in log.read_text().splitlines() if str(reference) in line]
    assert len(unlinks) == 3, unlinks  # the journal, then the two backups
    assert ".buildver-journal" in unlinks[0], unlinks
    for ordinal in range(1, len(unlinks) + 1):
        root = project(tmp_path / f"unlink-{ordinal}")
        inject = f"inject=unlink:signal=INT:when={ordinal}"
        result = subprocess.run(
            ["strace", "-qq", "-o", os.devnull, "-e", "trace=unlink", "-e", inject, *UPDATE],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **NO_BYTECODE},
            preexec_fn=default_ctrl_c,
        )
        assert result.returncode == 130, (ordinal, result.stderr)
        assert every_file(root) == after, ordinal
