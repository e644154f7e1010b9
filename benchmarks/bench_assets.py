"""Benchmark ``assets scan``: package headers per second, and peak memory as the tree grows.

Run as ``python benchmarks/bench_assets.py [--files N] [--runs R]``. It copies the real packages of
``../shared/fixtures/uasset/`` into a temporary tree of at least 20,000 files (folders of 200, as in a content
tree), scans it once to warm the page cache, then prints the median rate of several scans in one process and
with ``--jobs``, and the peak RSS of a scan of 5,000 files against one of 20,000 (each in a fresh process).
Target (issue 4): at least 20,000 headers per second warm, and memory that stays flat as the tree grows.
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "uasset"
FILES_PER_FOLDER = 200


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
    from buildver.assets import scan
    from buildver.engine_version import EngineVersion

    engine = EngineVersion.parse(ENGINE)
    start, cpu_start = time.perf_counter(), time.process_time()
    count = sum(1 for _ in scan(roots, engine, jobs=jobs))
    return time.perf_counter() - start, time.process_time() - cpu_start, count


def time_command(root: Path, jobs: int, runs: int) -> float:
    """Median wall seconds of the command itself (start-up and JSON output included), output to /dev/null."""
    # The sub-app in a host of its own, as buildver.cli registers it (app.add_typer(assets_app, name="assets")).
    code = (
        "import sys, typer; from buildver.cli_assets import assets_app; app = typer.Typer(); "
        "app.add_typer(assets_app, name='assets'); app.callback()(lambda: None); app(sys.argv[1:])"
    )
    command = [sys.executable, "-c", code, "assets", "scan", str(root), "--against", ENGINE, "--json"]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([*command, "--jobs", str(jobs)], stdout=subprocess.DEVNULL, check=False, cwd=REPO)
        samples.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"the command failed with exit code {done.returncode}")
    return statistics.median(samples)


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
    parser.add_argument("--runs", type=int, default=5, help="scans per measurement; the median is printed")
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
        print(f"{count} packages from {FIXTURES} in {len(folders)} folders; {cpus} CPUs; median of {args.runs} runs")
        time_scan(folders, 1)  # warm the page cache
        for jobs in [1, *job_counts]:
            timings = [time_scan(folders, jobs) for _ in range(args.runs)]
            seconds = statistics.median(wall for wall, _, _ in timings)
            cpu = statistics.median(cpu for _, cpu, _ in timings)
            scanned = timings[0][2]
            note = f"; {scanned / cpu:,.0f}/s of this process's CPU time" if jobs == 1 else ""
            print(f"  library scan, jobs={jobs}: {scanned / seconds:>9,.0f} headers/s ({seconds:.2f} s{note})")
        for jobs in [1, *job_counts]:
            seconds = time_command(Path(temp), jobs, args.runs)
            print(f"  buildver assets scan --json, jobs={jobs}: {count / seconds:>9,.0f} headers/s ({seconds:.2f} s)")
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
