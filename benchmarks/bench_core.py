"""Issues 2 and 15 benchmarks: start-up, ``EngineVersion`` parsing and comparisons, each beside its peer.

Run from the repository root after ``pip install -e ".[test]"``: ``python benchmarks/bench_core.py``. Printed, all
from one run:

- start-up: ``buildver show --json`` against ``python -c pass`` and ``import typer`` (wall time), and buildver's
  own import time from ``python -X importtime``: every module the command imports, less those ``import typer``
  imports (target, issue 15: at most 5 ms);
- ``EngineVersion.parse`` on ``M.m.p``, ``M.m.p-CL`` and ``M.m.p-CL+Branch`` against ``packaging.version.Version``
  on ``M.m.p`` (packaging's fastest form) and on the same form (``M.m.p-CL`` is a PEP 440 post-release; the branch
  is written as a local version, ``+ue5.release.5.3``) (target: at least 1x packaging on each form); and, for the
  record, ``M.m.p-CL+Branch`` texts whose releases are all different (parse remembers the releases it has checked);
- ``<`` and ``get_newest`` against packaging's ``<`` (target: at least 1x), ``is_compatible_with`` (target: at
  least 4 million a second).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from _timing import installed, interleaved_rates, wall_times
from packaging.version import Version

from buildver import EngineVersion
from buildver.versions.engine_version import _RELEASES

ROOT = Path(__file__).resolve().parents[1]
IMPORT_RUNS = 11


def _game_project() -> Path:
    """A game's repository as most users have one: Build/Build.version (this repository's) and no configuration.

    In this repository itself ``show`` also finds and parses buildver's own pyproject.toml (it names buildver),
    which a game project does not have: both places are measured.
    """
    import shutil
    import tempfile

    project = Path(tempfile.mkdtemp(prefix="bench-game-"))
    (project / ".git").mkdir()
    (project / "Build").mkdir()
    shutil.copy(ROOT / "Build" / "Build.version", project / "Build" / "Build.version")
    return project


def startup() -> None:
    python, executable = installed()
    python_pass = (python, "-c", "pass")
    project = _game_project()
    medians = wall_times(
        {
            "python -c pass": python_pass,
            "python -c 'import typer'": (python, "-c", "import typer"),
            "buildver show --json": (executable, "show", "--json"),
        },
        cwd=project,
    )
    in_repository = wall_times({"buildver show --json, in this repository": (executable, "show", "--json")}, cwd=ROOT)
    base = medians["python -c pass"]
    for name, median in {**medians, **in_repository}.items():
        print(f"{name:<42} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")
    import_times(python, executable, project)


def _self_times(command: list[str], cwd: Path = ROOT) -> dict[str, int]:
    """Microseconds each module took to import itself (``-X importtime``'s "self" column)."""
    stderr = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False).stderr
    modules = {}
    for line in stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            modules[name.strip()] = int(own)
    return modules


def import_times(python: str, executable: str, project: Path) -> None:
    """buildver's own import time on ``show --json`` in ``project``: what it imports beyond ``import typer``."""
    typer_totals, show_totals, own_totals = [], [], []
    extra: dict[str, list[int]] = {}
    for _ in range(IMPORT_RUNS):
        typer_only = _self_times([python, "-X", "importtime", "-c", "import typer"])
        show = _self_times([python, "-X", "importtime", executable, "show", "--json"], project)
        typer_totals.append(sum(typer_only.values()))
        show_totals.append(sum(show.values()))
        own = {name: time for name, time in show.items() if name not in typer_only}
        own_totals.append(sum(own.values()))
        for name, time in own.items():
            extra.setdefault(name, []).append(time)
    typer_ms, show_ms, own_ms = (statistics.median(totals) / 1000 for totals in (typer_totals, show_totals, own_totals))
    print(
        f"import time (-X importtime, medians of {IMPORT_RUNS}): 'import typer' {typer_ms:.1f} ms, "
        f"'buildver show --json' {show_ms:.1f} ms; buildver's own share (modules beyond typer's) {own_ms:.1f} ms "
        "(target: at most 5 ms)"
    )
    largest = sorted(extra.items(), key=lambda item: -statistics.median(item[1]))[:6]
    print("  largest: " + ", ".join(f"{name} {statistics.median(times) / 1000:.2f} ms" for name, times in largest))


