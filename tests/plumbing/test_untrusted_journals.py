"""Recovery trusts a journal no further than it can check it on disk (issue 23, items 2 and 14).

The journal lies in a folder anyone may commit to. Recovery must write only files the killed run made itself,
beside targets inside the project, and must refuse a journal naming paths relative to nothing, paths out of the
project, or version-control folders. A tree moved after the kill still recovers; a copied one is refused loudly.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import git, run_buildver

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX, FileChange, apply_changes, recover, transaction
from buildver.errors import WriteError


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def repository_with_version(folder: Path) -> Path:
    """A git repository with a committed Build/Build.version; returns the repository."""
    (folder / "Build").mkdir(parents=True)
    (folder / "Build" / "Build.version").write_text(
        '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
        '\t"IsLicenseeVersion": 0,\n\t"BranchName": ""\n}'
    )
    git(folder, "init", "--quiet", "--initial-branch", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "--quiet", "-m", "base")
    return folder


def test_the_issues_crafted_journal_cannot_remove_git_head(tmp_path: Path) -> None:
    # The attack of issue 23, item 2: one entry whose target is .git/HEAD (whose digest anyone can compute) and a
    # second, relative entry whose temporary file exists relative to the current folder, which once drove
    # recovery into its undo branch and removed .git/HEAD.
    repository = repository_with_version(tmp_path / "game")
    head = repository / ".git" / "HEAD"
    head_bytes = head.read_bytes()
    (repository / f".x.0123456789ab{TEMP_SUFFIX}").write_bytes(b"planted")
    entries = [
        {"target": str(head), "temp": str(head.with_name(f".HEAD.0123456789ab{TEMP_SUFFIX}")), "inode": 1,
         "old": None, "new": sha(head_bytes), "backup": None, "backup-inode": None},
        {"target": "x", "temp": f".x.0123456789ab{TEMP_SUFFIX}", "inode": 2,
         "old": None, "new": sha(b"planted"), "backup": None, "backup-inode": None},
    ]  # fmt: skip
    for version in (2, 3):
        journal = repository / "Build" / JOURNAL_NAME
        journal.write_text(json.dumps({"buildver-journal": version, "entries": entries}))
        git(repository, "add", "-A")
        git(repository, "commit", "--quiet", "-m", "a planted journal")
        result = run_buildver(repository, "update-local", "--skip-header", "--cl", "123")
        assert result.returncode == 3, result.stderr
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"buildver: error: {journal}: unreadable recovery journal")
        assert head.read_bytes() == head_bytes
        assert git(repository, "rev-parse", "--abbrev-ref", "HEAD") == "main"
        assert b'"Changelist": 0' in (repository / "Build" / "Build.version").read_bytes()  # nothing written


JOURNAL_ENTRY = {"temp": f".T.0123456789ab{TEMP_SUFFIX}", "inode": 7, "old": None, "new": "0" * 64}
REFUSED_TARGETS = [
    (".git/T", "lies in a version-control folder, where buildver writes nothing"),
    ("Source/.GIT/T", "lies in a version-control folder"),
    (".hg/T", "lies in a version-control folder"),
    ("Build/../../T", "leaves the project through '..'"),
    ("", "is not a path"),
    (".", "names the project itself, not a file in it"),
    # Spellings NTFS and HFS+ take for .git: trailing dots and spaces, a stream, a short name, an ignored character.
    (".git./T", "lies in a version-control folder"),
    (".git /T", "lies in a version-control folder"),
    (".git::$INDEX_ALLOCATION/T", "lies in a version-control folder"),
    ("GIT~1/T", "lies in a version-control folder"),
    (".g\u200cit/T", "lies in a version-control folder"),
]


@pytest.mark.parametrize(("target", "message"), REFUSED_TARGETS)
def test_a_journal_naming_a_path_buildver_never_writes_is_refused_whole(
    tmp_path: Path, target: str, message: str
) -> None:
    journal = tmp_path / "project" / "Build" / JOURNAL_NAME
    journal.parent.mkdir(parents=True)
    content = json.dumps({"buildver-journal": 3, "entries": [{**JOURNAL_ENTRY, "target": target}]})
    journal.write_text(content)
    with pytest.raises(WriteError, match=f"unreadable recovery journal .*{message}"):
        recover(journal)
    assert journal.read_text() == content


def test_an_absolute_path_inside_the_project_is_refused(tmp_path: Path) -> None:
    # buildver records targets inside the project relative to it: an absolute one there was not written by it.
    journal = tmp_path / "project" / "Build" / JOURNAL_NAME
    journal.parent.mkdir(parents=True)
    target = str(tmp_path / "project" / "Source" / "T")
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [{**JOURNAL_ENTRY, "target": target}]}))
    with pytest.raises(WriteError, match="is inside the project but recorded as an absolute path"):
        recover(journal)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need an administrator or developer mode")
def test_a_target_reached_through_a_symbolic_link_out_of_the_project_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    journal = tmp_path / "project" / "Build" / JOURNAL_NAME
    journal.parent.mkdir(parents=True)
    (tmp_path / "project" / "link").symlink_to(tmp_path / "outside")
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [{**JOURNAL_ENTRY, "target": "link/T"}]}))
    with pytest.raises(WriteError, match="leads out of the project through a symbolic link"):
        recover(journal)


def test_an_undo_never_removes_a_file_the_killed_run_did_not_make(tmp_path: Path) -> None:
    # A well-formed journal whose entry claims that the run created Source/Game.cpp (whose digest anyone who can
    # read the repository knows), with a second entry outside the project whose temporary file someone planted:
    # the undo branch runs, but Source/Game.cpp does not have the inode of a file the run made, so it stays.
    project = tmp_path / "project"
    victim = project / "Source" / "Game.cpp"
    victim.parent.mkdir(parents=True)
    victim.write_bytes(b"int main() {}\n")
    outside = tmp_path / "shared"
    outside.mkdir()
    planted = outside / f".V.h.0123456789ab{TEMP_SUFFIX}"
    planted.write_bytes(b"planted")
    entries = [
        {**JOURNAL_ENTRY, "target": "Source/Game.cpp", "temp": f".Game.cpp.0123456789ab{TEMP_SUFFIX}",
         "inode": victim.stat().st_ino + 1, "new": sha(victim.read_bytes())},
        {**JOURNAL_ENTRY, "target": str(outside / "V.h"), "temp": planted.name, "inode": planted.stat().st_ino,
         "new": sha(b"planted")},
    ]  # fmt: skip
    journal = project / "Build" / JOURNAL_NAME
    journal.parent.mkdir()
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": entries}))
    assert recover(journal) == []
    assert victim.read_bytes() == b"int main() {}\n"
    assert planted.read_bytes() == b"planted"  # outside the project: never touched
    assert not journal.exists()


def test_a_planted_temporary_file_is_never_renamed_over_a_target(tmp_path: Path) -> None:
    project = tmp_path / "project"
    target = project / "Config" / "DefaultGame.ini"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"[/Script/EngineSettings.GeneralProjectSettings]\nProjectVersion=1.0.0.0\n")
    planted = target.with_name(f".DefaultGame.ini.0123456789ab{TEMP_SUFFIX}")
    planted.write_bytes(b"attacker")
    entry = {"target": "Config/DefaultGame.ini", "temp": planted.name, "inode": planted.stat().st_ino + 1,
             "old": sha(target.read_bytes()), "new": sha(b"attacker")}  # fmt: skip
    journal = project / "Build" / JOURNAL_NAME
    journal.parent.mkdir()
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [entry]}))
    with pytest.raises(WriteError, match="was not made by the run the journal records"):
        recover(journal)
    assert target.read_bytes().endswith(b"ProjectVersion=1.0.0.0\n")
    assert journal.exists()
    assert planted.exists()


def interrupted_transaction(project: Path) -> tuple[Path, Path]:
    """A two-file write interrupted after its first rename, as a kill there leaves it: the journal, the first
    target new, the second one's temporary file still waiting."""
    first, second = project / "Build" / "Build.version", project / "Source" / "Version.h"
    second.parent.mkdir(parents=True)
    first.parent.mkdir(parents=True, exist_ok=True)
    first.write_bytes(b"old version")
    second.write_bytes(b"old header")
    real_replace = os.replace
    renames = []

    def replace_then_stop(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if Path(target) == second:
            raise KeyboardInterrupt  # Ctrl-C between the renames: the journal keeps what is left to do
        real_replace(source, target)
        renames.append(target)

    with transaction(first.parent) as journal, pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", replace_then_stop)
        with pytest.raises(KeyboardInterrupt):
            apply_changes(
                [FileChange(first, b"old version", b"new version"), FileChange(second, b"old header", b"new header")],
                journal=journal,
            )
    assert journal.exists()
    assert (first.read_bytes(), second.read_bytes()) == (b"new version", b"old header")
    return first, second


def test_a_tree_moved_after_the_kill_is_still_recovered(tmp_path: Path) -> None:
    interrupted_transaction(tmp_path / "before")
    (tmp_path / "before").rename(tmp_path / "after")
    moved = tmp_path / "after"
    written = recover(moved / "Build" / JOURNAL_NAME)
    assert written == [moved / "Source" / "Version.h"]
    assert (moved / "Build" / "Build.version").read_bytes() == b"new version"
    assert (moved / "Source" / "Version.h").read_bytes() == b"new header"
    assert sorted(path.name for path in moved.rglob("*") if path.is_file()) == ["Build.version", "Version.h"]


def test_a_tree_copied_after_the_kill_is_refused_loudly_not_dropped(tmp_path: Path) -> None:
    interrupted_transaction(tmp_path / "original")
    shutil.copytree(tmp_path / "original", tmp_path / "copy")
    copy = tmp_path / "copy"
    with pytest.raises(WriteError, match=r"was not made by the run the journal records .*check the files"):
        recover(copy / "Build" / JOURNAL_NAME)
    assert (copy / "Source" / "Version.h").read_bytes() == b"old header"
    assert (copy / "Build" / JOURNAL_NAME).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need an administrator or developer mode")
def test_a_link_inside_the_project_into_git_is_refused(tmp_path: Path) -> None:
    project = repository_with_version(tmp_path / "game")
    (project / "gitdir").symlink_to(project / ".git")
    planted = project / ".git" / f".HEAD.0123456789ab{TEMP_SUFFIX}"
    planted.write_bytes(b"git's")
    journal = project / "Build" / JOURNAL_NAME
    entry = {**JOURNAL_ENTRY, "target": "gitdir/HEAD", "temp": planted.name}
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [entry]}))
    with pytest.raises(WriteError, match="lies in a version-control folder"):
        recover(journal)
    assert planted.read_bytes() == b"git's"


