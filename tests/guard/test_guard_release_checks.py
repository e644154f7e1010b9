"""The guard's checks of a release: a plugin's Version against HEAD's, and an engine's Version.h numbers against its
Build.version (what ``buildver bump`` keeps in step). The plugin cases are the UXTools plugin's real release commits
(tests/data/plugins/uxtools, MIT)."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from buildver.guard.checks import check_engine_numbers, check_plugin_version
from buildver.guard.settings import GuardSettings
from buildver.versions.build_version import parse_build_version

DATA = Path(__file__).parents[1] / "data"
UXTOOLS = DATA / "plugins" / "uxtools"
PATH = "Plugins/UXTools/UXTools.uplugin"


def release(name: str, side: str) -> bytes:
    return (UXTOOLS / f"release-{name}" / f"{side}.uplugin").read_bytes()


PLUGIN_CASES = [
    # (HEAD's, the staged, the findings' checks)
    (release("0.12.0", "before"), release("0.12.0", "after"), []),  # 0.11.0 -> 0.12.0, Version 4 -> 5
    (release("0.12.0", "after"), release("0.12.0", "after"), []),  # nothing changed
    # The real 0.12.1 commit: VersionName 0.12.0 -> 0.12.1 while Version stays 5.
    (release("0.12.1", "before"), release("0.12.1", "after"), ["plugin-version-not-raised"]),
    (release("0.12.0", "after"), release("0.12.0", "before"), ["plugin-version-backwards"]),  # a revert: 5 -> 4
    (None, release("0.12.0", "after"), []),  # a new plugin: nothing to compare with
    (b"not json", release("0.12.0", "after"), []),  # HEAD's problems were HEAD's commit's to report
    (release("0.12.0", "after"), b'{"FileVersion": 3, "Version": "6"}', []),  # left to plugin-invalid
    # A descriptor without Version reads as 0, FPluginDescriptor's default.
    (release("0.12.0", "after"), b'{"FileVersion": 3, "VersionName": "0.12.0"}', ["plugin-version-backwards"]),
]


@pytest.mark.parametrize(("head", "staged", "checks"), PLUGIN_CASES)
def test_a_plugin_s_version_never_decreases_and_grows_with_a_new_version_name(
    head: bytes | None, staged: bytes, checks: list[str]
) -> None:
    assert [finding.check for finding in check_plugin_version(PATH, staged, head)] == checks


def test_the_plugin_findings_name_both_versions() -> None:
    (backwards,) = check_plugin_version(PATH, release("0.12.0", "before"), release("0.12.0", "after"))
    assert str(backwards.severity) == "error"
    assert (
        backwards.message
        == "Version goes backwards: 5 in HEAD, 4 staged (it must grow with every version of the plugin)"
    )
    (unraised,) = check_plugin_version(PATH, release("0.12.1", "after"), release("0.12.1", "before"))
    assert str(unraised.severity) == "warning"
    assert unraised.message == (
        "VersionName changes ('0.12.0' in HEAD, '0.12.1' staged) but Version stays 5: a new version of the plugin "
        "needs a higher one (buildver bump raises both)"
    )


def test_the_plugin_checks_follow_their_settings() -> None:
    settings = GuardSettings.from_table({"plugin-version-backwards": "warning", "plugin-version-not-raised": "off"})
    (found,) = check_plugin_version(PATH, release("0.12.0", "before"), release("0.12.0", "after"), settings)
    assert str(found.severity) == "warning"
    assert check_plugin_version(PATH, release("0.12.1", "after"), release("0.12.1", "before"), settings) == []


def version_h(shape: str, major: int, minor: int, patch: int) -> bytes:
    template = string.Template((DATA / "engine" / f"Version-{shape}.h.template").read_text())
    return template.substitute(major=major, minor=minor, patch=patch).encode()


BUILD_VERSION = parse_build_version(
    (DATA / "build_version" / "ue5.0.3.version").read_bytes(), Path("Engine/Build/Build.version")
)
VERSION_H = "Engine/Source/Runtime/Launch/Resources/Version.h"

NUMBER_CASES = [
    (version_h("4.22", 5, 0, 3), []),
    (version_h("5.3", 5, 0, 3), []),
    (version_h("4.22", 5, 0, 2), ["engine-numbers"]),
    (version_h("5.3", 5, 1, 0), ["engine-numbers"]),
    ((DATA / "header" / "Version-4.18.h").read_bytes(), ["engine-numbers"]),  # 4.18.3 against 5.0.3
    (None, []),  # not in the index
    (b"#pragma once\n", []),  # no numbers to read: not judged
    (b"\xff\xfe", []),  # not UTF-8: not judged
]


@pytest.mark.parametrize(("staged", "checks"), NUMBER_CASES)
def test_an_engine_s_version_h_numbers_are_its_build_version_s(staged: bytes | None, checks: list[str]) -> None:
    assert [finding.check for finding in check_engine_numbers(VERSION_H, staged, BUILD_VERSION)] == checks
