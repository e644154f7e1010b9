"""Where a command stands: the one decision every command asks before it reads, judges or writes anything.

A place is one of:

- an **engine tree**: ``<root>/Engine/Build/Build.version`` beside ``Engine/Source/`` at or above the folder;
- a **game**: a ``.uproject`` at or above the folder, or the only one below it (a project in a subfolder of its
  repository, CARLA's ``Unreal/CarlaUE4/``), or a native project inside an engine's depot;
- a **plugin's own repository**: a ``.uplugin`` at or above the folder, with no project around it (a test
  project below it does not make it a game);
- **another project**: anything else, judged and stamped by its own Build.version (buildver's own rules).

For that place, two answers: its **own versions** (an engine tree's Build.version; a game's ProjectVersion and
store versions, read by ``buildver.projects.game``, and the game's own Build.version when it keeps one; another
project's Build.version), and **the engine** its packages, plugins and projects are judged against
(:func:`place_engine`). In a game the engine is the one the ``.uproject``'s EngineAssociation names, found as
``buildver engine`` finds it, never the game's own version; when it is not on this machine: the ``engine``
setting, else the release a launcher association names (every hotfix of a release shares its object and custom
versions), else nothing, with the reason and the setting that would name one.

Nothing here prints. ``show``, ``project check``, ``assets scan``, ``guard``, ``init``, ``update-local``,
``header``, ``engine`` and the Python face ask this module; none decides it again.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from buildver.errors import BuildverError, EngineLookupError, NoVersionFileError, VersionFileError
from buildver.file_names import PLUGIN_SUFFIX, PROJECT_SUFFIX, files_in, find_project

if TYPE_CHECKING:
    from buildver.projects.engine import ProjectEngine
    from buildver.projects.game import GameProject
    from buildver.versions.build_version import BuildVersion, VersionFile
    from buildver.versions.config import Config
    from buildver.versions.engine_version import EngineVersion

__all__ = [
    "ENGINE_SETTING",
    "ENGINE_SETTING_ADVICE",
    "Place",
    "PlaceEngine",
    "PlaceKind",
    "compatible_engine_version",
    "current_engine_version",
    "engine_build_record",
    "engine_for_association",
    "engine_here",
    "engine_setting",
    "find_place",
    "game_versions",
    "place_engine",
    "release_engine_version",
    "release_or_version",
    "stamped_version_file",
]

ENGINE_SETTING = 'set engine = "MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver]'
"""The setting that names an engine for machines that do not have it."""

ENGINE_SETTING_ADVICE = f"{ENGINE_SETTING}, or give --against MAJOR.MINOR or --file"
"""What names an engine where the machine has none: the setting, or the options."""

_BELOW_DEPTH = 2
"""How deep below the folder a ``.uproject`` is looked for: CARLA keeps its project two folders down."""

_NOT_SEARCHED_BELOW = frozenset(
    {
        "engine",
        "plugins",
        "content",
        "binaries",
        "intermediate",
        "saved",
        "deriveddatacache",
        "source",
        "config",
        "build",
        "node_modules",
    }
)
"""Folders that never hold the project itself (lower case); hidden folders (``.git``) are skipped too."""


_LAST_PATCH = 65535
_LAST_CHANGELIST = 2**31 - 1
"""FEngineVersion's largest patch and changelist (the changelist's bit 31 is the licensee flag)."""


class PlaceKind(enum.StrEnum):
    """What kind of place a command stands in."""

    ENGINE = "engine"
    """An engine tree: its Build.version is both its own version and the engine."""
    GAME = "game"
    """A game project: its engine is the one its ``.uproject`` names."""
    PLUGIN = "plugin"
    """A plugin's own repository: no engine of its own."""
    OTHER = "other"
    """Any other project: its own Build.version, stamped by buildver's own rules."""


