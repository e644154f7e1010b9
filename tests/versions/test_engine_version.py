"""EngineVersion: Unreal's FEngineVersion parse, ToString, GetNewest and IsCompatibleWith rules."""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buildver import EngineVersion, InvalidVersionError, VersionComparison, VersionComponent

V = EngineVersion.parse
FIRST, SECOND, NEITHER = VersionComparison.FIRST, VersionComparison.SECOND, VersionComparison.NEITHER
MAJOR, MINOR, PATCH, CHANGELIST = (
    VersionComponent.MAJOR,
    VersionComponent.MINOR,
    VersionComponent.PATCH,
    VersionComponent.CHANGELIST,
)


def licensee(text: str) -> EngineVersion:
    version = V(text)
    return EngineVersion(version.major, version.minor, version.patch, version.changelist, version.branch, True)


PARSE_CASES = [
    ("4.19.0", EngineVersion(4, 19, 0)),
    ("4.19.0-3944462", EngineVersion(4, 19, 0, 3944462)),
    ("4.19.0-3944462+++UE4+Release-4.19", EngineVersion(4, 19, 0, 3944462, "++UE4+Release-4.19")),
    ("5.0.3-20979098+++UE5+Release-5.0", EngineVersion(5, 0, 3, 20979098, "++UE5+Release-5.0")),
    ("5.1.0-0", EngineVersion(5, 1, 0)),
    ("65535.65535.65535-4294967295", EngineVersion(65535, 65535, 65535, 0x7FFFFFFF, "", True)),
    ("4.25.0-2147483648", EngineVersion(4, 25, 0, 0, "", True)),
    ("4.25.0-2147483649+Fork", EngineVersion(4, 25, 0, 1, "Fork", True)),
    ("4.19.0+Branch", EngineVersion(4, 19, 0, 0, "Branch")),
    ("4.19.0+Release-4.19", EngineVersion(4, 19, 0, 0, "Release-4.19")),
    ("4.19.0+-5", EngineVersion(4, 19, 0, 0, "-5")),
    ("4.19.0-1+a+b c", EngineVersion(4, 19, 0, 1, "a+b c")),
    ("0.0.0", EngineVersion(0, 0, 0)),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_reads_unreal_version_strings(text: str, expected: EngineVersion) -> None:
    # The second parse finds the release ("4.19.0") among those already checked, and must agree.
    assert V(text) == expected
    assert V(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "4.19.0-",
        "4.19.0-123abc",
        "4.19.0-4294967296",
        "4.19.0-\u0661",
        "4.19.0- 1",
        "4.19.0-1_0",
        "4.19.0-+1",
        "4.19.0-1-2",
    ],
)
def test_parse_refuses_a_bad_changelist_after_a_release_it_has_seen(text: str) -> None:
    assert V("4.19.0") == EngineVersion(4, 19, 0)
    with pytest.raises(InvalidVersionError, match="invalid engine version"):
        V(text)


def test_parse_remembers_a_bounded_number_of_releases() -> None:
    from buildver.versions import engine_version

    for minor in range(engine_version._RELEASES_LIMIT + 100):
        assert V(f"7.{minor}.1-5").minor == minor
    assert len(engine_version._RELEASES) <= engine_version._RELEASES_LIMIT
    assert V("7.4195.1") == EngineVersion(7, 4195, 1)


PARSE_FAILURES = [
    ("4.19", "Unreal needs a second '.'"),
    ("4", "one component"),
    ("", "empty"),
    ("65536.0.0", "major above uint16"),
    ("4.65536.0", "minor above uint16"),
    ("4.19.65536", "patch above uint16"),
    ("4.19.0-4294967296", "changelist of 2^32"),
    ("4.19.0-99999999999999999999", "changelist far above 2^32"),
    ("4.19.0abc", "trailing junk Unreal ignores"),
    ("4.19.0-123abc", "junk after the changelist"),
    ("4.19.0-", "empty changelist Unreal reads as 0"),
    ("..", "empty components Unreal reads as 0"),
    (" 4.19.0", "leading space strtoull skips"),
    ("+4.19.0", "sign strtoull accepts"),
    ("-1.0.0", "negative"),
    ("4.19.0 ", "trailing space"),
    ("v4.19.0", "prefix"),
    ("4.19.0\n", "trailing newline"),
    ("\u0664.\u0661.\u0660", "non-ASCII digits (Arabic-Indic)"),
]


