"""``buildver guard``: the pre-commit checks, run on what the next commit holds (the index), not the working tree.

:func:`run_guard` gathers the staged snapshot from git (``buildver.vcs``): the files to check, the engine's
Build.version they are checked against, and the bytes each check needs; then runs ``buildver.guard.checks`` over it and
reports (``buildver.guard.settings``). Packages are streamed, one at a time, however many are staged.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.errors import UsageError
from buildver.file_names import MANIFEST_SUFFIX, PACKAGE_EXTENSIONS, PLUGIN_SUFFIX, VERSION_FILE_NAME
from buildver.guard.checks import (
    check_game_config,
    check_header,
    check_manifests,
    check_package,
    check_package_summary,
    check_plugin,
    check_version,
    unreadable_package,
)
from buildver.guard.settings import CHECKS, Finding, GuardReport, GuardSettings, Severity
from buildver.reading import LFS_POINTER_MAX_SIZE, is_lfs_pointer
from buildver.versions.build_version import SEARCHED_PATHS, VersionFile

if TYPE_CHECKING:
    from buildver.stamp.header import MacroNames
    from buildver.versions.config import Config
    from buildver.versions.engine_version import EngineVersion

__all__ = ["Snapshot", "check", "gather", "run_guard"]


def _lfs_object_id(data: bytes) -> str | None:
    """The sha256 object id of a Git LFS pointer, or None when ``data`` is not one."""
    if not is_lfs_pointer(data):
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key == "oid" and value.startswith("sha256:"):
            oid = value.removeprefix("sha256:")
            if len(oid) == 64 and all(char in "0123456789abcdef" for char in oid):
                return oid
    return None


# -- gathering the staged snapshot from git ---------------------------------------------------------------------


def _kind(path: str) -> str | None:
    name = posixpath.basename(path)
    lowered = name.lower()
    if name == VERSION_FILE_NAME:
        return "version"
    if lowered.endswith(PACKAGE_EXTENSIONS):
        return "package"
    if lowered.endswith(MANIFEST_SUFFIX):
        return "manifest"
    if lowered.endswith(PLUGIN_SUFFIX):
        return "plugin"
    if lowered in _GAME_CONFIG_NAMES and posixpath.basename(posixpath.dirname(path)).lower() == "config":
        return "game-config"
    return None


_GAME_CONFIG_NAMES = frozenset({"defaultgame.ini", "defaultengine.ini"})
"""A project's Config/DefaultGame.ini (ProjectVersion) and Config/DefaultEngine.ini (Android's version codes)."""


def _repository_path(root: Path, start: Path, file: Path | str) -> str:
    # abspath, not resolve: a symbolic link inside the repository is judged under its own name.
    absolute = os.path.abspath(os.path.join(start, file))
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # Windows: another drive than the repository's
        raise UsageError(f"{file}: is not a file in the repository at {root}") from None
    if relative == os.curdir or relative.startswith(os.pardir + os.sep) or relative == os.pardir:
        raise UsageError(f"{file}: is not a file in the repository at {root}")
    return Path(relative).as_posix()


def run_guard(start: Path, files: Sequence[Path | str] | None = None) -> GuardReport | None:
    """Check ``files`` (paths from ``start``), or every staged file, as the index holds them; None outside git."""
    snapshot = gather(start, files)
    if snapshot is None:
        return None
    findings = check(snapshot)
    order = {check.key: index for index, check in enumerate(CHECKS)}
    findings.sort(key=lambda finding: (finding.path, order[finding.check]))
    return GuardReport(tuple(findings), snapshot.checked)


@dataclass(frozen=True)
class Snapshot:
    """What the next commit holds, as far as the checks need it; packages are read when the checks ask."""

    root: Path
    settings: GuardSettings
    versions: tuple[str, ...]
    """The staged Build.version files to check."""
    game_configs: tuple[str, ...]
    """The staged Config/DefaultGame.ini and Config/DefaultEngine.ini files to check."""
    version_blobs: dict[str, bytes | None]
    """Their staged (``:path``) and HEAD (``HEAD:path``) bytes, the game configs', and the engine's."""
    engine_path: str | None
    """The engine's Build.version in the index (the packages and plugins are checked against it), or None."""
    engine_candidates: tuple[str, ...]
    engine_file: VersionFile | None
    header: tuple[str, bytes | None, bool, MacroNames | None] | None
    """The version header to check: its path, its staged bytes, and whether it is configured."""
    manifests: tuple[str, ...]
    manifest_blobs: dict[str, bytes]
    """The staged manifests and every other manifest of their folders."""
    plugins: dict[str, bytes | None]
    packages: tuple[str, ...]
    warn_empty: dict[str, bool]
    """Per package: whether its project warns about an empty engine version (ZeroEngineVersionWarning)."""
    working_tree_packages: tuple[str, ...]
    """Packages whose working-tree file is the staged one: read from there, header only."""
    package_blobs: Iterator[tuple[str, bytes | None]]
    """The other packages' staged bytes, streamed one at a time."""
    checked: int


