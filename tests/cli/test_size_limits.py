"""Every reader refuses a file far above any real one, in one line, without reading it (issue 23, item 5).

The files are sparse (``truncate``), so a 2 GiB file costs nothing here; each command runs with its address space
limited to 1 GiB, so a reader that loaded the file whole would fail with MemoryError instead of passing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data"
VERSION = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
HUGE = 2 << 30
MEMORY_LIMIT = 1 << 30


@dataclass(frozen=True)
class HugeFile:
    name: str
    path: str  # relative to the tree, made 2 GiB
    command: list[str]
    exit_code: int
    message: str  # what the one line says after "buildver: error: "
    limit: str = "16 MiB"


HUGE_FILES = [
    HugeFile("Build.version", "Build/Build.version", ["show"], 1, "Build/Build.version: cannot read the file ("),
    HugeFile("header", "Build/BuildVersion.h", ["header", "--check"], 1,
             "Build/BuildVersion.h: cannot read the header ("),
    HugeFile("journal", "Build/.buildver-journal", ["update-local", "--cl", "1", "--branch", "B"], 3,
             "Build/.buildver-journal: cannot read the recovery journal ("),
    HugeFile("buildver.toml", "buildver.toml", ["show"], 1, "buildver.toml: cannot read the settings ("),
    HugeFile("pyproject.toml", "pyproject.toml", ["show"], 1, "pyproject.toml: cannot read the settings ("),
    HugeFile("data document", "doc.json", ["data", "inspect", "doc.json"], 1, "doc.json: cannot read: ", "512 MiB"),
    HugeFile(".uproject", "Game.uproject", ["engine", "Game.uproject"], 1, "Game.uproject: cannot read the file ("),
    HugeFile("DefaultGame.ini", "Config/DefaultGame.ini", ["show"], 1,
             "Config/DefaultGame.ini: line 1: cannot be read: "),
]  # fmt: skip


def limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.skipif(sys.platform != "linux", reason="sparse files and RLIMIT_AS as used here are Linux's")
@pytest.mark.parametrize("case", HUGE_FILES, ids=[case.name for case in HUGE_FILES])
def test_a_huge_file_is_refused_in_one_line_without_being_read(tmp_path: Path, case: HugeFile) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Config").mkdir()
    (tmp_path / ".git").mkdir()  # the repository root: the settings search stops here
    (tmp_path / "Build" / "Build.version").write_bytes(VERSION)
    (tmp_path / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": ""}')
    huge = tmp_path / case.path
    with open(huge, "ab") as stream:
        stream.truncate(HUGE)
    before = {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()}
    result = subprocess.run(
        [sys.executable, "-m", "buildver", *case.command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=limit_memory,
    )
    assert result.returncode == case.exit_code, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("buildver: error: ")
    assert case.message in result.stderr.replace(str(tmp_path) + os.sep, "")
    assert f"2 GiB, more than the {case.limit} buildver reads of such a file" in result.stderr
    assert {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()} == before
