"""Issue 2 benchmarks: ``buildver show --json`` start-up, EngineVersion parsing and comparison throughput.

Run from the repository root after ``pip install -e ".[test]"``: ``python benchmarks/bench_core.py``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from _timing import installed, interleaved_rates, wall_times
from packaging.version import Version

from buildver import EngineVersion

ROOT = Path(__file__).resolve().parents[1]


def startup() -> None:
    python, executable = installed()
    python_pass = (python, "-c", "pass")
    medians = wall_times(
        {
            "python -c pass": python_pass,
            "python -c 'import typer'": (python, "-c", "import typer"),
            "buildver show --json": (executable, "show", "--json"),
        },
        cwd=ROOT,
    )
    base = medians["python -c pass"]
    for name, median in medians.items():
        print(f"{name:<28} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")


def throughput() -> None:
    generator = random.Random(2026)
    texts = [f"{generator.randint(4, 5)}.{generator.randint(0, 27)}.{generator.randint(0, 9)}" for _ in range(20_000)]
    full_texts = [f"{t}-{generator.randint(1, 50_000_000)}+++UE5+Release-5.{i % 8}" for i, t in enumerate(texts)]
    parse = EngineVersion.parse
    rates = interleaved_rates(
        {
            "EngineVersion.parse M.m.p": lambda: [parse(t) for t in texts],
            "packaging Version M.m.p": lambda: [Version(t) for t in texts],
            "EngineVersion.parse M.m.p-CL+Branch": lambda: [parse(t) for t in full_texts],
        },
        len(texts),
    )
    for name, value in rates.items():
        print(f"{name:<40} {value / 1e6:6.2f} M/s")
    ratio = rates["EngineVersion.parse M.m.p"] / rates["packaging Version M.m.p"]
    print(f"{'parse / packaging (M.m.p)':<40} {ratio:6.2f}x")

    engines = [parse(t) for t in full_texts]
    assets = engines[1:] + engines[:1]
    pairs = list(zip(engines, assets, strict=True))
    packaged = [Version(t) for t in texts]
    packaging_pairs = list(zip(packaged, packaged[1:] + packaged[:1], strict=True))
    compare_rates = interleaved_rates(
        {
            "is_compatible_with": lambda: [a.is_compatible_with(b) for a, b in pairs],
            "get_newest": lambda: [EngineVersion.get_newest(a, b) for a, b in pairs],
            "packaging Version <": lambda: [a < b for a, b in packaging_pairs],
        },
        len(pairs),
    )
    for name, value in compare_rates.items():
        print(f"{name:<40} {value / 1e6:6.2f} M/s")


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}")
    startup()
    throughput()
