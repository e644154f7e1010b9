"""``buildver guard``: the pre-commit checks, run on what the next commit holds (the index), not the working tree.

:func:`run_guard` gathers the staged snapshot from git (``buildver.vcs``): the files to check, the engine's
Build.version they are checked against, and the bytes each check needs; then runs ``buildver.guard.checks`` over it and
reports (``buildver.guard.settings``). Packages are streamed, one at a time, however many are staged.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import posixpath
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from buildver.errors import UsageError
from buildver.file_names import MANIFEST_SUFFIX, PACKAGE_EXTENSIONS, PLUGIN_SUFFIX, PROJECT_SUFFIX, VERSION_FILE_NAME
from buildver.guard.checks import (
    check_engine_numbers,
    check_game_config,
    check_header,
    check_manifests,
    check_package_summary,
    check_plugin,
    check_plugin_version,
    check_project_descriptor,
    check_version,
    unreadable_package,
)
from buildver.guard.settings import CHECKS, Finding, GuardReport, GuardSettings, Severity
from buildver.reading import LFS_POINTER_MAX_SIZE, lfs_object_id
from buildver.versions.build_version import SEARCHED_PATHS, VersionFile

if TYPE_CHECKING:
    from buildver.packages.summary import PackageSummary
    from buildver.packages.tree_tables import VersionTables
    from buildver.projects.place import PlaceEngine
    from buildver.stamp.header import MacroNames
    from buildver.vcs import Blob, GitEntry
    from buildver.versions.build_version import BuildVersion
    from buildver.versions.config import Config
    from buildver.versions.engine_version import EngineVersion

__all__ = ["STAGED_SIZE_LIMITS", "Snapshot", "check", "gather", "run_guard"]


def _lfs_object_id(data: bytes) -> str | None:
    """The sha256 object id of a Git LFS pointer, or None when ``data`` is not one (``reading.lfs_object_id``)."""
    return lfs_object_id(data)


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
    if lowered.endswith(PROJECT_SUFFIX):
        return "project"
    if lowered in _GAME_CONFIG_NAMES and posixpath.basename(posixpath.dirname(path)).lower() == "config":
        return "game-config"
    return None


_GAME_CONFIG_NAMES = frozenset({"defaultgame.ini", "defaultengine.ini"})
"""A project's Config/DefaultGame.ini (ProjectVersion) and Config/DefaultEngine.ini (Android's version codes)."""


def _repository_path(root: Path, start: Path, file: Path | str) -> str:
    # abspath, not resolve: a symbolic link inside the repository is judged under its own name.
    absolute = os.path.abspath(os.path.join(start, file))
    inside = os.path.join(root, "")
    if absolute.startswith(inside) and len(absolute) > len(inside):
        # The common case (pre-commit passes thousands of names), without relpath's splitting of both paths: the
        # same answer, as both are normalized; anything else (another case of the root on Windows) goes below.
        relative = absolute[len(inside) :]
        return relative if os.sep == "/" else relative.replace(os.sep, "/")
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
    return GuardReport(tuple(findings), len(snapshot.checked), snapshot.checked, snapshot.root)


STAGED_SIZE_LIMITS: dict[str, int] = {
    "version": 16 << 20,
    "game-config": 64 << 20,
    "header": 16 << 20,
    "manifest": 16 << 20,
    "plugin": 16 << 20,
    "project": 16 << 20,
    "engine-ini": 64 << 20,
}
"""The largest staged blob of each kind the guard reads, in bytes: far above any real one (a Build.version is
under 1 KiB, a DefaultEngine.ini under 1 MiB). ``git cat-file --batch`` announces each blob's size before its
content, and a larger file is one finding without a byte of it read (``vcs.read_blobs``). Packages have no
limit: only their first ``packages.reader.MAX_SUMMARY_SIZE`` bytes and last 4 are kept, the rest streams past."""

_CHECK_OF_KIND = {
    "version": "version-invalid",
    "game-config": "game-config-invalid",
    "header": "header",
    "manifest": "modules-build-id",
    "plugin": "plugin-invalid",
    "package": "package-unreadable",
    "project": "no-engine-version",
}
"""The check that reports a staged file of each kind that the guard does not read (too large, not a file)."""

_PACKAGE_TAIL = 4
"""A package's last 4 bytes: the tag that tells an uncooked package (``parse_package_head`` reads it)."""


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What the next commit holds, as far as the checks need it; packages are read when the checks ask."""

    root: Path
    settings: GuardSettings
    versions: tuple[str, ...]
    """The staged Build.version files to check."""
    game_configs: tuple[str, ...]
    """The staged Config/DefaultGame.ini and Config/DefaultEngine.ini files to check."""
    projects: tuple[str, ...]
    """The staged ``.uproject`` files: their engine must not go back to an older release."""
    staged: dict[str, bytes | None]
    """The staged bytes of those, and the engine's Build.version; None when not in the index or not read."""
    committed: dict[str, bytes | None]
    """HEAD's bytes of the staged Build.version, game config and ``.uplugin`` files."""
    refused: tuple[tuple[str, str, str], ...]
    """``(check, path, why)``: staged files not read (larger than their limit, or not a file in the index)."""
    engine_path: str | None
    """The repository's own Build.version in the index (configured, else ``Build/`` or ``Engine/Build/``), or
    None: an engine tree's is the engine; a game's is only the game's own version."""
    engine_candidates: tuple[str, ...]
    engine_file: VersionFile | None
    header: tuple[str, bytes | None, bool, MacroNames | None] | None
    """The version header to check: its path, its staged bytes, and whether it is configured."""
    engine_numbers: tuple[str, bytes | None] | None
    """An engine tree's Version.h and its staged bytes, when its numbers are to be checked against Build.version's."""
    manifests: tuple[str, ...]
    manifest_blobs: dict[str, bytes]
    """The staged manifests and every other manifest of their folders."""
    plugins: dict[str, bytes | None]
    packages: tuple[str, ...]
    warn_empty: dict[str, bool]
    """Per package: whether its project warns about an empty engine version (ZeroEngineVersionWarning)."""
    working_tree_packages: tuple[str, ...]
    """Packages whose working-tree file is the staged one: read from there, header only."""
    package_blobs: Iterator[tuple[str, Blob | None]]
    """The other packages' staged bytes (their start and end), streamed one at a time."""
    resolve: _EngineResolver
    """Finds a project's engine from its association, reading an engine's Build.version from the index."""
    engine_of: dict[str, PlaceEngine]
    """The engine each staged package, plugin and game config file is judged against: its project's engine (from
    the staged ``.uproject``'s EngineAssociation), else the repository's own (an engine tree's, or another
    project's Build.version); ``version`` None when none is known (``missing`` says why)."""
    checked: tuple[str, ...]
    """The files checked, sorted."""
    project_of: dict[str, str | None]
    """The ``.uproject`` (relative to the root) each judged path belongs to, or None."""


