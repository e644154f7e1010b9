"""What every command-line module shares: the app settings, the ``--file`` option, version parsing, JSON output,
colour and the error line.

Kept apart from ``app`` so that the sub-apps (``assets``, ``data``, ``project``) can use it without importing
the main app that registers them.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple, TextIO

import typer

from buildver.versions.engine_version import EngineVersion

if TYPE_CHECKING:
    from buildver.packages.tree_tables import VersionTables
    from buildver.projects.place import Place, PlaceEngine
    from buildver.versions.config import Config

__all__ = [
    "SCHEMA_VERSIONS",
    "AgainstEngine",
    "AgainstOption",
    "FileOption",
    "FormatOption",
    "JsonFlag",
    "Palette",
    "ReportFormat",
    "choose_format",
    "colour_diff",
    "echo",
    "json_text",
    "judging_engine",
    "new_app",
    "palette",
    "parse_against",
    "parse_version",
    "print_error",
    "print_json",
    "print_warning",
    "use_colour",
]


HELP_OPTIONS = ["-h", "--help"]


def new_app(help_text: str, name: str | None = None, *, completion: bool = False) -> typer.Typer:
    """A typer app with buildver's settings: ``-h``, plain help, errors shown by cli.main.

    ``completion`` adds typer's ``--install-completion`` and ``--show-completion``: only the main app does, and
    only when they can be used (see ``buildver.cli.app.build_app``).
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


class ReportFormat(enum.Enum):
    """``--format`` of ``guard``, ``assets scan`` and ``project check`` (``buildver.cli.report_formats`` writes the
    CI formats)."""

    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    JUNIT = "junit"
    SARIF = "sarif"


FormatOption = Annotated[
    ReportFormat | None,
    typer.Option(
        "--format",
        help="text: for people (the default); json: one JSON document (as --json); github: GitHub Actions "
        "annotations on each file and line; junit: JUnit XML; sarif: SARIF 2.1.0.",
        show_default=False,
    ),
]


def choose_format(json_flag: bool, given: ReportFormat | None) -> ReportFormat:
    """The format asked for: ``--json`` is ``--format json``; the two naming different formats is a usage error."""
    if json_flag and given is not None and given is not ReportFormat.JSON:
        raise typer.BadParameter(f"--json and --format {given.value} disagree", param_hint="'--format'")
    return ReportFormat.JSON if json_flag else given or ReportFormat.TEXT


