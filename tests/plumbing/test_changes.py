"""Planned changes: unified diffs, all-or-nothing atomic writes, read-only targets, the folder lock."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import stat
import sys
import time
from pathlib import Path

import pytest

from buildver.changes import (
    JOURNAL_NAME,
    LOCK_NAME,
    TEMP_SUFFIX,
    FileChange,
    apply_changes,
    locked,
    recover,
    remove_leftovers,
    write_atomic,
)
from buildver.errors import LockTimeoutError, WriteError

NEEDS_SYMLINKS = pytest.mark.skipif(
    sys.platform == "win32", reason="creating symbolic links on Windows needs an administrator or developer mode"
)


def test_diff_is_a_unified_diff_that_marks_a_missing_final_newline(tmp_path: Path) -> None:
    change = FileChange(tmp_path / "Build.version", b'{\n\t"Changelist": 0\n}', b'{\n\t"Changelist": 7\n}')
    diff = change.diff()
    assert f"--- {tmp_path / 'Build.version'}\n+++ {tmp_path / 'Build.version'}" in diff
    assert '-\t"Changelist": 0\n+\t"Changelist": 7\n' in diff
    assert diff.endswith(" }\n\\ No newline at end of file\n")


def test_unchanged_change_has_no_diff_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"same")
    before = target.stat().st_mtime_ns
    assert apply_changes([FileChange(target, b"same", b"same")]) == []
    assert FileChange(target, b"same", b"same").diff() == ""
    assert target.stat().st_mtime_ns == before


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits: Windows keeps only a read-only flag")
def test_apply_writes_every_file_keeping_permissions_and_leaves_no_temporaries(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "sub" / "b.h"
    second.parent.mkdir()
    first.write_bytes(b"old a")
    first.chmod(0o640)
    written = apply_changes([FileChange(first, b"old a", b"new a"), FileChange(second, None, b"new b")])
    assert written == [first, second]
    assert (first.read_bytes(), second.read_bytes()) == (b"new a", b"new b")
    assert stat.S_IMODE(first.stat().st_mode) == 0o640
    assert not list(tmp_path.rglob(f"*{TEMP_SUFFIX}"))


def test_a_failure_before_renaming_changes_no_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "missing-folder" / "b.txt"
    first.write_bytes(b"old a")
    with pytest.raises(WriteError, match="no file was changed"):
        apply_changes([FileChange(first, b"old a", b"new a"), FileChange(second, None, b"b")])
    assert first.read_bytes() == b"old a"
    assert not list(tmp_path.rglob(f"*{TEMP_SUFFIX}"))


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"someone else's edit")
    with pytest.raises(WriteError, match="the file changed while buildver was working"):
        apply_changes([FileChange(target, b"what we read", b"ours")])
    assert target.read_bytes() == b"someone else's edit"


def test_read_only_target_is_refused_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "Build.version"
    target.write_bytes(b"old")
    target.chmod(0o444)
    with pytest.raises(WriteError, match="the file is read-only; pass --force"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert write_atomic(target, b"new", force=True)
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & stat.S_IWUSR  # writable again (0o644 on POSIX; Windows has one flag)


@NEEDS_SYMLINKS
def test_a_symlink_planted_at_a_temporary_name_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    target = tmp_path / "Build.version"
    target.write_bytes(b"old")
    # Whatever names an attacker guesses, buildver's temporary names are random and opened with O_EXCL.
    for guess in (f".Build.version{TEMP_SUFFIX}", f".Build.version.tmp{TEMP_SUFFIX}", "Build.version.tmp"):
        (tmp_path / guess).symlink_to(victim)
    write_atomic(target, b"new")
    assert victim.read_bytes() == b"precious"
    assert target.read_bytes() == b"new"


def test_remove_leftovers_deletes_only_buildver_temporaries(tmp_path: Path) -> None:
    (tmp_path / f".Build.version.abc{TEMP_SUFFIX}").write_bytes(b"x")
    (tmp_path / "Build.version").write_bytes(b"keep")
    assert [p.name for p in remove_leftovers(tmp_path)] == [f".Build.version.abc{TEMP_SUFFIX}"]
    assert [p.name for p in tmp_path.iterdir()] == ["Build.version"]


def _hold_lock(folder: str, ready: multiprocessing.synchronize.Event, release: float) -> None:
    with locked(Path(folder)):
        ready.set()
        time.sleep(release)


def test_lock_makes_a_second_process_wait_then_time_out(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    holder = context.Process(target=_hold_lock, args=(str(tmp_path), ready, 1.0))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(LockTimeoutError, match="another buildver run held the lock"), locked(tmp_path, timeout=0.2):
            pass
    finally:
        holder.join()
    with locked(tmp_path, timeout=0.2):
        # POSIX locks the folder itself; Windows, which cannot, locks a file in it while the lock is held.
        assert set(os.listdir(tmp_path)) <= {LOCK_NAME}
    assert os.listdir(tmp_path) == []  # no lock file is left behind


BAD_JOURNALS = [
    (b"[]", "not a buildver journal"),
    (b"null", "not a buildver journal"),
    (b'{"buildver-journal": 3, "entries": 5}', "unreadable recovery journal"),
    (b'{"buildver-journal": 3, "entries": [{}]}', "unreadable recovery journal ('target')"),
    (b'{"buildver-journal": 3, "entries": [{"target": "/x", "temp": 5, "old": null}]}', "unreadable recovery journal"),
    (b'{"buildver-journal": 2, "entries": []}', "version 2, not 3 or 4: written by another buildver"),
    (b"{", "unreadable recovery journal"),
]


@pytest.mark.parametrize(("content", "message"), BAD_JOURNALS)
def test_a_malformed_journal_is_one_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    journal = tmp_path / "Build" / JOURNAL_NAME
    journal.parent.mkdir()
    journal.write_bytes(content)
    with pytest.raises(WriteError, match=re.escape(message)):
        recover(journal)
    assert journal.read_bytes() == content


def test_a_planted_journal_cannot_move_files_outside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    journal = project / "Build" / JOURNAL_NAME
    journal.parent.mkdir(parents=True)
    victim = tmp_path / "outside.txt"
    victim.write_bytes(b"precious")
    temp = tmp_path / f".outside.txt.0123456789ab{TEMP_SUFFIX}"
    temp.write_bytes(b"attacker")
    entry = {
        "target": str(victim),
        "temp": temp.name,
        "inode": temp.stat().st_ino,  # even knowing the inode
        "old": hashlib.sha256(b"precious").hexdigest(),
        "new": hashlib.sha256(b"attacker").hexdigest(),
    }
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [entry]}))
    assert recover(journal) == []  # nothing outside is written: the "transaction" is undone instead
    assert victim.read_bytes() == b"precious"
    assert temp.read_bytes() == b"attacker"  # nor removed: recovery touches nothing outside the project
    assert not journal.exists()


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def killed_transaction(
    tmp_path: Path, targets: list[Path], renamed: int, *, olds: list[bytes | None] | None = None
) -> Path:
    """What a run killed after ``renamed`` renames leaves: the journal, temporaries, backups, some targets new."""
    journal = tmp_path / "project" / "Build" / JOURNAL_NAME
    journal.parent.mkdir(parents=True, exist_ok=True)
    entries = []
    for index, target in enumerate(targets):
        target.parent.mkdir(parents=True, exist_ok=True)
        old = None if olds is None else olds[index]
        new = b"new " + target.name.encode()
        temp = target.with_name(f".{target.name}.{index:012x}{TEMP_SUFFIX}")
        backup = None
        if old is not None:
            target.write_bytes(old)
            backup = target.with_name(f".{target.name}.{index:012x}.backup{TEMP_SUFFIX}")
            os.link(target, backup)
        if index < renamed:
            target.write_bytes(new)
            if backup is not None:  # os.replace made the target a new file: the backup keeps the old one
                backup.unlink()
                backup.write_bytes(old or b"")
        else:
            temp.write_bytes(new)
        root = journal.parent.parent
        entries.append(
            {
                "target": target.relative_to(root).as_posix() if target.is_relative_to(root) else str(target),
                "temp": temp.name,
                "inode": (target if index < renamed else temp).stat().st_ino,
                "old": sha(old),
                "new": sha(new),
                "backup": None if backup is None else backup.name,
                "backup-inode": None if backup is None else backup.stat().st_ino,
            }
        )
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": entries}))
    return journal


def test_recovery_finishes_a_transaction_whose_target_outside_was_already_renamed(tmp_path: Path) -> None:
    inside, outside = tmp_path / "project" / "Build" / "Build.version", tmp_path / "out" / "V.h"
    # The header outside was renamed first; Build.version's rename was still to do.
    journal = killed_transaction(tmp_path, [outside, inside], renamed=1, olds=[None, b"old version"])
    assert recover(journal) == [inside]
    assert (inside.read_bytes(), outside.read_bytes()) == (b"new Build.version", b"new V.h")
    assert not journal.exists()
    assert sorted(os.listdir(inside.parent)) == ["Build.version"]


def test_recovery_undoes_a_transaction_whose_target_outside_was_not_renamed_yet(tmp_path: Path) -> None:
    inside, outside = tmp_path / "project" / "Build" / "Build.version", tmp_path / "out" / "V.h"
    journal = killed_transaction(tmp_path, [inside, outside], renamed=1, olds=[b"old version", b"old header"])
    assert recover(journal) == [inside]
    assert (inside.read_bytes(), outside.read_bytes()) == (b"old version", b"old header")  # all old again
    assert not journal.exists()
    assert sorted(os.listdir(inside.parent)) == ["Build.version"]
    # The outside folder is not cleaned by recovery (the next run naming that header removes its leftovers).
    assert (outside.parent / f".V.h.{1:012x}{TEMP_SUFFIX}").exists()


def test_recovery_undoes_a_new_file_by_removing_it(tmp_path: Path) -> None:
    inside, outside = tmp_path / "project" / "Build" / "BuildVersion.h", tmp_path / "out" / "V.h"
    journal = killed_transaction(tmp_path, [inside, outside], renamed=1)
    assert recover(journal) == [inside]
    assert not inside.exists()
    assert not outside.exists()


def test_recovery_that_could_only_write_outside_the_project_changes_nothing_and_says_so(tmp_path: Path) -> None:
    first, second = tmp_path / "out" / "A.h", tmp_path / "other" / "B.h"
    journal = killed_transaction(tmp_path, [first, second], renamed=1, olds=[b"a", b"b"])
    with pytest.raises(WriteError, match=r"can be neither finished nor undone without writing .*A\.h, outside"):
        recover(journal)
    assert journal.exists()
    assert (first.read_bytes(), second.read_bytes()) == (b"new A.h", b"b")


@NEEDS_SYMLINKS
def test_a_symlinked_target_is_refused_and_the_file_it_names_kept(tmp_path: Path) -> None:
    real = tmp_path / "shared" / "Build.version"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "Build.version"
    link.symlink_to(real)
    with pytest.raises(WriteError, match="is a symbolic link; pass the file it points to"):
        write_atomic(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"old"


RESERVED_NAMES = [
    JOURNAL_NAME,
    ".BuildVer-Journal",
    ".buildver-lock",
    f".Build.version.0123456789ab{TEMP_SUFFIX}",
    f".Build.version.0123456789ab.backup{TEMP_SUFFIX}",
    f"V.h{TEMP_SUFFIX.upper()}",
]


@pytest.mark.parametrize("name", RESERVED_NAMES)
def test_a_target_named_like_buildvers_own_files_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "Build.version").write_bytes(b"old")
    with pytest.raises(WriteError, match="keeps for its own journal, lock or temporary files"):
        apply_changes([FileChange(tmp_path / "Build.version", b"old", b"new"), FileChange(tmp_path / name, None, b"h")])
    assert os.listdir(tmp_path) == ["Build.version"]
    assert (tmp_path / "Build.version").read_bytes() == b"old"


@pytest.mark.parametrize("name", ["Build.version", "buildver-journal", ".buildver-journal.h", "V.buildver-tmp.h"])
def test_names_that_only_resemble_buildvers_own_are_written(tmp_path: Path, name: str) -> None:
    assert write_atomic(tmp_path / name, b"new")
    assert (tmp_path / name).read_bytes() == b"new"


def test_remove_leftovers_of_one_file_spares_those_of_files_with_longer_names(tmp_path: Path) -> None:
    mine = [f".Build.version.0123456789ab{TEMP_SUFFIX}", f".Build.version.ba9876543210.backup{TEMP_SUFFIX}"]
    others = [f".Build.version.orig.0123456789ab{TEMP_SUFFIX}", f".Build.versions.0123456789ab{TEMP_SUFFIX}"]
    for name in [*mine, *others, "Build.version"]:
        (tmp_path / name).write_bytes(b"x")
    assert sorted(p.name for p in remove_leftovers(tmp_path, "Build.version")) == sorted(mine)
    assert sorted(os.listdir(tmp_path)) == sorted([*others, "Build.version"])


def test_a_journal_whose_target_became_a_folder_is_one_write_error_and_stays(tmp_path: Path) -> None:
    target = tmp_path / "project" / "Build" / "Build.version"
    journal = killed_transaction(tmp_path, [target, target.with_name("V.h")], renamed=0, olds=[b"old", b"old h"])
    target.unlink()
    target.mkdir()
    with pytest.raises(
        WriteError, match=r"cannot finish or undo a killed run's changes \(.*Build\.version: is a folder"
    ):
        recover(journal)
    assert journal.exists()


@pytest.mark.skipif(os.name == "nt", reason="Windows cannot open a folder to flush it")
def test_a_folder_flush_that_fails_after_the_renames_rolls_back_in_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fault injection in the one place a disk error can only be simulated: the folder's fsync after every rename
    # (issue 23: an IndexError escaped here when the error named no file).
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes(b"old a")
    second.write_bytes(b"old b")
    real_fsync = os.fsync
    folder_flushes = []

    def fsync(descriptor: int) -> None:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            folder_flushes.append(descriptor)
            raise OSError(5, "Input/output error")
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(WriteError) as raised:
        apply_changes([FileChange(first, b"old a", b"new a"), FileChange(second, b"old b", b"new b")])
    assert folder_flushes
    assert str(raised.value) == (
        f"{tmp_path} (making the renames durable): cannot write (Input/output error); no file was changed"
    )
    assert raised.value.exit_code == 3
    assert (first.read_bytes(), second.read_bytes()) == (b"old a", b"old b")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.txt", "b.txt"]
