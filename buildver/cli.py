"""The ``buildver`` command line: thin typer commands over the library; the only module that prints or exits.

Start-up time matters (build machines and pre-commit run this on every build and commit), so library modules
other than the small core are imported inside the commands that use them.

No ``from __future__ import annotations`` here: typer would then evaluate every option's annotation from its
text at each start (about 5 ms for update-local); real annotation objects are read directly.
"""

import enum
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli_common import (
    FileOption,
    JsonFlag,
    colour_diff,
    new_app,
    palette,
    parse_version,
    print_error,
    print_json,
)
from buildver.engine_version import EngineVersion, VersionComparison
from buildver.errors import BuildverError

FirstVersion = Annotated[
    EngineVersion,
    typer.Argument(
        parser=parse_version, metavar="FIRST", help="The first version: MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"
    ),
]
SecondVersion = Annotated[
    EngineVersion,
    typer.Argument(
        parser=parse_version, metavar="SECOND", help="The second version: MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"
    ),
]


class OutputFormat(enum.Enum):
    """How ``show`` prints: a summary for people, one JSON document, or NAME=value lines."""

    TEXT = "text"
    JSON = "json"
    ENV = "env"


def _complete_field(incomplete: str) -> list[str]:
    from buildver.report import FIELD_NAMES

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
    from buildver.config import load_config
    from buildver.current import load_version_file
    from buildver.report import FIELD_NAMES, bare_values, describe_version_file, environment_lines, field_value
    from buildver.report import show_fields as all_fields

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


COMPARE_EXIT_CODES = {VersionComparison.NEITHER: 0, VersionComparison.FIRST: 11, VersionComparison.SECOND: 12}
"""``compare``'s exit code: 0 when neither is newer, 11 when the first is, 12 when the second is (as rpmdev-vercmp);
1 and 2 stay what they are for every command (a failure, bad usage)."""


def compare(first: FirstVersion, second: SecondVersion, json_output: JsonFlag = False) -> None:
    """Tell which of two engine versions is newer, by which component and rule (Unreal's GetNewest).

    Exit 0 when neither is newer, 11 when the first is, 12 when the second is.
    """
    from buildver.report import compare_versions

    comparison = compare_versions(first, second)
    if json_output:
        print_json(comparison.to_json())
    else:
        print(comparison.sentence())
    raise typer.Exit(COMPARE_EXIT_CODES[comparison.newer])


def compatible(first: FirstVersion, second: SecondVersion, json_output: JsonFlag = False) -> None:
    """Exit 0 when the first version can load data saved by the second (IsCompatibleWith), 1 when not; say why."""
    from buildver.report import check_compatibility

    compatibility = check_compatibility(first, second)
    if json_output:
        print_json(compatibility.to_json())
    else:
        print(compatibility.sentence(), file=sys.stdout if compatibility.compatible else sys.stderr)
    if not compatibility.compatible:
        raise typer.Exit(1)


def _changelist(text: str | int) -> int:
    """A typer parser for changelists and flags: ASCII decimal digits only, from 0 to 2^31-1 (a usage error)."""
    if isinstance(text, int):  # typer passes the default value through the parser too
        return text
    from buildver.depot import changelist_problem

    problem = changelist_problem(text)
    if problem:
        raise typer.BadParameter(problem)
    return int(text)


def _environment_setting(text: str) -> tuple[str, str]:
    from buildver.uat_arguments import ENVIRONMENT_ARGUMENT

    match = ENVIRONMENT_ARGUMENT.fullmatch(text)
    if match is None:
        raise typer.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="'--env'")
    return match["name"], match["value"]


