"""``buildver bump``: a new release's version written into every file that holds it, all or nothing.

Where the command stands is ``buildver.projects.place``'s answer (as ``update-local`` finds it), and decides the files:

- **an engine tree, a game with a Build.version of its own, another project**: Build.version's MajorVersion,
  MinorVersion and PatchVersion (every other value kept: the changelists only with ``reset_changelist``); the
  header update-local writes there, as ``buildver header`` writes it for the new file; in an engine tree, Version.h's
  ``ENGINE_MAJOR/MINOR/PATCH_VERSION`` and the ``static_assert`` 5.3 on repeats them (the engine reports those:
  ``docs/unreal-rules.md`` §3.11); in a game, each configured template that names ``{Major}``, ``{Minor}`` or
  ``{Patch}`` (ProjectVersion, Android's StoreVersion), stamped as update-local stamps it. A template of changelists
  alone (``{Changelist}``) is left to update-local: a bump does not change it.
- **a plugin's own repository**: the ``.uplugin``'s VersionName, and its Version one higher (``plugin_version``).

Never backwards without ``allow_backwards``; ``--set`` to the version already there changes nothing. Every file is
planned first and written in one all-or-nothing write under the version folder's lock, with the journal
(``stamp.update.write_planned``, as update-local writes).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from buildver.changes import FileChange, apply_changes, locked, read_existing, remove_leftovers
from buildver.errors import DescriptorError, HeaderError, InvalidVersionError, UsageError, VersionBackwardsError
from buildver.projects.place import PlaceKind, find_place, stamped_version_file
from buildver.stamp.rules import HEADER_HINT
from buildver.versions.build_version import FIELDS, parse_build_version

if TYPE_CHECKING:
    from buildver.versions.build_version import VersionFile
    from buildver.versions.config import Config

__all__ = [
    "PARTS",
    "BumpPlan",
    "BumpRequest",
    "bump_release",
    "next_release",
    "plan_plugin_bump",
    "plan_version_file_bump",
]

PARTS = ("major", "minor", "patch")
"""What ``bump`` raises: the rest after it goes to 0, as semantic versioning and Unreal's releases do."""

_RELEASE_FIELDS = frozenset({"Major", "Minor", "Patch"})
"""The template fields a release changes (``versions.config.TEMPLATE_FIELDS`` has the changelists too)."""

Release = tuple[int, int, int]


class BumpRequest(NamedTuple):
    """What the caller asked for: a part to raise, or the release to set (exactly one)."""

    part: str | None = None
    """``major``, ``minor`` or ``patch``."""
    release: Release | None = None
    """``--set M.m.p``."""
    reset_changelist: bool = False
    """Changelist and CompatibleChangelist to 0: a new release's changelists come from its own builds."""
    allow_backwards: bool = False
    skip_header: bool = False
    """Leave every header alone (Version.h's numbers included), as update-local's ``--skip-header``."""
    force: bool = False
    """Clear a read-only flag first, as Unreal's MakeFileWriteable."""


class BumpPlan(NamedTuple):
    """The version before and after, the change of every file, and one line per value that changes."""

    kind: PlaceKind
    where: str
    """Where the command stands, in words (``Place.describe``)."""
    path: Path
    """The file that holds the version: the Build.version, or the plugin's ``.uplugin``."""
    old: str
    new: str
    changes: tuple[FileChange, ...] = ()
    lines: tuple[str, ...] = ()
    """``<file>: <value> <old> -> <new>``, for every value that changes."""
    warnings: tuple[str, ...] = ()
    """What the caller should hear before anything is written (a header that will not compile, say)."""

    @property
    def same_version(self) -> bool:
        """Whether the version stays as it was (``--set`` to the version there)."""
        return self.old == self.new


def next_release(numbers: Release, part: str) -> Release:
    """``numbers`` with ``part`` one higher and the parts after it 0.

    >>> next_release((5, 3, 2), "minor")
    (5, 4, 0)
    """
    major, minor, patch = numbers
    if part == "major":
        return major + 1, 0, 0
    if part == "minor":
        return major, minor + 1, 0
    if part == "patch":
        return major, minor, patch + 1
    raise UsageError(f"{part!r} is not one of {', '.join(PARTS)}")


