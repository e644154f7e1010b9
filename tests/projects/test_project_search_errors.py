"""A folder that cannot be listed while looking for the project is an error, never "no project here" (issue 30,
item 6): the answer decides the engine every command judges by and a generated header's names. The failure is a
real one, injected into the very system call by strace (root reads every folder whatever its mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import needs_strace, run_with_failed_syscall

from buildver.versions.build_version import BuildVersion, render_new_file


@needs_strace
@pytest.mark.parametrize("error", ["EACCES", "EMFILE", "EIO"])
@pytest.mark.parametrize(
    "command",
    [("header",), ("update-local", "--cl", "7", "--branch", "++Game+Main"), ("show",), ("project", "check")],
    ids=lambda command: command[0],
)
def test_a_project_folder_that_cannot_be_listed_is_one_error_and_nothing_is_written(
    tmp_path: Path, error: str, command: tuple[str, ...]
) -> None:
    game = tmp_path / "AdvGame"
    (game / "Build").mkdir(parents=True)
    (game / "AdvGame.uproject").write_text('{"FileVersion": 3, "EngineAssociation": "5.3"}')
    (game / "Build" / "Build.version").write_text(render_new_file(BuildVersion(1, 2, 0)))
    header = game / "Build" / "BuildVersion.h"
    header.write_text("#define ADVGAME_MAJOR_VERSION 1\n")
    before = {path: path.read_bytes() for path in game.rglob("*") if path.is_file()}
    result = run_with_failed_syscall(
        [sys.executable, "-m", "buildver", *command], game / "Build", "openat", error, path=game
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"buildver: error: {game}: cannot list the folder to look for a .uproject")
    assert result.stderr.count("\n") == 1
    assert {path: path.read_bytes() for path in game.rglob("*") if path.is_file()} == before
