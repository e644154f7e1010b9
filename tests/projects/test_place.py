"""Where a command stands (``buildver.projects.place``): the kind of place, its project or plugin, its own
Build.version and its engine, for every layout a studio has: an engine tree, a game with its engine installed,
registered, in the same depot or absent, a project in a subfolder, a plugin's own repository, another project."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import git

from buildver.errors import EngineLookupError
from buildver.projects.place import (
    PlaceKind,
    compatible_engine_version,
    current_engine_version,
    find_place,
    game_versions,
    place_engine,
)
from buildver.versions.build_version import BuildVersion, render_new_file
from buildver.versions.engine_version import EngineVersion

ENGINE_53 = BuildVersion(5, 3, 2, 29314046, 27405482, is_promoted_build=True, branch_name="++UE5+Release-5.3")
GAME_OWN = BuildVersion(1, 4, 0)


def write(root: Path, files: Mapping[str, object]) -> None:
    for relative, content in files.items():
        path = root / relative
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, BuildVersion):
            content = render_new_file(content)
        path.write_text(content if isinstance(content, str) else json.dumps(content))


ENGINE_TREE = {"Engine/Build/Build.version": ENGINE_53, "Engine/Source": None, "Engine/Binaries": None}

# (files, where the command runs, kind, the project or plugin, the place's own Build.version)
LAYOUTS = [
    pytest.param(ENGINE_TREE, ".", PlaceKind.ENGINE, None, "Engine/Build/Build.version", id="engine-tree-root"),
    pytest.param(
        ENGINE_TREE, "Engine/Source", PlaceKind.ENGINE, None, "Engine/Build/Build.version", id="inside-engine-tree"
    ),
    pytest.param(
        {**ENGINE_TREE, "MyGame/MyGame.uproject": {"EngineAssociation": ""}, "MyGame/Content": None},
        "MyGame/Content",
        PlaceKind.GAME,
        "MyGame/MyGame.uproject",
        None,  # the engine's Build.version above is never the game's own
        id="native-game-in-engine-depot",
    ),
    pytest.param(
        {"Game.uproject": {"EngineAssociation": "5.3"}, "Content": None},
        "Content",
        PlaceKind.GAME,
        "Game.uproject",
        None,
        id="launcher-game-without-own-version",
    ),
    pytest.param(
        {"Game.uproject": {"EngineAssociation": "5.3"}, "Build/Build.version": GAME_OWN},
        ".",
        PlaceKind.GAME,
        "Game.uproject",
        "Build/Build.version",
        id="launcher-game-with-own-version",
    ),
    pytest.param(
        {"Unreal/Carla/Carla.uproject": {"EngineAssociation": "5.3"}, "Build/Build.version": GAME_OWN},
        ".",
        PlaceKind.GAME,
        "Unreal/Carla/Carla.uproject",
        "Build/Build.version",
        id="project-in-a-subfolder",
    ),
    pytest.param(
        {"A/A.uproject": {}, "B/B.uproject": {}, "Build/Build.version": GAME_OWN},
        ".",
        PlaceKind.OTHER,
        None,
        "Build/Build.version",
        id="several-projects-below-none-chosen",
    ),
    pytest.param(
        {"Weather.uplugin": {"EngineVersion": "5.3.0"}, "TestsProject/TestsProject.uproject": {}},
        ".",
        PlaceKind.PLUGIN,
        "Weather.uplugin",
        None,
        id="plugin-repository-with-test-project",
    ),
    pytest.param(
        {"Build/Build.version": GAME_OWN, "src": None}, "src", PlaceKind.OTHER, None, "Build/Build.version", id="other"
    ),
]


@pytest.mark.parametrize(("files", "start", "kind", "anchor", "own"), LAYOUTS)
def test_the_place_is_found_for_every_layout(
    tmp_path: Path, files: dict[str, object], start: str, kind: PlaceKind, anchor: str | None, own: str | None
) -> None:
    write(tmp_path, files)
    git(tmp_path, "init", "-q")
    place = find_place(tmp_path / start)
    assert place.kind is kind
    assert (place.project or place.plugin) == (None if anchor is None else tmp_path / anchor)
    assert place.own_version_file == (None if own is None else tmp_path / own)


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with a launcher 5.3 and a source build registered by GUID in Install.ini (Linux)."""
    write(tmp_path / "Epic" / "UE_5.3", ENGINE_TREE)
    write(tmp_path / "Source51", {**ENGINE_TREE, "Engine/Build/Build.version": BuildVersion(5, 1, 1, 0, 0)})
    launcher = {"InstallationList": [{"InstallLocation": str(tmp_path / "Epic" / "UE_5.3"), "AppName": "UE_5.3"}]}
    write(tmp_path / "home" / ".config" / "Epic", {"UnrealEngineLauncher/LauncherInstalled.dat": launcher})
    ini = f"[Installations]\n2D4A449E4F2B46C1B6E46D4C3E7E2F11={tmp_path / 'Source51'}\n"
    write(tmp_path / "home" / ".config" / "Epic", {"UnrealEngine/Install.ini": ini})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


