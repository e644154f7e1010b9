"""``buildver show``: the Build.version's fields, as text, JSON or NAME=value lines; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import enum
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import (
    FileOption,
    print_json,
)
from buildver.errors import UsageError
from buildver.text import printable


class OutputFormat(enum.Enum):
    """How ``show`` prints: a summary for people, one JSON document, or NAME=value lines."""

    TEXT = "text"
    JSON = "json"
    ENV = "env"


def _complete_field(incomplete: str) -> list[str]:
    from buildver.projects.game import GAME_FIELD_NAMES
    from buildver.versions.report import FIELD_NAMES

    return [name for name in (*FIELD_NAMES, *GAME_FIELD_NAMES) if name.lower().startswith(incomplete.lower())]


def show(
    file: FileOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document (as --format json).")] = False,
    output_format: Annotated[
        OutputFormat | None,
        typer.Option(
            "--format",
            help="text: a summary; json: one document; env: NAME=value lines for eval or $GITHUB_ENV.",
            show_default=False,
        ),
    ] = None,
    fields: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            metavar="NAME",
            help="Only this field (a JSON key, any case; repeatable): in text, its bare value on a line.",
            autocompletion=_complete_field,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show the Build.version: its fields and the engine versions Unreal derives from them; in a game project, the
    game's own versions too (ProjectVersion, Android's version codes and name, iOS's VersionInfo)."""
    from buildver.file_names import find_project
    from buildver.versions.config import load_config
    from buildver.versions.current import load_version_file
    from buildver.versions.report import FIELD_NAMES, describe_version_file, environment_lines, field_value, value_lines
    from buildver.versions.report import show_fields as all_fields

    if json_output and output_format not in (None, OutputFormat.JSON):
        raise typer.BadParameter(f"--json and --format {output_format.value} disagree", param_hint="'--format'")
    chosen = OutputFormat.JSON if json_output else output_format or OutputFormat.TEXT
    names = _field_names(fields or [], FIELD_NAMES)
    version_file = load_version_file(file, config=load_config())
    # Only a Build.version in a project pays for reading the project's config files.
    project = find_project(Path(os.path.abspath(version_file.path)).parent)
    game = None
    if project is not None:
        from buildver.projects.game import read_game_project

        game = read_game_project(project)
    game_fields = {} if game is None else game.fields()
    for name in names:
        if name not in FIELD_NAMES and name not in game_fields:
            where = "no .uproject at or above the Build.version" if game is None else game.describe()
            raise UsageError(f"{version_file.path}: no {name} here ({where})")
    if names:
        shown = {
            name: game_fields[name].value if name in game_fields else field_value(version_file, name) for name in names
        }
    else:
        shown = {**all_fields(version_file), **{name: sourced.value for name, sourced in game_fields.items()}}
    if chosen is OutputFormat.JSON:
        if game is not None and not names:
            shown["Project"] = str(game.project)
            shown["GameVersionSources"] = {name: f"{item.source}: {item.rule}" for name, item in game_fields.items()}
        print_json(shown)
    elif chosen is OutputFormat.ENV:
        sys.stdout.write(environment_lines(version_file, shown))
    elif names:
        sys.stdout.write(value_lines(version_file, [(name, shown[name]) for name in names]))
    else:
        sys.stdout.write(describe_version_file(version_file))
        if game is not None:
            sys.stdout.write("".join(printable(line) + "\n" for line in game.lines()))


def _field_names(asked: list[str], build_version_names: tuple[str, ...]) -> list[str]:
    """The fields asked for, in their own spelling; a game's names are looked up only when one is asked for."""
    by_folded_name = {name.lower(): name for name in build_version_names}
    names = []
    for name in asked:
        if name.lower() not in by_folded_name:
            from buildver.projects.game import GAME_FIELD_NAMES

            by_folded_name.update({game_name.lower(): game_name for game_name in GAME_FIELD_NAMES})
            if name.lower() not in by_folded_name:
                known = ", ".join((*build_version_names, *GAME_FIELD_NAMES))
                raise typer.BadParameter(f"no field {name!r} (known: {known})", param_hint="'--field'")
        names.append(by_folded_name[name.lower()])
    return names
