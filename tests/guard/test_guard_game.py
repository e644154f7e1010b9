"""The guard on a game's own versions, in real git repositories: ProjectVersion and Android's version codes never go
backwards across a commit, and no version code is above Google Play's limit; on TankFire's public config files
(tests/data/ini/tankfire, MIT)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import GitRepository, git

from buildver.cli.app import main

DATA = Path(__file__).parents[1] / "data" / "ini" / "tankfire" / "Config"
GAME_INI = (DATA / "DefaultGame.ini").read_bytes()  # ProjectVersion=1.0.3.0 on line 9
ENGINE_INI = (DATA / "DefaultEngine.ini").read_bytes()  # StoreVersion=3 on line 106


def stage(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    git(root, "add", "--", *files)


@pytest.fixture
def game(git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = git_repository(commits=0)
    stage(root, {"Config/DefaultGame.ini": GAME_INI, "Config/DefaultEngine.ini": ENGINE_INI})
    git(root, "commit", "--quiet", "--no-verify", "-m", "TankFire's config")
    monkeypatch.chdir(root)
    return root


def guard(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["guard"])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    ("version", "code"),
    [("1.0.3.1", 0), ("1.1", 0), ("2.0.0.0", 0), ("1.0.3.0", 0), ("1.0.3", 0), ("1.0.2.9", 1), ("0.9", 1)],
)
def test_project_version_never_goes_backwards(
    game: Path, capsys: pytest.CaptureFixture[str], version: str, code: int
) -> None:
    stage(
        game,
        {"Config/DefaultGame.ini": GAME_INI.replace(b"ProjectVersion=1.0.3.0", f"ProjectVersion={version}".encode())},
    )
    result, lines = guard(capsys)
    assert result == code
    if code:
        assert lines[0] == (
            f"Config/DefaultGame.ini: error[project-version-backwards]: line 9: ProjectVersion goes backwards: "
            f"1.0.3.0 -> {version}"
        )


def test_a_project_version_that_is_not_a_version_is_a_warning(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stage(game, {"Config/DefaultGame.ini": GAME_INI.replace(b"ProjectVersion=1.0.3.0", b"ProjectVersion=1.0-beta")})
    result, lines = guard(capsys)
    assert result == 0
    assert lines[0].startswith("Config/DefaultGame.ini: warning[project-version-invalid]: line 9: ProjectVersion")


@pytest.mark.parametrize(
    ("after", "message"),
    [
        (
            b"StoreVersion=2",
            "error[android-version-code-backwards]: line 106: StoreVersion 2 (was 3) lowers the version code of "
            "armv7 (3 -> 2), arm64 (3 -> 2), x86 (3 -> 2) and x64 (3 -> 2)",
        ),
        (
            b"StoreVersion=2100000001",
            "error[android-version-code-too-large]: line 106: StoreVersion 2100000001 puts the version code of armv7 "
            "(2100000001), arm64 (2100000001), x86 (2100000001) and x64 (2100000001) above 2100000000, Google Play's "
            "limit",
        ),
    ],
)
def test_android_version_codes_never_fall_nor_pass_google_play_s_limit(
    game: Path, capsys: pytest.CaptureFixture[str], after: bytes, message: str
) -> None:
    stage(game, {"Config/DefaultEngine.ini": ENGINE_INI.replace(b"StoreVersion=3", after)})
    result, lines = guard(capsys)
    assert result == 1
    assert lines[0].startswith(f"Config/DefaultEngine.ini: {message} (")
    assert not any("android-version-code" in line for line in lines[1:])  # one finding for the one line


def test_an_offset_that_lowers_one_architecture_s_code_is_refused(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_offset = ENGINE_INI.replace(b"StoreVersion=3", b"StoreVersion=3\nStoreVersionOffsetArm64=1000")
    stage(game, {"Config/DefaultEngine.ini": with_offset})
    git(game, "commit", "--quiet", "--no-verify", "-m", "offset")
    stage(
        game,
        {
            "Config/DefaultEngine.ini": with_offset.replace(
                b"StoreVersionOffsetArm64=1000", b"StoreVersionOffsetArm64=0"
            )
        },
    )
    result, lines = guard(capsys)
    assert result == 1
    assert lines[0] == (
        "Config/DefaultEngine.ini: error[android-version-code-backwards]: line 107: StoreVersionOffsetArm64 0 (was "
        "1000) lowers the version code of arm64 (1003 -> 3) (the engine's release is not known: every architecture "
        "is checked); stores refuse an upload whose version code does not grow"
    )


def test_growing_versions_and_a_new_project_pass(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stage(game, {"Config/DefaultEngine.ini": ENGINE_INI.replace(b"StoreVersion=3", b"StoreVersion=4")})
    stage(game, {"Other/Config/DefaultGame.ini": GAME_INI})  # no HEAD: nothing to compare with
    assert guard(capsys) == (0, ["buildver guard: 2 files checked, no problems"])


def test_an_unreadable_config_is_an_error_naming_the_line(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stage(game, {"Config/DefaultGame.ini": GAME_INI.replace(b"ProjectVersion=1.0.3.0", b"ProjectVersion=\xff")})
    result, lines = guard(capsys)
    assert result == 1
    assert lines[0].startswith("Config/DefaultGame.ini: error[game-config-invalid]: line 9: ")


def test_a_check_can_be_turned_off(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (game / "buildver.toml").write_text('[guard]\nproject-version-backwards = "off"\n')
    stage(game, {"Config/DefaultGame.ini": GAME_INI.replace(b"ProjectVersion=1.0.3.0", b"ProjectVersion=0.1")})
    assert guard(capsys)[0] == 0
