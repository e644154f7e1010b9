"""Shared helpers for the benchmark scripts: medians of interleaved runs, so that noise hits both sides alike."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH_VENV = ROOT / ".bench-venv"


def installed() -> tuple[str, str]:
    """``(python, buildver)`` of a virtual environment holding a regular install of this checkout.

    That is what users run. The development install is editable, and its import hook adds about 15 ms to every
    start of that environment's Python, ``python -c pass`` included, which would flatter every ratio.
    """
    python = BENCH_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(ROOT)], check=True)
    else:  # the current code, with the dependencies already there
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(ROOT)], check=True
        )
    return str(python), str(BENCH_VENV / "bin" / "buildver")


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
"""A throwaway identity for the git repositories the benchmarks make."""


def wall_times(commands: dict[str, Sequence[str]], runs: int = 21, **kwargs: object) -> dict[str, float]:
    """Median wall time of each command, the commands run in turn (interleaved) ``runs`` times."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm the page cache and .pyc files
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, **kwargs)  # type: ignore[call-overload]
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, **kwargs)  # type: ignore[call-overload]
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def rate(function: Callable[[], object], items: int, repeat: int = 7) -> float:
    """Median items per second of ``function`` (which handles ``items`` items per call)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return items / statistics.median(times)


def interleaved_rates(functions: dict[str, Callable[[], object]], items: int, repeat: int = 9) -> dict[str, float]:
    """Median rate of each function, run in turn so that machine noise hits them alike."""
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - start)
    return {name: items / statistics.median(values) for name, values in samples.items()}


PYTHON_SCAN_FLOOR = """
import os, sys
size = int(sys.argv[2])
count = 0
stack = [sys.argv[1]]
while stack:
    with os.scandir(stack.pop()) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.name.lower().endswith((".uasset", ".umap")):
                fd = os.open(entry.path, os.O_RDONLY)
                os.read(fd, size)
                os.close(fd)
                count += 1
print(count)
"""
"""The Python floor of a scan: walk the tree (``argv[1]``), open each package, read its first ``argv[2]`` bytes,
close; nothing parsed, nothing printed per file."""
