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
    def reason(self) -> str:
        """Why, in words."""
        if self.component is not None:
            newer = self.first if self.newer is VersionComparison.FIRST else self.second
            return f"{newer} is newer by {self.component.name.lower()}"
        if self.rule == "changelist-0":
            return f"{_without_changelist(self.first, self.second)}, and a changelist of 0 is never compared"
        if self.rule == "different-vendors":
            licensee = "the first" if self.first.licensee else "the second"
            return f"{licensee} is a licensee's build, the other Epic's: their changelists are never compared"
        return "the same major.minor.patch, vendor and changelist; the branch is not compared"

    def sentence(self) -> str:
        """``compare``'s line: the newer one, or why neither is."""
        if self.newer is VersionComparison.NEITHER:
            ordered = "are the same version" if self.rule == "same-version" else "are not ordered by Unreal's rules"
            return f"neither: {self.first} and {self.second} {ordered} ({self.rule}: {self.reason})"
        newer, older = (self.first, self.second) if self.newer is VersionComparison.FIRST else (self.second, self.first)
        assert self.component is not None
        return (
            f"{self.newer.name.lower()}: {newer} is newer than {older} by {self.component.name.lower()} ({self.rule})"
        )

    def to_json(self) -> dict[str, object]:
        """``compare --json``."""
        return {
            "first": str(self.first),
            "second": str(self.second),
            "newer": self.newer.name.lower(),
            "component": None if self.component is None else self.component.name.lower(),
            "rule": self.rule,
            "reason": self.reason,
        }


class Compatibility(NamedTuple):
    """IsCompatibleWith's answer: can an engine at ``first`` load data saved by ``second``; the rule that decided."""

    first: EngineVersion
    second: EngineVersion
    compatible: bool
    rule: str
    reason: str

    def sentence(self) -> str:
        """``compatible``'s line."""
        if self.compatible:
            verdict = f"compatible: {self.first} can load data saved by {self.second}"
        else:
            verdict = f"not compatible: {self.first} cannot load data saved by {self.second}"
        return f"{verdict} ({self.rule}: {self.reason})"

    def to_json(self) -> dict[str, object]:
        """``compatible --json``."""
        return {
            "first": str(self.first),
            "second": str(self.second),
            "compatible": self.compatible,
            "rule": self.rule,
            "reason": self.reason,
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


def _without_changelist(first: EngineVersion, second: EngineVersion) -> str:
    if not (first.has_changelist or second.has_changelist):
        return f"neither {first} nor {second} has a changelist"
    return f"{first if not first.has_changelist else second} has no changelist"
