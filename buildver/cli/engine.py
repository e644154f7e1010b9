"""``buildver engine``: which engine a game project uses and where it is installed; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects (``buildver.cli.app``).
"""

from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import JsonFlag, echo, print_json


def engine(
    path: Annotated[
        Path,
        typer.Argument(
            exists=True,
            metavar="[PROJECT]",
            help="A .uproject, or a folder in a project (default: here); the nearest .uproject at or above it.",
            show_default=False,
        ),
    ] = Path("."),
    json_output: JsonFlag = False,
) -> None:
    """Which engine the project's EngineAssociation names, how Unreal resolves it, and its Build.version."""
    from buildver.errors import EngineLookupError, UsageError
    from buildver.projects.engine import project_engine
    from buildver.projects.place import PlaceKind, find_place
    from buildver.versions.build_version import load_build_version

    if path.is_file() and not path.name.lower().endswith(".uproject"):
        raise UsageError(f"{path}: not a .uproject; give a project's .uproject, or a folder in a project")
    place = find_place(path)
    if place.kind is not PlaceKind.GAME or place.project is None:
        raise EngineLookupError(f"{path}: not in a game project ({place.describe()}); give the project's .uproject")
    found = project_engine(place.project)
    version_file = load_build_version(found.version_file) if found.version_file.is_file() else None
    version = None if version_file is None else str(version_file.record.engine_version)
    if json_output:
        print_json({**found.to_json(), "engine_version": version})
        return
    association = found.association or "(none)"
    echo(f"project: {found.project}")
    echo(f"association: {association} ({found.kind})")
    echo(f"resolved by: {found.how}")
    echo(f"engine root: {found.root}")
    shown = version if version is not None else "no Engine/Build/Build.version there"
    echo(f"build version: {found.version_file} ({shown})")
