"""A project switched to another engine: the ``.uproject``'s EngineAssociation rewritten in place, every other byte
kept (``UnrealVersionSelector -switchversion`` without the reformatting).

Unreal's ``FDesktopPlatformBase::SetEngineIdentifierForProject`` (4.22 to 5.8) loads the whole file into an
``FJsonObject``, sets the field with ``SetStringField`` and writes the object again with ``TJsonWriter``: the value
of an existing key is replaced where it is (``TMap::Add`` on a key it holds, ``TSet::TryReplaceExisting``), and a key
the file lacks is added after the last member. buildver does the same by position (``descriptor_edit.with_members``,
which ``bump`` uses for a plugin's Version and VersionName too): the encoding, byte-order mark, key order and every
other character stay as they were. ``docs/project-rules.md`` §7 cites the sources.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from buildver.changes import FileChange, apply_changes, locked, read_existing, remove_leftovers
from buildver.errors import DescriptorError, EngineLookupError
from buildver.projects.descriptor_edit import with_members
from buildver.projects.engine import ProjectEngine, association_of, project_engine, read_registry_builds
from buildver.text import unencodable
from buildver.versions.json_layout import encode_string

__all__ = ["Switch", "plan_switch", "switch_engine", "with_association"]

_KEY = "EngineAssociation"


@dataclass(frozen=True, slots=True)
class Switch:
    """A planned switch: the ``.uproject``'s change, the engine the new association leads to on this machine (None
    when it leads nowhere here and ``force`` was given), and why it leads nowhere."""

    project: Path
    previous: str
    association: str
    change: FileChange
    engine: ProjectEngine | None
    problem: str = ""

    def to_json(self) -> dict[str, object]:
        """The switch as a JSON object."""
        return {
            "project": str(self.project),
            "previous_association": self.previous,
            "association": self.association,
            "changed": self.change.changed,
            "engine_root": None if self.engine is None else str(self.engine.root),
            "resolved_by": None if self.engine is None else self.engine.how,
            "problem": self.problem or None,
        }


def plan_switch(
    project: Path,
    association: str,
    *,
    force: bool = False,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> Switch:
    """The ``.uproject`` at ``project`` with EngineAssociation ``association``; nothing is written.

    The association is resolved as :func:`project_engine` resolves a project's (a release, a GUID or other
    registered name, a path relative to the project's folder, or empty); one this machine cannot resolve is an
    EngineLookupError unless ``force``. A file that is no descriptor is a DescriptorError.
    """
    shown = str(project)
    try:
        data = read_existing(project)
    except OSError as exc:
        raise DescriptorError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        raise DescriptorError(f"{shown}: no such file")
    try:
        previous = association_of(data, shown)
    except EngineLookupError as exc:
        raise DescriptorError(str(exc)) from None
    new = with_association(data, association, shown)
    engine, problem = None, ""
    try:
        engine = project_engine(
            project, platform=platform, environ=environ, home=home, registry=registry, association=association
        )
    except EngineLookupError as exc:
        if not force:
            raise EngineLookupError(f"{exc}; to write it all the same, pass --force") from None
        problem = str(exc)
    return Switch(project, previous, association, FileChange(project, data, new), engine, problem)


def switch_engine(
    project: Path,
    association: str,
    *,
    force: bool = False,
    dry_run: bool = False,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> Switch:
    """:func:`plan_switch`, then (unless ``dry_run``) the ``.uproject`` written all or nothing under its folder's lock,
    after what killed runs left beside it is removed (also when it already names the association); WriteError when
    it cannot be (the file is then as it was)."""
    switch = plan_switch(
        project, association, force=force, platform=platform, environ=environ, home=home, registry=registry
    )
    if not dry_run:
        with locked(project.parent):
            remove_leftovers(project.parent, project.name)
            if switch.change.changed:
                apply_changes([switch.change])  # refuses a file changed since it was read
    return switch


def with_association(data: bytes, association: str, shown: str) -> bytes:
    """A ``.uproject``'s bytes with EngineAssociation set to ``association``, every other byte kept; DescriptorError
    when the file cannot be edited in place (not a descriptor, or JSON that Unreal reads but buildver cannot place)."""
    if unencodable(association) is not None:
        raise EngineLookupError(f"{association!r}: an association that is not UTF-8 text cannot be written to {shown}")
    new = with_members(data, {_KEY: encode_string(association)}, shown, _KEY)
    if association_of(new, shown) != association:  # pragma: no cover - a guard against a wrong edit
        raise DescriptorError(f"{shown}: the edited file does not read back as EngineAssociation {association!r}")
    return new
