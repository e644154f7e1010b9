"""update-local in a game stamps the game's own versions when asked: ProjectVersion in Config/DefaultGame.ini and
Android's StoreVersion in Config/DefaultEngine.ini, in the same all-or-nothing write as Build.version, editing only
the value's bytes (on the public TankFire project's config files, tests/data/ini/tankfire, MIT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import install_launcher_engine, read_github_output

from buildver.cli import main
from buildver.errors import ConfigError
from buildver.versions.config import load_config

DATA = Path(__file__).parents[1] / "data"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
SETTINGS = (
    'version-file = "Build/Build.version"\nskip-header = true\n'
    'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'
)


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "TankFire"
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", folder / "Config")
    (folder / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    (folder / "Build").mkdir()
    (folder / "Build" / "Build.version").write_text(GAME_VERSION)
    (folder / "buildver.toml").write_text(SETTINGS)
    monkeypatch.chdir(folder)
    for name in ("uebp_CL", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_update_local_stamps_project_version_and_store_version_editing_only_the_values(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    assert main(["update-local", "--cl", "1234", "--branch", "++Tank+Main"]) == 0
    out = capsys.readouterr().out
    assert f"{game / 'Config' / 'DefaultGame.ini'}: ProjectVersion '1.0.3.0' -> '1.4.2.1234' (project-version)" in out
    assert f"{game / 'Config' / 'DefaultEngine.ini'}: StoreVersion '3' -> '1234' (android-store-version)" in out
    after = files(game)
    assert after["Config/DefaultGame.ini"] == before["Config/DefaultGame.ini"].replace(
        b"ProjectVersion=1.0.3.0", b"ProjectVersion=1.4.2.1234"
    )
    assert after["Config/DefaultEngine.ini"] == before["Config/DefaultEngine.ini"].replace(
        b"StoreVersion=3\r\n", b"StoreVersion=1234\r\n"
    ).replace(b"StoreVersion=3\n", b"StoreVersion=1234\n")
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"Build/Build.version", "Config/DefaultGame.ini", "Config/DefaultEngine.ini"}
    assert main(["update-local", "--cl", "1234", "--branch", "++Tank+Main"]) == 0
    assert "up to date: nothing written" in capsys.readouterr().out


def test_a_utf16_crlf_config_file_stays_utf16_crlf(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "; 游戏设置\r\n[/Script/EngineSettings.GeneralProjectSettings]\r\nProjectName=Tank\r\nProjectVersion=1.0\r\n"
    (game / "Config" / "DefaultGame.ini").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    assert main(["update-local", "--cl", "7", "--branch", "++Tank+Main"]) == 0
    capsys.readouterr()
    expected = text.replace("ProjectVersion=1.0", "ProjectVersion=1.4.2.7")
    assert (game / "Config" / "DefaultGame.ini").read_bytes() == b"\xff\xfe" + expected.encode("utf-16-le")


def test_a_value_that_is_not_a_version_is_one_error_and_nothing_is_written(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game / "buildver.toml").write_text(
        SETTINGS.replace('{Changelist}"\nandroid', '{Changelist}.{Changelist}"\nandroid')
    )
    before = files(game)
    assert main(["update-local", "--cl", "5", "--branch", "++Tank+Main"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"buildver: error: {game / 'Config' / 'DefaultGame.ini'}: line 9: ProjectVersion '1.4.2.5.5' is not a "
        "version: 1 to 4 whole numbers separated by dots\n"
    )
    assert files(game) == before


def test_a_store_version_above_google_play_s_limit_is_refused_and_nothing_is_written(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    assert main(["update-local", "--cl", "2100000001", "--branch", "++Tank+Main"]) == 1
    assert "StoreVersion 2100000001 is outside 1 to 2100000000 (Google Play's limit)" in capsys.readouterr().err
    assert files(game) == before


def test_the_settings_need_a_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_text(GAME_VERSION)
    (tmp_path / "buildver.toml").write_text(SETTINGS)
    monkeypatch.chdir(tmp_path)
    assert main(["update-local", "--cl", "5", "--branch", "++Tank+Main"]) == 1
    assert "project-version is set, but there is no .uproject at or above" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('project-version = "{Major}.{Build}"', "{Build} is not one of {Major}, {Minor}, {Patch}, {Changelist}"),
        ('project-version = "{Major:04}"', "{Major} is not one of"),
        ('android-store-version = "{Changelist"', "is not a template"),
        ('android-store-version = "{}"', "{} is not one of"),
    ],
)
def test_a_bad_template_is_refused_when_the_configuration_is_read(tmp_path: Path, setting: str, message: str) -> None:
    (tmp_path / "buildver.toml").write_text(setting + "\n")
    with pytest.raises(ConfigError, match=message.replace("{", r"\{").replace("}", r"\}").replace(".", r"\.")):
        load_config(tmp_path)


@pytest.mark.parametrize(
    ("changelist", "message"),
    [
        ("2", "StoreVersion would go backwards, 3 -> 2 (android-store-version '{Changelist}')"),
        ("5", None),
    ],
)
def test_a_store_version_that_would_go_backwards_is_refused_and_nothing_is_written(
    game: Path, capsys: pytest.CaptureFixture[str], changelist: str, message: str | None
) -> None:
    before = files(game)
    code = main(["update-local", "--cl", changelist, "--branch", "++Tank+Main"])
    err = capsys.readouterr().err
    if message is None:
        assert (code, err) == (0, "")
        return
    assert code == 1
    hint = "stores refuse a version that does not grow: change the template, or the file's value by hand"
    assert err == f"buildver: error: {game / 'Config' / 'DefaultEngine.ini'}: {message}; {hint}\n"
    assert files(game) == before


def test_a_project_version_that_would_go_backwards_is_refused(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (game / "buildver.toml").write_text(SETTINGS.replace("{Major}.{Minor}.{Patch}.{Changelist}", "0.{Changelist}"))
    assert main(["update-local", "--cl", "9", "--branch", "++Tank+Main"]) == 1
    assert (
        "ProjectVersion would go backwards, 1.0.3.0 -> 0.9 (project-version '0.{Changelist}')"
        in capsys.readouterr().err
    )


# -- the outputs for GitHub Actions ---------------------------------------------------------------------------------


def test_github_output_gains_the_games_versions_as_show_reads_them_once_stamped(
    game: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    install_launcher_engine(tmp_path / "machine", monkeypatch)
    monkeypatch.delenv("IsBuildMachine", raising=False)
    output = tmp_path / "github-output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    assert main(["update-local", "--cl", "1234", "--branch", "++Tank+Main"]) == 0
    written = read_github_output(output.read_text())
    capsys.readouterr()
    assert main(["show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert written == {
        "version": "1.4.2-1234+++Tank+Main",
        "changelist": "1234",
        "compatible_changelist": "1234",
        "branch": "++Tank+Main",
        "project_version": shown["ProjectVersion"],
        "android_version_code_arm64": str(shown["AndroidVersionCodeArm64"]),
        "android_version_code_x64": str(shown["AndroidVersionCodeX64"]),
        "android_version_name": shown["AndroidVersionName"],
        "ios_version_info": shown["IOSVersionInfo"],
    }
    assert (written["project_version"], written["android_version_code_arm64"]) == ("1.4.2.1234", "1234")


def test_a_game_whose_versions_cannot_be_read_afterwards_is_a_warning_not_a_failure(
    game: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The files are stamped by then: failing the run would report a stamp that happened as one that did not."""
    (game / "buildver.toml").write_text('version-file = "Build/Build.version"\nskip-header = true\n')
    (game / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    engine_ini = game / "Config" / "DefaultEngine.ini"
    engine_ini.write_text(engine_ini.read_text().replace("StoreVersion=3", "StoreVersion=three"))
    install_launcher_engine(tmp_path / "machine", monkeypatch)
    output = tmp_path / "github-output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    assert main(["update-local", "--cl", "1234", "--branch", "++Tank+Main"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("buildver: warning: the game's versions are not in GITHUB_OUTPUT: ")
    assert "StoreVersion 'three'" in err
    assert read_github_output(output.read_text())["version"] == "1.4.2-1234+++Tank+Main"
    assert '"Changelist": 1234' in (game / "Build" / "Build.version").read_text()
