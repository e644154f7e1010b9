"""``compare`` and ``compatible``: exit codes, ``--json``, the rule that decided; errors that name their argument;
``assets scan`` listing each file once. Through the installed console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from package_builder import SyntheticPackage

from buildver.versions.comparison import RULES
from buildver.versions.engine_version import EngineVersion, VersionComparison

BUILDVER = str(Path(sys.executable).parent / "buildver")
LICENSEE_7 = str(0x80000000 + 7)


def buildver(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUILDVER, *argv], capture_output=True, text=True, check=False)


# (first, second, exit code, newer, component, rule, line)
COMPARISONS = [
    (
        "4.19.0-5",
        "4.19.0-7",
        12,
        "second",
        "changelist",
        "newer-changelist",
        "second: 4.19.0-7 is newer than 4.19.0-5 by changelist (newer-changelist)",
    ),
    (
        "5.0.0",
        "4.27.2",
        11,
        "first",
        "major",
        "newer-release",
        "first: 5.0.0-0 is newer than 4.27.2-0 by major (newer-release)",
    ),
    (
        "5.3.1-1",
        "5.3.2-1",
        12,
        "second",
        "patch",
        "newer-release",
        "second: 5.3.2-1 is newer than 5.3.1-1 by patch (newer-release)",
    ),
    (
        "4.19.0-0",
        "4.19.0-7",
        0,
        "neither",
        None,
        "changelist-0",
        "neither: 4.19.0-0 and 4.19.0-7 are not ordered by Unreal's rules (changelist-0: 4.19.0-0 has no changelist, "
        "and a changelist of 0 is never compared)",
    ),
    (
        "4.19.0-7",
        f"4.19.0-{LICENSEE_7}",
        0,
        "neither",
        None,
        "different-vendors",
        "neither: 4.19.0-7 and 4.19.0-7 (licensee) are not ordered by Unreal's rules (different-vendors: the second "
        "is a licensee's build, the other Epic's: their changelists are never compared)",
    ),
    (
        "4.27.2-100",
        "4.27.2-2147483748",
        0,
        "neither",
        None,
        "different-vendors",
        "neither: 4.27.2-100 and 4.27.2-100 (licensee) are not ordered by Unreal's rules (different-vendors: the "
        "second is a licensee's build, the other Epic's: their changelists are never compared)",
    ),
    (
        f"4.19.0-{LICENSEE_7}",
        "4.19.0-5",
        0,
        "neither",
        None,
        "different-vendors",
        "neither: 4.19.0-7 (licensee) and 4.19.0-5 are not ordered by Unreal's rules (different-vendors: "
        "the first is a licensee's build, the other Epic's: their changelists are never compared)",
    ),
    (
        f"4.19.0-{0x80000000 + 5}",
        f"4.19.0-{LICENSEE_7}",
        12,
        "second",
        "changelist",
        "newer-changelist",
        "second: 4.19.0-7 (licensee) is newer than 4.19.0-5 (licensee) by changelist (newer-changelist)",
    ),
    (
        "5.3.0",
        "5.3.0",
        0,
        "neither",
        None,
        "changelist-0",
        "neither: 5.3.0-0 and 5.3.0-0 are the same version (changelist-0: neither has a changelist, and a changelist "
        "of 0 is never compared)",
    ),
    (
        "5.3.0+++UE5+Main",
        "5.3.0+++UE5+Release-5.3",
        0,
        "neither",
        None,
        "changelist-0",
        "neither: 5.3.0-0+++UE5+Main and 5.3.0-0+++UE5+Release-5.3 are the same version (changelist-0: neither "
        "5.3.0-0+++UE5+Main nor 5.3.0-0+++UE5+Release-5.3 has a changelist, and a changelist of 0 is never compared)",
    ),
    (
        "5.3.0",
        f"5.3.0-{0x80000000}",
        0,
        "neither",
        None,
        "changelist-0",
        "neither: 5.3.0-0 and 5.3.0-0 (licensee) are not ordered by Unreal's rules (changelist-0: neither 5.3.0-0 "
        "nor 5.3.0-0 (licensee) has a changelist, and a changelist of 0 is never compared)",
    ),
    (
        "4.19.0-7+++UE4+Main",
        "4.19.0-7+++UE4+Release-4.19",
        0,
        "neither",
        None,
        "same-version",
        "neither: 4.19.0-7+++UE4+Main and 4.19.0-7+++UE4+Release-4.19 are the same version (same-version: the same "
        "major.minor.patch, vendor and changelist; the branch is not compared)",
    ),
]


@pytest.mark.parametrize(("first", "second", "code", "newer", "component", "rule", "line"), COMPARISONS)
def test_compare_exit_code_says_which_is_newer_and_the_line_names_the_rule(
    first: str, second: str, code: int, newer: str, component: str | None, rule: str, line: str
) -> None:
    result = buildver("compare", first, second)
    assert (result.returncode, result.stdout, result.stderr) == (code, line + "\n", "")


@pytest.mark.parametrize(("first", "second", "code", "newer", "component", "rule", "line"), COMPARISONS)
def test_compare_json_gives_the_same_answer_and_the_same_exit_code(
    first: str, second: str, code: int, newer: str, component: str | None, rule: str, line: str
) -> None:
    result = buildver("compare", "--json", first, second)
    assert (result.returncode, result.stderr) == (code, "")
    document = json.loads(result.stdout)
    assert document["first"] == str(EngineVersion.parse(first))
    assert document["second"] == str(EngineVersion.parse(second))
    # ToString leaves the licensee flag out: the document keeps it beside each version.
    licensee = (EngineVersion.parse(first).licensee, EngineVersion.parse(second).licensee)
    assert (document["first_licensee"], document["second_licensee"]) == licensee
    assert (document["newer"], document["component"], document["rule"]) == (newer, component, rule)
    if component is None:
        assert line.endswith(f"({rule}: {document['reason']})")
    else:
        assert document["reason"].endswith(f" is newer by {component}")
    # The library's own answer: the command only names the rule.
    verdict = EngineVersion.get_newest(EngineVersion.parse(first), EngineVersion.parse(second))[0]
    assert verdict is VersionComparison[newer.upper()]


# (first, second, compatible, rule)
COMPATIBILITIES = [
    ("4.19.0-7", "4.19.0-5", True, "newer-changelist"),
    ("4.19.0-5", "4.19.0-7", False, "newer-changelist"),
    ("4.19.0-0", "5.3.0-27405482", True, "changelist-0"),  # the Changelist-0 rule comes before the releases
    ("5.3.0-27405482", "4.19.0-0", True, "changelist-0"),
    ("4.27.2-5", "5.0.0-1", False, "newer-release"),
    ("4.19.0-7", f"4.19.0-{LICENSEE_7}", True, "different-vendors"),
    ("4.19.0-7", "4.19.0-7", True, "same-version"),
    (f"4.19.0-{LICENSEE_7}", "4.19.0-7", True, "different-vendors"),
    ("5.3.0", "5.3.0", True, "changelist-0"),
]


# (first, second, line): the text tells a licensee's version from Epic's, which ToString does not
COMPATIBLE_LINES = [
    (
        "4.27.2-100",
        "4.27.2-2147483748",
        "compatible: 4.27.2-100 passes the engine-version check on data saved by 4.27.2-100 (licensee) "
        "(different-vendors: the second is a licensee's build, the other Epic's: their changelists are never compared)",
    ),
    (
        "4.27.2-2147483748",
        "4.27.2-2147483848",
        "not compatible: 4.27.2-100 (licensee) cannot load data saved by 4.27.2-200 (licensee) (newer-changelist: "
        "4.27.2-200 (licensee) is newer by changelist)",
    ),
    (
        "5.3.0",
        "5.3.0",
        "compatible: 5.3.0-0 passes the engine-version check on data saved by 5.3.0-0 (changelist-0: neither has a "
        "changelist: compatible both ways)",
    ),
]


@pytest.mark.parametrize(("first", "second", "line"), COMPATIBLE_LINES)
def test_compatible_marks_a_licensees_version_in_its_line(first: str, second: str, line: str) -> None:
    result = buildver("compatible", first, second)
    assert (result.stdout, result.stderr) == (line + "\n", "")


@pytest.mark.parametrize(("first", "second", "compatible", "rule"), COMPATIBILITIES)
def test_compatible_names_the_rule_that_decided_in_text_and_json(
    first: str, second: str, compatible: bool, rule: str
) -> None:
    text = buildver("compatible", first, second)
    # Either answer is a result: on stdout, with nothing on stderr; the exit code tells them apart.
    assert (text.returncode, text.stderr) == (0 if compatible else 1, "")
    shown = text.stdout
    assert shown.startswith(("compatible: " if compatible else "not compatible: ") + str(EngineVersion.parse(first)))
    assert f" ({rule}: " in shown
    document = json.loads(buildver("compatible", "--json", first, second).stdout)
    assert (document["compatible"], document["rule"]) == (compatible, rule)
    licensee = (EngineVersion.parse(first).licensee, EngineVersion.parse(second).licensee)
    assert (document["first_licensee"], document["second_licensee"]) == licensee
    assert f"({rule}: {document['reason']})" in shown
    releases = [EngineVersion.parse(side) for side in (first, second)]
    assert document["releases_differ"] is (
        (releases[0].major, releases[0].minor) != (releases[1].major, releases[1].minor)
    )
    assert EngineVersion.parse(first).is_compatible_with(EngineVersion.parse(second)) is compatible


def test_compatible_between_releases_says_only_that_the_engine_version_rule_passed() -> None:
    """Issue 31 item 4: 5.0.3 refuses 5.6.1's packages (LegacyFileVersion -9), though the Changelist-0 rule passes."""
    result = buildver("compatible", "5.0.3-0", "5.6.1-44394996")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "compatible: 5.0.3-0 passes the engine-version check on data saved by 5.6.1-44394996 (changelist-0: 5.0.3-0 "
        "has no changelist: compatible both ways); 5.0 and 5.6 are different releases: each package's object and "
        "custom versions still decide whether 5.0.3-0 loads it\n"
    )
    assert "can load" not in result.stdout
    assert json.loads(buildver("compatible", "--json", "5.0.3-0", "5.6.1-44394996").stdout)["releases_differ"] is True


