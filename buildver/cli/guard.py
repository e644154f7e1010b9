"""``buildver guard``: the pre-commit version guard; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. The checks are in
``buildver.guard.checks``, run by ``buildver.guard.run``, imported inside the command so that other commands start
fast; git runs through ``buildver.vcs`` (plumbing commands, each under a time limit). No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from buildver.cli.common import FormatOption, ReportFormat, choose_format, echo, palette, print_json

if TYPE_CHECKING:
    from buildver.guard.settings import GuardReport

NOT_IN_GIT = "buildver guard: not in a git repository; nothing to check"


def guard(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="[FILES]...",
            help="The files to check (pre-commit passes them); default: every staged file.",
            show_default=False,
        ),
    ] = None,
    output_format: FormatOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document (as --format json).")] = False,
) -> None:
    """Check staged Build.version, header, packages and .modules manifests (the pre-commit hook)."""
    from buildver.guard.run import run_guard

    chosen = choose_format(json_output, output_format)
    report = run_guard(Path.cwd(), files)
    if chosen is ReportFormat.JSON:
        from buildver.guard.settings import GuardReport

        print_json((report or GuardReport((), 0)).to_json(), "guard")  # outside git: no root, nothing checked
    elif chosen is not ReportFormat.TEXT:
        _write_report(chosen, report)
    elif report is None:
        echo(NOT_IN_GIT)
    else:
        paint = palette(sys.stdout)
        for finding in report.findings:
            print(finding.render(paint(finding.severity, finding.code)))
        echo(report.summary)
    if report is not None and report.errors:
        raise typer.Exit(1)


def _write_report(chosen: ReportFormat, report: "GuardReport | None") -> None:
    """The guard's report in a CI format: a passed test per file checked without findings, and each finding on its
    file and line (when known)."""
    from buildver.cli.report_formats import Entry, Level, Report, open_report
    from buildver.guard.settings import CHECKS

    base = Path.cwd() if report is None or report.root is None else report.root
    writer = open_report(chosen, Report("guard", {check.key: check.description for check in CHECKS}, base))
    if report is None:
        writer.close(NOT_IN_GIT)
        return
    found = {finding.path for finding in report.findings}
    entries = [Entry(path, Level.PASS, "", "") for path in report.files if path not in found]
    entries += [
        Entry(finding.path, Level(str(finding.severity)), finding.check, finding.message, finding.line)
        for finding in report.findings
    ]
    for entry in sorted(entries, key=lambda entry: entry.path):  # stable: each file's findings in the checks' order
        writer.add(entry)
    writer.close(report.summary)
