"""``buildver init`` in a project without a Build.version: ``--version M.m.p`` creates one in Unreal's writer layout,
with the configuration, both or neither. Through the installed console script, in real git repositories."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import GitRepository

from buildver.versions.build_version import BuildVersion, render_new_file

BUILDVER = str(Path(sys.executable).parent / "buildver")


def buildver(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUILDVER, *argv], cwd=root, capture_output=True, text=True, check=False)


def files(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``, outside ``.git``."""
    found: dict[str, bytes | None] = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if relative.parts[0] != ".git":
            found[relative.as_posix()] = path.read_bytes() if path.is_file() else None
    return found


def test_init_creates_build_version_in_unreals_layout_and_the_configuration(git_repository: GitRepository) -> None:
    root = git_repository(commits=0)
    result = buildver(root, "init", "--version", "5.3.0")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "created Build/Build.version for 5.3.0 in Unreal's writer layout\n"
        f"wrote the [tool.buildver] section to {root / 'buildver.toml'}\n"
    )
    assert (root / "Build" / "Build.version").read_bytes() == render_new_file(BuildVersion(5, 3, 0)).encode()
    config = tomllib.loads((root / "buildver.toml").read_text())
    assert config["tool"]["buildver"]["version-file"] == "Build/Build.version"
    shown = buildver(root, "show", "--field", "EngineVersion", "--field", "Changelist")
    assert (shown.returncode, shown.stdout) == (0, "5.3.0-0\n0\n")


def test_init_appends_to_an_existing_pyproject(git_repository: GitRepository) -> None:
    root = git_repository(commits=0)
    (root / "pyproject.toml").write_text('[project]\nname = "game-tools"\n')
    result = buildver(root, "init", "--version", "4.27.2", "--file", "Engine/Build/Build.version")
    assert result.returncode == 0, result.stderr
    assert (root / "Engine" / "Build" / "Build.version").read_bytes() == render_new_file(
        BuildVersion(4, 27, 2)
    ).encode()
    text = (root / "pyproject.toml").read_text()
    assert text.startswith('[project]\nname = "game-tools"\n\n[tool.buildver]\n')
    assert 'version-file = "Engine/Build/Build.version"' in text


@pytest.mark.parametrize(
    ("setup", "argv", "code", "message"),
    [
        (
            {},
            [],
            1,
            "Build/Build.version: no Build.version here (nor above, up to the repository root); "
            "create one with: buildver init --version MAJOR.MINOR.PATCH",
        ),
        ({}, ["--version", "5.3"], 2, "Invalid value for '--version': invalid engine version '5.3'"),
        ({}, ["--version", "5.3.0-7"], 2, "Invalid value for '--version': '5.3.0-7' is not MAJOR.MINOR.PATCH"),
        (
            {"Build/Build.version": render_new_file(BuildVersion(5, 3, 0, 7))},
            ["--version", "5.4.0"],
            2,
            "Build/Build.version: already exists; --version only creates a missing Build.version",
        ),
        (
            {"pyproject.toml": "[tool.buildver]\n"},
            ["--version", "5.4.0"],
            1,
            "pyproject.toml: [tool.buildver] is already there; edit it instead",
        ),
        (
            {"pyproject.toml": "[project\n"},
            ["--version", "5.4.0"],
            1,
            "pyproject.toml: ",
        ),
        ({"buildver.toml": "# settings to come\n"}, ["--version", "5.4.0"], 1, "buildver.toml: already exists"),
        ({"pyproject.toml": "[tool]\nbuildver = 5\n"}, ["--version", "5.4.0"], 1, "[tool.buildver] must be a table"),
        # A backslash is not a separator on Linux and macOS: the file would be named Build\Build.version.
        (
            {},
            ["--version", "5.4.0", "--file", "Build\\Build.version"],
            2,
            "Build\\Build.version: a backslash is not a path separator on this system: write the path with /",
        ),
        (
            {"Build/Build.version": render_new_file(BuildVersion(5, 3, 0, 7))},
            ["--file", "Build\\Build.version"],
            2,
            "Build\\Build.version: a backslash is not a path separator on this system; use Build/Build.version",
        ),
    ],
)
def test_a_refused_init_writes_nothing(
    git_repository: GitRepository, setup: dict[str, str], argv: list[str], code: int, message: str
) -> None:
    if "\\" in " ".join(argv) and os.sep == "\\":
        pytest.skip("a backslash is a separator on Windows")
    root = git_repository(commits=0)
    for name, content in setup.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    before = files(root)
    result = buildver(root, "init", *argv)
    assert (result.returncode, result.stdout) == (code, "")
    assert result.stderr.startswith("buildver: error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert files(root) == before


def test_init_in_a_project_with_a_build_version_writes_the_configuration_as_before(
    git_repository: GitRepository,
) -> None:
    root = git_repository(commits=0)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 0, 7)))
    result = buildver(root, "init")
    assert (result.returncode, result.stdout) == (0, f"wrote the [tool.buildver] section to {root / 'buildver.toml'}\n")
    assert (root / "Build" / "Build.version").read_text() == render_new_file(BuildVersion(5, 3, 0, 7))


# Every optional setting the README's Configuration section shows, as init writes it: commented out.
OPTIONAL_SETTINGS = [
    ('# header = "Source/MyGame/BuildVersion.h"  # default: Version.h or BuildVersion.h', "header"),
    ("# skip-header = true  # default: false; true leaves every header alone", "skip-header"),
    ('# repository-name = "MyGame"  # default: the origin remote\'s name, else the folder', "repository-name"),
    ('# rules = "5.3"  # default: the engine\'s own UAT rules on an engine tree, else "buildver"', "rules"),
]


def test_init_writes_every_setting_the_readme_shows_commented_out(git_repository: GitRepository) -> None:
    root = git_repository(commits=0)
    assert buildver(root, "init", "--version", "5.3.0").returncode == 0
    text = (root / "buildver.toml").read_text()
    commented = [line for line in text.splitlines() if line.startswith("# ") and " = " in line]
    assert commented == [line for line, _ in OPTIONAL_SETTINGS]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("```toml\n[tool.buildver]\n", 1)[1].split("```", 1)[0]
    shown = {line.split(" = ", 1)[0] for line in section.splitlines()} | {"skip-header"}  # "# or skip-header = true"
    assert {key for _, key in OPTIONAL_SETTINGS} | {"version-file"} == shown


@pytest.mark.parametrize(("line", "key"), OPTIONAL_SETTINGS[1:])
def test_each_commented_setting_works_once_uncommented(git_repository: GitRepository, line: str, key: str) -> None:
    root = git_repository(commits=0)
    assert buildver(root, "init", "--version", "5.3.0").returncode == 0
    config = root / "buildver.toml"
    config.write_text(config.read_text().replace(line, line.removeprefix("# ")))
    assert key in tomllib.loads(config.read_text())["tool"]["buildver"]
    result = buildver(root, "update-local", "--cl", "5", "--branch", "++Game+Main", "--dry-run")
    assert (result.returncode, result.stderr) == (0, "")


def test_init_with_build_version_beside_the_settings_takes_one_lock(git_repository: GitRepository) -> None:
    # The Build.version's folder is the settings' folder: one lock, held once (a second would wait for the first).
    root = git_repository(commits=0)
    result = buildver(root, "init", "--version", "5.4.0", "--file", "Build.version")
    assert result.returncode == 0, result.stderr
    assert (root / "Build.version").read_text() == render_new_file(BuildVersion(5, 4, 0))
    assert tomllib.loads((root / "buildver.toml").read_text())["tool"]["buildver"]["version-file"] == "Build.version"
