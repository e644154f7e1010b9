"""update-local's last code change: CompatibleChangelist from git as Unreal Game Sync stamps it from Perforce.

Every repository here is a real git repository in ``tmp_path``. The expected changelists are counted by the tests
from the commits they make (the changelist of a commit is the number of commits reachable from it), never asked of
buildver's code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import git

from buildver.cli.app import main

DATA = Path(__file__).parents[1] / "data"
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class Repository:
    """A git repository that a test fills commit by commit; it knows each commit's changelist by counting."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True)
        git(root, "init", "--quiet", "--initial-branch=main")
        self.date = 1_700_000_000

    def commit(self, message: str, files: dict[str, str | None], *, date: int | None = None) -> str:
        """Write (or, for None, delete) ``files`` and commit them; returns the commit's hash."""
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        git(self.root, "add", "--all")
        return self._commit("commit", "--quiet", "--allow-empty", "-m", message, date=date)

    def merge(self, branch: str, message: str) -> str:
        return self._commit("merge", "--quiet", "--no-ff", "-m", message, branch, date=None)

    def _commit(self, *arguments: str, date: int | None) -> str:
        self.date += 60
        stamp = f"{date or self.date} +0000"
        os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = stamp
        try:
            git(self.root, *arguments)
        finally:
            del os.environ["GIT_AUTHOR_DATE"], os.environ["GIT_COMMITTER_DATE"]
        return git(self.root, "rev-parse", "HEAD")

    def changelist(self, commit: str = "HEAD") -> int:
        """The number of commits reachable from ``commit``, counted by listing them."""
        return len(git(self.root, "rev-list", commit).splitlines())


def game(root: Path) -> Repository:
    """A game repository whose first commit holds its .uproject (a code file to UGS) and its Build.version."""
    repository = Repository(root)
    repository.commit("the game", {"Game.uproject": '{"FileVersion": 3}', "Build/Build.version": UE503.decode()})
    return repository


def stamped(repository: Repository, folder: str = "") -> dict[str, int]:
    data = json.loads((repository.root / folder / "Build" / "Build.version").read_bytes())
    return {"Changelist": data["Changelist"], "CompatibleChangelist": data["CompatibleChangelist"]}


def stamp(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    return run(capsys, "update-local", "--skip-header", "--branch", "B", *flags)


def test_content_only_commits_keep_the_last_code_change_and_a_code_commit_moves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    repository.commit("a level", {"Content/Maps/Level.umap": "level"})
    repository.commit("a texture", {"Content/Textures/Rock.uasset": "rock"})
    code, out, err = stamp(capsys, "--compatible-cl", "last-code-change")
    assert (code, err) == (0, "")
    assert stamped(repository) == {"Changelist": 3, "CompatibleChangelist": 1}
    first = git(repository.root, "rev-parse", "HEAD~2")[:12]
    source = f"last code change, by --compatible-cl: commit {first} changed Game.uproject"
    assert f"CompatibleChangelist 19505902 -> 1 ({source})" in out

    repository.commit("the hero", {"Source/Game/Hero.cpp": "int hero;", "Source/Game/Hero.h": "#pragma once"})
    code_change = repository.changelist()
    repository.commit("settings", {"Config/DefaultGame.ini": "[/Script]"})
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository) == {"Changelist": code_change + 1, "CompatibleChangelist": code_change}


def test_a_deleted_or_renamed_code_file_is_a_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    repository.commit("code", {"Source/Game/Old.cpp": "int old;"})
    repository.commit("delete", {"Source/Game/Old.cpp": None})
    deleted = repository.changelist()
    repository.commit("content", {"Content/A.uasset": "a"})
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == deleted
    # A code file renamed to a content file's name: Perforce lists both names (move/delete, move/add), and so does
    # buildver; git's own rename detection would list the new name only.
    repository.commit("plan", {"Source/Game/Plan.cpp": "int plan;\n" * 20})
    (repository.root / "Notes").mkdir()
    git(repository.root, "mv", "Source/Game/Plan.cpp", "Notes/plan.txt")
    renamed = repository.commit("renamed", {})
    repository.commit("content", {"Content/B.uasset": "b"})
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == repository.changelist(renamed)


