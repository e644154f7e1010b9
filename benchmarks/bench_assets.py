"""Benchmark ``assets scan``: the command against its floor, the default ``--jobs``, the library, peak memory.

Run as ``python benchmarks/bench_assets.py [--files N] [--runs R]``. It copies the real packages of
``../shared/fixtures/uasset/`` into a temporary tree of at least 20,000 files (folders of 200, as in a content
tree) and prints, all measured in one run (interleaved medians, page cache warm):

- ``buildver assets scan --json`` with ``--jobs 1``, ``--jobs 2`` and the default, from a regular install
  (``.bench-venv``, what users run), beside the floor: a separate Python process that walks the same tree and
  opens and reads the first 4 KiB of each package (issue 15's target: ``--jobs 1`` at least 0.75x the floor);
  and beside the same floor run after ``import buildver.cli.app``, the bound no command of a typer CLI can beat;
- the default ``--jobs`` against one and two jobs on smaller trees, around ``PARALLEL_THRESHOLD`` (it must never
  lose to one job);
- the library's rate in one process, and the peak RSS of a scan of 5,000 files against one of 20,000 (each in a
  fresh process): memory must stay flat as the tree grows.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import PYTHON_SCAN_FLOOR, installed, wall_times

from buildver.packages.scanning import PARALLEL_THRESHOLD, default_jobs

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "uasset"
FILES_PER_FOLDER = 200
SMALLER_TREES = (1_000, 4_000, 8_000)


def build_tree(target: Path, count: int) -> list[Path]:
    """``count`` packages copied round-robin from the fixtures; returns the folders (200 files each)."""
    sources = sorted(FIXTURES.rglob("*.uasset"))
    if not sources:
        raise SystemExit(f"no fixtures in {FIXTURES}: this benchmark needs ../shared/fixtures/uasset/")
    contents = [path.read_bytes() for path in sources]
    folders = []
    for index in range(count):
        if index % FILES_PER_FOLDER == 0:
            folder = target / f"Folder{index // FILES_PER_FOLDER:04}"
            folder.mkdir(parents=True)
            folders.append(folder)
        (folder / f"Asset{index:06}.uasset").write_bytes(contents[index % len(contents)])
    return folders


ENGINE = "5.6.0-43139311+++UE5+Release-5.6"


def time_scan(roots: list[Path], jobs: int) -> tuple[float, float, int]:
    """Wall and CPU seconds (this process) of one full scan, every result consumed; and the number of files."""
    from buildver.packages.scanning import scan
    from buildver.versions.engine_version import EngineVersion

    engine = EngineVersion.parse(ENGINE)
    start, cpu_start = time.perf_counter(), time.process_time()
    count = sum(1 for _ in scan(roots, engine, jobs=jobs))
    return time.perf_counter() - start, time.process_time() - cpu_start, count


FLOOR_CODE = PYTHON_SCAN_FLOOR
"""The floor: walk the tree, open each package and read its first 4 KiB; nothing parsed, nothing printed per file."""

CEILING_CODE = "import gc; gc.disable(); import buildver.cli.app; gc.freeze(); gc.enable()\n" + FLOOR_CODE
"""The floor in a process that first imports buildver's command line (typer and click with it) as the ``buildver``
entry point does: the fastest any ``buildver`` command could scan if reading a header, classifying it and
printing its line cost nothing."""


def command_medians(
    install: tuple[str, str], root: Path, runs: int, job_counts: list[int | None], with_floor: bool
) -> dict[str, float]:
    """Median wall seconds of ``assets scan --json`` (output to /dev/null) for each job count, and of the floor."""
    python, executable = install
    scan = [executable, "assets", "scan", str(root), "--against", ENGINE, "--json"]
    commands: dict[str, Sequence[str]] = {}
    if with_floor:
        commands["floor: walk, open, read 4 KiB"] = [python, "-c", FLOOR_CODE, str(root), "4096"]
        commands["the floor after import buildver.cli.app"] = [python, "-c", CEILING_CODE, str(root), "4096"]
    for jobs in job_counts:
        commands[f"--jobs {jobs}" if jobs else "default --jobs"] = scan + ([f"--jobs={jobs}"] if jobs else [])
    return wall_times(commands, runs=runs, cwd=REPO)


def peak_rss_child(roots: list[Path], jobs: int) -> None:
    """In a fresh process: scan, then print the peak RSS in KiB of this process and of its largest worker."""
    time_scan(roots, jobs)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    scale = 1024 if sys.platform == "darwin" else 1  # bytes on macOS, KiB on Linux
    print(own // scale, workers // scale)


def measure_rss(roots: list[Path], jobs: int, runs: int) -> tuple[int, int]:
    samples = []
    for _ in range(runs):
        output = subprocess.run(
            [sys.executable, __file__, "--rss-child", str(jobs), *map(str, roots)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        samples.append((int(output[0]), int(output[1])))
    return (
        int(statistics.median(own for own, _ in samples)),
        int(statistics.median(workers for _, workers in samples)),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=20_000, help="packages in the tree (at least 20,000)")
    parser.add_argument("--runs", type=int, default=11, help="scans per measurement; the median is printed")
    parser.add_argument("--rss-child", type=int, metavar="JOBS", help=argparse.SUPPRESS)
    parser.add_argument("roots", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.rss_child is not None:
        peak_rss_child(args.roots, args.rss_child)
        return 0

    count = max(args.files, 20_000)
    cpus = os.cpu_count() or 1
    job_counts = sorted({2, cpus} - {1}) if cpus > 1 else [2]
    with tempfile.TemporaryDirectory(prefix="bench-assets-") as temp:
        folders = build_tree(Path(temp), count)
        print(f"{count} packages from {FIXTURES} in {len(folders)} folders; {cpus} CPUs; medians of {args.runs} runs")
        print(f"load average {os.getloadavg()[0]:.1f}: the default --jobs would start {default_jobs()} process(es) now")
        install = installed()
        medians = command_medians(install, Path(temp), args.runs, [1, *job_counts, None], with_floor=True)
        floor = medians["floor: walk, open, read 4 KiB"]
        print("buildver assets scan --json, against the floor (target: --jobs 1 at least 0.75x the floor):")
        for name, seconds in medians.items():
            rate = count / seconds
            print(f"  {name:<32} {seconds * 1000:7.0f} ms  {rate:>9,.0f} files/s  {floor / seconds:5.2f}x floor")
        print(f"the default --jobs on smaller trees (processes from {PARALLEL_THRESHOLD:,} packages; never slower):")
        for size in SMALLER_TREES:
            with tempfile.TemporaryDirectory(prefix="bench-assets-") as smaller:
                build_tree(Path(smaller), size)
                medians = command_medians(install, Path(smaller), args.runs, [1, 2, None], with_floor=False)
            one = medians["--jobs 1"]
            print(
                f"  {size:>6,} files: --jobs 1 {one * 1000:5.0f} ms, --jobs 2 {medians['--jobs 2'] * 1000:5.0f} ms "
                f"({medians['--jobs 2'] / one:4.2f}x), default {medians['default --jobs'] * 1000:5.0f} ms "
                f"({medians['default --jobs'] / one:4.2f}x)"
            )
        print(f"load average {os.getloadavg()[0]:.1f}: the default --jobs would start {default_jobs()} process(es) now")
        time_scan(folders, 1)  # warm the page cache
        for jobs in [1, *job_counts]:
            timings = [time_scan(folders, jobs) for _ in range(args.runs)]
            seconds = statistics.median(wall for wall, _, _ in timings)
            cpu = statistics.median(cpu for _, cpu, _ in timings)
            scanned = timings[0][2]
            note = f"; {scanned / cpu:,.0f}/s of this process's CPU time" if jobs == 1 else ""
            print(f"  library scan, jobs={jobs}: {scanned / seconds:>9,.0f} headers/s ({seconds:.2f} s{note})")
        small = folders[: 5_000 // FILES_PER_FOLDER]
        rss_runs = max(3, args.runs // 2)
        for jobs in [1, job_counts[-1]]:
            small_rss = measure_rss(small, jobs, rss_runs)
            large_rss = measure_rss(folders, jobs, rss_runs)
            print(
                f"  peak RSS jobs={jobs}: 5,000 files {small_rss[0] / 1024:.1f} MiB, "
                f"{count:,} files {large_rss[0] / 1024:.1f} MiB"
                + (f" (largest worker {small_rss[1] / 1024:.1f} / {large_rss[1] / 1024:.1f} MiB)" if jobs > 1 else "")
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