@pytest.mark.parametrize(("text", "reason"), PARSE_FAILURES)
def test_parse_refuses_what_unreal_refuses_and_junk_it_ignores(text: str, reason: str) -> None:
    with pytest.raises(InvalidVersionError, match="invalid engine version") as info:
        V(text)
    assert isinstance(info.value, ValueError), reason


def test_parse_error_message_shows_the_text() -> None:
    with pytest.raises(InvalidVersionError, match=r"'4\.19'"):
        V("4.19")


TO_STRING_CASES = [
    (EngineVersion(4, 19, 0, 3944462, "++UE4+Release-4.19"), "4.19.0-3944462+++UE4+Release-4.19"),
    (EngineVersion(5, 1, 0), "5.1.0-0"),
    (EngineVersion(4, 25, 1, 77, "", True), "4.25.1-77"),
]


@pytest.mark.parametrize(("version", "text"), TO_STRING_CASES)
def test_str_is_unreal_to_string_with_licensee_bit_masked(version: EngineVersion, text: str) -> None:
    assert str(version) == text


@pytest.mark.parametrize(
    ("component", "text"),
    [
        (MAJOR, "4"),
        (MINOR, "4.19"),
        (PATCH, "4.19.2"),
        (CHANGELIST, "4.19.2-3944462"),
        (VersionComponent.BRANCH, "4.19.2-3944462+++UE4+Release-4.19"),
    ],
)
def test_to_string_stops_at_the_given_component(component: VersionComponent, text: str) -> None:
    assert V("4.19.2-3944462+++UE4+Release-4.19").to_string(component) == text


GET_NEWEST_CASES = [
    # (first, second, expected, component, rule)
    (V("5.0.0"), V("4.27.2"), FIRST, MAJOR, "major decides first"),
    (V("4.26.0-999"), V("4.27.0-1"), SECOND, MINOR, "minor decides before changelists"),
    (V("4.27.2-1"), V("4.27.1-999"), FIRST, PATCH, "patch decides before changelists"),
    (V("4.27.2-100"), V("4.27.2-200"), SECOND, CHANGELIST, "same vendor: larger changelist"),
    (licensee("4.27.2-300"), licensee("4.27.2-200"), FIRST, CHANGELIST, "two licensee changelists compare"),
    (V("4.27.2-100"), V("4.27.2-100"), NEITHER, None, "identical"),
    (V("4.27.2-100+A"), V("4.27.2-100+B"), NEITHER, None, "the branch is never compared"),
    (V("4.27.2-0"), V("4.27.2-200"), NEITHER, None, "changelist 0 is never ordered"),
    (V("4.27.2-200"), V("4.27.2-0"), NEITHER, None, "changelist 0 on the right"),
    (licensee("4.27.2-900"), V("4.27.2-100"), NEITHER, None, "different vendors are never ordered"),
    (V("4.27.2-900"), licensee("4.27.2-100"), NEITHER, None, "different vendors, other side"),
    (licensee("4.27.2-0"), licensee("4.27.2-5"), NEITHER, None, "licensee changelist 0"),
]


@pytest.mark.parametrize(
    ("first", "second", "expected", "component", "rule"), GET_NEWEST_CASES, ids=[c[4] for c in GET_NEWEST_CASES]
)
def test_get_newest_follows_unreal(
    first: EngineVersion,
    second: EngineVersion,
    expected: VersionComparison,
    component: VersionComponent | None,
    rule: str,
) -> None:
    assert EngineVersion.get_newest(first, second) == (expected, component)


COMPATIBILITY_CASES = [
    # (this engine, asset's compatible-with version, compatible?, rule)
    (V("4.19.0-3944462"), V("4.18.3-3709383"), True, "newer engine loads older data"),
    (V("4.18.3-3709383"), V("4.19.0-3944462"), False, "older engine refuses newer data"),
    (V("4.19.0-100"), V("4.19.0-100"), True, "same version"),
    (V("4.19.0-100"), V("4.19.0-101"), False, "a newer changelist of the same vendor"),
    (V("4.19.0-0"), V("5.3.0-27405482"), True, "changelist 0 on this side: compatible with anything"),
    (V("5.3.0-27405482"), V("4.19.0-0"), True, "changelist 0 on the other side"),
    (V("4.18.0-0"), V("4.19.0-0"), True, "both changelist 0, even across minors"),
    (V("4.19.0-100"), licensee("4.19.0-200"), True, "Epic engine, licensee data of the same release"),
    (licensee("4.19.0-100"), V("4.19.0-200"), True, "licensee engine, Epic data of the same release"),
    (licensee("4.19.0-100"), V("4.20.0-1"), False, "a licensee engine still refuses a newer minor"),
    (V("4.19.1-5"), V("4.19.0-999999"), True, "patch beats changelist"),
]


