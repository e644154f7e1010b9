"""The guard's checks: pure functions over the bytes of one staged file (and HEAD's), each returning findings.

- ``Build.version``: it parses; against HEAD's, the version never goes backwards by GetNewest's rules;
  CompatibleChangelist is not above Changelist; a promoted build without a changelist and a forced BuildId are
  warnings; the version header, when update-local writes one, is what ``buildver header`` would write.
- Packages (``.uasset``, ``.umap``): the staged engine can load them (``buildver.packages.verdicts.classify``);
  no cooked or unversioned package in a source tree; a package saved with an empty engine version is a warning unless
  ``[Core.System] ZeroEngineVersionWarning`` turns it off in the project's ``Config/DefaultEngine.ini``.
- ``.modules`` manifests: one BuildId per binaries folder, equal to Build.version's BuildId when that is forced.
- Plugin descriptors (``.uplugin``): Unreal can read them, and the staged engine's CompatibleWith() accepts their
  EngineVersion (the rule of ``buildver project check``); against HEAD's, their Version never decreases, and grows
  with a new VersionName.
- An engine tree's Version.h: its ENGINE_MAJOR/MINOR/PATCH_VERSION are the staged Build.version's.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from buildver.errors import BuildverError
from buildver.guard.settings import DEFAULT_SETTINGS, Finding, GuardSettings
from buildver.versions.build_version import BuildVersion, VersionFile, parse_build_version

if TYPE_CHECKING:
    from buildver.packages.summary import PackageSummary
    from buildver.packages.tree_tables import VersionTables
    from buildver.projects.unreal_ini import IniDocument, IniValue
    from buildver.stamp.header import MacroNames
    from buildver.versions.engine_version import EngineVersion

__all__ = [
    "GUARD_HEADER_HINT",
    "backwards_problem",
    "check_engine_numbers",
    "check_game_config",
    "check_header",
    "check_manifests",
    "check_package",
    "check_package_summary",
    "check_plugin",
    "check_plugin_version",
    "check_project_descriptor",
    "check_version",
    "unreadable_package",
]


def _without_path(message: str, path: str) -> str:
    """The library's messages start with the file's path; a finding shows the path once, in front."""
    for prefix in (f"{path}: ", f"{Path(path)}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


_LINE_NAMED = r"line (\d+)\b"
"""How every error of buildver's names its place after the file's path: ``line 3, column 5: ...``, ``line 7: ...``
(compiled on first use: the guard imports this module at every commit, and most commits have no such error)."""


def _error_finding(settings: GuardSettings, key: str, path: str, error: BuildverError, hint: str = "") -> list[Finding]:
    """The finding of check ``key`` for an error the library raised about ``path``: its message without the path
    (``hint`` added), at the line the message names first, when it names one."""
    message = _without_path(str(error), path)
    named = re.match(_LINE_NAMED, message)
    return settings.finding(key, path, message + hint, None if named is None else int(named[1]))


# -- Build.version ----------------------------------------------------------------------------------------------


def _release(record: BuildVersion) -> str:
    return f"{record.major_version}.{record.minor_version}.{record.patch_version}"


_RELEASE_KEYS = {"MAJOR": "MajorVersion", "MINOR": "MinorVersion", "PATCH": "PatchVersion"}


def backwards_problem(old: BuildVersion, new: BuildVersion) -> str | None:
    """Why ``new`` moves the version backwards from ``old``, or None: when GetNewest says HEAD's is the newer.

    Major.minor.patch is compared as a whole (4.27.2 to 5.0.0 is forwards); the changelist only within the same
    release and vendor (a licensee's changelists come from another server than Epic's), and a changelist of 0
    (a Build.version reset after a stamped one was committed) is never ordered at all.
    """
    found = _backwards(old, new)
    return None if found is None else found[1]


def _backwards(old: BuildVersion, new: BuildVersion) -> tuple[str, str] | None:
    """The Build.version key that goes backwards and why (:func:`backwards_problem`), or None."""
    from buildver.versions.engine_version import EngineVersion, VersionComparison, VersionComponent

    newest, component = EngineVersion.get_newest(old.engine_version, new.engine_version)
    if newest is not VersionComparison.FIRST:
        return None
    if component is VersionComponent.CHANGELIST:
        return "Changelist", (
            f"Changelist goes backwards: {old.changelist} in HEAD, {new.changelist} staged "
            f"(the same {_release(new)} release and vendor)"
        )
    key = _RELEASE_KEYS[component.name] if component is not None else "PatchVersion"
    return key, f"the version goes backwards: {_release(old)} in HEAD, {_release(new)} staged ({key} decreases)"


def check_version(
    path: str, staged: bytes, head: bytes | None, settings: GuardSettings = DEFAULT_SETTINGS
) -> tuple[VersionFile | None, list[Finding]]:
    """The staged Build.version (None when it does not parse) and the findings about it, against HEAD's bytes."""
    try:
        version_file = parse_build_version(staged, Path(path))
    except BuildverError as exc:
        return None, _error_finding(settings, "version-invalid", path, exc)
    record = version_file.record
    line_of = version_file.line_of
    findings: list[Finding] = []
    if head is not None:
        try:
            old: BuildVersion | None = parse_build_version(head, Path(path)).record
        except BuildverError:
            old = None  # HEAD's file was invalid: any valid file repairs it
        problem = None if old is None else _backwards(old, record)
        if problem is not None:
            key, why = problem
            findings += settings.finding("version-backwards", path, why, line_of(key))
    if record.changelist != 0 and record.compatible_changelist > record.changelist:
        findings += settings.finding(
            "compatible-above-changelist",
            path,
            f"CompatibleChangelist {record.compatible_changelist} is above Changelist {record.changelist}: "
            "a build cannot be compatible with changes newer than its own",
            line_of("CompatibleChangelist"),
        )
    if record.is_promoted_build and record.changelist == 0:
        findings += settings.finding(
            "promoted-without-changelist",
            path,
            "IsPromotedBuild is 1 but Changelist is 0: not a formal build, and editors built from it save "
            "packages with an empty engine version",
            line_of("IsPromotedBuild"),
        )
    if record.build_id:
        findings += settings.finding(
            "forced-build-id",
            path,
            f"BuildId {record.build_id!r} is forced: Unreal's documentation advises against it "
            "(outdated modules can load, above all plugins shared between projects)",
            line_of("BuildId"),
        )
    return version_file, findings


