"""``show`` in a game project: the game's own versions (ProjectVersion, Android's version codes and name, iOS's
VersionInfo) as Unreal's packaging computes them for the project's engine, each with its file and rule; on the
public TankFire project's config files (tests/data/ini/tankfire, MIT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import EPIC_532_VERSION, install_launcher_engine, run_cli

DATA = Path(__file__).parents[1] / "data"
EPIC_532 = EPIC_532_VERSION


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TankFire's Config/ in a project on 5.3, its engine a launcher install listed in a temporary HOME."""
    install_launcher_engine(tmp_path, monkeypatch)
    monkeypatch.delenv("IsBuildMachine", raising=False)
    folder = tmp_path / "TankFire"
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", folder / "Config")
    (folder / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    (folder / "Build").mkdir()
    (folder / "Build" / "Build.version").write_text(
        EPIC_532.replace('5,\n\t"MinorVersion": 3', '1,\n\t"MinorVersion": 4')
    )
    monkeypatch.chdir(folder)
    return folder


def test_show_in_a_game_adds_the_game_s_own_versions_with_their_files_and_rules(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    assert out.split("IsFormalBuild", 1)[1].splitlines()[1:] == [
        "TankFire.uproject: the game's own versions (Unreal 5.3; UnrealBuildTool 5.1 to 5.3; not a build machine "
        "(IsBuildMachine))",
        "  ProjectVersion           1.0.3.0         Config/DefaultGame.ini:9: ProjectVersion",
        "  AndroidVersionCodeArm64  3               Config/DefaultEngine.ini:106: StoreVersion",
        "  AndroidVersionCodeX64    3               Config/DefaultEngine.ini:106: StoreVersion",
        "  AndroidVersionName       1.0             Config/DefaultEngine.ini:108: VersionDisplayName",
        "  IOSVersionInfo           2.0             Config/DefaultEngine.ini:90: VersionInfo",
        "  IOSBundleVersion         (not given)     CFBundleVersion: off a build machine UnrealBuildTool bumps the "
        "previous Info.plist's number (UEDeployIOS.cs UpdateBundleVersion); the config does not give it",
    ]


def test_show_fields_json_and_env_name_the_game_s_versions(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "show", "--field", "projectversion", "--field", "AndroidVersionCodeArm64") == (
        0,
        "1.0.3.0\n3\n",
        "",
    )
    code, out, _ = run_cli(capsys, "show", "--json")
    document = json.loads(out)
    assert (code, document["ProjectVersion"], document["MajorVersion"]) == (0, "1.0.3.0", 1)
    assert document["GameVersionSources"]["IOSVersionInfo"] == "Config/DefaultEngine.ini:90: VersionInfo"
    assert document["Project"] == str(game / "TankFire.uproject")
    code, out, _ = run_cli(capsys, "show", "--format", "env", "--field", "IOSVersionInfo")
    assert (code, out) == (0, "IOSVersionInfo=2.0\n")


def test_on_a_build_machine_the_engine_s_changelist_is_ios_bundle_version(
    game: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IsBuildMachine", "1")
    code, out, _ = run_cli(capsys, "show", "--field", "IOSBundleVersion")
    assert (code, out) == (0, "29314046\n")


def test_a_game_whose_engine_is_not_found_shows_project_version_and_why_nothing_more(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "{0000-1}"}))
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    heading, version = out.split("IsFormalBuild", 1)[1].splitlines()[1:]
    assert heading.startswith("TankFire.uproject: the game's own versions (its engine is not known here (")
    assert heading.endswith("); Android and iOS values need the engine's release)")
    assert version == "  ProjectVersion           1.0.3.0         Config/DefaultGame.ini:9: ProjectVersion"
    code, out, err = run_cli(capsys, "show", "--field", "AndroidVersionCodeArm64")
    assert (code, out) == (1, "")  # a field this place does not have; 2 is for usage errors
    assert err.startswith("buildver: error: ")
    assert "no AndroidVersionCodeArm64 here (TankFire.uproject: the game's own versions (its engine" in err


def test_a_game_field_outside_a_project_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_text(EPIC_532)
    code, out, err = run_cli(
        capsys, "show", "-f", str(tmp_path / "Build" / "Build.version"), "--field", "ProjectVersion"
    )
    assert (code, out) == (1, "")
    assert err.endswith("no ProjectVersion here (no .uproject here, at or above the folder, or below it)\n")


def test_an_unknown_field_lists_the_game_s_names_too(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "show", "--field", "StoreVersion")
    assert code == 2
    assert "ProjectVersion, AndroidVersionCodeArmv7" in err


def test_a_corrupt_config_file_is_one_error_line_and_nothing_changes(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game / "Config" / "DefaultGame.ini").write_bytes(b"[/Script/EngineSettings.GeneralProjectSettings]\nA=\xff\n")
    before = (game / "Build" / "Build.version").read_bytes()
    code, out, err = run_cli(capsys, "show")
    assert (code, out) == (1, "")
    assert err.startswith("buildver: error: Config/DefaultGame.ini: line 2: ")
    assert err.count("\n") == 1
    assert (game / "Build" / "Build.version").read_bytes() == before


def test_an_engine_whose_build_version_cannot_be_read_still_shows_the_game_s_project_version(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine_version = game.parent / "Epic" / "UE_5.3" / "Engine" / "Build" / "Build.version"
    engine_version.write_text("{")
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    assert "ProjectVersion           1.0.3.0" in out
    # The launcher association "5.3" still names the packaging rules.
    assert "TankFire.uproject: the game's own versions (Unreal 5.3;" in out
