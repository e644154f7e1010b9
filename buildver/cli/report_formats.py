"""The reports CI systems read, for ``guard``, ``assets scan`` and ``project check`` (``--format``): GitHub's workflow
commands (annotations on the file and line), JUnit XML and SARIF 2.1.0; thin, printing only.

Each command turns the library's results into :class:`Entry` values (a file that passed, or one problem in a file)
and hands them, as they come, to the writer :func:`open_report` gives for the format; the writer prints each format
as its readers expect it. This module decides, once for the three commands:

- where a file is: its path relative to the root of the git repository it is in (what GitHub's annotations and code
  scanning expect, whatever folder the command ran in), else the path from the current folder; a file outside that
  root keeps its absolute path;
- how each format carries any name or message: a GitHub property or message is escaped as GitHub documents it
  (``%``, CR and LF, and in a property ``:`` and ``,``), so that no file name can end a command early or start a
  second one; XML escapes markup and shows each character XML 1.0 forbids (control characters, a lone surrogate
  from a name that is not UTF-8) as its Python escape, so that the document stays well-formed; a SARIF URI holds
  the name's bytes percent-encoded.

Only the writer of the format asked for is built, and no XML or JSON Schema module is imported anywhere: the text
output, which pre-commit runs at every commit, pays nothing for these.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from buildver.cli.common import ReportFormat, json_text
from buildver.text import printable

if TYPE_CHECKING:
    from tempfile import SpooledTemporaryFile

__all__ = ["Entry", "Level", "Report", "ReportWriter", "open_report"]


class Level(enum.StrEnum):
    """What an entry is: a problem that fails the command, one to look at, or a pass."""

    ERROR = "error"
    WARNING = "warning"
    PASS = "pass"


class Entry(NamedTuple):
    """One file that passed, or one problem in a file."""

    path: str
    """As the command shows it: relative to :attr:`Report.base`, or absolute."""
    level: Level
    rule: str
    """The guard's check, or the status of a package or descriptor."""
    message: str
    line: int | None = None
    """The line of the file the problem is on (1-based), when it is known."""


class Report(NamedTuple):
    """What a report is about: the command, every rule it can report (for SARIF) and the folder paths are under."""

    command: str
    """``guard``, ``assets scan`` or ``project check``."""
    rules: Mapping[str, str]
    """Each rule's id and a one-line description."""
    base: Path
    """The folder the entries' relative paths are relative to."""


# -- where a file is ---------------------------------------------------------------------------------------------


class _Locator:
    """Paths as reports give them: relative to the git repository's root (posix separators) when the file is in it,
    else absolute."""

    def __init__(self, base: Path) -> None:
        from buildver.vcs import find_repository_root

        self.base = Path(os.path.abspath(base))
        self.root = find_repository_root(self.base) or Path(os.path.abspath(os.curdir))

    def locate(self, path: str) -> tuple[str, bool]:
        """``(path, relative)``: the path from the root when ``relative``, else the absolute path."""
        absolute = os.path.normpath(os.path.join(self.base, path))
        try:
            relative = os.path.relpath(absolute, self.root)
        except ValueError:  # pragma: no cover - Windows only: another drive than the root's
            return Path(absolute).as_posix(), False
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return Path(absolute).as_posix(), False
        return Path(relative).as_posix(), True

    def display(self, path: str) -> str:
        return self.locate(path)[0]


# -- the writers ---------------------------------------------------------------------------------------------------


class ReportWriter:
    """Prints entries as they come and, at :meth:`close`, what only the end knows."""

    def __init__(self, report: Report, stream: TextIO) -> None:
        self.report = report
        self.stream = stream
        self.locator = _Locator(report.base)

    def add(self, entry: Entry) -> None:
        """Report ``entry``: printed now, or kept (spooled) until :meth:`close` when the format needs the counts
        first."""

    def close(self, summary: str) -> None:
        """Finish the report; ``summary`` is the command's closing line (counts, no names)."""


def open_report(chosen: ReportFormat, report: Report, stream: TextIO | None = None) -> ReportWriter:
    """The writer of ``chosen`` (github, junit or sarif) for ``report``, printing to ``stream`` (stdout)."""
    writers: dict[ReportFormat, type[ReportWriter]] = {
        ReportFormat.GITHUB: _GitHubWriter,
        ReportFormat.JUNIT: _JUnitWriter,
        ReportFormat.SARIF: _SarifWriter,
    }
    return writers[chosen](report, sys.stdout if stream is None else stream)


