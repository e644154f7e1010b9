"""The guard's checks, their settings in ``[tool.buildver.guard]``, and what it reports: findings and a summary.

Every check has a key (shown with each finding, as linters show rule codes) set to ``"error"``, ``"warning"`` or
``"off"``. Nothing here reads files: ``buildver.guard.checks`` produces findings, ``buildver.guard.run``
gathers what they check.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from buildver.errors import ConfigError

__all__ = ["CHECKS", "DEFAULT_SETTINGS", "Check", "Finding", "GuardReport", "GuardSettings", "Severity"]


class Severity(enum.StrEnum):
    """What a check's finding is: an error refuses the commit, a warning is shown, off is not checked."""

    ERROR = "error"
    WARNING = "warning"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Check:
    """One check the guard makes: its ``[tool.buildver.guard]`` key, its default severity and what it finds."""

    key: str
    default: Severity
    description: str


CHECKS: tuple[Check, ...] = (
    Check("version-invalid", Severity.ERROR, "a staged Build.version that does not parse or is out of range"),
    Check("version-backwards", Severity.ERROR, "major.minor.patch, or the changelist of the same release, decreases"),
    Check("compatible-above-changelist", Severity.ERROR, "CompatibleChangelist above Changelist, both set"),
    Check("promoted-without-changelist", Severity.WARNING, "IsPromotedBuild 1 with Changelist 0"),
    Check("forced-build-id", Severity.WARNING, "a BuildId in Build.version (Unreal's documentation advises against)"),
    Check("header", Severity.ERROR, "the version header differs from what buildver header writes"),
    Check(
        "engine-numbers",
        Severity.ERROR,
        "an engine tree's Version.h whose ENGINE_MAJOR/MINOR/PATCH_VERSION differ from its Build.version's",
    ),
    Check("no-engine-version", Severity.WARNING, "packages staged but no valid Build.version to check them against"),
    Check("package-newer", Severity.ERROR, "a package the staged Build.version's engine cannot load"),
    Check("package-cooked", Severity.ERROR, "a cooked or unversioned package in a source tree"),
    Check("package-empty-engine-version", Severity.WARNING, "a package saved with an empty engine version"),
    Check("package-unreadable", Severity.ERROR, "a package file that is corrupt or not an Unreal package"),
    Check("package-unknown-format", Severity.WARNING, "a package header newer than this buildver knows"),
    Check(
        "package-undecidable",
        Severity.WARNING,
        "a package with a custom version the staged engine does not register (a plugin's): the plugin decides",
    ),
    Check("modules-build-id", Severity.ERROR, "a .modules manifest whose BuildId differs from its folder's or forced"),
    Check("plugin-invalid", Severity.ERROR, "a .uplugin that Unreal cannot read"),
    Check("plugin-incompatible", Severity.ERROR, "a .uplugin whose EngineVersion the staged engine refuses"),
    Check("plugin-engine-version-unparsed", Severity.WARNING, "a .uplugin EngineVersion that does not parse"),
    Check("plugin-version-backwards", Severity.ERROR, "a .uplugin whose Version decreases"),
    Check(
        "plugin-version-not-raised",
        Severity.WARNING,
        "a .uplugin whose VersionName changes while its Version does not grow",
    ),
    Check("game-config-invalid", Severity.ERROR, "a staged Config/DefaultGame.ini or DefaultEngine.ini unreadable"),
    Check("project-invalid", Severity.ERROR, "a staged .uproject that Unreal cannot read"),
    Check(
        "project-engine-older",
        Severity.ERROR,
        "a staged .uproject whose EngineAssociation goes back to an older release than HEAD's",
    ),
    Check("project-version-invalid", Severity.WARNING, "a ProjectVersion that is not 1 to 4 whole numbers"),
    Check("project-version-backwards", Severity.ERROR, "ProjectVersion decreases"),
    Check(
        "android-version-code-backwards", Severity.ERROR, "an Android version code (StoreVersion + offset) decreases"
    ),
    Check("android-version-code-too-large", Severity.ERROR, "an Android version code above Google Play's 2100000000"),
)
"""Every check, in the order the guard reports them."""

