"""``buildver show``: one set of names in every form (text, JSON, NAME=value, single fields), through the installed
console script; values that could set another variable are refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildver.versions.build_version import BuildVersion, render_new_file

BUILDVER = str(Path(sys.executable).parent / "buildver")
UE425 = Path(__file__).parents[1] / "data" / "build_version" / "ue4.25.4.version"


def buildver(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUILDVER, *argv], capture_output=True, text=True, check=False)


def shown_fields(*argv: str) -> dict[str, object]:
    """The fields ``show --json`` prints, without the document's ``schema_version`` (which is no field)."""
    document: dict[str, object] = json.loads(buildver("show", "--json", *argv).stdout)
    assert document.pop("schema_version") == 1
    return document


def version_file(tmp_path: Path, record: BuildVersion) -> str:
    path = tmp_path / "Build.version"
    path.write_text(render_new_file(record), encoding="utf-8")
    return str(path)


def test_text_labels_are_the_json_keys_and_strings_are_plain() -> None:
    text, fields = buildver("show", "-f", str(UE425)), shown_fields("-f", str(UE425))
    assert (text.returncode, text.stderr) == (0, "")
    lines = text.stdout.splitlines()
    assert lines[0] == str(UE425)
    rows = [line.split(maxsplit=1) for line in lines[1:]]
    assert [name for name, _ in rows] == list(fields)
    for name, shown in rows:
        assert shown.split(" (")[0] == str(fields[name]), name
    assert "  BranchName               ++UE4+Release-4.25" in lines
    assert "  CompatibleEngineVersion  4.25.0-0+++UE4+Release-4.25" in lines
    assert "  EffectiveBuildVersion    ++UE4+Release-4.25-CL-0" in lines


def test_json_adds_the_derived_fields_after_the_files() -> None:
    fields = json.loads(buildver("show", "--format", "json", "-f", str(UE425)).stdout)
    assert list(fields)[-4:] == ["EngineVersion", "CompatibleEngineVersion", "EffectiveBuildVersion", "IsFormalBuild"]
    assert (fields["EffectiveBuildVersion"], fields["IsFormalBuild"]) == ("++UE4+Release-4.25-CL-0", 0)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--field", "Changelist"], "0\n"),
        (["--field", "compatiblechangelist", "--field", "BRANCHNAME"], "13144385\n++UE4+Release-4.25\n"),
        (["--field", "EngineVersion", "--field", "EngineVersion"], "4.25.4-0+++UE4+Release-4.25\n" * 2),
        (["--field", "BuildId"], "\n"),  # not in the file: Unreal reads it as empty
        (["--field", "IsFormalBuild", "--format", "env"], "IsFormalBuild=0\n"),
        (["--field", "MajorVersion", "--json"], '{\n  "schema_version": 1,\n  "MajorVersion": 4\n}\n'),
    ],
)
def test_field_prints_bare_values_one_per_line(argv: list[str], expected: str) -> None:
    result = buildver("show", "-f", str(UE425), *argv)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--field", "CompatibleWith"], "Invalid value for '--field': no field 'CompatibleWith' (known: MajorVersion"),
        (["--field", "Nope"], "IOSBundleVersion, ProjectVersion<Platform>, "),  # the per-platform form is named too
        (["--json", "--format", "text"], "Invalid value for '--format': --json and --format text disagree"),
        (["--format", "yaml"], "Invalid value for '--format'"),
    ],
)
def test_bad_field_or_format_is_a_usage_error(argv: list[str], message: str) -> None:
    result = buildver("show", "-f", str(UE425), *argv)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("buildver: error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


BRANCHES = [
    "++UE5+Release-5.3",
    'it\'s $HOME `id` \\ "quoted" ; rm -rf /',
    "'",
    "tab\there *glob* ~user {a,b} !event #comment",
    "ünïcödé ブランチ",
    "",
]


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh")
@pytest.mark.parametrize("branch", BRANCHES)
def test_env_lines_evaluated_by_a_shell_give_back_every_value(tmp_path: Path, branch: str) -> None:
    path = version_file(tmp_path, BuildVersion(5, 3, 2, 27405482, branch_name=branch, build_version=branch + "!"))
    document = shown_fields("-f", path)
    env = buildver("show", "--format", "env", "-f", path)
    assert (env.returncode, env.stderr) == (0, "")
    assert len(env.stdout.splitlines()) == len(document)
    printer = "".join(f'printf "%s\\0" "${name}"; ' for name in document)
    evaluated = subprocess.run(
        ["sh", "-c", f'eval "$1"; {printer}', "sh", env.stdout],
        capture_output=True,
        check=True,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
    )
    assert evaluated.stdout.decode("utf-8").split("\0")[:-1] == [str(value) for value in document.values()]


def test_plain_values_are_written_bare_for_github_env() -> None:
    env = buildver("show", "--format", "env", "-f", str(UE425)).stdout
    document = shown_fields("-f", str(UE425))
    # $GITHUB_ENV takes NAME=value literally: unquoted values read back as they are.
    assert dict(line.split("=", 1) for line in env.splitlines()) == {k: str(v) for k, v in document.items()}


@pytest.mark.parametrize("format_argv", [["--format", "env"], ["--field", "BranchName"]])
@pytest.mark.parametrize("line_break", ["\n", "\r", "\u2028"])
def test_a_value_holding_a_line_break_is_refused_where_it_could_set_another_variable(
    tmp_path: Path, format_argv: list[str], line_break: str
) -> None:
    path = version_file(tmp_path, BuildVersion(5, 3, 0, branch_name=f"main{line_break}GITHUB_PATH=/tmp/evil"))
    result = buildver("show", "-f", path, *format_argv)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"buildver: error: {path}: BranchName 'main")
    assert result.stderr.endswith(
        "holds a line break or NUL, which one line per value cannot carry; use --format json\n"
    )
    assert json.loads(buildver("show", "--json", "-f", path).stdout)["BranchName"].startswith("main")


def test_text_shows_control_characters_escaped(tmp_path: Path) -> None:
    path = version_file(tmp_path, BuildVersion(5, 3, 0, branch_name="red\x1b[31m\nnext"))
    result = buildver("show", "-f", path)
    assert result.returncode == 0
    assert "  BranchName               red\\x1b[31m\\nnext" in result.stdout.splitlines()


@pytest.mark.parametrize("format_argv", [["--format", "env"], ["--field", "BranchName"]])
@pytest.mark.parametrize("control", ["\x1b[2J", "\x07", "\x7f", "\x9b31m", "\u202eexe.txt"])
def test_a_value_holding_a_terminal_control_is_refused_where_it_would_reach_the_terminal_as_it_is(
    tmp_path: Path, format_argv: list[str], control: str
) -> None:
    """The attack harness (tools/attack, names): --field and --format env print a value as it is (scripts take it
    back exactly), so an escape sequence in a BranchName (or an ini value) cleared or drove the terminal, and a bidi
    control reordered the line. Text mode shows them escaped; these refuse them, as they refuse a line break."""
    path = version_file(tmp_path, BuildVersion(5, 3, 0, branch_name=f"main{control}"))
    result = buildver("show", "-f", path, *format_argv)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"buildver: error: {path}: BranchName 'main")
    assert result.stderr.endswith(
        "holds a terminal control character, which would reach the terminal as it is; use --format json\n"
    )
    assert json.loads(buildver("show", "--json", "-f", path).stdout)["BranchName"] == f"main{control}"
