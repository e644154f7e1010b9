"""The Changelist rules, on pairs of versions of one release and one vendor: where only the changelists decide.

Versions drawn field by field almost never share major, minor and patch, so the rules that only apply then (the
Changelist-0 rule, changelists of one vendor compared, of two vendors never) need pairs drawn together. The
expected answers come from a model of FEngineVersionBase::GetNewest and FEngineVersion::IsCompatibleWith written
here from ``docs/unreal-rules.md``, not from buildver's code.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buildver import EngineVersion, VersionComparison, VersionComponent

FIRST, SECOND, NEITHER = VersionComparison.FIRST, VersionComparison.SECOND, VersionComparison.NEITHER


@dataclass(frozen=True)
class Pair:
    """Two versions of one release (major.minor.patch) and one branch; ``same_vendor`` when the licensee flags agree."""

    first: EngineVersion
    second: EngineVersion

    @property
    def same_vendor(self) -> bool:
        return self.first.licensee == self.second.licensee


# Changelists near each other and near the ends of the 31 bits, 0 (no changelist) most often.
changelists = st.one_of(
    st.just(0),
    st.integers(1, 3),
    st.sampled_from([0x7FFFFFFE, 0x7FFFFFFF]),
    st.integers(0, 0x7FFFFFFF),
)


@st.composite
def same_release_pairs(draw: st.DrawFn, *, same_vendor: bool = True) -> Pair:
    """Two versions with one major.minor.patch and branch; one vendor, or (``same_vendor=False``) one of each."""
    major, minor, patch = (draw(st.integers(0, 65535)) for _ in range(3))
    branch = draw(st.sampled_from(["", "++UE5+Release-5.3", "++UE4+Release-4.27"]))
    licensee = draw(st.booleans())
    other_licensee = licensee if same_vendor else not licensee
    first = EngineVersion(major, minor, patch, draw(changelists), branch, licensee)
    second = EngineVersion(major, minor, patch, draw(changelists), branch, other_licensee)
    return Pair(first, second)


def model_get_newest(a: EngineVersion, b: EngineVersion) -> tuple[VersionComparison, VersionComponent | None]:
    """GetNewest as Unreal writes it: major, minor, patch; then the changelists, only when both are non-zero and
    both Epic's or both a licensee's."""
    for component, x, y in (
        (VersionComponent.MAJOR, a.major, b.major),
        (VersionComponent.MINOR, a.minor, b.minor),
        (VersionComponent.PATCH, a.patch, b.patch),
    ):
        if x != y:
            return (FIRST if x > y else SECOND), component
    if a.changelist != 0 and b.changelist != 0 and a.licensee == b.licensee and a.changelist != b.changelist:
        return (FIRST if a.changelist > b.changelist else SECOND), VersionComponent.CHANGELIST
    return NEITHER, None


def model_is_compatible_with(engine: EngineVersion, data: EngineVersion) -> bool:
    """IsCompatibleWith: the Changelist-0 rule first (either changelist 0: compatible), then "data is not newer"."""
    if engine.changelist == 0 or data.changelist == 0:
        return True
    return model_get_newest(engine, data)[0] is not SECOND


def check_every_comparison(a: EngineVersion, b: EngineVersion) -> None:
    newest = model_get_newest(a, b)
    assert EngineVersion.get_newest(a, b) == newest
    assert (a < b) is (newest[0] is SECOND)
    assert (a > b) is (newest[0] is FIRST)
    assert (a <= b) is (newest[0] is not FIRST)
    assert (a >= b) is (newest[0] is not SECOND)
    assert a.is_compatible_with(b) is model_is_compatible_with(a, b)
    assert b.is_compatible_with(a) is model_is_compatible_with(b, a)


@given(same_release_pairs())
def test_changelists_of_one_release_and_vendor_decide_as_unreals_get_newest(pair: Pair) -> None:
    check_every_comparison(pair.first, pair.second)
    check_every_comparison(pair.second, pair.first)


@given(same_release_pairs(same_vendor=False))
def test_changelists_of_two_vendors_never_decide(pair: Pair) -> None:
    assert not pair.same_vendor
    check_every_comparison(pair.first, pair.second)
    assert EngineVersion.get_newest(pair.first, pair.second) == (NEITHER, None)


@given(same_release_pairs())
def test_changelist_zero_is_neither_older_nor_newer_than_any_changelist(pair: Pair) -> None:
    zero = EngineVersion(pair.first.major, pair.first.minor, pair.first.patch, 0, pair.first.branch)
    other = EngineVersion(zero.major, zero.minor, zero.patch, pair.second.changelist, zero.branch)
    assert not zero < other
    assert not other < zero
    assert not zero > other
    assert not other > zero
    assert zero <= other
    assert zero >= other
    assert zero.is_compatible_with(other)
    assert other.is_compatible_with(zero)


V = EngineVersion.parse

CHANGELIST_ZERO_CASES = [
    # (first, second, first < second, first > second, rule)
    ("5.3.0-0", "5.3.0-5", False, False, "changelist 0 is not older than a changelist"),
    ("5.3.0-5", "5.3.0-0", False, False, "a changelist is not newer than changelist 0"),
    ("5.3.0-0", "5.3.0-0", False, False, "both changelist 0"),
    ("5.3.0-4", "5.3.0-5", True, False, "one vendor: the lower changelist is older"),
    ("5.3.0-5", "5.3.0-4", False, True, "one vendor: the higher changelist is newer"),
    ("5.3.0-1", "5.3.0-2147483647", True, False, "the lowest changelist against the highest"),
    ("5.3.0-2147483649", "5.3.0-5", False, False, "a licensee's changelist 1 against Epic's 5: never compared"),
    ("5.3.0-2147483648", "5.3.0-2147483653", False, False, "licensee changelist 0 against a licensee's 5"),
    ("5.3.0-2147483652", "5.3.0-2147483653", True, False, "two licensee changelists are compared"),
]


@pytest.mark.parametrize(
    ("first", "second", "less", "greater", "rule"), CHANGELIST_ZERO_CASES, ids=[c[4] for c in CHANGELIST_ZERO_CASES]
)
def test_the_changelist_rules_on_one_release(first: str, second: str, less: bool, greater: bool, rule: str) -> None:
    a, b = V(first), V(second)
    assert (a < b) is less
    assert (a > b) is greater
    assert (a <= b) is not greater
    assert (a >= b) is not less
    assert (b > a) is less
    check_every_comparison(a, b)
