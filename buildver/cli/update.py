"""``buildver update-local`` and ``buildver header``: Unreal's UpdateLocalVersion, and the header alone; thin.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import (
    FileOption,
    JsonFlag,
    colour_diff,
    echo,
    palette,
    print_json,
    print_warning,
)


def _changelist(text: str | int) -> int:
    """A typer parser for changelists and flags: ASCII decimal digits only, from 0 to 2^31-1 (a usage error)."""
    if isinstance(text, int):  # typer passes the default value through the parser too
        return text
    from buildver.stamp.depot import changelist_problem

    problem = changelist_problem(text)
    if problem:
        raise typer.BadParameter(problem)
    return int(text)


def _compatible_changelist(text: str) -> str:
    """--compatible-cl's parser: a changelist, as --cl takes it, or last-code-change (typer takes no union type, so
    the value stays text until the command turns it into the request's)."""
    from buildver.code_filter import LAST_CODE_CHANGE
    from buildver.stamp.depot import changelist_problem

    if text == LAST_CODE_CHANGE:
        return text
    problem = changelist_problem(text)
    if problem:
        raise typer.BadParameter(f"{problem}, nor {LAST_CODE_CHANGE}")
    return text


def _compatible_request(text: str | None) -> int | str | None:
    """The request's CompatibleChangelist from --compatible-cl's checked text: a number, or last-code-change."""
    return int(text) if text is not None and text.isdigit() else text


def _environment_setting(text: str) -> tuple[str, str]:
    from buildver.stamp.uat_arguments import ENVIRONMENT_ARGUMENT

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
        str | None,
        typer.Option(
            "--compatible-cl",
            parser=_compatible_changelist,
            metavar="INTEGER|last-code-change",
            show_default=False,
            help="The changelist this build is API-compatible with; 0 means not given; last-code-change: the "
            "changelist of the newest commit that changed a code file, as Unreal Game Sync stamps it; default: "
            "$uebp_CodeCL, else the compatible-changelist setting, else the rules' (docs/build-machines.md).",
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
    from buildver.projects.place import stamped_version_file
    from buildver.stamp.report import describe_rules, update_document, update_summary
    from buildver.stamp.update import UpdateRequest
    from buildver.stamp.update import update_local as run_update
    from buildver.versions.config import load_config

    config = load_config()
    version_path = stamped_version_file(file, config=config)
    request = UpdateRequest(
        changelist=cl,
        compatible_changelist=_compatible_request(compatible_cl),
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

    plan, written = run_update(
        version_path, request, config=config, environment=environment, dry_run=dry_run, on_warning=print_warning
    )
    if dry_run:  # nothing was written, so the warnings were not heard yet
        for warning in plan.warnings:
            print_warning(warning)
    if json_output:
        print_json(update_document(plan), "update-local")
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
    from buildver.projects.place import stamped_version_file
    from buildver.stamp.update import write_header
    from buildver.versions.config import load_config

    config = load_config()
    version_path = stamped_version_file(file, config=config)
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
        echo(f"no header to {'check' if check else 'write'}: {why}")
    elif check and change.changed:
        sys.stdout.write(colour_diff(change.diff(), palette(sys.stdout)))
        echo(f"{change.path}: out of date; run: buildver header", err=True)
        raise typer.Exit(1)
    else:
        echo(f"wrote {change.path}" if written else f"{change.path}: up to date")
