"""Run the attacks: ``python tools/attack [--quick] [--only SUITE[:CASE]] [--work DIR] [-v]``.

Prints what each attack did, then a table of cases and defects per attack, and every defect; exits 1 when any
attack found a defect. See docs/development.md ("The attack harness").
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as ``python tools/attack``: make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attack import guard, kills, names
from attack.common import Options, Suite, strace_works

SUITES = {"kills": kills.attack, "names": names.attack, "guard": guard.attack}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/attack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a sample of every attack (a few minutes)")
    parser.add_argument("--only", action="append", default=[], help="only this suite (kills, names, guard) or case")
    parser.add_argument("--work", type=Path, help="where the worlds are made (default: a temporary folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    arguments = parser.parse_args(argv)
    work = arguments.work or Path(tempfile.mkdtemp(prefix="buildver-attack-"))
    options = Options(arguments.quick, work.resolve(), arguments.verbose, frozenset(arguments.only))
    use_strace = strace_works()
    results = []
    for name, attack in SUITES.items():
        if not options.wants(name):
            continue
        suite = Suite(name)
        started = time.monotonic()
        print(f"{name}:", flush=True)
        attack(options, suite, use_strace)
        suite.seconds = time.monotonic() - started
        results.append(suite)
    if arguments.work is None:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"{'attack':8} {'cases':>7} {'defects':>8} {'seconds':>8}")
    for suite in results:
        print(f"{suite.name:8} {suite.cases:7} {len(suite.defects):8} {suite.seconds:8.0f}")
    total = sum(len(suite.defects) for suite in results)
    print(f"{'total':8} {sum(suite.cases for suite in results):7} {total:8}")
    for suite in results:
        for defect in suite.defects:
            print(f"DEFECT {suite.name}: {defect}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