class _Reader:
    """Reads staged blobs by kind, by their index entries: only a regular file within its kind's limit is read; the
    others are recorded as refused, when they are to be checked. Entries already known (from ``git diff --cached``)
    are not asked for again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.refused: list[tuple[str, str, str]] = []
        self.index: dict[str, GitEntry] = {}
        self.head: dict[str, GitEntry | None] = {}
        self._looked_up: set[str] = set()

    def staged(self, paths: Sequence[str] | None = None) -> list[str]:
        """The paths the index adds or modifies (of ``paths``, when given), their entries and HEAD's learnt."""
        from buildver.vcs import staged_changes

        changes = staged_changes(self.root, paths)
        for path, (entry, head) in changes.items():
            self.index[path] = entry
            self.head[path] = head
        self._looked_up.update(changes)  # a path git does not list may be unchanged: entries() asks the index
        return list(changes)

    def entries(self, paths: Sequence[str]) -> dict[str, GitEntry]:
        """The index's entries, those of ``paths`` among them (asked of git when not known yet)."""
        from buildver.vcs import index_entries

        missing = [path for path in paths if path not in self._looked_up]
        if missing:
            self.index.update(index_entries(self.root, missing))
            self._looked_up.update(missing)
        return self.index

    def head_entries(self, paths: Sequence[str]) -> dict[str, GitEntry]:
        """HEAD's entries of ``paths`` (in the index): those the index changes, from git; the others are the
        index's own."""
        from buildver.vcs import staged_changes

        unknown = [path for path in paths if path in self.index and path not in self.head]
        if unknown:
            changes = staged_changes(self.root, unknown)
            for path in unknown:
                self.head[path] = changes[path][1] if path in changes else self.index[path]
        return {path: entry for path in paths if (entry := self.head.get(path)) is not None}

    def read(self, wanted: Sequence[tuple[str, str, GitEntry | None, bool]]) -> dict[str, bytes | None]:
        """``(key, kind, entry, checked)`` → ``{key: bytes or None}``; ``checked``: report a refusal."""
        from buildver.vcs import read_blobs

        result: dict[str, bytes | None] = {}
        uses: dict[str, list[tuple[str, str, bool]]] = {}
        for key, kind, entry, checked in wanted:
            result[key] = None
            if entry is None:
                continue
            if entry.is_file:
                uses.setdefault(entry.oid, []).append((key, kind, checked))
            elif checked:
                self.refused.append((_CHECK_OF_KIND[kind], _key_path(key), _not_a_file(entry, kind)))
        limits = {oid: min(STAGED_SIZE_LIMITS[kind] for _, kind, _ in used) for oid, used in uses.items()}
        for oid, blob in read_blobs(self.root, list(uses), limits=limits):
            for key, kind, checked in uses[oid]:
                if blob is None or not blob.skipped:
                    result[key] = None if blob is None else blob.data
                elif checked:
                    why = (
                        f"{blob.size:,} bytes staged, more than the {limits[oid]:,} that any such file needs: not read"
                    )
                    self.refused.append((_CHECK_OF_KIND[kind], _key_path(key), why))
        return result


