"""``buildver bump``: a new release's version in every file that holds it, all or nothing, wherever the command stands.

Each tree is built in ``tmp_path`` from real files: the public TankFire game's config files (tests/data/ini/tankfire,
MIT), the UXTools game's ``.uproject`` and the UXTools plugin's ``.uplugin`` at four of its real releases
(tests/data/plugins/uxtools, MIT), Build.version files of Epic's releases (tests/data/build_version) and Version.h in
each release's shape (tests/data/engine, tests/data/header).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import string
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import git

from buildver.cli import main
from buildver.stamp.bump import next_release
from buildver.stamp.metadata_cs import version_h_numbers

DATA = Path(__file__).parents[1] / "data"
UXTOOLS = DATA / "plugins" / "uxtools"
VERSION_H = "Engine/Source/Runtime/Launch/Resources/Version.h"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
TEMPLATES = 'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'


def files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {name for name in {*before, *after} if before.get(name) != after.get(name)}


def commit(root: Path) -> None:
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "before the release")


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["bump", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- the trees -------------------------------------------------------------------------------------------------------


def make_game(root: Path, *, version: str = GAME_VERSION, templates: str = TEMPLATES, header: bool = True) -> Path:
    """TankFire (the real config files, the real UXToolsGame.uproject renamed) with its own Build.version 1.4.2,
    the templates, and the header ``buildver header`` writes beside the Build.version."""
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", root / "Config")
    shutil.copyfile(UXTOOLS / "UXToolsGame.uproject", root / "TankFire.uproject")
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(version)
    (root / "buildver.toml").write_text(f'version-file = "Build/Build.version"\n{templates}')
    if header:
        cwd = Path.cwd()
        os.chdir(root)
        try:
            assert main(["header"]) == 0
        finally:
            os.chdir(cwd)
    commit(root)
    return root


def version_h(shape: str, numbers: tuple[int, int, int]) -> bytes:
    """Version.h of 4.18 (the real shape, with its own numbers 4.18.3), or of 4.22 to 5.2 or 5.3 on, for ``numbers``."""
    if shape == "4.18":
        return (DATA / "header" / "Version-4.18.h").read_bytes()
    template = string.Template((DATA / "engine" / f"Version-{shape}.h.template").read_text())
    major, minor, patch = numbers
    return template.substitute(major=major, minor=minor, patch=patch).encode()


ENGINES = {
    # name: (Epic's Build.version of that release, the shape of its Version.h, that file's numbers)
    "4.18": ("ue4.18.3.version", "4.18", (4, 18, 3)),
    "4.22": ("ue4.22.3.version", "4.22", (4, 22, 3)),
    "5.3": ("ue5.3-ue4docker-4-spaces.version", "5.3", (5, 3, 0)),
}


def make_engine(root: Path, name: str) -> Path:
    build_version, shape, numbers = ENGINES[name]
    (root / "Engine" / "Build").mkdir(parents=True)
    shutil.copyfile(DATA / "build_version" / build_version, root / "Engine" / "Build" / "Build.version")
    (root / VERSION_H).parent.mkdir(parents=True)
    (root / VERSION_H).write_bytes(version_h(shape, numbers))
    commit(root)
    return root


def make_plugin(root: Path, data: bytes, name: str = "UXTools") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{name}.uplugin").write_bytes(data)
    commit(root)
    return root


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_game(tmp_path / "TankFire")
    monkeypatch.chdir(root)
    return root


# -- the arithmetic --------------------------------------------------------------------------------------------------

RELEASES = [
    ((1, 4, 2), "major", (2, 0, 0)),
    ((1, 4, 2), "minor", (1, 5, 0)),
    ((1, 4, 2), "patch", (1, 4, 3)),
    ((5, 3, 2), "minor", (5, 4, 0)),
    ((4, 27, 2), "major", (5, 0, 0)),
    ((0, 0, 0), "patch", (0, 0, 1)),
]


@pytest.mark.parametrize(("current", "part", "expected"), RELEASES)
def test_the_part_raised_grows_by_one_and_the_parts_after_it_go_to_zero(
    current: tuple[int, int, int], part: str, expected: tuple[int, int, int]
) -> None:
    assert next_release(current, part) == expected


# -- a game ----------------------------------------------------------------------------------------------------------


def test_a_game_release_raises_build_version_the_header_and_project_version_in_one_write(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    code, out, err = run(capsys, "minor")
    assert (code, err) == (0, "")
    after = files(game)
    assert changed(before, after) == {"Build/Build.version", "Build/BuildVersion.h", "Config/DefaultGame.ini"}
    assert (
        after["Build/Build.version"]
        == GAME_VERSION.replace('"MinorVersion": 4', '"MinorVersion": 5')
        .replace('"PatchVersion": 2', '"PatchVersion": 0')
        .encode()
    )
    assert b"#define TANKFIRE_MINOR_VERSION 5\n" in after["Build/BuildVersion.h"]
    assert b"#define TANKFIRE_PATCH_VERSION 0\n" in after["Build/BuildVersion.h"]
    assert after["Config/DefaultGame.ini"] == before["Config/DefaultGame.ini"].replace(
        b"ProjectVersion=1.0.3.0", b"ProjectVersion=1.5.0.0"
    )
    # StoreVersion's template names only the changelist, which a release does not change: update-local stamps it.
    assert after["Config/DefaultEngine.ini"] == before["Config/DefaultEngine.ini"]
    assert out == (
        f"1.4.2 -> 1.5.0 in a game project, {game / 'TankFire.uproject'}\n"
        f"{game / 'Build' / 'Build.version'}: MinorVersion 4 -> 5\n"
        f"{game / 'Build' / 'Build.version'}: PatchVersion 2 -> 0\n"
        f"{game / 'Config' / 'DefaultGame.ini'}: ProjectVersion '1.0.3.0' -> '1.5.0.0' (project-version)\n"
        f"wrote {game / 'Build' / 'Build.version'}, {game / 'Build' / 'BuildVersion.h'}, "
        f"{game / 'Config' / 'DefaultGame.ini'}\n"
    )
    # What buildver header would write for the new Build.version: the header is in step.
    assert main(["header", "--check"]) == 0


def test_a_store_version_template_that_names_the_release_is_stamped_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    templates = 'project-version = "{Major}.{Minor}.{Patch}"\nandroid-store-version = "{Major}{Minor}{Patch}"\n'
    root = make_game(tmp_path / "TankFire", templates=templates)
    monkeypatch.chdir(root)
    before = files(root)
    assert run(capsys, "minor")[0] == 0
    after = files(root)
    assert after["Config/DefaultEngine.ini"] == before["Config/DefaultEngine.ini"].replace(
        b"StoreVersion=3\r\n", b"StoreVersion=150\r\n"
    ).replace(b"StoreVersion=3\n", b"StoreVersion=150\n")
    assert b"ProjectVersion=1.5.0\n" in after["Config/DefaultGame.ini"].replace(b"\r\n", b"\n")


def test_every_value_but_the_version_is_kept_unless_the_changelists_are_reset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stamped = GAME_VERSION.replace('"Changelist": 0', '"Changelist": 1234').replace(
        '"CompatibleChangelist": 0', '"CompatibleChangelist": 1200'
    )
    stamped = stamped.replace('"IsPromotedBuild": 0', '"IsPromotedBuild": 1').replace('""', '"++Tank+Main"')
    root = make_game(tmp_path / "TankFire", version=stamped)
    monkeypatch.chdir(root)
    assert run(capsys, "patch")[0] == 0
    kept = json.loads((root / "Build" / "Build.version").read_text())
    assert kept == {**json.loads(stamped), "PatchVersion": 3}
    assert b"ProjectVersion=1.4.3.1234" in (root / "Config" / "DefaultGame.ini").read_bytes()
    code, out, _ = run(capsys, "minor", "--reset-changelist")
    assert code == 0
    reset = json.loads((root / "Build" / "Build.version").read_text())
    assert reset == {**kept, "MinorVersion": 5, "PatchVersion": 0, "Changelist": 0, "CompatibleChangelist": 0}
    assert f"{root / 'Build' / 'Build.version'}: Changelist 1234 -> 0\n" in out
    assert f"{root / 'Build' / 'Build.version'}: CompatibleChangelist 1200 -> 0\n" in out
    assert b"ProjectVersion=1.5.0.0" in (root / "Config" / "DefaultGame.ini").read_bytes()


def test_set_to_the_version_there_changes_nothing_and_exits_0(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = files(game)
    assert run(capsys, "--set", "1.4.2") == (
        0,
        f"{game / 'Build' / 'Build.version'}: already at 1.4.2; nothing to change\n",
        "",
    )
    assert files(game) == before


def test_a_version_older_than_the_one_there_is_refused_unless_allowed(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    assert run(capsys, "--set", "1.4.1") == (
        1,
        "",
        f"buildver: error: {game / 'Build' / 'Build.version'}: 1.4.1 is older than 1.4.2, the version there, and a "
        "version never goes backwards; to write it all the same, pass --allow-backwards\n",
    )
    assert files(game) == before
    # ProjectVersion goes from 1.0.3.0 to 1.0.0.0 too: allowed with the same flag.
    code, _, err = run(capsys, "--set", "1.0.0", "--allow-backwards")
    assert (code, err) == (0, "")
    assert json.loads((game / "Build" / "Build.version").read_text())["MinorVersion"] == 0
    assert b"ProjectVersion=1.0.0.0" in (game / "Config" / "DefaultGame.ini").read_bytes()


def test_dry_run_prints_the_diff_of_every_file_and_writes_nothing(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(game)
    code, out, err = run(capsys, "major", "--dry-run")
    assert (code, err) == (0, "")
    assert files(game) == before
    assert out.startswith(
        f"1.4.2 -> 2.0.0 in a game project, {game / 'TankFire.uproject'} (dry run: nothing written)\n"
        "--- a/Build/Build.version\n+++ b/Build/Build.version\n"
    )
    assert '-\t"MajorVersion": 1,\n-\t"MinorVersion": 4,\n-\t"PatchVersion": 2,\n+\t"MajorVersion": 2,\n' in out
    assert "-#define TANKFIRE_MAJOR_VERSION 1\n" in out
    assert "+#define TANKFIRE_MAJOR_VERSION 2\n" in out
    assert "--- a/Config/DefaultGame.ini\n+++ b/Config/DefaultGame.ini\n" in out
    assert "+ProjectVersion=2.0.0.0" in out


def test_json_names_the_place_the_versions_and_the_files(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "patch", "--json")
    assert code == 0
    written = [str(game / "Build" / "Build.version"), str(game / "Build" / "BuildVersion.h")]
    written.append(str(game / "Config" / "DefaultGame.ini"))
    assert json.loads(out) == {
        "schema_version": 1,
        "place": "game",
        "file": str(game / "Build" / "Build.version"),
        "from": "1.4.2",
        "to": "1.4.3",
        "changed": [
            f"{game / 'Build' / 'Build.version'}: PatchVersion 2 -> 3",
            f"{game / 'Config' / 'DefaultGame.ini'}: ProjectVersion '1.0.3.0' -> '1.4.3.0' (project-version)",
        ],
        "files_changed": written,
        "written": written,
        "dry_run": False,
    }


def test_a_header_that_is_neither_there_nor_configured_is_left_to_update_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_game(tmp_path / "TankFire", header=False)
    monkeypatch.chdir(root)
    before = files(root)
    assert run(capsys, "minor")[0] == 0
    assert changed(before, files(root)) == {"Build/Build.version", "Config/DefaultGame.ini"}


def test_a_configured_header_that_is_missing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_game(tmp_path / "TankFire", templates='header = "Source/TankFire/BuildVersion.h"\n', header=False)
    (root / "Source" / "TankFire").mkdir(parents=True)
    monkeypatch.chdir(root)
    assert run(capsys, "minor")[0] == 0
    assert b"#define TANKFIRE_MINOR_VERSION 5\n" in (root / "Source" / "TankFire" / "BuildVersion.h").read_bytes()


def test_a_game_without_a_build_version_of_its_own_is_one_error_that_says_how_to_create_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "UXToolsGame"
    root.mkdir()
    shutil.copyfile(UXTOOLS / "UXToolsGame.uproject", root / "UXToolsGame.uproject")
    commit(root)
    monkeypatch.chdir(root)
    assert run(capsys, "minor") == (
        1,
        "",
        f"buildver: error: {root / 'UXToolsGame.uproject'}: the game keeps no Build.version of its own; pass --file "
        "PATH, or create one with: buildver init --version MAJOR.MINOR.PATCH\n",
    )


# -- another project -------------------------------------------------------------------------------------------------


def test_another_project_raises_its_build_version_and_regenerates_its_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "tools"
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_text(GAME_VERSION)
    monkeypatch.chdir(root)
    assert main(["header"]) == 0
    commit(root)
    capsys.readouterr()
    before = files(root)
    code, out, _ = run(capsys, "major")
    assert code == 0
    assert out.startswith(f"1.4.2 -> 2.0.0 in a project at {root} with a Build.version")
    assert changed(before, files(root)) == {"Build/Build.version", "Build/BuildVersion.h"}
    assert b"#define PROJECT_MAJOR_VERSION 2\n" in (root / "Build" / "BuildVersion.h").read_bytes()


def test_file_names_the_build_version_wherever_the_command_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = make_plugin(tmp_path / "UXTools", (UXTOOLS / "release-0.12.0" / "after.uplugin").read_bytes())
    (plugin / "Build").mkdir()
    (plugin / "Build" / "Build.version").write_text(GAME_VERSION)
    monkeypatch.chdir(plugin)
    code, out, _ = run(capsys, "patch", "--file", "Build/Build.version", "--skip-header")
    assert code == 0
    assert out.startswith("1.4.2 -> 1.4.3\n")
    assert json.loads((plugin / "Build" / "Build.version").read_text())["PatchVersion"] == 3
    assert (plugin / "UXTools.uplugin").read_bytes() == (UXTOOLS / "release-0.12.0" / "after.uplugin").read_bytes()


# -- engine trees ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_an_engine_release_raises_build_version_and_version_h_s_numbers_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = make_engine(tmp_path / "UE", name)
    monkeypatch.chdir(root)
    before = files(root)
    old = json.loads(before["Engine/Build/Build.version"])
    target = next_release((old["MajorVersion"], old["MinorVersion"], old["PatchVersion"]), "minor")
    code, out, err = run(capsys, "minor")
    assert (code, err) == (0, "")
    after = files(root)
    assert changed(before, after) == {"Engine/Build/Build.version", VERSION_H}
    new = json.loads(after["Engine/Build/Build.version"])
    assert new == {**old, "MinorVersion": target[1], "PatchVersion": 0}
    text = after[VERSION_H].decode()
    assert version_h_numbers(text) == target
    # Only the lines that carry the numbers changed (4.18's Version.h of an unstamped engine is not patched).
    lines = zip(before[VERSION_H].decode().splitlines(), text.splitlines(), strict=True)
    differing = [new_line for old_line, new_line in lines if old_line != new_line]
    assert all("ENGINE_MINOR_VERSION" in line or "ENGINE_PATCH_VERSION" in line for line in differing)
    if name == "5.3":  # the static_assert that repeats them
        assert "ENGINE_MAJOR_VERSION == 5 && ENGINE_MINOR_VERSION == 4 && ENGINE_PATCH_VERSION == 0" in text
    assert f"{root / VERSION_H}: ENGINE_MAJOR/MINOR/PATCH_VERSION" in out


def test_a_5_3_version_h_still_compiles_after_the_bump(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler on this machine")
    root = make_engine(tmp_path / "UE", "5.3")
    monkeypatch.chdir(root)
    assert run(capsys, "patch")[0] == 0
    source = tmp_path / "Check.cpp"
    source.write_text(
        f'#include "{root / VERSION_H}"\n'
        "static_assert(ENGINE_MAJOR_VERSION == 5 && ENGINE_MINOR_VERSION == 3 && ENGINE_PATCH_VERSION == 1);\n"
    )
    result = subprocess.run(
        [compiler, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", str(source)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_skip_header_leaves_an_engine_s_version_h_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_engine(tmp_path / "UE", "5.3")
    monkeypatch.chdir(root)
    before = files(root)
    assert run(capsys, "patch", "--skip-header")[0] == 0
    assert changed(before, files(root)) == {"Engine/Build/Build.version"}


def test_set_to_the_version_there_brings_version_h_in_line_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_engine(tmp_path / "UE", "5.3")
    (root / VERSION_H).write_bytes(version_h("5.3", (5, 2, 1)))  # a hand edit that missed Version.h
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, "--set", "5.3.0")
    assert code == 0
    assert out == (
        f"{root / 'Engine' / 'Build' / 'Build.version'}: already at 5.3.0; bringing the other values in line with it\n"
        f"{root / VERSION_H}: ENGINE_MAJOR/MINOR/PATCH_VERSION 5.2.1 -> 5.3.0\n"
        f"wrote {root / VERSION_H}\n"
    )
    assert (root / VERSION_H).read_bytes() == version_h("5.3", (5, 3, 0))
    assert run(capsys, "--set", "5.3.0")[1].endswith("already at 5.3.0; nothing to change\n")


def test_a_4_18_epic_hotfix_whose_compatible_changelist_is_its_own_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_engine(tmp_path / "UE", "4.18")
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "123", "--branch", "++UE4+Release-4.18", "--no-licensee"]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "patch")
    assert code == 0
    assert "ENGINE_COMPATIBLE_CL_VERSION must be manually defined for hotfix builds" in err
    assert version_h_numbers((root / VERSION_H).read_text()) == (4, 18, 4)


# -- a plugin's own repository ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("release", ["0.10.0", "0.11.0", "0.12.0"])
def test_a_plugin_minor_release_writes_what_its_maintainers_wrote_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], release: str
) -> None:
    folder = UXTOOLS / f"release-{release}"
    root = make_plugin(tmp_path / "UXTools", (folder / "before.uplugin").read_bytes())
    monkeypatch.chdir(root)
    code, out, err = run(capsys, "minor")
    assert (code, err) == (0, "")
    assert (root / "UXTools.uplugin").read_bytes() == (folder / "after.uplugin").read_bytes()
    before = json.loads((folder / "before.uplugin").read_text())
    assert out == (
        f"{before['VersionName']} -> {release} in a plugin's own repository, {root / 'UXTools.uplugin'}\n"
        f'{root / "UXTools.uplugin"}: VersionName "{before["VersionName"]}" -> "{release}"\n'
        f"{root / 'UXTools.uplugin'}: Version {before['Version']} -> {before['Version'] + 1}\n"
        f"wrote {root / 'UXTools.uplugin'}\n"
    )


def with_version_name(name: str | None, version: int | None = 5) -> bytes:
    """The real UXTools 0.12.0 descriptor with another VersionName and Version (None: the key removed)."""
    text = (UXTOOLS / "release-0.12.0" / "after.uplugin").read_text()
    text = text.replace('\t"VersionName": "0.12.0",\n', "" if name is None else f'\t"VersionName": "{name}",\n')
    return text.replace('\t"Version": 5,\n', "" if version is None else f'\t"Version": {version},\n').encode()


VERSION_NAMES = [
    # (VersionName, arguments, the new VersionName): as many numbers as it had, and every one that is not 0.
    ("0.12.0", ["patch"], "0.12.1"),
    ("0.12.1", ["major"], "1.0.0"),
    ("1.0", ["patch"], "1.0.1"),
    ("1.0", ["minor"], "1.1"),
    ("1.0", ["major"], "2.0"),
    ("1", ["minor"], "1.1"),
    ("2", ["major"], "3"),
    ("beta", ["--set", "1.0.0"], "1.0.0"),  # nothing to order it by: --set replaces it
    ("", ["--set", "0.1.0"], "0.1.0"),
    ("0.12.0", ["--set", "0.11.0", "--allow-backwards"], "0.11.0"),
]


@pytest.mark.parametrize(("name", "arguments", "expected"), VERSION_NAMES)
def test_a_plugin_s_version_name_is_raised_and_its_version_grows_by_one(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    arguments: list[str],
    expected: str,
) -> None:
    root = make_plugin(tmp_path / "UXTools", with_version_name(name))
    monkeypatch.chdir(root)
    assert run(capsys, *arguments)[0] == 0
    assert (root / "UXTools.uplugin").read_bytes() == with_version_name(expected, 6)


REFUSED_NAMES = [
    # (VersionName, arguments, exit code, the error after the file's path)
    ("v1.2", ["minor"], 1, "VersionName 'v1.2' is not 1 to 3 whole numbers (MAJOR.MINOR.PATCH), so buildver cannot "
     "raise its minor; give the new one with --set MAJOR.MINOR.PATCH"),
    ("1.2.3.4", ["patch"], 1, "VersionName '1.2.3.4' is not 1 to 3 whole numbers (MAJOR.MINOR.PATCH), so buildver "
     "cannot raise its patch; give the new one with --set MAJOR.MINOR.PATCH"),
    ("0.12.0", ["--set", "0.11.9"], 1, "0.11.9 is older than 0.12.0, the version there, and a version never goes "
     "backwards; to write it all the same, pass --allow-backwards"),
    ("0.12.0", ["minor", "--reset-changelist"], 2, "a plugin's .uplugin has no changelist to reset (drop "
     "--reset-changelist)"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "arguments", "code", "message"), REFUSED_NAMES)
def test_a_plugin_bump_buildver_cannot_make_is_one_error_and_nothing_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    arguments: list[str],
    code: int,
    message: str,
) -> None:
    root = make_plugin(tmp_path / "UXTools", with_version_name(name))
    monkeypatch.chdir(root)
    assert run(capsys, *arguments) == (code, "", f"buildver: error: {root / 'UXTools.uplugin'}: {message}\n")
    assert (root / "UXTools.uplugin").read_bytes() == with_version_name(name)


@pytest.mark.parametrize(("name", "release"), [("0.12.0", "0.12.0"), ("1.1", "1.1.0")])
def test_set_to_a_plugin_s_version_there_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, release: str
) -> None:
    root = make_plugin(tmp_path / "UXTools", with_version_name(name))
    monkeypatch.chdir(root)
    assert run(capsys, "--set", release) == (
        0,
        f"{root / 'UXTools.uplugin'}: already at {name}; nothing to change\n",
        "",
    )
    assert (root / "UXTools.uplugin").read_bytes() == with_version_name(name)


def test_a_plugin_without_version_keys_gets_them_after_its_last_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_plugin(tmp_path / "Tiny", b'{\n\t"FileVersion": 3,\n\t"FriendlyName": "Tiny"\n}\n', "Tiny")
    monkeypatch.chdir(root)
    assert run(capsys, "--set", "1.0.0")[0] == 0
    assert (root / "Tiny.uplugin").read_bytes() == (
        b'{\n\t"FileVersion": 3,\n\t"FriendlyName": "Tiny",\n\t"Version": 1,\n\t"VersionName": "1.0.0"\n}\n'
    )


def test_a_plugin_keeps_its_byte_order_mark_and_crlf_newlines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = UXTOOLS / "release-0.12.0"

    def windows(data: bytes) -> bytes:
        return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")

    root = make_plugin(tmp_path / "UXTools", windows((folder / "before.uplugin").read_bytes()))
    monkeypatch.chdir(root)
    assert run(capsys, "minor")[0] == 0
    assert (root / "UXTools.uplugin").read_bytes() == windows((folder / "after.uplugin").read_bytes())


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ('"5"', "Version must be a whole number, not '5'"),
        ("5.5", "Version must be a whole number, not 5.5"),
        ("2147483647", "Version 2147483647 is the largest Unreal's int32 holds: it cannot grow"),
    ],
)
def test_a_plugin_version_that_cannot_grow_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], version: str, message: str
) -> None:
    data = with_version_name("0.12.0").replace(b'"Version": 5,', f'"Version": {version},'.encode())
    root = make_plugin(tmp_path / "UXTools", data)
    monkeypatch.chdir(root)
    assert run(capsys, "patch") == (1, "", f"buildver: error: {root / 'UXTools.uplugin'}: {message}\n")
    assert (root / "UXTools.uplugin").read_bytes() == data


# -- what is refused, and every file left as it was --------------------------------------------------------------


ONE_OF = "give either the part to raise (major, minor or patch) or --set MAJOR.MINOR.PATCH"
NOT_A_RELEASE = "is not MAJOR.MINOR.PATCH, three whole numbers from 0 to 65535"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], ONE_OF),
        (["minor", "--set", "1.5.0"], ONE_OF),
        (["--set", "1.5"], f"Invalid value for '--set': '1.5' {NOT_A_RELEASE}"),
        (["--set", "1.5.65536"], f"Invalid value for '--set': '1.5.65536' {NOT_A_RELEASE}"),
        (["--set", "\u0661.5.0"], f"Invalid value for '--set': '\u0661.5.0' {NOT_A_RELEASE}"),  # an Arabic-Indic 1
        (["huge"], "Invalid value for '[major|minor|patch]': 'huge' is not one of 'major', 'minor', 'patch'."),
    ],
)
def test_bad_usage_is_exit_2_and_nothing_is_written(
    game: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    before = files(game)
    assert run(capsys, *arguments) == (2, "", f"buildver: error: {message}\n")
    assert files(game) == before


def test_a_release_past_unreal_s_uint16_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_game(tmp_path / "TankFire", version=GAME_VERSION.replace('"MajorVersion": 1', '"MajorVersion": 65535'))
    monkeypatch.chdir(root)
    before = files(root)
    code, _, err = run(capsys, "major")
    assert code == 1
    assert err.startswith(f"buildver: error: {root / 'Build' / 'Build.version'}: cannot hold 65536.0.0: ")
    assert files(root) == before


def test_a_read_only_file_is_exit_3_with_every_file_as_it_was_unless_forced(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ini = game / "Config" / "DefaultGame.ini"
    ini.chmod(stat.S_IRUSR)
    before = files(game)
    code, _, err = run(capsys, "minor")
    assert (code, err) == (3, f"buildver: error: {ini}: the file is read-only; pass --force to make it writable\n")
    assert files(game) == before
    assert run(capsys, "minor", "--force")[0] == 0
    assert b"ProjectVersion=1.5.0.0" in ini.read_bytes()


def test_a_game_value_that_would_go_backwards_refuses_the_whole_bump(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ProjectVersion is ahead of the Build.version (set by hand): the bump would lower it.
    root = make_game(tmp_path / "TankFire")
    ini = root / "Config" / "DefaultGame.ini"
    ini.write_bytes(ini.read_bytes().replace(b"ProjectVersion=1.0.3.0", b"ProjectVersion=3.0.0.0"))
    monkeypatch.chdir(root)
    before = files(root)
    code, _, err = run(capsys, "minor")
    assert code == 1
    assert "ProjectVersion would go backwards, 3.0.0.0 -> 1.5.0.0 (project-version" in err
    assert files(root) == before


BUILDERS: dict[str, Callable[[Path], Path]] = {
    "game": make_game,
    "engine": lambda root: make_engine(root, "5.3"),
    "plugin": lambda root: make_plugin(root, (UXTOOLS / "release-0.12.0" / "before.uplugin").read_bytes()),
}


@pytest.mark.parametrize("place", sorted(BUILDERS))
def test_a_dry_run_writes_nothing_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], place: str
) -> None:
    root = BUILDERS[place](tmp_path / "tree")
    monkeypatch.chdir(root)
    before = files(root)
    code, out, _ = run(capsys, "minor", "--dry-run")
    assert code == 0
    assert "(dry run: nothing written)\n--- a/" in out
    assert files(root) == before


# -- the guard accepts what bump writes --------------------------------------------------------------------------

GUARDED: dict[str, Callable[[Path], Path]] = {
    **BUILDERS,
    "engine-4.18": lambda root: make_engine(root, "4.18"),
    "engine-4.22": lambda root: make_engine(root, "4.22"),
    "game-stamped": lambda root: make_game(
        root, version=GAME_VERSION.replace('"Changelist": 0', '"Changelist": 77').replace('""', '"++Tank+Main"')
    ),
}


GUARDED_RUNS = [
    (place, arguments)
    for place in sorted(GUARDED)
    for arguments in (["major"], ["minor"], ["patch"], ["minor", "--reset-changelist"])
    if place != "plugin" or "--reset-changelist" not in arguments  # a plugin has no changelist
]


@pytest.mark.parametrize(("place", "arguments"), GUARDED_RUNS)
def test_what_bump_writes_passes_the_guard_once_staged(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    place: str,
    arguments: list[str],
) -> None:
    root = GUARDED[place](tmp_path / "tree")
    monkeypatch.chdir(root)
    assert run(capsys, *arguments)[0] == 0
    git(root, "add", "-A")
    assert main(["guard"]) == 0
    out = capsys.readouterr().out
    assert "error[" not in out
    assert "no problems" in out or "0 errors" in out


def test_a_release_edited_by_hand_in_one_file_is_refused_by_the_guard_and_bump_set_mends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_engine(tmp_path / "UE", "5.3")
    monkeypatch.chdir(root)
    version = root / "Engine" / "Build" / "Build.version"
    version.write_text(version.read_text().replace('"PatchVersion": 0', '"PatchVersion": 1'))
    git(root, "add", "-A")
    assert main(["guard"]) == 1
    assert (
        f"{VERSION_H}: error[engine-numbers]: ENGINE_MAJOR/MINOR/PATCH_VERSION say 5.3.0, Engine/Build/Build.version "
        "says 5.3.1: the engine would report 5.3.0 while UnrealBuildTool builds 5.3.1; bring them in line with: "
        "buildver bump --set MAJOR.MINOR.PATCH\n"
    ) in capsys.readouterr().out
    assert run(capsys, "--set", "5.3.1")[0] == 0
    git(root, "add", "-A")
    assert main(["guard"]) == 0


def test_file_names_a_plugin_inside_a_game_which_stands_in_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # UXTools' own repository keeps the plugin in its test game, as Plugins/UXTools/UXTools.uplugin.
    root = make_game(tmp_path / "TankFire")
    folder = UXTOOLS / "release-0.12.0"
    plugin = root / "Plugins" / "UXTools" / "UXTools.uplugin"
    plugin.parent.mkdir(parents=True)
    plugin.write_bytes((folder / "before.uplugin").read_bytes())
    monkeypatch.chdir(plugin.parent)
    capsys.readouterr()
    before = files(root)
    code, out, _ = run(capsys, "minor", "--dry-run")
    assert code == 0
    assert out.startswith(f"1.4.2 -> 1.5.0 in a game project, {root / 'TankFire.uproject'} (dry run")  # the game's
    code, out, _ = run(capsys, "minor", "--file", "UXTools.uplugin")
    assert code == 0
    assert out.startswith("0.11.0 -> 0.12.0\n")
    assert changed(before, files(root)) == {"Plugins/UXTools/UXTools.uplugin"}
    assert plugin.read_bytes() == (folder / "after.uplugin").read_bytes()
    assert run(capsys, "minor", "--file", "Missing/X.uplugin") == (
        1,
        "",
        f"buildver: error: {plugin.parent / 'Missing' / 'X.uplugin'}: no such file\n",
    )


@pytest.mark.parametrize(
    ("version_h", "message"),
    [
        (b"#pragma once\n#define ENGINE_MAJOR_VERSION 5\n", "unable to find line '#define ENGINE_MINOR_VERSION'"),
        (b"#define ENGINE_MAJOR_VERSION \\\n5\n", "line 1: '#define ENGINE_MAJOR_VERSION' continues on the next line"),
        (b"\xff\xfe#define", "byte 0: the header is not UTF-8"),
    ],
)
def test_a_version_h_buildver_cannot_edit_is_one_error_that_says_how_to_leave_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], version_h: bytes, message: str
) -> None:
    root = make_engine(tmp_path / "UE", "5.3")
    (root / VERSION_H).write_bytes(version_h)
    monkeypatch.chdir(root)
    before = files(root)
    code, out, err = run(capsys, "minor")
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {root / VERSION_H}: {message}"
        + ("" if "line 1" not in message else " (it ends with a backslash), which buildver cannot patch safely")
        + "; to leave the header alone, pass --skip-header or set skip-header = true in [tool.buildver]\n"
    )
    assert files(root) == before
    assert run(capsys, "minor", "--skip-header")[0] == 0