# NamedTuples rather than dataclasses: as immutable, and update-local asks where it stands at every run, where
# importing dataclasses and building a class cost 2-3 ms (benchmarks/bench_update_local.py).
class Place(NamedTuple):
    """Where a command stands (a value: finding it is :func:`find_place`'s job)."""

    kind: PlaceKind
    root: Path
    """The engine's root, the project's folder, the plugin's folder, or (another project) the folder searched from."""
    project: Path | None = None
    """The ``.uproject`` of a game."""
    plugin: Path | None = None
    """The ``.uplugin`` of a plugin's own repository."""
    own_version_file: Path | None = None
    """The place's own Build.version: an engine tree's, a game's own stamp file (when it keeps one), another
    project's; None when it has none."""
    config: Config | None = None
    """The settings found from the folder."""

    def describe(self) -> str:
        """One line: what the place is."""
        if self.kind is PlaceKind.ENGINE:
            return f"an engine tree at {self.root}"
        if self.kind is PlaceKind.GAME:
            return f"a game project, {self.project}"
        if self.kind is PlaceKind.PLUGIN:
            return f"a plugin's own repository, {self.plugin}"
        if self.own_version_file is not None:
            return f"a project at {self.root} with a Build.version, not an Unreal game, engine tree or plugin"
        return f"no Unreal project at {self.root}: no .uproject, .uplugin or Build.version"


class PlaceEngine(NamedTuple):
    """The engine a place's packages, plugins and projects are judged against, and how it was chosen."""

    version: EngineVersion | None
    """FEngineVersion::Current() of that engine; None when no engine is known (``missing`` says why)."""
    how: str
    """One line: where it came from."""
    version_file: VersionFile | None = None
    """Its Build.version, when it was read from one."""
    release_only: bool = False
    """Only the release is known (``5.3``): its tables decide, its hotfix and changelist are not known."""
    missing: str | None = None
    """Why no engine is known, naming the setting or option that would name one."""
    association: ProjectEngine | None = None
    """The game's EngineAssociation as it was resolved on this machine, when it was."""

    @property
    def release(self) -> tuple[int, int] | None:
        """The engine's ``(major, minor)``: whose object, custom and packaging rules apply."""
        return None if self.version is None else (self.version.major, self.version.minor)

    @property
    def package_judge(self) -> EngineVersion | None:
        """The version packages are judged by. With only the release known (``5.2``): the newest build that release
        can be, its last hotfix with a changelist, so that a package compatible only with a newer release is refused
        as every build of the release refuses it (CompatibleWithEngineVersion 5.3.0-27405482 against any 5.2 build),
        while one saved by any of its hotfixes passes; a package saved without a changelist passes, as Unreal's
        Changelist-0 rule lets it."""
        if self.version is None or not self.release_only:
            return self.version
        from buildver.versions.engine_version import EngineVersion

        return EngineVersion(self.version.major, self.version.minor, _LAST_PATCH, _LAST_CHANGELIST)

    def in_words(self, text: str) -> str:
        """``text`` with :attr:`package_judge` written as people say it (``any build of 5.2``) when only the release
        is known: the version judged by is not one anybody ships."""
        judge = self.package_judge
        if judge is None or not self.release_only:
            return text
        return text.replace(str(judge), f"any build of {judge.major}.{judge.minor}")

    @property
    def build(self) -> VersionFile | EngineVersion:
        """What the checks take: the Build.version when there is one, else the version; EngineLookupError when
        no engine is known."""
        if self.version_file is not None:
            return self.version_file
        if self.version is None:
            raise EngineLookupError(self.missing or "no engine is known here")
        return self.version

    def describe(self) -> str:
        """One line: the engine and where it came from (or why there is none)."""
        if self.version is None:
            return f"no engine: {self.missing}"
        shown = f"{self.version.major}.{self.version.minor}" if self.release_only else str(self.version)
        return f"{shown} ({self.how})"

    def to_json(self) -> dict[str, object]:
        """The engine as ``show --json`` and ``engine --json`` print it."""
        document: dict[str, object] = {
            "version": None if self.version is None else str(self.version),
            "release": None if self.release is None else "{}.{}".format(*self.release),
            "release_only": self.release_only,
            "version_file": None if self.version_file is None else str(self.version_file.path),
            "how": self.how,
        }
        if self.missing is not None:
            document["missing"] = self.missing
        return document


# -- where a command stands ---------------------------------------------------------------------------------------


