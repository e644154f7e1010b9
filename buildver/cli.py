"""The ``buildver`` command line: thin typer commands over the library; the only module that prints or exits.

Start-up time matters (build machines and pre-commit run this on every build and commit), so library modules
other than the small core are imported inside the commands that use them.

No ``from __future__ import annotations`` here: typer would then evaluate every option's annotation from its
text at each start (about 5 ms for update-local); real annotation objects are read directly.
"""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli_common import FileOption, JsonFlag, new_app, parse_version, print_json
from buildver.engine_version import EngineVersion, VersionComparison
from buildver.errors import BuildverError

VersionArgument = Annotated[
    EngineVersion,
    typer.Argument(parser=parse_version, metavar="VERSION", help="MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"),
]


def show(file: FileOption = None, json_output: JsonFlag = False) -> None:
    """Show the Build.version: its fields and the engine versions Unreal derives from them."""
    from buildver.current import load_version_file
    from buildver.report import describe_version_file, version_file_fields

    version_file = load_version_file(file)
    if json_output:
        print_json(version_file_fields(version_file))
    else:
        sys.stdout.write(describe_version_file(version_file))


def compare(first: VersionArgument, second: VersionArgument) -> None:
    """Tell which of two engine versions is newer, and by which component (Unreal's GetNewest)."""
    newest, component = EngineVersion.get_newest(first, second)
    if newest is VersionComparison.NEITHER:
        print(f"neither: {first} and {second} are not ordered by Unreal's rules")
        return
    newer, older = (first, second) if newest is VersionComparison.FIRST else (second, first)
    assert component is not None
    print(f"{newest.name.lower()}: {newer} is newer than {older} by {component.name.lower()}")


def compatible(first: VersionArgument, second: VersionArgument) -> None:
    """Exit 0 when the first version can load data saved by the second (IsCompatibleWith), 1 when not."""
    if first.is_compatible_with(second):
        print(f"compatible: {first} can load data saved by {second}")
        return
    print(f"not compatible: {first} cannot load data saved by {second}", file=sys.stderr)
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
    from buildver.build_version import parse_build_version
    from buildver.config import load_config
    from buildver.current import version_file_path
    from buildver.report import version_file_fields
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
    chosen = plan.rules
    if json_output:
        fields = version_file_fields(parse_build_version(plan.changes[0].new, version_path))
        fields["FilesChanged"] = [str(change.path) for change in plan.changes if change.changed]
        fields["Rules"] = {"Name": chosen.rules.name, "Reason": chosen.reason, "Source": chosen.rules.source}
        print_json(fields)
        return
    if dry_run:
        print(f"rules: {chosen.rules.describe()} ({chosen.reason})")
        sys.stdout.write("".join(change.diff() for change in plan.changes) or "nothing to change\n")
    else:
        for name, old, new in plan.changed_fields:
            source = plan.sources.get(name)
            shown = [repr(value) if isinstance(value, str) else str(int(value)) for value in (old, new)]  # type: ignore[call-overload]
            print(f"{version_path}: {name} {shown[0]} -> {shown[1]}" + (f" ({source})" if source else ""))
        print("wrote " + ", ".join(map(str, written)) if written else "up to date: nothing written")


def header_command(
    file: FileOption = None,
    header: Annotated[Path | None, typer.Option(help="The header; default as for update-local.")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 with a diff when out of date.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Clear a read-only flag first.")] = False,
) -> None:
    """Regenerate (or patch) the C header from the current Build.version."""
    from buildver.build_version import load_build_version
    from buildver.changes import apply_changes, remove_leftovers
    from buildver.config import load_config
    from buildver.current import version_file_path
    from buildver.update_local import plan_header, rules_and_header, version_file_lock

    config = load_config()
    version_path = version_file_path(file, config=config)
    # --check writes nothing, not even the completion of a killed run's changes: it only takes the lock.
    with version_file_lock(version_path, write=not check) as journal:
        version_file = load_build_version(version_path)
        record = version_file.record
        chosen, header_path = rules_and_header(version_file, config=config, flag=header)
        if header_path is None:
            why = (
                "skip-header is set in the configuration"
                if config.skip_header
                else f"{chosen.rules.describe()} leaves Version.h alone ({chosen.reason}); "
                "name one with --header or header = PATH in [tool.buildver]"
            )
            print(f"no header to {'check' if check else 'write'}: {why}")
            return
        change = plan_header(header_path, record, record.build_version or None)
        if check:
            if change.changed:
                sys.stdout.write(change.diff())
                print(f"{change.path}: out of date; run: buildver header", file=sys.stderr)
                raise typer.Exit(1)
            print(f"{change.path}: up to date")
            return
        remove_leftovers(change.path.parent, change.path.name)
        written = apply_changes([change], force=force, journal=journal)
    print(f"wrote {change.path}" if written else f"{change.path}: up to date")


def init(
    file: FileOption = None,
) -> None:
    """Write a commented [tool.buildver] section into pyproject.toml (or a buildver.toml when there is none)."""
    from buildver.config import init_config, load_config
    from buildver.current import version_file_path

    version_path = version_file_path(file, config=load_config())
    path = init_config(Path.cwd(), version_path)
    print(f"wrote the [tool.buildver] section to {path}")


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


def build_app(arguments: list[str]) -> typer.Typer:
    """The typer app with the command that ``arguments`` ask for, or with every command for help or a typo.

    typer builds the options of every registered command at each start (about 1 ms each, 15 ms in all on the
    benchmark machine), so a run registers only the command it runs.
    """
    app = new_app("Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules.", "buildver")
    # A callback keeps the app a group even with a single command registered.
    app.callback()(_group)
    wanted = next((argument for argument in arguments if not argument.startswith("-")), None)
    names = [wanted] if wanted in _COMMANDS or wanted in _SUB_APPS else [*_COMMANDS, *_SUB_APPS]
    for name in names:
        if name in _COMMANDS:
            app.command(name)(_COMMANDS[name])
        else:
            import importlib

            module, attribute = _SUB_APPS[name].split(":")
            app.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return app


def _group() -> None:
    """Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every BuildverError and usage error becomes one ``buildver: error:`` line and an exit code."""
    try:
        from buildver.uat_arguments import translate_unreal_arguments

        arguments, ignored = translate_unreal_arguments(sys.argv[1:] if argv is None else argv)
        if ignored:
            print(f"buildver: note: UAT's {' '.join(ignored)} has no effect here", file=sys.stderr)
        if not arguments or (len(arguments) == 1 and arguments[0] in _SUB_APPS):
            arguments = [*arguments, "--help"]
        result = build_app(arguments)(args=arguments, prog_name="buildver", standalone_mode=False)
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
    except OSError as exc:
        # Only the output can fail this way (a full disk, a closed pipe): every file is written through
        # buildver.changes, which reports its own errors. Later writes to stdout go nowhere instead of failing again.
        _silence_stdout()
        if not isinstance(exc, BrokenPipeError):
            print(f"buildver: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
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
