"""``buildver assets``: commands over Unreal package files (``.uasset``/``.umap``); thin, printing only.

Registered in ``buildver.cli.app`` with ``app.add_typer(assets_app, name="assets")``. The work is in
``buildver.packages.verdicts``, imported inside the command so that other commands start fast.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from json.encoder import encode_basestring  # the C string encoder json itself uses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from buildver.cli.common import (
    SCHEMA_VERSIONS,
    AgainstOption,
    FileOption,
    FormatOption,
    Palette,
    ReportFormat,
    choose_format,
    json_text,
    judging_engine,
    judging_tables,
    new_app,
    palette,
)
from buildver.text import printable
from buildver.versions.engine_version import EngineVersion

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from buildver.cli.report_formats import ReportWriter
    from buildver.packages.verdicts import ScanResult, ScanStatus
    from buildver.projects.place import PlaceEngine

assets_app = new_app("Unreal package files: which ones this engine can load.")


PROGRESS_AFTER_SECONDS = 1.0
"""A scan is "long", and gets a progress line on a terminal, once it has run this long."""


@assets_app.command("scan")
def scan_command(
    paths: Annotated[
        list[Path],
        typer.Argument(exists=True, metavar="PATH...", help="Packages, or folders to walk for .uasset and .umap."),
    ],
    against: AgainstOption = None,
    file: FileOption = None,
    output_format: FormatOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON document, an object per file (as --format json).")
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes reading headers. Default: one per idle CPU once the walk finds 5,000 packages, else 1.",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Say on stderr which reader reads the headers.")
    ] = False,
    allow_lfs_pointers: Annotated[
        bool,
        typer.Option(
            "--allow-lfs-pointers",
            help="Do not fail on Git LFS pointers (packages this checkout has not fetched); they are still listed.",
        ),
    ] = False,
) -> None:
    """Check every package against the current engine; exit 1 when any is newer-engine, corrupt or a Git LFS
    pointer (unless --allow-lfs-pointers)."""
    from buildver.packages.scanning import reader_description, scan_shared
    from buildver.projects.place import find_place
    from buildver.versions.config import load_config

    chosen = choose_format(json_output, output_format)

    # The engine of the place the first path is in: in a game, the project's engine, never the game's own version.
    # The settings are read even with --against: a bad configuration is refused whatever the command needs.
    place = None if against is not None or file is not None else find_place(paths[0], config=load_config())
    engine = judging_engine(
        paths[0], file, against, config=load_config() if place is None else place.config, place=place
    )
    tables = judging_tables(place, engine, paths[0])
    engine_version = engine.package_judge
    assert engine_version is not None  # judging_engine raises when none is known
    paths = _distinct(paths)
    if verbose:
        sys.stderr.write(f"buildver: reading package headers with {reader_description()}\n")
    interactive = sys.stdout.isatty() and sys.stderr.isatty()
    progress = _Progress(sys.stderr) if interactive else None
    heading = engine.describe() if engine.release_only else str(engine_version)
    output: _Output
    if chosen is ReportFormat.JSON:
        output = _JsonOutput(sys.stdout, engine)
    elif chosen is ReportFormat.TEXT:
        output = _TableOutput(sys.stdout, heading, palette(sys.stdout))
    else:
        output = _ReportOutput(chosen, allow_lfs_pointers)
    results = scan_shared(paths, engine_version, jobs=jobs, tables=tables)
    counts = _print_results(_in_words(results, engine) if engine.release_only else results, output, progress)
    failures = [status for status in counts if status.is_failure]
    if allow_lfs_pointers:
        failures = [status for status in failures if status != "lfs-pointer"]
    if failures:
        raise typer.Exit(1)


def _in_words(results: Iterable[tuple[str, ScanResult]], engine: PlaceEngine) -> Iterator[tuple[str, ScanResult]]:
    """The results with an engine known only by its release named as people say it (``PlaceEngine.in_words``); a
    result shared by many packages is rewritten once, so that the outputs still share it."""
    import dataclasses

    rewritten: dict[int, tuple[ScanResult, ScanResult]] = {}
    for path, result in results:
        if result.error is None:
            yield path, result
            continue
        known = rewritten.get(id(result))
        if known is None or known[0] is not result:
            if len(rewritten) >= _SHARED_TEXTS_LIMIT:
                rewritten.clear()
            known = rewritten[id(result)] = (result, dataclasses.replace(result, error=engine.in_words(result.error)))
        yield path, known[1]


def _distinct(paths: list[Path]) -> list[Path]:
    """The paths as given, less repeats (``DIR DIR``, ``DIR ./DIR``) and paths inside another given folder, so
    that each file is scanned and listed once."""
    resolved = {path: path.resolve() for path in paths}
    folders = {real for real in resolved.values() if real.is_dir()}
    kept: dict[Path, Path] = {}
    for path, real in resolved.items():
        if real not in kept.values() and not any(parent in folders for parent in real.parents):
            kept[path] = real
    return list(kept)


def _print_results(
    results: Iterable[tuple[str, ScanResult]], output: _Output, progress: _Progress | None
) -> Counter[ScanStatus]:
    """Write each result as it comes (between redraws of the progress bar); the count of each status."""
    counts: Counter[ScanStatus] = Counter()
    for path, result in results:
        counts[result.status] += 1
        output.add(path, result)
        if progress is not None:
            progress.advance(output)
        elif len(output.pending) >= 512:
            output.flush()
    if progress is not None:
        progress.clear()
    output.close(counts)
    return counts


def json_object(result: ScanResult) -> str:
    """``json.dumps(result.to_json(), ensure_ascii=False)``, written directly.

    Encoding each object through ``json`` cost about a quarter of a single-process scan of small packages; the
    fields are few and their types known, so they are formatted here (the tests compare the two).
    """
    return (
        f'{{"path": {encode_basestring(result.path)}, "status": "{result.status}", '
        f'"legacy_file_version": {_number(result.legacy_file_version)}, '
        f'"file_version_ue4": {_number(result.file_version_ue4)}, '
        f'"file_version_ue5": {_number(result.file_version_ue5)}, '
        f'"licensee_version": {_number(result.licensee_version)}, '
        f'"saved_by": {_text(result.saved_by)}, "compatible_with": {_text(result.compatible_with)}, '
        f'"error": {_text(result.error)}}}'
    )


def _text(value: object) -> str:
    return "null" if value is None else encode_basestring(str(value))


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


_SHARED_TEXTS_LIMIT = 4096
"""JSON texts of shared results kept: bounded, so that memory stays flat."""


class _JsonOutput:
    """One JSON document: ``schema_version``, the engine, an object per package (written as the results come, so
    that nothing is held in memory), then the counts.

    A result shared by many packages (the same header: ``scan_shared``) is formatted once; each of its packages
    then costs only its path's encoding. The text is kept with the result itself, so that the result's ``id``
    cannot be reused by another object while the text is kept.
    """

    def __init__(self, stream: TextIO, engine: PlaceEngine) -> None:
        import json

        self.stream = stream
        # schema_version first, as print_json writes every other document.
        head = {"schema_version": SCHEMA_VERSIONS["assets-scan"], "engine": engine.to_json()}
        self.pending: list[str] = [json.dumps(head, indent=2, ensure_ascii=False)[:-2] + ',\n  "packages": [']
        self.first = True
        self.shared: dict[int, tuple[ScanResult, str]] = {}

    def add(self, path: str, result: ScanResult) -> None:
        separator = "\n    " if self.first else ",\n    "
        self.first = False
        if result.path:
            self.pending.append(separator + json_object(result))
            return
        known = self.shared.get(id(result))
        if known is None:
            if len(self.shared) >= _SHARED_TEXTS_LIMIT:
                self.shared.clear()
            text = json_object(result)
            known = self.shared[id(result)] = (result, text[text.index(", ") :])  # after the empty path
        self.pending.append(f'{separator}{{"path": {encode_basestring(path)}{known[1]}')

    def flush(self) -> None:
        self.stream.write(json_text("".join(self.pending)))  # a name that is not UTF-8, escaped as print_json does
        self.pending.clear()

    def close(self, counts: Counter[ScanStatus]) -> None:
        import json

        ordered = {str(status): counts[status] for status in _statuses() if counts[status]}
        end = "]" if self.first else "\n  ]"
        self.pending.append(f'{end},\n  "counts": {json.dumps(ordered)}\n}}\n')
        self.flush()


class _TableOutput:
    """One row per file (the reason on the line below when there is one), then the counts per status."""

    COLUMNS = "{:<21} {:<4} {:<4} {:<5} {:<4} {:<42} {}"

    def __init__(self, stream: TextIO, engine: EngineVersion | str, paint: Palette | None = None) -> None:
        self.stream = stream
        self.paint = paint or Palette(False)
        header = self.COLUMNS.format("STATUS", "L", "UE4", "UE5", "LIC", "SAVED BY", "PATH")
        self.pending = [f"against {engine}\n{header}\n"]

    def add(self, path: str, result: ScanResult) -> None:
        def text(value: object) -> str:
            return "-" if value is None else str(value)

        status: str = result.status
        if self.paint.enabled:  # padded here: the codes take no room on the screen
            style = "red" if result.status.is_failure else "green" if result.status == "ok" else "yellow"
            status = self.paint(style, status) + " " * (21 - len(status))
        row = self.COLUMNS.format(
            status,
            text(result.legacy_file_version),
            text(result.file_version_ue4),
            text(result.file_version_ue5),
            text(result.licensee_version),
            text(result.saved_by),
            printable(path),
        )
        self.pending.append(row + "\n" if result.error is None else f"{row}\n    {printable(result.error)}\n")

    def flush(self) -> None:
        self.stream.write(json_text("".join(self.pending)))  # a name that is not UTF-8, escaped as print_json does
        self.pending.clear()

    def close(self, counts: Counter[ScanStatus]) -> None:
        self.pending.append(_counts_line(counts) + "\n")
        self.flush()


def _statuses() -> list[ScanStatus]:
    from buildver.packages.verdicts import ScanStatus

    return list(ScanStatus)


def _counts_line(counts: Counter[ScanStatus]) -> str:
    """The closing line: how many files, and how many of each status (none: "no packages found")."""
    total = sum(counts.values())
    if not total:
        return "no packages found"
    parts = ", ".join(f"{counts[status]} {status}" for status in _statuses() if counts[status])
    return f"{total} file{'s' if total != 1 else ''}: {parts}"


class _ReportOutput:
    """A CI report (``buildver.cli.report_formats``): a failure per package that fails the scan, a warning per
    package to look at, a passed test per package this engine loads."""

    def __init__(self, chosen: ReportFormat, allow_lfs_pointers: bool) -> None:
        from buildver.cli.report_formats import Level, Report, open_report
        from buildver.packages.verdicts import ScanStatus

        # What fails the scan fails its test; any other status but ok is worth a look.
        self.levels = {
            status: Level.PASS if status is ScanStatus.OK else Level.ERROR if status.is_failure else Level.WARNING
            for status in ScanStatus
        }
        if allow_lfs_pointers:
            self.levels[ScanStatus.LFS_POINTER] = Level.WARNING
        rules = {str(status): status.description for status in ScanStatus if status is not ScanStatus.OK}
        self.writer: ReportWriter = open_report(chosen, Report("assets scan", rules, Path.cwd()))
        self.pending: list[str] = []  # the writer writes each entry as it comes

    def add(self, path: str, result: ScanResult) -> None:
        from buildver.cli.report_formats import Entry

        status = result.status
        self.writer.add(Entry(path, self.levels[status], str(status), result.error or status.description))

    def flush(self) -> None:
        pass

    def close(self, counts: Counter[ScanStatus]) -> None:
        self.writer.close(_counts_line(counts))


class _Progress:
    """A progress line on stderr (files so far and the rate), drawn once the scan has run for a while; rows are
    written between redraws. It shows no total: counting the files first would walk the tree twice."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.done = 0
        self.start = time.monotonic()
        self.next_draw = self.start + PROGRESS_AFTER_SECONDS
        self.shown = False

    def advance(self, output: _Output) -> None:
        self.done += 1
        now = time.monotonic()
        if now < self.next_draw and len(output.pending) < 1000:
            return
        self.next_draw = now + 0.1
        self.clear()
        output.flush()
        sys.stdout.flush()
        if now - self.start >= PROGRESS_AFTER_SECONDS:
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.done / max(now - self.start, 1e-9)
        files = f"{self.done:,} file{'s' if self.done != 1 else ''}"
        self.stream.write(f"\rscanning: {files}, {rate:,.0f}/s")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


_Output = _JsonOutput | _TableOutput | _ReportOutput
