"""Which Build.version is in use: one decision for every command and for the Python API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from buildver.cli.app import main
from buildver.errors import ConfigError, EngineLookupError, NoVersionFileError, VersionFileError
from buildver.projects.place import compatible_engine_version, current_engine_version
from buildver.versions.config import load_config
from buildver.versions.current import load_version_file, version_file_path
from buildver.versions.engine_version import EngineVersion

DATA = Path(__file__).parents[1] / "data"
UE4272 = (
    '{"MajorVersion": 4, "MinorVersion": 27, "PatchVersion": 2, "Changelist": 18319896,'
    ' "CompatibleChangelist": 17155196, "IsLicenseeVersion": 0, "BranchName": "++UE4+Release-4.27"}'
)


def test_current_and_compatible_with_read_the_build_version_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    version = tmp_path / "Engine" / "Build" / "Build.version"
    version.write_text(UE4272)
    assert current_engine_version(version) == EngineVersion.parse("4.27.2-18319896+++UE4+Release-4.27")
    # CompatibleWith: the effective compatible changelist, and patch 0 for an Epic build.
    assert compatible_engine_version(version) == EngineVersion.parse("4.27.0-17155196+++UE4+Release-4.27")
    monkeypatch.chdir(tmp_path / "Engine")
    assert current_engine_version() == EngineVersion.parse("4.27.2-18319896+++UE4+Release-4.27")
    version.write_text(UE4272.replace('"IsLicenseeVersion": 0', '"IsLicenseeVersion": 1'))
    assert compatible_engine_version() == EngineVersion(4, 27, 2, 17155196, "++UE4+Release-4.27", licensee=True)


@pytest.fixture
def two_version_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with Build/Build.version (4.27.2) and Alt/Build.version (4.27.7), configured to use Alt."""
    (tmp_path / ".git").mkdir()
    for folder, patch in (("Build", 2), ("Alt", 7)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "Build.version").write_text(
            UE4272.replace('"PatchVersion": 2', f'"PatchVersion": {patch}')
        )
    monkeypatch.chdir(tmp_path)
    assert version_file_path() == tmp_path / "Build" / "Build.version"  # found, before any configuration
    (tmp_path / "buildver.toml").write_text('version-file = "Alt/Build.version"\n')
    return tmp_path


def test_the_configured_version_file_is_the_one_in_use(two_version_files: Path) -> None:
    root = two_version_files
    assert version_file_path() == (root / "Alt" / "Build.version").resolve()
    assert load_version_file().record.patch_version == 7
    assert current_engine_version().patch == 7
    assert version_file_path("Build/Build.version") == Path("Build/Build.version")
    assert version_file_path(config=load_config(root / "Build")).name == "Build.version"


@pytest.mark.parametrize(
    "command",
    [
        ["show", "--json"],
        ["header", "--check"],
        ["update-local", "--cl", "5", "--branch", "B", "--skip-header", "--dry-run"],
        ["assets", "scan", "."],
        ["project", "check", "."],
    ],
)
def test_every_command_uses_the_configured_version_file(
    two_version_files: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code = main(command)
    captured = capsys.readouterr()
    # header --check: the header does not exist yet, so it is out of date (exit 1, the diff names it).
    assert (code, captured.err.startswith("buildver: error")) == (int(command[0] == "header"), False)
    expected = {
        "show": '"EngineVersion": "4.27.7-18319896+++UE4+Release-4.27"',
        "header": f"{Path('Alt') / 'BuildVersion.h'}",
        "update-local": f"{Path('Alt') / 'Build.version'}",
        "assets": "against 4.27.7-18319896+++UE4+Release-4.27",
        "project": "engine 4.27.7-18319896+++UE4+Release-4.27",
    }
    assert expected[command[0]] in captured.out


@pytest.mark.parametrize(
    "command",
    [
        ["show"],
        ["header", "--check"],
        ["update-local", "--cl", "5", "--branch", "B", "--dry-run"],
        ["init"],
        ["assets", "scan", ".", "--against", "5.3.0"],
        ["project", "check", "."],
        ["guard"],
    ],
)
def test_every_command_refuses_an_unknown_setting(
    two_version_files: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    (two_version_files / "buildver.toml").write_text('version-fiel = "Alt/Build.version"\n')
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err.startswith("buildver: error: ")
    assert "unknown setting 'version-fiel'" in err


def test_no_version_file_is_said_in_the_librarys_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The library names no command-line flag: the command line adds those (tests/cli/test_cli.py).
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NoVersionFileError) as raised:
        load_version_file()
    assert str(raised.value) == (
        f"{tmp_path}: no Build/Build.version or Engine/Build/Build.version here or in a parent folder "
        "(up to the repository root)"
    )
    assert isinstance(raised.value, VersionFileError)  # what callers caught before
    assert raised.value.exit_code == 1


def test_with_no_engine_anywhere_current_engine_version_names_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EngineLookupError) as raised:
        current_engine_version()
    assert str(raised.value).startswith(f"{tmp_path}: no Build/Build.version or Engine/Build/Build.version here")
    assert 'set engine = "MAJOR.MINOR"' in str(raised.value)


