"""The attack harness (``tools/attack``) is not part of the suite: it runs for tens of minutes. One smoke trial of its
``--quick`` mode keeps it runnable: the real pre-commit framework on one staged entry, its table, its exit code."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None or sys.platform == "win32", reason="needs git and POSIX")


def test_the_quick_attack_runs_and_reports_no_defect(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "attack"), "--quick", "--only", "guard:regular-backwards"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rows = result.stdout.splitlines()[-3:]
    assert rows[0].split() == ["attack", "cases", "defects", "seconds"]
    assert rows[1].split()[:3] == ["guard", "1", "0"]
    assert rows[2].split() == ["total", "1", "0"]