@pytest.mark.parametrize(
    ("engine", "data", "compatible", "rule"), COMPATIBILITY_CASES, ids=[c[3] for c in COMPATIBILITY_CASES]
)
def test_is_compatible_with_follows_unreal(
    engine: EngineVersion, data: EngineVersion, compatible: bool, rule: str
) -> None:
    assert engine.is_compatible_with(data) is compatible


versions = st.builds(
    EngineVersion,
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([0, 1, 2, 0x7FFFFFFF]),
    st.sampled_from(["", "++UE5+Main"]),
    st.booleans(),
)


@given(versions, versions)
def test_is_compatible_with_agrees_with_get_newest(a: EngineVersion, b: EngineVersion) -> None:
    expected = (not a.has_changelist or not b.has_changelist) or EngineVersion.get_newest(a, b)[0] is not SECOND
    assert a.is_compatible_with(b) is expected


@given(versions, versions)
def test_operators_follow_get_newest(a: EngineVersion, b: EngineVersion) -> None:
    newest = EngineVersion.get_newest(a, b)[0]
    assert (a < b) is (newest is SECOND)
    assert (a > b) is (newest is FIRST)
    assert (a <= b) is (newest is not FIRST)
    assert (a >= b) is (newest is not SECOND)
    assert (a < b) is (b > a)


@given(st.lists(versions, max_size=8))
def test_sort_key_is_a_total_order_that_agrees_with_less_than(items: list[EngineVersion]) -> None:
    ordered = sorted(items, key=EngineVersion.sort_key)
    for i, earlier in enumerate(ordered):
        for later in ordered[i + 1 :]:
            assert not later < earlier


@given(
    st.builds(
        EngineVersion,
        st.integers(0, 65535),
        st.integers(0, 65535),
        st.integers(0, 65535),
        st.integers(0, 0x7FFFFFFF),
        st.text(),
    )
)
def test_parse_of_str_round_trips_without_licensee_flag(version: EngineVersion) -> None:
    assert V(str(version)) == version


@given(versions, versions)
def test_hash_agrees_with_equality(a: EngineVersion, b: EngineVersion) -> None:
    if a == b:
        assert hash(a) == hash(b)
    assert (a == b) is (a.sort_key() == b.sort_key())


def test_round_trip_loses_the_licensee_flag_as_in_unreal() -> None:
    version = licensee("4.27.2-100")
    assert V(str(version)) == EngineVersion(4, 27, 2, 100)


def test_raw_changelist_carries_the_licensee_bit() -> None:
    assert licensee("4.27.2-100").raw_changelist == 0x80000064
    assert EngineVersion.from_raw_changelist(4, 27, 2, 0x80000064) == licensee("4.27.2-100")


def test_engine_version_is_immutable_and_picklable() -> None:
    version = V("5.3.2-1+B")
    with pytest.raises(AttributeError, match="major"):
        version.major = 6  # type: ignore[misc]
    with pytest.raises(AttributeError):
        version.extra = 1  # type: ignore[attr-defined]
    assert pickle.loads(pickle.dumps(version)) == version
    assert {version, V("5.3.2-1+B")} == {version}


def test_equality_with_other_types_is_not_implemented() -> None:
    assert V("5.3.2") != "5.3.2-0"
    with pytest.raises(TypeError):
        _ = V("5.3.2") < "5.3.2"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((65536, 0, 0), "major must be an integer from 0 to 65535"),
        ((0, -1, 0), "minor must be"),
        ((0, 0, 1.5), "patch must be"),
        ((0, 0, 0, 2**31), "changelist must be an integer from 0 to 2147483647"),
        ((0, 0, 0, True), "changelist must be"),
    ],
)
def test_constructor_refuses_values_outside_unreal_ranges(arguments: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidVersionError, match=message):
        EngineVersion(*arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("version", "has_changelist", "is_empty"),
    [(V("0.0.0-5"), True, True), (V("4.0.0"), False, False), (licensee("0.0.0-0"), False, True)],
)
def test_has_changelist_and_is_empty(version: EngineVersion, has_changelist: bool, is_empty: bool) -> None:
    assert version.has_changelist is has_changelist
    assert version.is_empty is is_empty


