"""A game's generated header: names of the project's own, so that it compiles after the engine's Version.h and
UBT's definitions with warnings as errors; Version.h's names only when asked for, and then they clash."""

from __future__ import annotations

import shutil
import string
import subprocess
from pathlib import Path

import pytest

from buildver.cli.app import main
from buildver.errors import ConfigError
from buildver.stamp.header import (
    DEFAULT_PREFIX,
    UNREAL_DEFINED_MACROS,
    MacroNames,
    clashing_macro,
    project_prefix,
)
from buildver.versions.config import load_config

DATA = Path(__file__).parents[1] / "data"
UPROJECT = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Category": "",\n\t"Description": ""\n}'


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """RTSOpen after ``buildver init --version 1.4.0`` and ``update-local --cl 123``."""
    folder = tmp_path / "RTSOpen"
    folder.mkdir()
    (folder / "RTSOpen.uproject").write_text(UPROJECT)
    monkeypatch.chdir(folder)
    for environment in ("GITHUB_ACTIONS", "CI", "uebp_CL", "uebp_BuildRoot_P4"):
        monkeypatch.delenv(environment, raising=False)
    assert main(["init", "--version", "1.4.0"]) == 0
    capsys.readouterr()
    return folder


def stamp(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["update-local", "--cl", "123", "--branch", "++RTSOpen+Main"]) == 0
    capsys.readouterr()
    return Path("Build/BuildVersion.h").read_text()


