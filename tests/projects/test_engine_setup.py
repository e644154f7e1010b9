"""This machine's engines listed, a source build registered and a project switched to another engine, as
UnrealVersionSelector does them: Linux and macOS from a temporary HOME's Install.ini, Windows through stand-ins for
the one function that reads the registry and the one that writes it."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest
from helpers import BUILDVER, NO_BYTECODE, needs_strace, run_cli

from buildver.errors import DescriptorError, EngineLookupError, WriteError
from buildver.projects.engine import association_of
from buildver.projects.engine_switch import plan_switch, switch_engine, with_association
from buildver.projects.machine_engines import machine_engines, plan_registration, register_engine

GUID = uuid.UUID("B488FF40-2787-4A31-B7C7-6FAA0D016157")
DIGITS = str(GUID).upper()


def build_version(major: int, minor: int) -> str:
    return (
        f'{{\n\t"MajorVersion": {major},\n\t"MinorVersion": {minor},\n\t"PatchVersion": 1,\n\t"Changelist": 0,\n'
        '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
    )


def make_engine(root: Path, release: tuple[int, int] | None = (5, 3)) -> Path:
    (root / "Engine" / "Binaries").mkdir(parents=True)
    (root / "Engine" / "Build").mkdir(parents=True)
    if release is not None:
        (root / "Engine" / "Build" / "Build.version").write_text(build_version(*release))
    return root


INSTALL_INI = {
    "linux": Path(".config/Epic/UnrealEngine/Install.ini"),
    "darwin": Path("Library/Application Support/Epic/UnrealEngine/Install.ini"),
}


class Registry:
    """A stand-in for HKCU\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds: read and written as Unreal does."""

    def __init__(self, values: list[tuple[str, str]] | None = None) -> None:
        self.values = list(values or [])

    def read(self) -> list[tuple[str, str]]:
        return list(self.values)

    def write(self, name: str, data: str) -> None:
        self.values.append((name, data))


# -- register ---------------------------------------------------------------------------------------------------------

REGISTERED_KEYS = [
    # platform, the engine's release, the key Unreal writes
    ("linux", (5, 3), DIGITS),  # 5.1 and later on Linux: DigitsWithHyphens
    ("linux", (4, 27), "{" + DIGITS + "}"),  # 4.22 to 5.0 on Linux: DigitsWithHyphensInBraces
    ("linux", (5, 0), "{" + DIGITS + "}"),
    ("linux", None, DIGITS),  # no Build.version: the newest releases' spelling
    ("darwin", (5, 3), "{" + DIGITS + "}"),  # macOS: in braces
]


@pytest.mark.parametrize(("platform", "release", "key"), REGISTERED_KEYS)
def test_register_adds_a_guid_key_to_install_ini_spelt_as_the_engine_s_release_writes_it(
    tmp_path: Path, platform: str, release: tuple[int, int] | None, key: str
) -> None:
    engine = make_engine(tmp_path / "UE", release)
    home = tmp_path / "home"
    found = register_engine(engine, platform=platform, environ={}, home=home, new_guid=lambda: GUID)
    assert (found.identifier, found.existing) == (key, False)
    assert (home / INSTALL_INI[platform]).read_text() == f"[Installations]\n{key}={engine}\n"
    (listed,), _ = machine_engines(platform=platform, environ={}, home=home)
    assert listed.installation.root == engine


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", "[Installations]\n{key}={root}\n"),
        ("[Other]\nX=1", "[Other]\nX=1\n\n[Installations]\n{key}={root}\n"),
        (
            "[Installations]\r\nA=/gone\r\n\r\n[Other]\r\nX=1\r\n",
            "[Installations]\r\nA=/gone\r\n{key}={root}\r\n\r\n[Other]\r\nX=1\r\n",
        ),
        ("\ufeff[Installations]\n; mine\n", "\ufeff[Installations]\n{key}={root}\n; mine\n"),
    ],
)
def test_register_adds_its_line_to_the_installations_section_and_keeps_every_other_byte(
    tmp_path: Path, before: str, after: str
) -> None:
    engine = make_engine(tmp_path / "UE")
    home = tmp_path / "home"
    install_ini = home / INSTALL_INI["linux"]
    install_ini.parent.mkdir(parents=True)
    install_ini.write_bytes(before.encode())
    register_engine(engine, platform="linux", environ={}, home=home, new_guid=lambda: GUID)
    assert install_ini.read_bytes() == after.format(key=DIGITS, root=engine).encode()


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_register_of_a_folder_already_listed_returns_its_identifier_and_writes_nothing(
    tmp_path: Path, platform: str
) -> None:
    engine = make_engine(tmp_path / "UE")
    install_ini = tmp_path / "home" / INSTALL_INI[platform]
    install_ini.parent.mkdir(parents=True)
    install_ini.write_text(f"[Installations]\n{{{DIGITS}}}={engine}/\n")
    before = install_ini.read_bytes()
    found = register_engine(engine, platform=platform, environ={}, home=tmp_path / "home")
    assert (found.identifier, found.existing, found.change) == ("{" + DIGITS + "}", True, None)
    assert install_ini.read_bytes() == before


def test_register_on_windows_adds_a_braced_guid_value_with_the_folder_in_forward_slashes(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "UE")
    registry = Registry()
    environ = {"PROGRAMDATA": str(tmp_path / "ProgramData")}
    found = register_engine(
        engine,
        platform="win32",
        environ=environ,
        home=tmp_path,
        registry=registry.read,
        registry_writer=registry.write,
        new_guid=lambda: GUID,
    )
    assert found.identifier == "{" + DIGITS + "}"
    assert found.where == "HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds"
    assert registry.values == [("{" + DIGITS + "}", str(engine).replace("\\", "/"))]
    again = register_engine(
        engine, platform="win32", environ=environ, home=tmp_path, registry=registry.read, registry_writer=registry.write
    )
    assert (again.identifier, again.existing, len(registry.values)) == ("{" + DIGITS + "}", True, 1)


def test_register_of_a_launcher_install_returns_its_release(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "UE_5.3")
    launcher = tmp_path / "home" / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(json.dumps({"InstallationList": [{"InstallLocation": str(engine), "AppName": "UE_5.3"}]}))
    found = plan_registration(engine, platform="linux", environ={}, home=tmp_path / "home")
    assert (found.identifier, found.existing) == ("5.3", True)


def test_register_dry_run_and_a_folder_that_is_no_engine_write_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    found = register_engine(make_engine(tmp_path / "UE"), platform="linux", environ={}, home=home, dry_run=True)
    assert found.change is not None
    assert found.change.old is None
    assert not home.exists()
    (tmp_path / "Plain").mkdir()
    with pytest.raises(EngineLookupError, match="not an engine's folder"):
        register_engine(tmp_path / "Plain", platform="linux", environ={}, home=home)
    assert not home.exists()


def test_a_failed_registry_write_is_one_write_error(tmp_path: Path) -> None:
    def refuse(name: str, data: str) -> None:
        raise PermissionError(5, "Access is denied")

    with pytest.raises(WriteError, match=r"Builds: cannot add '\{.*\}' \(Access is denied\)"):
        register_engine(
            make_engine(tmp_path / "UE"),
            platform="win32",
            environ={},
            home=tmp_path,
            registry=list,
            registry_writer=refuse,
        )


# -- list -------------------------------------------------------------------------------------------------------------


def test_the_list_gives_each_engine_s_version_or_why_there_is_none(tmp_path: Path) -> None:
    launcher_engine = make_engine(tmp_path / "UE_5.3")
    home = tmp_path / "home"
    launcher = home / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        json.dumps({"InstallationList": [{"InstallLocation": str(launcher_engine), "AppName": "UE_5.3"}]})
    )
    no_version = make_engine(tmp_path / "Bare", None)
    broken = make_engine(tmp_path / "Broken", None)
    (broken / "Engine" / "Build" / "Build.version").write_text("{")
    install_ini = home / INSTALL_INI["linux"]
    install_ini.parent.mkdir(parents=True)
    install_ini.write_text(
        f"[Installations]\n{DIGITS}={no_version}\nMine={broken}\nGone={tmp_path / 'gone'}\n", encoding="utf-8"
    )
    listed, looked = machine_engines(platform="linux", environ={}, home=home)
    assert looked == [str(launcher), str(install_ini)]
    rows = [(engine.installation.identifier, engine.kind, engine.version, engine.problem[:40]) for engine in listed]
    assert rows == [
        ("5.3", "launcher", "5.3.1-0", ""),
        (DIGITS, "guid", None, "no Engine/Build/Build.version there"),
        ("Mine", "identifier", None, f"{broken / 'Engine' / 'Build' / 'Build.version'}"[:40]),
        ("Gone", "identifier", None, "the folder does not exist"),
    ]


def test_the_list_on_windows_reads_the_registry_through_the_stand_in(tmp_path: Path) -> None:
    source = make_engine(tmp_path / "Source")
    registry = Registry([("{" + DIGITS + "}", str(source)), ("Gone", str(tmp_path / "gone"))])
    listed, looked = machine_engines(platform="win32", environ={}, home=tmp_path, registry=registry.read)
    assert [(engine.installation.identifier, engine.kind, engine.version) for engine in listed] == [
        ("{" + DIGITS + "}", "guid", "5.3.1-0")  # Unreal keeps a registry value only for an engine's folder
    ]
    assert looked[-1] == "HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds"


# -- switch -----------------------------------------------------------------------------------------------------------

SWITCHED_FILES = [
    # a file as written, and the same file after switching to 5.3: every other byte kept
    ('{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.1",\n\t"Category": ""\n}\n',
     '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Category": ""\n}\n'),
    ('{\r\n  "FileVersion": 3,\r\n  "EngineAssociation": "",\r\n  "Category": ""\r\n}',
     '{\r\n  "FileVersion": 3,\r\n  "EngineAssociation": "5.3",\r\n  "Category": ""\r\n}'),
    ('\ufeff{"FileVersion":3,"engineassociation":"{X}"}', '\ufeff{"FileVersion":3,"engineassociation":"5.3"}'),
    # no key: added after the last member, as FJsonObject::SetStringField appends a new key
    ('{\n\t"FileVersion": 3,\n\t"Category": "Games"\n}\n',
     '{\n\t"FileVersion": 3,\n\t"Category": "Games",\n\t"EngineAssociation": "5.3"\n}\n'),
    ('{\n    "FileVersion": 3,\n    "Plugins": [\n        {"Name": "A", "Enabled": true},\n    ],\n}',
     '{\n    "FileVersion": 3,\n    "Plugins": [\n        {"Name": "A", "Enabled": true},\n    ],\n'
     '    "EngineAssociation": "5.3",\n}'),
    # a key repeated in another case: every occurrence, so that Unreal 4 (the last) and 5 (the first) agree
    ('{"FileVersion": 3, "EngineAssociation": "5.0", "ENGINEASSOCIATION": "5.1"}',
     '{"FileVersion": 3, "EngineAssociation": "5.3", "ENGINEASSOCIATION": "5.3"}'),
    ('{"FileVersion": 3, "EngineAssociation": 5.1}', '{"FileVersion": 3, "EngineAssociation": "5.3"}'),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after"), SWITCHED_FILES)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be"])
def test_switch_rewrites_the_association_and_keeps_every_other_byte(before: str, after: str, encoding: str) -> None:
    def encoded(text: str) -> bytes:
        if encoding == "utf-8":
            return text.encode()
        return ("\ufeff" + text.lstrip("\ufeff")).encode(encoding)

    assert with_association(encoded(before), "5.3", "Game.uproject") == encoded(after)


def test_switch_escapes_the_association_as_unreal_s_json_writer_does() -> None:
    new = with_association(b'{"FileVersion": 3}', 'C:\\Engines\\"UE"', "Game.uproject")
    assert new == b'{"FileVersion": 3, "EngineAssociation": "C:\\\\Engines\\\\\\"UE\\""}'
    assert association_of(new, "Game.uproject") == 'C:\\Engines\\"UE"'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[]", "expected a JSON object, not an array"),
        (b'{"FileVersion": 3', "line 1, column 18"),
        (b'{"FileVersion": 3, "Modules": [{"Name": "A", "Name": "B"}]}', "cannot edit EngineAssociation in place"),
    ],
)
def test_switch_refuses_a_file_it_cannot_edit_in_place(data: bytes, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        with_association(data, "5.3", "Game.uproject")


def make_project(folder: Path, text: str = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.1"\n}\n') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / f"{folder.name}.uproject"
    project.write_text(text)
    return project


@pytest.mark.parametrize(
    ("platform", "association", "root"),
    [
        ("linux", DIGITS, "Source"),
        ("linux", "{" + DIGITS.lower() + "}", "Source"),  # 4.22 to 5.0's spelling of the same key
        ("darwin", "{" + DIGITS + "}", "Source"),
        ("linux", "../Source", "Source"),  # a path, relative to the project's folder
        ("linux", "", "Depot"),  # none: the engine in a folder above
    ],
)
def test_switch_to_an_association_this_machine_resolves_writes_it(
    tmp_path: Path, platform: str, association: str, root: str
) -> None:
    make_engine(tmp_path / "Source")
    depot = make_engine(tmp_path / "Depot")
    install_ini = tmp_path / "home" / INSTALL_INI[platform]
    install_ini.parent.mkdir(parents=True)
    install_ini.write_text(f"[Installations]\n{DIGITS}={tmp_path / 'Source'}\n")
    project = make_project(depot / "Game" if association == "" else tmp_path / "Game")
    switch = switch_engine(project, association, platform=platform, environ={}, home=tmp_path / "home")
    assert switch.engine is not None
    assert switch.engine.root == tmp_path / root
    assert association_of(project.read_bytes(), "x") == association


def test_switch_on_windows_resolves_a_registry_build_through_the_stand_in(tmp_path: Path) -> None:
    source = make_engine(tmp_path / "Source")
    registry = Registry([("MyEngine", str(source))])
    project = make_project(tmp_path / "Game")
    switch_engine(project, "myengine", platform="win32", environ={}, home=tmp_path, registry=registry.read)
    assert association_of(project.read_bytes(), "x") == "myengine"


@pytest.mark.parametrize("association", ["5.9", DIGITS, "../Nowhere", "Mine"])
def test_switch_to_an_association_this_machine_cannot_resolve_is_refused_unless_forced(
    tmp_path: Path, association: str
) -> None:
    project = make_project(tmp_path / "Game")
    before = project.read_bytes()
    with pytest.raises(EngineLookupError, match="to write it all the same, pass --force"):
        switch_engine(project, association, platform="linux", environ={}, home=tmp_path / "home")
    assert project.read_bytes() == before
    forced = switch_engine(project, association, force=True, platform="linux", environ={}, home=tmp_path / "home")
    assert (forced.engine, forced.problem != "") == (None, True)
    assert association_of(project.read_bytes(), "x") == association


def test_switch_dry_run_writes_nothing_and_plans_the_diff(tmp_path: Path) -> None:
    project = make_project(tmp_path / "Game")
    before = project.read_bytes()
    switch = switch_engine(project, "", force=True, dry_run=True, platform="linux", environ={}, home=tmp_path)
    assert project.read_bytes() == before
    assert '-\t"EngineAssociation": "5.1"\n+\t"EngineAssociation": ""\n' in switch.change.diff()


def test_switch_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    from buildver.changes import apply_changes

    project = make_project(tmp_path / "Game")
    switch = plan_switch(project, "5.3", force=True, platform="linux", environ={}, home=tmp_path)
    project.write_text('{"FileVersion": 3, "EngineAssociation": "4.27"}')
    with pytest.raises(WriteError):
        apply_changes([switch.change])
    assert association_of(project.read_bytes(), "x") == "4.27"


# -- the command line -------------------------------------------------------------------------------------------------


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Linux HOME with no engines yet, an engine at tmp_path/UE and a game at tmp_path/Game (the current folder)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    make_engine(tmp_path / "UE")
    make_project(tmp_path / "Game")
    monkeypatch.chdir(tmp_path / "Game")
    return tmp_path


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="Install.ini is Linux's and macOS's")
def test_the_commands_register_switch_show_and_list_an_engine(
    machine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "engine", "register", str(machine / "UE"), "--json")
    assert (code, err) == (0, "")
    identifier = json.loads(out)["identifier"]
    assert json.loads(out)["already_registered"] is False
    assert run_cli(capsys, "engine", "register", str(machine / "UE"))[1] == (
        f"{identifier}: already registered ({machine / 'home' / INSTALL_INI['linux']} ({identifier}))\n"
    )
    code, out, err = run_cli(capsys, "engine", "switch", identifier)
    assert (code, err) == (0, "")
    assert (
        out == f"{machine / 'Game' / 'Game.uproject'}: EngineAssociation '5.1' -> '{identifier}' ({machine / 'UE'})\n"
    )
    for arguments in (["engine"], ["engine", "Game.uproject"], ["engine", "--json"], ["engine", ".", "--json"]):
        code, out, err = run_cli(capsys, *arguments)
        assert (code, err) == (0, "")
        assert str(machine / "UE") in out
    code, out, err = run_cli(capsys, "engines")
    assert (code, err) == (0, "")
    assert out.startswith(f"{identifier} (guid): {machine / 'UE'} (5.3.1-0)\n")


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["engine", "switch", "5.9"], 1, "EngineAssociation '5.9' (a launcher build of Unreal 5.9) is not installed"),
        (["engine", "switch", "a", "b", "c"], 2, "engine switch takes [PROJECT] ASSOCIATION: one or two arguments"),
        (["engine", "switch", "Missing.uproject", "5.3"], 2, "Missing.uproject: no such file or folder"),
        (["engine", "register", "."], 1, ".: not an engine's folder"),
    ],
)
def test_bad_input_is_one_error_line_and_nothing_written(
    machine: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], code: int, message: str
) -> None:
    before = (machine / "Game" / "Game.uproject").read_bytes()
    result, out, err = run_cli(capsys, *arguments)
    assert (result, out, err.count("\n")) == (code, "", 1)
    assert err.startswith("buildver: error: ")
    assert message in err
    assert (machine / "Game" / "Game.uproject").read_bytes() == before
    assert not (machine / "home").exists()


def test_switch_dry_run_prints_the_diff(machine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "engine", "switch", "Game.uproject", "../UE", "--dry-run")
    assert (code, err) == (0, "")
    assert out == (
        '--- a/Game.uproject\n+++ b/Game.uproject\n@@ -1,4 +1,4 @@\n {\n \t"FileVersion": 3,\n'
        '-\t"EngineAssociation": "5.1"\n+\t"EngineAssociation": "../UE"\n }\n'
    )
    assert association_of((machine / "Game" / "Game.uproject").read_bytes(), "x") == "5.1"


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="names that are not UTF-8 are POSIX's")
@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]], ids=["write", "dry-run"])
@pytest.mark.parametrize("command", ["register", "switch"])
def test_a_name_that_is_not_utf_8_is_one_error_line_and_nothing_written(
    machine: Path, capsys: pytest.CaptureFixture[str], command: str, dry_run: list[str]
) -> None:
    """The attack harness (tools/attack, names): an engine folder, or an association given on the command line,
    whose bytes are not UTF-8 (``os.fsdecode``: lone surrogates) crashed (exit 70, UnicodeEncodeError) when
    Install.ini or the .uproject was encoded. Neither file can hold it: it is refused, as a line break is."""
    odd = "UE\udcff"
    make_engine(machine / odd)
    before = (machine / "Game" / "Game.uproject").read_bytes()
    if command == "register":
        arguments = ["engine", "register", *dry_run, str(machine / odd)]
    else:
        arguments = ["engine", "switch", "--force", *dry_run, odd]
    result, out, err = run_cli(capsys, *arguments)
    assert (result, out, err.count("\n")) == (1, "", 1), err
    assert err.startswith("buildver: error: ")
    assert "UE\\udcff" in err
    assert "not UTF-8" in err
    assert (machine / "Game" / "Game.uproject").read_bytes() == before
    assert not (machine / "home" / ".config").exists()


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="Install.ini is Linux's and macOS's")
@needs_strace
@pytest.mark.parametrize("command", ["register", "switch"])
@pytest.mark.parametrize("syscall", ["link", "rename", "unlink"])
def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path, command: str, syscall: str) -> None:
    """The attack harness (tools/attack, kills): SIGKILL at the backup's link, the rename or the backup's removal
    left ``.Install.ini.*.buildver-tmp`` (or ``.Game.uproject.*``) files, and no later register or switch removed
    them (update-local and data upgrade remove their killed runs' leftovers): they piled up beside the game."""
    home = tmp_path / "home"
    make_engine(tmp_path / "UE")
    make_engine(tmp_path / "Other")
    game = make_project(tmp_path / "Game")
    environment = {**os.environ, **NO_BYTECODE, "HOME": str(home)}
    # Install.ini exists (register replaces it) and lists UE (switch resolves its identifier).
    registered = subprocess.run(
        [BUILDVER, "engine", "register", "--json", str(tmp_path / "UE")], capture_output=True, env=environment
    )
    identifier = json.loads(registered.stdout)["identifier"]
    arguments = (
        ["engine", "register", str(tmp_path / "Other")] if command == "register" else ["engine", "switch", identifier]
    )
    folder = home / ".config" / "Epic" / "UnrealEngine" if command == "register" else game.parent
    inject = f"inject={syscall}:signal=KILL:when=1"
    killed = subprocess.run(
        ["strace", "-qq", "-o", os.devnull, "-e", f"trace={syscall}", "-e", inject, BUILDVER, *arguments],
        cwd=game.parent,
        capture_output=True,
        env=environment,
    )
    assert killed.returncode == -9, killed.stderr
    again = subprocess.run([BUILDVER, *arguments], cwd=game.parent, capture_output=True, env=environment)
    assert again.returncode == 0, again.stderr
    assert sorted(name for name in os.listdir(folder) if name.endswith(".buildver-tmp")) == []
