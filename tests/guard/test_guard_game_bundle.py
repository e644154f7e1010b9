"""The guard on an app bundle's version code (``bEnableBundle``): Google Play receives StoreVersion without any
architecture's offset, so the bundle's code must not fall, nor pass Google Play's limit, even where every
architecture's code grows. On PiozaLauncher's public DefaultEngine.ini (tests/data/ini/pioza,
Shieldowskyy/PiozaLauncher@91b47b966f5cfc295bf7392b901cf77a7060c9da, MIT): StoreVersion=1 on line 309,
StoreVersionOffsetArm64=0 on line 310, bEnableBundle=True on line 340."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import GitRepository, git

from buildver.cli.app import main
from buildver.guard.checks import check_game_config

ENGINE_INI = (Path(__file__).parents[1] / "data" / "ini" / "pioza" / "Config" / "DefaultEngine.ini").read_bytes()
PATH = "Config/DefaultEngine.ini"


def edited(**values: str) -> bytes:
    """Pioza's file with the given keys' lines replaced (the key must be there)."""
    data = ENGINE_INI
    for key, value in values.items():
        start = data.index(f"\n{key}=".encode()) + 1
        end = data.index(b"\n", start)
        data = data[:start] + f"{key}={value}".encode() + data[end:]
    return data


@pytest.fixture
def game(git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = git_repository(commits=0)
    monkeypatch.chdir(root)
    return root


def commit_then_stage(root: Path, head: bytes, staged: bytes, capsys: pytest.CaptureFixture[str]) -> list[str]:
    (root / "Config").mkdir(exist_ok=True)
    (root / PATH).write_bytes(head)
    git(root, "add", "--", PATH)
    git(root, "commit", "--quiet", "--no-verify", "-m", "head")
    (root / PATH).write_bytes(staged)
    git(root, "add", "--", PATH)
    code = main(["guard"])
    return [str(code), *capsys.readouterr().out.splitlines()]


def test_a_bundle_whose_code_falls_while_each_architecture_s_grows_is_refused(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = edited(StoreVersion="4", StoreVersionOffsetArm64="4")  # arm64 8, the bundle 4
    staged = edited(StoreVersion="3", StoreVersionOffsetArm64="6")  # arm64 9, the bundle 3
    lines = commit_then_stage(game, head, staged, capsys)
    assert lines[:2] == [
        "1",
        f"{PATH}: error[android-version-code-backwards]: line 309: StoreVersion 3 (was 4) lowers the version code of "
        "armv7 (4 -> 3), x86 (4 -> 3), x64 (4 -> 3) and the app bundle (4 -> 3) (the engine's release is not known: "
        "every architecture is checked); stores refuse an upload whose version code does not grow",
    ]


def test_turning_bundles_on_must_not_send_a_lower_code_than_the_apks_had(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = edited(StoreVersion="36", StoreVersionOffsetArm64="1", bEnableBundle="False")  # arm64 37
    staged = edited(StoreVersion="36", StoreVersionOffsetArm64="1")  # the bundle 36
    lines = commit_then_stage(game, head, staged, capsys)
    assert lines[:2] == [
        "1",
        f"{PATH}: error[android-version-code-backwards]: line 340: bEnableBundle True (was False) lowers the version "
        "code of the app bundle (37 -> 36) (the engine's release is not known: every architecture is checked); "
        "stores refuse an upload whose version code does not grow",
    ]


def test_a_bundle_above_the_apks_highest_code_passes(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = edited(StoreVersion="36", StoreVersionOffsetArm64="1", bEnableBundle="False")
    staged = edited(StoreVersion="38", StoreVersionOffsetArm64="1")
    assert commit_then_stage(game, head, staged, capsys)[0] == "0"


def test_a_bundle_code_above_google_play_s_limit_is_refused_where_the_architectures_are_not() -> None:
    staged = edited(StoreVersion="2100000001", StoreVersionOffsetArm64="-10", StoreVersionOffsetX8664="-10")
    findings = check_game_config(PATH, staged, None, engine_release=(5, 3))
    assert [(finding.check, finding.message) for finding in findings] == [
        (
            "android-version-code-too-large",
            "line 309: StoreVersion 2100000001 puts the version code of the app bundle (2100000001) above 2100000000, "
            "Google Play's limit (UnrealBuildTool 5.1 to 5.3 builds arm64 and x64)",
        )
    ]