def test_compatible_within_one_release_names_no_other_check() -> None:
    result = buildver("compatible", "5.3.2-200", "5.3.2-100")
    assert result.stdout == (
        "compatible: 5.3.2-200 passes the engine-version check on data saved by 5.3.2-100 (newer-changelist: "
        "5.3.2-200 is newer by changelist)\n"
    )
    assert json.loads(buildver("compatible", "--json", "5.3.2-200", "5.3.2-100").stdout)["releases_differ"] is False
    # Hotfixes of one release write the same object and custom versions: no caveat between them.
    assert json.loads(buildver("compatible", "--json", "5.3.2-200", "5.3.0-100").stdout)["releases_differ"] is False


def test_compatible_json_exits_1_when_not_compatible_with_the_document_on_stdout() -> None:
    result = buildver("compatible", "--json", "4.19.0-5", "4.19.0-7")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout)["compatible"] is False


def test_every_rule_named_is_documented_in_the_guide() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "versions.md").read_text()
    for rule in RULES:
        assert f"| `{rule}` |" in page


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "4.19", "4.19.0"], "Invalid value for 'FIRST': invalid engine version '4.19'"),
        (["compare", "4.19.0", "4.19"], "Invalid value for 'SECOND': invalid engine version '4.19'"),
        (["compatible", "4.19.0", "x"], "Invalid value for 'SECOND': invalid engine version 'x'"),
        (["assets", "scan", "--against", "5.x", "."], "Invalid value for '--against': invalid engine version '5.x'"),
        (["compare", "4.19.0"], "Missing argument 'SECOND'"),
    ],
)
def test_a_bad_version_error_names_the_argument(argv: list[str], message: str) -> None:
    result = buildver(*argv)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"buildver: error: {message}")
    assert result.stderr.count("\n") == 1


def test_assets_scan_lists_each_file_once_however_often_it_is_named(tmp_path: Path) -> None:
    (tmp_path / "Content" / "Sub").mkdir(parents=True)
    (tmp_path / "Content" / "A.uasset").write_bytes(SyntheticPackage().build())
    (tmp_path / "Content" / "Sub" / "B.uasset").write_bytes(SyntheticPackage().build())
    content = tmp_path / "Content"
    argv = [str(content), str(content), f"{content}/", str(content / "Sub"), str(content / "Sub" / "B.uasset")]
    result = buildver("assets", "scan", "--json", "--against", "4.27.2-18319896", *argv)
    assert result.returncode == 0, result.stderr
    paths = [Path(row["path"]).name for row in json.loads(result.stdout)["packages"]]
    assert sorted(paths) == ["A.uasset", "B.uasset"]