# (the path given, whether Engine/Build/Build.version exists, the message)
BACKSLASH_PATHS = [
    (
        "Engine\\Build\\Build.version",
        True,
        "Engine\\Build\\Build.version: the version file is missing (a backslash is not a path separator on this "
        "system; use Engine/Build/Build.version)",
    ),
    (
        "Engine\\Build\\Build.version",
        False,
        "Engine\\Build\\Build.version: the version file is missing (a backslash is not a path separator on this "
        "system: write the path with /)",
    ),
    ("Engine/Build/Build.version", False, "Engine/Build/Build.version: the version file is missing"),
]


@pytest.mark.skipif(os.sep == "\\", reason="a backslash is a separator on Windows")
@pytest.mark.parametrize(("given", "exists", "message"), BACKSLASH_PATHS)
def test_a_path_with_backslashes_is_said_to_be_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, exists: bool, message: str
) -> None:
    if exists:
        (tmp_path / "Engine" / "Build").mkdir(parents=True)
        (tmp_path / "Engine" / "Build" / "Build.version").write_text(UE4272)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(VersionFileError) as raised:
        current_engine_version(given)
    assert str(raised.value) == message


@pytest.mark.skipif(os.sep == "\\", reason="a backslash is a separator on Windows")
def test_a_file_whose_name_holds_a_backslash_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "odd\\name.version").write_text(UE4272)
    monkeypatch.chdir(tmp_path)
    assert current_engine_version("odd\\name.version").patch == 2


@pytest.mark.skipif(os.sep == "\\", reason="a backslash is a separator on Windows")
@pytest.mark.parametrize("command", [["show"], ["update-local", "--cl", "5", "--dry-run"], ["header", "--check"]])
def test_every_command_says_a_backslash_is_not_a_separator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Build" / "Build.version").write_text(UE4272)
    monkeypatch.chdir(tmp_path)
    assert main([*command, "-f", "Engine\\Build\\Build.version"]) == 1
    assert capsys.readouterr().err == (
        "buildver: error: Engine\\Build\\Build.version: the version file is missing (a backslash is not a path "
        "separator on this system; use Engine/Build/Build.version)\n"
    )


# (a setting's line in buildver.toml, what the error says after the file's name; None: accepted)
SETTINGS_PATHS = [
    ("version-file = 'Build\\Build.version'", "version-file 'Build\\\\Build.version': a backslash is not a path"),
    ("header = 'Source\\Game\\BuildVersion.h'", "header 'Source\\\\Game\\\\BuildVersion.h': a backslash is not a path"),
    ("engine = 'Engine\\Build\\Build.version'", "engine 'Engine\\\\Build\\\\Build.version': a backslash is not a path"),
    ('engine = "5.3"', None),
    ('engine = "5.3.2-29314046+++UE5+Release-5.3"', None),
    ('engine = "five"', "engine 'five' is neither a release (5.3), an engine version (5.3.2) nor the path"),
]


@pytest.mark.skipif(os.sep == "\\", reason="a backslash is a separator on Windows")
@pytest.mark.parametrize(("line", "error"), SETTINGS_PATHS)
def test_a_settings_path_written_on_windows_is_one_error_naming_the_fix(
    tmp_path: Path, line: str, error: str | None
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "buildver.toml").write_text(line + "\n")
    if error is None:
        assert load_config(tmp_path).engine is not None
        return
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path)
    assert str(raised.value).startswith(f"{tmp_path / 'buildver.toml'}: {error}")
    if "backslash" in error:
        assert "(Windows reads / too)" in str(raised.value)
