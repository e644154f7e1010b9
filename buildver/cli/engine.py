"""``buildver engine`` and ``buildver engines``: which engine a game project uses and where it is installed, this
machine's engines, registering a source build and switching a project's engine; thin, printing only.

``buildver engine [PROJECT]`` is a command with a positional argument, and ``register`` and ``switch`` are
sub-commands beside it: ``buildver.cli.app`` registers ``engine_actions_app`` as ``engine`` only when the word
after ``engine`` is one of them, and the ``engine`` command otherwise (a project folder named ``register`` or
``switch`` is then given as ``./register``). Registered by ``buildver.cli.app`` and imported only when these
commands run. No ``from __future__ import
annotations``: typer reads the real annotation objects (``buildver.cli.app``).
"""

import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import JsonFlag, colour_diff, echo, new_app, palette, print_json, print_warning


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
    versions: Annotated[
        bool,
        typer.Option(
            "--versions",
            help="Print the version tables packages are judged by here: object versions, and each custom version "
            "with its GUID, name, latest version and the file and line that registers it.",
        ),
    ] = False,
) -> None:
    """Which engine the project's EngineAssociation names, how Unreal resolves it, and its Build.version.

    Also: buildver engine register FOLDER, buildver engine switch [PROJECT] ASSOCIATION (each takes --help).
    """
    from buildver.errors import BuildverError, EngineLookupError

    if versions:
        _print_versions(path, json_output)
        return
    from buildver.projects.engine import project_engine
    from buildver.versions.build_version import load_build_version

    project = _game_project(path)
    try:
        found = project_engine(project)
    except EngineLookupError as exc:  # not installed here: say what the other commands judge by instead
        from buildver.projects.place import engine_here

        try:
            fallback = engine_here(project)
        except BuildverError:
            raise exc from None
        if fallback.version is None:
            raise
        raise EngineLookupError(
            f"{exc}; project check, assets scan and the guard judge by {fallback.describe()}"
        ) from None
    version_file = load_build_version(found.version_file) if found.version_file.is_file() else None
    version = None if version_file is None else str(version_file.record.engine_version)
    if json_output:
        print_json({**found.to_json(), "engine_version": version}, "engine")
        return
    association = found.association or "(none)"
    echo(f"project: {found.project}")
    echo(f"association: {association} ({found.kind})")
    echo(f"resolved by: {found.how}")
    echo(f"engine root: {found.root}")
    shown = version if version is not None else "no Engine/Build/Build.version there"
    echo(f"build version: {found.version_file} ({shown})")


def _print_versions(path: Path, json_output: bool) -> None:
    """``engine --versions``: the tables of the place ``path`` is in."""
    from buildver.errors import EngineLookupError
    from buildver.projects.engine_tables import tables_here

    found, tables = tables_here(path)
    if found.version is None:
        raise EngineLookupError(found.missing or f"{path}: no engine is known here")
    if tables is None:
        raise EngineLookupError(
            f"{path}: buildver has no tables of {found.describe()}: no ObjectVersion.h in its tree, and no shipped "
            "tables of that release (or a licensee's build without its sources)"
        )
    if json_output:
        print_json({"engine": found.to_json(), **tables.to_json()}, "engine-versions")
        return
    echo(f"engine: {found.describe()}")
    echo(f"tables: {tables.source}")
    limits = tables.object_versions
    if limits is None:
        echo("object versions: not known")
    else:
        legacy = "not known" if limits.legacy_file_version is None else str(limits.legacy_file_version)
        echo(
            f"object versions: UE4 {limits.file_version_ue4}, UE5 {limits.file_version_ue5}, licensee "
            f"{limits.file_version_licensee}, LegacyFileVersion {legacy} ({limits.where})"
        )
    echo(f"custom versions: {len(tables.custom_versions)}")
    for entry in tables.custom_versions.values():
        module = f" [{entry.module}]" if entry.module else ""
        echo(f"  {entry.guid} {entry.name} {entry.version}{module} {entry.where}")
    for guid, why in tables.undecided.items():
        echo(f"undecided: {guid}: {why}")
    for problem in tables.problems:
        echo(f"not resolved: {problem}")
    for note in tables.notes:
        echo(f"left out: {note}")