def test_a_journal_at_a_repositorys_root_trusts_nothing_above_it(tmp_path: Path) -> None:
    # version-file = "Build.version" at the root: the journal is in the repository's root, whose parent holds
    # other repositories. Their files are outside this project: recovery neither writes nor removes them.
    project = repository_with_version(tmp_path / "game")
    sibling = tmp_path / "sibling" / "Source"
    sibling.mkdir(parents=True)
    backup = sibling / f".Version.h.0123456789ab.backup{TEMP_SUFFIX}"
    backup.write_bytes(b"a sibling's backup")
    entry = {**JOURNAL_ENTRY, "target": "sibling/Source/Version.h", "temp": f".Version.h.0123456789ab{TEMP_SUFFIX}"}
    journal = project / JOURNAL_NAME
    journal.write_text(json.dumps({"buildver-journal": 3, "entries": [entry]}))
    assert recover(journal) == []
    assert backup.read_bytes() == b"a sibling's backup"


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need an administrator or developer mode")
def test_a_build_folder_that_is_a_link_still_recovers(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "Build").symlink_to(shared)
    interrupted = tmp_path / "game"
    first, second = interrupted / "Build" / "Build.version", interrupted / "Build" / "BuildVersion.h"
    first.write_bytes(b"old version")
    real_replace = os.replace

    def replace_then_stop(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if Path(target).name == "BuildVersion.h":
            raise KeyboardInterrupt  # Ctrl-C between the renames
        real_replace(source, target)

    with transaction(first.parent) as journal, pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", replace_then_stop)
        with pytest.raises(KeyboardInterrupt):
            apply_changes([FileChange(first, b"old version", b"new"), FileChange(second, None, b"h")], journal=journal)
    assert recover(journal) == [shared / "BuildVersion.h"]  # named where the link leads
    assert (first.read_bytes(), second.read_bytes()) == (b"new", b"h")


def game_in_a_repository(folder: Path, shared: Path | None = None) -> Path:
    """A game whose Build.version is ``Versioning/Build/Build.version`` (its journal's folder two folders down),
    committed in a git repository at ``folder``; its Config/ a link to ``shared`` when given."""
    (folder / "Versioning" / "Build").mkdir(parents=True)
    version = '{"MajorVersion": 1, "MinorVersion": 0, "PatchVersion": 0, "Changelist": 0}'
    (folder / "Versioning" / "Build" / "Build.version").write_text(version)
    (folder / "Game.uproject").write_text('{"FileVersion": 3}')
    if shared is not None:
        shared.mkdir(parents=True)
        (shared / "DefaultGame.ini").write_text("[x]\n")
        (folder / "Config").symlink_to(shared, target_is_directory=True)
    (folder / ".gitignore").write_text("")
    git(folder, "init", "--quiet", "--initial-branch", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "--quiet", "-m", "base")
    return folder


PLANTED_PROJECTS = [
    ("../../..", "its project '../../..' is not the one this run writes in ('../..', from the journal)"),
    ("..", "its project '..' is not the one this run writes in ('../..', from the journal)"),
    ("/", "its project '/' is not a folder above the journal's"),
    ("../x", "its project '../x' is not a folder above the journal's"),
    (None, "its project None is not a folder above the journal's"),
]


@pytest.mark.parametrize(("root", "message"), PLANTED_PROJECTS)
def test_a_journal_cannot_name_a_project_wider_than_the_runs_own(tmp_path: Path, root: object, message: str) -> None:
    # Version 4 journals record their project (issue 30, item 1); a planted one aiming above the game, at the
    # filesystem's root, or anywhere but the game the run itself finds from its .uproject, is refused whole.
    game = game_in_a_repository(tmp_path / "game")
    outside = tmp_path / "victim.txt"
    outside.write_text("keep")
    journal = game / "Versioning" / "Build" / JOURNAL_NAME
    entry = {**JOURNAL_ENTRY, "target": "victim.txt", "backup": None, "backup-inode": None}
    journal.write_text(json.dumps({"buildver-journal": 4, "root": root, "entries": [entry]}))
    result = run_buildver(game, "update-local", "-f", "Versioning/Build/Build.version", "--cl", "5")
    assert result.returncode == 3, result.stderr
    assert result.stderr.count("\n") == 1
    assert message in result.stderr
    assert outside.read_text() == "keep"
    assert journal.exists()


def test_a_version_4_journal_outside_any_game_is_refused(tmp_path: Path) -> None:
    repository = repository_with_version(tmp_path / "tool")
    journal = repository / "Build" / JOURNAL_NAME
    entry = {**JOURNAL_ENTRY, "target": "Build/T", "backup": None, "backup-inode": None}
    journal.write_text(json.dumps({"buildver-journal": 4, "root": "..", "entries": [entry]}))
    result = run_buildver(repository, "update-local", "--skip-header", "--cl", "5")
    assert result.returncode == 3, result.stderr
    assert "its project '..' is not the one this run writes in (none, from the journal)" in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need administrator rights on Windows")
def test_only_the_games_config_link_may_lead_out_of_the_project(tmp_path: Path) -> None:
    # The game's Config/ may be a link to a shared folder (update-local writes through it, so recovery may); any
    # other link out of the game, planted beside it, is refused as before.
    game = game_in_a_repository(tmp_path / "game", shared=tmp_path / "shared" / "Config")
    (game / "Other").symlink_to(tmp_path / "shared" / "Config", target_is_directory=True)
    journal = game / "Versioning" / "Build" / JOURNAL_NAME
    for target, refused in (("Other/DefaultGame.ini", True), ("Config/DefaultGame.ini", False)):
        temp = f".DefaultGame.ini.0123456789ab{TEMP_SUFFIX}"
        entry = {**JOURNAL_ENTRY, "target": target, "temp": temp, "backup": None, "backup-inode": None}
        journal.write_text(json.dumps({"buildver-journal": 4, "root": "../..", "entries": [entry]}))
        result = run_buildver(game, "update-local", "-f", "Versioning/Build/Build.version", "--skip-header")
        if refused:
            assert result.returncode == 3, result.stderr
            assert "Other/DefaultGame.ini leads out of the project through a symbolic link" in result.stderr
        else:
            # Trusted, but not the run's own file (no temporary file with its inode): nothing to finish or undo.
            assert result.returncode == 0, result.stderr
            assert not journal.exists()
        assert (tmp_path / "shared" / "Config" / "DefaultGame.ini").read_text() == "[x]\n"