def find_place(start: Path | None = None, *, config: Config | None = None, below: bool = True) -> Place:
    """Where a command run from ``start`` (a folder or a file; default: the current folder) stands.

    ``below``: also look for the only ``.uproject`` below the folder (a project in a subfolder of its repository).
    Stamping passes False: the file it stamps is found from the folder either way, and the search costs about a
    millisecond in a wide tree.
    """
    from buildver.versions.config import load_config

    start = Path(os.path.abspath(start if start is not None else Path.cwd()))
    folder = start if start.is_dir() or not start.exists() else start.parent
    if config is None:
        config = load_config(folder)
    project = find_project(start)
    if project is not None:
        return Place(PlaceKind.GAME, project.parent, project, None, _game_version_file(project, folder, config), config)
    version_file = _configured_or_found(folder, config)
    if version_file is not None:
        from buildver.versions.engine_tree import engine_root

        root = engine_root(version_file)
        if root is not None:
            return Place(PlaceKind.ENGINE, root, None, None, version_file, config)
    plugin = _plugin_at_or_above(folder)
    if plugin is not None:
        return Place(PlaceKind.PLUGIN, plugin.parent, None, plugin, version_file, config)
    project_below = _project_below(folder) if below else None
    if project_below is not None:
        own = _game_version_file(project_below, folder, config)
        return Place(PlaceKind.GAME, project_below.parent, project_below, None, own, config)
    return Place(PlaceKind.OTHER, folder, None, None, version_file, config)


def stamped_version_file(
    file: str | os.PathLike[str] | None = None,
    *,
    start: Path | None = None,
    config: Config | None = None,
    place: Place | None = None,
) -> Path:
    """The Build.version ``update-local``, ``header`` and ``bump`` stamp: ``file`` (``--file``); in a game, the
    game's own (:attr:`Place.own_version_file`: never an engine's, even when the game sits in the engine's depot), a
    NoVersionFileError when it keeps none; elsewhere the configured or found one, as every command reads it.
    ``place``: where the command stands, when it has found it already (as stamping finds it: ``below=False``)."""
    from buildver.versions.current import version_file_path

    if file is not None:
        return version_file_path(file)
    if place is None:
        place = find_place(start, config=config, below=False)
    if place.kind is not PlaceKind.GAME:
        return version_file_path(None, config=place.config, start=start)
    if place.own_version_file is None:
        # The command line adds the way out: --file, or buildver init --version.
        raise NoVersionFileError(f"{place.project}: the game keeps no Build.version of its own")
    return place.own_version_file


def _configured_or_found(folder: Path, config: Config) -> Path | None:
    from buildver.versions.build_version import find_build_version

    if config.version_file is not None:
        return config.version_file
    try:
        return find_build_version(folder)
    except VersionFileError:
        return None


def _game_version_file(project: Path, folder: Path, config: Config) -> Path | None:
    """A game's own Build.version: the configured one, else ``Build/Build.version`` found from the folder or the
    project's folder, up to the repository root; never an engine tree's (the engine's depot may hold the game)."""
    if config.version_file is not None:
        return config.version_file
    from buildver.versions.build_version import find_build_version
    from buildver.versions.engine_tree import engine_root

    for start in dict.fromkeys((folder, project.parent)):
        try:
            found = find_build_version(start)
        except VersionFileError:
            continue
        if engine_root(found) is None and found.parent.name == "Build" and found.parent.parent.name != "Engine":
            return found
    return None


def _plugin_at_or_above(folder: Path) -> Path | None:
    """The ``.uplugin`` in ``folder`` or a folder above it, up to the repository root (the first by name)."""
    for candidate in (folder, *folder.parents):
        plugins = sorted(_entries_named(candidate, PLUGIN_SUFFIX))
        if plugins:
            return plugins[0]
        if (candidate / ".git").exists():
            return None
    return None


