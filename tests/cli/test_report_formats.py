"""``--format github|junit|sarif`` of ``guard``, ``assets scan`` and ``project check``: what each CI reads from them.

GitHub's lines are read back the way the runner reads a workflow command (``parse_workflow_command`` below, written
from GitHub's documentation of workflow commands and the runner's ActionCommand.TryParseV2), so that a hostile file
name is shown to end neither the command nor its line. JUnit XML is parsed by ElementTree (well-formed, whatever
the name). SARIF is validated against the official SARIF 2.1.0 schema (tests/data/sarif, from OASIS).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

import pytest
from helpers import git, run_buildver
from jsonschema import Draft4Validator

from buildver.cli.report_formats import github_command, xml_text

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
MALFORMED = DATA / "malformed"
SARIF_SCHEMA = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

# -- how GitHub reads a line -----------------------------------------------------------------------------------

_PROPERTY_ESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_DATA_ESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))


def _unescape(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for escaped, character in escapes:  # in the runner's order: %25 last
        text = text.replace(escaped, character)
    return text


def parse_workflow_command(line: str) -> tuple[str, dict[str, str], str] | None:
    """``(command, properties, message)`` as GitHub's runner reads ``line``, or None for a line it only shows.

    The line, leading white space trimmed, starts with ``::``; the next ``::`` ends the command's name and its
    properties (``name key=value,key=value``), split at each comma and at each property's first ``=``; what follows
    is the message. Properties and message are then unescaped.
    """
    line = line.lstrip()
    if not line.startswith("::"):
        return None
    end = line.find("::", 2)
    if end < 0:
        return None
    name, _, listed = line[2:end].partition(" ")
    properties = {}
    for item in listed.strip().split(","):
        key, separator, value = item.partition("=")
        if item and separator and key and value:
            properties[key] = _unescape(value, _PROPERTY_ESCAPES)
    return name, properties, _unescape(line[end + 2 :], _DATA_ESCAPES)


# -- the escaping itself -----------------------------------------------------------------------------------------

ESCAPED_PROPERTIES = [
    # the file's name, what the line holds for it
    ("Content/Rock.uasset", "Content/Rock.uasset"),
    ("a,b", "a%2Cb"),
    ("a:b", "a%3Ab"),
    ("100%", "100%25"),
    ("%0A", "%250A"),  # already looks escaped: stays what it is
    ("line\nbreak", "line%0Abreak"),
    ("carriage\rreturn", "carriage%0Dreturn"),
    ("x::error file=y::z", "x%3A%3Aerror file=y%3A%3Az"),
    ("tab\there", "tab\\there"),  # other control characters: shown as their escape, so not driving a terminal
    ("esc\x1b[31m", "esc\\x1b[31m"),
    ("bad\udcff", "bad\\udcff"),  # a name that is not UTF-8
]


@pytest.mark.parametrize(("name", "escaped"), ESCAPED_PROPERTIES)
def test_a_file_property_is_escaped_as_github_documents(name: str, escaped: str) -> None:
    line = github_command("error", {"file": name, "line": "3"}, "message")
    assert line == f"::error file={escaped},line=3::message"
    assert not {"\n", "\r"} & set(line)
    parsed = parse_workflow_command(line)
    assert parsed is not None
    assert parsed[0] == "error"
    assert parsed[1]["line"] == "3"
    if name.isprintable() or set(name) - {"\n", "\r"} <= set(" " + "".join(map(chr, range(33, 127)))):
        assert parsed[1]["file"] == name  # the runner gives the name back exactly


ESCAPED_MESSAGES = [
    ("plain", "plain"),
    ("100% done", "100%25 done"),
    ("a::b, c:d", "a::b, c:d"),  # after the first ::, colons and commas are the message's
    ("two\nlines", "two\\nlines"),  # a message is one line, as the text output shows it
    ("%0A", "%250A"),
    ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
]


@pytest.mark.parametrize(("message", "escaped"), ESCAPED_MESSAGES)
def test_a_message_is_one_line_escaped_as_github_documents(message: str, escaped: str) -> None:
    line = github_command("warning", {"file": "f"}, message)
    assert line == f"::warning file=f::{escaped}"
    parsed = parse_workflow_command(line)
    assert parsed is not None
    assert parsed[2] == escaped.replace("%25", "%")


XML_TEXTS = [
    ("a < b & c > d", "a &lt; b &amp; c &gt; d", "a &lt; b &amp; c &gt; d"),
    ('say "hi"', 'say "hi"', "say &quot;hi&quot;"),
    ("nul\x00 and bell\x07", "nul\\x00 and bell\\x07", "nul\\x00 and bell\\x07"),  # XML 1.0 forbids both
    ("bad\udcff", "bad\\udcff", "bad\\udcff"),  # a lone surrogate: no XML document can hold one
    ("\ufffe", "\\ufffe", "\\ufffe"),  # a non-character XML 1.0 forbids
    ("line\nbreak", "line\\nbreak", "line\\nbreak"),
]


@pytest.mark.parametrize(("text", "as_text", "as_attribute"), XML_TEXTS)
def test_xml_text_is_well_formed_for_any_text(text: str, as_text: str, as_attribute: str) -> None:
    assert xml_text(text) == as_text
    assert xml_text(text, attribute=True) == as_attribute
    element = ElementTree.fromstring(f'<a b="{xml_text(text, attribute=True)}">{xml_text(text)}</a>')
    assert element.text == as_text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert element.get("b") == element.text


# -- the commands, on hostile names ------------------------------------------------------------------------------

HOSTILE_NAMES = [
    b"Plain.uasset",
    b"a,b:c%d.uasset",
    b"line\nbreak.uasset",
    b"cr\rname.uasset",
    b"x::error file=Fake.uasset::pwned.uasset",
    b"%0Aescaped.uasset",
    b"##[add-mask]secret.uasset",
    b"esc\x1b[31mred.uasset",
    b"bad\xff.uasset",
]


def _name(raw: bytes) -> str:
    return os.fsdecode(raw)


def _exact(name: str) -> bool:
    """Whether a report can give ``name`` back exactly: CR and LF are escaped; other control characters and bytes
    that are not UTF-8 are shown as their escapes instead."""
    return name.replace("\n", "").replace("\r", "").isprintable()


@pytest.fixture
def hostile_content(tmp_path: Path) -> Path:
    """A folder of text files under hostile package names (not-a-package) and one package from a newer engine."""
    content = tmp_path / "Content"
    content.mkdir()
    for raw in HOSTILE_NAMES:
        with open(os.fsencode(content) + b"/" + raw, "wb") as stream:
            stream.write(b"not a package\n")
    shutil.copy(MALFORMED / "package" / "newer-ue5-file-version.bin", content / "Statue.uasset")
    return tmp_path


def scan(folder: Path, output_format: str) -> subprocess.CompletedProcess[str]:
    return run_buildver(folder, "assets", "scan", "Content", "--against", "5.5.0", "--format", output_format)


def test_github_annotations_name_each_hostile_file_and_start_no_other_command(hostile_content: Path) -> None:
    result = scan(hostile_content, "github")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.split("\n")
    assert lines[-1] == ""
    commands = [parse_workflow_command(line) for line in lines[:-1]]
    annotations = [command for command in commands if command is not None]
    assert len(annotations) == len(HOSTILE_NAMES) + 1  # each text file a warning, the newer package an error
    assert [line for line, command in zip(lines, commands, strict=False) if command is None] == [
        f"{len(HOSTILE_NAMES) + 1} files: 1 newer-engine, {len(HOSTILE_NAMES)} not-a-package"
    ]
    assert not any("##[" in line for line, command in zip(lines, commands, strict=False) if command is None)
    files = {properties["file"]: (level, properties) for level, properties, _ in annotations}
    assert files["Content/Statue.uasset"][0] == "error"
    for raw in HOSTILE_NAMES:
        name = "Content/" + _name(raw)
        if _exact(name):
            level, properties = files[name]
            assert (level, properties["title"]) == ("warning", "not-a-package (buildver assets scan)")
    assert "Content/esc\\x1b[31mred.uasset" in files
    assert "Content/bad\\udcff.uasset" in files


def test_junit_is_well_formed_with_a_test_case_per_package(hostile_content: Path) -> None:
    result = scan(hostile_content, "junit")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    suites = ElementTree.fromstring(result.stdout.encode("utf-8"))
    [suite] = suites.findall("testsuite")
    cases = suite.findall("testcase")
    for element in (suites, suite):
        assert element.get("tests") == str(len(HOSTILE_NAMES) + 1) == str(len(cases))
        assert (element.get("failures"), element.get("errors")) == ("1", "0")
    [failed] = [case for case in cases if case.find("failure") is not None]
    failure = failed.find("failure")
    assert failure is not None
    assert (failed.get("file"), failure.get("type")) == ("Content/Statue.uasset", "newer-engine")
    assert failure.get("message") == "FileVersionUE5 5000 is newer than 5.5 writes (1013)"
    files = {case.get("file") for case in cases}
    assert "Content/a,b:c%d.uasset" in files
    assert "Content/line\\nbreak.uasset" in files  # shown as the text output shows it
    assert "Content/bad\\udcff.uasset" in files
    assert {case.get("classname") for case in cases} == {"buildver.assets-scan"}


def _sarif_results(document: dict[str, Any]) -> list[dict[str, Any]]:
    Draft4Validator(SARIF_SCHEMA).validate(document)
    [run] = document["runs"]
    assert run["tool"]["driver"]["name"] == "buildver"
    rules = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    results: list[dict[str, Any]] = run["results"]
    assert {result["ruleId"] for result in results} <= rules
    return results


_URI_REFERENCE = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
"""The characters RFC 3986 allows in a URI reference (anything else must be percent-encoded)."""


def test_sarif_is_a_valid_sarif_2_1_0_log_whose_uris_keep_each_names_bytes(hostile_content: Path) -> None:
    result = scan(hostile_content, "sarif")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    results = _sarif_results(document)
    base = document["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == hostile_content.as_uri() + "/"
    assert len(results) == len(HOSTILE_NAMES) + 1
    uris = set()
    for found in results:
        [location] = found["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert _URI_REFERENCE.fullmatch(artifact["uri"]), artifact["uri"]
        uris.add(unquote_to_bytes(artifact["uri"]))
        assert found["level"] == ("error" if found["ruleId"] == "newer-engine" else "warning")
    assert uris == {b"Content/" + raw for raw in [*HOSTILE_NAMES, b"Statue.uasset"]}


def test_a_package_outside_the_folder_reported_from_is_a_file_uri(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "Content"
    elsewhere.mkdir(parents=True)
    shutil.copy(MALFORMED / "package" / "newer-ue5-file-version.bin", elsewhere / "Statue.uasset")
    here = tmp_path / "here"
    here.mkdir()
    result = run_buildver(here, "assets", "scan", str(elsewhere), "--against", "5.5.0", "--format", "sarif")
    [found] = _sarif_results(json.loads(result.stdout))
    artifact = found["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (elsewhere / "Statue.uasset").as_uri()}
    github = run_buildver(here, "assets", "scan", str(elsewhere), "--against", "5.5.0", "--format", "github")
    parsed = parse_workflow_command(github.stdout.splitlines()[0])
    assert parsed is not None
    assert parsed[1]["file"] == (elsewhere / "Statue.uasset").as_posix()


def _no_sarif_result(text: str) -> bool:
    return _sarif_results(json.loads(text)) == []


def _no_test_case(text: str) -> bool:
    return ElementTree.fromstring(text.encode()).get("tests") == "0"


def _only_the_counts(text: str) -> bool:
    return text == "no packages found\n"


@pytest.mark.parametrize(
    ("output_format", "is_empty"), [("sarif", _no_sarif_result), ("junit", _no_test_case), ("github", _only_the_counts)]
)
def test_an_empty_scan_is_an_empty_report(tmp_path: Path, output_format: str, is_empty: Callable[[str], bool]) -> None:
    result = run_buildver(tmp_path, "assets", "scan", ".", "--against", "5.5.0", "--format", output_format)
    assert result.returncode == 0, result.stderr
    assert is_empty(result.stdout)


def test_lfs_pointers_are_failures_unless_allowed_then_warnings(tmp_path: Path) -> None:
    oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
    (tmp_path / "Door.uasset").write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 9\n")
    for extra, level, code in [([], "error", 1), (["--allow-lfs-pointers"], "warning", 0)]:
        arguments = ["assets", "scan", ".", "--against", "5.5.0", "--format", "github", *extra]
        result = run_buildver(tmp_path, *arguments)
        parsed = parse_workflow_command(result.stdout.splitlines()[0])
        assert parsed is not None
        assert (result.returncode, parsed[0], parsed[1]["file"]) == (code, level, "Door.uasset")


# -- the guard: findings on their lines, in a repository ---------------------------------------------------------

BUILD_VERSION = (
    '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 1000,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": "++Game+Main"\n}'
)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A game repository in a folder below the repository's root: HEAD at changelist 1000 and ProjectVersion 1.2;
    staged, changelist 999 and a forced BuildId, ProjectVersion 1.1 and a package from a newer engine."""
    root = tmp_path / "depot"
    game = root / "Games" / "Shooter"
    (game / "Build").mkdir(parents=True)
    (game / "Config").mkdir()
    (game / "Content").mkdir()
    (game / "Build" / "Build.version").write_text(BUILD_VERSION)
    (game / "Config" / "DefaultGame.ini").write_text(
        "[/Script/EngineSettings.GeneralProjectSettings]\nProjectName=Shooter\nProjectVersion=1.2\n"
    )
    (game / "pyproject.toml").write_text("[tool.buildver]\nskip-header = true\n")
    git(root, "init", "--quiet")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "first")
    (game / "Build" / "Build.version").write_text(
        BUILD_VERSION.replace("1000", "999").replace('"++Game+Main"', '"++Game+Main",\n\t"BuildId": "forced"')
    )
    (game / "Config" / "DefaultGame.ini").write_text(
        "[/Script/EngineSettings.GeneralProjectSettings]\nProjectName=Shooter\n\nProjectVersion=1.1\n"
    )
    shutil.copy(MALFORMED / "package" / "newer-ue5-file-version.bin", game / "Content" / "Statue.uasset")
    git(root, "add", "--all")
    return game


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` holding ``text``, counted here rather than by buildver."""
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_guard_annotations_are_on_the_file_and_line_from_the_repositorys_root(repository: Path) -> None:
    result = run_buildver(repository, "guard", "--format", "github")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    annotations = [parse_workflow_command(line) for line in lines[:-1]]
    where = [
        (level, found["file"], found.get("line"), found["title"].removesuffix(" (buildver guard)"))
        for level, found, _ in filter(None, annotations)
    ]
    version, ini = "Games/Shooter/Build/Build.version", "Games/Shooter/Config/DefaultGame.ini"
    assert where == [
        ("error", version, str(line_of(repository / "Build" / "Build.version", "Changelist")), "version-backwards"),
        ("warning", version, str(line_of(repository / "Build" / "Build.version", "BuildId")), "forced-build-id"),
        (
            "error",
            ini,
            str(line_of(repository / "Config" / "DefaultGame.ini", "ProjectVersion")),
            "project-version-backwards",
        ),
        ("warning", "Games/Shooter/Content/Statue.uasset", None, "no-engine-version"),
        ("warning", "Games/Shooter/Content/Statue.uasset", None, "package-unknown-format"),
    ]
    assert lines[-1] == "buildver guard: 3 files checked: 2 errors, 3 warnings"


def test_guard_formats_keep_the_exit_code_and_agree_with_the_text(repository: Path) -> None:
    text = run_buildver(repository, "guard")
    outputs = {
        name: run_buildver(repository, "guard", "--format", name) for name in ("json", "github", "junit", "sarif")
    }
    assert {name: result.returncode for name, result in outputs.items()} == dict.fromkeys(outputs, text.returncode)
    findings = json.loads(outputs["json"].stdout)["findings"]
    assert len(findings) == len(text.stdout.splitlines()) - 1
    suite = ElementTree.fromstring(outputs["junit"].stdout.encode()).find("testsuite")
    assert suite is not None
    assert suite.get("failures") == str(json.loads(outputs["json"].stdout)["errors"])
    failed = [
        (case.get("file"), case.get("line")) for case in suite.iter("testcase") if case.find("failure") is not None
    ]
    assert failed == [
        (finding["path"], None if finding["line"] is None else str(finding["line"]))
        for finding in findings
        if finding["severity"] == "error"
    ]
    results = _sarif_results(json.loads(outputs["sarif"].stdout))
    assert [result["ruleId"] for result in results] == [finding["check"] for finding in findings]
    regions = [result["locations"][0]["physicalLocation"].get("region") for result in results]
    assert regions == [None if finding["line"] is None else {"startLine": finding["line"]} for finding in findings]


def test_guard_outside_git_reports_nothing_in_each_format(tmp_path: Path) -> None:
    github = run_buildver(tmp_path, "guard", "--format", "github")
    assert (github.returncode, github.stdout) == (0, "buildver guard: not in a git repository; nothing to check\n")
    assert _sarif_results(json.loads(run_buildver(tmp_path, "guard", "--format", "sarif").stdout)) == []
    junit = ElementTree.fromstring(run_buildver(tmp_path, "guard", "--format", "junit").stdout.encode())
    assert junit.get("tests") == "0"


# -- project check ------------------------------------------------------------------------------------------------


def test_project_check_annotates_each_refused_descriptor_from_the_repositorys_root(tmp_path: Path) -> None:
    game = tmp_path / "depot" / "Games" / "Shooter"
    (game / "Plugins" / "Old").mkdir(parents=True)
    (game / "Shooter.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    plugin = {"FileVersion": 3, "Version": 1, "EngineVersion": "5.2.0"}
    (game / "Plugins" / "Old" / "Old.uplugin").write_text(json.dumps(plugin))
    (game / "Plugins" / "Bad").mkdir()
    (game / "Plugins" / "Bad" / "Bad.uplugin").write_text('{"FileVersion": 3,\n "Version": }')
    git(tmp_path / "depot", "init", "--quiet")
    result = run_buildver(game, "project", "check", "--against", "5.3", "--format", "github")
    assert result.returncode == 1
    annotations = [parse_workflow_command(line) for line in result.stdout.splitlines()]
    assert [(found[0], found[1]["file"], found[1]["title"]) for found in filter(None, annotations)] == [
        ("error", "Games/Shooter/Plugins/Bad/Bad.uplugin", "malformed (buildver project check)"),
        ("error", "Games/Shooter/Plugins/Old/Old.uplugin", "refused (buildver project check)"),
    ]
    assert result.stdout.splitlines()[-1] == "3 checked: 1 compatible, 1 refused, 1 malformed"
    junit = run_buildver(game, "project", "check", "--against", "5.3", "--format", "junit")
    suite = ElementTree.fromstring(junit.stdout.encode()).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), junit.returncode) == ("3", "2", 1)
    sarif = run_buildver(game, "project", "check", "--against", "5.3", "--format", "sarif")
    assert [result["ruleId"] for result in _sarif_results(json.loads(sarif.stdout))] == ["malformed", "refused"]


# -- the options --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["guard", "--json", "--format", "github"],
        ["assets", "scan", ".", "--against", "5.3", "--json", "--format", "sarif"],
        ["project", "check", "--against", "5.3", "--json", "--format", "junit"],
    ],
)
def test_json_and_another_format_together_is_a_usage_error(tmp_path: Path, argv: list[str]) -> None:
    result = run_buildver(tmp_path, *argv)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("buildver: error: Invalid value for '--format': --json and --format ")


def test_the_text_output_imports_no_report_writer(tmp_path: Path) -> None:
    """pre-commit runs the guard at every commit: its text output pays for no XML, SARIF or JSON Schema module."""
    code = (
        "import sys\nfrom buildver.cli import main\nbefore = set(sys.modules)\nmain(['guard'])\n"
        "print(sorted(name for name in set(sys.modules) - before if name.startswith(('xml', 'jsonschema', 'tempfile'))"
        " or name == 'buildver.cli.report_formats'))"
    )
    git(tmp_path, "init", "--quiet")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "[]"