def compile_after_version_h(header: Path, work: Path) -> subprocess.CompletedProcess[str]:
    """Compile, as a game's source file is compiled in UE 5.3: UBT's definitions, Version.h, then the header."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler on this machine")
    version_h = work / "Version.h"
    template = string.Template((DATA / "engine" / "Version-5.3.h.template").read_text())
    version_h.write_text(template.substitute(major=5, minor=3, patch=2))
    source = work / "Game.cpp"
    source.write_text(
        f'#include "{version_h}"\n#include "{header}"\n#include <cstdio>\n'
        "int main() {\n"
        '  std::printf("%d.%d.%d %d %s\\n", RTSOPEN_MAJOR_VERSION, RTSOPEN_MINOR_VERSION, RTSOPEN_PATCH_VERSION,'
        " RTSOPEN_CHANGELIST, RTSOPEN_BRANCH_NAME);\n"
        '  std::printf("%d.%d.%d\\n", ENGINE_MAJOR_VERSION, ENGINE_MINOR_VERSION, ENGINE_PATCH_VERSION);\n'
        "  return 0;\n}\n"
    )
    program = work / "game"
    # UBT's BuildSettings module passes these on the command line in 5.x.
    defines = [
        "-DBUILT_FROM_CHANGELIST=27405482",
        '-DBRANCH_NAME="++UE5+Release-5.3"',
        "-DENGINE_IS_LICENSEE_VERSION=0",
    ]
    command = [compiler, "-std=c++17", "-Wall", "-Werror", *defines, "-o", str(program), str(source)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_a_game_header_compiles_after_the_engine_s_version_h_with_warnings_as_errors(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = stamp(capsys)
    assert "#define RTSOPEN_MAJOR_VERSION 1\n" in text
    assert "ENGINE_" not in text
    assert "#define BRANCH_NAME" not in text
    result = compile_after_version_h(game / "Build" / "BuildVersion.h", tmp_path)
    assert result.returncode == 0, result.stderr
    shown = subprocess.run([str(tmp_path / "game")], capture_output=True, text=True, check=True).stdout
    assert shown == "1.4.0 123 ++RTSOpen+Main\n5.3.2\n"


def test_version_h_names_are_a_setting_and_clash_with_the_engine_s(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (game / "buildver.toml").open("a") as settings:
        settings.write('header-macros = "unreal"\n')
    text = stamp(capsys)
    assert "#define ENGINE_MAJOR_VERSION 1\n" in text
    result = compile_after_version_h(game / "Build" / "BuildVersion.h", tmp_path)
    assert result.returncode != 0
    assert '"ENGINE_MAJOR_VERSION" redefined' in result.stderr


def test_a_configured_prefix_names_the_macros(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (game / "buildver.toml").open("a") as settings:
        settings.write('header-prefix = "RTS_"\n')
    text = stamp(capsys)
    assert "#define RTS_CHANGELIST 123\n" in text
    assert "#define RTS_VERSION_STRING " in text
    assert main(["header", "--check"]) == 0


def test_changing_the_names_makes_the_header_out_of_date(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stamp(capsys)
    with (game / "buildver.toml").open("a") as settings:
        settings.write('header-prefix = "RTS_"\n')
    assert main(["header", "--check"]) == 1
    out = capsys.readouterr().out
    assert "-#define RTSOPEN_CHANGELIST 123\n" in out
    assert "+#define RTS_CHANGELIST 123\n" in out


@pytest.mark.parametrize(
    ("name", "prefix"),
    [
        ("RTSOpen", "RTSOPEN_"),
        ("My Game", "MY_GAME_"),
        ("Lyra-Starter", "LYRA_STARTER_"),
        ("3DShooter", "PROJECT_3DSHOOTER_"),
        ("Jeu_Été", "JEU__T_"),
        ("___", DEFAULT_PREFIX),
    ],
)
def test_the_prefix_comes_from_the_project_s_name(name: str, prefix: str) -> None:
    assert project_prefix(name) == prefix


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('header-prefix = "1X_"', "header-prefix '1X_' is not the start of a C identifier"),
        ('header-prefix = "__X"', "header-prefix '__X' is not the start of a C identifier"),
        ('header-prefix = "_X"', "header-prefix '_X' is not the start of a C identifier"),
        ('header-prefix = "A-B_"', "header-prefix 'A-B_' is not the start of a C identifier"),
        ('header-prefix = "É_"', "header-prefix 'É_' is not the start of a C identifier"),
        ('header-macros = "engine"', "header-macros must be 'prefixed' or 'unreal', not 'engine'"),
    ],
)
def test_a_bad_naming_setting_is_one_error(tmp_path: Path, setting: str, message: str) -> None:
    (tmp_path / "buildver.toml").write_text(setting + "\n")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


@pytest.mark.parametrize("setting", ['header-prefix = "_x"', 'header-prefix = "Game"', 'header-macros = "unreal"'])
def test_good_naming_settings_load(tmp_path: Path, setting: str) -> None:
    (tmp_path / "buildver.toml").write_text(setting + "\n")
    config = load_config(tmp_path)
    assert (config.header_prefix, config.header_macros) != (None, "prefixed")


# Issue 30, item 9: a project whose name, or a header-prefix, is the start of one of Unreal's own macros.
UBT_DEFINITIONS = [
    # 4.20 and 4.21 pass these to every module; BuildSettings (4.22 on) passes the rest to its own.
    "-DBUILT_FROM_CHANGELIST=27405482",
    '-DBRANCH_NAME="++UE5+Release-5.3"',
    "-DENGINE_IS_LICENSEE_VERSION=0",
    "-DENGINE_IS_PROMOTED_BUILD=1",
    "-DCURRENT_CHANGELIST=27405482",
    "-DCOMPATIBLE_CHANGELIST=27405482",
    '-DBUILD_VERSION="++UE5+Release-5.3-CL-27405482"',
    '-DBUILD_SOURCE_URL=""',
    "-DENGINE_VERSION_MAJOR=5",
    "-DENGINE_VERSION_MINOR=3",
    "-DENGINE_VERSION_HOTFIX=2",
]


def compile_in_c(version_h: Path, header: Path, prefix: str, work: Path, defines: list[str]) -> str:
    """Compile a C file including ``version_h`` then ``header`` with ``cc -Wall -Werror``; what it prints."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler on this machine")
    source = work / "game.c"
    source.write_text(
        f'#include "{version_h}"\n#include "{header}"\n#include <stdio.h>\n'
        "int main(void) {\n"
        f'  printf("%d.%d.%d %d %s\\n", {prefix}MAJOR_VERSION, {prefix}MINOR_VERSION, {prefix}PATCH_VERSION,'
        f" {prefix}CHANGELIST, {prefix}BRANCH_NAME);\n"
        '  printf("%d.%d.%d\\n", ENGINE_MAJOR_VERSION, ENGINE_MINOR_VERSION, ENGINE_PATCH_VERSION);\n'
        "  return 0;\n}\n"
    )
    program = work / "game-c"
    command = [compiler, "-std=c99", "-Wall", "-Werror", *defines, "-o", str(program), str(source)]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    return subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize(
    ("name", "prefix"),
    [
        ("Engine", "PROJECT_ENGINE_"),
        ("engine", "PROJECT_ENGINE_"),
        ("Built From", "PROJECT_BUILT_FROM_"),
        ("Built-From", "PROJECT_BUILT_FROM_"),
        ("Current", "PROJECT_CURRENT_"),
        ("Compatible", "PROJECT_COMPATIBLE_"),
    ],
)
def test_a_project_named_like_unreal_s_macros_gets_a_prefix_that_clashes_with_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, prefix: str
) -> None:
    assert project_prefix(name) == prefix
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / f"{name}.uproject").write_text(UPROJECT)
    monkeypatch.chdir(folder)
    for environment in ("GITHUB_ACTIONS", "CI", "uebp_CL", "uebp_BuildRoot_P4"):
        monkeypatch.delenv(environment, raising=False)
    assert main(["init", "--version", "1.4.0"]) == 0
    text = stamp(capsys)
    assert f"#define {prefix}MAJOR_VERSION 1\n" in text
    header = folder / "Build" / "BuildVersion.h"
    version_53 = tmp_path / "Version-5.3.h"
    template = string.Template((DATA / "engine" / "Version-5.3.h.template").read_text())
    version_53.write_text(template.substitute(major=5, minor=3, patch=2))
    shown = compile_in_c(version_53, header, prefix, tmp_path, UBT_DEFINITIONS)
    assert shown == "1.4.0 123 ++RTSOpen+Main\n5.3.2\n"
    # 4.18's Version.h defines the changelist, the branch and the flags itself (UBT passes nothing then).
    shown = compile_in_c(DATA / "header" / "Version-4.18.h", header, prefix, tmp_path, [])
    assert shown == "1.4.0 123 ++RTSOpen+Main\n4.18.3\n"