def _report(rates: dict[str, float], peers: dict[str, str], target: str) -> None:
    for name, value in rates.items():
        peer = peers.get(name)
        ratio = f"   {value / rates[peer]:5.2f}x {peer}" if peer else ""
        print(f"  {name:<44} {value / 1e6:6.2f} M/s{ratio}")
    print(f"  ({target})")


def parse_unseen(texts: list[str]) -> list[EngineVersion]:
    """Parse with none of the releases remembered."""
    _RELEASES.clear()
    return [EngineVersion.parse(text) for text in texts]


def throughput() -> None:
    generator = random.Random(2026)
    texts = [f"{generator.randint(4, 5)}.{generator.randint(0, 27)}.{generator.randint(0, 9)}" for _ in range(20_000)]
    changelists = [f"{t}-{generator.randint(1, 50_000_000)}" for t in texts]
    full_texts = [f"{t}+++UE5+Release-5.{i % 8}" for i, t in enumerate(changelists)]
    local_texts = [f"{t}+ue5.release.5.{i % 8}" for i, t in enumerate(changelists)]
    # Every release different, none seen before: parse's longer way (a project names a few releases, which parse
    # remembers; this shows the cost without that).
    unseen = [f"{4 + i // 5000}.{i % 5000 // 10}.{i % 10}-{c.partition('-')[2]}" for i, c in enumerate(full_texts)]
    parse = EngineVersion.parse
    functions: dict[str, Callable[[], object]] = {
        "packaging Version M.m.p": lambda: [Version(t) for t in texts],
        "packaging Version M.m.p-CL": lambda: [Version(t) for t in changelists],
        "packaging Version M.m.p-CL+local": lambda: [Version(t) for t in local_texts],
        "EngineVersion.parse M.m.p": lambda: [parse(t) for t in texts],
        "EngineVersion.parse M.m.p-CL": lambda: [parse(t) for t in changelists],
        "EngineVersion.parse M.m.p-CL+Branch": lambda: [parse(t) for t in full_texts],
    }
    print("parse, 20,000 texts each:")
    rates = interleaved_rates(functions, len(texts))
    _report(
        rates,
        {
            "EngineVersion.parse M.m.p": "packaging Version M.m.p",
            "EngineVersion.parse M.m.p-CL": "packaging Version M.m.p",
            "EngineVersion.parse M.m.p-CL+Branch": "packaging Version M.m.p",
        },
        "target: at least 1x packaging's M.m.p, its fastest form, on each form",
    )
    # Apart, so that the releases it fills parse's memory with do not push out the others'.
    unseen_rates = interleaved_rates(
        {
            "packaging Version M.m.p": functions["packaging Version M.m.p"],
            "EngineVersion.parse, every release new": lambda: parse_unseen(unseen),
        },
        len(texts),
    )
    _report(unseen_rates, {"EngineVersion.parse, every release new": "packaging Version M.m.p"}, "for the record")
    same_form = {"M.m.p-CL": "packaging Version M.m.p-CL", "M.m.p-CL+Branch": "packaging Version M.m.p-CL+local"}
    for form, peer in same_form.items():
        ratio = rates[f"EngineVersion.parse {form}"] / rates[peer]
        print(f"  parse {form} against packaging on the same form: {ratio:.2f}x")

    engines = [parse(t) for t in full_texts]
    pairs = list(zip(engines, engines[1:] + engines[:1], strict=True))
    packaged = [Version(t) for t in texts]
    packaging_pairs = list(zip(packaged, packaged[1:] + packaged[:1], strict=True))
    print("comparisons, 20,000 pairs each:")
    compare_rates = interleaved_rates(
        {
            "packaging Version <": lambda: [a < b for a, b in packaging_pairs],
            "EngineVersion <": lambda: [a < b for a, b in pairs],
            "EngineVersion.get_newest": lambda: [EngineVersion.get_newest(a, b) for a, b in pairs],
            "is_compatible_with": lambda: [a.is_compatible_with(b) for a, b in pairs],
        },
        len(pairs),
        repeat=15,
    )
    _report(
        compare_rates,
        {"EngineVersion <": "packaging Version <", "EngineVersion.get_newest": "packaging Version <"},
        "targets: < and get_newest at least 1x packaging's <; is_compatible_with at least 4 M/s",
    )


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}")
    startup()
    throughput()
