"""Colour: on a terminal only, ``NO_COLOR`` and ``FORCE_COLOR`` honoured, nothing imported for it.

The terminal is a real pseudo-terminal (``os.openpty``) given to the installed console script as stdout and stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BUILDVER, environment, on_terminal
from package_builder import SyntheticPackage

from buildver.versions.build_version import BuildVersion, render_new_file

ESCAPE = "\x1b["

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")


def piped(argv: list[str], settings: dict[str, str], cwd: Path | None = None) -> tuple[int, str]:
    result = subprocess.run(
        [BUILDVER, *argv], capture_output=True, text=True, check=False, env=environment(settings), cwd=cwd
    )
    return result.returncode, result.stdout + result.stderr


BAD_VERSION = ["compare", "4.19", "4.19.0"]

DECISIONS = [
    # (where, settings, coloured)
    (on_terminal, {}, True),
    (on_terminal, {"NO_COLOR": "1"}, False),
    (on_terminal, {"NO_COLOR": ""}, True),  # no-color.org: an empty NO_COLOR is not set
    (on_terminal, {"TERM": "dumb"}, False),
    (piped, {}, False),
    (piped, {"FORCE_COLOR": "1"}, True),
    (piped, {"FORCE_COLOR": ""}, False),
    (piped, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, True),  # forcing beats refusing
]


@pytest.mark.parametrize(("where", "settings", "coloured"), DECISIONS)
def test_errors_are_coloured_on_a_terminal_only_as_the_variables_say(
    where: object, settings: dict[str, str], coloured: bool
) -> None:
    code, shown = where(BAD_VERSION, settings)  # type: ignore[operator]
    assert code == 2
    expected = "buildver: \x1b[1;31merror:\x1b[0m " if coloured else "buildver: error: "
    assert shown.startswith(expected)
    assert shown.count(ESCAPE) == (2 if coloured else 0)


def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 0, 10)))
    return tmp_path


def test_dry_run_diff_is_coloured_line_by_line_on_a_terminal(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, shown = on_terminal(["update-local", "--cl", "11", "--skip-header", "--dry-run", "--branch", "b"], {}, root)
    assert code == 0, shown
    lines = shown.splitlines()
    assert "\x1b[1m--- a/Build/Build.version\x1b[0m" in lines
    assert any(line.startswith("\x1b[36m@@ ") and line.endswith("\x1b[0m") for line in lines)
    assert '\x1b[31m-\t"Changelist": 10,\x1b[0m' in lines
    assert '\x1b[32m+\t"Changelist": 11,\x1b[0m' in lines
    # The same diff through a pipe is plain, and equal once the codes are taken out.
    _, plain = piped(["update-local", "--cl", "11", "--skip-header", "--dry-run", "--branch", "b"], {}, root)
    assert ESCAPE not in plain
    assert plain == shown.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[36m", "").replace(
        "\x1b[31m", ""
    ).replace("\x1b[32m", "")


def test_scan_statuses_are_coloured_and_the_columns_stay_aligned(tmp_path: Path) -> None:
    (tmp_path / "Old.uasset").write_bytes(SyntheticPackage().build())
    newer = SyntheticPackage(saved_by=(5, 5, 0, 1, "++UE5+Main"), compatible_with=(5, 5, 0, 1, "++UE5+Main"))
    (tmp_path / "New.uasset").write_bytes(newer.with_(file_version_ue5=1013, legacy_file_version=-8).build())
    code, shown = on_terminal(["assets", "scan", str(tmp_path), "--against", "5.3.0-7"], {})
    assert code == 1, shown
    rows = {line.split()[-1].rsplit("/", 1)[-1]: line for line in shown.splitlines() if ".uasset" in line}
    assert rows["New.uasset"].startswith("\x1b[31mnewer-engine\x1b[0m          ")
    assert rows["Old.uasset"].startswith("\x1b[32mok\x1b[0m                    ")
    _, plain = piped(["assets", "scan", str(tmp_path), "--against", "5.3.0-7"], {})
    assert ESCAPE not in plain


def test_json_is_never_coloured(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, shown = on_terminal(["show", "--json"], {"FORCE_COLOR": "1"}, root)
    assert code == 0
    assert json.loads(shown)["Changelist"] == 10


MODULES_AFTER_RUN = """
import sys
from buildver.cli.app import main
main(sys.argv[1:])
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
"""


def test_colour_imports_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    argv = ["update-local", "--cl", "11", "--skip-header", "--dry-run", "--branch", "b"]
    modules = {}
    for name, settings in (("plain", {}), ("coloured", {"FORCE_COLOR": "1"})):
        result = subprocess.run(
            [sys.executable, "-c", MODULES_AFTER_RUN, *argv],
            capture_output=True,
            text=True,
            check=True,
            env=environment(settings),
            cwd=root,
        )
        assert (ESCAPE in result.stdout) == (name == "coloured")
        modules[name] = set(result.stderr.rsplit("MODULES ", 1)[1].split())
    assert modules["coloured"] == modules["plain"]
    assert not {"ctypes", "rich", "colorama"} & modules["plain"]
