"""The guard in a game: packages and plugins are judged against the engine the staged ``.uproject`` names, never
against the game's own Build.version, whether the game keeps one or not, wherever the project lives in the
repository; on real git repositories with the real Unreal packages of the shared fixtures (5.2.1 and 5.5.4 saves)."""

from __future__ import annotations

import json
from pathlib import Path

import helpers
import pytest
from helpers import GitRepository, git

from buildver.cli.app import main
from buildver.versions.build_version import BuildVersion, render_new_file

UE52_PACKAGE = "uasset-rs/UE52/SimpleRefs/SimpleRefsRoot.uasset"  # saved by 5.2.1-26001984
UE55_PACKAGE = "uasset-rs/UE55/SimpleRefs/SimpleRefsRoot.uasset"  # saved by 5.5.4-40574608, FileVersionUE5 1013

UE52_LAUNCHER = BuildVersion(5, 2, 1, 26001984, 25360045, is_promoted_build=True, branch_name="++UE5+Release-5.2")
GAME_OWN = BuildVersion(1, 1, 2)  # what `buildver init --version 1.1.2` writes
GAME_OWN_STAMPED = BuildVersion(1, 1, 2, 1463, 1463, branch_name="++Game+Main")  # after update-local
GUID = "{2D4A449E-4F2B-46C1-B6E4-6D4C3E7E2F11}"


def fixture(relative: str) -> bytes:
    path = helpers.FIXTURES / relative
    if not path.is_file():
        pytest.skip(f"the real Unreal packages are not here: {helpers.FIXTURES}")
    return path.read_bytes()


def version_bytes(record: BuildVersion) -> bytes:
    return render_new_file(record).encode("utf-8")


def uproject(association: str) -> bytes:
    return json.dumps({"FileVersion": 3, "EngineAssociation": association}, indent="\t").encode()


def uplugin(engine_version: str) -> bytes:
    return json.dumps({"FileVersion": 3, "VersionName": "1.0", "EngineVersion": engine_version}).encode()


def install_launcher_52(machine: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A launcher install of 5.2.1, listed in a temporary HOME's LauncherInstalled.dat."""
    engine = machine / "Epic" / "UE_5.2"
    (engine / "Engine" / "Binaries").mkdir(parents=True)
    (engine / "Engine" / "Build").mkdir(parents=True)
    (engine / "Engine" / "Build" / "Build.version").write_bytes(version_bytes(UE52_LAUNCHER))
    listing = machine / "home" / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps({"InstallationList": [{"InstallLocation": str(engine), "AppName": "UE_5.2"}]}))
    monkeypatch.setenv("HOME", str(machine / "home"))
    return engine


def commit(root: Path, files: dict[str, bytes]) -> None:
    stage(root, files)
    git(root, "commit", "--quiet", "--no-verify", "-m", "change")


