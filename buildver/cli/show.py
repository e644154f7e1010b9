"""``buildver show``: the Build.version's fields, as text, JSON or NAME=value lines; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import enum
import sys
from typing import Annotated

import typer

from buildver.cli.common import (
    FileOption,
    print_json,
)


class OutputFormat(enum.Enum):
    """How ``show`` prints: a summary for people, one JSON document, or NAME=value lines."""

    TEXT = "text"
    JSON = "json"
    ENV = "env"


def _complete_field(incomplete: str) -> list[str]:
    from buildver.versions.report import FIELD_NAMES

    return [name for name in FIELD_NAMES if name.lower().startswith(incomplete.lower())]


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
    """Show the Build.version: its fields and the engine versions Unreal derives from them."""
    from buildver.versions.config import load_config
    from buildver.versions.current import load_version_file
    from buildver.versions.report import FIELD_NAMES, bare_values, describe_version_file, environment_lines, field_value
    from buildver.versions.report import show_fields as all_fields

    if json_output and output_format not in (None, OutputFormat.JSON):
        raise typer.BadParameter(f"--json and --format {output_format.value} disagree", param_hint="'--format'")
    chosen = OutputFormat.JSON if json_output else output_format or OutputFormat.TEXT
    by_folded_name = {name.lower(): name for name in FIELD_NAMES}
    names = []
    for name in fields or []:
        if name.lower() not in by_folded_name:
            raise typer.BadParameter(f"no field {name!r} (known: {', '.join(FIELD_NAMES)})", param_hint="'--field'")
        names.append(by_folded_name[name.lower()])
    version_file = load_version_file(file, config=load_config())
    shown = {name: field_value(version_file, name) for name in names} if names else all_fields(version_file)
    if chosen is OutputFormat.JSON:
        print_json(shown)
    elif chosen is OutputFormat.ENV:
        sys.stdout.write(environment_lines(version_file, shown))
    elif names:
        sys.stdout.write(bare_values(version_file, names))
    else:
        sys.stdout.write(describe_version_file(version_file))


"""``compare``'s exit code: 0 when neither is newer, 11 when the first is, 12 when the second is (as rpmdev-vercmp);
1 and 2 stay what they are for every command (a failure, bad usage)."""
