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
    JsonFlag,
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
    json_output: JsonFlag = False,
) -> None:
    """Check each .uproject, .uplugin and binaries .modules against this engine build; exit 1 when one is refused.

    In a game project the engine build is the project's engine (as ``buildver engine`` finds it), unless --file or
    --against names another.
    """
    from buildver.projects.check import check_project
    from buildver.projects.place import PlaceKind, find_place
    from buildver.projects.verdicts import Status

    place = None
    if path is None:  # the whole game or plugin the command runs in, not only the folder (Content/ holds none)
        place = find_place(Path("."))
        path = place.root if place.kind in (PlaceKind.GAME, PlaceKind.PLUGIN) else Path(".")
    engine = judging_engine(path, file, against, place=place)
    engine_build = engine.build
    report = check_project(path, engine_build, engine_plugins=engine_plugins)
    if json_output:
        print_json(report.to_json())
    else:
        sys.stdout.write(render_table(report, None if engine.version_file is not None else engine.how))
    for result in report.results:
        if result.status is Status.MALFORMED:
            print_error(f"{printable(result.path)}: {printable(result.reason)}")
        for warning in result.warnings:  # Unreal loads the file; a reader should know
            print_warning(f"{result.path}: {warning}")
    if report.failed:
        raise typer.Exit(1)


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
    counts = report.counts()
    total = sum(counts.values())
    if total:
        parts = ", ".join(f"{count} {status}" for status, count in counts.items())
        lines.append(f"{total} checked: {parts}")
    else:
        lines.append("nothing to check: no .uproject, .uplugin or binaries .modules found")
    return "\n".join(lines) + "\n"