def test_exact_match_compares_branch_case_insensitively_like_fstring() -> None:
    assert V("5.0.3-1+++UE5+Release-5.0").exact_match(V("5.0.3-1+++ue5+release-5.0"))
    assert not V("5.0.3-1+A").exact_match(licensee("5.0.3-1+A"))


EXACT_MATCH_CASES = [
    # (first branch, second branch, match?, rule)
    ("++UE5+Release-5.0", "++ue5+release-5.0", True, "ASCII letters match in either case"),
    ("A", "a", True, "one ASCII letter"),
    ("\u00c9", "\u00e9", False, "É and é differ: Stricmp folds ASCII only"),
    ("Stra\u00dfe", "STRASSE", False, "ß is not SS (str.casefold would match them)"),
    ("k", "\u212a", False, "the Kelvin sign is not k (str.lower would match them)"),
    ("\u0130", "i", False, "a dotted capital I is not i"),
    ("Fork-\u00c9", "fork-\u00c9", True, "ASCII folded, the same non-ASCII letter kept"),
    ("A", "B", False, "different letters"),
    ("", "", True, "no branch"),
]


@pytest.mark.parametrize(("first", "second", "match", "rule"), EXACT_MATCH_CASES, ids=[c[3] for c in EXACT_MATCH_CASES])
def test_exact_match_folds_branch_case_for_ascii_letters_only(first: str, second: str, match: bool, rule: str) -> None:
    assert EngineVersion(5, 0, 3, 1, first).exact_match(EngineVersion(5, 0, 3, 1, second)) is match
    assert EngineVersion(5, 0, 3, 1, second).exact_match(EngineVersion(5, 0, 3, 1, first)) is match


@pytest.mark.parametrize(
    ("other", "rule"),
    [
        (EngineVersion(5, 0, 4, 1, "A"), "patch"),
        (EngineVersion(5, 0, 3, 2, "A"), "changelist"),
        (EngineVersion(5, 0, 3, 1, "A", True), "licensee"),
        (EngineVersion(5, 0, 3, 1, "A+B"), "branch"),
    ],
)
def test_exact_match_compares_every_other_field_exactly(other: EngineVersion, rule: str) -> None:
    assert not EngineVersion(5, 0, 3, 1, "A").exact_match(other), rule


def _reference_get_newest(
    first: EngineVersion, second: EngineVersion
) -> tuple[VersionComparison, VersionComponent | None]:
    """GetNewest as Unreal writes it, field by field (the fast one works on packed integers)."""
    for component, a, b in (
        (MAJOR, first.major, second.major),
        (MINOR, first.minor, second.minor),
        (PATCH, first.patch, second.patch),
    ):
        if a != b:
            return (FIRST if a > b else SECOND), component
    a, b = first.changelist, second.changelist
    if first.licensee == second.licensee and a != 0 and b != 0 and a != b:
        return (FIRST if a > b else SECOND), CHANGELIST
    return NEITHER, None


wide_versions = st.builds(
    EngineVersion,
    st.sampled_from([0, 1, 255, 256, 65534, 65535]) | st.integers(0, 65535),
    st.sampled_from([0, 1, 255, 256, 65534, 65535]) | st.integers(0, 65535),
    st.sampled_from([0, 1, 255, 256, 65534, 65535]) | st.integers(0, 65535),
    st.sampled_from([0, 1, 2, 0x7FFFFFFF]) | st.integers(0, 0x7FFFFFFF),
    st.sampled_from(["", "++UE5+Main"]),
    st.booleans(),
)


@given(wide_versions, wide_versions)
def test_get_newest_and_operators_agree_with_unreal_field_by_field_over_the_whole_range(
    a: EngineVersion, b: EngineVersion
) -> None:
    newest = _reference_get_newest(a, b)
    assert EngineVersion.get_newest(a, b) == newest
    assert (a < b) is (newest[0] is SECOND)
    assert (a > b) is (newest[0] is FIRST)
    assert (a <= b) is (newest[0] is not FIRST)
    assert (a >= b) is (newest[0] is not SECOND)
    expected_compatible = not a.has_changelist or not b.has_changelist or newest[0] is not SECOND
    assert a.is_compatible_with(b) is expected_compatible


