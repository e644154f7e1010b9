"""Which rules update-local follows: those of the engine being stamped, or buildver's own outside an engine.

Unreal's ``RunUAT UpdateLocalVersion`` changed between engine releases: 4.18 and 4.19 patch Version.h; from
4.20 it is left alone (UBT compiles the values in from Build.version) and the licensee flag comes from the
absence of Epic's internal marker file; 4.21 stores ``-Build``; 4.24.1 keeps the compatible changelist; 4.26
moves the marker and stops writing empty BuildId and BuildVersion keys; 5.0 stops stamping MetaData.cs; 5.3
removes BuildURL; 5.8 reads ``uebp_CodeCL``.
Each generation is one ``RuleSet`` in ``GENERATIONS``; ``docs/unreal-rules.md`` cites the engine source of every
value. This module decides; ``update_local`` applies; nothing here reads more than a folder's existence.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath

from buildver.errors import UsageError

__all__ = [
    "BUILDVER_RULES",
    "GENERATIONS",
    "HEADER_HINT",
    "METADATA_CS",
    "VERSION_H",
    "ChosenRules",
    "CompatibleDefault",
    "LicenseeDefault",
    "MetadataVersion",
    "RuleSet",
    "WriterRules",
    "choose_header",
    "choose_rules",
    "engine_root",
    "rule_set_named",
]

VERSION_H = PurePosixPath("Engine/Source/Runtime/Launch/Resources/Version.h")
"""The engine's version header, relative to the engine root (the folder that holds ``Engine/``)."""

METADATA_CS = PurePosixPath("Engine/Source/Programs/DotNETCommon/MetaData.cs")
"""Where UAT 4.18 to 4.27 finds MetaData.cs, relative to the engine root."""

_OLD_MARKER = PurePosixPath("Engine/Build/NotForLicensees/EpicInternal.txt")
_RESTRICTED_MARKER = PurePosixPath("Engine/Restricted/NotForLicensees/Build/EpicInternal.txt")


class LicenseeDefault(Enum):
    """Where IsLicenseeVersion comes from when neither ``--licensee`` nor ``--no-licensee`` is given."""

    FLAG_ONLY = "0 unless -Licensee is given"
    MARKER = "1 unless Epic's internal marker file exists"
    KEEP = "the file's value"


class MetadataVersion(Enum):
    """Whether and how UAT stamps MetaData.cs's AssemblyInformationalVersion (``metadata_cs``)."""

    NONE = "not stamped"
    FROM_VERSION_H = "M.m.p from Version.h, the changelist padded to 7 digits, +branch"
    FROM_BUILD_VERSION = "M.m.p-Changelist+BranchName from the new Build.version"


class CompatibleDefault(Enum):
    """What CompatibleChangelist becomes when no compatible changelist is given."""

    CHANGELIST = "the changelist"
    KEEP = "the file's value"


@dataclass(frozen=True, slots=True)
class WriterRules:
    """What a writer does whatever the file held (UBT's BuildVersion.Write differs by engine version)."""

    always_written: frozenset[str] = frozenset()
    """Written even when empty: inserted with the empty value when the file lacks them."""
    omitted_when_empty: frozenset[str] = frozenset()
    """Not written when empty: removed from the file when their new value is empty."""
    ends_at_brace: bool = False
    """Nothing follows the closing brace (UBT's JsonWriter writes no final newline)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """What one generation of UAT's UpdateLocalVersion writes (or, for ``buildver``, buildver's own rules)."""

    name: str
    """``"4.18"``, ``"4.24.1"`` …: the first engine release with these rules; ``"buildver"`` outside an engine."""
    first: tuple[int, int, int]
    patches_version_h: bool
    """Version.h is patched with VersionFileUpdater's line rules (the 4.18 ``#define`` layout)."""
    generates_header: bool
    """Outside an engine: a header is generated (or patched) by default."""
    licensee_default: LicenseeDefault
    licensee_marker: PurePosixPath | None
    """The file whose existence means "Epic's own build", relative to the engine root."""
    compatible_default: CompatibleDefault
    resets_compatible_when_licensee_changes: bool
    compatible_from_code_cl: bool
    """``uebp_CodeCL`` is the compatible changelist when ``-CompatibleCL`` is not given."""
    build_version_key: bool
    """``-Build`` is stored in Build.version's BuildVersion (4.18 puts it only into Version.h)."""
    clears_build_url: bool
    metadata: MetadataVersion
    writer: WriterRules
    """How that generation's UBT BuildVersion.Write lays the file out: the keys it always writes or leaves out
    when empty, and no final newline (buildver's own rules keep the file's keys and ending as they are)."""
    source: str
    """Where the rules were read (repository and file of a public engine mirror), for ``docs/`` and ``--json``."""

    @property
    def is_engine(self) -> bool:
        """Whether these are an engine generation's rules (not buildver's own)."""
        return self is not BUILDVER_RULES

    def describe(self) -> str:
        """``Unreal 5.0 UpdateLocalVersion`` or ``buildver's own rules``."""
        return f"Unreal {self.name} UpdateLocalVersion" if self.is_engine else "buildver's own rules"


_BUILD_FIELDS = frozenset({"BuildId", "BuildVersion"})

# Each generation is the one before it with only what that release's UAT changed.
_4_18 = RuleSet(
    name="4.18",
    first=(4, 18, 0),
    patches_version_h=True,
    generates_header=False,
    licensee_default=LicenseeDefault.FLAG_ONLY,
    licensee_marker=None,
    compatible_default=CompatibleDefault.CHANGELIST,
    resets_compatible_when_licensee_changes=False,
    compatible_from_code_cl=False,
    build_version_key=False,
    clears_build_url=False,
    metadata=MetadataVersion.FROM_VERSION_H,
    writer=WriterRules(frozenset({"BuildId"}), frozenset(), ends_at_brace=True),
    source="4.18.3 and 4.19.0 to 4.19.2 AutomationUtils/UE4Build.cs and UnrealBuildTool/System/BuildVersion.cs "
    "(windystrife/UnrealEngine_NVIDIAGameWorks@0f9675a; Mu-L/TracerInteractiveUE4Plugins@29eaed5, @f7ea9e5)",
)