def test_the_users_git_settings_do_not_change_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings that change what git log prints: no diff for the first commit, colours, renames."""
    repository = game(tmp_path / "Game")
    repository.commit("content", {"Content/A.uasset": "a"})
    for name, value in (("log.showRoot", "false"), ("color.ui", "always"), ("diff.renames", "copies")):
        git(repository.root, "config", name, value)
    monkeypatch.chdir(repository.root)
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == 1  # the first commit's Game.uproject


def test_a_merge_is_the_code_change_it_brings_whatever_the_dates_of_the_merged_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The branch's own line decides: the merged side's code commit is not on it (its changelist counts a history
    without main's later commits), even when its date is the newest; the merge that brought it is."""
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    repository.commit("content", {"Content/A.uasset": "a"})
    git(repository.root, "switch", "--quiet", "-c", "feature")
    side = repository.commit("feature code", {"Source/Game/Feature.cpp": "int feature;"}, date=1_900_000_000)
    git(repository.root, "switch", "--quiet", "main")
    repository.commit("main content", {"Content/B.uasset": "b"})
    repository.commit("main code", {"Source/Game/Main.cpp": "int main_;"})
    repository.commit("more content", {"Content/C.uasset": "c"})
    merge = repository.merge("feature", "merge the feature")
    repository.commit("content after", {"Content/D.uasset": "d"})
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == repository.changelist(merge) == 7
    assert repository.changelist(side) == 3  # what a date-ordered search would have stamped


def test_a_merge_that_brings_no_code_is_not_a_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    code_change = repository.changelist(repository.commit("code", {"Source/Game/Game.cpp": "int game;"}))
    git(repository.root, "switch", "--quiet", "-c", "art")
    repository.commit("art", {"Content/Art.uasset": "art"})
    repository.commit("try some code", {"Source/Game/Try.cpp": "int try_;"})
    repository.commit("take it back", {"Source/Game/Try.cpp": None})
    git(repository.root, "switch", "--quiet", "main")
    repository.commit("main content", {"Content/Main.uasset": "main"})
    repository.merge("art", "merge the art")  # its code changes cancel out: the code is main's as it was
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == code_change


def test_code_written_in_a_merge_itself_is_a_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    git(repository.root, "switch", "--quiet", "-c", "art")
    repository.commit("art", {"Content/Art.uasset": "art"})
    git(repository.root, "switch", "--quiet", "main")
    repository.commit("main content", {"Content/Main.uasset": "main"})
    git(repository.root, "merge", "--quiet", "--no-ff", "--no-commit", "art")
    (repository.root / "Source" / "Game").mkdir(parents=True)
    (repository.root / "Source" / "Game" / "Fix.cpp").write_text("int fix;")
    git(repository.root, "add", "--all")
    merge = repository.commit("merge the art, with a fix", {})
    repository.commit("content", {"Content/After.uasset": "after"})
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == repository.changelist(merge)


