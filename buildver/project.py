"""Which projects and plugins an engine build can load, decided by Unreal's own rules before anyone opens the editor.

Three questions, each answered in one function here (the rules and their sources are in ``docs/project-rules.md``):

- a plugin's ``EngineVersion`` against the engine's ``CompatibleWith()`` (``FPluginManager::IsPluginCompatible``):
  :func:`check_plugin`;
- a project's ``EngineAssociation`` against the engine (``FDesktopPlatformBase`` and the project browser):
  :func:`check_association`;
- the ``.modules`` manifests beside a project's or a plugin's binaries (``FModuleManager``, through the guard's
  folder check): :func:`check_manifests`.

Descriptors are read as Unreal 5 reads them (:func:`parse_plugin_descriptor`, :func:`parse_project_descriptor`);
:func:`check_project` walks a folder and answers all three. Results are immutable values; nothing here prints.
"""

from __future__ import annotations

import enum
import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.engine_version import EngineVersion, VersionComparison, VersionComponent
from buildver.errors import BuildverError, DescriptorError, UsageError
from buildver.file_names import MANIFEST_SUFFIX, PLUGIN_SUFFIX, PROJECT_SUFFIX

if TYPE_CHECKING:
    from buildver.build_version import VersionFile

__all__ = [
    "LATEST_DESCRIPTOR_FILE_VERSION",
    "CheckResult",
    "Kind",
    "PluginDescriptor",
    "ProjectDescriptor",
    "ProjectReport",
    "Status",
    "check_association",
    "check_manifests",
    "check_plugin",
    "check_project",
    "find_descriptors",
    "parse_plugin_descriptor",
    "parse_project_descriptor",
    "parse_unreal_engine_version",
]

LATEST_DESCRIPTOR_FILE_VERSION = 3
"""EPluginDescriptorVersion::Latest and EProjectDescriptorVersion::Latest (ProjectPluginUnification) in 4.x and 5.x."""

_SKIPPED_FOLDERS = frozenset({"intermediate", "saved", "deriveddatacache", "content"})
"""Build and cache output (copies of descriptors made by packaging live there), and Content folders, which UE5's
plugin search never enters."""
_PROJECT_PLUGIN_FOLDERS = frozenset({"plugins", "mods"})
"""Where Unreal reads a project's own plugins (FPaths::ProjectPluginsDir, ProjectModsDir)."""