def gather(start: Path, files: Sequence[Path | str] | None = None) -> Snapshot | None:
    """The staged snapshot the checks run on, read from git in two batches; None outside a repository."""
    from buildver.errors import BuildverError
    from buildver.packages.engine_ini import zero_engine_version_warning_of
    from buildver.vcs import find_repository_root, read_blobs, require_readable, staged_paths, unstaged_paths
    from buildver.versions.build_version import parse_build_version
    from buildver.versions.config import load_config

    start = start.resolve()
    root = find_repository_root(start)
    if root is None:
        return None
    config = load_config(start)  # a bad configuration is an error before anything else
    require_readable(root)
    settings = GuardSettings.from_table(config.guard, config.source)
    if files is None:
        candidates = staged_paths(root)
    else:
        candidates = list(dict.fromkeys(_repository_path(root, start, file) for file in files))

    configured_version = None if config.version_file is None else _repository_path(root, root, config.version_file)
    engine_candidates = [configured_version] if configured_version else [path.as_posix() for path in SEARCHED_PATHS]
    versions = [path for path in candidates if _kind(path) == "version" or path == configured_version]
    packages = [path for path in candidates if _kind(path) == "package"]
    manifests = [path for path in candidates if _kind(path) == "manifest"]
    plugins = [path for path in candidates if _kind(path) == "plugin"]
    game_configs = [path for path in candidates if _kind(path) == "game-config"]

    # The first batch: the engine's Build.version and every staged Build.version, with HEAD's for each.
    wanted = list(dict.fromkeys([*engine_candidates, *versions, *game_configs]))
    version_blobs = dict(read_blobs(root, [spec for path in wanted for spec in (f":{path}", f"HEAD:{path}")]))
    engine_path = next((path for path in engine_candidates if version_blobs.get(f":{path}") is not None), None)
    engine_file = None
    if engine_path is not None:
        with contextlib.suppress(BuildverError):  # check() reports it, when it is staged
            engine_file = parse_build_version(version_blobs[f":{engine_path}"] or b"", Path(engine_path))

    # The second batch: the header, the settings of each package's project, the manifests and the plugins; then
    # the packages, streamed. A package whose working-tree file is the staged one is read from there, header
    # only: packages can be gigabytes, and a Git LFS package's blob is only a pointer.
    header_path, header_configured, macros = _header_path(root, engine_path, engine_file, config)
    check_the_header = header_path is not None and (engine_path in versions or header_path in candidates)
    ini_of_package = _engine_ini_paths(root, packages) if packages else {}
    inis = sorted({ini for ini in ini_of_package.values() if ini is not None})
    folder_manifests = _folder_manifests(root, manifests) if manifests else []
    small_paths = [*([header_path] if check_the_header and header_path else []), *inis, *folder_manifests, *plugins]
    unstaged = unstaged_paths(root, packages) if packages else set()
    blob_stream = read_blobs(root, [f":{path}" for path in [*small_paths, *(p for p in packages if p in unstaged)]])
    small = {spec[1:]: data for spec, data in (next(blob_stream) for _ in small_paths)}

    header = None
    checked = len({*versions, *packages, *manifests, *plugins, *game_configs})
    if check_the_header and header_path is not None and (header_configured or small.get(header_path) is not None):
        header = (header_path, small.get(header_path), header_configured, macros)
        checked += header_path not in {*versions, *packages, *manifests, *plugins}
    warn_of_ini = {
        ini: True if small.get(ini) is None else zero_engine_version_warning_of(small[ini] or b"") for ini in inis
    }
    return Snapshot(
        root=root,
        settings=settings,
        versions=tuple(versions),
        game_configs=tuple(game_configs),
        version_blobs=version_blobs,
        engine_path=engine_path,
        engine_candidates=tuple(engine_candidates),
        engine_file=engine_file,
        header=header,
        manifests=tuple(manifests),
        manifest_blobs={path: data for path in folder_manifests if (data := small.get(path)) is not None},
        plugins={path: small.get(path) for path in plugins},
        packages=tuple(packages),
        warn_empty={path: warn_of_ini.get(ini_of_package.get(path) or "", True) for path in packages},
        working_tree_packages=tuple(path for path in packages if path not in unstaged),
        package_blobs=((spec[1:], data) for spec, data in blob_stream),
        checked=checked,
    )


