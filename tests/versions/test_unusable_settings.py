"""A settings file buildver cannot use is an error, never silently skipped (issue 23, items 9 and 11).

Skipping it would run with the defaults: update-local would write the default header and leave the configured
one stale. So a ``buildver.toml`` that is a FIFO, a folder, a device, a socket, a dangling symbolic link or a loop,
a ``pyproject.toml`` that cannot be read, and TOML nested too deeply for the parser are each one error line (exit
1) with nothing written.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import git, run_buildver

DATA = Path(__file__).parents[1] / "data"
VERSION = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
NEEDS_POSIX = pytest.mark.skipif(
    os.name != "posix", reason="FIFOs, sockets, devices and symbolic links as POSIX has them"
)


def fifo(path: Path) -> None:
    os.mkfifo(path)


def folder(path: Path) -> None:
    path.mkdir()


def device(path: Path) -> None:
    path.symlink_to("/dev/zero")


def unix_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))


def dangling_link(path: Path) -> None:
    path.symlink_to(path.with_name("missing.toml"))


def link_loop(path: Path) -> None:
    path.symlink_to(path)


UNUSABLE = [
    ("fifo", fifo, "not a regular file but a FIFO (named pipe)"),
    ("folder", folder, "is a folder"),
    ("device", device, "not a regular file but a character device"),
    ("socket", unix_socket, "not a regular file but a socket"),
    ("dangling link", dangling_link, "a symbolic link to nothing"),
    ("link loop", link_loop, "Too many levels of symbolic links"),
]


def tree(root: Path) -> Path:
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(VERSION)
    (root / ".git").mkdir()  # the repository root: the settings search stops here
    return root


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


COMMANDS = [["show"], ["update-local", "--cl", "5", "--branch", "B"], ["header"]]


@NEEDS_POSIX
@pytest.mark.parametrize("name", ["buildver.toml", "pyproject.toml"])
@pytest.mark.parametrize(("kind", "make", "reason"), UNUSABLE, ids=[case[0] for case in UNUSABLE])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_unusable_settings_file_is_one_error_and_nothing_is_written(
    tmp_path: Path, name: str, kind: str, make: Callable[[Path], None], reason: str, command: list[str]
) -> None:
    root = tree(tmp_path / "game")
    make(root / name)
    before = files(root)
    result = run_buildver(root, *command)
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"buildver: error: {root / name}: cannot read the settings (")
    assert reason in result.stderr
    assert files(root) == before
    assert not (root / "Build" / "BuildVersion.h").exists()


DEEP_ARRAY = "x = " + "[" * 500 + "]" * 500 + "\n"
DEEP_TABLE = "y = " + "{a = " * 400 + "1" + "}" * 400 + "\n"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("buildver.toml", DEEP_ARRAY),
        ("buildver.toml", DEEP_TABLE),
        ("pyproject.toml", "[tool.buildver]\nheader = 'V.h'\n[tool.other]\n" + DEEP_ARRAY),
        ("pyproject.toml", "[project]\nname = 'buildver-game'\n" + DEEP_TABLE),
    ],
    ids=["array 500 deep", "inline table 400 deep", "an unrelated table of pyproject", "pyproject naming buildver"],
)
def test_deeply_nested_toml_is_one_error_line(tmp_path: Path, name: str, content: str) -> None:
    root = tree(tmp_path / "game")
    (root / name).write_text(content)
    result = run_buildver(root, "show")
    assert result.returncode == 1, result.stderr
    assert result.stderr == f"buildver: error: {root / name}: arrays or inline tables nested too deeply to read\n"


def test_a_deep_pyproject_without_buildver_is_not_parsed_at_all(tmp_path: Path) -> None:
    root = tree(tmp_path / "game")
    (root / "pyproject.toml").write_text("[project]\nname = 'game'\n" + DEEP_ARRAY)
    result = run_buildver(root, "show", "--field", "Changelist")
    assert (result.returncode, result.stderr) == (0, "")


def test_init_into_a_deeply_nested_pyproject_is_one_error_line(tmp_path: Path) -> None:
    root = tmp_path / "game"
    root.mkdir()
    git(root, "init", "--quiet")  # init asks git what it ignores
    (root / "pyproject.toml").write_text("[project]\nname = 'game'\n" + DEEP_TABLE)
    before = (root / "pyproject.toml").read_bytes()
    result = run_buildver(root, "init", "--version", "5.3.2")
    assert result.returncode == 1, result.stderr
    # tomlkit stops at 100 levels with its own message; deeper still, Python's stack would: either is one line.
    assert result.stderr.startswith(f"buildver: error: {root / 'pyproject.toml'}: ")
    assert "nested" in result.stderr
    assert result.stderr.count("\n") == 1
    assert (root / "pyproject.toml").read_bytes() == before
    assert not (root / "Build").exists()