def test_the_files_update_local_writes_are_never_a_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generated header in the game's module (a .h) and Build.version, stamped and committed back with a level:
    every run rewrites them from the stamp, so what a commit holds in them never reaches the build."""
    repository = game(tmp_path / "Game")
    header = "Source/Game/BuildVersion.h"
    (repository.root / "buildver.toml").write_text(f'header = "{header}"\ncompatible-changelist = "last-code-change"\n')
    code_change = repository.changelist(repository.commit("code", {"Source/Game/Game.cpp": "int g;"}))
    monkeypatch.chdir(repository.root)
    assert run(capsys, "update-local", "--branch", "B")[0] == 0
    repository.commit("a level, with what the last run stamped", {"Content/Maps/Level.umap": "level"})
    assert git(repository.root, "show", "--name-only", "--format=", "HEAD").splitlines() == [
        "Build/Build.version",
        "Content/Maps/Level.umap",
        header,
    ]
    assert run(capsys, "update-local", "--branch", "B")[0] == 0
    assert stamped(repository) == {"Changelist": code_change + 1, "CompatibleChangelist": code_change}
    assert run(capsys, "update-local", "--branch", "B", "--skip-header")[0] == 0  # still the configured header's
    assert stamped(repository)["CompatibleChangelist"] == code_change


def test_a_game_in_a_subfolder_counts_the_whole_repository_and_its_rules_start_at_the_repository_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = Repository(tmp_path / "Studio")
    repository.commit("the game", {"Game/Game.uproject": "{}", "Game/Build/Build.version": UE503.decode()})
    game_code = repository.changelist(repository.commit("game code", {"Game/Source/Game/Game.cpp": "int g;"}))
    tools_code = repository.changelist(repository.commit("a tool", {"Tools/Bake/Bake.cs": "class Bake {}"}))
    repository.commit("content", {"Game/Content/A.uasset": "a"})
    monkeypatch.chdir(repository.root / "Game")
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository, "Game")["CompatibleChangelist"] == tools_code  # every folder of the repository

    (repository.root / "Game" / "buildver.toml").write_text(
        'compatible-changelist = "last-code-change"\ncode-filter = ["-/Tools/..."]\n'
    )
    code, out, err = stamp(capsys)
    assert (code, err) == (0, "")
    assert stamped(repository, "Game")["CompatibleChangelist"] == game_code
    assert "(last code change, by the compatible-changelist setting: commit " in out
    assert "changed Game/Source/Game/Game.cpp" in out  # the path from the repository's root, as git gives it


def test_a_shallow_clone_is_refused_with_what_to_do_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = game(tmp_path / "Origin")
    origin.commit("code", {"Source/Game/Game.cpp": "int g;"})
    origin.commit("content", {"Content/A.uasset": "a"})
    clone = tmp_path / "Clone"
    git(tmp_path, "clone", "--quiet", "--depth", "1", f"file://{origin.root}", str(clone))
    monkeypatch.chdir(clone)
    before = (clone / "Build" / "Build.version").read_bytes()
    code, out, err = stamp(capsys, "--cl", "3", "--compatible-cl", "last-code-change")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {clone}: the clone is shallow, so the last change cannot be found or counted; fetch the "
        "whole history (actions/checkout: fetch-depth: 0) or pass --compatible-cl N\n"
    )
    assert (clone / "Build" / "Build.version").read_bytes() == before


def test_a_repository_where_no_commit_changed_code_has_no_last_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As UGS ("Could not find any code changes before CL") and UAT 5.8 (no code changelist): an error."""
    repository = Repository(tmp_path / "Art")
    repository.commit("the version", {"Build/Build.version": UE503.decode()})
    repository.commit("art", {"Content/A.uasset": "a", "Config/DefaultGame.ini": "[/Script]"})
    monkeypatch.chdir(repository.root)
    before = (repository.root / "Build" / "Build.version").read_bytes()
    code, out, err = stamp(capsys, "--compatible-cl", "last-code-change")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {repository.root}: last-code-change (--compatible-cl): no commit reachable from HEAD "
        "changed a code file (UGS's code extensions), so there is no last code change; pass --compatible-cl N\n"
    )
    assert (repository.root / "Build" / "Build.version").read_bytes() == before
    (repository.root / "buildver.toml").write_text('code-filter = ["*.ini"]\n')  # settings count as code here
    assert stamp(capsys, "--compatible-cl", "last-code-change")[0] == 0
    assert stamped(repository)["CompatibleChangelist"] == 2


def test_an_unborn_branch_has_no_last_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = Repository(tmp_path / "New")
    (repository.root / "Build").mkdir()
    (repository.root / "Build" / "Build.version").write_bytes(UE503)
    monkeypatch.chdir(repository.root)
    code, _, err = stamp(capsys, "--compatible-cl", "last-code-change")
    assert code == 1
    assert "no commit reachable from HEAD changed a code file" in err


@pytest.mark.parametrize("given", [("--cl", "99"), ("-CL=99",)])
def test_a_changelist_from_elsewhere_than_git_is_refused_beside_the_last_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, given: tuple[str, ...]
) -> None:
    """A Perforce changelist and a commit count are two numberings: CompatibleChangelist must be in Changelist's."""
    repository = game(tmp_path / "Game")
    repository.commit("code", {"Source/Game/Game.cpp": "int g;"})
    monkeypatch.chdir(repository.root)
    before = (repository.root / "Build" / "Build.version").read_bytes()
    code, out, err = stamp(capsys, *given, "--compatible-cl", "last-code-change")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {repository.root}: last-code-change (--compatible-cl): the changelist 99 (--cl) is not the "
        "number of commits reachable from HEAD (2), so the last code change would be counted in another numbering; "
        "leave the changelist to git, or pass --compatible-cl N (or set uebp_CodeCL)\n"
    )
    assert (repository.root / "Build" / "Build.version").read_bytes() == before
    monkeypatch.setenv("uebp_CL", "2")  # the same number as git's count: one numbering
    assert stamp(capsys, "-CompatibleCL=last-code-change")[0] == 0
    assert stamped(repository) == {"Changelist": 2, "CompatibleChangelist": 2}


