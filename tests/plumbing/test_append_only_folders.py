"""Writes into folders that refuse removals and renames (``chattr +a``), in process (issue 23, item 4).

An append-only folder lets buildver create its temporary and backup files but not rename them over the targets
nor remove them again: the write fails and rolls back, and the error names what could not be removed. A real
``chattr +a`` on an ext4 folder; the tests skip where the file system or the user cannot set it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX, FileChange, apply_changes, recover, transaction
from buildver.errors import WriteError


def can_make_append_only(folder: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    probe = folder / "probe"
    probe.mkdir()
    made = subprocess.run(["chattr", "+a", str(probe)], capture_output=True, check=False).returncode == 0
    if made:
        subprocess.run(["chattr", "-a", str(probe)], check=True)
    probe.rmdir()
    return made


@contextlib.contextmanager
def append_only(folder: Path) -> Iterator[None]:
    subprocess.run(["chattr", "+a", str(folder)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-a", str(folder)], check=True)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    if not can_make_append_only(tmp_path):
        pytest.skip("chattr +a needs a file system that has the flag (ext4, XFS) and CAP_LINUX_IMMUTABLE (root)")
    return tmp_path


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(TEMP_SUFFIX) or name == JOURNAL_NAME)


def test_a_two_file_write_in_an_append_only_folder_fails_whole_and_names_what_is_left(work: Path) -> None:
    build = work / "Build"
    build.mkdir()
    version, header = build / "Build.version", build / "BuildVersion.h"
    version.write_bytes(b"old version")
    with append_only(build), transaction(build) as journal, pytest.raises(WriteError) as raised:
        apply_changes([FileChange(version, b"old version", b"new"), FileChange(header, None, b"h")], journal=journal)
    message = str(raised.value)
    # The journal's own rename is the first to fail: it is named, not its temporary file.
    assert message.startswith(f"{journal}: cannot write (Operation not permitted); no file was changed; left ")
    assert message.endswith("(Operation not permitted), which the next buildver run here removes")
    assert version.read_bytes() == b"old version"
    assert not header.exists()
    left = leftovers(build)
    assert left  # the temporary and backup files, which the folder would not let go
    assert all(name in message for name in left)
    assert JOURNAL_NAME not in left
    assert recover(journal) == []  # the next run: nothing to finish, and it removes what was left
    assert leftovers(build) == []


def test_a_second_folder_that_refuses_the_rename_puts_the_first_file_back(work: Path) -> None:
    build, source = work / "Build", work / "Source"
    build.mkdir()
    source.mkdir()
    version, header = build / "Build.version", source / "Version.h"
    version.write_bytes(b"old version")
    header.write_bytes(b"old header")
    with append_only(source), transaction(build) as journal, pytest.raises(WriteError) as raised:
        apply_changes(
            [FileChange(version, b"old version", b"new"), FileChange(header, b"old header", b"new h")], journal=journal
        )
    assert str(raised.value).startswith(f"{header}: cannot write (Operation not permitted); no file was changed; left ")
    assert (version.read_bytes(), header.read_bytes()) == (b"old version", b"old header")
    assert leftovers(build) == []  # Build.version's own backup was renamed back; its folder let the journal go
    assert leftovers(source)  # the header's temporary file and backup stay until the folder allows removals
    with transaction(source):
        pass  # a later run that writes there removes them
    assert leftovers(source) == []


def test_a_finished_journal_that_cannot_be_removed_is_one_error(work: Path) -> None:
    build = work / "Build"
    build.mkdir()
    version, header = build / "Build.version", build / "BuildVersion.h"
    version.write_bytes(b"old version")
    real_fsync = os.fsync

    def stop_at_the_flush_after_the_renames(descriptor: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{descriptor}") and header.exists():
            raise KeyboardInterrupt  # a kill after every rename, before the journal is removed
        real_fsync(descriptor)

    changes = [FileChange(version, b"old version", b"new"), FileChange(header, None, b"h")]
    with transaction(build) as journal, pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", stop_at_the_flush_after_the_renames)
        with pytest.raises(KeyboardInterrupt):
            apply_changes(changes, journal=journal)
    assert (version.read_bytes(), header.read_bytes()) == (b"new", b"h")
    assert journal.exists()
    with append_only(build), pytest.raises(WriteError) as raised:
        recover(journal)
    assert str(raised.value) == (
        f"{journal}: the files it names are complete, but the journal cannot be removed (Operation not permitted); "
        "remove it once the folder allows it"
    )
    assert recover(journal) == []  # once the folder allows it
    assert leftovers(build) == []
    assert (version.read_bytes(), header.read_bytes()) == (b"new", b"h")