def _project_below(folder: Path) -> Path | None:
    """The only ``.uproject`` below ``folder`` (up to ``_BELOW_DEPTH`` folders down, outside the folders no
    project lives in); None when there is none or several (an engine's samples, a depot of games). A folder below
    that cannot be listed is passed over: only a folder at or above the place decides what the place is."""
    level = [folder]
    for _ in range(_BELOW_DEPTH + 1):  # the folder's own listing first, then one level deeper each time
        found: list[Path] = []
        deeper: list[Path] = []
        for parent in level:
            for entry in _listing(parent):
                name = entry.name
                lowered = name.lower()
                if parent is not folder and lowered.endswith(PROJECT_SUFFIX) and _is(entry.is_file):
                    found.append(Path(entry.path))
                elif not name.startswith(".") and lowered not in _NOT_SEARCHED_BELOW and _is(entry.is_dir):
                    deeper.append(Path(entry.path))
        if found:
            return found[0] if len(found) == 1 else None
        level = deeper
    return None


def _listing(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _is(test: Callable[[], bool]) -> bool:
    try:
        return test()
    except OSError:
        return False


def _entries_named(folder: Path, suffix: str) -> list[Path]:
    return [entry for entry in files_in(folder) if entry.name.lower().endswith(suffix)]


# -- the engine of a place ------------------------------------------------------------------------------------------


def release_engine_version(major: int, minor: int) -> EngineVersion:
    """The engine a bare release (``5.3``) stands for: its first hotfix with no changelist, so that Unreal's
    Changelist-0 rule leaves the decision to the release's object and custom versions. InvalidVersionError for a
    release buildver has no tables of (``3.5``, a typo's ``5.33``, a release newer than it knows): with nothing to
    decide by, every package would pass."""
    from buildver.errors import InvalidVersionError
    from buildver.packages.object_versions import RELEASE_OBJECT_VERSIONS, object_versions_for
    from buildver.versions.engine_version import EngineVersion

    version = EngineVersion(major, minor, 0)
    if object_versions_for(version) is None:
        first, last = RELEASE_OBJECT_VERSIONS[0], RELEASE_OBJECT_VERSIONS[-1]
        raise InvalidVersionError(
            f"buildver has no tables of release {major}.{minor} (it knows {first.release} to {last.release}), so "
            "it could decide nothing by it; name the engine by its Build.version instead"
        )
    return version


def place_engine(
    place: Place,
    *,
    file: str | os.PathLike[str] | None = None,
    against: EngineVersion | None = None,
    against_release_only: bool = False,
    platform: str | None = None,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] | None = None,
) -> PlaceEngine:
    """The engine ``place`` is judged against: ``against`` (``--against``; ``against_release_only`` when only
    ``MAJOR.MINOR`` was given), else ``file`` (``--file``), else the place's own rule (module docstring). Never
    raises for a missing engine: ``missing`` says why; a Build.version that cannot be read is an error."""
    if against is not None:
        if against_release_only:
            return PlaceEngine(against, f"--against {against.major}.{against.minor}: that release's tables", None, True)
        return PlaceEngine(against, "--against")
    if file is not None:
        from buildver.versions.current import load_version_file

        loaded = load_version_file(file)
        return PlaceEngine(loaded.record.engine_version, f"--file {file}", loaded)
    config = place.config
    if place.kind is PlaceKind.GAME and place.project is not None:
        return engine_for_association(
            place.project, None, config=config, platform=platform, environ=environ, home=home, registry=registry
        )
    # An engine tree's Build.version is the engine; so is the one another project or a plugin's repository keeps
    # (a plugin's own version is in its .uplugin): the engine it is built for.
    if place.own_version_file is not None:
        from buildver.versions.build_version import load_build_version

        loaded = load_build_version(place.own_version_file)
        how = "this engine tree's Build.version" if place.kind is PlaceKind.ENGINE else "this project's Build.version"
        return PlaceEngine(loaded.record.engine_version, how, loaded)
    setting = engine_setting(config)
    if setting is not None:
        return setting
    if place.kind is PlaceKind.PLUGIN and place.plugin is not None:
        return PlaceEngine(
            None,
            "",
            missing=(
                f"{place.plugin}: a plugin's own repository, with no engine to check it against; name the engine: "
                f"--against {_release_of(place.plugin)}, or --file with the engine's Engine/Build/Build.version, or "
                f"{ENGINE_SETTING}"
            ),
        )
    why = f"{place.root}: no Build/Build.version or Engine/Build/Build.version here or above, and no .uproject"
    return PlaceEngine(None, "", missing=f"{why}; {ENGINE_SETTING_ADVICE}")