# (the association, the settings, the engine's version, release only, how it reads)
ENGINES = [
    ("5.3", "", "5.3.2-29314046+++UE5+Release-5.3", False, "EngineAssociation 5.3: "),
    ("{2D4A449E-4F2B-46C1-B6E4-6D4C3E7E2F11}", "", "5.1.1-0", False, "EngineAssociation {2D4A449E"),
    ("5.4", "", "5.4.0-0", True, "EngineAssociation 5.4: not installed here, so release 5.4's tables"),
    ("{00000000-0000-0000-0000-000000000001}", 'engine = "5.0"\n', "5.0.0-0", True, "engine = '5.0' in "),
    ("{00000000-0000-0000-0000-000000000001}", 'engine = "5.0.3-20979098"\n', "5.0.3-20979098", False, "engine = "),
    ("5.3", 'engine = "5.0"\n', "5.3.2-29314046+++UE5+Release-5.3", False, "EngineAssociation 5.3"),  # installed wins
]


@pytest.mark.parametrize(("association", "settings", "version", "release_only", "how"), ENGINES)
def test_a_game_s_engine_is_its_association_resolved_here_else_the_setting_else_the_launcher_release(
    machine: Path, association: str, settings: str, version: str, release_only: bool, how: str
) -> None:
    game = machine / "Game"
    write(game, {"Game.uproject": {"EngineAssociation": association}, "Build/Build.version": GAME_OWN})
    if settings:
        (game / "buildver.toml").write_text(settings)
    git(game, "init", "-q")
    engine = place_engine(find_place(game))
    assert (str(engine.version), engine.release_only) == (version, release_only)
    assert engine.how.startswith(how)


def test_a_game_with_an_unregistered_source_build_and_no_setting_has_no_engine_and_says_which_setting(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = machine / "Game"
    write(game, {"Game.uproject": {"EngineAssociation": "{00000000-0000-0000-0000-000000000001}"}})
    git(game, "init", "-q")
    engine = place_engine(find_place(game))
    assert engine.version is None
    assert engine.missing is not None
    assert engine.missing.endswith(
        'or set engine = "MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver]'
    )
    monkeypatch.chdir(game)
    with pytest.raises(EngineLookupError):
        current_engine_version()


def test_in_a_game_the_python_face_gives_the_engine_s_version_and_the_game_s_own_apart(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = machine / "Game"
    ini = "[/Script/EngineSettings.GeneralProjectSettings]\nProjectVersion=1.4.0.7\n"
    write(game, {"Game.uproject": {"EngineAssociation": "5.3"}, "Build/Build.version": GAME_OWN})
    write(game, {"Config/DefaultGame.ini": ini})
    git(game, "init", "-q")
    monkeypatch.chdir(game / "Config")
    assert current_engine_version() == EngineVersion.parse("5.3.2-29314046+++UE5+Release-5.3")
    assert compatible_engine_version() == EngineVersion.parse("5.3.0-27405482+++UE5+Release-5.3")
    versions = game_versions()
    assert versions is not None
    assert versions.project_version.value == "1.4.0.7"
    assert versions.engine_release == (5, 3)
    (machine / "elsewhere").mkdir()
    assert game_versions(machine / "elsewhere") is None  # not a game


def test_against_and_file_name_the_engine_without_looking_for_the_place(machine: Path) -> None:
    # A folder that is nothing at all: the options alone decide.
    nowhere = machine / "nowhere"
    nowhere.mkdir()
    engine = place_engine(find_place(nowhere), against=EngineVersion(5, 3, 0), against_release_only=True)
    assert (str(engine.version), engine.release_only, engine.how) == (
        "5.3.0-0",
        True,
        "--against 5.3: that release's tables",
    )
    version_file = machine / "Epic" / "UE_5.3" / "Engine" / "Build" / "Build.version"
    engine = place_engine(find_place(nowhere), file=version_file)
    assert str(engine.version) == "5.3.2-29314046+++UE5+Release-5.3"
    assert engine.version_file is not None
    assert engine.version_file.path == version_file


@pytest.mark.parametrize("release", ["3.5", "0.0", "5.33", "99.1"])
def test_a_release_buildver_has_no_tables_of_is_refused_never_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], release: str
) -> None:
    from helpers import run_cli

    write(tmp_path, {"Game.uproject": {"EngineAssociation": release}, "Content": None})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "assets", "scan", "Content", "--against", release)
    assert (code, out) == (2, "")
    assert f"buildver has no tables of release {release} (it knows 4.0 to " in err
    # The association alone (not installed here) decides nothing either: one error, not every package passed.
    code, out, err = run_cli(capsys, "assets", "scan", "Content")
    assert (code, out) == (1, "")
    assert f"buildver has no tables of release {release}" in err
    # Nor does a setting naming it.
    (tmp_path / "buildver.toml").write_text(f'engine = "{release}"\n')
    code, out, err = run_cli(capsys, "assets", "scan", "Content")
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {tmp_path / 'buildver.toml'}: engine '{release}': buildver has no tables")