_CHECKS_BY_KEY = {check.key: check for check in CHECKS}


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """The severity of each check: the defaults, changed by ``[tool.buildver.guard]``."""

    severities: Mapping[str, Severity]

    @classmethod
    def from_table(cls, table: Mapping[str, object], source: Path | None = None) -> GuardSettings:
        """Settings from the ``[tool.buildver.guard]`` table; an unknown key or value is a ConfigError."""
        where = f"{source}: [tool.buildver.guard]" if source is not None else "[tool.buildver.guard]"
        severities = {check.key: check.default for check in CHECKS}
        for key, value in table.items():
            if key not in _CHECKS_BY_KEY:
                raise ConfigError(f"{where} unknown check {key!r} (known: {', '.join(_CHECKS_BY_KEY)})")
            if not isinstance(value, str) or value not in Severity.__members__.values():
                raise ConfigError(f'{where} {key} must be "error", "warning" or "off", not {value!r}')
            severities[key] = Severity(value)
        return cls(severities)

    def finding(self, key: str, path: str, message: str, line: int | None = None) -> list[Finding]:
        """A one-element list with the finding of check ``key`` (at ``line`` of the file, when known), or an empty
        list when the check is off."""
        severity = self.severities[key]
        return [] if severity is Severity.OFF else [Finding(path, severity, message, key, line)]


DEFAULT_SETTINGS = GuardSettings.from_table({})


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in one file: ``path: severity[check]: message`` (the path is relative to the repository root).

    The check's ``[tool.buildver.guard]`` key is shown as linters show rule codes, so that a user knows what to
    configure: ``Build/Build.version: error[version-backwards]: Changelist goes backwards: …``.
    """

    path: str
    severity: Severity
    message: str
    check: str
    line: int | None = None
    """The line of the file the finding is about (1-based), when the check knows it: a Build.version key, an ini
    line, the place a parse error names, the header's first line out of step. Packages have none."""

    @property
    def code(self) -> str:
        """The severity and the check's key: ``error[version-backwards]``."""
        return f"{self.severity}[{self.check}]"

    def render(self, code: str) -> str:
        """The finding's line with ``code`` in its place (the command line passes it coloured); a path or message
        holding control characters (a file name can) shows them escaped, so that it cannot drive the terminal."""
        from buildver.text import printable

        return f"{printable(self.path)}: {code}: {printable(self.message)}"

    def __str__(self) -> str:
        return self.render(self.code)

    def to_json(self) -> dict[str, object]:
        """The finding as ``guard --format json`` prints it."""
        return {
            "path": self.path,
            "line": self.line,
            "severity": str(self.severity),
            "check": self.check,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class GuardReport:
    """What the guard found in the files it checked."""

    findings: tuple[Finding, ...]
    checked: int
    """How many files were checked."""
    files: tuple[str, ...] = ()
    """The files checked, relative to the repository's root (posix separators), sorted."""
    root: Path | None = None
    """The repository's root: the folder the paths are relative to."""

    @property
    def errors(self) -> int:
        """The number of findings that refuse the commit."""
        return sum(finding.severity is Severity.ERROR for finding in self.findings)

    @property
    def warnings(self) -> int:
        """The number of findings that are only shown."""
        return sum(finding.severity is Severity.WARNING for finding in self.findings)

    @property
    def summary(self) -> str:
        """The one line printed after the findings."""
        if self.checked == 0:
            return (
                "buildver guard: nothing to check (no staged Build.version, version header, package, .modules, "
                ".uplugin, .uproject, DefaultGame.ini or DefaultEngine.ini)"
            )
        files = f"{self.checked} file{'s' if self.checked != 1 else ''} checked"
        if not self.findings:
            return f"buildver guard: {files}, no problems"
        counts = [_plural(self.errors, "error"), _plural(self.warnings, "warning")]
        return f"buildver guard: {files}: {', '.join(counts)}"

    def to_json(self) -> dict[str, object]:
        """The report as ``guard --format json`` prints it (``buildver.cli`` adds ``schema_version``)."""
        return {
            "root": None if self.root is None else str(self.root),
            "checked": self.checked,
            "files": list(self.files),
            "findings": [finding.to_json() for finding in self.findings],
            "errors": self.errors,
            "warnings": self.warnings,
        }


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