# GitHub Actions: workflow commands ("::error file=...,line=...,title=...::message"), as GitHub's documentation of
# workflow commands gives them and the runner reads them (actions/runner, src/Runner.Common/ActionCommand.cs,
# TryParseV2 and its unescaping; actions/toolkit, packages/core/src/command.ts, escapeData and escapeProperty).

_GITHUB_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_GITHUB_PROPERTY = {**_GITHUB_DATA, ":": "%3A", ",": "%2C"}


def github_escape(text: str, table: Mapping[str, str]) -> str:
    """``text`` with each character of ``table`` replaced (``%`` first, as GitHub's toolkit does: the runner
    undoes ``%25`` last)."""
    return "".join(table.get(char, char) for char in text)


def github_command(level: str, properties: Mapping[str, str], message: str) -> str:
    """One workflow command line: ``::level key=value,...::message``.

    A property is escaped exactly (the runner gives the file's own name back, line breaks and all), then any other
    character a terminal would act on is shown as its Python escape; the message is shown as the text output shows
    it (:func:`buildver.text.printable`: one line), then escaped. No character of a name can end the command's
    property list, its properties or its line.
    """
    shown = ",".join(
        f"{key}={printable(github_escape(value, _GITHUB_PROPERTY), inside_command=True)}"
        for key, value in properties.items()
    )
    return f"::{level} {shown}::{github_escape(printable(message), _GITHUB_DATA)}"


class _GitHubWriter(ReportWriter):
    """An annotation per problem, then the summary line."""

    def add(self, entry: Entry) -> None:
        if entry.level is Level.PASS:
            return
        properties = {"file": self.locator.display(entry.path)}
        if entry.line is not None:
            properties["line"] = str(entry.line)
        properties["title"] = f"{entry.rule} (buildver {self.report.command})"
        self.stream.write(github_command(str(entry.level), properties, entry.message) + "\n")

    def close(self, summary: str) -> None:
        self.stream.write(printable(summary) + "\n")


# JUnit XML, as Jenkins' JUnit plugin and GitLab read it: testsuites > testsuite > testcase, a failed test holding
# <failure message="..." type="...">; a test's own output in <system-out>. One test case per file that passed and per
# problem; warnings pass, their text in <system-out>. The counts come first, so the test cases wait in
# a spooled file (memory for small reports, a temporary file for a scan of many packages).

_SPOOL_IN_MEMORY = 4 << 20


def xml_text(text: str, *, attribute: bool = False) -> str:
    """``text`` as XML character data (``attribute``: inside double quotes).

    Every character :func:`buildver.text.printable` would escape is shown as its Python escape first: XML 1.0 forbids
    most control characters and every lone surrogate (a name that is not UTF-8), and a reader shows the rest as the
    text output does.
    """
    text = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if attribute else text