def update_local(
    file: FileOption = None,
    cl: Annotated[
        int | None,
        typer.Option(
            "--cl",
            parser=_changelist,
            metavar="INTEGER",
            show_default=False,
            help="The changelist; default: $uebp_CL, else a Perforce CI's changelist, else the number of commits "
            "reachable from HEAD in git.",
        ),
    ] = None,
    compatible_cl: Annotated[
        int | None,
        typer.Option(
            "--compatible-cl",
            parser=_changelist,
            metavar="INTEGER",
            show_default=False,
            help="The changelist this build is API-compatible with; 0 means not given; default: the rules' "
            "(see --rules and the README).",
        ),
    ] = None,
    build: Annotated[
        str | None,
        typer.Option(help="The BuildVersion string (BUILD_VERSION); cleared when absent, as in Unreal 4.21 on."),
    ] = None,
    skip_header: Annotated[bool, typer.Option("--skip-header", help="Leave the C header alone.")] = False,
    header: Annotated[
        Path | None,
        typer.Option(
            help="The header to write; default: the configured one, else a 4.18 engine's Version.h, else "
            "BuildVersion.h beside a version file that is not an engine's (engines from 4.20: none).",
            show_default=False,
        ),
    ] = None,
    licensee: Annotated[
        bool | None,
        typer.Option(
            "--licensee/--no-licensee",
            help="Set IsLicenseeVersion to 1 or 0; default: the rules' (engines from 4.20: 1 unless Epic's "
            "internal marker file exists; elsewhere: keep).",
            show_default=False,
        ),
    ] = None,
    promoted: Annotated[
        int,
        typer.Option(
            parser=_changelist,
            metavar="INTEGER",
            help="IsPromotedBuild: any non-zero integer writes 1.",
        ),
    ] = 1,
    branch: Annotated[str | None, typer.Option(help="The branch name, as given (e.g. ++UE5+Main).")] = None,
    depot_path: Annotated[
        str | None,
        typer.Option(help="A depot path to escape as Unreal does: //UE4/Release-4.19 -> ++UE4+Release-4.19."),
    ] = None,
    new_build_id: Annotated[
        bool,
        typer.Option(
            "--new-build-id",
            help="Write a fresh BuildId (a lowercase GUID). Forcing a BuildId is "
            "discouraged by Epic: stale modules then load silently.",
        ),
    ] = False,
    build_id: Annotated[
        str | None,
        typer.Option(
            help="Force this BuildId. Discouraged by Epic's documentation: modules built with another "
            "build keep loading, which makes outdated plugin code easy to run."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the planned changes as a diff; write nothing.")
    ] = False,
    json_output: JsonFlag = False,
    force: Annotated[
        bool, typer.Option("--force", help="Clear a read-only flag first, as Unreal's MakeFileWriteable.")
    ] = False,
    rules: Annotated[
        str | None,
        typer.Option(
            help="Follow this engine release's UpdateLocalVersion (X.Y[.Z]) or buildver's own rules (buildver); "
            "default: the engine's own release on an engine tree, buildver's elsewhere.",
            show_default=False,
        ),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            metavar="NAME=VALUE",
            help="Set a variable for this run (uebp_CL=123 without a dash, as UAT takes it, works too).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Stamp Build.version and its C header with a changelist and branch, as Unreal's UpdateLocalVersion does.

    Unreal's spelling works too: -CL=123 -CompatibleCL=100 -Build=Nightly -SkipHeader -Licensee -Promoted=1
    -Branch=++UE5+Main.
    """
    from buildver.config import load_config
    from buildver.current import version_file_path
    from buildver.report import describe_rules, update_document, update_summary
    from buildver.update_local import UpdateRequest
    from buildver.update_local import update_local as run_update

    config = load_config()
    version_path = version_file_path(file, config=config)
    request = UpdateRequest(
        changelist=cl,
        compatible_changelist=compatible_cl,
        build=build,
        licensee=licensee,
        promoted=promoted,
        branch=branch,
        depot_path=depot_path,
        skip_header=skip_header,
        header=header,
        new_build_id=new_build_id,
        build_id=build_id,
        force=force,
        rules=rules,
    )
    import os

    environment = {**os.environ, **dict(_environment_setting(text) for text in env or [])}
    plan, written = run_update(version_path, request, config=config, environment=environment, dry_run=dry_run)
    if json_output:
        print_json(update_document(plan))
    elif dry_run:
        sys.stdout.write(describe_rules(plan))
        diff = "".join(change.diff() for change in plan.changes)
        sys.stdout.write(colour_diff(diff, palette(sys.stdout)) if diff else "nothing to change\n")
    else:
        sys.stdout.write(update_summary(plan, written))


def header_command(
    file: FileOption = None,
    header: Annotated[Path | None, typer.Option(help="The header; default as for update-local.")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 with a diff when out of date.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Clear a read-only flag first.")] = False,
) -> None:
    """Regenerate (or patch) the C header from the current Build.version."""
    from buildver.config import load_config
    from buildver.current import version_file_path
    from buildver.update_local import write_header

    config = load_config()
    version_path = version_file_path(file, config=config)
    plan, written = write_header(version_path, config=config, header=header, write=not check, force=force)
    change = plan.change
    if change is None:
        chosen = plan.rules
        why = (
            "skip-header is set in the configuration"
            if config.skip_header
            else f"{chosen.rules.describe()} leaves Version.h alone ({chosen.reason}); "
            "name one with --header or header = PATH in [tool.buildver]"
        )
        print(f"no header to {'check' if check else 'write'}: {why}")
    elif check and change.changed:
        sys.stdout.write(colour_diff(change.diff(), palette(sys.stdout)))
        print(f"{change.path}: out of date; run: buildver header", file=sys.stderr)
        raise typer.Exit(1)
    else:
        print(f"wrote {change.path}" if written else f"{change.path}: up to date")


def _release(text: str) -> EngineVersion:
    """``init --version``: MAJOR.MINOR.PATCH only (update-local stamps the changelist and branch)."""
    version = parse_version(text)
    if not text.isascii() or text.count(".") != 2 or not all(part.isdigit() for part in text.split(".")):
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
    from buildver.init import init_project

    release = None if version is None else (version.major, version.minor, version.patch)
    created, config_path = init_project(Path.cwd(), file=file, release=release)
    if created is not None:
        print(f"created {created} for {'.'.join(map(str, release or ()))} in Unreal's writer layout")
    print(f"wrote the [tool.buildver] section to {config_path}")


def guard_command(files: Annotated[list[Path] | None, typer.Argument(show_default=False)] = None) -> None:
    """Check staged Build.version, header, packages and .modules manifests (the pre-commit hook)."""
    from buildver.cli_guard import guard

    guard(files)


_COMMANDS: dict[str, Callable[..., None]] = {
    "show": show,
    "compare": compare,
    "compatible": compatible,
    "update-local": update_local,
    "header": header_command,
    "init": init,
    "guard": guard_command,
}
_SUB_APPS = {
    "assets": "buildver.cli_assets:assets_app",
    "data": "buildver.cli_data:data_app",
    "project": "buildver.cli_project:project_app",
}


COMPLETION_VARIABLE = "_BUILDVER_COMPLETE"
"""Set by the completion script that ``--show-completion`` prints, when the shell asks for completions."""


def build_app(arguments: list[str]) -> typer.Typer:
    """The typer app with the command that ``arguments`` ask for, or with every command for help or a typo.

    typer builds the options of every registered command at each start (about 1 ms each, 15 ms in all on the
    benchmark machine), so a run registers only the command it runs. The completion options come with the whole
    app: only when no known command is asked for (``buildver --show-completion``, the main help) or while the
    shell asks for completions, so that a command run pays nothing for them.
    """
    import os

    wanted = next((argument for argument in arguments if not argument.startswith("-")), None)
    known = wanted in _COMMANDS or wanted in _SUB_APPS
    completing = COMPLETION_VARIABLE in os.environ
    app = new_app(
        "Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules.",
        "buildver",
        completion=completing or not known,
    )
    # A callback keeps the app a group even with a single command registered; it holds --version.
    app.callback()(_group)
    if arguments == ["--version"] and not completing:
        names: list[str] = []
    else:
        names = [wanted] if wanted is not None and known and not completing else [*_COMMANDS, *_SUB_APPS]
    for name in names:
        if name in _COMMANDS:
            app.command(name)(_COMMANDS[name])
        else:
            import importlib

            module, attribute = _SUB_APPS[name].split(":")
            app.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return app


def _print_version(value: bool) -> None:
    """``--version``: the installed package's version, from its metadata (not a copy kept in the code)."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        print(f"buildver {version('buildver')}")
    except PackageNotFoundError:
        raise BuildverError("the buildver package is not installed: install it with pip") from None
    raise typer.Exit()


def _group(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print buildver's version and exit."),
    ] = False,
) -> None:
    """Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every BuildverError and usage error becomes one ``buildver: error:`` line and an exit code."""
    import os

    try:
        os.getcwd()
    except FileNotFoundError:  # every command looks for files from here
        print_error("the current folder no longer exists; change to a folder that does")
        return 1
    try:
        from buildver.uat_arguments import translate_unreal_arguments

        arguments, ignored = translate_unreal_arguments(sys.argv[1:] if argv is None else argv)
        if ignored:
            print(f"buildver: note: UAT's {' '.join(ignored)} has no effect here", file=sys.stderr)
        if not arguments or (len(arguments) == 1 and arguments[0] in _SUB_APPS):
            arguments = [*arguments, "--help"]
        result = build_app(arguments)(args=arguments, prog_name="buildver", standalone_mode=False)
    except BuildverError as exc:
        print_error(str(exc))
        return exc.exit_code
    except typer.Abort:
        print_error("aborted")
        return 1
    except typer.TyperException as exc:
        # typer's vendored click raises UsageError/BadParameter (exit 2) and ClickException (exit 1).
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        print_error(message)
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    except SystemExit as exc:
        # typer's completion options and the shell's completion requests end with sys.exit.
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except OSError as exc:
        if exc.filename is not None:
            # A file or folder the library did not expect to lose (the current folder removed, say).
            print_error(f"{exc.filename}: {exc.strerror or exc}")
            return 1
        # Otherwise the output failed (a full disk, a closed pipe): every file is written through buildver.changes,
        # which reports its own errors. Later writes to stdout go nowhere instead of failing again.
        _silence_stdout()
        if not isinstance(exc, BrokenPipeError):
            print_error(f"cannot write the output ({exc.strerror or exc})")
        return 1
    return result if isinstance(result, int) else 0


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:
    """The console-script entry point."""
    sys.exit(main())
