"""Which plugins and projects an engine build loads, decided by Unreal's own rules (``docs/project-rules.md``).

Three questions, one function each:

- a plugin's ``EngineVersion`` against the engine's ``CompatibleWith()`` (``FPluginManager::IsPluginCompatible``):
  :func:`check_plugin`;
- a project's ``EngineAssociation`` against the engine (``FDesktopPlatformBase`` and the project browser):
  :func:`check_association`;
- the ``.modules`` manifests beside a project's or a plugin's binaries (``FModuleManager``, through the guard's
  folder check): :func:`check_manifests`.

Results are immutable values; nothing here prints.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.errors import BuildverError
from buildver.projects.descriptors import PluginDescriptor, ProjectDescriptor
from buildver.projects.lenient_version import parse_stock_engine_version, parse_unreal_engine_version
from buildver.versions.engine_version import EngineVersion, VersionComparison, VersionComponent

if TYPE_CHECKING:
    from buildver.projects.engine import IdentifierLookup

__all__ = ["CheckResult", "Kind", "Status", "check_association", "check_manifests", "check_plugin", "same_folder"]


class Status(enum.StrEnum):
    """What the engine build would do with one descriptor or manifest."""

    COMPATIBLE = "compatible"
    """Loads: the versions agree, the plugin names no engine, the association names this engine, the BuildIds match."""
    WARNING = "warning"
    """Loads, with a warning in the log: a plugin EngineVersion that FEngineVersion::Parse cannot read."""
    CONVERT = "convert"
    """A project made with an older engine: Unreal offers to convert it (open a copy, convert in place, skip)."""
    NOT_DECIDABLE = "not-decidable"
    """An association that leads elsewhere or nowhere known: a GUID or name registered for another folder or not on
    this machine, a path to another folder."""
    REFUSED = "refused"
    """A plugin Unreal skips unless someone says yes in a dialog, a project it will not open, stale modules."""
    MALFORMED = "malformed"
    """A descriptor or manifest Unreal cannot read at all."""

    @property
    def is_failure(self) -> bool:
        """Whether ``buildver project check`` exits 1 for it."""
        return self in (Status.REFUSED, Status.MALFORMED)

    @property
    def description(self) -> str:
        """What the status means, in one line (the rules of ``project check``'s SARIF report)."""
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    Status.COMPATIBLE: "the engine build loads it",
    Status.WARNING: "loads, with a warning in the log (an EngineVersion FEngineVersion::Parse cannot read)",
    Status.CONVERT: "a project made with an older engine: Unreal offers to convert it",
    Status.NOT_DECIDABLE: "an association that leads to another engine or to none known on this machine",
    Status.REFUSED: "Unreal refuses it: a plugin for another engine, a project it will not open, stale modules",
    Status.MALFORMED: "a descriptor or manifest Unreal cannot read",
}


class Kind(enum.StrEnum):
    """What a result is about."""

    PROJECT = "project"
    PLUGIN = "plugin"
    MODULES = "modules"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict on one file: what it declares, what the engine would do, and why (one line)."""

    kind: Kind
    path: str
    """Relative to the checked folder (posix separators), or to the engine's root for engine plugins."""
    status: Status
    declared: str | None
    """The plugin's EngineVersion, the project's EngineAssociation or the manifest's BuildId, as written."""
    reason: str
    warnings: tuple[str, ...] = ()
    """What Unreal reads without a word but a reader should know (a key that comes more than once)."""
    location: str | None = None
    """Where the file is: its absolute path (posix separators), when the check walked to it (``check_project``)."""

    def to_json(self) -> dict[str, object]:
        """The result as a JSON object (``warnings`` only when there are some)."""
        document: dict[str, object] = {
            "kind": str(self.kind),
            "path": self.path,
            "status": str(self.status),
            "declared": self.declared,
            "reason": self.reason,
        }
        if self.warnings:
            document["warnings"] = list(self.warnings)
        return document


def check_plugin(descriptor: PluginDescriptor, compatible_with: EngineVersion) -> CheckResult:
    """FPluginManager::IsPluginCompatible (see :func:`_plugin_verdict`), with the descriptor's notes as warnings."""
    result = _plugin_verdict(descriptor, compatible_with)
    return replace(result, warnings=descriptor.notes) if descriptor.notes else result