def _release_of(plugin: Path) -> str:
    """The ``MAJOR.MINOR`` the plugin says it was made for (its EngineVersion), else ``MAJOR.MINOR`` itself."""
    from buildver.projects.descriptors import parse_plugin_descriptor
    from buildver.projects.lenient_version import parse_unreal_engine_version
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(plugin)
        declared = "" if data is None else parse_plugin_descriptor(data, str(plugin)).engine_version
    except (OSError, BuildverError):
        declared = ""
    version = parse_unreal_engine_version(declared) if declared else None
    return "MAJOR.MINOR" if version is None else f"{version.major}.{version.minor}"


def engine_here(
    start: Path,
    *,
    file: str | os.PathLike[str] | None = None,
    against: EngineVersion | None = None,
    against_release_only: bool = False,
    config: Config | None = None,
    place: Place | None = None,
) -> PlaceEngine:
    """The engine a command run on ``start`` judges against (:func:`place_engine`); the place (``place``, when the
    command has found it already) is looked for only when neither ``against`` nor ``file`` names the engine."""
    if against is not None or file is not None:
        place = Place(PlaceKind.OTHER, Path(os.path.abspath(start)), config=config)
    elif place is None:
        place = find_place(start, config=config)
    return place_engine(place, file=file, against=against, against_release_only=against_release_only)


def engine_for_association(
    project: Path,
    association: str | None,
    *,
    config: Config | None = None,
    read_version_file: Callable[[Path], VersionFile | None] | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] | None = None,
) -> PlaceEngine:
    """The engine of the game whose ``.uproject`` is ``project``, its EngineAssociation ``association`` (None: read
    from the file): found as ``buildver engine`` finds it; where it is not on this machine, the ``engine`` setting;
    else the release a launcher association names; else none, with the reason.

    ``read_version_file`` reads a found engine's Build.version (the guard reads it from the index when the engine
    is in the repository); None when it is not there.
    """
    from buildver.projects.engine import project_engine, read_registry_builds
    from buildver.projects.lenient_version import parse_stock_engine_version

    reader = read_version_file or _read_version_file
    found: ProjectEngine | None = None
    try:
        resolved = project_engine(
            project,
            association=association,
            platform=platform or sys.platform,
            environ=environ,
            home=home,
            registry=registry or read_registry_builds,
        )
    except EngineLookupError as exc:
        why = str(exc)
        association = association if association is not None else _read_association(project)
    else:
        found, association = resolved, resolved.association
        try:
            loaded = reader(resolved.version_file)
        except BuildverError as exc:  # the release its association names may still decide
            loaded, why = None, f"{project}: its engine's Build.version cannot be read: {exc}"
        else:
            why = f"{project}: its engine at {resolved.root} ({resolved.how}) has no Engine/Build/Build.version"
        if loaded is not None:
            how = f"EngineAssociation {association or '(none)'}: {resolved.root} ({resolved.how})"
            return PlaceEngine(loaded.record.engine_version, how, loaded, association=resolved)
    setting = engine_setting(config)
    if setting is not None:
        state = "not installed here" if found is None else "without a readable Build.version"
        return PlaceEngine(
            setting.version,
            f"{setting.how}: the EngineAssociation {association or '(none)'} is {state}",
            setting.version_file,
            setting.release_only,
            association=found,
        )
    stock = parse_stock_engine_version(association or "")
    if stock is not None:
        try:
            by_release = release_engine_version(stock.major, stock.minor)
        except BuildverError as exc:
            return PlaceEngine(None, "", missing=f"{why}; {exc}; or {ENGINE_SETTING}", association=found)
        return PlaceEngine(
            by_release,
            f"EngineAssociation {association}: {_short(why, project) if found is not None else 'not installed here'}"
            f", so release {stock.major}.{stock.minor}'s tables",
            None,
            True,
            association=found,
        )
    return PlaceEngine(None, "", missing=f"{why}; or {ENGINE_SETTING}", association=found)