GUARD_HEADER_HINT = "to leave the header alone, set skip-header = true in [tool.buildver]"


def check_header(
    header_path: str,
    staged: bytes | None,
    version_file: VersionFile,
    *,
    configured: bool,
    macros: MacroNames | None = None,
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Whether the staged header is what ``buildver header`` writes for the staged Build.version (a generated one
    with the names ``macros``, Version.h's by default)."""
    from buildver.stamp.header import UNREAL_MACROS, header_for, header_source, recorded_build

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
        expected = header_for(
            text,
            record,
            recorded_build(record),
            header_path,
            macros=macros or UNREAL_MACROS,
            source=header_source(header_path, version_file.path),
        )
    except BuildverError as exc:
        return _error_finding(settings, "header", header_path, exc, f"; {GUARD_HEADER_HINT}")
    if expected == text:
        return []
    return settings.finding(
        "header",
        header_path,
        f"out of step with {version_file.path.as_posix()}; {fix}",
        _first_difference(text, expected),
    )


def _first_difference(text: str, expected: str) -> int:
    """The first line (1-based) where ``text`` differs from ``expected``: where a reader of the header looks."""
    lines, wanted = text.splitlines(), expected.splitlines()
    for number, (line, other) in enumerate(zip(lines, wanted, strict=False), start=1):
        if line != other:
            return number
    if len(lines) == len(wanted):
        return 1  # the same lines with other line ends
    return max(1, min(len(lines), len(wanted) + 1))  # lines missing at the end: the last; lines too many: the first


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
    from buildver.packages.reader import parse_package_summary

    try:
        summary = parse_package_summary(data, path)
    except PackageFormatError as exc:
        return unreadable_package(path, exc.offset, exc.reason, exc.not_a_package, settings)
    return check_package_summary(path, summary, engine, warn_empty=warn_empty, settings=settings)


def unreadable_package(
    path: str, offset: int, reason: str, not_a_package: bool, settings: GuardSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """The finding about a staged file named like a package that is not one, or is corrupt."""
    what = "not an Unreal package" if not_a_package else "the package is corrupt"
    return settings.finding("package-unreadable", path, f"{what}: byte {offset}: {reason}")


def check_package_summary(
    path: str,
    summary: PackageSummary,
    engine: EngineVersion | None,
    *,
    warn_empty: bool = True,
    settings: GuardSettings = DEFAULT_SETTINGS,
    tables: VersionTables | None = None,
) -> list[Finding]:
    """The findings about one package header; the rules for loading are ``buildver.packages.verdicts.classify``'s
    (``tables``: the engine's own version tables, ``buildver.projects.engine_tables``)."""
    from buildver.packages.verdicts import ScanStatus, classify

    status = None
    if engine is not None:
        result = classify(path, summary, engine, warn_empty=False, tables=tables)
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


# -- .modules manifests -----------------------------------------------------------------------------------------


def check_manifests(
    manifests: Mapping[str, bytes],
    checked: Iterable[str],
    forced_build_id: str = "",
    settings: GuardSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Findings about the ``checked`` manifests, compared with every manifest of their folders (``manifests``)."""
    from buildver.projects.modules_manifest import ModulesManifest, build_id_problems, parse_modules_manifest

    parsed: dict[str, ModulesManifest] = {}
    findings: list[Finding] = []
    checked = sorted(set(checked))
    for path in sorted(manifests):
        try:
            parsed[path] = parse_modules_manifest(manifests[path], path)
        except BuildverError as exc:
            if path in checked:
                findings += _error_finding(settings, "modules-build-id", path, exc)
    for path, problem in build_id_problems(parsed, checked, forced_build_id).items():
        findings += settings.finding("modules-build-id", path, problem)
    return findings


# -- plugin descriptors -----------------------------------------------------------------------------------------


def check_plugin(
    path: str, data: bytes, record: BuildVersion | None, settings: GuardSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """The findings about one staged ``.uplugin``: the rules of ``buildver project check`` (``buildver.projects``);
    with no engine known (``record`` None), only whether Unreal can read it."""
    from buildver.errors import DescriptorError
    from buildver.projects.descriptors import parse_plugin_descriptor
    from buildver.projects.verdicts import Status
    from buildver.projects.verdicts import check_plugin as check

    try:
        descriptor = parse_plugin_descriptor(data, path)
    except DescriptorError as exc:
        return _error_finding(settings, "plugin-invalid", path, exc)
    if record is None:
        return []
    result = check(descriptor, record.compatible_engine_version)
    if result.status is Status.REFUSED:
        return settings.finding("plugin-incompatible", path, result.reason)
    if result.status is Status.WARNING:
        return settings.finding("plugin-engine-version-unparsed", path, result.reason)
    return []


def check_plugin_version(
    path: str, staged: bytes, head: bytes | None, settings: GuardSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """A staged ``.uplugin``'s Version and VersionName against HEAD's (``buildver.projects.plugin_version``): the
    Version never decreases, and a new VersionName comes with a higher Version, as Epic's reference asks ("must
    increase with every version of the plugin"). A file either side cannot be read by is left to ``plugin-invalid``
    (and HEAD's problems were HEAD's commit's to report)."""
    if head is None:
        return []
    from buildver.projects.plugin_version import parse_plugin_version

    try:
        new, old = parse_plugin_version(staged, Path(path)), parse_plugin_version(head, Path(path))
    except BuildverError:
        return []
    if new.version < old.version:
        return settings.finding(
            "plugin-version-backwards",
            path,
            f"Version goes backwards: {old.version} in HEAD, {new.version} staged (it must grow with every version "
            "of the plugin)",
        )
    if new.version_name != old.version_name and new.version == old.version:
        return settings.finding(
            "plugin-version-not-raised",
            path,
            f"VersionName changes ({old.version_name!r} in HEAD, {new.version_name!r} staged) but Version stays "
            f"{new.version}: a new version of the plugin needs a higher one (buildver bump raises both)",
        )
    return []


def check_engine_numbers(
    path: str, staged: bytes | None, version_file: VersionFile, settings: GuardSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """An engine tree's staged Version.h (``path``) against its staged Build.version: the engine reports the
    numbers Version.h gives (``FEngineVersion::Current()``), UnrealBuildTool Build.version's; the two must agree.
    A Version.h that is not in the index, or whose numbers cannot be read, is not judged."""
    from buildver.stamp.metadata_cs import version_h_numbers

    if staged is None:
        return []
    try:
        numbers = version_h_numbers(staged.decode("utf-8"))
    except UnicodeDecodeError:
        return []
    record = version_file.record
    release = (record.major_version, record.minor_version, record.patch_version)
    if numbers is None or numbers == release:
        return []
    shown = ".".join(map(str, numbers))
    return settings.finding(
        "engine-numbers",
        path,
        f"ENGINE_MAJOR/MINOR/PATCH_VERSION say {shown}, {version_file.path.as_posix()} says {_release(record)}: "
        f"the engine would report {shown} while UnrealBuildTool builds {_release(record)}; bring them in line "
        "with: buildver bump --set MAJOR.MINOR.PATCH",
    )


def check_project_descriptor(path: str, data: bytes, settings: GuardSettings = DEFAULT_SETTINGS) -> list[Finding]:
    """A staged ``.uproject`` that Unreal cannot read (``project-invalid``): the editor refuses to open the project,
    for everyone who pulls the commit. Read as ``buildver project check`` reads it."""
    from buildver.errors import DescriptorError
    from buildver.projects.descriptors import parse_project_descriptor

    try:
        parse_project_descriptor(data, path)
    except DescriptorError as exc:
        return _error_finding(settings, "project-invalid", path, exc)
    return []


# -- a game's own versions ----------------------------------------------------------------------------------------

# The version codes the guard compares: StoreVersion plus each architecture's offset, as the config sets them, for
# the architectures the project's engine release builds (``game_version.android_rules``, read in UnrealBuildTool's
# UEDeployAndroid.cs). Without a release, 4.25 to 5.0's rules, which build every architecture and name every offset
# key (ArmV7, Arm64, X8664): what any release builds is checked. A build machine's changelist
# (bUseChangeListAsStoreVersion) is not in the config and is not compared.
_ALL_OFFSETS_RELEASE = (4, 25)
_BUNDLE = "the app bundle"
"""With ``bEnableBundle`` UnrealBuildTool gives the bundle StoreVersion without any offset
(``game_version.android_bundle_version_code``). Its code is compared with HEAD's bundle's, or, when HEAD built APKs,
with HEAD's highest architecture code: Google Play refuses an upload whose code is not above every earlier one."""


def check_game_config(
    path: str,
    staged: bytes,
    head: bytes | None,
    settings: GuardSettings = DEFAULT_SETTINGS,
    *,
    engine_release: tuple[int, int] | None = None,
) -> list[Finding]:
    """A staged ``Config/DefaultGame.ini`` (ProjectVersion) or ``Config/DefaultEngine.ini`` (Android's version
    codes) against HEAD's: neither goes backwards, and no version code is above Google Play's limit.

    ``engine_release`` is the project's engine's (major, minor): only the architectures that release builds are
    checked; without it, every architecture of any release. One finding per ini line at fault, naming the
    architectures whose codes it moves."""
    from buildver.projects.unreal_ini import parse_ini

    try:
        new = parse_ini(staged, path)
    except BuildverError as exc:
        return _error_finding(settings, "game-config-invalid", path, exc)
    old = None
    if head is not None:
        with contextlib.suppress(BuildverError):  # HEAD's own problems were HEAD's commit's to report
            old = parse_ini(head, path)
    if path.lower().endswith("defaultgame.ini"):
        return _check_project_version(path, new, old, settings)
    return _check_version_codes(path, new, old, settings, engine_release)


def _check_project_version(
    path: str, new: IniDocument, old: IniDocument | None, settings: GuardSettings
) -> list[Finding]:
    from buildver.projects.game_version import project_version, project_version_order

    # The same reading as show and update-local: BaseGame.ini's 1.0.0.0 when the file sets none.
    version = project_version((new,))
    try:
        numbers = project_version_order(version)
    except BuildverError as exc:
        return _error_finding(settings, "project-version-invalid", path, exc)
    if old is None:
        return []
    before = project_version((old,))
    try:
        old_numbers = project_version_order(before)
    except BuildverError:
        return []
    if numbers < old_numbers:
        where = f"line {version.line}: ProjectVersion" if version.line is not None else "ProjectVersion (not set)"
        return settings.finding(
            "project-version-backwards",
            path,
            f"{where} goes backwards: {before.value} -> {version.value}",
            version.line,
        )
    return []


class _Code(NamedTuple):
    """One architecture's version code, and the two values it adds up (each with the line that set it)."""

    arch: str
    code: int
    base: int
    base_line: IniValue | None
    offset_key: str | None
    offset_line: IniValue | None


def _version_codes(document: IniDocument, release: tuple[int, int]) -> list[_Code]:
    from buildver.projects.game_version import (
        ANDROID_SETTINGS,
        android_bundle_version_code,
        android_rules,
        android_store_version,
        android_version_code,
    )
    from buildver.projects.unreal_ini import IniReader, effective_value

    def line(key: str) -> IniValue | None:
        return effective_value((document,), ANDROID_SETTINGS, key, reader=IniReader.UBT)

    rules = android_rules(release)
    base = android_store_version((document,), engine=release, engine_changelist=None, build_machine=False)
    codes = []
    for arch in rules.archs:
        found = android_version_code((document,), arch, engine=release, engine_changelist=None, build_machine=False)
        key = rules.offsets.get(arch)
        codes.append(
            _Code(str(arch), found.value, base.value, line("StoreVersion"), key, None if key is None else line(key))
        )
    bundle = android_bundle_version_code((document,), engine=release, engine_changelist=None, build_machine=False)
    if bundle is not None:  # bEnableBundle: Google Play gets one bundle whose code has no architecture's offset
        codes.append(
            _Code(_BUNDLE, bundle.value, base.value, line("StoreVersion"), "bEnableBundle", line("bEnableBundle"))
        )
    return codes


def _bundle_of_apks(document: IniDocument, codes: dict[str, _Code]) -> _Code | None:
    """What a bundle's code is compared with when ``document`` built APKs: its highest architecture's code, with
    the document's own ``bEnableBundle`` line (not true, or not set)."""
    from buildver.projects.game_version import ANDROID_SETTINGS
    from buildver.projects.unreal_ini import IniReader, effective_value

    if not codes:
        return None
    highest = max(codes.values(), key=lambda code: code.code)
    flag = effective_value((document,), ANDROID_SETTINGS, "bEnableBundle", reader=IniReader.UBT)
    return highest._replace(arch=_BUNDLE, offset_key="bEnableBundle", offset_line=flag)


def _at_fault(code: _Code, base_at_fault: bool) -> tuple[str, IniValue | None]:
    """The key whose line moves ``code``: StoreVersion when ``base_at_fault``, else the architecture's offset."""
    if base_at_fault or code.offset_key is None:
        return "StoreVersion", code.base_line
    return code.offset_key, code.offset_line


def _where(key: str, found: IniValue | None) -> str:
    return f"line {found.line}: {key} {found.value}" if found is not None else f"{key} (not set)"


def _line(found: IniValue | None) -> int | None:
    return None if found is None else found.line


def _arch_list(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _check_version_codes(
    path: str,
    new: IniDocument,
    old: IniDocument | None,
    settings: GuardSettings,
    engine_release: tuple[int, int] | None,
) -> list[Finding]:
    from buildver.projects.game_version import GOOGLE_PLAY_MAX_VERSION_CODE, android_rules

    release = engine_release or _ALL_OFFSETS_RELEASE

    try:
        new_codes = [code for code in _version_codes(new, release) if code.base_line is not None]
    except BuildverError as exc:
        return _error_finding(settings, "game-config-invalid", path, exc)
    rules = android_rules(release)
    builds = (
        f"{rules.name} builds {_arch_list([str(arch) for arch in rules.archs])}"
        if engine_release is not None
        else "the engine's release is not known: every architecture is checked"
    )
    too_large: dict[str, tuple[IniValue | None, list[str]]] = {}
    for code in new_codes:
        if code.code > GOOGLE_PLAY_MAX_VERSION_CODE:
            key, found = _at_fault(code, code.base > GOOGLE_PLAY_MAX_VERSION_CODE)
            too_large.setdefault(key, (found, []))[1].append(f"{code.arch} ({code.code})")
    findings: list[Finding] = []
    for key, (found, archs) in too_large.items():
        findings += settings.finding(
            "android-version-code-too-large",
            path,
            f"{_where(key, found)} puts the version code of {_arch_list(archs)} above {GOOGLE_PLAY_MAX_VERSION_CODE}, "
            f"Google Play's limit ({builds})",
            _line(found),
        )
    if old is None:
        return findings
    try:
        old_codes = {code.arch: code for code in _version_codes(old, release) if code.base_line is not None}
    except BuildverError:
        return findings
    if _BUNDLE not in old_codes and (apks := _bundle_of_apks(old, old_codes)) is not None:
        old_codes[_BUNDLE] = apks
    backwards: dict[str, tuple[IniValue | None, str, list[str]]] = {}
    for code in new_codes:
        before = old_codes.get(code.arch)
        if before is None or code.code >= before.code:
            continue
        key, found = _at_fault(code, code.base < before.base)
        head_line = before.base_line if key == "StoreVersion" else before.offset_line
        entry = backwards.setdefault(key, (found, "not set" if head_line is None else head_line.value, []))
        entry[2].append(f"{code.arch} ({before.code} -> {code.code})")
    for key, (found, was, archs) in backwards.items():
        findings += settings.finding(
            "android-version-code-backwards",
            path,
            f"{_where(key, found)} (was {was}) lowers the version code of {_arch_list(archs)} ({builds}); "
            "stores refuse an upload whose version code does not grow",
            _line(found),
        )
    return findings
