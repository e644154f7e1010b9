"""Which rules update-local follows: those of the engine being stamped, or buildver's own outside an engine.

The rules of each UAT generation are data in ``buildver.versions.generations``; this module chooses one for a
version file (``--rules``, the configuration, or the tree's own engine version) and the header it writes.
``buildver.stamp.update`` applies; nothing here reads more than a folder's existence.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import NamedTuple

from buildver.versions.engine_tree import engine_root
from buildver.versions.generations import (
    BUILDVER_RULES,
    GENERATIONS,
    MetadataVersion,
    RuleSet,
    generation_of,
    rule_set_named,
)

__all__ = [
    "HEADER_HINT",
    "METADATA_CS",
    "VERSION_H",
    "ChosenRules",
    "choose_header",
    "choose_rules",
]

VERSION_H = PurePosixPath("Engine/Source/Runtime/Launch/Resources/Version.h")
"""The engine's version header, relative to the engine root (the folder that holds ``Engine/``)."""

METADATA_CS = PurePosixPath("Engine/Source/Programs/DotNETCommon/MetaData.cs")
"""Where UAT 4.18 to 4.27 finds MetaData.cs, relative to the engine root."""


class ChosenRules(NamedTuple):
    """The rules update-local follows for one version file, and why."""

    rules: RuleSet
    reason: str
    engine_root: Path | None
    """The folder that holds ``Engine/`` when the version file is an engine's, else None."""

    def licensee_marker_exists(self) -> bool:
        """Whether Epic's internal marker file (the path these rules' UAT checks) exists in the engine."""
        marker = self.rules.licensee_marker
        return self.engine_root is not None and marker is not None and (self.engine_root / marker).is_file()

    @property
    def version_h(self) -> Path | None:
        """The engine's Version.h (whether or not it exists), or None outside an engine."""
        return None if self.engine_root is None else self.engine_root / VERSION_H

    @property
    def metadata_cs(self) -> Path | None:
        """The MetaData.cs these rules stamp (whether or not it exists), or None."""
        if self.engine_root is None or self.rules.metadata is MetadataVersion.NONE:
            return None
        return self.engine_root / METADATA_CS


def choose_rules(
    version_path: Path,
    version: tuple[int, int, int],
    *,
    forced: str | None = None,
    configured: str | None = None,
) -> ChosenRules:
    """The rules for the version file at ``version_path`` holding MajorVersion.MinorVersion.PatchVersion ``version``
    (the release matters: 4.24.1 changed the compatible changelist's rule).

    ``--rules`` (``forced``) beats the configuration's ``rules``, which beats the layout: an engine tree follows
    its own version's UAT, anything else buildver's rules.
    """
    root = engine_root(version_path)
    for text, what in ((forced, "--rules"), (configured, "configured rules")):
        if text is not None:
            rules = rule_set_named(text, what)
            return ChosenRules(rules, f"{what} {text}", root)
    if root is None:
        return ChosenRules(
            BUILDVER_RULES, "not an engine tree (no Engine/Build/Build.version beside Engine/Source/)", None
        )
    rules = generation_of(version)
    stamped = ".".join(map(str, version))
    if version < GENERATIONS[0].first:
        why = f"engine tree at {stamped}, older than any generation buildver knows: the oldest, {rules.name}"
    elif rules is GENERATIONS[-1] and version[:2] != rules.first[:2]:
        why = f"engine tree at {stamped}, newer than {rules.name}: the newest rules buildver knows"
    else:
        why = f"engine tree at {stamped}: the rules UAT has had since {rules.name}"
    return ChosenRules(rules, why, root)


HEADER_HINT = "to leave the header alone, pass --skip-header or set skip-header = true in [tool.buildver]"
"""How every header error ends: the two ways to leave the header alone."""


def choose_header(
    chosen: ChosenRules,
    version_path: Path,
    *,
    flag: Path | None = None,
    configured: Path | None = None,
    skip: bool = False,
) -> Path | None:
    """The header update-local writes, or None: ``--skip-header``; else ``--header``; else the configured one;
    else the engine's Version.h (4.18 rules); else BuildVersion.h beside a version file that is not an engine's
    (whatever rules are forced there).

    Engines from 4.20 on get no header unless one is named: their UAT leaves Version.h alone.
    """
    if skip:
        return None
    if flag is not None:
        return flag
    if configured is not None:
        return configured
    if chosen.rules.patches_version_h and chosen.version_h is not None:
        return chosen.version_h
    # Outside an engine there is no Version.h to leave alone, whatever rules are forced: the header is buildver's.
    if chosen.rules.generates_header or chosen.engine_root is None:
        return version_path.parent / "BuildVersion.h"
    return None