def _short(why: str, project: Path) -> str:
    return why.removeprefix(f"{project}: ")


def _read_version_file(path: Path) -> VersionFile | None:
    from buildver.versions.build_version import load_build_version

    if not path.is_file():
        return None
    return load_build_version(path)


def _read_association(project: Path) -> str:
    from buildver.projects.engine import read_association

    try:
        return read_association(project)
    except BuildverError:
        return ""


def engine_setting(config: Config | None) -> PlaceEngine | None:
    """The ``engine`` setting: a release (``5.3``), a version (``5.3.2``) or a Build.version's path."""
    if config is None or config.engine is None:
        return None
    from buildver.errors import ConfigError

    value = config.engine
    where = f"engine = '{value}' in {config.source}"
    try:
        if isinstance(value, Path):
            from buildver.versions.build_version import load_build_version

            loaded = load_build_version(value)
            return PlaceEngine(loaded.record.engine_version, where, loaded)
        version, release_only = release_or_version(value)
        return PlaceEngine(version, where, None, release_only)
    except BuildverError as exc:
        raise ConfigError(f"{config.source}: engine '{value}': {exc}") from None


def engine_build_record(version: EngineVersion) -> BuildVersion:
    """The Build.version an engine known only by its version would have: its compatible changelist its changelist,
    so that CompatibleWith() follows (patch 0 for Epic's builds, the real patch for a licensee's)."""
    from buildver.versions.build_version import BuildVersion

    return BuildVersion(
        version.major,
        version.minor,
        version.patch,
        version.changelist,
        version.changelist,
        version.licensee,
        branch_name=version.branch,
    )


def release_or_version(text: str) -> tuple[EngineVersion, bool]:
    """``--against``'s and the ``engine`` setting's text: a release (``5.3``, as EngineAssociation and ``UE_5.3``
    name engines: :func:`release_engine_version`) or a whole engine version (``5.3.2-123+++UE5+Main``), and whether
    only the release is known; InvalidVersionError for anything else."""
    from buildver.errors import InvalidVersionError
    from buildver.versions.engine_version import EngineVersion

    parts = text.strip().split(".")
    if len(parts) == 2 and all(part.isascii() and part.isdigit() and len(part) <= 5 for part in parts):
        return release_engine_version(int(parts[0]), int(parts[1])), True
    try:
        return EngineVersion.parse(text), False
    except ValueError as exc:
        raise InvalidVersionError(f"{exc}; or a release, MAJOR.MINOR (5.3)") from None


# -- the Python face -----------------------------------------------------------------------------------------------


def current_engine_version(file: str | os.PathLike[str] | None = None) -> EngineVersion:
    """FEngineVersion::Current() of the engine in use here: ``file``'s, else the engine of the place the current
    folder is in (in a game, the engine its ``.uproject`` names, never the game's own version); EngineLookupError
    when no engine is known."""
    if file is not None:
        from buildver.versions.current import load_version_file

        return load_version_file(file).record.engine_version
    engine = place_engine(find_place())
    if engine.version is None:
        raise EngineLookupError(engine.missing or "no engine is known here")
    return engine.version


def compatible_engine_version(file: str | os.PathLike[str] | None = None) -> EngineVersion:
    """FEngineVersion::CompatibleWith() of the engine in use here (as :func:`current_engine_version` finds it): the
    oldest version that engine can load data of."""
    if file is not None:
        from buildver.versions.current import load_version_file

        return load_version_file(file).record.compatible_engine_version
    engine = place_engine(find_place())
    if engine.version_file is not None:
        return engine.version_file.record.compatible_engine_version
    if engine.version is None:
        raise EngineLookupError(engine.missing or "no engine is known here")
    return engine_build_record(engine.version).compatible_engine_version


def game_versions(start: Path | None = None) -> GameProject | None:
    """The game's own versions (ProjectVersion, Android's and iOS's) of the game the folder ``start`` (default: the
    current folder) is in, for its engine's release; None outside a game."""
    place = find_place(start)
    if place.kind is not PlaceKind.GAME or place.project is None:
        return None
    from buildver.projects.game import read_game_project

    return read_game_project(place.project, place_engine(place))
