"""update-local never moves a game's versions backwards, reading the current value exactly as ``show`` and Unreal
read it: StoreVersion by UnrealBuildTool's ``Int32.TryParse`` (``+100``, `` 100 ``), ProjectVersion with
BaseGame.ini's 1.0.0.0 when DefaultGame.ini sets none; a value that cannot be read is refused with its line, never
silently replaced (issue 30, item 2). Real TankFire config files (tests/data/ini/tankfire, MIT), the real command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from buildver.cli import main
from buildver.projects.game_version import ANDROID_SETTINGS
from buildver.projects.unreal_ini import IniReader, parse_ini

DATA = Path(__file__).parents[1] / "data"
ENGINE = "Config/DefaultEngine.ini"
GAME = "Config/DefaultGame.ini"
SETTINGS = (
    'version-file = "Build/Build.version"\nskip-header = true\n'
    'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'
)


def build_version(major: int, minor: int, patch: int) -> str:
    return json.dumps(
        {
            "MajorVersion": major,
            "MinorVersion": minor,
            "PatchVersion": patch,
            "Changelist": 0,
            "CompatibleChangelist": 0,
            "IsLicenseeVersion": 0,
            "IsPromotedBuild": 0,
            "BranchName": "",
        },
        indent="\t",
    )


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "TankFire"
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", folder / "Config")
    (folder / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    (folder / "Build").mkdir()
    (folder / "Build" / "Build.version").write_text(build_version(1, 4, 2))
    (folder / "buildver.toml").write_text(SETTINGS)
    monkeypatch.chdir(folder)
    for name in ("uebp_CL", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def set_line(folder: Path, relative: str, old: bytes, new: bytes) -> None:
    path = folder / relative
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


# The StoreVersion line as written, the changelist stamped, and the error (None: stamped, exit 0).
STORE_VERSIONS = [
    (b"StoreVersion=+100", "11", "StoreVersion would go backwards, 100 -> 11"),
    (b'StoreVersion=" 100"', "11", "StoreVersion would go backwards, 100 -> 11"),
    (b"StoreVersion=\t0100", "99", "StoreVersion would go backwards, 100 -> 99"),
    (b'StoreVersion="+100 "', "100", None),
    (b"StoreVersion=+100", "101", None),
    (b"StoreVersion=100", "11", "StoreVersion would go backwards, 100 -> 11"),
]


@pytest.mark.parametrize(("line", "changelist", "message"), STORE_VERSIONS)
def test_store_version_is_compared_as_unreal_build_tool_reads_it(
    game: Path, capsys: pytest.CaptureFixture[str], line: bytes, changelist: str, message: str | None
) -> None:
    set_line(game, ENGINE, b"StoreVersion=3", line)
    before = files(game)
    code = main(["update-local", "--cl", changelist, "--branch", "++Tank+Main"])
    err = capsys.readouterr().err
    if message is None:
        assert (code, err) == (0, "")
        written = parse_ini((game / ENGINE).read_bytes(), ENGINE)
        assert written.get(ANDROID_SETTINGS, "StoreVersion", reader=IniReader.UBT) == changelist
        return
    assert code == 1
    assert err.startswith(f"buildver: error: {game / ENGINE}: {message} (android-store-version")
    assert files(game) == before


@pytest.mark.parametrize(
    ("line", "shown"),
    [(b"StoreVersion=abc", "'abc'"), (b"StoreVersion=1e3", "'1e3'"), (b"StoreVersion=99999999999", "'99999999999'")],
)
def test_a_store_version_that_cannot_be_read_is_refused_with_its_line_and_nothing_is_written(
    game: Path, capsys: pytest.CaptureFixture[str], line: bytes, shown: str
) -> None:
    set_line(game, ENGINE, b"StoreVersion=3", line)
    before = files(game)
    assert main(["update-local", "--cl", "5", "--branch", "++Tank+Main"]) == 1
    assert capsys.readouterr().err == (
        f"buildver: error: {game / ENGINE}: line 106: StoreVersion {shown} is not a 32-bit whole number "
        "(UnrealBuildTool would read 0): update-local does not replace a value it cannot compare; correct it by hand\n"
    )
    assert files(game) == before


# DefaultGame.ini's ProjectVersion line (None: removed), Build.version's numbers, and the error (None: stamped).
PROJECT_VERSIONS = [
    (None, (0, 2, 0), "ProjectVersion would go backwards, 1.0.0.0 -> 0.2.0.5"),
    (None, (1, 0, 0), None),
    (b"ProjectVersion=", (0, 2, 0), None),  # set but empty: Unreal's empty string, not BaseGame.ini's
    (b"ProjectVersion=  1.4.2.6  ", (1, 4, 2), "ProjectVersion would go backwards, 1.4.2.6 -> 1.4.2.5"),
    (b'ProjectVersion="2.0"', (1, 9, 9), "ProjectVersion would go backwards, 2.0 -> 1.9.9.5"),
    (b"ProjectVersion=1.4", (1, 4, 0), None),
]


@pytest.mark.parametrize(("line", "numbers", "message"), PROJECT_VERSIONS)
def test_project_version_is_compared_as_the_engine_reads_it_with_base_game_ini_s_default(
    game: Path,
    capsys: pytest.CaptureFixture[str],
    line: bytes | None,
    numbers: tuple[int, int, int],
    message: str | None,
) -> None:
    set_line(game, GAME, b"ProjectVersion=1.0.3.0", line or b"ProjectName=TankFire")
    (game / "Build" / "Build.version").write_text(build_version(*numbers))
    (game / "buildver.toml").write_text(SETTINGS.replace('android-store-version = "{Changelist}"\n', ""))
    before = files(game)
    code = main(["update-local", "--cl", "5", "--branch", "++Tank+Main"])
    err = capsys.readouterr().err
    if message is None and line == b"ProjectVersion=":
        # an empty value is not a version: refused with its line, like any value that cannot be read
        assert code == 1
        assert "line 9: ProjectVersion '' is not a version" in err
        assert "correct it by hand" in err
        assert files(game) == before
        return
    if message is None:
        assert (code, err) == (0, "")
        assert b"ProjectVersion=%d.%d.%d.5" % numbers in (game / GAME).read_bytes()
        return
    assert code == 1
    assert err.startswith(f"buildver: error: {game / GAME}: {message} (project-version")
    assert files(game) == before


def test_a_project_version_that_cannot_be_read_is_refused_with_its_line(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_line(game, GAME, b"ProjectVersion=1.0.3.0", b"ProjectVersion=1.0-beta")
    before = files(game)
    assert main(["update-local", "--cl", "5", "--branch", "++Tank+Main"]) == 1
    assert capsys.readouterr().err == (
        f"buildver: error: {game / GAME}: line 9: ProjectVersion '1.0-beta' is not a version: 1 to 4 whole numbers "
        "separated by dots: update-local does not replace a value it cannot compare; correct it by hand\n"
    )
    assert files(game) == before