def _plugin_verdict(descriptor: PluginDescriptor, compatible_with: EngineVersion) -> CheckResult:
    """FPluginManager::IsPluginCompatible: the plugin's EngineVersion against the engine's CompatibleWith().

    Any difference GetNewest sees (major, minor, patch, or changelists of one vendor) refuses the plugin, an older
    one as much as a newer one; an EngineVersion that does not parse only logs a warning.
    """
    declared = descriptor.engine_version_for(compatible_with.major)
    if not declared:
        return CheckResult(
            Kind.PLUGIN, descriptor.path, Status.COMPATIBLE, None, "names no EngineVersion: any engine loads it"
        )
    version = parse_unreal_engine_version(declared)
    if version is None:
        return CheckResult(
            Kind.PLUGIN,
            descriptor.path,
            Status.WARNING,
            declared,
            f"EngineVersion {declared!r} does not parse as MAJOR.MINOR.PATCH: Unreal logs a warning and loads it",
        )
    newest, component = EngineVersion.get_newest(compatible_with, version)
    if newest is VersionComparison.NEITHER:
        return CheckResult(
            Kind.PLUGIN,
            descriptor.path,
            Status.COMPATIBLE,
            declared,
            f"EngineVersion {declared!r} agrees with CompatibleWith() {compatible_with}",
        )
    assert component is not None
    age = "older" if newest is VersionComparison.FIRST else "newer"
    shown = str(version) if version.changelist or version.branch else version.to_string(VersionComponent.PATCH)
    return CheckResult(
        Kind.PLUGIN,
        descriptor.path,
        Status.REFUSED,
        declared,
        f"made for {shown}, {age} than CompatibleWith() {compatible_with} by {component.name.lower()}: Unreal "
        'asks "designed for build ... Attempt to load it anyway?" and skips the plugin on No',
    )


_HEX = "[0-9A-Fa-f]"
_GUID = re.compile(
    rf"{_HEX}{{32}}"
    rf"|{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
    rf"|\{{{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\}}"
    rf"|\({_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\)"
    rf"|{_HEX}{{8}}-{_HEX}{{8}}-{_HEX}{{8}}-{_HEX}{{8}}"
)
"""The text forms FGuid::Parse accepts for an engine registered on one machine (HexValuesInBraces left out)."""


def same_folder(first: Path, second: Path) -> bool:
    """Whether two paths name the same folder, compared as the file system would (case on Windows, ``..``)."""

    def normal(path: Path) -> str:
        return os.path.normcase(os.path.normpath(os.path.abspath(path)))

    return normal(first) == normal(second)


def _engine_folder_above(project_dir: Path) -> Path | None:
    """The first parent of the project folder that FDesktopPlatformBase::IsValidRootDirectory accepts (UE5)."""
    for folder in Path(os.path.abspath(project_dir)).parents:
        if (folder / "Engine" / "Binaries").is_dir() and (folder / "Engine" / "Build").is_dir():
            return folder
    return None


