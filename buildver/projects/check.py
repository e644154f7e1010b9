"""Check every project, plugin and ``.modules`` manifest under a folder against one engine build.

:func:`check_project` walks a folder as Unreal searches it, reads every descriptor and ``.modules`` manifest, and
answers the three questions of ``buildver.projects.verdicts`` for each (``docs/project-rules.md``). Nothing here
prints.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.errors import BuildverError, DescriptorError, EngineLookupError, UsageError
from buildver.file_names import MANIFEST_SUFFIX, PLUGIN_SUFFIX, PROJECT_SUFFIX
from buildver.projects.descriptors import parse_plugin_descriptor, parse_project_descriptor
from buildver.projects.verdicts import (
    CheckResult,
    Kind,
    Status,
    check_association,
    check_manifests,
    check_plugin,
    same_folder,
)
from buildver.versions.engine_version import EngineVersion

if TYPE_CHECKING:
    from buildver.projects.descriptors import ProjectDescriptor
    from buildver.projects.engine import IdentifierLookup
    from buildver.versions.build_version import VersionFile

__all__ = ["ProjectReport", "check_project", "find_descriptors"]

_SKIPPED_FOLDERS = frozenset({"intermediate", "saved", "deriveddatacache", "content"})
"""Build and cache output (copies of descriptors made by packaging live there), and Content folders, which UE5's
plugin search never enters."""
_PROJECT_PLUGIN_FOLDERS = frozenset({"plugins", "mods"})
"""Where Unreal reads a project's own plugins (FPaths::ProjectPluginsDir, ProjectModsDir)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ProjectReport:
    """Every verdict for one folder against one engine build."""

    version_file: str | None
    """The engine's Build.version (posix separators), or None for a bare version given with ``--against``."""
    engine: EngineVersion
    """FEngineVersion::Current() of the engine build."""
    compatible_with: EngineVersion
    """FEngineVersion::CompatibleWith() of the engine build: what plugins are compared with."""
    results: tuple[CheckResult, ...]

    @property
    def failed(self) -> bool:
        """Whether anything would be refused or cannot be read."""
        return any(result.status.is_failure for result in self.results)

    def counts(self) -> dict[Status, int]:
        """How many results have each status, in the order of :class:`Status`, leaving out the absent ones."""
        counter = Counter(result.status for result in self.results)
        return {status: counter[status] for status in Status if counter[status]}

    def to_json(self) -> dict[str, object]:
        """The report as one JSON document."""
        return {
            "version_file": self.version_file,
            "engine_version": str(self.engine),
            "compatible_with": str(self.compatible_with),
            "results": [result.to_json() for result in self.results],
            "counts": {str(status): count for status, count in self.counts().items()},
        }


# -- walking a folder ----------------------------------------------------------------------------------------------


def _engine_plugin_folders(engine_root: Path) -> list[Path]:
    """FPaths::GetExtensionDirs(EngineDir, "Plugins"): Engine/Plugins and those of platform and restricted folders."""
    engine = engine_root / "Engine"
    folders = [engine / "Plugins"]
    for extension in ("Platforms", "Restricted"):
        if (engine / extension).is_dir():
            folders += sorted(child / "Plugins" for child in (engine / extension).iterdir() if child.is_dir())
    return [folder for folder in folders if folder.is_dir()]


def _walk(root: Path, skipped: Path | None) -> Iterator[Path]:
    """The descriptors under ``root``, searched where Unreal searches.

    Below a folder holding a ``.uplugin`` there are no more plugins and Content folders hold none (UE5's
    FindPluginsInDirectory); a project's plugins are in its ``Plugins`` and ``Mods`` folders, so the rest of a
    project folder is not walked. A project in a folder right below a plugin's (a plugin repository's test project,
    such as cesium-unreal's ``TestsProject``) is still checked, with its own plugins: Unreal opens it as a project.
    """
    for folder, subfolders, files in os.walk(root):
        names = sorted(name for name in files if name.lower().endswith((PROJECT_SUFFIX, PLUGIN_SUFFIX)))
        yield from (Path(folder, name) for name in names)
        is_plugin = any(name.lower().endswith(PLUGIN_SUFFIX) for name in names)
        is_project = bool(names) and not is_plugin
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".")
            and name.lower() not in _SKIPPED_FOLDERS
            and (not is_project or name.lower() in _PROJECT_PLUGIN_FOLDERS)
            and not (is_plugin and not _holds_project(Path(folder, name)))
            and not (skipped is not None and same_folder(Path(folder, name), skipped))
        )