def _not_a_file(entry: GitEntry, kind: str) -> str:
    noun = {"version": "Build.version", "game-config": "config file", "manifest": "manifest"}.get(kind, kind)
    return f"is {entry.kind} in the index, not a file: the commit would hold that, not the {noun}; not read"


def _key_path(key: str) -> str:
    return key.removeprefix("HEAD:").removeprefix(":")


def gather(start: Path, files: Sequence[Path | str] | None = None) -> Snapshot | None:
    """The staged snapshot the checks run on, read from git in two batches; None outside a repository."""
    from buildver.errors import BuildverError
    from buildver.packages.engine_ini import zero_engine_version_warning_of
    from buildver.vcs import find_repository_root, unstaged_paths
    from buildver.versions.build_version import parse_build_version
    from buildver.versions.config import load_config

    start = start.resolve()
    root = find_repository_root(start)
    if root is None:
        return None
    config = load_config(start)  # a bad configuration is an error before anything else
    settings = GuardSettings.from_table(config.guard, config.source)
    configured_version = None if config.version_file is None else _repository_path(root, root, config.version_file)
    engine_candidates = [configured_version] if configured_version else [path.as_posix() for path in SEARCHED_PATHS]
    # The engine's entries first: this git command also fails, in one line, in a repository git refuses to read (one
    # another user owns), where a ``git diff --cached`` would otherwise run as if outside any repository.
    reader = _Reader(root)
    reader.entries(engine_candidates)
    if files is None:
        candidates = reader.staged()
    else:
        candidates = list(dict.fromkeys(_repository_path(root, start, file) for file in files))
        reader.staged(candidates)  # most are staged changes: their entries and HEAD's, in one git command
    named = {path: _kind(path) for path in candidates}  # each name looked at once: commits of 10,000 packages
    versions = [path for path in candidates if named[path] == "version" or path == configured_version]
    packages = [path for path in candidates if named[path] == "package"]
    manifests = [path for path in candidates if named[path] == "manifest"]
    plugins = [path for path in candidates if named[path] == "plugin"]
    game_configs = [path for path in candidates if named[path] == "game-config"]
    staged_projects = [path for path in candidates if named[path] == "project"]

    # The first batch: the engine's Build.version and every staged Build.version and game config, with HEAD's for
    # each staged one. Blobs are asked for by object id, from the index's entries.
    # An engine tree's Version.h, whose numbers must be its Build.version's: read in this batch, where the engine's
    # Build.version is (found from the work tree's layout: a few stat calls, and no git process of its own).
    version_hs = {path: found for path in engine_candidates if (found := _version_h_path(root, path)) is not None}
    wanted = list(dict.fromkeys([*engine_candidates, *versions, *game_configs, *staged_projects, *version_hs.values()]))
    index = reader.entries(wanted)
    compared = [path for path in dict.fromkeys([*versions, *game_configs, *staged_projects]) if path in index]
    in_head = reader.head_entries(compared)
    kinds = dict.fromkeys(wanted, "version")  # the later kinds win: a game config, a project, then a Version.h
    kinds.update(dict.fromkeys((path for path in version_hs.values() if path not in versions), "header"))
    kinds.update(dict.fromkeys(staged_projects, "project"))
    kinds.update(dict.fromkeys(game_configs, "game-config"))
    checked_now = {*versions, *game_configs}
    blobs = reader.read(
        [
            *((f":{path}", kinds[path], index.get(path), path in checked_now) for path in wanted),
            *((f"HEAD:{path}", kinds[path], in_head.get(path), False) for path in compared),
        ]
    )
    staged = {path: blobs[f":{path}"] for path in wanted}
    committed = {path: blobs[f"HEAD:{path}"] for path in compared}
    engine_path = next((path for path in engine_candidates if staged.get(path) is not None), None)
    engine_file = None
    if engine_path is not None:
        with contextlib.suppress(BuildverError):  # check() reports it, when it is staged
            engine_file = parse_build_version(staged[engine_path] or b"", Path(engine_path))

    # The second batch: the header, the settings of each package's project, the manifests and the plugins; then
    # the packages, streamed. A package whose working-tree file is the staged one is read from there, header
    # only: packages can be gigabytes, and a Git LFS package's blob is only a pointer.
    header_path, header_configured, macros = _header_path(root, engine_path, engine_file, config)
    check_the_header = header_path is not None and (engine_path in versions or header_path in candidates)
    version_h = version_hs.get(engine_path) if engine_path is not None and engine_file is not None else None
    check_numbers = version_h is not None and (engine_path in versions or version_h in candidates)
    ini_of_package = _engine_ini_paths(root, packages) if packages else {}
    inis = sorted({ini for ini in ini_of_package.values() if ini is not None})
    folder_manifests = _folder_manifests(root, manifests) if manifests else []
    header_paths = [header_path] if check_the_header and header_path else []
    judged = [*packages, *plugins, *game_configs]
    project_of, uprojects = _projects_of(root, judged) if judged else ({}, [])
    small_kinds = {
        **dict.fromkeys(sorted({project for project in project_of.values() if project}), "project"),
        **dict.fromkeys(inis, "engine-ini"),
        **dict.fromkeys(folder_manifests, "manifest"),
        **dict.fromkeys(plugins, "plugin"),
        **dict.fromkeys(header_paths, "header"),
    }
    index = reader.entries([*small_kinds, *packages])
    to_check = {*header_paths, *manifests, *plugins}
    plugin_heads = reader.head_entries(plugins) if plugins else {}  # a plugin's Version is compared with HEAD's
    small = reader.read(
        [
            *((path, kind, index.get(path), path in to_check) for path, kind in small_kinds.items()),
            *((f"HEAD:{path}", "plugin", plugin_heads.get(path), False) for path in plugins),
        ]
    )
    committed.update({path: small[f"HEAD:{path}"] for path in plugins})

    streamed: list[str] = []
    for path in packages:
        entry = index.get(path)
        if entry is not None and not entry.is_file:
            reader.refused.append(("package-unreadable", path, _not_a_file(entry, "package")))
        elif entry is not None:
            streamed.append(path)
    unstaged = unstaged_paths(root, streamed) if streamed else set()
    from_blobs = [path for path in packages if path in unstaged or path not in index]
    package_blobs = _package_stream(root, from_blobs, index) if from_blobs else iter(())

    header = None
    checked = {*versions, *packages, *manifests, *plugins, *game_configs, *staged_projects}
    if check_the_header and header_path is not None and (header_configured or small.get(header_path) is not None):
        header = (header_path, small.get(header_path), header_configured, macros)
        checked.add(header_path)
    if header is not None and any(path == header_path for _, path, _ in reader.refused):
        header = None  # reported as refused
    engine_numbers = None
    if check_numbers and version_h is not None:
        engine_numbers = (version_h, staged.get(version_h))
        checked.add(version_h)  # 4.18's Version.h may be the header too: counted once
    warn_of_ini = {
        ini: True if small.get(ini) is None else zero_engine_version_warning_of(small[ini] or b"") for ini in inis
    }
    resolve = _EngineResolver(root, config, reader)
    engine_of = _engines(resolve, project_of, small, engine_path, engine_file, bool(uprojects))
    return Snapshot(
        root=root,
        settings=settings,
        versions=tuple(versions),
        game_configs=tuple(game_configs),
        projects=tuple(staged_projects),
        staged=staged,
        committed=committed,
        refused=tuple(reader.refused),
        engine_path=engine_path,
        engine_candidates=tuple(engine_candidates),
        engine_file=engine_file,
        header=header,
        engine_numbers=engine_numbers,
        manifests=tuple(manifests),
        manifest_blobs={path: data for path in folder_manifests if (data := small.get(path)) is not None},
        plugins={path: small.get(path) for path in plugins},
        packages=tuple(packages),
        warn_empty={path: warn_of_ini.get(ini_of_package.get(path) or "", True) for path in packages},
        working_tree_packages=tuple(path for path in streamed if path not in unstaged),
        package_blobs=package_blobs,
        resolve=resolve,
        engine_of=engine_of,
        checked=tuple(sorted(checked)),
        project_of=project_of,
    )


