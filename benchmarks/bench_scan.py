"""Benchmark ``assets scan --json`` on large trees, side by side with its floors (issue 24).

Run as ``python benchmarks/bench_scan.py [--sizes 20000 200000] [--runs 7] [--keep]``. For each size it copies
the real packages of ``../shared/fixtures/uasset/`` round-robin into a tree under the system's temporary folder
(folders of 200 files, as in a content tree; never in the repository) and measures, in one run, the commands in
turn (interleaved, page cache warm, output to /dev/null), printing medians, rates and ratios:

- the C floor: ``benchmarks/scan_floor.c`` built with ``cc`` (skipped, with a note, where there is no compiler):
  walk, open, read the first 4 KiB, close;
- the Python floor: the same in Python, reading 4 KiB (issue 15's floor) and 64 KiB (what the Python reader reads
  at once: buildver's compiled core reads 16 KiB);
- ``buildver assets scan --json --jobs 1`` with the compiled core and with the pure-Python reader
  (``BUILDVER_PURE_PYTHON=1``), and ``--jobs 2`` with the core, from a regular install (``.bench-venv``);
- start-up: the same command on an empty folder, its share of the scan stated;
- peak RSS of the scan at each size (flat in the number of packages).

Both readers' outputs are compared byte for byte once per size before timing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import PYTHON_SCAN_FLOOR as PYTHON_FLOOR
from _timing import installed

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "uasset"
FILES_PER_FOLDER = 200
ENGINE = "5.6.0-43139311+++UE5+Release-5.6"


def build_tree(target: Path, count: int) -> None:
    """``count`` packages copied round-robin from the fixtures, in folders of 200."""
    sources = sorted(FIXTURES.rglob("*.uasset"))
    if not sources:
        raise SystemExit(f"no fixtures in {FIXTURES}: this benchmark needs ../shared/fixtures/uasset/")
    contents = [path.read_bytes() for path in sources]
    folder = target
    for index in range(count):
        if index % FILES_PER_FOLDER == 0:
            folder = target / f"Folder{index // FILES_PER_FOLDER:04}"
            folder.mkdir(parents=True)
        (folder / f"Asset{index:06}.uasset").write_bytes(contents[index % len(contents)])


def c_floor(build: Path) -> str | None:
    """The C floor's executable, built with the compiler that is there; None (with a note) where there is none."""
    compiler = os.environ.get("CC") or shutil.which("cc")
    if compiler is None:
        print("note: no C compiler (cc): the C floor is skipped")
        return None
    executable = build / "scan_floor"
    done = subprocess.run(
        [compiler, "-O2", "-o", str(executable), str(REPO / "benchmarks" / "scan_floor.c")],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"note: {compiler} could not build benchmarks/scan_floor.c: the C floor is skipped\n{done.stderr}")
        return None
    return str(executable)


Command = tuple[Sequence[str], dict[str, str]]


def run_once(command: Command) -> float:
    """Wall seconds of one run, output to /dev/null."""
    argv, env = command
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def interleaved(commands: dict[str, Command], runs: int) -> dict[str, float]:
    """Median wall seconds of each command, the commands run in turn ``runs`` times."""
    for command in commands.values():  # warm the page cache and .pyc files
        run_once(command)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            samples[name].append(run_once(command))
    return {name: statistics.median(values) for name, values in samples.items()}


PEAK_RSS = """
import atexit, sys
def peak():
    with open("/proc/self/status") as status:
        print(next(line.split()[1] for line in status if line.startswith("VmHWM:")), file=sys.stderr)
atexit.register(peak)
from buildver.__main__ import run
sys.argv = ["buildver", *sys.argv[1:]]
run()
"""
"""``buildver ARGS`` in this process, printing its peak RSS in KiB at exit. The kernel's ``ru_maxrss`` of a child
counts the memory of the process it was forked from (this benchmark's), so each process reports its own VmHWM."""