def _dotted(numbers: tuple[int, ...]) -> str:
    return ".".join(map(str, numbers))


def _check(request: BumpRequest) -> None:
    """UsageError unless ``request`` names exactly one of a part and a release."""
    if (request.part is None) == (request.release is None):
        raise UsageError("give either the part to raise (major, minor or patch) or --set MAJOR.MINOR.PATCH")


def _target(current: Release, request: BumpRequest, path: Path) -> Release:
    """The release ``request`` asks for from ``current``; VersionBackwardsError for an older one (unless allowed)."""
    _check(request)
    if request.release is None:
        assert request.part is not None
        return next_release(current, request.part)
    if request.release < current and not request.allow_backwards:
        raise VersionBackwardsError(
            f"{path}: {_dotted(request.release)} is older than {_dotted(current)}, the version there, and a version "
            "never goes backwards; to write it all the same, pass --allow-backwards"
        )
    return request.release


def bump_release(
    start: Path | None,
    request: BumpRequest,
    *,
    file: str | os.PathLike[str] | None = None,
    config: Config | None = None,
    dry_run: bool = False,
) -> tuple[BumpPlan, list[Path]]:
    """Plan the bump where ``start`` (default: the current folder) stands, or of ``file`` (a Build.version, or a
    plugin's ``.uplugin``: a plugin inside a game stands in the game), and (unless ``dry_run``) write every file it
    changes, all or nothing; return the plan and the files written."""
    from buildver.file_names import PLUGIN_SUFFIX
    from buildver.versions.config import load_config

    _check(request)
    if file is not None and os.fspath(file).lower().endswith(PLUGIN_SUFFIX):
        return _bump_plugin(Path(os.path.abspath(file)), request, "", dry_run=dry_run)
    if config is None:
        config = load_config(start)
    place = find_place(start, config=config, below=False)
    if file is None and place.kind is PlaceKind.PLUGIN and place.plugin is not None:
        return _bump_plugin(place.plugin, request, place.describe(), dry_run=dry_run)
    version_path = stamped_version_file(file, start=start, config=config, place=place)
    where = place.describe() if file is None else ""  # --file names the file, wherever the command stands
    from buildver.stamp.update import write_planned

    return write_planned(
        version_path,
        lambda version_file: plan_version_file_bump(version_file, request, config=config, kind=place.kind, where=where),
        write=not dry_run,
        force=request.force,
    )


# -- a Build.version and what follows it -------------------------------------------------------------------------


def plan_version_file_bump(
    version_file: VersionFile, request: BumpRequest, *, config: Config, kind: PlaceKind, where: str = ""
) -> BumpPlan:
    """The bump of ``version_file`` and of the files that follow it (module docstring); nothing is written."""
    path = version_file.path
    old = version_file.record
    current = (old.major_version, old.minor_version, old.patch_version)
    target = _target(current, request, path)
    major, minor, patch = target
    try:
        record = old.replace(major_version=major, minor_version=minor, patch_version=patch)
    except InvalidVersionError as exc:
        raise InvalidVersionError(f"{path}: cannot hold {_dotted(target)}: {exc}") from None
    if request.reset_changelist:
        record = record.replace(changelist=0, compatible_changelist=0)
    changes: list[FileChange] = []
    lines: list[str] = []
    new_file = version_file
    if record != old:
        changes.append(version_file.change_to(record))
        lines += [
            f"{path}: {field.name} {_as_in_file(getattr(old, field.attribute))} -> "
            f"{_as_in_file(getattr(record, field.attribute))}"
            for field in FIELDS
            if getattr(old, field.attribute) != getattr(record, field.attribute)
        ]
        new_file = parse_build_version(changes[0].new, path)
    # The header and Version.h's numbers follow from the record alone: planned even when the version stays, so
    # that --set to the version there brings them in line (and changes nothing when they are).
    headers, header_lines, warnings = _plan_headers(new_file, target, request, config)
    changes += headers
    lines += header_lines
    game_config = _release_templates(config) if target != current else None
    if game_config is not None:
        from buildver.stamp.game_files import plan_game_files

        game = plan_game_files(path, record, game_config, allow_backwards=request.allow_backwards)
        changes += [planned.change for planned in game]
        lines += [planned.summary for planned in game if planned.change.changed]
    changed = tuple(change for change in changes if change.changed)
    return BumpPlan(
        kind, where, path, _dotted(current), _dotted(target), changed, tuple(lines), warnings if changed else ()
    )


