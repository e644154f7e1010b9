"""``buildver data``: inspect the versions of data documents and upgrade them with a program's schema.

Registered by the main app with ``app.add_typer(data_app, name="data")``. Every file is handled on its own: an
error is reported as ``buildver: error: ...`` and the other files go on; the exit code is the worst one.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from buildver.cli.common import JsonFlag, colour_diff, echo, new_app, palette, print_error, print_json
from buildver.errors import BuildverError

if TYPE_CHECKING:
    from buildver.serialization import DocumentVersions, Schema

data_app = new_app("Versioned JSON data: show the versions documents were saved with, upgrade them to the latest.")

FilesArgument = Annotated[list[Path], typer.Argument(metavar="FILE...", help="JSON documents.", show_default=False)]
_PROGRESS_FROM = 20  # files; fewer finish before a bar would be read


def _error(exc: BuildverError) -> int:
    print_error(str(exc))
    return exc.exit_code


def _describe(versions: DocumentVersions, schema: Schema | None) -> str:
    from buildver.serialization import compare_versions

    if versions.problem is not None:
        return f"unreadable header: {versions.problem}"
    if versions.unversioned:
        return "unversioned (no $buildver header)"
    custom = ", ".join(
        f"{versions.custom_name(entry, schema) or entry.guid} {entry.version}" for entry in versions.custom
    )
    text = f"format {versions.format}, engine {versions.engine}, licensee {versions.licensee}, custom: {custom or '-'}"
    if schema is not None:
        differences = compare_versions(schema, versions)
        text += "; " + ("; ".join(str(difference) for difference in differences) if differences else "up to date")
    return text


@data_app.command("inspect")
def inspect_command(
    files: FilesArgument,
    schema_spec: Annotated[
        str | None,
        typer.Option("--schema", metavar="MODULE:OBJECT", help="Compare with this schema's versions."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Print the versions each document was saved with; never refuses newer data."""
    from buildver.serialization import import_schema, inspect_file

    schema = import_schema(schema_spec) if schema_spec else None
    exit_code = 0
    report: dict[str, object] = {}
    for path in files:
        try:
            versions = inspect_file(path)
        except BuildverError as exc:
            exit_code = max(exit_code, _error(exc))
            continue
        if json_output:
            report[str(path)] = versions.as_dict(schema)
        else:
            echo(f"{path}: {_describe(versions, schema)}")
    if json_output:
        print_json({"documents": report}, "data-inspect")
    if exit_code:
        raise typer.Exit(exit_code)


class UnversionedMode(enum.Enum):
    """What ``data upgrade`` does with a document that has no version header (LoadOptions.unversioned)."""

    ERROR = "error"
    OLDEST = "oldest"
    LATEST = "latest"


@data_app.command("upgrade")
def upgrade_command(
    files: FilesArgument,
    schema_spec: Annotated[
        str,
        typer.Option("--schema", metavar="MODULE:OBJECT", help="The Schema to load with (module or file.py)."),
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print a diff per file; write nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Make read-only documents writable.")] = False,
    unversioned: Annotated[
        UnversionedMode, typer.Option(help="Documents without header: error, oldest (version 0) or latest.")
    ] = UnversionedMode.ERROR,
) -> None:
    """Load each document with the schema and save it back at the latest versions, atomically per file."""
    from buildver.serialization import LoadOptions, import_schema, plan_upgrade, upgrade_file

    schema = import_schema(schema_spec)
    options = LoadOptions(unversioned=unversioned.value)
    exit_code = 0
    with typer.progressbar(
        files, label="upgrading", file=sys.stderr, hidden=len(files) < _PROGRESS_FROM or dry_run
    ) as progress:
        for path in progress:
            try:
                if dry_run:
                    plan = plan_upgrade(schema, path, options=options)
                    if plan.changed:
                        sys.stdout.write(colour_diff(plan.diff(), palette(sys.stdout)))
                    continue
                # Planned and written under the folder's lock, after the killed runs' leftovers are removed there.
                plan = upgrade_file(schema, path, options=options, force=force)
                if not plan.changed:
                    echo(f"{path}: up to date")
                    continue
            except BuildverError as exc:
                exit_code = max(exit_code, _error(exc))
                continue
            result = plan.result
            echo(
                f"{path}: upgraded from engine {result.versions.engine}: {len(result.upgraded)} upgraded, "
                f"{len(result.replaced)} replaced, {len(result.dropped)} dropped"
            )
    if exit_code:
        raise typer.Exit(exit_code)
