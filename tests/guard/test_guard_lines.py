"""Each finding names the line of the file it is about, when its check knows one: what ``--format github`` annotates
and SARIF's region holds. The expected line is counted here, from the staged text, never taken from buildver."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from buildver.guard.checks import check_game_config, check_header, check_manifests, check_plugin, check_version
from buildver.guard.settings import Finding
from buildver.stamp.header import render_header
from buildver.versions.build_version import BuildVersion, parse_build_version, render_new_file

DATA = Path(__file__).resolve().parents[1] / "data"
ENGINE_INI = (DATA / "ini" / "tankfire" / "Config" / "DefaultEngine.ini").read_text(encoding="utf-8")
BASE = BuildVersion(5, 3, 2, 1000, 900, branch_name="++Game+Main")
HEAD = render_new_file(BASE)
GAME_INI = "[/Script/EngineSettings.GeneralProjectSettings]\nProjectName=Shooter\nProjectVersion=1.2.0\n"


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the first line of ``text`` holding ``needle``."""
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def version(staged: str, head: str | None = HEAD) -> list[Finding]:
    return check_version("Build/Build.version", staged.encode(), None if head is None else head.encode())[1]


def game_ini(staged: str) -> list[Finding]:
    return check_game_config("Config/DefaultGame.ini", staged.encode(), GAME_INI.encode())


def engine_ini(staged: str) -> list[Finding]:
    return check_game_config("Config/DefaultEngine.ini", staged.encode(), ENGINE_INI.encode(), engine_release=(5, 3))


def header(staged: str) -> list[Finding]:
    version_file = parse_build_version(HEAD.encode(), Path("Build/Build.version"))
    return check_header("Build/BuildVersion.h", staged.encode(), version_file, configured=True)


def plugin(staged: str) -> list[Finding]:
    return check_plugin("Plugins/Rock/Rock.uplugin", staged.encode(), BASE)


def manifest(staged: str) -> list[Finding]:
    return check_manifests({"Binaries/Win64/Game.modules": staged.encode()}, ["Binaries/Win64/Game.modules"])


STALE_HEADER = render_header(BASE.replace(changelist=1001), source="Build.version")

# (the check, how it runs, the staged text, the text of the line it must name)
LINES: list[tuple[str, Callable[[str], list[Finding]], str, str]] = [
    ("version-backwards", version, render_new_file(BASE.replace(changelist=999)), '"Changelist"'),
    ("version-backwards", version, render_new_file(BASE.replace(minor_version=2)), '"MinorVersion"'),
    ("version-backwards", version, render_new_file(BASE.replace(major_version=4)), '"MajorVersion"'),
    ("compatible-above-changelist", version, render_new_file(BASE.replace(compatible_changelist=2000)), "Compatible"),
    (
        "promoted-without-changelist",
        version,
        render_new_file(BASE.replace(changelist=0, is_promoted_build=True)),
        "IsPromoted",
    ),
    ("forced-build-id", version, render_new_file(BASE.replace(build_id="forced")), '"BuildId"'),
    ("version-invalid", version, HEAD.replace('"PatchVersion": 2', '"PatchVersion": -2'), '"PatchVersion"'),
    ("version-invalid", version, HEAD.replace('"PatchVersion": 2,', '"PatchVersion": 2 "x",'), '"PatchVersion"'),
    ("version-invalid", version, HEAD.replace('"BranchName"', '"Changelist": 5,\n\t"BranchName"'), '"Changelist": 5'),
    ("header", header, STALE_HEADER, "1001"),
    ("project-version-backwards", game_ini, GAME_INI.replace("1.2.0", "1.1.9"), "ProjectVersion"),
    ("project-version-backwards", game_ini, "\n\n" + GAME_INI.replace("1.2.0", "1.1"), "ProjectVersion"),
    ("project-version-invalid", game_ini, GAME_INI.replace("1.2.0", "one"), "ProjectVersion"),
    ("game-config-invalid", game_ini, GAME_INI.replace("ProjectName", "Project\0Name"), "Project\0Name"),
    (
        "android-version-code-backwards",
        engine_ini,
        ENGINE_INI.replace("StoreVersion=3", "StoreVersion=2"),
        "StoreVersion=2",
    ),
    (
        "android-version-code-too-large",
        engine_ini,
        ENGINE_INI.replace("StoreVersion=3", "StoreVersion=2100000001"),
        "StoreVersion=",
    ),
    ("plugin-invalid", plugin, '{\n\t"FileVersion": 3,\n\t"Version": x\n}', '"Version"'),
    ("modules-build-id", manifest, '{\n\t"BuildId": "1",\n\t"Modules": {,}\n}', '"Modules"'),
]


@pytest.mark.parametrize(
    ("check", "run", "staged", "needle"), LINES, ids=[f"{row[0]}-{i}" for i, row in enumerate(LINES)]
)
def test_a_finding_names_the_line_it_is_about(
    check: str, run: Callable[[str], list[Finding]], staged: str, needle: str
) -> None:
    found = [finding for finding in run(staged) if finding.check == check]
    assert [finding.line for finding in found] == [line_of(staged, needle)], [str(finding) for finding in found]


def test_a_package_has_no_line() -> None:
    from buildver.guard.checks import check_package

    [finding] = check_package("Content/Rock.uasset", b"not a package", BASE.engine_version)
    assert (finding.check, finding.line) == ("package-unreadable", None)


def test_a_header_missing_lines_at_the_end_names_its_last_line() -> None:
    current = render_header(BASE, source="Build.version")
    cut = "".join(current.splitlines(keepends=True)[:-2])
    [finding] = header(cut)
    assert finding.line == len(cut.splitlines())


def test_the_text_output_is_unchanged_by_lines() -> None:
    [finding] = version(render_new_file(BASE.replace(changelist=999)))
    assert str(finding) == (
        "Build/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD, 999 staged "
        "(the same 5.3.2 release and vendor)"
    )
    assert finding.to_json() == {
        "path": "Build/Build.version",
        "line": 5,
        "severity": "error",
        "check": "version-backwards",
        "message": finding.message,
    }