def check(snapshot: Snapshot) -> list[Finding]:
    """Every check over the snapshot, in the order a reader expects: versions, header, manifests, plugins, packages."""
    settings = snapshot.settings
    findings: list[Finding] = []
    blobs = snapshot.version_blobs
    for path in snapshot.versions:
        staged = blobs.get(f":{path}")
        if staged is not None:
            findings += check_version(path, staged, blobs.get(f"HEAD:{path}"), settings)[1]
    for path in snapshot.game_configs:
        staged = blobs.get(f":{path}")
        if staged is not None:
            findings += check_game_config(path, staged, blobs.get(f"HEAD:{path}"), settings)
    engine_file = snapshot.engine_file
    if snapshot.header is not None and engine_file is not None:
        path, staged, configured, macros = snapshot.header
        findings += check_header(path, staged, engine_file, configured=configured, macros=macros, settings=settings)
    if snapshot.manifests:
        forced = "" if engine_file is None else engine_file.record.build_id
        findings += check_manifests(snapshot.manifest_blobs, snapshot.manifests, forced, settings)
    engine = None if engine_file is None else engine_file.record.engine_version
    if (snapshot.packages or snapshot.plugins) and engine is None:
        where = snapshot.engine_path or snapshot.engine_candidates[0]
        problem = "is not valid" if snapshot.engine_path else "is not in the index"
        counts = ((snapshot.packages, "packages"), (snapshot.plugins, ".uplugin files"))
        unchecked = ", ".join(f"{len(files)} staged {noun}" for files, noun in counts if files)
        findings += settings.finding(
            "no-engine-version", where, f"{problem}: {unchecked} not checked against an engine"
        )
    for path, data in snapshot.plugins.items():
        if data is None:
            findings += settings.finding("plugin-invalid", path, "not in the index (stage it with git add)")
        elif engine_file is not None:
            findings += check_plugin(path, data, engine_file.record, settings)
    root = snapshot.root
    for path in snapshot.working_tree_packages:
        findings += _check_package_file(path, root / path, engine, snapshot.warn_empty[path], settings, root)
    for path, data in snapshot.package_blobs:
        if data is None:
            findings += settings.finding("package-unreadable", path, "not in the index (stage it with git add)")
            continue
        oid = _lfs_object_id(data)
        if oid is None:
            findings += check_package(path, data, engine, warn_empty=snapshot.warn_empty[path], settings=settings)
        else:
            findings += _check_lfs_package(root, path, oid, engine, snapshot.warn_empty[path], settings)
    return findings


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
    from buildver.packages.reader import read_package_summary

    try:
        summary = read_package_summary(file)
    except PackageFormatError as exc:
        if exc.not_a_package:
            # A Git LFS checkout without its content (GIT_LFS_SKIP_SMUDGE) keeps the pointer in the work tree.
            with open(file, "rb") as stream:
                oid = _lfs_object_id(stream.read(LFS_POINTER_MAX_SIZE + 1))
            if oid is not None and root is not None:
                return _check_lfs_package(root, path, oid, engine, warn_empty, settings)
        return unreadable_package(path, exc.offset, exc.reason, exc.not_a_package, settings)
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
) -> tuple[str | None, bool, MacroNames | None]:
    """The version header update-local writes (repository-relative), whether it is configured, and the names a
    generated one defines; None when there is none: no valid Build.version, ``skip-header``, or an engine from 4.20
    on, whose Version.h is not stamped."""
    if config.skip_header:
        return None, False, None
    from buildver.stamp.header import header_macros, rules_and_header

    if engine_path is None or engine_file is None:
        configured = None if config.header is None else _repository_path(root, root, config.header)
        return configured, configured is not None, None
    # The rules depend on the engine tree around the file: give them the work tree's path.
    work_tree_file = engine_file._replace(path=root / engine_path)
    chosen, header = rules_and_header(work_tree_file, config=config)
    macros = header_macros(chosen, work_tree_file.path, config)
    if config.header is not None:
        return _repository_path(root, root, config.header), True, macros
    return (None, False, None) if header is None else (_repository_path(root, root, header), False, macros)


def _engine_ini_paths(root: Path, packages: list[str]) -> dict[str, str | None]:
    """Each package's project ``Config/DefaultEngine.ini`` (repository-relative), found in the working tree."""
    from buildver.packages.engine_ini import find_engine_ini

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
