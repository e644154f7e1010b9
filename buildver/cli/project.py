"""``buildver project``: which projects and plugins this engine build can load; thin, printing only.

Registered in ``buildver.cli.app`` with ``app.add_typer(project_app, name="project")``. The rules are in
``buildver.projects.check``, imported inside the command so that other commands start fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from buildver.cli.common import (
    AgainstOption,
    FileOption,
    FormatOption,
    ReportFormat,
    choose_format,
    judging_engine,
    new_app,
    print_error,
    print_json,
    print_warning,
)
from buildver.text import printable

if TYPE_CHECKING:
    from buildver.projects.check import ProjectReport

project_app = new_app("Unreal projects and plugins: which ones this engine build can load.")


@project_app.command("check")
def check_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            exists=True,
            metavar="[PATH]",
            help="A project folder, a .uproject or a .uplugin (default: the game or plugin here, else this folder).",
            show_default=False,
        ),
    ] = None,
    file: FileOption = None,
    against: AgainstOption = None,
    engine_plugins: Annotated[
        bool,
        typer.Option("--engine-plugins", help="Check the engine's own plugins too (Engine/Plugins and extensions)."),
    ] = False,
    output_format: FormatOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document (as --format json).")] = False,
) -> None:
    """Check each .uproject, .uplugin and binaries .modules against this engine build; exit 1 when one is refused.

    In a game project the engine build is the project's engine (as ``buildver engine`` finds it), unless --file or
    --against names another.
    """
    from buildver.projects.check import check_project
    from buildver.projects.place import PlaceKind, find_place
    from buildver.projects.verdicts import Status

    chosen = choose_format(json_output, output_format)
    place = None
    if path is None:  # the whole game or plugin the command runs in, not only the folder (Content/ holds none)
        place = find_place(Path("."))
        path = place.root if place.kind in (PlaceKind.GAME, PlaceKind.PLUGIN) else Path(".")
    engine = judging_engine(path, file, against, place=place)
    engine_build = engine.build
    report = check_project(path, engine_build, engine_plugins=engine_plugins)
    if chosen is ReportFormat.JSON:
        print_json(report.to_json(), "project-check")
    elif chosen is ReportFormat.TEXT:
        sys.stdout.write(render_table(report, None if engine.version_file is not None else engine.how))
    else:
        _write_report(chosen, report, path)
    for result in report.results:
        if result.status is Status.MALFORMED:
            print_error(f"{printable(result.path)}: {printable(result.reason)}")
        for warning in result.warnings:  # Unreal loads the file; a reader should know
            print_warning(f"{result.path}: {warning}")
    if report.failed:
        raise typer.Exit(1)


def _write_report(chosen: ReportFormat, report: ProjectReport, checked: Path) -> None:
    """The verdicts in a CI format: a failure per file Unreal refuses or cannot read, a warning per file that loads
    with a warning, converts or leads to another engine, and per warning about a file; a passed test per other."""
    from buildver.cli.report_formats import Entry, Level, Report, open_report
    from buildver.projects.verdicts import Status

    rules = {str(status): status.description for status in Status if status is not Status.COMPATIBLE}
    rules["descriptor-warning"] = "Unreal reads the file without a word, but a reader should know (a repeated key)"
    writer = open_report(chosen, Report("project check", rules, checked.parent if checked.is_file() else checked))
    for result in report.results:
        where = result.location or result.path
        if result.status is Status.COMPATIBLE:
            writer.add(Entry(where, Level.PASS, "", ""))
        else:
            level = Level.ERROR if result.status.is_failure else Level.WARNING
            writer.add(Entry(where, level, str(result.status), result.reason))
        for warning in result.warnings:
            writer.add(Entry(where, Level.WARNING, "descriptor-warning", warning))
    writer.close(_counts_line(report))


def _counts_line(report: ProjectReport) -> str:
    """The closing line: how many files were checked, and how many of each status."""
    counts = report.counts()
    total = sum(counts.values())
    if not total:
        return "nothing to check: no .uproject, .uplugin or binaries .modules found"
    return f"{total} checked: " + ", ".join(f"{count} {status}" for status, count in counts.items())


DECLARED_WIDTH = 26
"""The DECLARED column's least width; it widens to the longest value, so that a braced GUID (38 characters) or a
path association is shown whole."""


def render_table(report: ProjectReport, source: str | None = None) -> str:
    """One row per file (its reason below when it is not simply compatible), then the counts; malformed files are
    left to the error lines on stderr. ``source``: where an engine without a Build.version came from."""
    from buildver.projects.verdicts import Status

    shown = [result for result in report.results if result.status is not Status.MALFORMED]
    declared = ["-" if result.declared is None else printable(result.declared) or '""' for result in shown]
    width = max([DECLARED_WIDTH, *map(len, declared)])

    def row(status: str, kind: str, value: str, path: str) -> str:
        return f"{status:<14} {kind:<8} {value:<{width}} {path}".rstrip()

    lines = [
        f"engine {report.engine}, CompatibleWith() {report.compatible_with} "
        f"({printable(report.version_file or source or '--against')})",
        row("STATUS", "KIND", "DECLARED", "PATH"),
    ]
    for result, value in zip(shown, declared, strict=True):
        lines.append(row(result.status, result.kind, value, printable(result.path)))
        if result.status is not Status.COMPATIBLE:
            lines.append(f"    {printable(result.reason)}")
    lines.append(_counts_line(report))
    return "\n".join(lines) + "\n"
