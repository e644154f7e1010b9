"""The rarer answers of ``buildver.projects.place`` and the commands over it: how each place describes itself, an
engine known only by its release or not at all, the ``engine`` setting as a Build.version's path, a plugin or a
project that cannot be read, and ``show`` and ``engine`` where the place is a game without an engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import git, run_cli

from buildver.errors import EngineLookupError
from buildver.projects.place import (
    Place,
    PlaceEngine,
    PlaceKind,
    compatible_engine_version,
    find_place,
    place_engine,
)
from buildver.versions.build_version import BuildVersion, render_new_file
from buildver.versions.engine_version import EngineVersion

ENGINE_52 = BuildVersion(5, 2, 1, 26001984, 25360045, branch_name="++UE5+Release-5.2")
ROOT = Path("/work/Game")


@pytest.mark.parametrize(
    ("place", "described"),
    [
        (Place(PlaceKind.ENGINE, ROOT), f"an engine tree at {ROOT}"),
        (Place(PlaceKind.GAME, ROOT, ROOT / "Game.uproject"), f"a game project, {ROOT / 'Game.uproject'}"),
        (Place(PlaceKind.PLUGIN, ROOT, plugin=ROOT / "P.uplugin"), f"a plugin's own repository, {ROOT / 'P.uplugin'}"),
        (
            Place(PlaceKind.OTHER, ROOT, own_version_file=ROOT / "Build" / "Build.version"),
            f"a project at {ROOT} with a Build.version, not an Unreal game, engine tree or plugin",
        ),
        (Place(PlaceKind.OTHER, ROOT), f"no Unreal project at {ROOT}: no .uproject, .uplugin or Build.version"),
    ],
)
def test_each_place_describes_itself_in_one_line(place: Place, described: str) -> None:
    assert place.describe() == described


def test_an_unknown_engine_says_why_wherever_it_is_asked_for() -> None:
    engine = PlaceEngine(None, "", missing="Game.uproject: not installed here")
    assert engine.release is None
    assert engine.describe() == "no engine: Game.uproject: not installed here"
    assert engine.to_json()["missing"] == "Game.uproject: not installed here"
    with pytest.raises(EngineLookupError, match="not installed here"):
        _ = engine.build
    by_release = PlaceEngine(EngineVersion(5, 3, 0), "--against 5.3", release_only=True)
    assert (by_release.build, by_release.describe()) == (EngineVersion(5, 3, 0), "5.3 (--against 5.3)")
    assert by_release.to_json() == {
        "version": "5.3.0-0",
        "release": "5.3",
        "release_only": True,
        "version_file": None,
        "how": "--against 5.3",
    }


def write(root: Path, files: dict[str, object]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, BuildVersion):
            path.write_text(render_new_file(content))
        elif content is None:
            path.mkdir(exist_ok=True)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content))


def test_the_engine_setting_may_name_a_build_version_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guid = "{00000000-0000-0000-0000-000000000001}"
    write(tmp_path, {"Game.uproject": {"EngineAssociation": guid}, "ci/Engine.version": ENGINE_52})
    write(tmp_path, {"buildver.toml": 'engine = "ci/Engine.version"\n'})
    git(tmp_path, "init", "-q")
    engine = place_engine(find_place(tmp_path))
    assert engine.version == ENGINE_52.engine_version
    assert engine.how == f"engine = '{tmp_path / 'ci' / 'Engine.version'}' in {tmp_path / 'buildver.toml'}: the " + (
        f"EngineAssociation {guid} is not installed here"
    )
    monkeypatch.chdir(tmp_path)
    assert compatible_engine_version() == ENGINE_52.compatible_engine_version
    # A path that names nothing is the setting's error, naming the setting.
    write(tmp_path, {"buildver.toml": 'engine = "ci/Missing.version"\n'})
    with pytest.raises(Exception, match=r"buildver.toml: engine '.*Missing.version': "):
        place_engine(find_place(tmp_path))


def test_a_release_only_engine_gives_compatible_with_as_its_release_s_first_hotfix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"Game.uproject": {"EngineAssociation": "5.4"}})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert compatible_engine_version() == EngineVersion(5, 4, 0)
    write(tmp_path, {"Game.uproject": {"EngineAssociation": "{00000000-0000-0000-0000-000000000001}"}})
    with pytest.raises(EngineLookupError):
        compatible_engine_version()


def test_a_plugin_repository_uses_its_engine_setting_and_an_unreadable_plugin_gets_generic_advice(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"Weather.uplugin": "{ not json"})
    git(tmp_path, "init", "-q")
    engine = place_engine(find_place(tmp_path))
    assert engine.missing is not None
    assert "name the engine: --against MAJOR.MINOR, or --file" in engine.missing
    write(tmp_path, {"buildver.toml": 'engine = "5.2"\n'})
    engine = place_engine(find_place(tmp_path))
    assert (str(engine.version), engine.release_only) == ("5.2.0-0", True)


def test_an_engine_folder_without_a_build_version_falls_back_to_the_association_s_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The launcher lists 5.2 where the install lost its Build.version: the release still decides.
    engine = tmp_path / "Epic" / "UE_5.2"
    write(engine, {"Engine/Binaries": None, "Engine/Build": None})
    listing = {"InstallationList": [{"InstallLocation": str(engine), "AppName": "UE_5.2"}]}
    write(tmp_path / "home", {".config/Epic/UnrealEngineLauncher/LauncherInstalled.dat": listing})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(tmp_path / "Game", {"Game.uproject": {"EngineAssociation": "5.2"}})
    git(tmp_path / "Game", "init", "-q")
    found = place_engine(find_place(tmp_path / "Game"))
    assert (str(found.version), found.release_only) == ("5.2.0-0", True)
    assert "has no Engine/Build/Build.version, so release 5.2's tables" in found.how


def test_show_and_engine_in_a_game_whose_engine_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    guid = "{00000000-0000-0000-0000-000000000001}"
    write(tmp_path, {"Game.uproject": {"FileVersion": 3, "EngineAssociation": guid}})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    assert out.startswith(f"engine: no engine: {tmp_path / 'Game.uproject'}: EngineAssociation '{guid}'")
    code, out, err = run_cli(capsys, "show", "--format", "env")
    assert (code, err) == (0, "")
    assert out == "ProjectVersion=1.0.0.0\n"  # BaseGame.ini's: no engine release, so nothing more
    code, out, err = run_cli(capsys, "show", "--field", "AndroidVersionCodeArm64")
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {tmp_path / 'Game.uproject'}: no AndroidVersionCodeArm64 here (")
    # buildver engine says so in one line too; with an engine's Build.version, show names it as the engine.
    assert run_cli(capsys, "engine")[0] == 1
    write(tmp_path, {"UE/Engine/Build/Build.version": ENGINE_52, "UE/Engine/Source": None})
    code, out, err = run_cli(capsys, "show", "-f", "UE/Engine/Build/Build.version")
    assert (code, err) == (0, "")
    assert out.startswith("engine: 5.2.1-26001984+++UE5+Release-5.2 (--file UE/Engine/Build/Build.version)\n")
    assert "Game.uproject: the game's own versions (Unreal 5.2;" in out


def test_buildver_engine_prints_what_it_found_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"UE/Engine/Binaries": None, "UE/Engine/Build": None})
    write(tmp_path, {"UE/Game/Game.uproject": {"FileVersion": 3, "EngineAssociation": ""}})
    monkeypatch.chdir(tmp_path / "UE" / "Game")
    code, out, err = run_cli(capsys, "engine")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"project: {tmp_path / 'UE' / 'Game' / 'Game.uproject'}",
        "association: (none) (empty)",
        "resolved by: no EngineAssociation: the nearest folder above the project with Engine/Binaries and Engine/Build",
        f"engine root: {tmp_path / 'UE'}",
        f"build version: {tmp_path / 'UE' / 'Engine' / 'Build' / 'Build.version'} (no Engine/Build/Build.version "
        "there)",
    ]
