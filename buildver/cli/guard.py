"""``buildver guard``: the pre-commit version guard; thin, printing only.

Registered in ``buildver.cli.app`` as ``app.command("guard")``. The checks are in ``buildver.guard.checks``, run by
``buildver.guard.run``, imported inside the command so that other commands start fast; git runs through
``buildver.vcs`` (plumbing commands, each under a time limit).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import echo, palette


def guard(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="[FILES]...",
            help="The files to check (pre-commit passes them); default: every staged file.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Check staged Build.version, header, packages and .modules manifests (the pre-commit hook)."""
    from buildver.guard.run import run_guard

    report = run_guard(Path.cwd(), files)
    if report is None:
        echo("buildver guard: not in a git repository; nothing to check")
        return
    paint = palette(sys.stdout)
    for finding in report.findings:
        print(finding.render(paint(finding.severity, finding.code)))
    echo(report.summary)
    if report.errors:
        raise typer.Exit(1)