class Status(enum.StrEnum):
    """What the engine build would do with one descriptor or manifest."""

    COMPATIBLE = "compatible"
    """Loads: the versions agree, the plugin names no engine, the association names this engine, the BuildIds match."""
    WARNING = "warning"
    """Loads, with a warning in the log: a plugin EngineVersion that FEngineVersion::Parse cannot read."""
    CONVERT = "convert"
    """A project made with an older engine: Unreal offers to convert it (open a copy, convert in place, skip)."""
    NOT_DECIDABLE = "not-decidable"
    """An association that only the machine that registered it can resolve (a GUID, a path to another folder)."""
    REFUSED = "refused"
    """A plugin Unreal skips unless someone says yes in a dialog, a project it will not open, stale modules."""
    MALFORMED = "malformed"
    """A descriptor or manifest Unreal cannot read at all."""

    @property
    def is_failure(self) -> bool:
        """Whether ``buildver project check`` exits 1 for it."""
        return self in (Status.REFUSED, Status.MALFORMED)


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

    def to_json(self) -> dict[str, object]:
        """The result as a JSON object."""
        return {
            "kind": str(self.kind),
            "path": self.path,
            "status": str(self.status),
            "declared": self.declared,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class PluginDescriptor:
    """What a ``.uplugin`` says that matters here; the keys are read as Unreal reads them (case-insensitively)."""

    path: str
    file_version: int
    version_name: str = ""
    engine_version: str = ""
    """As written; empty when the descriptor names no engine."""
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectDescriptor:
    """What a ``.uproject`` says that matters here."""

    path: str
    file_version: int
    engine_association: str = ""
    """As written; empty when the project names no engine (Unreal then looks in the project's parent folders)."""
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectReport:
    """Every verdict for one folder against one engine build."""

    version_file: str
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


# -- FEngineVersion::Parse, as lenient as Unreal's -----------------------------------------------------------------

_C_SPACE = " \t\n\v\f\r"
_UINT64_MAX = 2**64 - 1


def _strtoull(text: str, start: int) -> tuple[int, int]:
    """C's ``strtoull(text + start, &end, 10)``: the value and where it stopped.

    Leading white space and one sign are skipped; no digits gives 0 and leaves the end at ``start``; a negative
    number wraps modulo 2^64 and an overflow gives 2^64-1, as the C library does.
    """
    index = start
    while index < len(text) and text[index] in _C_SPACE:
        index += 1
    negative = index < len(text) and text[index] == "-"
    if index < len(text) and text[index] in "+-":
        index += 1
    digits_start = index
    while index < len(text) and "0" <= text[index] <= "9":
        index += 1
    if index == digits_start:
        return 0, start
    digits = text[digits_start:index].lstrip("0")
    if len(digits) > 20 or (value := int(digits or "0")) > _UINT64_MAX:  # 20 digits: past int()'s own limits
        return _UINT64_MAX, index
    return (-value) % 2**64 if negative else value, index


def parse_unreal_engine_version(text: str) -> EngineVersion | None:
    """``FEngineVersion::Parse`` with its C rules: the version Unreal reads from ``text``, or None when it fails.

    Unlike :meth:`EngineVersion.parse`, this is as lenient as Unreal: white space and a sign before a number, an
    empty number (0), and anything after the patch or the changelist that is not ``-`` or ``+`` are accepted,
    because the engine accepts them. ``"5.3"`` fails (a second dot is required).

    >>> str(parse_unreal_engine_version("5.3.0abc"))
    '5.3.0-0'
    >>> parse_unreal_engine_version("5.3") is None
    True
    """
    text = text.split("\0", 1)[0]  # Unreal reads a C string: it ends at the first NUL
    major, end = _strtoull(text, 0)
    if major > 0xFFFF or text[end : end + 1] != ".":
        return None
    minor, end = _strtoull(text, end + 1)
    if minor > 0xFFFF or text[end : end + 1] != ".":
        return None
    patch, end = _strtoull(text, end + 1)
    if patch > 0xFFFF:
        return None
    changelist = 0
    if text[end : end + 1] == "-":
        changelist, end = _strtoull(text, end + 1)
        if changelist > 0xFFFFFFFF:
            return None
    branch = text[end + 1 :] if text[end : end + 1] == "+" else ""
    return EngineVersion.from_raw_changelist(major, minor, patch, changelist, branch)


# -- reading descriptors -------------------------------------------------------------------------------------------


class _DuplicateKeyError(ValueError):
    pass


def _folded_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object with its keys folded to lower case: Unreal looks every key up case-insensitively."""
    result: dict[str, object] = {}
    for key, value in pairs:
        folded = key.lower()
        if folded in result:
            # Unreal 5 takes the first of two such keys and Unreal 4's FJsonObject the last: refuse, never guess.
            raise _DuplicateKeyError(f"duplicate key {key!r} (Unreal matches keys without regard to case)")
        result[folded] = value
    return result


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(?=[ \t\n\r]*[\]}])', re.DOTALL)


def _blank_trailing_commas(text: str) -> str:
    """The text with each comma before a closing bracket turned into a space (positions stay the same).

    Unreal 5 parses descriptors with RapidJSON's trailing-comma flag; an empty ``{,}`` or ``[,]`` stays an error.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group()
        if token != ",":
            return token
        before = text[: match.start()].rstrip(" \t\n\r")
        return token if before.endswith(("{", "[", ",")) else " "

    return _STRING_OR_TRAILING_COMMA.sub(replace, text) if "," in text else text


def _decode(data: bytes, path: str) -> str:
    """The text of a descriptor as FFileHelper::LoadFileToString reads it: UTF-8, or UTF-16 with its byte-order mark."""
    if not data.strip():
        raise DescriptorError(f"{path}: the file is empty")
    try:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DescriptorError(f"{path}: byte {exc.start}: the file is not UTF-8 ({exc.reason})") from None


def _read_object(data: bytes, path: str) -> dict[str, object]:
    text = _decode(data, path)
    try:
        document = json.loads(
            _blank_trailing_commas(text), object_pairs_hook=_folded_object, parse_constant=_refuse_constant
        )
    except json.JSONDecodeError as exc:
        raise DescriptorError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except _DuplicateKeyError as exc:
        raise DescriptorError(f"{path}: {exc}") from None
    except (ValueError, RecursionError) as exc:  # NaN, an integer of thousands of digits, nesting Python cannot follow
        raise DescriptorError(f"{path}: not a descriptor ({str(exc) or type(exc).__name__})") from None
    if not isinstance(document, dict):
        raise DescriptorError(f"{path}: expected a JSON object, not {_json_type(document)}")
    return document


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return repr(value)


def _file_version(document: Mapping[str, object], path: str, legacy_key: str) -> int:
    """FileVersion (or the older spelling), which Unreal requires and checks before anything else."""
    key = "fileversion" if "fileversion" in document else legacy_key.lower()
    if key not in document:
        raise DescriptorError(f"{path}: no FileVersion: Unreal refuses a descriptor without one")
    value = document[key]
    name = "FileVersion" if key == "fileversion" else legacy_key
    if isinstance(value, bool) or not isinstance(value, int):
        raise DescriptorError(f"{path}: {name} must be an integer, not {_json_type(value)}")
    if not 1 <= value <= LATEST_DESCRIPTOR_FILE_VERSION:
        raise DescriptorError(
            f"{path}: {name} {value} is not a descriptor version Unreal reads (1 to {LATEST_DESCRIPTOR_FILE_VERSION})"
        )
    return value


def _string(document: Mapping[str, object], key: str, path: str) -> str:
    """An optional string field; null counts as absent, as in both of Unreal's readers."""
    value = document.get(key.lower())
    if value is None:
        return ""
    if not isinstance(value, str):
        # Unreal 5 turns a number into text and Unreal 4 may not: refuse rather than guess which text.
        raise DescriptorError(f"{path}: {key} must be a string, not {_json_type(value)}")
    return value


def _entries(document: Mapping[str, object], key: str, path: str, required: tuple[str, ...]) -> tuple[str, ...]:
    """The names in an optional array of objects (Modules, Plugins), each with the fields Unreal requires."""
    value = document.get(key.lower())
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DescriptorError(f"{path}: {key} must be an array, not {_json_type(value)}")
    names = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise DescriptorError(f"{path}: {key}[{index}] must be an object, not {_json_type(entry)}")
        for field in required:
            field_value = entry.get(field.lower())
            if field_value is None:
                raise DescriptorError(f"{path}: {key}[{index}] has no {field!r} field, which Unreal requires")
            # Enabled may be a number or a string too: both of Unreal's readers turn those into a bool.
            if isinstance(field_value, (list, dict)) if field == "Enabled" else not isinstance(field_value, str):
                expected = "true or false" if field == "Enabled" else "a string"
                raise DescriptorError(
                    f"{path}: {key}[{index}] {field} must be {expected}, not {_json_type(field_value)}"
                )
        name = entry["name"]
        assert isinstance(name, str)
        names.append(name)
    return tuple(names)


def parse_plugin_descriptor(data: bytes, path: str) -> PluginDescriptor:
    """Read a ``.uplugin``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place."""
    document = _read_object(data, path)
    return PluginDescriptor(
        path=path,
        file_version=_file_version(document, path, "PluginFileVersion"),
        version_name=_string(document, "VersionName", path),
        engine_version=_string(document, "EngineVersion", path),
        modules=_entries(document, "Modules", path, ("Name", "Type")),
        plugins=_entries(document, "Plugins", path, ("Name", "Enabled")),
    )


def parse_project_descriptor(data: bytes, path: str) -> ProjectDescriptor:
    """Read a ``.uproject``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place."""
    document = _read_object(data, path)
    return ProjectDescriptor(
        path=path,
        file_version=_file_version(document, path, "ProjectFileVersion"),
        engine_association=_string(document, "EngineAssociation", path),
        modules=_entries(document, "Modules", path, ("Name", "Type")),
        plugins=_entries(document, "Plugins", path, ("Name", "Enabled")),
    )


# -- the rules -----------------------------------------------------------------------------------------------------


def check_plugin(descriptor: PluginDescriptor, compatible_with: EngineVersion) -> CheckResult:
    """FPluginManager::IsPluginCompatible: the plugin's EngineVersion against the engine's CompatibleWith().

    Any difference GetNewest sees (major, minor, patch, or changelists of one vendor) refuses the plugin, an older
    one as much as a newer one; an EngineVersion that does not parse only logs a warning.
    """
    declared = descriptor.engine_version
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


def _stock_engine_version(identifier: str) -> EngineVersion | None:
    """FDesktopPlatformBase::TryParseStockEngineVersion: ``MAJOR.MINOR`` and nothing after it, as MAJOR.MINOR.0-0."""
    text = identifier.split("\0", 1)[0]
    major, end = _strtoull(text, 0)
    if major > 0xFFFF or text[end : end + 1] != ".":
        return None
    minor, end = _strtoull(text, end + 1)
    if minor > 0xFFFF or end != len(text):
        return None
    return EngineVersion(major, minor, 0)


def _same_folder(first: Path, second: Path) -> bool:
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
) -> CheckResult:
    """A project's EngineAssociation against the engine build whose FEngineVersion::Current() is ``engine``.

    ``project_dir`` and ``engine_root`` (the folder holding ``Engine/``) decide an empty association and a path;
    without them those are not decidable. A version ``MAJOR.MINOR`` (a launcher build) is decided by GetNewest
    as the project browser does; a GUID (a source build registered on one machine) is never decidable here.
    """
    association = descriptor.engine_association

    def result(status: Status, reason: str) -> CheckResult:
        return CheckResult(Kind.PROJECT, descriptor.path, status, association, reason)

    if not association:
        found = None if project_dir is None else _engine_folder_above(project_dir)
        if found is None:
            return result(
                Status.NOT_DECIDABLE,
                "no EngineAssociation and no engine folder above the project: Unreal cannot tell which engine",
            )
        if engine_root is not None and _same_folder(found, engine_root):
            return result(Status.COMPATIBLE, "no EngineAssociation: the project lives in this engine's folder")
        return result(
            Status.NOT_DECIDABLE, f"no EngineAssociation: Unreal uses the engine folder above the project, {found}"
        )
    if "/" in association or "\\" in association:
        if project_dir is not None and engine_root is not None:
            target = Path(os.path.abspath(project_dir)) / association.replace("\\", "/")
            if _same_folder(target, engine_root):
                return result(Status.COMPATIBLE, "the EngineAssociation path names this engine's folder")
        return result(
            Status.NOT_DECIDABLE,
            "a path to an engine folder (a source build), not this engine's: which build is there is not known here",
        )
    stock = _stock_engine_version(association)
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
    if _GUID.fullmatch(association):
        return result(
            Status.NOT_DECIDABLE,
            "a GUID: a source build registered on one machine (its registry or Install.ini), not decidable here",
        )
    return result(
        Status.NOT_DECIDABLE,
        "neither MAJOR.MINOR nor a GUID: Unreal looks it up among this machine's registered engines",
    )


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
    from buildver.modules_manifest import ModulesManifest, build_id_problems, parse_modules_manifest

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
    project folder is not walked.
    """
    for folder, subfolders, files in os.walk(root):
        names = sorted(name for name in files if name.lower().endswith((PROJECT_SUFFIX, PLUGIN_SUFFIX)))
        yield from (Path(folder, name) for name in names)
        if any(name.lower().endswith(PLUGIN_SUFFIX) for name in names):
            subfolders[:] = []
            continue
        is_project = bool(names)
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".")
            and name.lower() not in _SKIPPED_FOLDERS
            and (not is_project or name.lower() in _PROJECT_PLUGIN_FOLDERS)
            and not (skipped is not None and _same_folder(Path(folder, name), skipped))
        )


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


def check_project(path: Path, version_file: VersionFile, *, engine_plugins: bool = False) -> ProjectReport:
    """Check every project, plugin and binaries manifest under ``path`` against the engine build of ``version_file``.

    A descriptor or manifest that cannot be read is a MALFORMED result, not an exception: one bad plugin does not
    hide the verdicts on the others (Unreal, too, reports it and goes on with the rest).
    """
    record = version_file.record
    engine, compatible_with = record.engine_version, record.compatible_engine_version
    from buildver import update_rules

    # The same engine tree update-local recognises: Engine/Build/Build.version beside Engine/Source/.
    engine_root = update_rules.engine_root(Path(os.path.abspath(version_file.path)))
    if engine_plugins and engine_root is None:
        raise UsageError(
            f"{version_file.path}: --engine-plugins needs the engine's Engine/Build/Build.version (with "
            "Engine/Source/ beside it), to know where the engine's plugins are"
        )
    if path.is_file() and not path.name.lower().endswith((PROJECT_SUFFIX, PLUGIN_SUFFIX)):
        raise UsageError(f"{path}: not a .uproject or .uplugin; give one of those or a folder")
    base = path.parent if path.is_file() else path
    results: list[CheckResult] = []
    binaries_folders: list[Path] = []
    for file in find_descriptors(path, engine_root=engine_root, engine_plugins=engine_plugins):
        shown = _display(file, base, engine_root)
        try:
            data = _read(file, shown)
            if file.name.lower().endswith(PROJECT_SUFFIX):
                project = parse_project_descriptor(data, shown)
                results.append(check_association(project, engine, project_dir=file.parent, engine_root=engine_root))
            else:
                results.append(check_plugin(parse_plugin_descriptor(data, shown), compatible_with))
        except DescriptorError as exc:
            kind = Kind.PROJECT if file.name.lower().endswith(PROJECT_SUFFIX) else Kind.PLUGIN
            results.append(CheckResult(kind, shown, Status.MALFORMED, None, str(exc).removeprefix(f"{shown}: ")))
        binaries_folders.append(file.parent / "Binaries")
    results += _check_binaries(binaries_folders, base, engine_root, record.build_id)
    order = list(Kind)
    results.sort(key=lambda result: (order.index(result.kind), result.path))
    return ProjectReport(Path(version_file.path).as_posix(), engine, compatible_with, tuple(results))


def _check_binaries(
    binaries_folders: list[Path], base: Path, engine_root: Path | None, forced_build_id: str
) -> list[CheckResult]:
    """The manifests in ``<descriptor folder>/Binaries/<platform>/``, each against its engine counterpart."""
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
                if _same_folder(counterpart, file) or not counterpart.is_file():
                    continue
                if counterpart not in engine_ids:
                    engine_ids[counterpart] = _engine_build_id(counterpart, _display(counterpart, base, engine_root))
                known = engine_ids[counterpart]
                if known is not None:
                    engine_build_ids[shown] = known
    return results + check_manifests(manifests, forced_build_id=forced_build_id, engine_build_ids=engine_build_ids)


def _engine_build_id(file: Path, shown: str) -> tuple[str, str] | None:
    """The engine manifest's path and BuildId, or None when it cannot be read (the engine itself would not start)."""
    from buildver.modules_manifest import parse_modules_manifest
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(file)
        return None if data is None else (shown, parse_modules_manifest(data, shown).build_id)
    except (OSError, BuildverError):
        return None