def test_project_check_without_a_path_checks_the_whole_game_it_runs_in(
    machine: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import run_cli

    game = machine / "Game"
    project = {"FileVersion": 3, "EngineAssociation": "5.3"}
    write(game, {"Game.uproject": project, "Plugins/Old/Old.uplugin": {"FileVersion": 3, "EngineVersion": "5.2.0"}})
    write(game, {"Content/Maps": None})
    git(game, "init", "-q")
    monkeypatch.chdir(game / "Content" / "Maps")
    code, out, err = run_cli(capsys, "project", "check")
    assert (code, err) == (1, "")
    assert "refused        plugin   5.2.0                      Plugins/Old/Old.uplugin" in out
    assert out.endswith("2 checked: 1 compatible, 1 refused\n")


@pytest.mark.parametrize(
    ("argument", "code", "message"),
    [
        ("Nope.uproject", 2, "Invalid value for '[PROJECT]': Path 'Nope.uproject' does not exist."),
        (
            "Config/DefaultGame.ini",
            2,
            "Config/DefaultGame.ini: not a .uproject; give a project's .uproject, or a folder in a project",
        ),
    ],
)
def test_buildver_engine_refuses_a_path_that_is_not_a_project(
    machine: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argument: str,
    code: int,
    message: str,
) -> None:
    from helpers import run_cli

    game = machine / "Game"
    write(game, {"Game.uproject": {"EngineAssociation": "5.3"}, "Config/DefaultGame.ini": ""})
    monkeypatch.chdir(game)
    assert run_cli(capsys, "engine", argument)[0::2] == (code, f"buildver: error: {message}\n")


def test_project_check_at_the_root_of_carla_s_layout_judges_by_the_project_s_engine(
    machine: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import run_cli

    repository = machine / "carla"
    project = {"FileVersion": 3, "EngineAssociation": "5.3"}
    write(repository, {"Unreal/CarlaUE4/CarlaUE4.uproject": project, "Build/Build.version": BuildVersion(0, 9, 12)})
    git(repository, "init", "-q")
    monkeypatch.chdir(repository)
    code, out, err = run_cli(capsys, "project", "check", ".")
    assert (code, err) == (0, "")
    assert out.splitlines()[0].startswith("engine 5.3.2-29314046+++UE5+Release-5.3, CompatibleWith() 5.3.0-27405482")
    assert "compatible     project  5.3                        Unreal/CarlaUE4/CarlaUE4.uproject" in out


def test_show_in_a_native_game_shows_the_engine_of_its_depot_and_the_game_s_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import run_cli

    ini = "[/Script/EngineSettings.GeneralProjectSettings]\nProjectVersion=2.1.0.0\n"
    write(tmp_path, {**ENGINE_TREE, "MyGame/MyGame.uproject": {"FileVersion": 3, "EngineAssociation": ""}})
    write(tmp_path, {"MyGame/Config/DefaultGame.ini": ini})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path / "MyGame")
    code, out, err = run_cli(capsys, "show")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("engine: 5.3.2-29314046+++UE5+Release-5.3 (EngineAssociation (none): ")
    assert lines[1].startswith("MyGame.uproject: the game's own versions (Unreal 5.3;")
    assert "MajorVersion" not in out  # the engine's Build.version is not the game's own
    assert run_cli(capsys, "show", "--field", "ProjectVersion")[:2] == (0, "2.1.0.0\n")
