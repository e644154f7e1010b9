"""The malformed-input corpus (tests/data/malformed/): one clear line, the documented exit code, nothing changed.

Each file in the corpus is put where buildver reads that format, and the command that reads it is run. The
expected exit code and a part of the one-line message are in ``cases.tsv``. Formats a command reads as one
input (Build.version, headers, settings, documents, recovery journals) fail with one ``buildver: error:`` line
on stderr; formats the guard reports file by file (packages, ``.modules`` manifests, ``DefaultEngine.ini``) give
one finding line on stdout followed by the guard's summary. Package inputs are stored as ``.bin`` (synthetic,
built with ``tests/package_builder.py``) and staged as ``.uasset``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import git

from buildver.cli.app import main

CORPUS = Path(__file__).parents[1] / "data" / "malformed"
EMPTY_ENGINE_PACKAGE = CORPUS / "empty-engine-version.package"
GUARDED = {"package", "modules", "ini"}
VALID_VERSION = (Path(__file__).parents[1] / "data" / "build_version" / "ue5.0.3.version").read_bytes()
SCHEMA = Path(__file__).resolve().parents[2] / "examples" / "asset_schema.py"


def load_cases() -> list[tuple[str, int, str]]:
    rows = []
    for line in (CORPUS / "cases.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            path, code, message = line.split("\t")
            rows.append((path, int(code), message))
    return rows


CASES = load_cases()


def test_the_corpus_holds_at_least_fifty_inputs_across_the_formats() -> None:
    assert len(CASES) >= 50
    kinds = {path.split("/")[0] for path, _, _ in CASES}
    assert kinds == {"build_version", "header", "config", "document", "journal", "package", "modules", "ini"}
    listed = {path for path, _, _ in CASES}
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*") if p.is_file()}
    assert listed == on_disk


def commands_for(case: str, work: Path) -> list[list[str]]:
    """Put the corpus file where buildver reads its format; return the commands that read it."""
    kind, name = case.split("/", 1)
    source = CORPUS / case
    (work / "Build").mkdir()
    version = work / "Build" / "Build.version"
    if kind == "build_version":
        shutil.copyfile(source, version)
        return [["show", "-f", str(version)], ["update-local", "-f", str(version), "--cl", "1", "--branch", "X"]]
    version.write_bytes(VALID_VERSION)
    if kind == "header":
        shutil.copyfile(source, work / "Version.h")
        header = str(work / "Version.h")
        return [["update-local", "-f", str(version), "--cl", "1", "--branch", "X", "--header", header]]
    if kind == "config":
        shutil.copyfile(source, work / name.split(".", 1)[1])
        return [["update-local", "--cl", "1", "--branch", "X"], ["header"]]
    if kind == "journal":
        # A recovery journal someone committed (or a killed run left damaged): every writing command refuses it.
        shutil.copyfile(source, work / "Build" / ".buildver-journal")
        return [["update-local", "-f", str(version), "--cl", "1", "--branch", "X"], ["header", "-f", str(version)]]
    if kind == "document":
        shutil.copyfile(source, work / "document.json")
        return [["data", "upgrade", "--schema", f"{SCHEMA}:SCHEMA", str(work / "document.json")]]
    raise AssertionError(f"no command for {kind}")


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


STANDALONE = [case for case in CASES if case[0].split("/")[0] not in GUARDED]
REPORTED = [case for case in CASES if case[0].split("/")[0] in GUARDED]


@pytest.mark.parametrize(("case", "code", "message"), STANDALONE, ids=[c[0] for c in STANDALONE])
def test_malformed_input_gives_one_line_the_exit_code_and_changes_nothing(
    case: str,
    code: int,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").mkdir()  # the repository root: configuration and version files are searched up to here
    commands = commands_for(case, work)
    monkeypatch.chdir(work)
    before = snapshot(work)
    for command in commands:
        result = main(command)
        captured = capsys.readouterr()
        assert result == code, (command, captured.err)
        assert captured.out == ""
        assert captured.err.startswith("buildver: error: ")
        assert captured.err.count("\n") == 1
        assert message in captured.err
        assert snapshot(work) == before


def staged_repository(case: str, work: Path) -> list[str]:
    """A git repository holding a valid Build.version and the corpus file staged where the guard reads it."""
    kind, name = case.split("/", 1)
    git(work, "init", "--quiet")
    (work / "Build").mkdir()
    (work / "Build" / "Build.version").write_bytes(VALID_VERSION)
    git(work, "add", "Build/Build.version")
    git(work, "commit", "--quiet", "-m", "engine")
    if kind == "package":
        target = work / "Content" / f"{name.removesuffix('.bin')}.uasset"
    elif kind == "modules":
        target = work / "Binaries" / "Win64" / name
    else:
        target = work / "Config" / "DefaultEngine.ini"
        package = work / "Content" / "Saved.uasset"
        package.parent.mkdir(parents=True)
        shutil.copyfile(EMPTY_ENGINE_PACKAGE, package)
        git(work, "add", str(package))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CORPUS / case, target)
    git(work, "add", str(target))
    checked = target if kind != "ini" else work / "Content" / "Saved.uasset"
    return ["guard", str(checked.relative_to(work))]


@pytest.mark.parametrize(("case", "code", "message"), REPORTED, ids=[c[0] for c in REPORTED])
def test_malformed_input_the_guard_reports_gives_one_finding_and_changes_nothing(
    case: str,
    code: int,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    command = staged_repository(case, work)
    monkeypatch.chdir(work)
    before = snapshot(work)
    result = main(command)
    captured = capsys.readouterr()
    assert result == code, captured.out
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert len(lines) == (2 if "warning[" in message or code else 1), lines
    assert lines[-1].startswith("buildver guard: 1 file checked")
    assert message in captured.out
    assert "Traceback" not in captured.out
    assert snapshot(work) == before
