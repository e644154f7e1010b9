"""The project's engine, found as Unreal's DesktopPlatform finds it: launcher builds, registered source builds,
an engine folder above the project, a relative path; on Linux and macOS from a temporary HOME, on Windows from a
fake of the one function that reads the registry (the real one runs on the Windows CI job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BUILDVER, EPIC_532_VERSION, install_launcher_engine, run_cli

from buildver.errors import EngineLookupError
from buildver.file_names import find_project
from buildver.projects.check import check_project
from buildver.projects.engine import (
    AssociationKind,
    IdentifierLookup,
    installed_engines,
    look_up_identifier,
    project_engine,
    read_install_ini,
    read_launcher_installed,
    read_registry_builds,
    settings_folder,
)
from buildver.projects.verdicts import Status
from buildver.versions.build_version import load_build_version

GUID = "B488FF40-2787-4A31-B7C7-6FAA0D016157"
# The Install.ini of a Linux 4.25 machine, as published (both brace styles in one file).
INSTALL_INI = "[Installations]\n000438DA-08D8-E173-2322-DD9C4256781A={other}\n{{" + GUID + "}}={source}\n"


def make_engine(root: Path) -> Path:
    """An engine folder as IsValidRootDirectory wants it: Engine/Binaries and Engine/Build."""
    (root / "Engine" / "Binaries").mkdir(parents=True)
    (root / "Engine" / "Build").mkdir(parents=True)
    return root


def make_project(folder: Path, association: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / f"{folder.name}.uproject"
    document: dict[str, object] = {"FileVersion": 3, "Category": "", "Description": ""}
    if association is not None:
        document["EngineAssociation"] = association
    project.write_text(json.dumps(document, indent="\t"))
    return project


def launcher_list(entries: list[dict[str, str]]) -> str:
    return json.dumps({"InstallationList": entries})


def write_launcher(path: Path, root: Path, app_name: str) -> None:
    path.write_text(launcher_list([{"InstallLocation": str(root), "AppName": app_name}]))


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """A Linux machine's HOME with a launcher 5.3, a registered source build, and an unrelated launcher app."""
    home = tmp_path / "home"
    launcher = home / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        launcher_list(
            [
                {"InstallLocation": str(make_engine(tmp_path / "UE_5.3")), "AppName": "UE_5.3", "AppVersion": "5.3.2"},
                {"InstallLocation": str(tmp_path / "Fortnite"), "AppName": "Fortnite"},
            ]
        )
    )
    install_ini = home / ".config" / "Epic" / "UnrealEngine" / "Install.ini"
    install_ini.parent.mkdir(parents=True)
    install_ini.write_text(INSTALL_INI.format(other=tmp_path / "other", source=make_engine(tmp_path / "src" / "UE5")))
    return home


@pytest.mark.parametrize(
    ("association", "kind", "root"),
    [
        ("5.3", AssociationKind.LAUNCHER, "UE_5.3"),
        ("5.3".upper(), AssociationKind.LAUNCHER, "UE_5.3"),
        ("{" + GUID + "}", AssociationKind.GUID, "src/UE5"),
        ("{" + GUID.lower() + "}", AssociationKind.GUID, "src/UE5"),  # FString == ignores case
        (GUID, AssociationKind.GUID, "src/UE5"),  # Linux 5.x writes the key without braces
    ],
)
def test_an_association_names_an_installed_engine(
    machine: Path, tmp_path: Path, association: str, kind: AssociationKind, root: str
) -> None:
    project = make_project(tmp_path / "Game", association)
    found = project_engine(project, platform="linux", environ={}, home=machine)
    assert (found.kind, found.root) == (kind, tmp_path / root)
    assert found.version_file == tmp_path / root / "Engine" / "Build" / "Build.version"


@pytest.mark.parametrize("association", ["5.4", "5.3.2", "UE_5.3", "Fortnite", "MyEngine", "{" + GUID[:-1] + "0}"])
def test_an_association_nothing_lists_is_one_error_naming_where_buildver_looked(
    machine: Path, tmp_path: Path, association: str
) -> None:
    project = make_project(tmp_path / "Game", association)
    with pytest.raises(EngineLookupError) as caught:
        project_engine(project, platform="linux", environ={}, home=machine)
    message = str(caught.value)
    assert message.startswith(f"{project}: EngineAssociation {association!r}")
    assert "is not installed here (looked in " in message
    assert "LauncherInstalled.dat" in message
    assert "Install.ini" in message