def engines(json_output: JsonFlag = False) -> None:
    """This machine's engines, as UnrealVersionSelector lists them: launcher installs, then registered source builds."""
    from buildver.projects.machine_engines import machine_engines

    listed, looked = machine_engines()
    if json_output:
        print_json({"looked_in": looked, "engines": [engine.to_json() for engine in listed]}, "engines")
        return
    for engine in listed:
        shown = engine.version if engine.version is not None else f"no version: {engine.problem}"
        echo(f"{engine.installation.identifier} ({engine.kind}): {engine.installation.root} ({shown})")
        echo(f"    listed in {engine.installation.source}")
    if not listed:
        echo(f"no engines (looked in {', '.join(looked)})")


engine_actions_app = new_app(
    "Register a source build on this machine, or switch a project to another engine."
    " (buildver engine [PROJECT] [--json], without one of these, shows the project's engine.)"
)


DryRunFlag = Annotated[bool, typer.Option("--dry-run", help="Print what would change as a diff; write nothing.")]


@engine_actions_app.command("register")
def register_command(
    folder: Annotated[
        Path,
        typer.Argument(
            exists=True, file_okay=False, help="The engine's folder (it holds Engine/Binaries, Engine/Build)."
        ),
    ],
    dry_run: DryRunFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Register a source build as Unreal does here (Install.ini, or the registry on Windows); print its identifier."""
    from buildver.projects.machine_engines import register_engine

    registration = register_engine(folder, dry_run=dry_run)
    if json_output:  # one JSON document on stdout, the diff left out (as update-local --dry-run --json does)
        print_json({**registration.to_json(), "written": not dry_run and not registration.existing}, "engine-register")
        return
    if dry_run and registration.change is not None:
        sys.stdout.write(colour_diff(registration.change.diff(), palette(sys.stdout)))
    if registration.existing:
        echo(f"{registration.identifier}: already registered ({registration.where})")
        return
    if registration.note:
        echo(f"buildver: note: {registration.note}", err=True)
    if dry_run and registration.registry_value is not None:
        name, data = registration.registry_value
        echo(f"would add {registration.where}: {name} = {data}")
    verb = "would register" if dry_run else "registered"
    echo(f"{registration.identifier}: {verb} {registration.root} ({registration.where})")


@engine_actions_app.command("switch")
def switch_command(
    arguments: Annotated[
        list[str],
        typer.Argument(
            metavar="[PROJECT] ASSOCIATION",
            help="The .uproject (or a folder in the project; default: here), then the association: a release "
            "(5.3), a GUID or other registered name, a path relative to the project's folder, or '' for the "
            "engine in a folder above.",
            show_default=False,
        ),
    ],
    force: Annotated[bool, typer.Option("--force", help="Write an association this machine cannot resolve.")] = False,
    dry_run: DryRunFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Rewrite the .uproject's EngineAssociation in place, keeping every other byte."""
    from buildver.errors import UsageError
    from buildver.projects.engine_switch import switch_engine

    if len(arguments) not in (1, 2):
        raise UsageError("engine switch takes [PROJECT] ASSOCIATION: one or two arguments")
    path, association = (Path("."), arguments[0]) if len(arguments) == 1 else (Path(arguments[0]), arguments[1])
    switch = switch_engine(_game_project(path), association, force=force, dry_run=dry_run)
    if switch.problem:
        print_warning(f"{switch.problem.split('; install it')[0]}; written anyway (--force)")
    if dry_run and not json_output:  # --json: one JSON document on stdout, as update-local --dry-run --json
        diff = switch.change.diff()
        sys.stdout.write(colour_diff(diff, palette(sys.stdout)) if diff else "")
    if json_output:
        print_json({**switch.to_json(), "written": not dry_run and switch.change.changed}, "engine-switch")
    elif not switch.change.changed:
        echo(f"{switch.project}: EngineAssociation is {association!r} already")
    elif not dry_run:
        where = "" if switch.engine is None else f" ({switch.engine.root})"
        echo(f"{switch.project}: EngineAssociation {switch.previous!r} -> {association!r}{where}")


def _game_project(path: Path) -> Path:
    """The .uproject of the game at ``path`` (a .uproject, or a folder in a game)."""
    from buildver.errors import EngineLookupError, UsageError
    from buildver.projects.place import PlaceKind, find_place

    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if path.is_file() and not path.name.lower().endswith(".uproject"):
        raise UsageError(f"{path}: not a .uproject; give a project's .uproject, or a folder in a project")
    place = find_place(path)
    if place.kind is not PlaceKind.GAME or place.project is None:
        raise EngineLookupError(f"{path}: not in a game project ({place.describe()}); give the project's .uproject")
    return place.project
