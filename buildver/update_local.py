"""Unreal's ``UpdateLocalVersion`` for build machines: stamp Build.version and its C header, all or nothing.

Unreal's rules (``../shared/reference/ue-build-versioning.md`` section 2, 4.25/5.x semantics):

- Changelist = ``-CL``, else ``uebp_CL`` (buildver: else git's commit count).
- CompatibleChangelist = ``-CompatibleCL``, else ``uebp_CodeCL`` (5.8), else kept, except that it is reset to 0
  when the licensee flag changes ("it corresponds to a different P4 server"); 0 from a source means "not given".
- IsPromotedBuild = ``-Promoted`` != 0, default 1. BranchName = ``-Branch``, else ``EscapePath(uebp_BuildRoot_P4)``.
- BuildVersion = ``-Build``, cleared when absent; BuildId is kept; BuildURL is cleared (5.8).
- The header is patched with 4.18's line rules, or generated whole (see ``header.py``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from buildver.build_version import FIELDS, BuildVersion, VersionFile, load_build_version
from buildver.changes import (
    FileChange,
    apply_changes,
    locked,
    open_for_append,
    read_existing,
    remove_leftovers,
    transaction,
)
from buildver.config import Config
from buildver.depot import (
    Repository,
    resolve_branch,
    resolve_changelist,
    resolve_compatible_changelist,
)
from buildver.errors import HeaderError, InvalidVersionError, UsageError, WriteError
from buildver.vcs import repository_writes

__all__ = [
    "UpdatePlan",
    "UpdateRequest",
    "find_header",
    "github_output",
    "plan_header",
    "plan_update",
    "update_local",
    "version_file_lock",
]

ENGINE_VERSION_H = Path("Source") / "Runtime" / "Launch" / "Resources" / "Version.h"


@dataclass(frozen=True, slots=True)
class UpdateRequest:
    """What the caller asked for; None means "not given" (Unreal's defaults and sources apply)."""

    changelist: int | None = None
    compatible_changelist: int | None = None
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


@dataclass(frozen=True, slots=True)
class UpdatePlan:
    """The new record, where each value came from, and the file changes that store it."""

    version_file: VersionFile
    record: BuildVersion
    sources: Mapping[str, str]
    changes: tuple[FileChange, ...] = field(default_factory=tuple)

    @property
    def changed_fields(self) -> list[tuple[str, object, object]]:
        """``(name, old, new)`` for every Build.version field whose value changes."""
        old = self.version_file.record
        return [
            (f.name, getattr(old, f.attribute), getattr(self.record, f.attribute))
            for f in FIELDS
            if getattr(old, f.attribute) != getattr(self.record, f.attribute)
        ]


def find_header(version_path: Path, flag: Path | None, configured: Path | None) -> Path:
    """``--header``, else the configured header, else Unreal's Version.h when it exists, else BuildVersion.h."""
    if flag is not None:
        return flag
    if configured is not None:
        return configured
    build_folder = version_path.parent
    # Engine/Build/Build.version → Engine/Source/...; Build/Build.version beside Engine/ → Engine/Source/...
    for engine_folder in (build_folder.parent, build_folder.parent / "Engine"):
        candidate = engine_folder / ENGINE_VERSION_H
        if candidate.is_file():
            return candidate
    return build_folder / "BuildVersion.h"


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
    repository = Repository(version_file.path.parent)
    changelist = resolve_changelist(request.changelist, environment, repository)
    branch = resolve_branch(request.branch, request.depot_path, environment, repository, config.repository_name)
    licensee = old.is_licensee_version if request.licensee is None else request.licensee
    sources = {"Changelist": changelist.source, "BranchName": branch.source}
    compatible_source = resolve_compatible_changelist(request.compatible_changelist, environment)
    if compatible_source is not None:
        compatible = compatible_source.value
        sources["CompatibleChangelist"] = compatible_source.source
    elif licensee != old.is_licensee_version:
        compatible = 0
        sources["CompatibleChangelist"] = "reset: the licensee flag changed (Unreal 4.25+)"
    else:
        compatible = old.compatible_changelist
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
        compatible_changelist=compatible,
        is_licensee_version=licensee,
        is_promoted_build=request.promoted != 0,
        branch_name=branch.value,
        build_version=request.build or "",
        build_id=build_id,
        build_url="",  # Unreal 5.8 passes no URL and so removes it; buildver writes it empty
    )
    changes = [version_file.change_to(record)]
    if not request.skip_header:
        header = find_header(version_file.path, request.header, config.header)
        changes.append(plan_header(header, record, request.build))
    return UpdatePlan(version_file, record, sources, tuple(changes))