@pytest.mark.parametrize("association", [None, "", 5.3])
def test_no_association_is_the_nearest_engine_folder_above_the_project(tmp_path: Path, association: object) -> None:
    engine = make_engine(tmp_path / "UnrealEngine")
    make_engine(tmp_path / "UnrealEngine" / "Games" / "Lyra")  # the project's own folder is never tried
    project = make_project(engine / "Games" / "Lyra", association)
    found = project_engine(project, platform="linux", environ={}, home=tmp_path / "home")
    assert (found.kind, found.root, found.association) == (AssociationKind.EMPTY, engine, "")


def test_no_association_and_no_engine_above_is_one_error(tmp_path: Path) -> None:
    project = make_project(tmp_path / "Game", "")
    with pytest.raises(EngineLookupError, match="no folder above the project holds Engine/Binaries and Engine/Build"):
        project_engine(project, platform="linux", environ={}, home=tmp_path)


@pytest.mark.parametrize("association", ["../Engine5", "..\\Engine5", "../Engine5/", "../Sub/../Engine5"])
def test_a_path_association_is_relative_to_the_project_folder(tmp_path: Path, association: str) -> None:
    engine = make_engine(tmp_path / "Engine5")
    project = make_project(tmp_path / "Game", association)
    found = project_engine(project, platform="linux", environ={}, home=tmp_path)
    assert (found.kind, found.root) == (AssociationKind.PATH, engine)


def test_a_path_to_a_folder_that_is_no_engine_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "Engine5").mkdir()
    project = make_project(tmp_path / "Game", "../Engine5")
    with pytest.raises(EngineLookupError, match="holds no Engine/Binaries and Engine/Build"):
        project_engine(project, platform="linux", environ={}, home=tmp_path)


def test_macos_reads_the_lists_under_application_support(tmp_path: Path) -> None:
    home = tmp_path / "home"
    launcher = home / "Library" / "Application Support" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        launcher_list([{"InstallLocation": str(make_engine(tmp_path / "UE_5.4")), "AppName": "UE_5.4"}])
    )
    found = project_engine(make_project(tmp_path / "Game", "5.4"), platform="darwin", environ={}, home=home)
    assert found.root == tmp_path / "UE_5.4"
    assert str(launcher) in found.how


def test_windows_reads_the_launcher_list_then_the_registry(tmp_path: Path) -> None:
    program_data = tmp_path / "ProgramData"
    launcher = program_data / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        launcher_list([{"InstallLocation": str(make_engine(tmp_path / "UE_5.3")), "AppName": "UE_5.3"}])
    )
    source = make_engine(tmp_path / "Source")

    def registry() -> list[tuple[str, str]]:
        return [
            ("{" + GUID + "}", str(source)),
            ("MyEngine", str(tmp_path / "missing")),  # not an engine folder: Unreal drops it
            ("5.3", str(source)),  # the same folder again: dropped, so the launcher's 5.3 stays
        ]

    environ = {"PROGRAMDATA": str(program_data)}
    engines, looked = installed_engines(platform="win32", environ=environ, home=tmp_path, registry=registry)
    assert [(engine.identifier, engine.root) for engine in engines] == [
        ("5.3", tmp_path / "UE_5.3"),
        ("{" + GUID + "}", source),
    ]
    assert looked == [str(launcher), "HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds"]
    project = make_project(tmp_path / "Game", "{" + GUID + "}")
    found = project_engine(project, platform="win32", environ=environ, home=tmp_path, registry=registry)
    assert found.root == source


def test_a_registered_build_replaces_a_launcher_build_of_the_same_name(tmp_path: Path) -> None:
    program_data = tmp_path / "ProgramData"
    launcher = program_data / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        launcher_list([{"InstallLocation": str(make_engine(tmp_path / "UE_5.3")), "AppName": "UE_5.3"}])
    )
    custom = make_engine(tmp_path / "Custom53")
    found = project_engine(
        make_project(tmp_path / "Game", "5.3"),
        platform="win32",
        environ={"PROGRAMDATA": str(program_data)},
        home=tmp_path,
        registry=lambda: [("5.3", str(custom))],
    )
    assert found.root == custom


