"""Issue 30, items 4 and 5: what pre-commit passes to the guard. Staged symbolic links and submodules reach it
(pre-commit's default ``types: [file]`` dropped them: "(no files to check) Skipped"), and a path that starts with
``-`` is a file name, not an option ("No such option: -r", exit 2). The real pre-commit framework, with the
README's local hook as written (the published hook is checked to say the same) and, slow, the published hook."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, GitRepository, git, run_buildver
from test_guard_pre_commit import (
    VERSION,
    PublishedHook,
    hook_repository,
    pre_commit_run,
    project,
    readme_config,
    run_published_hook,
)

__all__ = ["hook_repository"]  # the fixture, shared with the other pre-commit tests

from buildver.versions.build_version import render_new_file

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.skipif(sys.platform == "win32", reason="symbolic links and FIFOs"),
]


def staged_hostile_entries(root: Path) -> None:
    """Build.version a link to /dev/zero, a package a link to a FIFO, DefaultGame.ini a link out of the
    repository, and a submodule named like a package: each staged."""
    (root / "Build" / "Build.version").unlink()
    os.symlink("/dev/zero", root / "Build" / "Build.version")
    (root / "Content").mkdir()
    os.mkfifo(root / "fifo")
    os.symlink("../fifo", root / "Content" / "Linked.uasset")
    (root / "Game" / "Config").mkdir(parents=True)
    (root / "Game" / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": ""}')
    os.symlink("../../../../etc/passwd", root / "Game" / "Config" / "DefaultGame.ini")
    submodule = root / "Content" / "Sub.uasset"
    submodule.mkdir()
    git(submodule, "init", "--quiet")
    git(submodule, "commit", "--quiet", "--allow-empty", "-m", "inside")
    git(root, "add", "Build/Build.version", "Content/Linked.uasset", "Content/Sub.uasset")
    git(root, "add", "Game/Game.uproject", "Game/Config/DefaultGame.ini")


NEGATIVE = render_new_file(VERSION).replace('"Changelist": 1000', '"Changelist": -5')
EXPECTED_REFUSALS = (
    "Build/Build.version: error[version-invalid]: ",
    "Content/Linked.uasset: error[package-unreadable]: ",
    "Content/Sub.uasset: error[package-unreadable]: ",
    "Game/Config/DefaultGame.ini: error[",
)


def test_the_hook_definitions_pass_links_and_submodules_and_end_the_options() -> None:
    """The published hook and the README's and guard page's local hooks say the same: every staged entry (not
    only files, pre-commit's default) and ``--`` before the file names."""
    published = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    assert published["types"] == []
    assert published["entry"] == "buildver guard --"
    for page in ("README.md", "docs/guard.md"):
        local = re.search(r"```yaml\n(repos:\n  - repo: local\n.*?)```", (ROOT / page).read_text(), re.DOTALL)
        assert local is not None, page
        hook = yaml.safe_load(local[1])["repos"][0]["hooks"][0]
        for key in ("entry", "types", "files", "pass_filenames", "require_serial"):
            assert hook[key] == published[key], (page, key)


def test_pre_commit_refuses_staged_links_and_a_submodule(git_repository: GitRepository, tmp_path: Path) -> None:
    root = project(git_repository)
    staged_hostile_entries(root)
    by_hand = run_buildver(root, "guard", timeout=60)
    result = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no files to check" not in result.stdout
    for refusal in EXPECTED_REFUSALS:
        assert refusal in by_hand.stdout, by_hand.stdout
        assert refusal in result.stdout, result.stdout


def test_pre_commit_checks_a_path_that_starts_with_a_dash(git_repository: GitRepository, tmp_path: Path) -> None:
    root = project(git_repository)
    (root / "-rf").mkdir()
    (root / "-rf" / "Build.version").write_text(render_new_file(VERSION))
    git(root, "add", "--", "-rf/Build.version")
    passed = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "No such option" not in passed.stdout
    (root / "-rf" / "Build.version").write_text(NEGATIVE)
    git(root, "add", "--", "-rf/Build.version")
    refused = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "-rf/Build.version: error[version-invalid]: " in refused.stdout


def test_the_guard_takes_file_names_after_a_double_dash(git_repository: GitRepository) -> None:
    root = project(git_repository)
    (root / "-rf").mkdir()
    (root / "-rf" / "x.uasset").write_bytes(b"not a package")
    git(root, "add", "--", "-rf/x.uasset")
    result = run_buildver(root, "guard", "--", "-rf/x.uasset")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "-rf/x.uasset: error[package-unreadable]: " in result.stdout, result.stdout
    assert result.stderr == ""


@pytest.mark.slow
def test_the_published_hook_refuses_staged_links_a_submodule_and_checks_dash_paths(
    git_repository: GitRepository, hook_repository: PublishedHook
) -> None:
    root = project(git_repository)
    staged_hostile_entries(root)
    (root / "-rf").mkdir()
    (root / "-rf" / "Build.version").write_text(NEGATIVE)
    git(root, "add", "--", "-rf/Build.version")
    result = run_published_hook(root, hook_repository)
    assert result.returncode == 1, result.stdout + result.stderr
    for refusal in (*EXPECTED_REFUSALS, "-rf/Build.version: error[version-invalid]: "):
        assert refusal in result.stdout, result.stdout


def test_a_staged_path_that_starts_with_a_workflow_command_does_not_start_a_line_with_it(
    git_repository: GitRepository, tmp_path: Path
) -> None:
    """The attack harness (tools/attack, guard): a folder ``::add-mask::x`` at the repository's top. The guard's
    finding started with its path, so its line was ``::add-mask::x/Build.version: error[...]``, a workflow command
    that GitHub Actions runs (here: masking the rest of the line in every later log line)."""
    root = project(git_repository)
    (root / "::add-mask::x").mkdir()
    (root / "::add-mask::x" / "Build.version").write_text(NEGATIVE)
    git(root, "add", "--", ":(literal)::add-mask::x/Build.version")
    by_hand = run_buildver(root, "guard", timeout=60)
    hooked = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    for result in (by_hand, hooked):
        assert result.returncode == 1, result.stdout + result.stderr
        assert "x/Build.version: error[version-invalid]: " in result.stdout, result.stdout
        lines = (result.stdout + result.stderr).splitlines()
        assert [line for line in lines if line.lstrip().startswith("::")] == []


@pytest.mark.parametrize(
    ("descriptor", "why"),
    [
        (b"{ not json", "line 1, column 3: Expecting property name enclosed in double quotes"),
        (b'{"EngineVersion": "5.3.0"}', "no FileVersion: Unreal refuses a descriptor without one"),
    ],
)
def test_a_staged_plugin_unreal_cannot_read_is_refused_when_no_engine_is_known(
    git_repository: GitRepository, tmp_path: Path, descriptor: bytes, why: str
) -> None:
    """The attack harness (tools/attack, guard): plugin-invalid was checked only against a known engine, so in a
    game whose engine is not on this machine (a source build registered elsewhere) a .uplugin that Unreal cannot
    read was committed with a warning that it was not checked against an engine."""
    root = project(git_repository)
    (root / "Game" / "Plugins" / "Loose").mkdir(parents=True)
    association = '{"FileVersion": 3, "EngineAssociation": "{E95117F9-7FC3-4CEE-8B95-62A245C2AC7F}"}'
    (root / "Game" / "Game.uproject").write_text(association)
    (root / "Game" / "Plugins" / "Loose" / "Loose.uplugin").write_bytes(descriptor)
    git(root, "add", "Game/Game.uproject", "Game/Plugins/Loose/Loose.uplugin")
    by_hand = run_buildver(root, "guard", timeout=60)
    hooked = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    for result in (by_hand, hooked):
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"Game/Plugins/Loose/Loose.uplugin: error[plugin-invalid]: {why}" in result.stdout, result.stdout


@pytest.mark.parametrize("where", ["Game/Game.uproject", "Games/Sub/Sub.uproject"])
def test_a_staged_project_unreal_cannot_read_is_refused(
    git_repository: GitRepository, tmp_path: Path, where: str
) -> None:
    """The attack harness (tools/attack, guard): a .uproject that is not JSON, changed or new, in the repository's
    game or in a subfolder, was committed without a word (the guard read it only for its EngineAssociation), while
    the same .uplugin is refused: Unreal cannot open the project."""
    root = project(git_repository)
    (root / "Game").mkdir()
    (root / "Game" / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": "5.2"}')
    git(root, "add", "Game/Game.uproject")
    git(root, "commit", "--quiet", "-m", "game")
    (root / where).parent.mkdir(parents=True, exist_ok=True)
    (root / where).write_text('{"FileVersion": 3, "EngineAssociation": "5.2",')
    git(root, "add", where)
    by_hand = run_buildver(root, "guard", timeout=60)
    hooked = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    for result in (by_hand, hooked):
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"{where}: error[project-invalid]: line 1, column 47: " in result.stdout, result.stdout
