"""A plugin's own version: its ``.uplugin``'s Version and VersionName read as Unreal reads them, set in place with every
other byte kept, and shown by ``buildver show`` in the plugin's own repository (the UXTools plugin's real
descriptors, tests/data/plugins/uxtools, MIT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import git

from buildver.cli import main
from buildver.errors import DescriptorError
from buildver.projects.descriptor_edit import with_members
from buildver.projects.plugin_version import parse_plugin_version, read_plugin_version, with_plugin_version

DATA = Path(__file__).parents[1] / "data"
UXTOOLS = DATA / "plugins" / "uxtools"
PLUGIN = Path("UXTools.uplugin")

READINGS = [
    # (descriptor, Version, VersionName): Unreal 5's reading (of repeated keys, the first; keys in any case)
    ((UXTOOLS / "release-0.12.1" / "after.uplugin").read_bytes(), 5, "0.12.1"),
    (b'{"FileVersion": 3}', 0, ""),  # FPluginDescriptor's defaults
    (b'{"FileVersion": 3, "Version": null, "VersionName": null}', 0, ""),  # null counts as absent
    (b'{"FileVersion": 3, "version": 7, "versionname": "2.0"}', 7, "2.0"),
    (b'{"FileVersion": 3, "Version": 7, "version": 8}', 7, ""),
    (b'{"FileVersion": 3, "Version": -2147483648}', -(2**31), ""),
    (b'\xef\xbb\xbf{"FileVersion": 3, "Version": 2,}', 2, ""),  # a byte-order mark and a trailing comma
    ('{"FileVersion": 3, "Version": 3}'.encode("utf-16"), 3, ""),
]


@pytest.mark.parametrize(("data", "version", "name"), READINGS)
def test_a_plugin_s_version_is_read_as_unreal_reads_it(data: bytes, version: int, name: str) -> None:
    found = parse_plugin_version(data, PLUGIN)
    assert (found.version, found.version_name) == (version, name)


REFUSED = [
    (b'{"FileVersion": 3, "Version": "5"}', "Version must be a whole number, not '5'"),
    (b'{"FileVersion": 3, "Version": true}', "Version must be a whole number, not true"),
    (b'{"FileVersion": 3, "Version": 2147483648}', "Version 2147483648 does not fit Unreal's int32"),
    (b'{"FileVersion": 3, "VersionName": 2}', "VersionName must be a string, not 2"),
    (b'{"Version": 2}', "no FileVersion"),
    (b"[]", "expected a JSON object, not an array"),
]


@pytest.mark.parametrize(("data", "message"), REFUSED)
def test_a_version_buildver_cannot_compare_is_a_descriptor_error_naming_the_file(data: bytes, message: str) -> None:
    with pytest.raises(DescriptorError, match=r"^UXTools\.uplugin: ") as raised:
        parse_plugin_version(data, PLUGIN)
    assert message in str(raised.value)


BOTH = {"Version": "1", "VersionName": '"1.0"'}
EDITS = [
    # (before, values, after): existing keys in place (every occurrence, any case), missing ones after the last member
    (b'{\n\t"FileVersion": 3\n}', {"Version": "1"}, b'{\n\t"FileVersion": 3,\n\t"Version": 1\n}'),
    (b'{"FileVersion": 3}', BOTH, b'{"FileVersion": 3, "Version": 1, "VersionName": "1.0"}'),
    (b"{}", BOTH, b'{\n\t"Version": 1,\n\t"VersionName": "1.0"\n}'),
    (b'{"version": 1, "Version": 1}', {"Version": "2"}, b'{"version": 2, "Version": 2}'),
    (b'{\r\n  "A": 3,\r\n  "B": []\r\n}', {"Version": "1"}, b'{\r\n  "A": 3,\r\n  "B": [],\r\n  "Version": 1\r\n}'),
    (b'{\n\t"Modules": [],\n}', {"Version": "1"}, b'{\n\t"Modules": [],\n\t"Version": 1,\n}'),  # a trailing comma stays
]


@pytest.mark.parametrize(("before", "values", "after"), EDITS)
def test_members_are_set_in_place_and_missing_ones_added_after_the_last(
    before: bytes, values: dict[str, str], after: bytes
) -> None:
    assert with_members(before, values, "X.uplugin", "Version") == after


def test_a_utf16_descriptor_stays_utf16_with_its_mark() -> None:
    before = '{\r\n\t"FileVersion": 3,\r\n\t"Version": 4,\r\n\t"VersionName": "0.11.0"\r\n}'
    new = with_plugin_version(before.encode("utf-16-le").join([b"\xff\xfe", b""]), 5, "0.12.0", PLUGIN)
    expected = before.replace('"Version": 4', '"Version": 5').replace("0.11.0", "0.12.0")
    assert new == b"\xff\xfe" + expected.encode("utf-16-le")


def test_a_file_that_is_no_descriptor_is_refused_in_unreal_s_words() -> None:
    with pytest.raises(DescriptorError, match=r"^X\.uplugin: line 1, column 2: "):
        with_members(b"{,}", {"Version": "1"}, "X.uplugin", "Version")


# -- show in a plugin's own repository ------------------------------------------------------------------------------


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "UXTools"
    root.mkdir()
    shutil.copyfile(UXTOOLS / "release-0.12.1" / "after.uplugin", root / "UXTools.uplugin")
    git(root, "init", "--quiet")
    monkeypatch.chdir(root)
    return root


SHOWN = [
    (
        [],
        "UXTools.uplugin: the plugin's own version\n  Version                  5\n  VersionName              0.12.1\n",
    ),
    (["--field", "versionname"], "0.12.1\n"),
    (["--field", "Version", "--field", "VersionName"], "5\n0.12.1\n"),
    (["--format", "env"], "Version=5\nVersionName=0.12.1\n"),
]


@pytest.mark.parametrize(("arguments", "expected"), SHOWN)
def test_show_in_a_plugin_s_repository_shows_its_version_and_version_name(
    plugin: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], expected: str
) -> None:
    assert main(["show", *arguments]) == 0
    assert capsys.readouterr() == (expected, "")


def test_show_json_in_a_plugin_s_repository_names_the_plugin(plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == {
        "schema_version": 1,
        "Version": 5,
        "VersionName": "0.12.1",
        "Plugin": str(plugin / "UXTools.uplugin"),
    }


def test_show_asked_for_a_build_version_field_in_a_plugin_s_repository_says_there_is_none(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "--field", "MajorVersion"]) == 1
    assert capsys.readouterr().err == (
        f"buildver: error: {plugin / 'UXTools.uplugin'}: no MajorVersion here (the repository keeps no Build.version; "
        "the plugin's own: Version, VersionName)\n"
    )


def test_show_in_a_plugin_s_repository_with_a_build_version_shows_both(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (plugin / "Build").mkdir()
    shutil.copyfile(DATA / "build_version" / "ue5.0.3.version", plugin / "Build" / "Build.version")
    assert main(["show"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{plugin / 'Build' / 'Build.version'}\n  MajorVersion             5\n")
    assert out.endswith(
        "UXTools.uplugin: the plugin's own version\n  Version                  5\n  VersionName              0.12.1\n"
    )
    assert main(["show", "--field", "MajorVersion", "--field", "VersionName"]) == 0
    assert capsys.readouterr().out == "5\n0.12.1\n"


def test_a_plugin_file_that_cannot_be_read_is_a_descriptor_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "Gone.uplugin"
    with pytest.raises(DescriptorError, match=r"Gone\.uplugin: no such file"):
        read_plugin_version(missing)
    folder = tmp_path / "Folder.uplugin"
    folder.mkdir()  # a folder where the file should be: not a regular file, never read
    with pytest.raises(DescriptorError, match=r"Folder\.uplugin"):
        read_plugin_version(folder)
