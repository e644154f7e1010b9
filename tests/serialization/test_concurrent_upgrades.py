"""Concurrent ``data upgrade`` runs on one document take turns (issue 23, item 13).

Each run reads, plans and writes under the folder's lock, so the first upgrades the document and every later one
reads the upgraded file and finds it up to date; none refuses because the file changed between its read and its
write (before, a run planned outside the lock and 33 of 200 exited 3).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCHEMA = f"{EXAMPLES / 'asset_schema.py'}:SCHEMA"
RUNS = 40


@pytest.mark.slow
def test_concurrent_upgrades_of_one_document_take_turns(tmp_path: Path) -> None:
    document = tmp_path / "rock.json"
    shutil.copyfile(EXAMPLES / "data" / "rock.json", document)
    reference = tmp_path / "reference" / "rock.json"
    reference.parent.mkdir()
    shutil.copyfile(EXAMPLES / "data" / "rock.json", reference)
    command = [sys.executable, "-m", "buildver", "data", "upgrade", "--schema", SCHEMA]
    alone = subprocess.run([*command, str(reference)], capture_output=True, text=True, check=False)
    assert alone.returncode == 0, alone.stderr
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    runs = [
        subprocess.Popen([*command, "rock.json"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=environment)
        for _ in range(RUNS)
    ]  # fmt: skip
    results = [(run.wait(timeout=120), *run.communicate()) for run in runs]
    assert [code for code, _, _ in results] == [0] * RUNS, [err for _, _, err in results if err]
    outputs = sorted(out.split(":", 1)[1].strip().split(" from", 1)[0] for _, out, _ in results)
    assert outputs == ["up to date"] * (RUNS - 1) + ["upgraded"]
    assert document.read_bytes() == reference.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["reference", "rock.json"]
