"""``init`` killed at any step is finished by the next ``init`` (issue 23, item 10).

``init --version`` writes Build.version and the settings together. Killed at any of its file-system steps, the
files are each entirely old or new, and running the same command again completes the project: both files as one
run writes them, no journal, temporary or backup file left beside either (pyproject.toml's included).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX

HARNESS = Path(__file__).parents[1] / "crash_harness.py"
PYPROJECT = b'[project]\nname = "game-tools"\nversion = "1.0"\n'
INIT = ["init", "--version", "5.3.2"]


def run(folder: Path, *arguments: str, kill_at: int | None = None) -> subprocess.CompletedProcess[str]:
    prefix = [sys.executable, str(HARNESS), str(kill_at)] if kill_at is not None else [sys.executable, "-m", "buildver"]
    return subprocess.run(
        [*prefix, *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def project(folder: Path, with_pyproject: bool) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "--quiet", str(folder)], check=True)  # init asks git what it ignores
    if with_pyproject:
        (folder / "pyproject.toml").write_bytes(PYPROJECT)
    return folder


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(TEMP_SUFFIX) or p.name == JOURNAL_NAME)


def steps(folder: Path) -> int:
    counted = run(folder, *INIT, kill_at=0)
    assert counted.returncode == 0, counted.stderr
    return int(counted.stderr.rsplit("steps=", 1)[1])


@pytest.mark.slow
@pytest.mark.parametrize("with_pyproject", [True, False], ids=["pyproject.toml", "buildver.toml"])
def test_init_killed_at_any_step_is_completed_by_the_next_init(tmp_path: Path, with_pyproject: bool) -> None:
    reference = project(tmp_path / "reference", with_pyproject)
    total = steps(reference)
    settings_name = "pyproject.toml" if with_pyproject else "buildver.toml"
    expected = {name: (reference / name).read_bytes() for name in ("Build/Build.version", settings_name)}
    assert total >= 4
    for step in range(1, total + 1):
        trial = project(tmp_path / f"step-{step}", with_pyproject)
        killed = run(trial, *INIT, kill_at=step)
        assert killed.returncode != 0, f"step {step} was not reached"
        version, settings = trial / "Build" / "Build.version", trial / settings_name
        assert not version.exists() or version.read_bytes() == expected["Build/Build.version"], step
        now = settings.read_bytes() if settings.exists() else None
        assert now in (PYPROJECT if with_pyproject else None, expected[settings_name]), step

        again = run(trial, *INIT)
        assert again.returncode == 0, (step, again.stderr)
        assert again.stderr == "", step
        assert {name: (trial / name).read_bytes() for name in expected} == expected, step
        assert leftovers(trial) == [], step


@pytest.mark.slow
def test_plain_init_after_a_killed_init_finishes_it_and_leaves_nothing(tmp_path: Path) -> None:
    reference = project(tmp_path / "reference", True)
    total = steps(reference)
    for step in range(1, total + 1):
        trial = project(tmp_path / f"step-{step}", True)
        run(trial, *INIT, kill_at=step)
        if not (trial / "Build" / "Build.version").exists():
            continue  # nothing to configure yet: plain init says so
        again = run(trial, "init")
        # Finished by recovery, the settings are there already (exit 1, "already there"), or this run writes them.
        assert again.returncode in (0, 1), (step, again.stderr)
        assert b"[tool.buildver]" in (trial / "pyproject.toml").read_bytes(), step
        assert (trial / "pyproject.toml").read_bytes().count(b"[tool.buildver]") == 1, step
        assert leftovers(trial) == [], step
