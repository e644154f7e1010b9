"""``buildver guard``: the pre-commit checks, run on what the next commit holds (the index), not the working tree.

- ``Build.version``: it parses; against HEAD's, major.minor.patch never decreases and the changelist never
  decreases while major.minor.patch and the vendor (IsLicenseeVersion) stay the same; CompatibleChangelist is not
  above Changelist; a promoted build without a changelist and a forced BuildId are warnings; the version header,
  when there is one, is what ``buildver header`` would write.
- Packages (``.uasset``, ``.umap``): the staged Build.version's engine can load them (``assets.classify``); no
  cooked or unversioned package in a source tree; a package saved with an empty engine version is a warning
  unless ``[Core.System] ZeroEngineVersionWarning`` turns it off in the project's ``Config/DefaultEngine.ini``.
- ``.modules`` manifests: one BuildId per binaries folder, equal to Build.version's BuildId when that is forced.
- Plugin descriptors (``.uplugin``): Unreal can read them, and the staged engine's CompatibleWith() accepts their
  EngineVersion (the rule of ``buildver project check``, in ``buildver.project``).

The checks are pure functions over bytes; :func:`run_guard` gathers the bytes from git (``buildver.vcs``).
Every check has a key in ``[tool.buildver.guard]`` set to ``"error"``, ``"warning"`` or ``"off"``.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.build_version import SEARCHED_PATHS, BuildVersion, VersionFile, parse_build_version
from buildver.errors import BuildverError, ConfigError, UsageError

if TYPE_CHECKING:
    from buildver.config import Config
    from buildver.engine_version import EngineVersion
    from buildver.package import PackageSummary

__all__ = [
    "CHECKS",
    "Check",
    "Finding",
    "GuardReport",
    "GuardSettings",
    "Severity",
    "backwards_problem",
    "check_header",
    "check_manifests",
    "check_package",
    "check_package_summary",
    "check_plugin",
    "check_version",
    "run_guard",
]

VERSION_FILE_NAME = "Build.version"
PACKAGE_SUFFIXES = (".uasset", ".umap")
MANIFEST_SUFFIX = ".modules"
PLUGIN_SUFFIX = ".uplugin"
LFS_POINTER_START = b"version https://git-lfs.github.com/spec/v1\n"
LFS_POINTER_MAX_SIZE = 1024
"""Git LFS pointers are under 200 bytes; its own limit for recognizing one is 1024."""


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
    Check("no-engine-version", Severity.WARNING, "packages staged but no valid Build.version to check them against"),
    Check("package-newer", Severity.ERROR, "a package the staged Build.version's engine cannot load"),
    Check("package-cooked", Severity.ERROR, "a cooked or unversioned package in a source tree"),
    Check("package-empty-engine-version", Severity.WARNING, "a package saved with an empty engine version"),
    Check("package-unreadable", Severity.ERROR, "a package file that is corrupt or not an Unreal package"),
    Check("package-unknown-format", Severity.WARNING, "a package header newer than this buildver knows"),
    Check("modules-build-id", Severity.ERROR, "a .modules manifest whose BuildId differs from its folder's or forced"),
    Check("plugin-invalid", Severity.ERROR, "a .uplugin that Unreal cannot read"),
    Check("plugin-incompatible", Severity.ERROR, "a .uplugin whose EngineVersion the staged engine refuses"),
    Check("plugin-engine-version-unparsed", Severity.WARNING, "a .uplugin EngineVersion that does not parse"),
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

    def finding(self, key: str, path: str, message: str) -> list[Finding]:
        """A one-element list with the finding of check ``key``, or an empty list when the check is off."""
        severity = self.severities[key]
        return [] if severity is Severity.OFF else [Finding(path, severity, message, key)]


DEFAULT_SETTINGS = GuardSettings.from_table({})


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in one file: ``path: severity: message`` (the path is relative to the repository root)."""

    path: str
    severity: Severity
    message: str
    check: str

    def __str__(self) -> str:
        return f"{self.path}: {self.severity}: {self.message}"