def _holds_project(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.lower().endswith(PROJECT_SUFFIX) and entry.is_file() for entry in entries)
    except OSError:
        return False


def find_descriptors(path: Path, *, engine_root: Path | None = None, engine_plugins: bool = False) -> list[Path]:
    """Every ``.uproject`` and ``.uplugin`` under ``path`` (or ``path`` itself), and the engine's plugins if asked.

    The engine's own ``Engine/`` folder is left out when ``path`` contains it, unless ``engine_plugins``; then its
    plugin folders are searched wherever the engine is.
    """
    if path.is_file():
        found = [path]
    else:
        engine_folder = None if engine_root is None else engine_root / "Engine"
        inside_engine = engine_folder is not None and Path(os.path.abspath(path)).is_relative_to(
            os.path.abspath(engine_folder)
        )
        found = list(_walk(path, None if inside_engine else engine_folder))
    if engine_plugins and engine_root is not None:
        known = {os.path.normcase(os.path.abspath(item)) for item in found}
        for folder in _engine_plugin_folders(engine_root):
            found += [item for item in _walk(folder, None) if os.path.normcase(os.path.abspath(item)) not in known]
    return found


def _display(file: Path, base: Path, engine_root: Path | None) -> str:
    """The path shown for ``file``: relative to the checked folder, else to the engine's root, else absolute."""
    for root in (base, engine_root):
        if root is None:
            continue
        try:
            relative = os.path.relpath(os.path.abspath(file), os.path.abspath(root))
        except ValueError:  # another drive on Windows
            continue
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return Path(relative).as_posix()
    return Path(os.path.abspath(file)).as_posix()


def _read(file: Path, shown: str) -> bytes:
    from buildver.reading import read_regular_file  # a FIFO or device named like a descriptor must not hang

    try:
        data = read_regular_file(file)
    except OSError as exc:
        raise DescriptorError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        raise DescriptorError(f"{shown}: cannot read the file (it was removed while buildver was working)")
    return data


def check_project(
    path: Path,
    engine_build: VersionFile | EngineVersion,
    *,
    engine_plugins: bool = False,
    look_up: Callable[[str], IdentifierLookup] | None = None,
) -> ProjectReport:
    """Check every project, plugin and binaries manifest under ``path`` against an engine build: the one of a
    Build.version, or a bare engine version (``--against``), taken as a build whose compatible changelist is its
    changelist.

    A project associated by a GUID or another name is looked up among this machine's engines with ``look_up``
    (default: ``buildver.projects.engine.look_up_identifier``, as ``buildver engine`` does), once per name.

    A descriptor or manifest that cannot be read is a MALFORMED result, not an exception: one bad plugin does not
    hide the verdicts on the others (Unreal, too, reports it and goes on with the rest).
    """
    if isinstance(engine_build, EngineVersion):
        if engine_plugins:
            raise UsageError("--engine-plugins needs the engine's Engine/Build/Build.version, not --against")
        from buildver.projects.place import engine_build_record

        record = engine_build_record(engine_build)
        engine, compatible_with = record.engine_version, record.compatible_engine_version
        engine_root, source, build_id = None, None, ""
    else:
        record = engine_build.record
        engine, compatible_with = record.engine_version, record.compatible_engine_version
        source, build_id = Path(engine_build.path).as_posix(), record.build_id
        from buildver.versions.engine_tree import engine_root as engine_root_of

        # The same engine tree update-local recognises: Engine/Build/Build.version beside Engine/Source/.
        engine_root = engine_root_of(Path(os.path.abspath(engine_build.path)))
        if engine_plugins and engine_root is None:
            raise UsageError(
                f"{engine_build.path}: --engine-plugins needs the engine's Engine/Build/Build.version (with "
                "Engine/Source/ beside it), to know where the engine's plugins are"
            )
    if path.is_file() and not path.name.lower().endswith((PROJECT_SUFFIX, PLUGIN_SUFFIX)):
        raise UsageError(f"{path}: not a .uproject or .uplugin; give one of those or a folder")
    base = path.parent if path.is_file() else path
    results: list[CheckResult] = []
    binaries_folders: list[Path] = []
    registered = _Registered(look_up)
    located: dict[str, Path] = {}
    for file in find_descriptors(path, engine_root=engine_root, engine_plugins=engine_plugins):
        shown = _display(file, base, engine_root)
        located[shown] = file
        try:
            data = _read(file, shown)
            if file.name.lower().endswith(PROJECT_SUFFIX):
                project = parse_project_descriptor(data, shown)
                results.append(
                    check_association(
                        project,
                        engine,
                        project_dir=file.parent,
                        engine_root=engine_root,
                        registered=registered.of(project, engine),
                    )
                )
            else:
                results.append(check_plugin(parse_plugin_descriptor(data, shown), compatible_with))
        except DescriptorError as exc:
            kind = Kind.PROJECT if file.name.lower().endswith(PROJECT_SUFFIX) else Kind.PLUGIN
            results.append(CheckResult(kind, shown, Status.MALFORMED, None, str(exc).removeprefix(f"{shown}: ")))
        binaries_folders.append(file.parent / "Binaries")
    results += _check_binaries(binaries_folders, base, engine_root, build_id, located)
    order = list(Kind)
    results.sort(key=lambda result: (order.index(result.kind), result.path))
    return ProjectReport(source, engine, compatible_with, tuple(_located(result, located) for result in results))