class _JUnitWriter(ReportWriter):
    def __init__(self, report: Report, stream: TextIO) -> None:
        super().__init__(report, stream)
        self.tests = 0
        self.failures = 0
        self.cases: SpooledTemporaryFile[str] | None = None
        self.classname = xml_text("buildver." + report.command.replace(" ", "-"), attribute=True)

    def _spool(self) -> SpooledTemporaryFile[str]:
        if self.cases is None:
            from tempfile import SpooledTemporaryFile

            # Kept open across add() calls and closed in close(): no with-block spans them.
            self.cases = SpooledTemporaryFile(  # noqa: SIM115
                max_size=_SPOOL_IN_MEMORY, mode="w+", encoding="utf-8", newline=""
            )
        return self.cases

    def add(self, entry: Entry) -> None:
        self.tests += 1
        where = self.locator.display(entry.path)
        name = where if entry.level is Level.PASS else f"{where} [{entry.rule}]"
        line = "" if entry.line is None else f' line="{entry.line}"'
        case = (
            f'    <testcase name="{xml_text(name, attribute=True)}" classname="{self.classname}" '
            f'file="{xml_text(where, attribute=True)}"{line}'
        )
        if entry.level is Level.PASS:
            self._spool().write(case + "/>\n")
            return
        at = where if entry.line is None else f"{where}:{entry.line}"
        text = xml_text(f"{at}: {entry.level}[{entry.rule}]: {entry.message}")
        if entry.level is Level.ERROR:
            self.failures += 1
            body = (
                f'<failure message="{xml_text(entry.message, attribute=True)}" '
                f'type="{xml_text(entry.rule, attribute=True)}">{text}</failure>'
            )
        else:
            body = f"<system-out>{text}</system-out>"
        self._spool().write(f"{case}>\n      {body}\n    </testcase>\n")

    def close(self, summary: str) -> None:
        name = xml_text(f"buildver {self.report.command}", attribute=True)
        counts = f'tests="{self.tests}" failures="{self.failures}" errors="0" skipped="0"'
        write = self.stream.write
        write('<?xml version="1.0" encoding="UTF-8"?>\n')
        write(f'<testsuites name="{name}" {counts}>\n')
        write(f'  <testsuite name="{name}" {counts}>\n')
        if self.cases is not None:
            self.cases.seek(0)
            while chunk := self.cases.read(1 << 16):
                write(chunk)
            self.cases.close()
        write(f"    <system-out>{xml_text(summary)}</system-out>\n")
        write("  </testsuite>\n</testsuites>\n")


# SARIF 2.1.0 (OASIS), the minimal log GitHub code scanning and other viewers read: one run, the tool with every
# rule it can report, and a result per problem with its file (a URI relative to %SRCROOT%, the repository's root,
# given in originalUriBaseIds) and line. Written as the results come: nothing is held.

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_SARIF_LEVELS = {Level.ERROR: "error", Level.WARNING: "warning"}
SRCROOT = "%SRCROOT%"


def file_uri_reference(path: str, relative: bool) -> str:
    """A URI for ``path`` (posix separators): relative, or ``file:`` for an absolute path; each byte of the name
    outside RFC 3986's unreserved characters percent-encoded, so a name that is not UTF-8 keeps its bytes."""
    from urllib.parse import quote_from_bytes

    if relative:
        return quote_from_bytes(os.fsencode(path), safe="/")
    quoted = quote_from_bytes(os.fsencode(path), safe="/:" if os.name == "nt" else "/")
    return "file://" + quoted if quoted.startswith("/") else "file:///" + quoted


class _SarifWriter(ReportWriter):
    def __init__(self, report: Report, stream: TextIO) -> None:
        super().__init__(report, stream)
        self.first = True
        self.end = ""

    def _start(self) -> None:
        import json

        from buildver import __version__

        rules = [{"id": key, "shortDescription": {"text": text}} for key, text in self.report.rules.items()]
        driver = {"name": "buildver", "version": __version__, "rules": rules}
        root = file_uri_reference(self.locator.root.as_posix(), False).rstrip("/") + "/"
        run = {"tool": {"driver": driver}, "originalUriBaseIds": {SRCROOT: {"uri": root}}, "results": []}
        text = json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)
        # The results are written one by one between the two halves (a key's quotes are escaped in any string).
        head, self.end = text.rsplit('"results": []', 1)
        self.stream.write(json_text(head) + '"results": [')

    def add(self, entry: Entry) -> None:
        if entry.level is Level.PASS:
            return
        import json

        if self.first:
            self._start()
        path, relative = self.locator.locate(entry.path)
        location: dict[str, object] = {"uri": file_uri_reference(path, relative)}
        if relative:
            location["uriBaseId"] = SRCROOT
        physical: dict[str, object] = {"artifactLocation": location}
        if entry.line is not None:
            physical["region"] = {"startLine": entry.line}
        result = {
            "ruleId": entry.rule,
            "level": _SARIF_LEVELS[entry.level],
            "message": {"text": entry.message},
            "locations": [{"physicalLocation": physical}],
        }
        self.stream.write(("\n" if self.first else ",\n") + " " * 8 + json_text(json.dumps(result, ensure_ascii=False)))
        self.first = False

    def close(self, summary: str) -> None:
        if self.first:
            self._start()
            self.stream.write("]" + self.end + "\n")
            return
        self.stream.write("\n" + " " * 6 + "]" + self.end + "\n")
