"""A generated header that differs only in what the compiler ignores (a BOM an editor added, CRLF newlines from a
Windows checkout with ``core.autocrlf``, on every line or on one) is the same header: ``header --check`` and the
guard pass, and nothing rewrites it (issue 23, item 14). A header that must change keeps its BOM and its newlines."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli

from buildver.stamp.header import header_for, render_header, same_to_the_compiler
from buildver.versions.build_version import BuildVersion

UE5 = BuildVersion(5, 3, 2, 123, branch_name="++Game+Main")
LF = render_header(UE5)
ONE_CRLF_LINE = LF.replace("\n", "\r\n", 1)

SAME_HEADERS = [
    ("a bom", "\ufeff" + LF),
    ("crlf everywhere", LF.replace("\n", "\r\n")),
    ("one crlf line", ONE_CRLF_LINE),
    ("a bom and crlf", "\ufeff" + LF.replace("\n", "\r\n")),
]


@pytest.mark.parametrize(("name", "text"), SAME_HEADERS, ids=[name for name, _ in SAME_HEADERS])
def test_a_header_the_compiler_reads_the_same_is_kept_as_it_is(name: str, text: str) -> None:
    assert same_to_the_compiler(text, LF)
    assert header_for(text, UE5, None) == text


STALE = render_header(UE5.replace(changelist=100))
CHANGED = [
    ("lf", STALE, LF),
    ("a bom", "\ufeff" + STALE, "\ufeff" + LF),
    ("crlf everywhere", STALE.replace("\n", "\r\n"), LF.replace("\n", "\r\n")),
    ("one crlf line among lf", STALE.replace("\n", "\r\n", 1), LF),
    ("one lf line among crlf", STALE.replace("\n", "\r\n").replace("\r\n", "\n", 1), LF.replace("\n", "\r\n")),
]


@pytest.mark.parametrize(("name", "stale", "expected"), CHANGED, ids=[name for name, _, _ in CHANGED])
def test_a_header_that_must_change_keeps_its_bom_and_most_of_its_newlines(name: str, stale: str, expected: str) -> None:
    assert header_for(stale, UE5, None) == expected


def test_headers_that_differ_in_a_value_are_not_the_same() -> None:
    assert not same_to_the_compiler("\ufeff" + STALE, LF)


@pytest.fixture
def stamped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A game folder with Build.version stamped and its generated header; returns the header."""
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "CI", "uebp_CL", "uebp_BuildRoot_P4"):
        monkeypatch.delenv(variable, raising=False)
    (tmp_path / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": "5.3"}')
    assert run_cli(capsys, "init", "--version", "1.4.0")[0] == 0
    assert run_cli(capsys, "update-local", "--cl", "123", "--branch", "++Game+Main")[0] == 0
    header = tmp_path / "Build" / "BuildVersion.h"
    assert header.is_file()
    return header


@pytest.mark.parametrize("edit", ["bom", "one crlf line", "crlf everywhere"])
def test_header_check_passes_and_nothing_rewrites_a_header_with_a_bom_or_crlf(
    stamped: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    data = stamped.read_bytes()
    if edit == "bom":
        data = b"\xef\xbb\xbf" + data
    elif edit == "one crlf line":
        data = data.replace(b"\n", b"\r\n", 1)
    else:
        data = data.replace(b"\n", b"\r\n")
    stamped.write_bytes(data)
    code, out, err = run_cli(capsys, "header", "--check")
    assert (code, out, err) == (0, f"{stamped}: up to date\n", "")
    code, _, _ = run_cli(capsys, "header")
    assert code == 0
    code, _, _ = run_cli(capsys, "update-local", "--cl", "123", "--branch", "++Game+Main")
    assert code == 0
    assert stamped.read_bytes() == data


def test_a_c_compiler_reads_a_header_with_a_bom_and_crlf_as_the_plain_one(tmp_path: Path) -> None:
    """What makes the two the same header: cc gives the same values for both."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler 'cc' on PATH")
    outputs = []
    for name, text in [("plain", LF), *SAME_HEADERS]:
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        (folder / "v.h").write_bytes(text.encode("utf-8"))
        (folder / "main.c").write_text(
            '#include "v.h"\n#include <stdio.h>\n'
            'int main(void) { printf("%d %d %s %s\\n", BUILT_FROM_CHANGELIST, ENGINE_MINOR_VERSION, '
            "BRANCH_NAME, ENGINE_VERSION_STRING); return 0; }\n"
        )
        build = subprocess.run(
            [compiler, "-Wall", "-Werror", "main.c", "-o", "main"], cwd=folder, capture_output=True, text=True
        )
        assert build.returncode == 0, build.stderr
        outputs.append(subprocess.run([str(folder / "main")], capture_output=True, text=True, check=True).stdout)
    assert outputs == [outputs[0]] * len(outputs)
    assert outputs[0] == "123 3 ++Game+Main 5.3.2-++Game+Main-CL-123\n"
