"""What every command-line module shares: the app settings, the ``--file`` option, version parsing, JSON output.

Kept apart from ``cli.py`` so that the sub-apps (``cli_assets``, ``cli_data``) can use it without importing
the main app that registers them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from buildver.engine_version import EngineVersion

__all__ = ["FileOption", "JsonFlag", "new_app", "parse_version", "print_json"]


HELP_OPTIONS = ["-h", "--help"]


def new_app(help_text: str, name: str | None = None, *, completion: bool = False) -> typer.Typer:
    """A typer app with buildver's settings: ``-h``, plain help, errors shown by cli.main.

    ``completion`` adds typer's ``--install-completion`` and ``--show-completion``: only the main app does, and
    only when they can be used (see ``cli.build_app``).
    """
    return typer.Typer(
        name=name,
        help=help_text,
        add_completion=completion,
        context_settings={"help_option_names": HELP_OPTIONS},
        # cli.main shows the help for a bare "buildver" or "buildver data": typer's own way raises it as an error.
        no_args_is_help=False,
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


def parse_version(text: str) -> EngineVersion:
    """EngineVersion.parse for typer: a bad version is a usage error (exit 2) that keeps buildver's message."""
    try:
        return EngineVersion.parse(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def print_json(document: object) -> None:
    """Print one JSON document (2-space indent, UTF-8 kept) on stdout."""
    import json

    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
