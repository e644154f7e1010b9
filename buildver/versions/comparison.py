"""What ``buildver compare`` and ``buildver compatible`` report: the outcome, and the rule that decided it.

The outcomes are EngineVersion's (get_newest, is_compatible_with); this module only names the rule that decided
them, for people and scripts (``docs/compare-rules.md``). No printing here.
"""

from __future__ import annotations

from typing import NamedTuple

from buildver.versions.engine_version import EngineVersion, VersionComparison, VersionComponent

__all__ = ["RULES", "Comparison", "Compatibility", "check_compatibility", "compare_versions"]


RULES = {
    "newer-release": "major.minor.patch differ: the first component that differs decides",
    "newer-changelist": "the same release and vendor: the higher changelist is newer",
    "same-version": "the same release, vendor and changelist (the branch is not compared): neither is newer",
    "changelist-0": "a changelist of 0 is never compared; IsCompatibleWith: such a build is compatible both ways",
    "different-vendors": "changelists of Epic and of a licensee are never compared",
}
"""Every rule ``compare`` and ``compatible`` name, with what it says (Unreal's GetNewest and IsCompatibleWith)."""


class Comparison(NamedTuple):
    """GetNewest's answer for two versions and the rule that decided it."""

    first: EngineVersion
    second: EngineVersion
    newer: VersionComparison
    component: VersionComponent | None
    rule: str

    @property
    def same_version(self) -> bool:
        """Whether the two are the same version: the same release, vendor and changelist (the branch is not
        compared), as ``5.3.0`` and ``5.3.0`` are, although GetNewest never compares a changelist of 0."""
        return _identity(self.first) == _identity(self.second)

    @property
    def reason(self) -> str:
        """Why, in words."""
        if self.component is not None:
            newer = self.first if self.newer is VersionComparison.FIRST else self.second
            return f"{_label(newer)} is newer by {self.component.name.lower()}"
        if self.rule == "changelist-0":
            return f"{_without_changelist(self.first, self.second)}, and a changelist of 0 is never compared"
        if self.rule == "different-vendors":
            licensee = "the first" if self.first.licensee else "the second"
            return f"{licensee} is a licensee's build, the other Epic's: their changelists are never compared"
        return "the same major.minor.patch, vendor and changelist; the branch is not compared"

    def sentence(self) -> str:
        """``compare``'s line: the newer one, or why neither is."""
        first, second = _label(self.first), _label(self.second)
        if self.newer is VersionComparison.NEITHER:
            ordered = "are the same version" if self.same_version else "are not ordered by Unreal's rules"
            return f"neither: {first} and {second} {ordered} ({self.rule}: {self.reason})"
        newer, older = (first, second) if self.newer is VersionComparison.FIRST else (second, first)
        assert self.component is not None
        return (
            f"{self.newer.name.lower()}: {newer} is newer than {older} by {self.component.name.lower()} ({self.rule})"
        )

    def to_json(self) -> dict[str, object]:
        """``compare --json``: the versions in ToString form, with the licensee flag that form leaves out."""
        return {
            **_versions_json(self.first, self.second),
            "newer": self.newer.name.lower(),
            "component": None if self.component is None else self.component.name.lower(),
            "rule": self.rule,
            "reason": self.reason,
        }


class Compatibility(NamedTuple):
    """IsCompatibleWith's answer for an engine at ``first`` and data saved by ``second``, and the rule that decided.

    A refusal means the engine cannot load the data; a pass means only that this rule passed: between different
    releases, a package's object and custom versions still decide (``docs/compare-rules.md``).
    """

    first: EngineVersion
    second: EngineVersion
    compatible: bool
    rule: str
    reason: str

    def sentence(self) -> str:
        """``compatible``'s line."""
        first, second = _label(self.first), _label(self.second)
        if not self.compatible:
            return f"not compatible: {first} cannot load data saved by {second} ({self.rule}: {self.reason})"
        # IsCompatibleWith is one of the linker's checks, not the last: a package also records the object and custom
        # versions it was saved with, and another release may refuse those (5.0.3-0 passes this rule for 5.6.1's
        # data, then refuses its LegacyFileVersion -9). So a pass says only that this rule passed.
        line = f"compatible: {first} passes the engine-version check on data saved by {second}"
        line += f" ({self.rule}: {self.reason})"
        if self.releases_differ:
            line += (
                f"; {_release(self.first)} and {_release(self.second)} are different releases: each package's object "
                f"and custom versions still decide whether {first} loads it"
            )
        return line

    @property
    def releases_differ(self) -> bool:
        """Whether the two sides are different releases (major.minor: every hotfix of a release writes the same
        object and custom versions), whose packages' versions may differ: then IsCompatibleWith's pass does not
        settle whether a package loads."""
        return (self.first.major, self.first.minor) != (self.second.major, self.second.minor)

    def to_json(self) -> dict[str, object]:
        """``compatible --json``: the versions as ``compare --json`` gives them, the answer and the rule."""
        return {
            **_versions_json(self.first, self.second),
            "compatible": self.compatible,
            "rule": self.rule,
            "reason": self.reason,
            "releases_differ": self.releases_differ,
        }


def compare_versions(first: EngineVersion, second: EngineVersion) -> Comparison:
    """GetNewest(first, second) with the rule that decided it."""
    newer, component = EngineVersion.get_newest(first, second)
    if component is VersionComponent.CHANGELIST:
        rule = "newer-changelist"
    elif component is not None:
        rule = "newer-release"
    elif not (first.has_changelist and second.has_changelist):
        rule = "changelist-0"
    elif first.licensee != second.licensee:
        rule = "different-vendors"
    else:
        rule = "same-version"
    return Comparison(first, second, newer, component, rule)


def check_compatibility(first: EngineVersion, second: EngineVersion) -> Compatibility:
    """IsCompatibleWith(first, second) with the rule that decided it."""
    compatible = first.is_compatible_with(second)
    # IsCompatibleWith looks at the changelists before anything else: 4.19.0-0 loads data saved by 5.3.0-7.
    if not (first.has_changelist and second.has_changelist):
        reason = f"{_without_changelist(first, second)}: compatible both ways"
        return Compatibility(first, second, compatible, "changelist-0", reason)
    comparison = compare_versions(first, second)
    return Compatibility(first, second, compatible, comparison.rule, comparison.reason)


def _label(version: EngineVersion) -> str:
    """The version in ToString form, marked when it is a licensee's: ToString leaves the flag out, so that
    ``4.27.2-100`` and ``4.27.2-2147483748`` would otherwise read the same."""
    return f"{version} (licensee)" if version.licensee else str(version)


def _release(version: EngineVersion) -> str:
    return f"{version.major}.{version.minor}"


def _identity(version: EngineVersion) -> tuple[int, int, int, int, bool]:
    """What makes two versions the same version: release, changelist and vendor (never the branch)."""
    return (version.major, version.minor, version.patch, version.changelist, version.licensee)


def _versions_json(first: EngineVersion, second: EngineVersion) -> dict[str, object]:
    return {
        "first": str(first),
        "second": str(second),
        "first_licensee": first.licensee,
        "second_licensee": second.licensee,
    }


def _without_changelist(first: EngineVersion, second: EngineVersion) -> str:
    if not (first.has_changelist or second.has_changelist):
        if _label(first) == _label(second):
            return "neither has a changelist"
        return f"neither {_label(first)} nor {_label(second)} has a changelist"
    return f"{_label(first if not first.has_changelist else second)} has no changelist"