def test_a_history_git_cannot_read_is_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commits can be counted (their objects are there) but an old tree is gone: git log fails on it."""
    repository = game(tmp_path / "Game")
    old_tree = git(repository.root, "rev-parse", "HEAD^{tree}")
    repository.commit("content", {"Content/A.uasset": "a"})
    (repository.root / ".git" / "objects" / old_tree[:2] / old_tree[2:]).unlink()
    monkeypatch.chdir(repository.root)
    before = (repository.root / "Build" / "Build.version").read_bytes()
    code, out, err = stamp(capsys, "--compatible-cl", "last-code-change")
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {repository.root}: cannot read the git repository (")
    assert old_tree in err
    assert err.count("\n") == 1
    assert (repository.root / "Build" / "Build.version").read_bytes() == before


def test_outside_git_there_is_no_last_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_bytes(UE503)
    monkeypatch.chdir(tmp_path)
    code, out, err = stamp(capsys, "--cl", "5", "--compatible-cl", "last-code-change")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {tmp_path / 'Build'}: last-code-change (--compatible-cl): not inside a git repository; "
        "pass --compatible-cl N or set uebp_CodeCL\n"
    )


PRECEDENCE_CASES = [
    # (flags, environment, settings file, CompatibleChangelist, where it came from); the last code change is 2.
    ((), {}, "", 19505902, None),
    (
        (),
        {},
        'compatible-changelist = "last-code-change"\n',
        2,
        "last code change, by the compatible-changelist setting",
    ),
    ((), {}, "compatible-changelist = 42\n", 42, "the compatible-changelist setting"),
    ((), {"uebp_CodeCL": "77"}, 'compatible-changelist = "last-code-change"\n', 77, "uebp_CodeCL"),
    (
        ("--compatible-cl", "last-code-change"),
        {"uebp_CodeCL": "77"},
        "compatible-changelist = 42\n",
        2,
        "last code change, by --compatible-cl",
    ),
    (("--compatible-cl", "5"), {}, 'compatible-changelist = "last-code-change"\n', 5, "--compatible-cl"),
    # 0 means "not given", and a flag given as 0 still stops the variable and the setting (as in UAT 5.8).
    (("--compatible-cl", "0"), {"uebp_CodeCL": "77"}, "compatible-changelist = 42\n", 19505902, None),
    ((), {"uebp_CodeCL": "0"}, "compatible-changelist = 42\n", 42, "the compatible-changelist setting"),
]


@pytest.mark.parametrize(("flags", "environment", "settings", "expected", "source"), PRECEDENCE_CASES)
def test_the_flag_beats_uebp_code_cl_which_beats_the_setting_which_beats_the_rules(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    environment: dict[str, str],
    settings: str,
    expected: int,
    source: str | None,
) -> None:
    repository = game(tmp_path / "Game")
    repository.commit("code", {"Source/Game/Game.cpp": "int g;"})
    repository.commit("content", {"Content/A.uasset": "a"})
    if settings:
        (repository.root / "buildver.toml").write_text(settings)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(repository.root)
    code, out, err = stamp(capsys, *flags)
    assert (code, err) == (0, "")
    assert stamped(repository)["CompatibleChangelist"] == expected
    line = next(line for line in out.splitlines() if "CompatibleChangelist" in line) if source else ""
    assert source is None or f"({source}" in line


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            "compatible-changelist = 0\n",
            "compatible-changelist must be 'last-code-change' or a changelist from 1 to 2147483647, not 0",
        ),
        ('compatible-changelist = "latest"\n', "not 'latest'"),
        ("compatible-changelist = true\n", "not True"),
        ("compatible-changelist = 2147483648\n", "not 2147483648"),
        ('code-filter = "*.ini"\n', "code-filter must be a list of rules (strings), not '*.ini'"),
        ('code-filter = ["+*.ini"]\n', "code-filter: '+*.ini': UGS has no '+': a rule without '-' includes"),
        ('code-filter = ["-"]\n', "code-filter: '-' names no path"),
        ("code-filter = [1]\n", "code-filter: 1 is not a string"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, settings: str, message: str
) -> None:
    repository = game(tmp_path / "Game")
    (repository.root / "buildver.toml").write_text(settings)
    monkeypatch.chdir(repository.root)
    before = (repository.root / "Build" / "Build.version").read_bytes()
    code, out, err = stamp(capsys)
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {repository.root / 'buildver.toml'}: ")
    assert message in err
    assert err.count("\n") == 1
    assert (repository.root / "Build" / "Build.version").read_bytes() == before


@pytest.mark.parametrize("value", ["banana", "Last-Code-Change", "-5", "2147483648", ""])
def test_a_compatible_changelist_that_is_neither_a_number_nor_last_code_change_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, out, err = run(capsys, "update-local", "--cl", "1", "--compatible-cl", value)
    assert (code, out) == (2, "")
    assert err.startswith("buildver: error: Invalid value for '--compatible-cl': ")
    assert err.rstrip().endswith(", nor last-code-change")


def test_dry_run_and_json_show_the_last_code_change_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = game(tmp_path / "Game")
    repository.commit("code", {"Source/Game/Game.cpp": "int g;"})
    repository.commit("content", {"Content/A.uasset": "a"})
    monkeypatch.chdir(repository.root)
    before = (repository.root / "Build" / "Build.version").read_bytes()
    code, out, _ = stamp(capsys, "--compatible-cl", "last-code-change", "--dry-run")
    assert code == 0
    assert '+\t"CompatibleChangelist": 2,' in out
    code, out, _ = stamp(capsys, "--compatible-cl", "last-code-change", "--dry-run", "--json")
    assert code == 0
    assert json.loads(out)["CompatibleChangelist"] == 2
    assert (repository.root / "Build" / "Build.version").read_bytes() == before


def test_paths_of_any_bytes_are_read_whole_and_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """git lists paths NUL-terminated, the first one of a commit after a newline: a name that starts with a newline,
    or holds bytes that are not UTF-8, is still one path, and reaches the terminal escaped."""
    repository = game(tmp_path / "Game")
    monkeypatch.chdir(repository.root)
    odd = os.fsdecode(b"Source/\nCaf\xe9\x1b[31m.cpp")
    repository.commit("odd code", {odd: "int odd;"})
    repository.commit("content", {"Content/A.uasset": "a"})
    code, out, err = stamp(capsys, "--compatible-cl", "last-code-change")
    assert (code, err) == (0, "")
    assert stamped(repository)["CompatibleChangelist"] == 2
    assert "changed Source/\\nCaf\\udce9\\x1b[31m.cpp)" in out
    assert "\x1b" not in out


def test_a_week_of_content_and_code_commits_stamped_after_each_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game team's week, with the setting on and update-local run after every commit, as a build machine does:
    artists' commits leave CompatibleChangelist alone, so editors built from it stay compatible; every code
    commit, merged or direct, moves it to its own changelist."""
    repository = game(tmp_path / "Game")
    (repository.root / "buildver.toml").write_text('compatible-changelist = "last-code-change"\n')
    repository.commit("settings", {"buildver.toml": (repository.root / "buildver.toml").read_text()})
    monkeypatch.chdir(repository.root)
    last_code = 1  # the .uproject
    week = [
        ("monday", [("content", "Content/Maps/Arena.umap"), ("content", "Content/Maps/Arena_BuiltData.uasset")]),
        ("tuesday", [("code", "Source/Game/Weapon.cpp"), ("content", "Content/Weapons/Rifle.uasset")]),
        ("wednesday", [("content", "Config/DefaultGame.ini"), ("content", "Content/UI/Menu.uasset")]),
        ("thursday", [("code", "Source/Game/Weapon.h"), ("code", "Plugins/Fx/Fx.uplugin"), ("content", "Docs/fx.md")]),
        ("friday", [("content", "Content/Audio/Shot.uasset"), ("shader", "Shaders/Private/Glow.usf")]),
    ]
    for day, commits in week:
        for number, (kind, path) in enumerate(commits):
            repository.commit(f"{day} {number}", {path: f"{day} {number}"})
            if kind != "content":
                last_code = repository.changelist()
            code, _, err = stamp(capsys)
            assert (code, err) == (0, "")
            assert stamped(repository) == {"Changelist": repository.changelist(), "CompatibleChangelist": last_code}
    # Friday evening: a feature branch with code and art lands; Saturday's art changes nothing.
    git(repository.root, "switch", "--quiet", "-c", "feature/jump")
    repository.commit("jump", {"Source/Game/Jump.cpp": "int jump;", "Content/Anim/Jump.uasset": "jump"})
    git(repository.root, "switch", "--quiet", "main")
    repository.merge("feature/jump", "merge jump")
    merged = repository.changelist()
    repository.commit("retrigger the build", {})  # an empty commit: no paths at all
    repository.commit("saturday", {"Content/Maps/Arena.umap": "saturday"})
    assert stamp(capsys)[0] == 0
    assert stamped(repository) == {"Changelist": merged + 2, "CompatibleChangelist": merged}