def _new_record(version_file: VersionFile, **changes: object) -> BuildVersion:
    """The file's record with ``changes``; a value Build.version cannot hold is an error naming the file."""
    try:
        return version_file.record.replace(**changes)
    except InvalidVersionError as exc:
        raise InvalidVersionError(f"{version_file.path}: cannot store the new values: {exc}") from exc


def plan_header(path: Path, record: BuildVersion, build: str | None) -> FileChange:
    """The change that brings the header at ``path`` in line with ``record``."""
    from buildver.header import header_for

    try:
        old = read_existing(path)
    except OSError as exc:
        raise HeaderError(f"{path}: cannot read the header ({exc.strerror})") from exc
    try:
        existing = None if old is None else old.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HeaderError(f"{path}: byte {exc.start}: the header is not UTF-8") from exc
    return FileChange(path, old, header_for(existing, record, build, str(path)).encode("utf-8"))


def update_local(
    version_path: Path,
    request: UpdateRequest,
    *,
    config: Config,
    environment: Mapping[str, str] | None = None,
    dry_run: bool = False,
) -> tuple[UpdatePlan, list[Path]]:
    """Plan and (unless ``dry_run``) apply the update under the version folder's lock; return what was written.

    When ``GITHUB_OUTPUT`` names a file, it is opened before anything is written (so that a file that cannot
    take the outputs fails the run while every file is unchanged) and the outputs are appended after.
    """
    environment = os.environ if environment is None else environment
    with contextlib.ExitStack() as stack:
        outputs = None
        if not dry_run and environment.get("GITHUB_OUTPUT"):
            outputs = stack.enter_context(_open_github_output(Path(environment["GITHUB_OUTPUT"])))
        with version_file_lock(version_path, write=not dry_run) as journal, repository_writes(allowed=not dry_run):
            version_file = load_build_version(version_path)
            plan = plan_update(version_file, request, config=config, environment=environment)
            if journal is None:
                return plan, []
            for change in plan.changes:  # a run killed before its journal leaves these beside each target
                remove_leftovers(change.path.parent, change.path.name)
            written = apply_changes(plan.changes, force=request.force, journal=journal)
        if outputs is not None:
            _append_outputs(outputs, github_output(plan.record))
        return plan, written


def version_file_lock(version_path: Path, *, write: bool) -> contextlib.AbstractContextManager[Path | None]:
    """The lock on the version file's folder; when ``write``, also the recovery of killed runs and the journal.

    A run that only reads (``--dry-run``, ``header --check``) takes the lock and changes nothing, not even the
    completion of a killed run's writes. A version file whose folder does not exist is reported as missing.
    """
    if not version_path.parent.is_dir():
        load_build_version(version_path)  # raises the version file's own error: missing, or not in a folder
    return transaction(version_path.parent) if write else locked(version_path.parent)


def github_output(record: BuildVersion) -> str:
    """The lines update-local appends to ``$GITHUB_OUTPUT``: version, changelist, compatible_changelist, branch.

    A value holding a newline would otherwise start a new output of the attacker's choosing, so such values use
    GitHub's multi-line form with a random delimiter.
    """
    values = {
        "version": str(record.engine_version),
        "changelist": str(record.changelist),
        "compatible_changelist": str(record.effective_compatible_changelist),
        "branch": record.branch_name,
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