def stage(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    git(root, "add", "--", *files)


def guard(capsys: pytest.CaptureFixture[str], root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    monkeypatch.chdir(root)
    code = main(["guard"])
    return code, capsys.readouterr().out.splitlines()


NEWER_THAN_52 = "error[package-newer]: saved by a newer engine than {engine}: "

# (the game's own Build.version, whether 5.2 is installed, the engine the packages are judged against)
GAMES = [
    pytest.param(None, True, "5.2.1-26001984+++UE5+Release-5.2", id="no-own-version-engine-installed"),
    pytest.param(GAME_OWN, True, "5.2.1-26001984+++UE5+Release-5.2", id="own-version-engine-installed"),
    pytest.param(GAME_OWN_STAMPED, True, "5.2.1-26001984+++UE5+Release-5.2", id="stamped-own-version"),
    pytest.param(None, False, "any build of 5.2", id="no-own-version-engine-not-installed"),
    pytest.param(GAME_OWN_STAMPED, False, "any build of 5.2", id="stamped-own-version-engine-not-installed"),
]


@pytest.mark.parametrize(("own", "installed", "engine"), GAMES)
def test_a_game_s_packages_are_judged_against_the_project_s_engine_never_the_game_s_own_version(
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    own: BuildVersion | None,
    installed: bool,
    engine: str,
) -> None:
    if installed:
        install_launcher_52(tmp_path / "machine", monkeypatch)
    root = git_repository(commits=0)
    files = {"Game.uproject": uproject("5.2")}
    if own is not None:
        files["Build/Build.version"] = version_bytes(own)
    commit(root, files)
    # A package saved by the project's own editor, and a plugin made for its release, pass.
    stage(root, {"Content/Old.uasset": fixture(UE52_PACKAGE), "Plugins/P/P.uplugin": uplugin("5.2.0")})
    code, lines = guard(capsys, root, monkeypatch)
    assert (code, lines) == (0, ["buildver guard: 2 files checked, no problems"])
    # A package saved by a newer editor is refused: the data loss the guard exists to stop.
    stage(root, {"Content/New.uasset": fixture(UE55_PACKAGE)})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith("Content/New.uasset: " + NEWER_THAN_52.format(engine=engine))


def test_a_project_in_a_subfolder_is_judged_by_its_own_engine_not_the_root_s_version(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # CARLA's layout: the .uproject in Unreal/CarlaUE4/, the game's own version at the root (0.9.12).
    install_launcher_52(tmp_path / "machine", monkeypatch)
    root = git_repository(commits=0)
    commit(root, {"Unreal/Carla/Carla.uproject": uproject("5.2"), "Build/Build.version": version_bytes(GAME_OWN)})
    stage(root, {"Unreal/Carla/Content/New.uasset": fixture(UE55_PACKAGE)})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith(
        "Unreal/Carla/Content/New.uasset: " + NEWER_THAN_52.format(engine="5.2.1-26001984+++UE5+Release-5.2")
    )


def test_a_native_game_is_judged_by_the_engine_staged_in_its_depot(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repository(commits=0)
    (root / "Engine" / "Binaries").mkdir(parents=True)
    commit(
        root,
        {
            "Engine/Build/Build.version": version_bytes(UE52_LAUNCHER.replace(changelist=0, compatible_changelist=0)),
            "Engine/Source/Runtime/Launch/Resources/Version.h": b"#pragma once\n",
            "MyGame/MyGame.uproject": uproject(""),
        },
    )
    stage(
        root, {"MyGame/Content/Old.uasset": fixture(UE52_PACKAGE), "MyGame/Content/New.uasset": fixture(UE55_PACKAGE)}
    )
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith("MyGame/Content/New.uasset: " + NEWER_THAN_52.format(engine="5.2.1-0+++UE5+Release-5.2"))
    assert lines[-1] == "buildver guard: 2 files checked: 1 error, 0 warnings"


def test_a_source_build_not_registered_here_is_one_warning_naming_the_setting_that_would_check_it(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject(GUID), "Build/Build.version": version_bytes(GAME_OWN_STAMPED)})
    stage(root, {"Content/New.uasset": fixture(UE55_PACKAGE), "Plugins/P/P.uplugin": uplugin("5.2.0")})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 0  # never a silent pass: the warning says what was not checked, and what would check it
    assert len(lines) == 2
    assert lines[0].startswith(
        "Game.uproject: warning[no-engine-version]: 1 staged packages, 1 staged .uplugin files not "
        f"checked against an engine (EngineAssociation '{GUID}' (a source build registered on a machine) is not "
        "installed here"
    )
    assert lines[0].endswith(
        '; or set engine = "MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver])'
    )
    # With the setting, the machine without the engine checks them.
    (root / "buildver.toml").write_bytes(b'engine = "5.2"\n')
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith("Content/New.uasset: " + NEWER_THAN_52.format(engine="any build of 5.2"))


def test_the_association_is_read_from_the_staged_uproject(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The work tree says 5.5, the commit says 5.2: the commit is what is judged.
    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject("5.2")})
    stage(root, {"Content/New.uasset": fixture(UE55_PACKAGE)})
    (root / "Game.uproject").write_bytes(uproject("5.5"))
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith("Content/New.uasset: " + NEWER_THAN_52.format(engine="any build of 5.2"))
    stage(root, {"Game.uproject": uproject("5.5")})
    code, lines = guard(capsys, root, monkeypatch)
    assert (code, lines) == (0, ["buildver guard: 2 files checked, no problems"])


def test_a_lowered_store_version_is_one_error_for_the_architectures_of_the_project_s_release(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    section = b"[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\n"
    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject("5.3"), "Config/DefaultEngine.ini": section + b"StoreVersion=3\n"})
    stage(root, {"Config/DefaultEngine.ini": section + b"StoreVersion=2\n"})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert len(lines) == 2  # one error for the one changed line, not one per architecture
    assert "arm64 (3 -> 2) and x64 (3 -> 2)" in lines[0]
    assert "armv7" not in lines[0]


# (HEAD's association, the staged one, the finding; None: the commit passes)
ENGINE_CHANGES = [
    ("5.3", "4.26", "EngineAssociation '5.3' -> '4.26': the project's engine goes back from 5.3 to 4.26"),
    ("5.3", "5.2", "EngineAssociation '5.3' -> '5.2': the project's engine goes back from 5.3 to 5.2"),
    ("5.2", "5.3", None),  # an upgrade: Unreal converts the project
    ("5.3", "5.3", None),
    ("5.3", GUID, None),  # a source build not registered here: its release is not known, the packages' checks say so
]


@pytest.mark.parametrize(("head", "staged", "finding"), ENGINE_CHANGES)
def test_moving_a_project_to_an_older_engine_release_is_refused(
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    head: str,
    staged: str,
    finding: str | None,
) -> None:
    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject(head)})
    stage(root, {"Game.uproject": uproject(staged)})
    code, lines = guard(capsys, root, monkeypatch)
    if finding is None:
        assert code == 0
        assert lines[-1].startswith(
            "buildver guard: 1 file checked, no problems" if head != staged else "buildver guard: nothing"
        )
    else:
        assert code == 1
        assert lines[0].startswith(f"Game.uproject: error[project-engine-older]: {finding}, which cannot load")