@pytest.mark.skipif(sys.platform != "win32", reason="the registry exists on Windows only")
def test_the_real_registry_reads_without_error() -> None:  # pragma: no cover - Windows CI
    assert all(isinstance(name, str) and isinstance(data, str) for name, data in read_registry_builds())


def test_the_registry_reader_reads_nothing_elsewhere() -> None:
    if sys.platform != "win32":
        assert read_registry_builds() == []


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {"XDG_CONFIG_HOME": "/elsewhere"}, "{home}/.config/Epic"),
        ("darwin", {}, "{home}/Library/Application Support/Epic"),
        ("win32", {"PROGRAMDATA": "D:/ProgramData"}, "D:/ProgramData/Epic"),
    ],
)
def test_the_settings_folder_is_unreal_s_application_settings_dir(
    tmp_path: Path, platform: str, environ: dict[str, str], expected: str
) -> None:
    assert settings_folder(platform, environ, tmp_path) == Path(expected.format(home=tmp_path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "line 2, column 1: Expecting property name enclosed in double quotes"),
        ("[]", "no InstallationList array: not the launcher's list of installations"),
        ('{"InstallationList": {}}', "no InstallationList array: not the launcher's list of installations"),
    ],
)
def test_a_corrupt_launcher_list_is_one_error_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "LauncherInstalled.dat"
    path.write_text(text if text != "{" else "{\n")
    with pytest.raises(EngineLookupError) as caught:
        read_launcher_installed(path)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[Installations\nA=B\n", "line 1: a section header without its closing ']'"),
        ("[Installations]\njust text\n", "line 2: expected IDENTIFIER=FOLDER, not 'just text'"),
        (b"[Installations]\nA=\xff\n", "byte 18: the file is not UTF-8 (invalid start byte)"),
    ],
)
def test_a_corrupt_install_ini_is_one_error_naming_the_file(tmp_path: Path, text: str | bytes, message: str) -> None:
    path = tmp_path / "Install.ini"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(EngineLookupError) as caught:
        read_install_ini(path)
    assert str(caught.value) == f"{path}: {message}"


def test_install_ini_keeps_only_its_installations_section(tmp_path: Path) -> None:
    path = tmp_path / "Install.ini"
    path.write_bytes(b"\xef\xbb\xbf[Other]\nX=/x\r\n[Installations]\r\nUE_5.8=/opt/UE_5.8\r\n; a comment\r\n")
    (engine,) = read_install_ini(path, platform="linux")
    assert (engine.identifier, engine.root, engine.spellings[0]) == (
        "UE_5.8",
        Path("/opt/UE_5.8"),
        ("5.8", "Unreal 5.3 and later on Linux (a launcher-style build)"),
    )


def test_missing_lists_are_empty(tmp_path: Path) -> None:
    assert read_launcher_installed(tmp_path / "none.dat") == []
    assert read_install_ini(tmp_path / "none.ini") == []


def test_the_project_is_found_here_or_above(tmp_path: Path) -> None:
    project = make_project(tmp_path / "Game", "5.3")
    (tmp_path / "Game" / "Source" / "Game").mkdir(parents=True)
    assert find_project(tmp_path / "Game" / "Source" / "Game") == project
    assert find_project(project) == project
    (tmp_path / "Other").mkdir()
    assert find_project(tmp_path / "Other") is None