def parse_version(text: str) -> EngineVersion:
    """EngineVersion.parse for typer: a bad version is a usage error (exit 2) that keeps buildver's message."""
    try:
        return EngineVersion.parse(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


class AgainstEngine(NamedTuple):
    """``--against``: an engine version, or only a release (``5.3``: that release's tables decide)."""

    version: EngineVersion
    release_only: bool


def parse_against(text: str) -> AgainstEngine:
    """``--against``'s value: ``MAJOR.MINOR`` (a release, as EngineAssociation and ``UE_5.3`` name engines) or a
    whole engine version; anything else is a usage error (exit 2) with buildver's message."""
    from buildver.projects.place import release_or_version

    try:
        return AgainstEngine(*release_or_version(text))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


AgainstOption = Annotated[
    AgainstEngine | None,
    typer.Option(
        "--against",
        parser=parse_against,
        metavar="VERSION",
        help="The engine to check against, instead of the project's: a release (5.3) or a version (5.3.2-29314046).",
        show_default=False,
    ),
]


def judging_engine(
    start: Path,
    file: Path | None,
    against: AgainstEngine | None,
    *,
    config: Config | None = None,
    place: Place | None = None,
) -> PlaceEngine:
    """The engine ``project check`` and ``assets scan`` judge by, as ``buildver.projects.place`` decides it for
    ``start``: ``--against`` or ``--file`` (not both), else the place's own; EngineLookupError (one line, saying what
    would name one) when none is known."""
    from buildver.errors import EngineLookupError, UsageError
    from buildver.projects.place import engine_here

    if against is not None and file is not None:
        raise UsageError("give either --against or --file, not both")
    engine = engine_here(
        start,
        config=config,
        file=file,
        against=None if against is None else against.version,
        against_release_only=against is not None and against.release_only,
        place=place,
    )
    if engine.version is None:
        raise EngineLookupError(engine.missing or f"{start}: no engine is known here")
    return engine


def judging_tables(place: Place | None, engine: PlaceEngine, start: Path) -> VersionTables | None:
    """The version tables ``engine`` judges packages by (``buildver.projects.engine_tables``): ``place`` is the
    place found from ``start`` (None with ``--against`` or ``--file``: then the engine alone decides)."""
    from buildver.projects.engine_tables import place_tables
    from buildver.projects.place import Place, PlaceKind

    if place is None:
        place = Place(PlaceKind.OTHER, Path(os.path.abspath(start)))
    return place_tables(place, engine)


SCHEMA_VERSIONS: dict[str, int] = {
    "show": 1,
    "compare": 1,
    "compatible": 1,
    "update-local": 1,
    "bump": 1,
    "engine": 1,
    "engine-versions": 1,
    "engines": 1,
    "engine-register": 1,
    "engine-switch": 1,
    "data-inspect": 1,
    "project-check": 1,
    "assets-scan": 1,
    "guard": 1,
}
"""Each ``--json`` document's name (its schema's file name in ``buildver.cli.schemas``) and its ``schema_version``:
the one place the number is written (``docs/json-schemas.md`` says when it changes)."""


def print_json(document: Mapping[str, object], schema: str) -> None:
    """Print one JSON document (2-space indent, UTF-8 kept) on stdout, ``schema_version`` first: the version of the
    document named ``schema``, whose JSON Schema ships with buildver (``buildver.cli.schemas``); see
    :func:`json_text` for names that are not UTF-8."""
    import json

    versioned = {"schema_version": SCHEMA_VERSIONS[schema], **document}
    sys.stdout.write(json_text(json.dumps(versioned, indent=2, ensure_ascii=False)) + "\n")


def json_text(text: str) -> str:
    """JSON text as every ``--json`` document writes it: UTF-8 kept, and each lone surrogate escaped (``\\udcff``),
    and so are DEL and the C1 controls (``\\u009b``), which JSON leaves raw (it escapes C0 controls only).

    A file or folder name that is not UTF-8 reaches Python with each byte that is not as a lone surrogate
    (``os.fsdecode``: the byte 0xff is U+DCFF), which no UTF-8 output can hold: written raw, the document was
    not UTF-8 and ``json.loads`` refused it. As the JSON escape ``\\udcff`` it is ASCII, every JSON reader
    accepts it, and Python's ``os.fsencode(json.loads(...))`` gives the name's bytes back (docs/command-line.md).
    U+009B is CSI to a terminal (ESC [): raw, a name holding it drove the terminal a document was printed on.
    ``##[`` (GitHub's older workflow command, read anywhere in a line of a CI log) is written ``#\\u0023[``.
    All occur only inside JSON strings, where the escape reads back as the same character.
    """
    if "##[" in text:
        text = text.replace("##[", "#\\u0023[")
    if (text.isascii() and "\x7f" not in text) or _ESCAPED.search(text) is None:
        return text
    return _ESCAPED.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


_ESCAPED = re.compile("[\x7f-\x9f\ud800-\udfff]")


# -- colour -----------------------------------------------------------------------------------------------------
# ANSI SGR codes written directly: a colour library would cost more start-up than everything else here.

_RESET = "\x1b[0m"
_STYLES = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1", "error": "1;31", "warning": "1;33"}


def use_colour(stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream``: decided once per stream and command run.

    ``FORCE_COLOR`` set and not empty: on (CI logs that render colour); else ``NO_COLOR`` set and not empty
    (no-color.org): off; else on for a terminal only (not for ``TERM=dumb``).
    """
    if os.environ.get("FORCE_COLOR"):
        return _enable_on_windows(stream)
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        terminal = stream.isatty()
    except ValueError:  # a closed stream
        return False
    return terminal and _enable_on_windows(stream)


def _enable_on_windows(stream: TextIO) -> bool:
    """Windows consoles show ANSI codes only once virtual-terminal processing is on (ctypes loads only there)."""
    if os.name != "nt":
        return True
    import ctypes  # pragma: no cover - Windows only

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.GetStdHandle(-12 if stream is sys.stderr else -11)
    mode = ctypes.c_uint32()
    if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
        return bool(os.environ.get("FORCE_COLOR"))  # not a console (a pipe): the reader decides
    return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))  # ENABLE_VIRTUAL_TERMINAL_PROCESSING


class Palette:
    """Styles text for one stream: ANSI codes when colour is on, the text unchanged when it is off."""

    __slots__ = ("enabled",)

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, style: str, text: str) -> str:
        """``text`` in ``style`` (a key of the style table: red, green, yellow, cyan, bold, error, warning)."""
        return f"\x1b[{_STYLES[style]}m{text}{_RESET}" if self.enabled and text else text


def palette(stream: TextIO) -> Palette:
    """The palette for ``stream``, by :func:`use_colour`."""
    return Palette(use_colour(stream))


def colour_diff(diff: str, paint: Palette) -> str:
    """A unified diff with file headers in bold, hunk headers in cyan, removed lines red and added lines green."""
    if not paint.enabled:
        return diff
    lines = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        end = line[len(body) :]
        if line.startswith(("--- ", "+++ ")):
            body = paint("bold", body)
        elif line.startswith("@@"):
            body = paint("cyan", body)
        elif line.startswith("-"):
            body = paint("red", body)
        elif line.startswith("+"):
            body = paint("green", body)
        lines.append(body + end)
    return "".join(lines)


def echo(line: str, *, err: bool = False) -> None:
    """The one way a line of plain text (a path in it, a value) reaches stdout (stderr with ``err``): as
    :func:`buildver.text.printable` shows it, so that a name holding a line break or an escape sequence stays on its
    line and cannot start one of its own (``::add-mask::``, a workflow command to GitHub Actions) or drive the
    terminal. Coloured lines (diffs, the guard's findings, scan tables) escape each value the same way before colour
    is added; errors and warnings go through :func:`print_error` and :func:`print_warning`, which do too."""
    from buildver.text import printable

    print(printable(line), file=sys.stderr if err else sys.stdout)


def print_error(message: str) -> None:
    """The one line of every error: ``buildver: error: <message>`` on stderr, ``error`` in red on a terminal.

    Control characters (from a file name, a branch name) are shown escaped: the message stays one line and
    cannot drive the terminal.
    """
    from buildver.text import printable

    print(f"buildver: {palette(sys.stderr)('error', 'error:')} {printable(message)}", file=sys.stderr)


def print_warning(message: str) -> None:
    """A warning's one line: ``buildver: warning: <message>`` on stderr, escaped like :func:`print_error`'s."""
    from buildver.text import printable

    print(f"buildver: warning: {printable(message)}", file=sys.stderr)