def _reference_parse(text: str) -> EngineVersion | None:
    """Parse by the grammar's regular expression (the fast parser splits by hand); None when refused."""
    match = re.fullmatch(r"([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9]+))?(?:\+(.*))?", text, re.DOTALL)
    if match is None:
        return None
    major, minor, patch = (int(group) for group in match.groups()[:3])
    raw_changelist = int(match[4] or 0)
    if max(major, minor, patch) > 65535 or raw_changelist > 0xFFFFFFFF:
        return None
    return EngineVersion.from_raw_changelist(major, minor, patch, raw_changelist, match[5] or "")


version_like_text = st.text(alphabet="0123456789.-+ _aE\u0663\u00b2\n", max_size=24) | st.builds(
    "{}.{}.{}{}{}".format,
    st.integers(0, 70000).map(str),
    st.integers(0, 300).map(str),
    st.sampled_from(["0", "00", "1", "65535", "65536", "", "\u0661", " 1", "1_0", "-1"]),
    st.sampled_from(["", "-", "-0", "-2147483648", "-4294967295", "-4294967296", "--1", "- 1", "-+1"]),
    st.sampled_from(["", "+", "++UE5+Main", "+\u00e9+x", "+a.b-c"]),
)


@given(version_like_text)
def test_parse_accepts_exactly_what_the_grammar_accepts(text: str) -> None:
    expected = _reference_parse(text)
    if expected is None:
        with pytest.raises(InvalidVersionError, match="invalid engine version"):
            V(text)
    else:
        assert V(text) == expected


def test_branch_path_turns_plus_into_slash() -> None:
    assert V("4.19.0-1+++UE4+Release-4.19").branch_path == "//UE4/Release-4.19"


STRING_ARGUMENT_CASES = [
    # (call, expected): every method that takes another version takes its text too, parsed as parse does.
    (lambda: V("5.3.0").is_compatible_with("4.19.0"), True),
    (lambda: V("5.3.0-10").is_compatible_with("5.3.0-11"), False),
    (lambda: EngineVersion.get_newest("4.19.0-5", "4.19.0-7"), (VersionComparison.SECOND, VersionComponent.CHANGELIST)),
    (lambda: EngineVersion.get_newest(V("5.0.0"), "4.27.2"), (VersionComparison.FIRST, VersionComponent.MAJOR)),
    (lambda: V("5.0.3-1+++UE5+Main").exact_match("5.0.3-1+++ue5+main"), True),
]


@pytest.mark.parametrize(("call", "expected"), STRING_ARGUMENT_CASES)
def test_methods_that_take_another_version_take_a_version_string(call: Callable[[], object], expected: object) -> None:
    assert call() == expected


@pytest.mark.parametrize(
    "call",
    [
        lambda: V("5.3.0").is_compatible_with(5.3),  # type: ignore[arg-type]
        lambda: EngineVersion.get_newest(V("5.3.0"), None),  # type: ignore[arg-type]
        lambda: V("5.3.0").exact_match(b"5.3.0"),  # type: ignore[arg-type]
    ],
)
def test_another_type_is_a_type_error_that_names_it(call: Callable[[], object]) -> None:
    with pytest.raises(TypeError, match=r"expected an EngineVersion or a version string, not (float|NoneType|bytes)"):
        call()


def test_a_bad_version_string_argument_is_the_parse_error() -> None:
    with pytest.raises(InvalidVersionError, match=r"invalid engine version '4\.19'"):
        V("5.3.0").is_compatible_with("4.19")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ((4, 27, 2, 0x80000005, "B"), EngineVersion(4, 27, 2, 5, "B", licensee=True)),
        ((5, 3, 0, 27405482, ""), EngineVersion(5, 3, 0, 27405482)),
        ((65535, 0, 0, 0xFFFFFFFF, ""), EngineVersion(65535, 0, 0, 0x7FFFFFFF, licensee=True)),
    ],
)
def test_from_raw_changelist_reads_bit_31_as_the_licensee_flag(
    arguments: tuple[int, int, int, int, str], expected: EngineVersion
) -> None:
    assert EngineVersion.from_raw_changelist(*arguments) == expected


@pytest.mark.parametrize(
    "arguments", [(65536, 0, 0, 0, ""), (-1, 0, 0, 0, ""), (4, 0, 0, 1 << 32, ""), (4, 0, 0, -1, ""), (4, 0, 0, 0, 5)]
)
def test_from_raw_changelist_refuses_values_outside_unreal_s_ranges(arguments: tuple[object, ...]) -> None:
    with pytest.raises(InvalidVersionError):
        EngineVersion.from_raw_changelist(*arguments)  # type: ignore[arg-type]