def test_the_engine_command_prints_the_association_the_rule_the_root_and_the_build_version(
    machine: Path, tmp_path: Path
) -> None:
    engine_root = tmp_path / "UE_5.3"
    (engine_root / "Engine" / "Build" / "Build.version").write_text(
        '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 29314046,\n'
        '\t"CompatibleChangelist": 27405482,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 1,\n'
        '\t"BranchName": "++UE5+Release-5.3"\n}'
    )
    project = make_project(tmp_path / "Game", "5.3")
    environment = {"HOME": str(machine), "PATH": "/usr/bin:/bin"}
    text = subprocess.run(
        [BUILDVER, "engine"], cwd=project.parent, env=environment, capture_output=True, text=True, check=True
    ).stdout
    launcher = machine / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    assert text == (
        f"project: {project}\n"
        "association: 5.3 (launcher)\n"
        f"resolved by: {launcher} (UE_5.3)\n"
        f"engine root: {engine_root}\n"
        f"build version: {engine_root / 'Engine' / 'Build' / 'Build.version'} (5.3.2-29314046+++UE5+Release-5.3)\n"
    )
    document = json.loads(
        subprocess.run(
            [BUILDVER, "engine", str(project), "--json"], env=environment, capture_output=True, text=True, check=True
        ).stdout
    )
    assert document["engine_root"] == str(engine_root)
    assert document["engine_version"] == "5.3.2-29314046+++UE5+Release-5.3"
    assert document["kind"] == "launcher"


def test_the_engine_command_fails_in_one_line_when_the_engine_is_not_installed(tmp_path: Path) -> None:
    project = make_project(tmp_path / "Game", "5.3")
    result = subprocess.run(
        [BUILDVER, "engine"],
        cwd=project.parent,
        env={"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"buildver: error: {project}: EngineAssociation '5.3' (a launcher build of")


# -- commands in a game use the game's engine ------------------------------------------------------------------------

GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 0,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A game with its own Build.version 1.4.0 (as ``buildver init`` makes), a plugin made for 5.3.0, and its
    launcher engine 5.3.2 listed in this machine's LauncherInstalled.dat (a temporary HOME and ProgramData)."""
    install_launcher_engine(tmp_path, monkeypatch)
    project = make_project(tmp_path / "RTSOpen", "5.3")
    (project.parent / "Build").mkdir()
    (project.parent / "Build" / "Build.version").write_text(GAME_VERSION)
    (project.parent / "buildver.toml").write_text('version-file = "Build/Build.version"\n')
    plugin = project.parent / "Plugins" / "Weather" / "Weather.uplugin"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(json.dumps({"FileVersion": 3, "VersionName": "1.0", "EngineVersion": "5.3.0"}, indent="\t"))
    monkeypatch.chdir(project.parent)
    return project.parent


def test_project_check_in_a_game_compares_with_the_game_s_engine_not_its_own_version(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "project", "check")
    engine_version = (game.parent / "Epic" / "UE_5.3" / "Engine" / "Build" / "Build.version").as_posix()
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        f"engine 5.3.2-29314046+++UE5+Release-5.3, CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 ({engine_version})"
    )
    assert "compatible     project  5.3                        RTSOpen.uproject" in out


def test_project_check_against_a_version(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "project", "check", "--against", "5.4.0")
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == "engine 5.4.0-0, CompatibleWith() 5.4.0-0 (--against)"
    assert "refused        plugin   5.3.0                      Plugins/Weather/Weather.uplugin" in out
    code, out, _ = run_cli(capsys, "project", "check", "--against", "5.3.0", "--json")
    document = json.loads(out)
    assert (code, document["version_file"], document["compatible_with"]) == (0, None, "5.3.0-0")


def test_project_check_takes_either_against_or_file(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "project", "check", "--against", "5.3.0", "-f", "Build/Build.version")
    assert (code, out, err) == (2, "", "buildver: error: give either --against or --file, not both\n")


def test_project_check_in_a_game_whose_launcher_engine_is_not_installed_uses_that_release_s_tables(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game / "RTSOpen.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.4"}))
    before = (game / "Build" / "Build.version").read_bytes()
    code, out, err = run_cli(capsys, "project", "check")
    assert (code, err) == (1, "")  # the plugin made for 5.3.0 is refused by 5.4, as Unreal refuses it
    assert out.splitlines()[0] == (
        "engine 5.4.0-0, CompatibleWith() 5.4.0-0 (EngineAssociation 5.4: not installed here, so release 5.4's tables)"
    )
    assert (game / "Build" / "Build.version").read_bytes() == before


