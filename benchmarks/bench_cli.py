"""Issue 13 benchmarks: what ``--version``, ``--help``, shell completion and colour cost at start-up; issue 33: the
start-up of the commands that gained ``--format`` (their help builds every option, as a run does).

Each command is timed side by side (interleaved) with ``python -c pass``, ``import typer`` and ``buildver show
--json``; with ``--baseline REF`` (a git revision, e.g. ``main``), that revision is installed in a second
environment and its ``show --json`` and the ``--help`` of ``guard``, ``assets scan`` and ``project check`` are timed
in the same run, so that a change's cost is measured, not guessed.

Run from the repository root: ``python benchmarks/bench_cli.py [--baseline main]``.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence

from _timing import ROOT, installed, wall_times

BASELINE_VENV = ROOT / ".bench-venv-baseline"
FORMAT_COMMANDS = (("guard",), ("assets", "scan"), ("project", "check"))
"""The commands that print reports for CI (``--format``)."""
VERSION_FILE = ROOT / "Build" / "Build.version"


def install_baseline(revision: str) -> str:
    """``buildver`` of a virtual environment holding ``revision`` of this repository (a regular install)."""
    python = BASELINE_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BASELINE_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(ROOT)], check=True)  # the dependencies
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", folder], check=True
        )
    return str(BASELINE_VENV / "bin" / "buildver")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", help="a git revision whose show --json is timed beside this checkout's")
    parser.add_argument("--runs", type=int, default=31)
    options = parser.parse_args()
    python, executable = installed()
    complete = ("env", "_BUILDVER_COMPLETE=complete_bash", "COMP_WORDS=buildver sh", "COMP_CWORD=1", executable)
    commands: dict[str, Sequence[str]] = {
        "python -c pass": (python, "-c", "pass"),
        "python -c 'import typer'": (python, "-c", "import typer"),
        "buildver show --json": (executable, "show", "--json", "-f", str(VERSION_FILE)),
        "buildver show (text)": (executable, "show", "-f", str(VERSION_FILE)),
        "FORCE_COLOR=1 buildver show": ("env", "FORCE_COLOR=1", executable, "show", "-f", str(VERSION_FILE)),
        "buildver --version": (executable, "--version"),
        "buildver --help": (executable, "--help"),
        "completion of 'buildver sh'": complete,
    }
    compared = {
        "buildver show --json": ("show", "--json", "-f", str(VERSION_FILE)),
        **{f"buildver {' '.join(words)} --help": (*words, "--help") for words in FORMAT_COMMANDS},
    }
    commands |= {name: (executable, *arguments) for name, arguments in compared.items()}
    if options.baseline:
        baseline = install_baseline(options.baseline)
        commands |= {f"{options.baseline}: {name}": (baseline, *arguments) for name, arguments in compared.items()}
    medians = wall_times(commands, runs=options.runs, cwd=ROOT)
    base = medians["python -c pass"]
    print(f"Python {sys.version.split()[0]}, medians of {options.runs} interleaved runs")
    for name, median in medians.items():
        print(f"{name:<40} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")
    if options.baseline:
        for name in compared:
            ratio = medians[name] / medians[f"{options.baseline}: {name}"]
            print(f"{name.removeprefix('buildver ') + ', this checkout / baseline':<40} {ratio:7.3f}")


if __name__ == "__main__":
    main()