def check_association(
    descriptor: ProjectDescriptor,
    engine: EngineVersion,
    *,
    project_dir: Path | None = None,
    engine_root: Path | None = None,
    registered: IdentifierLookup | None = None,
) -> CheckResult:
    """A project's EngineAssociation against the engine build whose FEngineVersion::Current() is ``engine``.

    ``project_dir`` and ``engine_root`` (the folder holding ``Engine/``) decide an empty association and a path;
    without them those are not decidable. A version ``MAJOR.MINOR`` (a launcher build) is decided by GetNewest
    as the project browser does. A GUID or another identifier is decided like a path by ``registered``, what this
    machine's lists say about it (``buildver.projects.engine.look_up_identifier``): compatible when it is
    registered as ``engine_root``; without ``registered`` it is not decidable.
    """
    association = descriptor.engine_association_for(engine.major)

    def result(status: Status, reason: str) -> CheckResult:
        return CheckResult(Kind.PROJECT, descriptor.path, status, association, reason, descriptor.notes)

    if not association:
        found = None if project_dir is None else _engine_folder_above(project_dir)
        if found is None:
            return result(
                Status.NOT_DECIDABLE,
                "no EngineAssociation and no engine folder above the project: Unreal cannot tell which engine",
            )
        if engine_root is not None and same_folder(found, engine_root):
            return result(Status.COMPATIBLE, "no EngineAssociation: the project lives in this engine's folder")
        return result(
            Status.NOT_DECIDABLE, f"no EngineAssociation: Unreal uses the engine folder above the project, {found}"
        )
    if "/" in association or "\\" in association:
        if project_dir is not None and engine_root is not None:
            target = Path(os.path.abspath(project_dir)) / association.replace("\\", "/")
            if same_folder(target, engine_root):
                return result(Status.COMPATIBLE, "the EngineAssociation path names this engine's folder")
        return result(
            Status.NOT_DECIDABLE,
            "a path to an engine folder (a source build), not this engine's: which build is there is not known here",
        )
    stock = parse_stock_engine_version(association)
    if stock is not None:
        newest, _ = EngineVersion.get_newest(stock, engine)
        release = engine.to_string(VersionComponent.PATCH)
        if newest is VersionComparison.FIRST:
            return result(
                Status.REFUSED,
                f"made with Unreal {association}, newer than this engine {release}: Unreal refuses to open it",
            )
        if (stock.major, stock.minor) == (engine.major, engine.minor):
            return result(Status.COMPATIBLE, f"a launcher build of {association}, this engine's release")
        return result(
            Status.CONVERT,
            f"made with Unreal {association}, older than this engine {release}: Unreal offers to convert the project",
        )
    if registered is not None and registered.root is not None:
        # FDesktopPlatformBase::GetEngineRootDirFromIdentifier (4.22 to 5.x): the project's engine is that folder,
        # and the project browser opens the project without the Convert dialog when it is the engine being run.
        where = f"the EngineAssociation {association} is registered on this machine as {registered.root}"
        if engine_root is not None and same_folder(registered.root, engine_root):
            return result(Status.COMPATIBLE, f"{where}, this engine's folder")
        if engine_root is None:
            return result(Status.NOT_DECIDABLE, f"{where}; the folder of the engine checked against is not known")
        return result(
            Status.NOT_DECIDABLE, f"{where}, not this engine's folder: which build is there is not known here"
        )
    is_guid = _GUID.fullmatch(association) is not None
    if is_guid:
        what = "a GUID: a source build registered on one machine (its registry or Install.ini)"
    else:
        what = "neither MAJOR.MINOR nor a GUID: Unreal looks it up among this machine's registered engines"
    if registered is None:
        return result(Status.NOT_DECIDABLE, f"{what}, not decidable here" if is_guid else what)
    if registered.problem:
        return result(Status.NOT_DECIDABLE, f"{what}; this machine's list cannot be read: {registered.problem}")
    missing = "not on this one" if is_guid else "and none has that name"
    return result(Status.NOT_DECIDABLE, f"{what}, {missing} (looked in {', '.join(registered.looked)})")


def check_manifests(
    manifests: Mapping[str, bytes],
    *,
    forced_build_id: str = "",
    engine_build_ids: Mapping[str, tuple[str, str]] | None = None,
) -> list[CheckResult]:
    """The ``.modules`` manifests of binaries folders (posix path → bytes), one result each.

    A folder's manifests must agree on one BuildId and match a BuildId forced in Build.version (the guard's
    check); ``engine_build_ids`` maps a manifest to the engine's manifest of the same name (its path and BuildId),
    which the running editor reads its BuildId from: FModuleManager skips every manifest whose BuildId differs.
    """
    from buildver.projects.modules_manifest import ModulesManifest, build_id_problems, parse_modules_manifest

    parsed: dict[str, ModulesManifest] = {}
    results: list[CheckResult] = []
    for path in sorted(manifests):
        try:
            parsed[path] = parse_modules_manifest(manifests[path], path)
        except BuildverError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
            results.append(CheckResult(Kind.MODULES, path, Status.MALFORMED, None, reason))
    problems = build_id_problems(parsed, parsed, forced_build_id)
    for path, manifest in parsed.items():
        engine_manifest = (engine_build_ids or {}).get(path)
        if path in problems:
            status, reason = Status.REFUSED, problems[path]
        elif engine_manifest is not None and engine_manifest[1] != manifest.build_id:
            status = Status.REFUSED
            reason = (
                f"BuildId {manifest.build_id!r} is not the engine's {engine_manifest[1]!r} ({engine_manifest[0]}): "
                "Unreal skips these modules as out of date and asks to rebuild them"
            )
        else:
            against = f"the engine's ({engine_manifest[0]})" if engine_manifest is not None else "its folder's"
            status, reason = Status.COMPATIBLE, f"BuildId matches {against}"
        results.append(CheckResult(Kind.MODULES, path, status, manifest.build_id, reason))
    return sorted(results, key=lambda result: result.path)
