"""``update-local`` as a new user runs it: ``--json`` as complete as ``show --json``, Unreal's spelling that refuses
to guess (``-CL 5``, ``-CL=5 --cl 6``), and a missing Build.version that says how to make one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import GitRepository, run_cli

DATA = Path(__file__).parents[1] / "data" / "build_version"

# (a Build.version of the test data, whether it sits in an engine tree, the options)
UPDATES = [
    ("ue5.3.2-forced-buildid.version", True, []),  # a BuildId the file keeps
    ("ue5.0.3.version", True, ["--new-build-id"]),
    ("ue4.27.2.version", True, []),
    ("ue4.25.4.version", False, ["--build", "Nightly"]),
    ("ue5.8.0.version", False, ["--no-licensee"]),
]


@pytest.mark.parametrize(("name", "engine", "options"), UPDATES)
def test_update_local_json_has_every_field_show_json_has(
    git_repository: GitRepository,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    engine: bool,
    options: list[str],
) -> None:
    root = git_repository()
    folder = root / "Engine" / "Build" if engine else root / "Build"
    folder.mkdir(parents=True)
    if engine:
        (root / "Engine" / "Source").mkdir()
    shutil.copyfile(DATA / name, folder / "Build.version")
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, "update-local", "--cl", "123", "--branch", "++Game+Main", "--json", *options)
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document.pop("FilesChanged")
    assert set(document.pop("Rules")) == {"Name", "Reason", "Source"}
    code, out, err = run_cli(capsys, "show", "--json")
    assert (code, err) == (0, "")
    # The same fields, in the same order, with the same values: what was written, as show reads it back.
    assert list(document.items()) == list(json.loads(out).items())
    assert {"EffectiveBuildVersion", "IsFormalBuild"} <= set(document)
    assert ("BuildId" in document) == ("BuildId" in (folder / "Build.version").read_text())


def test_update_local_dry_run_json_has_the_derived_fields(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository()
    (root / "Build").mkdir()
    shutil.copyfile(DATA / "ue5.8.0.version", root / "Build" / "Build.version")
    monkeypatch.chdir(root)
    code, out, _ = run_cli(capsys, "update-local", "--cl", "123", "--branch", "++Game+Main", "--json", "--dry-run")
    assert code == 0
    document = json.loads(out)
    assert (document["EffectiveBuildVersion"], document["IsFormalBuild"]) == ("++Game+Main-CL-123", 1)


# (arguments after update-local, the error)
REFUSED_SPELLINGS = [
    ("-CL 5", "update-local: -CL 5: UAT's parameters take their value after '=': -CL=5"),
    ("-cl 5", "update-local: -cl 5: UAT's parameters take their value after '=': -cl=5"),
    (
        "-Branch ++UE5+Main",
        "update-local: -Branch ++UE5+Main: UAT's parameters take their value after '=': -Branch=++UE5+Main",
    ),
    ("-Promoted 0", "update-local: -Promoted 0: UAT's parameters take their value after '=': -Promoted=0"),
    ("-CL=5 --cl 6", "update-local: -CL=5 and --cl 6 disagree; give one of them"),
    ("--cl 6 -CL=5", "update-local: -CL=5 and --cl 6 disagree; give one of them"),
    ("-CL=5 --cl=6", "update-local: -CL=5 and --cl=6 disagree; give one of them"),
    (
        "-CompatibleCL=4 --compatible-cl 3",
        "update-local: -CompatibleCL=4 and --compatible-cl 3 disagree; give one of them",
    ),
    ("-Build=A --build B", "update-local: -Build=A and --build B disagree; give one of them"),
    ("-Branch=++A --branch ++B", "update-local: -Branch=++A and --branch ++B disagree; give one of them"),
    ("-Promoted=0 --promoted 1", "update-local: -Promoted=0 and --promoted 1 disagree; give one of them"),
    ("-Licensee --no-licensee", "update-local: -Licensee and --no-licensee disagree; give one of them"),
]


@pytest.mark.parametrize(("arguments", "message"), REFUSED_SPELLINGS)
def test_unreal_spelling_that_would_be_guessed_is_refused_in_one_line(
    git_repository: GitRepository,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: str,
    message: str,
) -> None:
    root = git_repository()
    (root / "Build").mkdir()
    shutil.copyfile(DATA / "ue5.8.0.version", root / "Build" / "Build.version")
    before = (root / "Build" / "Build.version").read_bytes()
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, "update-local", *arguments.split(), "--branch=++Game+Main")
    assert (code, out, err) == (2, "", f"buildver: error: {message}\n")
    assert (root / "Build" / "Build.version").read_bytes() == before
    assert sorted(path.name for path in (root / "Build").iterdir()) == ["Build.version"]


# (arguments after update-local, the changelist written): agreeing twice is not a conflict
ACCEPTED_SPELLINGS = [
    ("-CL=5 --cl 5", 5),
    ("-CL=5 -CL=6", 5),  # UAT's first -Name=value wins
    ("-CL -CL=5", 5),  # a bare -CL is no value
    ("-CL uebp_CL=7", 7),  # NAME=VALUE after a bare -CL sets a variable, as UAT does
    ("-Licensee --licensee --cl 8", 8),
    ("-SkipHeader --skip-header --cl 9", 9),
]


@pytest.mark.parametrize(("arguments", "changelist"), ACCEPTED_SPELLINGS)
def test_unreal_spelling_that_agrees_with_buildvers_options_is_taken(
    git_repository: GitRepository,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: str,
    changelist: int,
) -> None:
    root = git_repository()
    (root / "Build").mkdir()
    shutil.copyfile(DATA / "ue5.8.0.version", root / "Build" / "Build.version")
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, "update-local", *arguments.split(), "--branch=++Game+Main", "--json", "--dry-run")
    assert (code, err) == (0, "")
    assert json.loads(out)["Changelist"] == changelist


def test_update_local_without_a_build_version_suggests_file_and_init(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository()
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, "update-local", "--cl", "5")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {root}: no Build/Build.version or Engine/Build/Build.version here or in a parent folder "
        "(up to the repository root); pass --file PATH, or create one with: buildver init --version "
        "MAJOR.MINOR.PATCH\n"
    )