_4_20 = dataclasses.replace(
    _4_18,
    name="4.20",
    first=(4, 20, 0),
    patches_version_h=False,
    licensee_default=LicenseeDefault.MARKER,
    licensee_marker=_OLD_MARKER,
    metadata=MetadataVersion.FROM_BUILD_VERSION,
    source="4.20.0 to 4.20.3 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@eae592e, @ad51a75)",
)

_4_21 = dataclasses.replace(
    _4_20,
    name="4.21",
    first=(4, 21, 0),
    build_version_key=True,
    writer=WriterRules(_BUILD_FIELDS, frozenset(), ends_at_brace=True),
    source="4.21.0 to 4.24.0 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@feabf8b, @cb12528, @a1b2cb3, @1a72e75)",
)

_4_24_1 = dataclasses.replace(
    _4_21,
    name="4.24.1",
    first=(4, 24, 1),
    compatible_default=CompatibleDefault.KEEP,
    resets_compatible_when_licensee_changes=True,
    source="4.24.1 to 4.25.4 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@1c76196, @c9d14e6; Monocluar/Games202-UBT@90717b5)",
)

_4_26 = dataclasses.replace(
    _4_24_1,
    name="4.26",
    first=(4, 26, 0),
    licensee_marker=_RESTRICTED_MARKER,
    writer=WriterRules(frozenset(), _BUILD_FIELDS, ends_at_brace=True),
    source="4.26.0 to 4.27.2 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@172ab38, @58273c5; Stiiiff/EphemereEngine@c96df6b)",
)

_5_0 = dataclasses.replace(
    _4_26,
    name="5.0",
    first=(5, 0, 0),
    metadata=MetadataVersion.NONE,
    source="5.0.3 and 5.1.1 AutomationUtils/UnrealBuild.cs and BuildVersion.cs "
    "(songjihu/UnrealEngine-5.0.3-release@344a5f1, elmachotroso/unreal_devtoolbox@9d0f90c)",
)

_5_3 = dataclasses.replace(
    _5_0,
    name="5.3",
    first=(5, 3, 0),
    clears_build_url=True,
    writer=WriterRules(frozenset(), _BUILD_FIELDS | {"BuildURL"}, ends_at_brace=True),
    source="5.3.2 to 5.6.1 AutomationUtils/UnrealBuild.cs and BuildVersion.cs (he-yulong/UnrealEngine-5.3@686f844, "
    "kykz159/Project-Ghost@068120c)",
)

_5_8 = dataclasses.replace(
    _5_3,
    name="5.8",
    first=(5, 8, 0),
    compatible_from_code_cl=True,
    source="5.8.0 Scripts/UpdateLocalVersion.Automation.cs, AutomationUtils/UnrealBuild.cs and BuildVersion.cs "
    "(unicorn2022/UE5.8.0@5d9a05c)",
)

GENERATIONS: tuple[RuleSet, ...] = (_4_18, _4_20, _4_21, _4_24_1, _4_26, _5_0, _5_3, _5_8)
"""Every generation of UpdateLocalVersion, oldest first; an engine uses the last one not newer than itself."""

BUILDVER_RULES = RuleSet(
    name="buildver",
    first=(0, 0, 0),
    patches_version_h=False,
    generates_header=True,
    licensee_default=LicenseeDefault.KEEP,
    licensee_marker=None,
    compatible_default=CompatibleDefault.KEEP,
    resets_compatible_when_licensee_changes=True,
    compatible_from_code_cl=True,
    build_version_key=True,
    clears_build_url=True,
    metadata=MetadataVersion.NONE,
    writer=WriterRules(),
    source="buildver: 4.25+ values, the file's own keys kept, a generated header",
)
"""Outside an engine tree: Unreal 5's values, nothing inferred from Epic's files, and a generated header."""


@dataclass(frozen=True, slots=True)
class ChosenRules:
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


def engine_root(version_path: Path) -> Path | None:
    """The engine root when ``version_path`` is ``<root>/Engine/Build/Build.version`` beside ``Engine/Source/``."""
    build_folder = version_path.parent
    engine = build_folder.parent
    # Windows and macOS checkouts may differ in case: compare names as the file system would match them.
    if build_folder.name.lower() != "build" or engine.name.lower() != "engine":
        return None
    return engine.parent if (engine / "Source").is_dir() else None


_RULES_NAME = re.compile(r"(\d{1,5})\.(\d{1,5})(?:\.(\d{1,5}))?")


def rule_set_named(text: str, what: str) -> RuleSet:
    """The rules ``--rules`` or the configuration names: ``buildver``, or an engine version ``X.Y[.Z]``."""
    if text == "buildver":
        return BUILDVER_RULES
    match = _RULES_NAME.fullmatch(text)
    if match is None:
        known = ", ".join(rules.name for rules in GENERATIONS)
        raise UsageError(f"{what}: {text!r} is not an engine version X.Y[.Z] or 'buildver' (generations: {known})")
    return _generation_of((int(match[1]), int(match[2]), int(match[3] or 0)))


def _generation_of(version: tuple[int, int, int]) -> RuleSet:
    chosen = GENERATIONS[0]
    for rules in GENERATIONS:
        if rules.first <= version:
            chosen = rules
    return chosen


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
    rules = _generation_of(version)
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
