"""``buildver init``: the configuration, and a Build.version where there is none; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import (
    FileOption,
    echo,
    parse_version,
)
from buildver.versions.engine_version import EngineVersion


def _release(text: str) -> EngineVersion:
    """``init --version``: MAJOR.MINOR.PATCH only (update-local stamps the changelist and branch)."""
    version = parse_version(text)  # checks the digits
    if "-" in text or "+" in text:
        raise typer.BadParameter(f"{text!r} is not MAJOR.MINOR.PATCH (update-local stamps the changelist and branch)")
    return version


def init(
    file: FileOption = None,
    version: Annotated[
        EngineVersion | None,
        typer.Option(
            "--version",
            parser=_release,
            metavar="MAJOR.MINOR.PATCH",
            help="When the project has no Build.version: create Build/Build.version (or --file) at this release, "
            "in Unreal's writer layout.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a commented [tool.buildver] section into pyproject.toml (or a buildver.toml when there is none).

    In a project without a Build.version, --version M.m.p creates Build/Build.version first (both files are
    written together, or neither).
    """
    from buildver.stamp.init import init_project

    release = None if version is None else (version.major, version.minor, version.patch)
    result = init_project(Path.cwd(), file=file, release=release)
    if result.created is not None:
        why = "".join(f" ({note})" for note in result.notes)
        echo(f"created {result.created} for {'.'.join(map(str, release or ()))} in Unreal's writer layout{why}")
    echo(f"wrote the [tool.buildver] section to {result.settings}")
    if result.header is not None:
        import os

        header = Path(os.path.relpath(result.header)).as_posix()
        echo(f"set header = {header}: update-local writes it in the game's primary module")
