"""Issue 32: what reading an engine's version tables costs, the first time and from the cache.

On a real engine tree (``Engine/Source`` and ``Engine/Plugins``, headers and sources; about 45,000 files for 5.1),
it measures:

1. the first read (``cached_tables`` with an empty cache: listing, the byte search, parsing, resolving, writing the
   cache), each run in a new process: the target is at most 10 s;
2. a cached read in an unchanged tree (the cache loaded and checked), medians of 21 calls in one process: the
   target is at most 50 ms;
3. what each way of checking the cache would cost (medians of 11): stat every source file (size and time), stat
   every folder and every file the tables were read from (what the cache does), hash the content of every file the
   tables were read from; and loading the cache's JSON alone.

Extract a tree from a public mirror first (``fetch`` gives the bare repository; a partial mirror lacks a few blobs,
which ``git archive`` refuses, so take the files one by one), for example::

    git -C MIRROR ls-tree -r --name-only COMMIT -- Engine/Source Engine/Plugins Engine/Build/Build.version \\
        | grep -E '\\.(h|cpp|inl|uplugin|version)$' | ...  # then git cat-file --batch into ROOT

Run from the repository root after ``pip install -e ".[dev]"``: ``python benchmarks/bench_tables.py ROOT``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from buildver.packages.tree_tables import SourceRoot, list_tree
from buildver.projects.engine_tables import cached_tables

FIRST_READ = """
import sys, time
from pathlib import Path
from buildver.packages.tree_tables import SourceRoot
from buildver.projects.engine_tables import cached_tables
start = time.perf_counter()
tables = cached_tables([SourceRoot(Path(sys.argv[1]), "engine")], cache_folder=Path(sys.argv[2]))
print(time.perf_counter() - start, len(tables.custom_versions), len(tables.read_files))
"""


def median_ms(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("root", type=Path, help="an engine tree (holding Engine/Source and Engine/Plugins)")
    parser.add_argument("--first-runs", type=int, default=3)
    arguments = parser.parse_args()
    root = arguments.root.resolve()
    roots = [SourceRoot(root, "engine")]

    listing = list_tree(roots)
    print(f"tree: {root}: {len(listing.files)} source files in {len(listing.folders)} folders")

    first = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(arguments.first_runs):
            cache = Path(scratch) / f"cache{run}"
            output = subprocess.run(
                [sys.executable, "-c", FIRST_READ, str(root), str(cache)], capture_output=True, text=True, check=True
            ).stdout.split()
            first.append(float(output[0]))
        print(
            f"1. first read (empty cache), {arguments.first_runs} processes: median {statistics.median(first):.2f} s "
            f"(min {min(first):.2f}, max {max(first):.2f}); {output[1]} custom versions, {output[2]} files parsed"
        )

        cache = Path(scratch) / "warm"
        tables = cached_tables(roots, cache_folder=cache)
        cached = median_ms(lambda: cached_tables(roots, cache_folder=cache), 21)
        print(f"2. cached read, unchanged tree: median {cached:.1f} ms of 21")

        (document_path,) = (cache / "tables").glob("*.json")
        data = document_path.read_bytes()
        document = json.loads(data)
        folders = [os.path.join(document["base"], relative) for relative in document["folders"]]

        def stat_every_file() -> None:
            for path in listing.files:
                status = os.stat(path)
                _ = (status.st_size, status.st_mtime_ns)

        def stat_folders_and_read_files() -> None:
            for path in folders:
                _ = os.stat(path).st_mtime_ns
            for path in tables.read_files:
                _ = os.stat(path).st_mtime_ns

        def hash_read_files() -> None:
            for path in tables.read_files:
                with open(path, "rb") as stream:
                    hashlib.sha256(stream.read()).digest()

        print("3. ways to check a cache, medians of 11:")
        print(f"   stat every source file ({len(listing.files)}): {median_ms(stat_every_file, 11):.1f} ms")
        print(
            f"   stat every folder ({len(folders)}) and every file read ({len(tables.read_files)}), the cache's way: "
            f"{median_ms(stat_folders_and_read_files, 11):.1f} ms"
        )
        print(f"   hash every file read ({len(tables.read_files)}): {median_ms(hash_read_files, 11):.1f} ms")
        print(f"   load the cache's JSON ({len(data) // 1024} KiB): {median_ms(lambda: json.loads(data), 11):.1f} ms")


if __name__ == "__main__":
    main()
