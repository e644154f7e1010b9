"""Issue 30, item 3: Unreal's config files read in time and memory linear in their size, whatever their shape.

Each shape (below) is built at 1, 4 and 16 MiB and read in a child process of its own, which reports its wall time
and the growth of its peak resident memory over the work (``VmHWM`` on Linux; ``ru_maxrss`` elsewhere, which keeps
the peak of the parent that started the child, so that growth below the parent's size does not show):

- ``read``: ``parse_ini`` and the lookups ``show``, the guard and ``update-local`` make: the single value each
  reader gives (``effective_value``) of the key and of another key of the section, both readers;
- ``edit``: ``with_value``, ``update-local``'s edit of one key (refused shapes count too: the refusal is the work);
- ``all``: the rest of the reading API, which no command calls: every value of the key (``lookup``, one
  ``IniValue`` a value: a key of millions of values returns millions of them) and the section names, both readers.

The first fourteen shapes are the issue's; the next four are made to cost a Python step every few bytes (section
switches with the key in each section, sections of one line, a line of ``{}`` pairs, a struct key per value); the
next four are files where nothing repeats, or the repeated lines neither stand alone nor set the key anew (a
million distinct sections, a key added to one of them or a new section added; the section coming again with
another value each time; ``-K=v`` then ``.K=v`` in each of its occurrences); ``absent`` asks a section
without the key among sections with it every few lines; the last eleven are lines of the key that undo one another
or mix prefixes (``+K=v`` then ``-K=v``, repeated or each of its own value; ``.``, ``-``, ``!`` and plain lines
mixed; the last two under an ``@`` struct key), each line a step of the merge, which the compiled core
(``buildver/projects/_ini_native.c``) reads in C.

Run from the repository root: ``python benchmarks/bench_ini.py`` (the installed buildver of the running Python);
``--baseline PYTHON`` runs the same shapes with another environment's Python beside it (for instance a venv holding
``git archive main``), ``--sizes 1 4`` and ``--timeout 60`` limit the run, ``--shapes pipe plus`` picks shapes,
``--repeat 3`` shows the median of three runs a cell, ``--pure`` adds a column for this install without its
compiled core (``BUILDVER_PURE_PYTHON=1``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

MIB = 1024 * 1024
SECTION = "/Script/AndroidRuntimeSettings.AndroidRuntimeSettings"


def _fill(head: bytes, unit: bytes, size: int, tail: bytes = b"") -> bytes:
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


SHAPES: dict[str, Callable[[int], bytes]] = {
    "pipe": lambda n: _fill(b"[S]\nX=", b"a|", n, b"\n"),
    "pipe-keys": lambda n: _fill(b"[S]\n", b"K=1|", n, b"\n"),
    "plus": lambda n: _fill(b"[S]\n", b"+K=v\n", n),
    "plus-distinct": lambda n: b"[S]\n" + b"".join(b"+K=v%d\n" % i for i in range(n // 10)),
    "sections": lambda n: _fill(b"", b"[S]\n", n),
    "minus": lambda n: _fill(b"[S]\n", b".K=v\n", n // 2) + _fill(b"", b"-K=v\n", n // 2),
    "bang": lambda n: _fill(b"[S]\n", b".K=v\n!K=\n", n),
    "dot": lambda n: _fill(b"[S]\n", b".K=v\n", n),
    "quotes": lambda n: _fill(b"[S]\n", b'K="a\\"b|c"\n', n),
    "backslashes": lambda n: _fill(b"[S]\nK=", b"a\\\n", n, b"b\n"),
    "braces": lambda n: _fill(b"[S]\nK={", b"a\n", n, b"}\n"),
    "crlf-bom": lambda n: _fill(b"\xef\xbb\xbf[S]\r\n", b"K=v\r\n", n),
    "utf16": lambda n: "[S]\r\n".encode("utf-16-le").join([b"\xff\xfe", ("K=v\r\n" * (n // 12)).encode("utf-16-le")]),
    "store-version": lambda n: _fill(f"[{SECTION}]\n".encode(), b"StoreVersion=1\n", n),
    # shapes made to cost a Python step a few bytes: what is left of the budget (docs/performance.md)
    "switches": lambda n: _fill(b"", b"[S]\nK=1\n[T]\nK=2\n", n),
    "bodies": lambda n: _fill(b"", b"[S]\nx=1\n", n),
    "brace-pairs": lambda n: _fill(b"[S]\nK=", b"{}", n, b"\n"),
    "struct-names": lambda n: b"[S]\n" + b"".join(b"@K=N%d\n.K=N%d=1\n" % (i, i) for i in range(n // 20)),
    # what nothing repeats in: a million distinct sections (a key added to one, `S7`, and a new section added),
    # the section coming again with another value each time, and a stretch that moves a value to the end
    "distinct": lambda n: b"".join(b"[S%d]\nx=1\n" % i for i in range(n // 12)),
    "distinct-new": lambda n: b"".join(b"[S%d]\nx=1\n" % i for i in range(n // 12)),
    "recurring": lambda n: b"".join(b"[S]\nK=%d\n[T]\nK=%d\n" % (i, i) for i in range(n // 20)),
    "moves": lambda n: _fill(b"", b"[S]\n-K=v\n.K=v\n[T]\nX=1\n", n),
    # a section without the key among sections with it every few lines (`T` asked)
    "absent": lambda n: _fill(b"", b"[S]\nK=1\n[T]\nX=1\n", n),
    # lines of the key that undo one another or mix prefixes, repeated or each of its own value: every key line a
    # step of the merge (what the compiled core, _ini_native.c, was written for)
    "pairs": lambda n: _fill(b"[S]\n", b"+K=v\n-K=v\n", n),
    "pairs-between": lambda n: _fill(b"", b"[S]\n+K=v\n-K=v\n[T]\nX=1\n", n),
    "pairs-distinct": lambda n: b"[S]\n" + b"".join(b"+K=v%d\n-K=v%d\n" % (i, i) for i in range(n // 16)),
    "dot-minus-distinct": lambda n: b"[S]\n" + b"".join(b".K=v%d\n-K=v%d\n" % (i, i // 2) for i in range(n // 16)),
    "plus-bang-distinct": lambda n: b"[S]\n" + b"".join(b"+K=v%d\n!K=\n" % i for i in range(n // 14)),
    "mixed-distinct": lambda n: (
        b"[S]\n" + b"".join(b"+K=a%d\n.K=b%d\n-K=a%d\nK=c%d\n" % (i, i, i // 3, i) for i in range(n // 36))
    ),
    "bang-switch": lambda n: _fill(b"", b"[S]\nK=1\n[T]\n!K=\n[S]\nK=2\n", n),
    "recurring-minus": lambda n: b"".join(b"[S]\n+K=%d\n[T]\nX=1\n[S]\n-K=%d\n" % (i, i // 2) for i in range(n // 32)),
    "absent-distinct": lambda n: b"".join(b"[S]\nK=1\n[T]\nX=%d\n" % i for i in range(n // 20)),
    # the same under an '@' struct key (each '+' line looks for its token among the values)
    "struct-pairs": lambda n: b"[S]\n@K=Name\n" + b"+K=v\n-K=v\n" * (n // 10),
    "struct-distinct": lambda n: b"[S]\n@K=Name\n" + b"".join(b"+K=(Name=v%d)\n" % i for i in range(n // 18)),
}
ASKED = {
    "store-version": (SECTION, "StoreVersion"),
    "distinct": ("S7", "K"),
    "absent": ("T", "K"),
    "absent-distinct": ("T", "K"),
}
"""The section and key asked of a shape, when not ``S`` and ``K``."""

CHILD = r"""
import json, resource, sys, time
from buildver.projects.unreal_ini import IniError, IniReader, effective_value, lookup, parse_ini
from buildver.projects.ini_edit import with_value