def _as_in_file(value: object) -> str:
    """A Build.version value as the file holds it (strings in JSON quotes, flags as 0 or 1)."""
    import json

    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(int(value)) if isinstance(value, bool) else str(value)


def _plan_headers(
    version_file: VersionFile, target: Release, request: BumpRequest, config: Config
) -> tuple[list[FileChange], list[str], tuple[str, ...]]:
    """The header update-local writes, as ``buildver header`` writes it for the new Build.version (the rules of
    the new release, as the guard chooses them for the staged file), when it is there or configured; in an engine
    tree, Version.h's numbers too."""
    from buildver.stamp.header import header_macros, plan_header, recorded_build, rules_and_header, set_engine_numbers
    from buildver.stamp.update import hotfix_warning

    record = version_file.record
    path = version_file.path
    chosen, header = rules_and_header(version_file, config=config, skip=request.skip_header)
    changes: list[FileChange] = []
    # A header that is neither there nor configured is update-local's to create (the guard asks for neither).
    if header is not None and (config.header is not None or _read(header) is not None):
        must_exist = header == chosen.version_h and chosen.rules.patches_version_h
        macros = header_macros(chosen, path, config)
        changes.append(
            plan_header(header, record, recorded_build(record), must_exist=must_exist, macros=macros, version_path=path)
        )
    lines: list[str] = []
    version_h = chosen.version_h
    if version_h is not None and not (request.skip_header or config.skip_header):
        planned = next((change for change in changes if change.path == version_h), None)
        old = planned.old if planned is not None else _read(version_h)
        if old is not None:
            from buildver.stamp.metadata_cs import version_h_numbers

            base = planned.new if planned is not None else old
            text = _decoded(base, version_h)
            try:
                new = set_engine_numbers(text, target, str(version_h))
            except HeaderError as exc:
                raise HeaderError(f"{exc}; {HEADER_HINT}") from None
            before = version_h_numbers(text)
            if version_h_numbers(new) != target:  # pragma: no cover - a guard against a wrong edit
                raise HeaderError(f"{version_h}: the edited file does not read back as {_dotted(target)}")
            change = FileChange(version_h, old, new.encode("utf-8"))
            changes = [change if existing.path == version_h else existing for existing in changes]
            if planned is None:
                changes.append(change)
            if before != target:
                shown = "not all set" if before is None else _dotted(before)
                lines.append(f"{version_h}: ENGINE_MAJOR/MINOR/PATCH_VERSION {shown} -> {_dotted(target)}")
    return changes, lines, hotfix_warning(chosen, record, header)


def _read(path: Path) -> bytes | None:
    try:
        return read_existing(path)
    except OSError as exc:
        raise HeaderError(f"{path}: cannot read the header ({exc.strerror}); {HEADER_HINT}") from exc


