"""What ``assets scan`` is given directly, rather than found in a folder: a FIFO is named, never opened; a file
that is not a package is reported as such."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import run_buildver


def scan(root: Path, name: str) -> subprocess.CompletedProcess[str]:
    return run_buildver(root, "assets", "scan", name, "--against", "5.3.0")


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX")
def test_a_fifo_given_directly_is_named_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.uasset")
    result = scan(tmp_path, "f.uasset")
    assert result.returncode == 0, result.stderr
    assert "    f.uasset: not a regular file: a FIFO (named pipe), never opened" in result.stdout.splitlines()
    assert result.stdout.endswith("1 file: 1 not-a-package\n")


def test_a_text_file_given_directly_is_not_a_package(tmp_path: Path) -> None:
    (tmp_path / "g.uasset").write_text("x\n")
    result = scan(tmp_path, "g.uasset")
    assert result.returncode == 0, result.stderr
    assert "    g.uasset: byte 0: no package tag: a text file" in result.stdout.splitlines()