def peak_kib():
    # the peak of this program's own memory: VmHWM is reset by exec, ru_maxrss keeps the peak of the process that
    # started it (a parent holding a 16 MiB shape made every growth below it invisible)
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


path, work, section, key = sys.argv[1:5]
data = open(path, "rb").read()
before = peak_kib()
start = time.perf_counter()
outcome = "ok"
try:
    document = parse_ini(data, "DefaultEngine.ini")
    if work == "read":
        for reader in IniReader:
            effective_value((document,), section, key, reader=reader)
            effective_value((document,), section, "Other", reader=reader)
    elif work == "all":
        for reader in IniReader:
            lookup((document,), section, key, reader=reader)
            document.sections(reader)
    else:
        with_value(document, section, key, "2")
except IniError as exc:
    outcome = "refused"
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "mb": (peak_kib() - before) / 1024, "outcome": outcome}))
"""


def measure(
    python: str, path: Path, work: str, section: str, key: str, timeout: float, repeat: int, *, pure: bool = False
) -> str:
    """The median of ``repeat`` runs (time and memory each), or the first failure; ``pure``: without the compiled
    core (``BUILDVER_PURE_PYTHON=1``)."""
    results = []
    environment = {**os.environ, "BUILDVER_PURE_PYTHON": "1"} if pure else None
    for _ in range(repeat):
        try:
            done = subprocess.run(
                [python, "-c", CHILD, str(path), work, section, key],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                cwd=path.parent,  # not the checkout: each Python imports its own installed buildver
                env=environment,
            )
        except subprocess.TimeoutExpired:
            return f"> {timeout:.0f} s"
        if done.returncode != 0:
            return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:60]
        results.append(json.loads(done.stdout))
    seconds = statistics.median(result["seconds"] for result in results)
    megabytes = statistics.median(result["mb"] for result in results)
    suffix = "" if results[0]["outcome"] == "ok" else " (refused)"
    return f"{seconds:.2f} s, {megabytes:.0f} MB{suffix}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="another environment's Python, run beside this one")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16], help="MiB")
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--work", nargs="+", default=["read", "edit"], choices=["read", "edit", "all"])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--repeat", type=int, default=1, help="runs a cell, their median shown")
    parser.add_argument("--pure", action="store_true", help="also this install without its compiled core")
    options = parser.parse_args()
    pythons: dict[str, tuple[str, bool]] = {"this": (sys.executable, False)}
    if options.pure:
        pythons["this, pure Python"] = (sys.executable, True)
    if options.baseline:
        pythons = {"baseline": (options.baseline, False), **pythons}
    print("| shape | MiB | work | " + " | ".join(pythons) + " |")
    print("|---|---|---|" + "---|" * len(pythons))
    with tempfile.TemporaryDirectory() as scratch:
        for shape in options.shapes:
            section, key = ASKED.get(shape, ("S", "K"))
            for size in options.sizes:
                path = Path(scratch) / f"{shape}-{size}.ini"
                path.write_bytes(SHAPES[shape](size * MIB))
                for work in options.work:
                    cells = [
                        measure(python, path, work, section, key, options.timeout, options.repeat, pure=pure)
                        for python, pure in pythons.values()
                    ]
                    print(f"| {shape} | {size} | {work} | " + " | ".join(cells) + " |", flush=True)
                path.unlink()


if __name__ == "__main__":
    main()
