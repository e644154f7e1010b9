"""update-local stamps the layer that decides: a StoreVersion set in Config/Android/AndroidEngine.ini (which
UnrealBuildTool reads after DefaultEngine.ini) is stamped there, and a ProjectVersion set in a platform's
Config/<Platform>/<Platform>Game.ini (which that platform's packaged game reads after DefaultGame.ini) is stamped there
too; the backwards check reads the same layers. On TankFire's public config files (tests/data/ini/tankfire,
feixuwu/TankFire@c172cab5d5599ff066dfe17bb89945893fdee572, MIT), with a platform layer added."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import BUILDVER, install_launcher_engine, needs_strace, run_cli, run_with_failed_syscall

from buildver.cli import main

DATA = Path(__file__).parents[1] / "data"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
SETTINGS = (
    'version-file = "Build/Build.version"\nskip-header = true\n'
    'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'
)
ANDROID_ENGINE = b"[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\nStoreVersion=500\n"
ANDROID_GAME = b"[/Script/EngineSettings.GeneralProjectSettings]\nProjectVersion=1.2.0.0\n"


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install_launcher_engine(tmp_path, monkeypatch)
    folder = tmp_path / "TankFire"
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", folder / "Config")
    (folder / "Config" / "Android").mkdir()
    (folder / "Config" / "Android" / "AndroidEngine.ini").write_bytes(ANDROID_ENGINE)
    (folder / "Config" / "Android" / "AndroidGame.ini").write_bytes(ANDROID_GAME)
    (folder / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    (folder / "Build").mkdir()
    (folder / "Build" / "Build.version").write_text(GAME_VERSION)
    (folder / "buildver.toml").write_text(SETTINGS)
    monkeypatch.chdir(folder)
    for name in ("uebp_CL", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT", "IsBuildMachine"):
        monkeypatch.delenv(name, raising=False)
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_store_version_is_stamped_in_the_platform_file_that_decides_it(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    assert main(["update-local", "--cl", "600", "--branch", "++Tank+Main"]) == 0
    out = capsys.readouterr().out
    android = game / "Config" / "Android" / "AndroidEngine.ini"
    assert f"{android}: StoreVersion '500' -> '600' (android-store-version)" in out
    after = files(game)
    assert after["Config/DefaultEngine.ini"] == before["Config/DefaultEngine.ini"]  # not the layer that decides
    assert after["Config/Android/AndroidEngine.ini"] == ANDROID_ENGINE.replace(b"500", b"600")
    assert run_cli(capsys, "show", "--field", "AndroidVersionCodeArm64") == (0, "600\n", "")


def test_the_backwards_check_reads_the_platform_layer(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = files(game)
    assert main(["update-local", "--cl", "400", "--branch", "++Tank+Main"]) == 1
    captured = capsys.readouterr()
    android = game / "Config" / "Android" / "AndroidEngine.ini"
    assert captured.err.startswith(f"buildver: error: {android}: StoreVersion would go backwards, 500 -> 400 (")
    assert files(game) == before


def test_show_gives_a_platform_s_own_project_version(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "  ProjectVersion           1.0.3.0         Config/DefaultGame.ini:9: ProjectVersion" in lines
    assert "  ProjectVersionAndroid    1.2.0.0         Config/Android/AndroidGame.ini:2: ProjectVersion" in lines
    assert run_cli(capsys, "show", "--field", "projectversionandroid") == (0, "1.2.0.0\n", "")


def test_project_version_is_stamped_in_every_layer_that_sets_it(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["update-local", "--cl", "600", "--branch", "++Tank+Main"]) == 0
    out = capsys.readouterr().out
    assert f"{game / 'Config' / 'DefaultGame.ini'}: ProjectVersion '1.0.3.0' -> '1.4.2.600' (project-version)" in out
    android = game / "Config" / "Android" / "AndroidGame.ini"
    assert f"{android}: ProjectVersion '1.2.0.0' -> '1.4.2.600' (project-version)" in out
    assert android.read_bytes() == ANDROID_GAME.replace(b"1.2.0.0", b"1.4.2.600")


def test_a_platform_s_project_version_going_backwards_is_refused(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game / "Config" / "Android" / "AndroidGame.ini").write_bytes(ANDROID_GAME.replace(b"1.2.0.0", b"9.0"))
    before = files(game)
    assert main(["update-local", "--cl", "600", "--branch", "++Tank+Main"]) == 1
    android = game / "Config" / "Android" / "AndroidGame.ini"
    assert capsys.readouterr().err.startswith(
        f"buildver: error: {android}: ProjectVersion would go backwards, 9.0 -> 1.4.2.600 ("
    )
    assert files(game) == before


def test_ios_bundle_version_off_a_build_machine_says_why_it_is_not_given(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "show", "--field", "IOSBundleVersion")
    assert (code, out) == (1, "")
    assert "no IOSBundleVersion here: CFBundleVersion: off a build machine UnrealBuildTool bumps the previous" in err


@needs_strace
@pytest.mark.parametrize("error", ["EMFILE", "EACCES"])
def test_a_config_folder_that_cannot_be_listed_is_one_error_and_nothing_written(game: Path, error: str) -> None:
    """The attack harness (tools/attack, kills): with the open of Config/ failing (EMFILE, EACCES), the platform
    layers counted as none, so update-local stamped DefaultGame.ini and left Config/Android/AndroidGame.ini's older
    ProjectVersion deciding the Android game, exit 0: a silent partial stamp, as issue 30's item 6 for the header."""
    before = files(game)
    result = run_with_failed_syscall(
        [BUILDVER, "update-local", "--cl", "600", "--branch", "++Tank+Main"],
        game,
        "openat",
        error,
        when=1,  # the first open of Config/ itself: the listing of its platform folders
        path=game / "Config",
        env={**os.environ},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith(f"buildver: error: {game / 'Config'}: cannot list the folder for its platform "), (
        result.stderr
    )
    assert result.stderr.count("\n") == 1
    assert files(game) == before