def test_through_pre_commit_a_game_s_newer_package_and_an_engine_downgrade_are_refused(
    git_repository: GitRepository, tmp_path: Path
) -> None:
    """The real pre-commit framework with the README's local hook, in a game whose own Build.version has
    Changelist 0 (what init writes): Unreal's Changelist-0 rule must not let the 5.5 package through."""
    from test_guard_pre_commit import pre_commit_run, readme_config

    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject("5.2"), "Build/Build.version": version_bytes(GAME_OWN)})
    stage(root, {"Content/Old.uasset": fixture(UE52_PACKAGE)})
    result = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
    git(root, "commit", "--quiet", "--no-verify", "-m", "a 5.2 package")
    stage(root, {"Content/New.uasset": fixture(UE55_PACKAGE)})
    result = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert result.returncode == 1
    assert "Content/New.uasset: " + NEWER_THAN_52.format(engine="any build of 5.2") in result.stdout
    git(root, "rm", "--quiet", "--cached", "Content/New.uasset")
    stage(root, {"Game.uproject": uproject("4.27")})
    result = pre_commit_run(root, readme_config("local"), tmp_path / "cache")
    assert result.returncode == 1
    assert "Game.uproject: error[project-engine-older]: EngineAssociation '5.2' -> '4.27'" in result.stdout


def test_a_project_descriptor_unreal_cannot_read_is_refused_and_its_packages_unchecked_and_says_why(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject("5.2")})
    stage(root, {"Game.uproject": b"{ not json", "Content/New.uasset": fixture(UE55_PACKAGE)})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1  # Unreal cannot open the project (project-invalid); and says what it could not check
    invalid = "Game.uproject: error[project-invalid]: line 1, column 3: Expecting property name enclosed in double"
    assert f"{invalid} quotes" in lines
    assert lines[0].startswith("Game.uproject: warning[no-engine-version]: 1 staged packages not checked against an")
    assert "project-engine-older" not in "\n".join(lines)


def test_an_engine_setting_that_cannot_be_used_is_said_by_the_guard(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_repository(commits=0)
    (root / "buildver.toml").write_bytes(b'engine = "Missing/Build.version"\n')
    stage(root, {"Content/New.uasset": fixture(UE55_PACKAGE)})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 0
    assert lines[0].startswith("buildver.toml: warning[no-engine-version]: 1 staged packages not checked against an ")
    assert "(engine '" in lines[0]
    assert lines[0].endswith("Missing/Build.version: the version file is missing)")


UE53_PACKAGE = "uasset-rs/UE53/SimpleRefs/SimpleRefsRoot.uasset"  # FileVersionUE5 1009, as 5.2 writes


def test_with_only_the_release_known_a_package_compatible_only_with_a_newer_release_is_refused(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """5.2 and 5.3 write the same object versions: only CompatibleWithEngineVersion (5.3.0 with a changelist) tells
    that no 5.2 build loads the package, whatever its hotfix. A 5.2.1 save passes."""
    from helpers import run_cli

    root = git_repository(commits=0)
    commit(root, {"Game.uproject": uproject("5.2")})
    stage(root, {"Content/Mid.uasset": fixture(UE53_PACKAGE), "Content/Old.uasset": fixture(UE52_PACKAGE)})
    code, lines = guard(capsys, root, monkeypatch)
    assert code == 1
    assert lines[0].startswith("Content/Mid.uasset: " + NEWER_THAN_52.format(engine="any build of 5.2"))
    assert lines[0].endswith("which any build of 5.2 cannot load")
    assert lines[-1] == "buildver guard: 2 files checked: 1 error, 0 warnings"
    code, out, _ = run_cli(capsys, "assets", "scan", "Content")
    assert code == 1
    assert out.splitlines()[0] == "against 5.2 (EngineAssociation 5.2: not installed here, so release 5.2's tables)"
    assert "which any build of 5.2 cannot load" in out
    assert run_cli(capsys, "assets", "scan", "Content/Old.uasset", "--against", "5.2")[0] == 0