def test_no_project_name_gives_a_macro_of_unreal_s() -> None:
    # Every way a name can end in a generated macro's suffix: the part before it, as a project's name.
    suffixes = MacroNames.prefixed("")
    for reserved in sorted(UNREAL_DEFINED_MACROS):
        for suffix in suffixes:
            if reserved.endswith(suffix) and reserved != suffix:
                name = reserved.removesuffix(suffix)
                assert not set(MacroNames.prefixed(project_prefix(name))) & UNREAL_DEFINED_MACROS, name
                assert clashing_macro(name) in UNREAL_DEFINED_MACROS


@pytest.mark.parametrize(
    ("prefix", "macro"),
    [("ENGINE_", "ENGINE_MAJOR_VERSION"), ("BUILT_FROM_", "BUILT_FROM_CHANGELIST"), ("CURRENT_", "CURRENT_CHANGELIST")],
)
def test_a_configured_prefix_that_redefines_unreal_s_macros_is_one_error(
    game: Path, capsys: pytest.CaptureFixture[str], prefix: str, macro: str
) -> None:
    before = (game / "Build" / "Build.version").read_bytes()
    with (game / "buildver.toml").open("a") as settings:
        settings.write(f'header-prefix = "{prefix}"\n')
    assert main(["update-local", "--cl", "9", "--branch", "++RTSOpen+Main"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"header-prefix {prefix!r} gives {macro}, which Unreal's Version.h or UnrealBuildTool defines" in err
    assert f"header-prefix = 'PROJECT_{prefix}'" in err
    assert (game / "Build" / "Build.version").read_bytes() == before