def _decoded(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HeaderError(f"{path}: byte {exc.start}: the header is not UTF-8; {HEADER_HINT}") from exc


def _release_templates(config: Config) -> Config | None:
    """The settings with only the game templates a release changes (those naming {Major}, {Minor} or {Patch}),
    or None when there is none."""
    import string

    def names_release(template: str | None) -> bool:
        return template is not None and any(
            name in _RELEASE_FIELDS for _, name, _, _ in string.Formatter().parse(template)
        )

    project_version = config.project_version if names_release(config.project_version) else None
    store_version = config.android_store_version if names_release(config.android_store_version) else None
    if project_version is None and store_version is None:
        return None
    return config._replace(project_version=project_version, android_store_version=store_version)


# -- a plugin's own repository -----------------------------------------------------------------------------------


def plan_plugin_bump(plugin: Path, data: bytes, request: BumpRequest, *, where: str = "") -> BumpPlan:
    """The ``.uplugin`` (its bytes ``data``) with VersionName raised as ``request`` asks and Version one higher;
    nothing is written. A VersionName of 1 to 3 whole numbers (``1.0``, ``2.29.0``) keeps its count of numbers where
    it can; any other can only be replaced (``--set``)."""
    from buildver.projects.plugin_version import MAX_PLUGIN_VERSION, parse_plugin_version, with_plugin_version

    _check(request)
    if request.reset_changelist:
        raise UsageError(f"{plugin}: a plugin's .uplugin has no changelist to reset (drop --reset-changelist)")
    current = parse_plugin_version(data, plugin)
    numbers = _name_numbers(current.version_name)
    if numbers is None:
        if request.release is None:
            raise DescriptorError(
                f"{plugin}: VersionName {current.version_name!r} is not 1 to 3 whole numbers (MAJOR.MINOR.PATCH), so "
                f"buildver cannot raise its {request.part}; give the new one with --set MAJOR.MINOR.PATCH"
            )
        name = _dotted(request.release)  # nothing to order it by: any release replaces it
    else:
        padded = (*numbers, 0, 0)[: len(PARTS)]
        target = _target((padded[0], padded[1], padded[2]), request, plugin)
        if target == padded:
            return BumpPlan(PlaceKind.PLUGIN, where, plugin, current.version_name, current.version_name)
        name = _dotted(target) if request.release is not None else _dotted(target[: _count(numbers, target)])
    plan = BumpPlan(PlaceKind.PLUGIN, where, plugin, current.version_name, name)
    if current.version >= MAX_PLUGIN_VERSION:
        raise DescriptorError(
            f"{plugin}: Version {current.version} is the largest Unreal's int32 holds: it cannot grow"
        )
    version = current.version + 1
    new = with_plugin_version(data, version, name, plugin)
    lines = (
        f"{plugin}: VersionName {_as_in_file(current.version_name)} -> {_as_in_file(name)}",
        f"{plugin}: Version {current.version} -> {version}",
    )
    return plan._replace(changes=(FileChange(plugin, data, new),), lines=lines)


def _name_numbers(name: str) -> tuple[int, ...] | None:
    """A VersionName's numbers when it is 1 to 3 whole numbers (ASCII digits) joined by dots, else None."""
    parts = name.split(".")
    if not 1 <= len(parts) <= len(PARTS) or not all(part.isascii() and part.isdigit() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def _count(numbers: tuple[int, ...], target: Release) -> int:
    """How many numbers the new VersionName shows: as many as the old one, and every one that is not 0."""
    shown = max((index + 1 for index, number in enumerate(target) if number), default=1)
    return max(len(numbers), shown)


def _bump_plugin(plugin: Path, request: BumpRequest, where: str, *, dry_run: bool) -> tuple[BumpPlan, list[Path]]:
    """:func:`plan_plugin_bump` of the ``.uplugin`` at ``plugin``, written (unless ``dry_run``) under its folder's
    lock; a run killed before the rename left its temporary file beside it, which is removed first."""
    if not plugin.parent.is_dir():
        raise DescriptorError(f"{plugin}: no such file")
    with locked(plugin.parent):
        try:
            data = read_existing(plugin)
        except OSError as exc:
            raise DescriptorError(f"{plugin}: cannot read the file ({exc.strerror or exc})") from None
        if data is None:
            raise DescriptorError(f"{plugin}: no such file")
        plan = plan_plugin_bump(plugin, data, request, where=where)
        if dry_run or not plan.changes:
            return plan, []
        remove_leftovers(plugin.parent, plugin.name)
        return plan, apply_changes(plan.changes, force=request.force)  # refuses a file changed since it was read
