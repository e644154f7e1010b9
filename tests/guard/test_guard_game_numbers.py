"""The guard reads a game's versions with the same parser as ``show`` and ``update-local`` (issue 30, item 2):
StoreVersion by UnrealBuildTool's ``Int32.TryParse``, ProjectVersion with BaseGame.ini's 1.0.0.0 when DefaultGame.ini
sets none; in real git repositories, on TankFire's public config files (tests/data/ini/tankfire, MIT)."""

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


def committed(git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch, files: dict[str, bytes]) -> Path:
    root = git_repository(commits=0)
    stage(root, files)
    git(root, "commit", "--quiet", "--no-verify", "-m", "the game's config")
    monkeypatch.chdir(root)
    return root


def game_ini(line: bytes | None) -> bytes:
    return GAME_INI.replace(b"ProjectVersion=1.0.3.0", line if line is not None else b"ProjectName=TankFire")


# HEAD's ProjectVersion line, the staged one (None: no such line), and the finding (None: the commit passes).
PROJECT_VERSIONS = [
    (b"ProjectVersion=2.0", None, "ProjectVersion (not set) goes backwards: 2.0 -> 1.0.0.0"),
    (b"ProjectVersion=1.0", None, None),
    (None, b"ProjectVersion=0.2.0.5", "line 9: ProjectVersion goes backwards: 1.0.0.0 -> 0.2.0.5"),
    (None, b"ProjectVersion=1.0.0.1", None),
    (b"ProjectVersion= 2.0 ", b'ProjectVersion="1.9"', "line 9: ProjectVersion goes backwards: 2.0 -> 1.9"),
]


@pytest.mark.parametrize(("head", "staged", "finding"), PROJECT_VERSIONS)
def test_project_version_defaults_to_base_game_ini_s_on_both_sides(
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    head: bytes | None,
    staged: bytes | None,
    finding: str | None,
) -> None:
    root = committed(git_repository, monkeypatch, {"Config/DefaultGame.ini": game_ini(head)})
    stage(root, {"Config/DefaultGame.ini": game_ini(staged)})
    code = main(["guard"])
    lines = capsys.readouterr().out.splitlines()
    if finding is None:
        assert code == 0, lines
        return
    assert code == 1
    assert lines[0] == f"Config/DefaultGame.ini: error[project-version-backwards]: {finding}"


@pytest.mark.parametrize(
    ("head", "staged", "code"),
    [
        (b"StoreVersion=+100", b"StoreVersion=11", 1),
        (b'StoreVersion=" 100"', b"StoreVersion=11", 1),
        (b"StoreVersion=+100", b"StoreVersion=100", 0),
        (b"StoreVersion=100", b"StoreVersion=+101", 0),
    ],
)
def test_store_version_is_read_as_unreal_build_tool_reads_it(
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    head: bytes,
    staged: bytes,
    code: int,
) -> None:
    root = committed(
        git_repository, monkeypatch, {"Config/DefaultEngine.ini": ENGINE_INI.replace(b"StoreVersion=3", head)}
    )
    stage(root, {"Config/DefaultEngine.ini": ENGINE_INI.replace(b"StoreVersion=3", staged)})
    result = main(["guard"])
    out = capsys.readouterr().out
    assert result == code, out
    if code:
        assert "error[android-version-code-backwards]: line 106: StoreVersion 11 (was" in out
