"""What each generation of Unreal's ``RunUAT UpdateLocalVersion`` writes, as data (no I/O).

Unreal's UpdateLocalVersion changed between engine releases: 4.18 and 4.19 patch Version.h; from
4.20 it is left alone (UBT compiles the values in from Build.version) and the licensee flag comes from the
absence of Epic's internal marker file; 4.21 stores ``-Build``; 4.24.1 keeps the compatible changelist; 4.26
moves the marker and stops writing empty BuildId and BuildVersion keys; 5.0 stops stamping MetaData.cs; 5.3
removes BuildURL; 5.8 reads ``uebp_CodeCL``.
Each generation is one ``RuleSet`` in ``GENERATIONS``; ``docs/unreal-rules.md`` cites the engine source of every
value. Which generation a tree gets is decided in ``buildver.stamp.rules``; ``buildver.stamp.update`` applies it.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import PurePosixPath
from typing import NamedTuple

from buildver.errors import UsageError
from buildver.versions.build_version import WriterRules

__all__ = [
    "BUILDVER_RULES",
    "GENERATIONS",
    "CompatibleDefault",
    "LicenseeDefault",
    "MetadataVersion",
    "RuleSet",
    "generation_of",
    "rule_set_named",
]

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


class RuleSet(NamedTuple):
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
_ALWAYS = frozenset(
    {
        "MajorVersion",
        "MinorVersion",
        "PatchVersion",
        "Changelist",
        "CompatibleChangelist",
        "IsLicenseeVersion",
        "IsPromotedBuild",
        "BranchName",
    }
)
"""What every generation's UBT ``BuildVersion.Write`` (``WriteProperties``) writes whatever the file held."""

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
    writer=WriterRules(_ALWAYS | {"BuildId"}, frozenset(), ends_at_brace=True),
    source="4.18.3 and 4.19.0 to 4.19.2 AutomationUtils/UE4Build.cs and UnrealBuildTool/System/BuildVersion.cs "
    "(windystrife/UnrealEngine_NVIDIAGameWorks@0f9675a; Mu-L/TracerInteractiveUE4Plugins@29eaed5, @f7ea9e5)",
)

_4_20 = _4_18._replace(
    name="4.20",
    first=(4, 20, 0),
    patches_version_h=False,
    licensee_default=LicenseeDefault.MARKER,
    licensee_marker=_OLD_MARKER,
    metadata=MetadataVersion.FROM_BUILD_VERSION,
    source="4.20.0 to 4.20.3 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@eae592e, @ad51a75)",
)

_4_21 = _4_20._replace(
    name="4.21",
    first=(4, 21, 0),
    build_version_key=True,
    writer=WriterRules(_ALWAYS | _BUILD_FIELDS, frozenset(), ends_at_brace=True),
    source="4.21.0 to 4.24.0 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@feabf8b, @cb12528, @a1b2cb3, @1a72e75)",
)

_4_24_1 = _4_21._replace(
    name="4.24.1",
    first=(4, 24, 1),
    compatible_default=CompatibleDefault.KEEP,
    resets_compatible_when_licensee_changes=True,
    source="4.24.1 to 4.25.4 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@1c76196, @c9d14e6; Monocluar/Games202-UBT@90717b5)",
)

_4_26 = _4_24_1._replace(
    name="4.26",
    first=(4, 26, 0),
    licensee_marker=_RESTRICTED_MARKER,
    writer=WriterRules(_ALWAYS, _BUILD_FIELDS, ends_at_brace=True),
    source="4.26.0 to 4.27.2 AutomationUtils/UE4Build.cs and BuildVersion.cs "
    "(Mu-L/TracerInteractiveUE4Plugins@172ab38, @58273c5; Stiiiff/EphemereEngine@c96df6b)",
)

_5_0 = _4_26._replace(
    name="5.0",
    first=(5, 0, 0),
    metadata=MetadataVersion.NONE,
    source="5.0.3 and 5.1.1 AutomationUtils/UnrealBuild.cs and BuildVersion.cs "
    "(songjihu/UnrealEngine-5.0.3-release@344a5f1, elmachotroso/unreal_devtoolbox@9d0f90c)",
)

_5_3 = _5_0._replace(
    name="5.3",
    first=(5, 3, 0),
    clears_build_url=True,
    writer=WriterRules(_ALWAYS, _BUILD_FIELDS | {"BuildURL"}, ends_at_brace=True),
    source="5.3.2 to 5.6.1 AutomationUtils/UnrealBuild.cs and BuildVersion.cs (he-yulong/UnrealEngine-5.3@686f844, "
    "kykz159/Project-Ghost@068120c)",
)

_5_8 = _5_3._replace(
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


_RULES_NAME = re.compile(r"(\d{1,5})\.(\d{1,5})(?:\.(\d{1,5}))?")


def rule_set_named(text: str, what: str) -> RuleSet:
    """The rules ``--rules`` or the configuration names: ``buildver``, or an engine version ``X.Y[.Z]``."""
    if text == "buildver":
        return BUILDVER_RULES
    match = _RULES_NAME.fullmatch(text)
    if match is None:
        known = ", ".join(rules.name for rules in GENERATIONS)
        raise UsageError(f"{what}: {text!r} is not an engine version X.Y[.Z] or 'buildver' (generations: {known})")
    return generation_of((int(match[1]), int(match[2]), int(match[3] or 0)))


def generation_of(version: tuple[int, int, int]) -> RuleSet:
    """The generation an engine at ``version`` (major, minor, patch) belongs to: the last one not newer than it."""
    chosen = GENERATIONS[0]
    for rules in GENERATIONS:
        if rules.first <= version:
            chosen = rules
    return chosen