def test_project_check_in_a_game_whose_source_build_is_not_registered_is_one_error_naming_the_setting(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guid = "{6B0C63A1-4C4F-1F4B-9B58-B4E2A2E6A8C1}"
    (game / "RTSOpen.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": guid}))
    code, out, err = run_cli(capsys, "project", "check")
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {game / 'RTSOpen.uproject'}: EngineAssociation '{guid}' (a source build")
    assert err.endswith('; or set engine = "MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver]\n')
    assert err.count("\n") == 1
    # The setting names the engine on machines that do not have it.
    (game / "buildver.toml").write_text('engine = "5.3"\n')
    code, out, err = run_cli(capsys, "project", "check")
    assert (code, err) == (0, "")  # the project is not decidable (its build is registered on another machine)
    assert out.splitlines()[0].startswith("engine 5.3.0-0, CompatibleWith() 5.3.0-0 (engine = '5.3' in ")


def test_assets_scan_in_a_game_compares_with_the_game_s_engine(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (game / "Content").mkdir()
    code, out, err = run_cli(capsys, "assets", "scan", "Content")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "against 5.3.2-29314046+++UE5+Release-5.3"


# cesium-unreal's TestsProject/TestsProject.uproject (CesiumGS/cesium-unreal@1b14607, Apache-2.0), as published.
CESIUM_TESTS_PROJECT = (
    '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.0",\n\t"Category": "",\n\t"Description": "",\n'
    '\t"Plugins": [\n\t\t{\n\t\t\t"Name": "ModelingToolsEditorMode",\n\t\t\t"Enabled": true,\n'
    '\t\t\t"TargetAllowList": [\n\t\t\t\t"Editor"\n\t\t\t]\n\t\t}\n\t]\n}'
)


def test_a_project_right_below_a_plugin_folder_is_checked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repository = tmp_path / "cesium-unreal"
    (repository / "TestsProject").mkdir(parents=True)
    (repository / "TestsProject" / "TestsProject.uproject").write_text(CESIUM_TESTS_PROJECT)
    (repository / "CesiumForUnreal.uplugin").write_text(json.dumps({"FileVersion": 3, "EngineVersion": "5.0.0"}))
    # Below a plugin there are no more plugins (UE5's FindPluginsInDirectory), so this one is not checked.
    (repository / "Source" / "ThirdParty").mkdir(parents=True)
    (repository / "Source" / "ThirdParty" / "Inner.uplugin").write_text(json.dumps({"FileVersion": 3}))
    monkeypatch.chdir(repository)
    code, out, err = run_cli(capsys, "project", "check", "--against", "5.0.3")
    assert (code, err) == (0, "")
    assert out.splitlines()[2:] == [
        "compatible     project  5.0                        TestsProject/TestsProject.uproject",
        "compatible     plugin   5.0.0                      CesiumForUnreal.uplugin",
        "2 checked: 2 compatible",
    ]


# -- project check decides a GUID association through this machine's lists -------------------------------------------


def make_engine_tree(root: Path) -> Path:
    """An engine's folder with Engine/Source and Epic's 5.3.2 Build.version: what project check takes for one."""
    make_engine(root)
    (root / "Engine" / "Source").mkdir()
    (root / "Engine" / "Build" / "Build.version").write_text(EPIC_532_VERSION)
    return root


@pytest.fixture
def source_build_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A game at ``Game/`` beside two source builds, ``src/UE5`` (Epic's 5.3.2 Build.version) registered in this
    machine's Install.ini under GUID with braces, as 4.22 on Linux and macOS write it, and ``src/Other``."""
    for name in ("UE5", "Other"):
        make_engine_tree(tmp_path / "src" / name)
    home = tmp_path / "home"
    for settings in (home / ".config" / "Epic", home / "Library" / "Application Support" / "Epic"):
        (settings / "UnrealEngine").mkdir(parents=True)
        (settings / "UnrealEngine" / "Install.ini").write_text(
            INSTALL_INI.format(other=tmp_path / "other", source=tmp_path / "src" / "UE5")
        )
    monkeypatch.setenv("HOME", str(home))
    game = tmp_path / "Game"
    monkeypatch.chdir(game.parent)
    return game


@pytest.mark.skipif(sys.platform == "win32", reason="Windows registers source builds in the registry (below)")
@pytest.mark.parametrize("association", ["{" + GUID + "}", "{" + GUID.lower() + "}", GUID])
def test_project_check_calls_a_guid_registered_as_this_engine_s_folder_compatible_and_shows_it_whole(
    source_build_game: Path, capsys: pytest.CaptureFixture[str], association: str
) -> None:
    make_project(source_build_game, association)
    engine = source_build_game.parent / "src" / "UE5"
    code, out, err = run_cli(capsys, "project", "check", "Game")
    assert (code, err) == (0, "")
    assert out.splitlines()[1:] == [
        "STATUS         KIND     " + "DECLARED".ljust(max(26, len(association))) + " PATH",
        f"compatible     project  {association.ljust(26)} Game.uproject",
        "1 checked: 1 compatible",
    ]
    code, out, _ = run_cli(capsys, "project", "check", "Game", "--json")
    assert json.loads(out)["results"][0]["reason"] == (
        f"the EngineAssociation {association} is registered on this machine as {engine}, this engine's folder"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="Windows registers source builds in the registry (below)")
@pytest.mark.parametrize(
    ("association", "words"),
    [
        ("{" + GUID + "}", "is registered on this machine as {root}, not this engine's folder"),
        (
            "{" + GUID[:-1] + "0}",
            "a GUID: a source build registered on one machine (its registry or Install.ini), not "
            "on this one (looked in {home}/.config/Epic/UnrealEngineLauncher/LauncherInstalled.dat, "
            "{home}/.config/Epic/UnrealEngine/Install.ini)",
        ),
        (
            "MyEngine",
            "and none has that name (looked in {home}/.config/Epic/UnrealEngineLauncher/LauncherInstalled.dat",
        ),
    ],
)
def test_project_check_names_the_folder_a_guid_leads_to_or_where_buildver_looked(
    source_build_game: Path, capsys: pytest.CaptureFixture[str], association: str, words: str
) -> None:
    make_project(source_build_game, association)
    other = source_build_game.parent / "src" / "Other" / "Engine" / "Build" / "Build.version"
    report = check_project(
        source_build_game,
        load_build_version(other),
        look_up=lambda identifier: look_up_identifier(
            identifier, platform="linux", environ={}, home=source_build_game.parent / "home"
        ),
    )
    (result,) = report.results
    assert (result.status, result.declared) == (Status.NOT_DECIDABLE, association)
    assert words.format(root=source_build_game.parent / "src" / "UE5", home=source_build_game.parent / "home") in (
        result.reason
    )


@pytest.mark.parametrize(("engine", "status"), [("Source", Status.COMPATIBLE), ("Other", Status.NOT_DECIDABLE)])
def test_project_check_on_windows_reads_the_registry_for_a_guid(tmp_path: Path, engine: str, status: Status) -> None:
    for name in ("Source", "Other"):
        make_engine_tree(tmp_path / name)
    make_project(tmp_path / "Game", "{" + GUID + "}")

    def registry() -> list[tuple[str, str]]:
        return [("{" + GUID + "}", str(tmp_path / "Source"))]

    def look_up(identifier: str) -> IdentifierLookup:
        environ = {"PROGRAMDATA": str(tmp_path / "ProgramData")}
        return look_up_identifier(identifier, platform="win32", environ=environ, home=tmp_path, registry=registry)

    version_file = load_build_version(tmp_path / engine / "Engine" / "Build" / "Build.version")
    (result,) = check_project(tmp_path / "Game", version_file, look_up=look_up).results
    assert result.status is status
    assert f"is registered on this machine as {tmp_path / 'Source'}" in result.reason


@pytest.mark.parametrize(
    ("association", "advice"),
    [
        ("5.4", "or name its release with --against 5.4"),
        ("{" + GUID + "}", "or name its release with --against MAJOR.MINOR"),
        ("../Missing", "or name its release with --against MAJOR.MINOR"),
        ("", "or name its release with --against MAJOR.MINOR"),
    ],
)
def test_an_engine_not_installed_names_against_beside_file(tmp_path: Path, association: str, advice: str) -> None:
    project = make_project(tmp_path / "Game", association)
    with pytest.raises(EngineLookupError) as caught:
        project_engine(project, platform="linux", environ={}, home=tmp_path / "home")
    assert str(caught.value).endswith(
        "install it, or give its Engine/Build/Build.version to project check or assets scan with --file, " + advice
    )