def _package_stream(root: Path, paths: list[str], index: dict[str, GitEntry]) -> Iterator[tuple[str, Blob | None]]:
    """``(path, blob)`` of each staged package of ``paths``, in order: its first bytes and its tag, never more;
    None for a path that is not in the index."""
    from buildver.packages.reader import MAX_SUMMARY_SIZE
    from buildver.vcs import read_blobs

    stream = read_blobs(
        root, [index[path].oid for path in paths if path in index], head=MAX_SUMMARY_SIZE, tail=_PACKAGE_TAIL
    )
    for path in paths:
        yield path, next(stream)[1] if path in index else None


def check(snapshot: Snapshot) -> list[Finding]:
    """Every check over the snapshot, in the order a reader expects: versions, header, manifests, plugins, packages."""
    settings = snapshot.settings
    findings: list[Finding] = []
    for key, path, why in snapshot.refused:
        findings += settings.finding(key, path, why)
    for path in snapshot.versions:
        staged = snapshot.staged.get(path)
        if staged is not None:
            findings += check_version(path, staged, snapshot.committed.get(path), settings)[1]
    for path in snapshot.game_configs:
        staged = snapshot.staged.get(path)
        if staged is not None:
            # The project's engine release decides which Android architectures UnrealBuildTool builds.
            release = snapshot.engine_of[path].release
            findings += check_game_config(path, staged, snapshot.committed.get(path), settings, engine_release=release)
    for path in snapshot.projects:
        staged, head = snapshot.staged.get(path), snapshot.committed.get(path)
        invalid = [] if staged is None else check_project_descriptor(path, staged, settings)
        findings += invalid
        if staged is not None and head is not None and not invalid:
            findings += _check_project_engine(snapshot, path, staged, head)
    engine_file = snapshot.engine_file
    if snapshot.header is not None and engine_file is not None:
        path, staged, configured, macros = snapshot.header
        findings += check_header(path, staged, engine_file, configured=configured, macros=macros, settings=settings)
    if snapshot.engine_numbers is not None and engine_file is not None:
        path, staged = snapshot.engine_numbers
        findings += check_engine_numbers(path, staged, engine_file, settings)
    if snapshot.manifests:
        forced = "" if engine_file is None else engine_file.record.build_id
        findings += check_manifests(snapshot.manifest_blobs, snapshot.manifests, forced, settings)
    findings += _unjudged(snapshot)
    refused = {path for _, path, _ in snapshot.refused}
    for path, data in snapshot.plugins.items():
        if path in refused:
            continue
        engine = snapshot.engine_of[path]
        if data is None:
            findings += settings.finding("plugin-invalid", path, "not in the index (stage it with git add)")
            continue
        # A descriptor Unreal cannot read is refused whatever the engine; only the comparison needs one.
        findings += check_plugin(path, data, None if engine.version is None else _record(engine), settings)
        findings += check_plugin_version(path, data, snapshot.committed.get(path), settings)
    root = snapshot.root
    tables_of = _TablesOf(snapshot)
    headers = _SharedHeaders() if snapshot.working_tree_packages else None
    for path in snapshot.working_tree_packages:
        engine = snapshot.engine_of[path]
        tables = tables_of(path, engine)
        found = _check_package_file(
            path, root / path, engine.package_judge, snapshot.warn_empty[path], settings, root, tables, headers
        )
        findings += _in_words(found, engine)
    for path, blob in snapshot.package_blobs:
        engine = snapshot.engine_of[path]
        version = engine.package_judge
        tables = tables_of(path, engine)
        if blob is None:
            findings += settings.finding("package-unreadable", path, "not in the index (stage it with git add)")
            continue
        oid = _lfs_object_id(blob.data) if blob.size <= LFS_POINTER_MAX_SIZE else None
        if oid is None:
            found = _check_package_blob(path, blob, version, snapshot.warn_empty[path], settings, tables)
        else:
            found = _check_lfs_package(root, path, oid, version, snapshot.warn_empty[path], settings, tables)
        findings += _in_words(found, engine)
    return findings