@dataclass(frozen=True, slots=True)
class GuardReport:
    """What the guard found in the files it checked."""

    findings: tuple[Finding, ...]
    checked: int
    """How many files were checked."""

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
            return "buildver guard: nothing to check (no staged Build.version, version header, package or .modules)"
        files = f"{self.checked} file{'s' if self.checked != 1 else ''} checked"
        if not self.findings:
            return f"buildver guard: {files}, no problems"
        counts = [_plural(self.errors, "error"), _plural(self.warnings, "warning")]
        return f"buildver guard: {files}: {', '.join(counts)}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _without_path(message: str, path: str) -> str:
    """The library's messages start with the file's path; a finding shows the path once, in front."""
    for prefix in (f"{path}: ", f"{Path(path)}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


# -- Build.version ----------------------------------------------------------------------------------------------


def _release(record: BuildVersion) -> str:
    return f"{record.major_version}.{record.minor_version}.{record.patch_version}"


def backwards_problem(old: BuildVersion, new: BuildVersion) -> str | None:
    """Why ``new`` moves the version backwards from ``old``, or None.

    Major.minor.patch is compared as a whole (4.27.2 to 5.0.0 is forwards); the changelist only within the same
    release and vendor, because a licensee's changelists come from another server than Epic's.
    """
    old_release = (old.major_version, old.minor_version, old.patch_version)
    new_release = (new.major_version, new.minor_version, new.patch_version)
    if new_release < old_release:
        component = ("MajorVersion", "MinorVersion", "PatchVersion")[
            next(index for index in range(3) if new_release[index] != old_release[index])
        ]
        return f"the version goes backwards: {_release(old)} in HEAD, {_release(new)} staged ({component} decreases)"
    # As GetNewest: changelists are ordered only within one vendor, and a changelist of 0 ("none", as in a
    # Build.version reset after a stamped one was committed) is never ordered at all.
    if (
        new_release == old_release
        and new.is_licensee_version == old.is_licensee_version
        and new.changelist
        and old.changelist
        and new.changelist < old.changelist
    ):
        return (
            f"Changelist goes backwards: {old.changelist} in HEAD, {new.changelist} staged "
            f"(the same {_release(new)} release and vendor)"
        )
    return None


def check_version(
    path: str, staged: bytes, head: bytes | None, settings: GuardSettings = DEFAULT_SETTINGS
) -> tuple[VersionFile | None, list[Finding]]:
    """The staged Build.version (None when it does not parse) and the findings about it, against HEAD's bytes."""
    try:
        version_file = parse_build_version(staged, Path(path))
    except BuildverError as exc:
        return None, settings.finding("version-invalid", path, _without_path(str(exc), path))
    record = version_file.record
    findings: list[Finding] = []
    if head is not None:
        try:
            old: BuildVersion | None = parse_build_version(head, Path(path)).record
        except BuildverError:
            old = None  # HEAD's file was invalid: any valid file repairs it
        problem = None if old is None else backwards_problem(old, record)
        if problem is not None:
            findings += settings.finding("version-backwards", path, problem)
    if record.changelist != 0 and record.compatible_changelist > record.changelist:
        findings += settings.finding(
            "compatible-above-changelist",
            path,
            f"CompatibleChangelist {record.compatible_changelist} is above Changelist {record.changelist}: "
            "a build cannot be compatible with changes newer than its own",
        )
    if record.is_promoted_build and record.changelist == 0:
        findings += settings.finding(
            "promoted-without-changelist",
            path,
            "IsPromotedBuild is 1 but Changelist is 0: not a formal build, and editors built from it save "
            "packages with an empty engine version",
        )
    if record.build_id:
        findings += settings.finding(
            "forced-build-id",
            path,
            f"BuildId {record.build_id!r} is forced: Unreal's documentation advises against it "
            "(outdated modules can load, above all plugins shared between projects)",
        )
    return version_file, findings


GUARD_HEADER_HINT = "to leave the header alone, set skip-header = true in [tool.buildver]"


def check_header(
    header_path: str,
    staged: bytes | None,
    version_file: VersionFile,
    *,
    configured: bool,
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Whether the staged header is what ``buildver header`` writes for the staged Build.version."""
    from buildver.header import header_for

    fix = f"run: buildver header, then: git add {header_path} ({GUARD_HEADER_HINT})"
    if staged is None:
        if not configured:
            return []  # no header in this project
        return settings.finding("header", header_path, f"the configured version header is not in the index; {fix}")
    try:
        text = staged.decode("utf-8")
    except UnicodeDecodeError as exc:
        return settings.finding(
            "header", header_path, f"byte {exc.start}: the header is not UTF-8; {GUARD_HEADER_HINT}"
        )
    record = version_file.record
    try:
        expected = header_for(text, record, record.build_version or None, header_path)
    except BuildverError as exc:
        return settings.finding("header", header_path, f"{_without_path(str(exc), header_path)}; {GUARD_HEADER_HINT}")
    if expected == text:
        return []
    return settings.finding("header", header_path, f"out of step with {version_file.path.as_posix()}; {fix}")


# -- packages ---------------------------------------------------------------------------------------------------


def check_package(
    path: str,
    data: bytes,
    engine: EngineVersion | None,
    *,
    warn_empty: bool = True,
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """The findings about one staged package's bytes, for ``engine`` (None: no Build.version to check against)."""
    from buildver.errors import PackageFormatError
    from buildver.package import parse_package_summary

    try:
        summary = parse_package_summary(data, path)
    except PackageFormatError as exc:
        return _unreadable(path, exc.offset, exc.reason, exc.not_a_package, settings)
    return check_package_summary(path, summary, engine, warn_empty=warn_empty, settings=settings)


def _unreadable(path: str, offset: int, reason: str, not_a_package: bool, settings: GuardSettings) -> list[Finding]:
    what = "not an Unreal package" if not_a_package else "the package is corrupt"
    return settings.finding("package-unreadable", path, f"{what}: byte {offset}: {reason}")


def check_package_summary(
    path: str,
    summary: PackageSummary,
    engine: EngineVersion | None,
    *,
    warn_empty: bool = True,
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """The findings about one package header; the rules for loading are ``assets.classify``'s."""
    from buildver.assets import ScanStatus, classify

    status = None
    if engine is not None:
        result = classify(path, summary, engine, warn_empty=False)
        status = result.status
        if status is ScanStatus.NEWER_ENGINE:
            return settings.finding("package-newer", path, f"saved by a newer engine than {engine}: {result.error}")
        if status is ScanStatus.TOO_NEW_FORMAT:
            return settings.finding(
                "package-unknown-format", path, f"not checked: a header newer than this buildver knows ({result.error})"
            )
    elif summary.newer_format is not None:
        return settings.finding("package-unknown-format", path, f"not checked: {summary.newer_format}")
    if summary.is_cooked or summary.is_unversioned:
        return settings.finding(
            "package-cooked", path, "a cooked (unversioned) package in a source tree: the editor cannot open it"
        )
    saved_by = summary.saved_by_engine_version
    # Unreal warns only when the running engine has a changelist; the guard warns whatever the staged changelist,
    # because the editors that build machines stamp with a changelist will warn about this package.
    if warn_empty and saved_by is not None and not saved_by.has_changelist:
        return settings.finding(
            "package-empty-engine-version",
            path,
            f"saved with an empty engine version ({saved_by}): engines with a changelist warn that it "
            '"may be incompatible" (set ZeroEngineVersionWarning=0 under [Core.System] in '
            "Config/DefaultEngine.ini to accept such packages)",
        )
    return []


def _lfs_object_id(data: bytes) -> str | None:
    """The sha256 object id of a Git LFS pointer, or None when ``data`` is not one."""
    if len(data) > LFS_POINTER_MAX_SIZE or not data.startswith(LFS_POINTER_START):
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key == "oid" and value.startswith("sha256:"):
            oid = value.removeprefix("sha256:")
            if len(oid) == 64 and all(char in "0123456789abcdef" for char in oid):
                return oid
    return None


# -- .modules manifests -----------------------------------------------------------------------------------------


def check_manifests(
    manifests: Mapping[str, bytes],
    checked: Iterable[str],
    forced_build_id: str = "",
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Findings about the ``checked`` manifests, compared with every manifest of their folders (``manifests``)."""
    from buildver.modules_manifest import ModulesManifest, build_id_problems, parse_modules_manifest

    parsed: dict[str, ModulesManifest] = {}
    findings: list[Finding] = []
    checked = sorted(set(checked))
    for path in sorted(manifests):
        try:
            parsed[path] = parse_modules_manifest(manifests[path], path)
        except BuildverError as exc:
            if path in checked:
                findings += settings.finding("modules-build-id", path, _without_path(str(exc), path))
    for path, problem in build_id_problems(parsed, checked, forced_build_id).items():
        findings += settings.finding("modules-build-id", path, problem)
    return findings


# -- plugin descriptors -----------------------------------------------------------------------------------------


def check_plugin(
    path: str, data: bytes, record: BuildVersion, settings: GuardSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """The findings about one staged ``.uplugin``: the rules of ``buildver project check`` (``buildver.project``)."""
    from buildver.errors import DescriptorError
    from buildver.project import Status, parse_plugin_descriptor
    from buildver.project import check_plugin as check

    try:
        descriptor = parse_plugin_descriptor(data, path)
    except DescriptorError as exc:
        return settings.finding("plugin-invalid", path, _without_path(str(exc), path))
    result = check(descriptor, record.compatible_engine_version)
    if result.status is Status.REFUSED:
        return settings.finding("plugin-incompatible", path, result.reason)
    if result.status is Status.WARNING:
        return settings.finding("plugin-engine-version-unparsed", path, result.reason)
    return []


# -- gathering the staged snapshot from git ---------------------------------------------------------------------


def _kind(path: str) -> str | None:
    name = posixpath.basename(path)
    lowered = name.lower()
    if name == VERSION_FILE_NAME:
        return "version"
    if lowered.endswith(PACKAGE_SUFFIXES):
        return "package"
    if lowered.endswith(MANIFEST_SUFFIX):
        return "manifest"
    if lowered.endswith(PLUGIN_SUFFIX):
        return "plugin"
    return None


def _repository_path(root: Path, start: Path, file: Path | str) -> str:
    # abspath, not resolve: a symbolic link inside the repository is judged under its own name.
    absolute = os.path.abspath(os.path.join(start, file))
    relative = os.path.relpath(absolute, root)
    if relative == os.curdir or relative.startswith(os.pardir + os.sep) or relative == os.pardir:
        raise UsageError(f"{file}: is not a file in the repository at {root}")
    return Path(relative).as_posix()


def run_guard(start: Path, files: Sequence[Path | str] | None = None) -> GuardReport | None:
    """Check ``files`` (paths from ``start``), or every staged file, as the index holds them; None outside git."""
    from buildver.config import load_config
    from buildver.vcs import find_repository_root, read_blobs, staged_paths, unstaged_paths

    start = start.resolve()
    root = find_repository_root(start)
    if root is None:
        return None
    config = load_config(start)
    settings = GuardSettings.from_table(config.guard, config.source)
    if files is None:
        candidates = staged_paths(root)
    else:
        candidates = list(dict.fromkeys(_repository_path(root, start, file) for file in files))

    configured_version = None if config.version_file is None else _repository_path(root, root, config.version_file)
    version_candidates = [configured_version] if configured_version else [path.as_posix() for path in SEARCHED_PATHS]
    versions = [path for path in candidates if _kind(path) == "version" or path == configured_version]
    packages = [path for path in candidates if _kind(path) == "package"]
    manifests = [path for path in candidates if _kind(path) == "manifest"]
    plugins = [path for path in candidates if _kind(path) == "plugin"]

    # The first batch: the engine's Build.version and every staged Build.version, with HEAD's for each.
    wanted = list(dict.fromkeys([*version_candidates, *versions]))
    blobs = dict(read_blobs(root, [spec for path in wanted for spec in (f":{path}", f"HEAD:{path}")]))
    findings: list[Finding] = []
    engine_file: VersionFile | None = None
    engine_path = next((path for path in version_candidates if blobs.get(f":{path}") is not None), None)
    for path in wanted:
        staged = blobs.get(f":{path}")
        if staged is None:
            continue
        version_file, version_findings = check_version(path, staged, blobs.get(f"HEAD:{path}"), settings)
        if path in versions:
            findings += version_findings
        if path == engine_path:
            engine_file = version_file

    header_path, header_configured = _header_path(root, engine_path, engine_file, config)
    checked = {*versions, *packages, *manifests, *plugins}
    check_the_header = header_path is not None and (engine_path in versions or header_path in candidates)

    # The second batch: the header, the settings of each package's project, the manifests and the packages.
    specs: list[str] = []
    if check_the_header:
        specs.append(f":{header_path}")
    ini_of_package = _engine_ini_paths(root, packages) if packages else {}
    specs += [f":{ini}" for ini in sorted({ini for ini in ini_of_package.values() if ini is not None})]
    folder_manifests = _folder_manifests(root, manifests) if manifests else []
    specs += [f":{path}" for path in folder_manifests]
    specs += [f":{path}" for path in plugins]
    small_count = len(specs)
    # A package whose working-tree file is the staged one is read from there, header only: packages can be
    # gigabytes, and a Git LFS package's blob is only a pointer. The others are read from their staged blobs.
    unstaged = unstaged_paths(root, packages) if packages else set()
    specs += [f":{path}" for path in packages if path in unstaged]
    blob_stream = read_blobs(root, specs)
    small = dict(next(blob_stream) for _ in range(small_count))

    if check_the_header and header_path is not None and (header_configured or small.get(f":{header_path}") is not None):
        checked.add(header_path)
        if engine_file is not None:
            findings += check_header(
                header_path, small.get(f":{header_path}"), engine_file, configured=header_configured, settings=settings
            )
    if manifests:
        manifest_blobs = {path: data for path in folder_manifests if (data := small.get(f":{path}")) is not None}
        forced = "" if engine_file is None else engine_file.record.build_id
        findings += check_manifests(manifest_blobs, manifests, forced, settings)

    engine = None if engine_file is None else engine_file.record.engine_version
    if (packages or plugins) and engine is None:
        where = engine_path or version_candidates[0]
        problem = "is not valid" if engine_path else "is not in the index"
        counts = ((packages, "packages"), (plugins, ".uplugin files"))
        unchecked = ", ".join(f"{len(files)} staged {noun}" for files, noun in counts if files)
        message = f"{problem}: {unchecked} not checked against an engine"
        findings += settings.finding("no-engine-version", where, message)
    for path in plugins:
        data = small.get(f":{path}")
        if data is None:
            findings += settings.finding("plugin-invalid", path, "not in the index (stage it with git add)")
        elif engine_file is not None:
            findings += check_plugin(path, data, engine_file.record, settings)
    from buildver.engine_ini import zero_engine_version_warning_of

    warn_empty_of_ini: dict[str | None, bool] = {None: True}
    for ini in ini_of_package.values():
        if ini not in warn_empty_of_ini:
            data = small.get(f":{ini}")
            warn_empty_of_ini[ini] = True if data is None else zero_engine_version_warning_of(data)
    for path in packages:
        if path not in unstaged:
            warn_empty = warn_empty_of_ini[ini_of_package.get(path)]
            findings += _check_package_file(path, root / path, engine, warn_empty, settings, root)
    for spec, data in blob_stream:
        path = spec[1:]
        if data is None:
            findings += settings.finding("package-unreadable", path, "not in the index (stage it with git add)")
            continue
        warn_empty = warn_empty_of_ini[ini_of_package.get(path)]
        oid = _lfs_object_id(data)
        if oid is None:
            findings += check_package(path, data, engine, warn_empty=warn_empty, settings=settings)
        else:
            findings += _check_lfs_package(root, path, oid, engine, warn_empty, settings)
    order = {check.key: index for index, check in enumerate(CHECKS)}
    findings.sort(key=lambda finding: (finding.path, order[finding.check]))
    return GuardReport(tuple(findings), len(checked))


def _check_package_file(
    path: str,
    file: Path,
    engine: EngineVersion | None,
    warn_empty: bool,
    settings: GuardSettings,
    root: Path | None = None,
) -> list[Finding]:
    """The findings about the package stored in ``file``, reading only its header; ``root``: a work-tree file."""
    from buildver.errors import PackageFormatError
    from buildver.package import read_package_summary

    try:
        summary = read_package_summary(file)
    except PackageFormatError as exc:
        if exc.not_a_package:
            # A Git LFS checkout without its content (GIT_LFS_SKIP_SMUDGE) keeps the pointer in the work tree.
            with open(file, "rb") as stream:
                oid = _lfs_object_id(stream.read(LFS_POINTER_MAX_SIZE + 1))
            if oid is not None and root is not None:
                return _check_lfs_package(root, path, oid, engine, warn_empty, settings)
        return _unreadable(path, exc.offset, exc.reason, exc.not_a_package, settings)
    return check_package_summary(path, summary, engine, warn_empty=warn_empty, settings=settings)


def _check_lfs_package(
    root: Path, path: str, oid: str, engine: EngineVersion | None, warn_empty: bool, settings: GuardSettings
) -> list[Finding]:
    """A package kept in Git LFS: its index entry is a pointer, and ``git add`` put the content in the LFS store."""
    from buildver.vcs import git_common_dir

    stored = git_common_dir(root) / "lfs" / "objects" / oid[:2] / oid[2:4] / oid
    if stored.is_file():
        return _check_package_file(path, stored, engine, warn_empty, settings)
    # Not an error: the content exists elsewhere (the LFS server), only this clone cannot show it.
    return [
        Finding(path, Severity.WARNING, finding.message, finding.check)
        for finding in settings.finding(
            "package-unreadable", path, "not checked: a Git LFS pointer whose object is not in the local LFS store"
        )
    ]


def _header_path(
    root: Path, engine_path: str | None, engine_file: VersionFile | None, config: Config
) -> tuple[str | None, bool]:
    """The version header update-local writes (repository-relative) and whether it is configured; None when there
    is none: no valid Build.version, ``skip-header``, or an engine from 4.20 on, whose Version.h is not stamped."""
    if config.skip_header:
        return None, False
    if config.header is not None:
        return _repository_path(root, root, config.header), True
    if engine_path is None or engine_file is None:
        return None, False
    from buildver.update_local import rules_and_header

    # The rules depend on the engine tree around the file: give them the work tree's path.
    _, header = rules_and_header(dataclasses.replace(engine_file, path=root / engine_path), config=config)
    return (None, False) if header is None else (_repository_path(root, root, header), False)


def _engine_ini_paths(root: Path, packages: list[str]) -> dict[str, str | None]:
    """Each package's project ``Config/DefaultEngine.ini`` (repository-relative), found in the working tree."""
    from buildver.engine_ini import find_engine_ini

    by_folder: dict[str, str | None] = {}
    result: dict[str, str | None] = {}
    for path in packages:
        folder = posixpath.dirname(path)
        if folder not in by_folder:
            ini = find_engine_ini(root / folder)
            relative = None if ini is None else os.path.relpath(ini, root)
            # An ini above the repository is not part of the commit: Unreal's default (warn) applies.
            by_folder[folder] = (
                None if relative is None or relative.startswith(os.pardir) else Path(relative).as_posix()
            )
        result[path] = by_folder[folder]
    return result


def _folder_manifests(root: Path, manifests: list[str]) -> list[str]:
    """Every manifest in the index beside the checked ones (their binaries folders), the checked ones included."""
    from buildver.vcs import index_paths_under

    folders = sorted({posixpath.dirname(path) for path in manifests})
    in_index = index_paths_under(root, folders)
    beside = [
        path for path in in_index if posixpath.dirname(path) in folders and path.lower().endswith(MANIFEST_SUFFIX)
    ]
    return sorted({*beside, *manifests})