def peak_rss(python: str, arguments: list[str], env: dict[str, str]) -> int | None:
    """Peak RSS (KiB) of one scan in one process (Linux only: None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    done = subprocess.run(
        [python, "-c", PEAK_RSS, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    return int(done.stderr.split()[-1])


def output_digest(command: Command) -> str:
    argv, env = command
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    return hashlib.sha256(done.stdout).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000], help="packages per tree")
    parser.add_argument("--runs", type=int, default=7, help="runs per command; the median is printed")
    parser.add_argument("--keep", action="store_true", help="keep the trees (bench-scan-N in the temp folder)")
    args = parser.parse_args(argv)

    python, buildver = installed()
    environment = {name: value for name, value in os.environ.items() if name != "BUILDVER_PURE_PYTHON"}
    pure = {**environment, "BUILDVER_PURE_PYTHON": "1"}
    check = subprocess.run(
        [buildver, "assets", "scan", "--verbose", "--json", "--against", ENGINE, str(REPO / "benchmarks")],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    print(check.stderr.strip())
    temp = Path(tempfile.gettempdir())
    with tempfile.TemporaryDirectory(prefix="bench-scan-build-") as build:
        floor_c = c_floor(Path(build))
        empty = Path(build) / "Empty"
        empty.mkdir()
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; medians of {args.runs} interleaved runs")
        for size in args.sizes:
            tree = temp / f"bench-scan-{size}"
            if not tree.is_dir():
                started = time.perf_counter()
                build_tree(tree, size)
                print(f"built {tree} ({size:,} packages) in {time.perf_counter() - started:.0f} s")
            scan = [buildver, "assets", "scan", str(tree), "--against", ENGINE, "--json"]
            commands: dict[str, Command] = {}
            if floor_c is not None:
                commands["C floor: walk, open, read 4 KiB, close"] = ([floor_c, str(tree), "4096"], environment)
            commands["Python floor: the same, 4 KiB"] = ([python, "-c", PYTHON_FLOOR, str(tree), "4096"], environment)
            commands["Python floor reading 64 KiB"] = ([python, "-c", PYTHON_FLOOR, str(tree), "65536"], environment)
            commands["buildver --jobs 1, compiled core"] = ([*scan, "--jobs", "1"], environment)
            commands["buildver --jobs 1, pure Python"] = ([*scan, "--jobs", "1"], pure)
            commands["buildver --jobs 2, compiled core"] = ([*scan, "--jobs", "2"], environment)
            commands["buildver --jobs 2, pure Python"] = ([*scan, "--jobs", "2"], pure)
            commands["start-up: the scan of an empty folder"] = (
                [buildver, "assets", "scan", str(empty), "--against", ENGINE, "--json", "--jobs", "1"],
                environment,
            )
            same = output_digest(commands["buildver --jobs 1, compiled core"]) == output_digest(
                commands["buildver --jobs 1, pure Python"]
            )
            print(f"\n{size:,} packages: both readers' output {'identical' if same else 'DIFFERENT'}")
            medians = interleaved(commands, args.runs)
            python_floor = medians["Python floor: the same, 4 KiB"]
            c_seconds = medians.get("C floor: walk, open, read 4 KiB, close")
            startup = medians["start-up: the scan of an empty folder"]
            for name, seconds in medians.items():
                if name.startswith("start-up"):
                    share = startup / medians["buildver --jobs 1, compiled core"]
                    print(f"  {name:<40} {seconds * 1000:8.0f} ms  ({share:.0%} of the --jobs 1 scan with the core)")
                    continue
                ratios = f"{python_floor / seconds:5.2f}x Python floor"
                if c_seconds is not None:
                    ratios += f", {c_seconds / seconds:5.2f}x C floor"
                print(f"  {name:<40} {seconds * 1000:8.0f} ms {size / seconds:>10,.0f} headers/s  {ratios}")
            arguments = ["assets", "scan", str(tree), "--against", ENGINE, "--json", "--jobs", "1"]
            for label, env in (("compiled core", environment), ("pure Python", pure)):
                rss = peak_rss(python, arguments, env)
                if rss is not None:
                    print(f"  peak RSS of --jobs 1, {label}: {rss / 1024:.1f} MiB")
            if not args.keep:
                shutil.rmtree(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
