"""``buildver bump``: a new release's version in every file that holds it, all or nothing; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import enum
import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.cli.common import JsonFlag, colour_diff, palette, print_json, print_warning


class Part(enum.Enum):
    """The part of MAJOR.MINOR.PATCH to raise."""

    MAJOR = "major"
    MINOR = "minor"
    PATCH = "patch"


def _release(text: str | None) -> tuple[int, int, int] | None:
    """``--set``'s value: MAJOR.MINOR.PATCH, three whole numbers from 0 to 65535 (a usage error otherwise).

    Parsed here rather than by typer: an option typed as a tuple would take three arguments."""
    if text is None:
        return None
    from buildver.versions.engine_version import MAX_COMPONENT

    parts = text.split(".")
    if len(parts) != 3 or not all(part.isascii() and part.isdigit() and int(part) <= MAX_COMPONENT for part in parts):
        raise typer.BadParameter(
            f"{text!r} is not MAJOR.MINOR.PATCH, three whole numbers from 0 to {MAX_COMPONENT}", param_hint="'--set'"
        )
    return int(parts[0]), int(parts[1]), int(parts[2])


def bump(
    part: Annotated[
        Part | None,
        typer.Argument(
            metavar="[major|minor|patch]", help="The part to raise; the parts after it go to 0.", show_default=False
        ),
    ] = None,
    set_release: Annotated[
        str | None,
        typer.Option(
            "--set",
            metavar="MAJOR.MINOR.PATCH",
            help="Set this version instead of raising a part; the version already there changes nothing (exit 0).",
            show_default=False,
        ),
    ] = None,
    reset_changelist: Annotated[
        bool,
        typer.Option(
            "--reset-changelist",
            help="Set Changelist and CompatibleChangelist to 0 (a new release's come from its own builds); "
            "without it every value but the version is kept.",
        ),
    ] = False,
    allow_backwards: Annotated[
        bool, typer.Option("--allow-backwards", help="Write a version older than the one there (--set).")
    ] = False,
    skip_header: Annotated[
        bool, typer.Option("--skip-header", help="Leave every header alone (an engine's Version.h included).")
    ] = False,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            help="The Build.version, or a plugin's .uplugin, to bump; default: the place's own (Build/Build.version "
            "or Engine/Build/Build.version here or above, or the .uplugin of a plugin's own repository).",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the planned changes as a diff; write nothing.")
    ] = False,
    json_output: JsonFlag = False,
    force: Annotated[
        bool, typer.Option("--force", help="Clear a read-only flag first, as Unreal's MakeFileWriteable.")
    ] = False,
) -> None:
    """Raise the version (major, minor or patch) or set it (--set) in every file that holds it, all or nothing.

    Build.version (an engine tree's, a game's own, another project's), the header update-local writes, an engine's
    Version.h numbers, a game's ProjectVersion and StoreVersion where their templates name {Major}, {Minor} or
    {Patch}; in a plugin's own repository, the .uplugin's VersionName and Version (one higher).
    """
    from buildver.stamp.bump import BumpRequest, bump_release
    from buildver.stamp.report import bump_document, bump_headline, bump_summary

    request = BumpRequest(
        part=None if part is None else part.value,
        release=_release(set_release),
        reset_changelist=reset_changelist,
        allow_backwards=allow_backwards,
        skip_header=skip_header,
        force=force,
    )
    plan, written = bump_release(None, request, file=file, dry_run=dry_run)
    for warning in plan.warnings:
        print_warning(warning)
    if json_output:
        print_json(bump_document(plan, written, dry_run=dry_run), "bump")
        return
    sys.stdout.write(bump_headline(plan, dry_run=dry_run))
    if dry_run:
        diff = "".join(change.diff() for change in plan.changes)
        sys.stdout.write(colour_diff(diff, palette(sys.stdout)))
    else:
        sys.stdout.write(bump_summary(plan, written))
