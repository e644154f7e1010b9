"""Unreal's ``UpdateLocalVersion`` for build machines: stamp Build.version and its C header, all or nothing.

The rules are those of the engine being stamped (``buildver.versions.generations``: one rule set per generation
of UAT, chosen by ``buildver.stamp.rules``), or buildver's own outside an engine tree. For every generation
(``docs/unreal-rules.md`` cites the sources):

- Changelist = ``-CL``, else ``uebp_CL``, else a Perforce CI variable, else git's commit count (``depot``).
- BranchName = ``-Branch``, else ``EscapePath(uebp_BuildRoot_P4)``, else CI or git.
- IsPromotedBuild = ``-Promoted`` != 0, default 1.
- IsLicenseeVersion, CompatibleChangelist, BuildVersion, BuildURL, the keys written and the header: per rule set.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO, NamedTuple, Protocol, TypeVar

from buildver.changes import (
    FileChange,
    JournalProject,
    apply_changes,
    locked,
    open_for_append,
    read_existing,
    remove_leftovers,
    transaction,
)
from buildver.errors import BuildverError, HeaderError, InvalidVersionError, UsageError, WriteError
from buildver.stamp.depot import (
    Repository,
    Sourced,
    find_last_code_change,
    resolve_branch,
    resolve_changelist,
    resolve_compatible_changelist,
)
from buildver.stamp.header import header_macros, plan_header, recorded_build, rules_and_header
from buildver.stamp.rules import ChosenRules
from buildver.versions.build_version import FIELDS, BuildVersion, VersionFile, load_build_version, parse_build_version
from buildver.versions.config import Config
from buildver.versions.generations import CompatibleDefault, LicenseeDefault, MetadataVersion

__all__ = [
    "HeaderPlan",
    "UpdatePlan",
    "UpdateRequest",
    "github_output",
    "hotfix_warning",
    "journal_project",
    "plan_update",
    "update_local",
    "version_file_lock",
    "write_header",
    "write_planned",
]


class UpdateRequest(NamedTuple):
    """What the caller asked for; None means "not given" (Unreal's defaults and sources apply)."""

    changelist: int | None = None
    compatible_changelist: int | str | None = None
    """A changelist (0: the rules' default), or ``"last-code-change"``: the last code change in git."""
    build: str | None = None
    licensee: bool | None = None
    promoted: int = 1
    branch: str | None = None
    depot_path: str | None = None
    skip_header: bool = False
    header: Path | None = None
    new_build_id: bool = False
    build_id: str | None = None
    force: bool = False
    rules: str | None = None
    """``--rules``: ``X.Y`` forces that engine generation's rules, ``buildver`` buildver's own."""


class UpdatePlan(NamedTuple):
    """The new record, where each value came from, and the file changes that store it."""

    version_file: VersionFile
    record: BuildVersion
    sources: Mapping[str, str]
    rules: ChosenRules
    changes: tuple[FileChange, ...] = ()
    game_changes: tuple[str, ...] = ()
    """One line per game config value that changes (``project-version``, ``android-store-version``)."""
    warnings: tuple[str, ...] = ()
    """What the caller should hear before anything is written (a header that will not compile, say)."""

    @property
    def new_version_file(self) -> VersionFile:
        """The Build.version as it will be: its keys and layout, with the new record."""
        change = self.changes[0]
        assert change.path == self.version_file.path  # plan_update plans the version file first
        return parse_build_version(change.new, change.path)

    @property
    def changed_fields(self) -> list[tuple[str, object, object]]:
        """``(name, old, new)`` for every Build.version field whose value changes."""
        old = self.version_file.record
        return [
            (f.name, getattr(old, f.attribute), getattr(self.record, f.attribute))
            for f in FIELDS
            if getattr(old, f.attribute) != getattr(self.record, f.attribute)
        ]


def plan_update(
    version_file: VersionFile,
    request: UpdateRequest,
    *,
    config: Config,
    environment: Mapping[str, str],
) -> UpdatePlan:
    """The new Build.version record and the changes to Build.version and the header; nothing is written."""
    if request.new_build_id and request.build_id is not None:
        raise UsageError("--new-build-id and --build-id cannot be used together")
    old = version_file.record
    chosen, header = rules_and_header(
        version_file, config=config, flag=request.header, rules=request.rules, skip=request.skip_header
    )
    rules = chosen.rules
    repository = Repository(version_file.path.parent)
    changelist = resolve_changelist(request.changelist, environment, repository)
    branch = resolve_branch(request.branch, request.depot_path, environment, repository, config.repository_name)
    licensee = _licensee(request.licensee, chosen, old)
    written = (version_file.path, header, config.header, chosen.metadata_cs)  # by this run, or by update-local
    stamped = [path for path in written if path is not None]
    compatible = _compatible_changelist(
        request, environment, chosen, old, changelist, licensee.value, config=config, git=(repository, stamped)
    )
    sources = {
        "Changelist": changelist.source,
        "BranchName": branch.source,
        "IsLicenseeVersion": licensee.source,
        "CompatibleChangelist": compatible.source,
    }
    build_id = old.build_id
    if request.build_id is not None:
        build_id = request.build_id
        sources["BuildId"] = "--build-id"
    elif request.new_build_id:
        import uuid  # only here: a fresh BuildId is rarely asked for

        build_id = str(uuid.uuid4())
        sources["BuildId"] = "--new-build-id"
    record = _new_record(
        version_file,
        changelist=changelist.value,
        compatible_changelist=compatible.value,
        is_licensee_version=licensee.value,
        is_promoted_build=request.promoted != 0,
        branch_name=branch.value,
        # 4.18 to 4.20 have no BuildVersion key (their rewrite drops one): buildver leaves it; from 4.21 on -Build
        # is stored, and cleared when absent.
        build_version=(request.build or "") if rules.build_version_key else old.build_version,
        build_id=build_id,
        # 5.3 on pass no URL, so BuildURL goes; older engines' writers do not know the key (their rewrite would
        # drop it): buildver keeps it, as it keeps every key it is not told to change.
        build_url="" if rules.clears_build_url else old.build_url,
    )
    changes = [version_file.change_to(record, rules.writer)]
    if header is not None:
        # A 4.18 engine's own Version.h is patched, never created: UAT fails when it is missing.
        must_exist = header == chosen.version_h and rules.patches_version_h
        macros = header_macros(chosen, version_file.path, config)
        changes.append(
            plan_header(
                header, record, request.build, must_exist=must_exist, macros=macros, version_path=version_file.path
            )
        )
    metadata = _plan_metadata(chosen, record, changes)
    if metadata is not None:
        changes.append(metadata)
    game_changes: tuple[str, ...] = ()
    if config.project_version is not None or config.android_store_version is not None:
        # Only when a template asks: the game modules (ini reading and editing, the per-release rules) and the
        # project search cost about 9 ms, near half of update-local's own time, on every tree without them.
        from buildver.stamp.game_files import plan_game_files

        game = plan_game_files(version_file.path, record, config)
        changes += [planned.change for planned in game]
        game_changes = tuple(planned.summary for planned in game if planned.change.changed)
    warnings = hotfix_warning(chosen, record, header)
    return UpdatePlan(version_file, record, sources, chosen, tuple(changes), game_changes, warnings)


def hotfix_warning(chosen: ChosenRules, record: BuildVersion, header: Path | None) -> tuple[str, ...]:
    """4.18's Version.h stops the compile of an Epic hotfix (patch above 0) whose compatible changelist is its own
    changelist ("ENGINE_COMPATIBLE_CL_VERSION must be manually defined for hotfix builds"), which 4.18's UAT writes
    when -CompatibleCL is not given. buildver writes the same, and says so first (``docs/unreal-rules.md`` §3.3)."""
    if header is None or header != chosen.version_h or not chosen.rules.patches_version_h:
        return ()
    hotfix = record.patch_version > 0 and not record.is_licensee_version and record.changelist > 0
    if not hotfix or record.effective_compatible_changelist != record.changelist:
        return ()
    return (
        f"{header}: a {record.major_version}.{record.minor_version}.{record.patch_version} hotfix whose "
        f"compatible changelist is its own ({record.changelist}), as UAT writes it: Version.h's \"#error "
        'ENGINE_COMPATIBLE_CL_VERSION must be manually defined for hotfix builds" will stop the compile; give '
        "the release's changelist with --compatible-cl (UAT's -CompatibleCL=)",
    )


def _plan_metadata(chosen: ChosenRules, record: BuildVersion, changes: list[FileChange]) -> FileChange | None:
    """MetaData.cs with its AssemblyInformationalVersion stamped, for the engines whose UAT does (None otherwise,
    and when the tree has no MetaData.cs: there is nothing to stamp)."""
    path = chosen.metadata_cs
    if path is None:
        return None
    from buildver.stamp.metadata_cs import informational_version, set_informational_version, version_h_numbers

    old = _read_text(path, "MetaData.cs")
    if old is None:
        return None
    numbers = (record.major_version, record.minor_version, record.patch_version)
    if chosen.rules.metadata is MetadataVersion.FROM_VERSION_H and chosen.version_h is not None:
        # 4.18 takes MAJOR.MINOR.PATCH from Version.h (the one being written, else the one on disk).
        planned = next((change.new for change in changes if change.path == chosen.version_h), None)
        header = planned.decode("utf-8") if planned is not None else _read_text(chosen.version_h, "Version.h")
        numbers = (header and version_h_numbers(header)) or numbers
    version = informational_version(
        numbers,
        record.changelist,
        record.branch_name,
        padded_changelist=chosen.rules.metadata is MetadataVersion.FROM_VERSION_H,
    )
    new = set_informational_version(old, version, str(path))
    return FileChange(path, old.encode("utf-8"), new.encode("utf-8"))


def _read_text(path: Path, what: str) -> str | None:
    """A UTF-8 text file's contents, or None when it does not exist; a HeaderError when it cannot be read."""
    try:
        data = read_existing(path)
        return None if data is None else data.decode("utf-8")
    except OSError as exc:
        raise HeaderError(f"{path}: cannot read {what} ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise HeaderError(f"{path}: byte {exc.start}: {what} is not UTF-8") from exc


def _licensee(flag: bool | None, chosen: ChosenRules, old: BuildVersion) -> Sourced[bool]:
    """IsLicenseeVersion: the flag, else what the rules' UAT decides without it."""
    if flag is not None:
        return Sourced(flag, "--licensee" if flag else "--no-licensee")
    default = chosen.rules.licensee_default
    if default is LicenseeDefault.FLAG_ONLY:
        return Sourced(False, f"{chosen.rules.name}: 0 unless -Licensee is given")
    if default is LicenseeDefault.MARKER:
        marker = chosen.rules.licensee_marker
        if chosen.licensee_marker_exists():
            return Sourced(False, f"{chosen.rules.name}: {marker} exists (Epic's own build)")
        return Sourced(True, f"{chosen.rules.name}: no {marker} in the engine (a licensee build)")
    return Sourced(old.is_licensee_version, "kept")


def _compatible_changelist(
    request: UpdateRequest,
    environment: Mapping[str, str],
    chosen: ChosenRules,
    old: BuildVersion,
    changelist: Sourced[int],
    licensee: bool,
    *,
    config: Config,
    git: tuple[Repository, list[Path]],
) -> Sourced[int]:
    """CompatibleChangelist: given (0 means not given; or the last code change in ``git``'s repository, where the
    files update-local writes are not code), else the rules' default, reset or kept."""
    rules = chosen.rules

    def last_code_change(asked_by: str) -> Sourced[int]:
        from buildver.code_filter import CodeFilter  # only when asked: most runs never look for code changes

        repository, stamped = git
        return find_last_code_change(repository, changelist, CodeFilter(config.code_filter), asked_by, stamped)

    given = resolve_compatible_changelist(
        request.compatible_changelist,
        environment,
        code_changelist=rules.compatible_from_code_cl,
        setting=config.compatible_changelist,
        last_code_change=last_code_change,
    )
    if given is not None:
        return given
    # UAT before 4.25 starts from the changelist, and -CompatibleCL=0 replaces it with 0, which is not written.
    explicit_zero = request.compatible_changelist == 0
    if rules.compatible_default is CompatibleDefault.CHANGELIST and changelist.value > 0 and not explicit_zero:
        return Sourced(changelist.value, f"{rules.name}: the changelist, as -CompatibleCL is not given")
    if rules.resets_compatible_when_licensee_changes and licensee != old.is_licensee_version:
        return Sourced(0, f"reset: the licensee flag changed ({rules.name} rules)")
    return Sourced(old.compatible_changelist, "kept")


def _new_record(version_file: VersionFile, **changes: object) -> BuildVersion:
    """The file's record with ``changes``; a value Build.version cannot hold is an error naming the file."""
    try:
        return version_file.record.replace(**changes)
    except InvalidVersionError as exc:
        raise InvalidVersionError(f"{version_file.path}: cannot store the new values: {exc}") from exc


def update_local(
    version_path: Path,
    request: UpdateRequest,
    *,
    config: Config,
    environment: Mapping[str, str] | None = None,
    dry_run: bool = False,
    on_warning: Callable[[str], None] | None = None,
) -> tuple[UpdatePlan, list[Path]]:
    """Plan and (unless ``dry_run``) apply the update under the version folder's lock; return what was written.

    ``on_warning`` hears each of the plan's warnings once the plan stands and before anything is written (a dry run
    writes nothing: its caller reads ``plan.warnings``).

    When ``GITHUB_OUTPUT`` names a file, it is opened before anything is written (so that a file that cannot
    take the outputs fails the run while every file is unchanged) and the outputs are appended after: the stamped
    version's, and in a game the game's own versions as ``show`` reads them once the stamp is written.
    """
    environment = os.environ if environment is None else environment
    with contextlib.ExitStack() as stack:
        outputs: list[BinaryIO] = []

        def open_outputs(plan: UpdatePlan) -> None:
            if on_warning is not None:
                for warning in plan.warnings:
                    on_warning(warning)
            # Opened once the plan stands and before anything is written: a GITHUB_OUTPUT that cannot take the
            # outputs fails the run with every file unchanged, and a run that fails to plan creates no file.
            if environment.get("GITHUB_OUTPUT"):
                outputs.append(stack.enter_context(_open_github_output(Path(environment["GITHUB_OUTPUT"]))))

        plan, written = write_planned(
            version_path,
            lambda version_file: plan_update(version_file, request, config=config, environment=environment),
            write=not dry_run,
            force=request.force,
            before_writing=open_outputs,
        )
        if outputs:
            game = _game_outputs(version_path, on_warning)
            for stream in outputs:
                _append_outputs(stream, github_output(plan.record, game))
        return plan, written


GAME_OUTPUTS = {
    "ProjectVersion": "project_version",
    "AndroidVersionCodeArmv7": "android_version_code_armv7",
    "AndroidVersionCodeArm64": "android_version_code_arm64",
    "AndroidVersionCodeX86": "android_version_code_x86",
    "AndroidVersionCodeX64": "android_version_code_x64",
    "AndroidVersionCodeBundle": "android_version_code_bundle",
    "AndroidVersionName": "android_version_name",
    "IOSVersionInfo": "ios_version_info",
    "IOSBundleVersion": "ios_bundle_version",
}
"""The game's versions update-local gives GitHub Actions, by the name ``show`` gives each (``GAME_FIELD_NAMES``) and
the output's name (the Action declares the same outputs)."""


def _game_outputs(version_path: Path, on_warning: Callable[[str], None] | None) -> dict[str, str]:
    """In a game, its own versions as ``show`` reads them now (after the stamp), under their output names; a value
    Unreal computes but the config does not give is left out. Outside a game, none.

    Read after every file is written: a game whose versions cannot be read is a warning, never a failure of a run
    whose files are already stamped.
    """
    from buildver.projects.place import game_versions

    try:
        game = game_versions(Path(os.path.abspath(version_path)).parent)
    except BuildverError as exc:
        if on_warning is not None:
            on_warning(f"the game's versions are not in GITHUB_OUTPUT: {exc}")
        return {}
    if game is None:
        return {}
    fields = game.fields()
    return {
        output: str(fields[name].value)
        for name, output in GAME_OUTPUTS.items()
        if name in fields and fields[name].value is not None
    }


class HeaderPlan(NamedTuple):
    """What ``buildver header`` does: the rules, and the change to the header (None: these rules write none)."""

    rules: ChosenRules
    change: FileChange | None

    @property
    def changes(self) -> tuple[FileChange, ...]:
        return () if self.change is None else (self.change,)


def write_header(
    version_path: Path, *, config: Config, header: Path | None = None, write: bool = True, force: bool = False
) -> tuple[HeaderPlan, list[Path]]:
    """Regenerate (or patch) the header from the Build.version at ``version_path``; ``write=False`` only plans."""

    def plan(version_file: VersionFile) -> HeaderPlan:
        chosen, path = rules_and_header(version_file, config=config, flag=header)
        if path is None:
            return HeaderPlan(chosen, None)
        record = version_file.record
        macros = header_macros(chosen, version_file.path, config)
        change = plan_header(path, record, recorded_build(record), macros=macros, version_path=version_file.path)
        return HeaderPlan(chosen, change)

    return write_planned(version_path, plan, write=write, force=force)


class _Planned(Protocol):
    @property
    def changes(self) -> tuple[FileChange, ...]: ...


Planned = TypeVar("Planned", bound=_Planned)


def write_planned(
    version_path: Path,
    plan: Callable[[VersionFile], Planned],
    *,
    write: bool,
    force: bool = False,
    before_writing: Callable[[Planned], None] | None = None,
) -> tuple[Planned, list[Path]]:
    """The one way buildver writes files planned from a Build.version: under its folder's lock, load it, plan, and
    (when ``write``) remove what killed runs left beside each target, then apply every change or none (journal).

    A run that only plans (``--dry-run``, ``--check``) takes the lock and changes nothing, not even the completion
    of a killed run's writes. ``before_writing`` runs once the plan stands, before anything is written.
    """
    project = journal_project(version_path) if write else None
    with version_file_lock(version_path, write=write, project=project) as journal:
        planned = plan(load_build_version(version_path))
        if journal is None:
            return planned, []
        if before_writing is not None:
            before_writing(planned)
        for change in planned.changes:  # a run killed before its journal leaves these beside each target
            remove_leftovers(change.path.parent, change.path.name)
        return planned, apply_changes(planned.changes, force=force, journal=journal, project=project)


def version_file_lock(
    version_path: Path, *, write: bool, project: JournalProject | None = None
) -> contextlib.AbstractContextManager[Path | None]:
    """The lock on the version file's folder; when ``write``, also the recovery of killed runs and the journal.

    A run that only reads (``--dry-run``, ``header --check``) takes the lock and changes nothing, not even the
    completion of a killed run's writes. A version file whose folder does not exist is reported as missing.
    A writing run passes the project it writes in (:func:`journal_project`), which its journal covers.
    """
    if not version_path.parent.is_dir():
        load_build_version(version_path)  # raises the version file's own error: missing, or not in a folder
    return transaction(version_path.parent, project=project) if write else locked(version_path.parent)


def journal_project(version_path: Path) -> JournalProject | None:
    """The game a write from ``version_path`` stamps, as its journal must cover it: the folder of the ``.uproject``
    at or above the version file's folder, where update-local finds the ini files (``Config/``, which may be a
    symbolic link to a folder several games share), whatever folder below it holds Build.version
    (``Versioning/Build/``, ``Config/``). None outside a game: the journal's project is then the folder holding
    its folder."""
    from buildver.file_names import find_project

    project = find_project(Path(os.path.abspath(version_path)).parent)
    if project is None:
        return None
    return JournalProject(project.parent, (project.parent / "Config",))


def github_output(record: BuildVersion, game: Mapping[str, str] | None = None) -> str:
    """The lines update-local appends to ``$GITHUB_OUTPUT``: version, changelist, compatible_changelist, branch,
    then the game's versions (``GAME_OUTPUTS``) when there are some.

    A value holding a newline would otherwise start a new output of the attacker's choosing, so such values use
    GitHub's multi-line form with a random delimiter.
    """
    values = {
        "version": str(record.engine_version),
        "changelist": str(record.changelist),
        "compatible_changelist": str(record.effective_compatible_changelist),
        "branch": record.branch_name,
        **(game or {}),
    }
    lines = []
    for name, value in values.items():
        if "\n" in value or "\r" in value:
            delimiter = f"buildver_{os.urandom(8).hex()}"
            lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            lines.append(f"{name}={value}\n")
    return "".join(lines)


def _open_github_output(path: Path) -> BinaryIO:
    """The file GitHub Actions names in ``GITHUB_OUTPUT``, opened for appending (and reading its last byte)."""
    try:
        return open_for_append(path)  # refuses a FIFO or a device before anything is written
    except OSError as exc:
        raise WriteError(f"{path}: cannot append to GITHUB_OUTPUT ({exc.strerror}); nothing was written") from exc


def _append_outputs(stream: BinaryIO, text: str) -> None:
    # Outputs are lines: after a last line without its newline, ours would run into it and change its value.
    stream.seek(0, os.SEEK_END)
    if stream.tell():
        stream.seek(-1, os.SEEK_END)
        if stream.read(1) != b"\n":
            text = "\n" + text
    try:
        stream.write(text.encode("utf-8"))
    except OSError as exc:
        raise WriteError(f"{stream.name}: cannot append to GITHUB_OUTPUT ({exc.strerror})") from exc