def _located(result: CheckResult, located: dict[str, Path]) -> CheckResult:
    """The result with its file's absolute path: shown paths are relative to the checked folder or the engine's."""
    file = located.get(result.path)
    return result if file is None else dataclasses.replace(result, location=Path(os.path.abspath(file)).as_posix())


class _Registered:
    """What this machine registers under each GUID or name a project is associated with, looked up once per name."""

    def __init__(self, look_up: Callable[[str], IdentifierLookup] | None) -> None:
        self._look_up = look_up
        self._found: dict[str, IdentifierLookup] = {}

    def of(self, project: ProjectDescriptor, engine: EngineVersion) -> IdentifierLookup | None:
        """The lookup of the association ``engine`` reads, or None for one that is not an identifier."""
        from buildver.projects.engine import AssociationKind, IdentifierLookup, association_kind, look_up_identifier

        association = project.engine_association_for(engine.major)
        if association_kind(association) not in (AssociationKind.GUID, AssociationKind.IDENTIFIER):
            return None
        if association not in self._found:
            try:
                self._found[association] = (self._look_up or look_up_identifier)(association)
            except EngineLookupError as exc:  # one unreadable list does not hide the other verdicts
                self._found[association] = IdentifierLookup(association, None, (), problem=str(exc))
        return self._found[association]


def _check_binaries(
    binaries_folders: list[Path], base: Path, engine_root: Path | None, forced_build_id: str, located: dict[str, Path]
) -> list[CheckResult]:
    """The manifests in ``<descriptor folder>/Binaries/<platform>/``, each against its engine counterpart (each
    manifest's file recorded in ``located`` under its shown path)."""
    manifests: dict[str, bytes] = {}
    engine_build_ids: dict[str, tuple[str, str]] = {}
    results: list[CheckResult] = []
    engine_ids: dict[Path, tuple[str, str] | None] = {}
    for binaries in dict.fromkeys(binaries_folders):
        if not binaries.is_dir():
            continue
        for platform in sorted(child for child in binaries.iterdir() if child.is_dir()):
            for file in sorted(platform.iterdir()):
                if not (file.is_file() and file.name.lower().endswith(MANIFEST_SUFFIX)):
                    continue
                shown = _display(file, base, engine_root)
                located[shown] = file
                try:
                    manifests[shown] = _read(file, shown)
                except DescriptorError as exc:
                    results.append(
                        CheckResult(Kind.MODULES, shown, Status.MALFORMED, None, str(exc).removeprefix(f"{shown}: "))
                    )
                    continue
                if engine_root is None:
                    continue
                counterpart = engine_root / "Engine" / "Binaries" / platform.name / file.name
                if same_folder(counterpart, file) or not counterpart.is_file():
                    continue
                if counterpart not in engine_ids:
                    engine_ids[counterpart] = _engine_build_id(counterpart, _display(counterpart, base, engine_root))
                known = engine_ids[counterpart]
                if known is not None:
                    engine_build_ids[shown] = known
    return results + check_manifests(manifests, forced_build_id=forced_build_id, engine_build_ids=engine_build_ids)


def _engine_build_id(file: Path, shown: str) -> tuple[str, str] | None:
    """The engine manifest's path and BuildId, or None when it cannot be read (the engine itself would not start)."""
    from buildver.projects.modules_manifest import parse_modules_manifest
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(file)
        return None if data is None else (shown, parse_modules_manifest(data, shown).build_id)
    except (OSError, BuildverError):
        return None