class _TablesOf:
    """The version tables each staged package is judged by (``buildver.projects.engine_tables``): its engine's, with
    its game's registrations; looked up once per project and engine."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.known: dict[tuple[str | None, int], VersionTables | None] = {}

    def __call__(self, path: str, engine: PlaceEngine) -> VersionTables | None:
        project = self.snapshot.project_of.get(path)
        key = (project, id(engine))
        if key not in self.known:
            from buildver.projects.engine_tables import place_tables
            from buildver.projects.place import Place, PlaceKind

            root = self.snapshot.root
            if project:
                place = Place(PlaceKind.GAME, (root / project).parent, root / project)
            else:
                place = Place(PlaceKind.OTHER, root)
            self.known[key] = place_tables(place, engine, base=root)
        return self.known[key]


def _in_words(findings: list[Finding], engine: PlaceEngine) -> list[Finding]:
    """The findings with an engine known only by its release named as people say it (PlaceEngine.in_words)."""
    if not engine.release_only:
        return findings
    return [dataclasses.replace(item, message=engine.in_words(item.message)) for item in findings]


def _check_project_engine(snapshot: Snapshot, path: str, staged: bytes, head: bytes) -> list[Finding]:
    """A project moved to an older engine release: that engine cannot load what the newer one saved (Unreal refuses
    such packages), so every package committed so far may be lost to it. Both engines are decided as every command
    decides them; when either is not known here, nothing is said (the packages' own checks say it)."""
    from buildver.errors import BuildverError
    from buildver.projects.engine import association_of

    try:
        new_association, old_association = association_of(staged, path), association_of(head, path)
    except BuildverError:
        return []  # not a descriptor: Unreal's own error, and project check's
    if new_association == old_association:
        return []
    new, old = snapshot.resolve.engine(path, staged).release, snapshot.resolve.engine(path, head).release
    if new is None or old is None or new >= old:
        return []
    older, newer = "{}.{}".format(*new), "{}.{}".format(*old)
    return snapshot.settings.finding(
        "project-engine-older",
        path,
        f"EngineAssociation {old_association!r} -> {new_association!r}: the project's engine goes back from {newer} "
        f"to {older}, which cannot load what {newer} saved (buildver assets scan --against {older} lists them)",
    )


def _unjudged(snapshot: Snapshot) -> list[Finding]:
    """One ``no-engine-version`` finding per engine that is not known, naming what was not checked and why."""
    unknown: dict[str, tuple[list[str], list[str]]] = {}
    for paths, index in ((snapshot.packages, 0), (snapshot.plugins, 1)):
        for path in paths:
            missing = snapshot.engine_of[path].missing
            if snapshot.engine_of[path].version is None and missing is not None:
                unknown.setdefault(missing, ([], []))[index].append(path)
    findings: list[Finding] = []
    for missing, (packages, plugins) in unknown.items():
        counts = ((packages, "packages"), (plugins, ".uplugin files"))
        unchecked = ", ".join(f"{len(files)} staged {noun}" for files, noun in counts if files)
        where, _, why = missing.partition(": ")
        if os.path.isabs(where) and Path(where).is_relative_to(snapshot.root):  # named from the root, as every finding
            where = Path(where).relative_to(snapshot.root).as_posix()
        findings += snapshot.settings.finding(
            "no-engine-version", where, f"{unchecked} not checked against an engine ({why or missing})"
        )
    return findings


def _record(engine: PlaceEngine) -> BuildVersion:
    from buildver.projects.place import engine_build_record

    if engine.version_file is not None:
        return engine.version_file.record
    assert engine.version is not None
    return engine_build_record(engine.version)


def _projects_of(root: Path, paths: list[str]) -> tuple[dict[str, str | None], list[str]]:
    """Each path's project: the ``.uproject`` in the index in its folder or the nearest folder above it (the first
    by name), and every ``.uproject`` in the index."""
    from buildver.file_names import PROJECT_SUFFIX
    from buildver.vcs import index_paths_ending

    uprojects = sorted(index_paths_ending(root, PROJECT_SUFFIX))
    by_folder: dict[str, str] = {}
    for project in uprojects:
        by_folder.setdefault(posixpath.dirname(project), project)
    nearest: dict[str, str | None] = {}  # folder -> its project, memoised: 10,000 packages share a few folders

    def project_of(folder: str) -> str | None:
        walked = []
        owner = None
        while folder not in nearest:
            walked.append(folder)
            if folder in by_folder or not folder:
                owner = by_folder.get(folder)
                break
            folder = posixpath.dirname(folder)
        else:
            owner = nearest[folder]
        for seen in walked:
            nearest[seen] = owner
        return owner

    found = {path: project_of(posixpath.dirname(path)) for path in paths}
    return found, uprojects


class _EngineResolver:
    """A project's engine, decided by ``buildver.projects.place`` from the association the index holds: an engine's
    Build.version in the repository is read from the index (what the commit holds), any other from the disk."""

    def __init__(self, root: Path, config: Config, reader: _Reader) -> None:
        self.root, self.config, self.reader = root, config, reader
        self._version_files: dict[Path, VersionFile | None] = {}

    def read_version_file(self, path: Path) -> VersionFile | None:
        """Each engine's Build.version once per run: projects sharing an engine (an engine's templates), and a
        .uproject's staged and committed associations, ask for the same file."""
        if path not in self._version_files:
            self._version_files[path] = self._read_version_file(path)
        return self._version_files[path]

    def _read_version_file(self, path: Path) -> VersionFile | None:
        from buildver.versions.build_version import load_build_version, parse_build_version

        relative = os.path.relpath(path, self.root)
        if relative.startswith(os.pardir) or os.path.isabs(relative):
            return load_build_version(path) if path.is_file() else None
        key = Path(relative).as_posix()
        entry = self.reader.entries([key]).get(key)
        data = self.reader.read([(key, "version", entry, False)])[key]
        return None if data is None else parse_build_version(data, Path(key))

    def engine(self, project: str, data: bytes | None) -> PlaceEngine:
        """The engine of the ``.uproject`` at ``project`` (repository-relative) whose bytes are ``data`` (None: read
        from the disk); never raises: an engine that cannot be decided says why."""
        from buildver.errors import BuildverError
        from buildver.projects.engine import association_of
        from buildver.projects.place import PlaceEngine, engine_for_association

        try:
            association = None if data is None else association_of(data, project)
            found = engine_for_association(
                self.root / project, association, config=self.config, read_version_file=self.read_version_file
            )
        except BuildverError as exc:
            found = PlaceEngine(None, "", missing=str(exc))
        if found.missing is not None:  # name the project as every finding does: from the repository's root
            found = found._replace(missing=found.missing.replace(str(self.root / project), project, 1))
        return found


def _engines(
    resolve: _EngineResolver,
    project_of: dict[str, str | None],
    small: dict[str, bytes | None],
    engine_path: str | None,
    engine_file: VersionFile | None,
    has_projects: bool,
) -> dict[str, PlaceEngine]:
    """The engine of each judged path (``Snapshot.engine_of``), decided by ``buildver.projects.place``."""
    from buildver.errors import BuildverError
    from buildver.projects.place import ENGINE_SETTING, PlaceEngine, engine_setting
    from buildver.versions.engine_tree import engine_root

    root, config = resolve.root, resolve.config
    per_project = {
        project: resolve.engine(project, small.get(project))
        for project in sorted({project for project in project_of.values() if project})
    }
    # Outside every project: an engine tree's own Build.version, or another project's; never a game's own version.
    if engine_file is not None and (not has_projects or engine_root(root / (engine_path or "")) is not None):
        default = PlaceEngine(engine_file.record.engine_version, str(engine_path), engine_file)
    else:
        try:
            setting = engine_setting(config)
        except BuildverError as exc:
            setting = PlaceEngine(None, "", missing=str(exc))
        if setting is not None:
            default = setting
        else:
            candidate = engine_path or (
                config.version_file.as_posix() if config.version_file is not None else SEARCHED_PATHS[0].as_posix()
            )
            problem = "is not valid" if engine_path else "is not in the index"
            if has_projects and engine_file is not None:
                problem = "is the game's own version, not an engine's"
            outside = next((path for path, project in project_of.items() if not project), candidate)
            default = PlaceEngine(
                None,
                "",
                missing=(
                    f"{outside}: no .uproject at or above it names an engine, and the repository's {candidate} "
                    f"{problem}; {ENGINE_SETTING}"
                ),
            )
    return {path: per_project[project] if project else default for path, project in project_of.items()}


def _check_package_blob(
    path: str,
    blob: Blob,
    engine: EngineVersion | None,
    warn_empty: bool,
    settings: GuardSettings,
    tables: VersionTables | None = None,
) -> list[Finding]:
    """The findings about a staged package read from git: its first bytes, its size and its last 4 bytes."""
    from buildver.errors import PackageFormatError
    from buildver.packages.reader import parse_package_head, parse_package_summary

    try:
        if blob.size == len(blob.data):
            summary = parse_package_summary(blob.data, path)
        else:
            summary = parse_package_head(blob.data, blob.size, blob.tail, path)
    except PackageFormatError as exc:
        return unreadable_package(path, exc.offset, exc.reason, exc.not_a_package, settings)
    return _package_findings(path, summary, engine, warn_empty, settings, tables)


def _package_findings(
    path: str,
    summary: PackageSummary,
    engine: EngineVersion | None,
    warn_empty: bool,
    settings: GuardSettings,
    tables: VersionTables | None = None,
) -> list[Finding]:
    """``check_package_summary``'s findings, and ``package-undecidable`` where ``classify`` says undecidable."""
    if engine is None:
        return check_package_summary(path, summary, None, warn_empty=warn_empty, settings=settings, tables=tables)
    from buildver.packages.verdicts import ScanStatus, classify_shared

    # The verdict is classify's (packages/verdicts.py), as for assets scan, shared by the packages with the same
    # header (the reasons name no file); only its findings are made here.
    result = classify_shared(summary, engine, False, tables)
    findings = check_package_summary(
        path, summary, engine, warn_empty=warn_empty, settings=settings, tables=tables, verdict=result
    )
    if result.status is ScanStatus.UNDECIDABLE:
        findings += settings.finding("package-undecidable", path, f"not decidable for {engine}: {result.error}")
    return findings


def _check_package_file(
    path: str,
    file: Path,
    engine: EngineVersion | None,
    warn_empty: bool,
    settings: GuardSettings,
    root: Path | None = None,
    tables: VersionTables | None = None,
    headers: _SharedHeaders | None = None,
) -> list[Finding]:
    """The findings about the package stored in ``file``, reading only its header; ``root``: a work-tree file;
    ``headers``: the summaries already read, by the compiled core's number for a header."""
    from buildver.errors import PackageFormatError
    from buildver.packages.reader import read_package_summary

    try:
        summary = headers.summary(file) if headers is not None else read_package_summary(file)
    except PackageFormatError as exc:
        if exc.not_a_package:
            # A Git LFS checkout without its content (GIT_LFS_SKIP_SMUDGE) keeps the pointer in the work tree.
            oid = _lfs_object_id(_start_of_regular_file(file, LFS_POINTER_MAX_SIZE + 1))
            if oid is not None and root is not None:
                return _check_lfs_package(root, path, oid, engine, warn_empty, settings, tables)
        return unreadable_package(path, exc.offset, exc.reason, exc.not_a_package, settings)
    return _package_findings(path, summary, engine, warn_empty, settings, tables)


class _SharedHeaders:
    """Package summaries shared by the files whose headers the compiled core gives the same number: the number
    stands for the bytes every finding depends on (the file versions, the flags, the custom versions and the two
    engine versions; ``assets scan`` shares results by it). A commit of thousands of packages holds a few dozen
    distinct headers. Without the core, or for a file the core hands back, the Python reader reads the file."""

    def __init__(self, limit: int | None = None) -> None:
        from buildver.packages.scanning import native_core
        from buildver.packages.verdicts import SHARED_RESULTS_LIMIT

        self.core = native_core()
        self.known: dict[int, PackageSummary] = {}
        self.limit = SHARED_RESULTS_LIMIT if limit is None else limit
        """Summaries kept at most, as for the shared verdicts: memory stays flat over any number of headers."""

    def summary(self, file: Path) -> PackageSummary:
        from buildver.packages.reader import read_package_summary

        key = -1 if self.core is None else self.core.read_key(os.fspath(file))
        known = self.known.get(key) if key >= 0 else None
        if known is not None:
            return known
        summary = read_package_summary(file)
        if key >= 0:
            if len(self.known) >= self.limit:
                self.known.clear()
            self.known[key] = summary
        return summary


def _start_of_regular_file(file: Path, count: int) -> bytes:
    """The first ``count`` bytes of ``file`` if it is a regular file, else nothing: never an open that waits (a FIFO,
    or a symbolic link to one, swapped in since the package reader looked) nor a read that never ends (a device)."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(file, flags)
    except OSError:
        return b""
    try:
        return os.read(descriptor, count) if stat.S_ISREG(os.fstat(descriptor).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(descriptor)


def _check_lfs_package(
    root: Path,
    path: str,
    oid: str,
    engine: EngineVersion | None,
    warn_empty: bool,
    settings: GuardSettings,
    tables: VersionTables | None = None,
) -> list[Finding]:
    """A package kept in Git LFS: its index entry is a pointer, and ``git add`` put the content in the LFS store."""
    from buildver.vcs import git_common_dir

    stored = git_common_dir(root) / "lfs" / "objects" / oid[:2] / oid[2:4] / oid
    if stored.is_file():
        return _check_package_file(path, stored, engine, warn_empty, settings, tables=tables)
    # Not an error: the content exists elsewhere (the LFS server), only this clone cannot show it.
    return [
        dataclasses.replace(finding, severity=Severity.WARNING)
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


def _version_h_path(root: Path, engine_path: str | None) -> str | None:
    """The repository path of the Version.h of the engine tree whose Build.version is at ``engine_path`` (as the
    work tree lays it out), or None when that is no engine tree's."""
    if engine_path is None:
        return None
    from buildver.stamp.rules import VERSION_H
    from buildver.versions.engine_tree import engine_root

    engine = engine_root(root / engine_path)
    return None if engine is None else _repository_path(root, root, engine / VERSION_H)


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
