"""The ``buildver`` command line: thin typer commands over the library; the only module that prints or exits.

Start-up time matters (build machines and pre-commit run this on every build and commit), so library modules
other than the small core are imported inside the commands that use them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.engine_version import EngineVersion, VersionComparison
from buildver.errors import BuildverError

app = typer.Typer(
    name="buildver",
    help="Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

FileOption = Annotated[
    Path | None,
    typer.Option(
        "--file",
        "-f",
        help="The Build.version to use; default: Build/Build.version or Engine/Build/Build.version here or above.",
        show_default=False,
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def _parse_version(text: str) -> EngineVersion:
    try:
        return EngineVersion.parse(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


VersionArgument = Annotated[
    EngineVersion,
    typer.Argument(parser=_parse_version, metavar="VERSION", help="MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"),
]


@app.command()
def show(file: FileOption = None, json_output: JsonFlag = False) -> None:
    """Show the Build.version: its fields and the engine versions Unreal derives from them."""
    from buildver.build_version import load_build_version
    from buildver.report import describe_version_file, version_file_fields

    version_file = load_build_version(file)
    if json_output:
        _print_json(version_file_fields(version_file))
    else:
        sys.stdout.write(describe_version_file(version_file))


@app.command()
def compare(first: VersionArgument, second: VersionArgument) -> None:
    """Tell which of two engine versions is newer, and by which component (Unreal's GetNewest)."""
    newest, component = EngineVersion.get_newest(first, second)
    if newest is VersionComparison.NEITHER:
        print(f"neither: {first} and {second} are not ordered by Unreal's rules")
        return
    newer, older = (first, second) if newest is VersionComparison.FIRST else (second, first)
    assert component is not None
    print(f"{newest.name.lower()}: {newer} is newer than {older} by {component.name.lower()}")


@app.command()
def compatible(first: VersionArgument, second: VersionArgument) -> None:
    """Exit 0 when the first version can load data saved by the second (IsCompatibleWith), 1 when not."""
    if first.is_compatible_with(second):
        print(f"compatible: {first} can load data saved by {second}")
        return
    print(f"not compatible: {first} cannot load data saved by {second}", file=sys.stderr)
    raise typer.Exit(1)


def _print_json(document: object) -> None:
    import json

    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every BuildverError and usage error becomes one ``buildver: error:`` line and an exit code."""
    try:
        result = app(args=argv, prog_name="buildver", standalone_mode=False)
    except BuildverError as exc:
        print(f"buildver: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Abort:
        print("buildver: error: aborted", file=sys.stderr)
        return 1
    except typer.TyperException as exc:
        # typer's vendored click raises UsageError/BadParameter (exit 2) and ClickException (exit 1).
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        print(f"buildver: error: {message}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        print("buildver: error: interrupted", file=sys.stderr)
        return 130
    return result if isinstance(result, int) else 0


def run() -> None:
    """The console-script entry point."""
    sys.exit(main())
