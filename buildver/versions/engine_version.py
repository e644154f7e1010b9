"""Unreal's FEngineVersion in Python: ``major.minor.patch-changelist+branch`` with Unreal's exact rules.

Sources (``docs/unreal-rules.md`` §5): ``EngineVersionBase.h``, ``EngineVersion.h`` and ``EngineVersion.cpp``
of Unreal 4.18 to 5.x.
"""

from __future__ import annotations

import enum

from buildver.errors import InvalidVersionError

__all__ = ["EngineVersion", "VersionComparison", "VersionComponent"]

MAX_COMPONENT = 0xFFFF
"""Major, minor and patch are ``uint16`` in Unreal."""
MAX_CHANGELIST = 0x7FFFFFFF
"""The changelist is a ``uint32`` whose bit 31 is the licensee flag, so 31 bits remain for the number."""
LICENSEE_BIT = 0x80000000


class VersionComparison(enum.Enum):
    """Unreal's EVersionComparison: which of two versions GetNewest found newer."""

    NEITHER = 0
    FIRST = 1
    SECOND = 2


class VersionComponent(enum.IntEnum):
    """Unreal's EVersionComponent, in Unreal's order (``to_string`` stops at one)."""

    MAJOR = 0
    MINOR = 1
    PATCH = 2
    CHANGELIST = 3
    BRANCH = 4


# The text EngineVersion.parse accepts, as a regular expression (parse splits it by hand, which is faster):
#     ([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9]+))?(?:\+(.*))?     with re.DOTALL, the whole text
# Digits only: Unreal's strtoull also takes a sign, leading spaces and empty components ("..", "4.19.0-"),
# and ignores trailing junk ("4.19.0abc"); buildver refuses all of these rather than guess.

_NEITHER = (VersionComparison.NEITHER, None)
# GetNewest's answers, built once: comparing versions then allocates nothing.
_FIRST_BY_MAJOR = (VersionComparison.FIRST, VersionComponent.MAJOR)
_FIRST_BY_MINOR = (VersionComparison.FIRST, VersionComponent.MINOR)
_FIRST_BY_PATCH = (VersionComparison.FIRST, VersionComponent.PATCH)
_FIRST_BY_CHANGELIST = (VersionComparison.FIRST, VersionComponent.CHANGELIST)
_SECOND_BY_MAJOR = (VersionComparison.SECOND, VersionComponent.MAJOR)
_SECOND_BY_MINOR = (VersionComparison.SECOND, VersionComponent.MINOR)
_SECOND_BY_PATCH = (VersionComparison.SECOND, VersionComponent.PATCH)
_SECOND_BY_CHANGELIST = (VersionComparison.SECOND, VersionComponent.CHANGELIST)
_FIRST_BY_HIGHEST_BIT = (_FIRST_BY_PATCH,) * 17 + (_FIRST_BY_MINOR,) * 16 + (_FIRST_BY_MAJOR,) * 16
_SECOND_BY_HIGHEST_BIT = (_SECOND_BY_PATCH,) * 17 + (_SECOND_BY_MINOR,) * 16 + (_SECOND_BY_MAJOR,) * 16
"""GetNewest's answer by the bit length of ``release_a ^ release_b`` (1 to 48): which component first differs."""
_new = object.__new__
_ASCII_UPPER_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


_RELEASES: dict[str, tuple[int, int, int, int]] = {}
"""Major, minor, patch and their release number by a ``M.m.p`` text already parsed. A project names a few
releases, so ``parse`` looks each up whole once it has been checked; emptied when it reaches
:data:`_RELEASES_LIMIT`, so that memory stays bounded and the releases in use come back."""
_RELEASES_LIMIT = 4096


def _release(text: str, release_text: str) -> tuple[int, int, int, int]:
    """Major, minor, patch and release number of ``release_text`` (``M.m.p`` within ``text``): ASCII digits, each
    a uint16; remembered in :data:`_RELEASES`."""
    components = release_text.split(".")
    if len(components) != 3:
        raise _invalid(text)
    numbers = []
    for component in components:
        if not (component.isascii() and component.isdigit()):
            raise _invalid(text)
        try:
            numbers.append(int(component))
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            numbers.append(MAX_COMPONENT + 1)
    major, minor, patch = numbers
    if (major | minor | patch) > MAX_COMPONENT:  # all three are non-negative: one test for the three uint16
        raise InvalidVersionError(
            f"invalid engine version {text!r}: major, minor and patch must be at most {MAX_COMPONENT}"
        )
    release = (major, minor, patch, _release_number(major, minor, patch))
    if len(_RELEASES) >= _RELEASES_LIMIT:  # start again rather than keep the first ones seen forever
        _RELEASES.clear()
    _RELEASES[release_text] = release
    return release


def _release_number(major: int, minor: int, patch: int) -> int:
    """Major, minor and patch (each a uint16) in one integer that orders as the three do, major first."""
    return major << 32 | minor << 16 | patch


def _invalid(text: str) -> InvalidVersionError:
    return InvalidVersionError(f"invalid engine version {text!r}: expected MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]")


class EngineVersion:
    """Unreal's FEngineVersion: an immutable ``major.minor.patch-changelist+branch`` value.

    ``changelist`` is the number without the licensee bit; ``licensee`` is that bit. Equality and hashing
    compare every field exactly (the branch case-sensitively).

    Unreal's GetNewest is not a total order: changelists are compared only when both are non-zero and from
    the same vendor. The comparison operators follow GetNewest: ``a < b`` means "b is newer than a",
    ``a > b`` means "a is newer than b", and ``a <= b`` means "a is not newer than b" (so two versions whose
    changelists cannot be compared are both ``<=`` each other without being equal). To sort for display use
    ``sorted(versions, key=EngineVersion.sort_key)``, a total order that agrees with ``<`` wherever ``<`` holds.

    >>> v = EngineVersion.parse("4.19.0-3944462+++UE4+Release-4.19")
    >>> v.changelist, v.branch
    (3944462, '++UE4+Release-4.19')
    >>> str(v)
    '4.19.0-3944462+++UE4+Release-4.19'
    """

    # ``_key`` holds every field (equality, hashing, pickling, the read-only properties); ``_release`` and
    # ``_changelist`` repeat what GetNewest and IsCompatibleWith look at, so that a comparison reads two
    # attributes and compares integers, as fast as packaging's cached keys (benchmarks/bench_core.py).
    __slots__ = ("_changelist", "_key", "_release")

    _key: tuple[int, int, int, int, str, bool]
    _release: int
    """major << 32 | minor << 16 | patch."""
    _changelist: int

    def __init__(
        self,
        major: int,
        minor: int,
        patch: int,
        changelist: int = 0,
        branch: str = "",
        licensee: bool = False,
    ) -> None:
        for name, value, limit in (
            ("major", major, MAX_COMPONENT),
            ("minor", minor, MAX_COMPONENT),
            ("patch", patch, MAX_COMPONENT),
            ("changelist", changelist, MAX_CHANGELIST),
        ):
            if type(value) is not int or not 0 <= value <= limit:
                raise InvalidVersionError(f"{name} must be an integer from 0 to {limit}, not {value!r}")
        if not isinstance(branch, str):
            raise InvalidVersionError(f"branch must be a string, not {branch!r}")
        if not isinstance(licensee, bool):
            raise InvalidVersionError(f"licensee must be a bool, not {licensee!r}")
        self._key = (major, minor, patch, changelist, branch, licensee)
        self._release = _release_number(major, minor, patch)
        self._changelist = changelist

    @property
    def major(self) -> int:
        """The major version (0-65535)."""
        return self._key[0]

    @property
    def minor(self) -> int:
        """The minor version (0-65535)."""
        return self._key[1]

    @property
    def patch(self) -> int:
        """The patch version (0-65535)."""
        return self._key[2]

    @property
    def changelist(self) -> int:
        """The changelist without the licensee bit (0-2147483647)."""
        return self._key[3]

    @property
    def branch(self) -> str:
        """The escaped depot path of the branch, e.g. ``++UE4+Release-4.19``; may be empty."""
        return self._key[4]

    @property
    def licensee(self) -> bool:
        """Unreal's bit 31 of the changelist: built by a licensee rather than Epic."""
        return self._key[5]

    @classmethod
    def _trusted(
        cls, major: int, minor: int, patch: int, changelist: int, branch: str, licensee: bool
    ) -> EngineVersion:
        """Build from values already checked (the parser's fast path)."""
        version = _new(cls)
        version._key = (major, minor, patch, changelist, branch, licensee)
        version._release = _release_number(major, minor, patch)
        version._changelist = changelist
        return version

    @classmethod
    def from_raw_changelist(
        cls, major: int, minor: int, patch: int, raw_changelist: int, branch: str = ""
    ) -> EngineVersion:
        """Build from Unreal's stored form (three uint16 and a uint32 changelist whose bit 31 is the licensee flag),
        as package readers find it: values in those ranges take a fast path; anything else is checked as usual."""
        if (
            type(raw_changelist) is int
            and type(major) is int
            and type(minor) is int
            and type(patch) is int
            and type(branch) is str
            and 0 <= raw_changelist <= 0xFFFFFFFF
            and major >= 0
            and minor >= 0
            and patch >= 0
            and (major | minor | patch) <= MAX_COMPONENT  # non-negative: one test for the three uint16
        ):
            return cls._trusted(
                major, minor, patch, raw_changelist & MAX_CHANGELIST, branch, raw_changelist > MAX_CHANGELIST
            )
        if type(raw_changelist) is not int or not 0 <= raw_changelist <= 0xFFFFFFFF:
            raise InvalidVersionError(f"raw changelist must be a 32-bit unsigned integer, not {raw_changelist!r}")
        return cls(major, minor, patch, raw_changelist & MAX_CHANGELIST, branch, bool(raw_changelist & LICENSEE_BIT))

    # -- value semantics -------------------------------------------------------------------------------
    # The public fields are properties without setters, so they cannot be assigned; only the private slot
    # could be, as with packaging.version.Version. Setting the slot directly (no __setattr__ override)
    # keeps construction fast.

    def __reduce__(self) -> tuple[type[EngineVersion], tuple[int, int, int, int, str, bool]]:
        return (EngineVersion, self._key)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not EngineVersion:
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        licensee = ", licensee=True" if self.licensee else ""
        return (
            f"EngineVersion({self.major}, {self.minor}, {self.patch}, changelist={self.changelist}, "
            f"branch={self.branch!r}{licensee})"
        )

    # -- Unreal's accessors ----------------------------------------------------------------------------

    @property
    def raw_changelist(self) -> int:
        """The changelist as Unreal stores it: the licensee flag in bit 31."""
        return self.changelist | LICENSEE_BIT if self.licensee else self.changelist

    @property
    def is_licensee_version(self) -> bool:
        """FEngineVersionBase::IsLicenseeVersion."""
        return self.licensee

    @property
    def has_changelist(self) -> bool:
        """FEngineVersionBase::HasChangelist: the changelist (without the licensee bit) is not 0."""
        return self.changelist != 0

    @property
    def is_empty(self) -> bool:
        """FEngineVersionBase::IsEmpty: major, minor and patch are 0 (the changelist is not looked at)."""
        return self.major == 0 and self.minor == 0 and self.patch == 0

    # -- text ------------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> EngineVersion:
        """FEngineVersion::Parse, strict: ``M.m.p``, ``M.m.p-CL`` or ``M.m.p-CL+Branch``.

        A changelist from 2^31 to 2^32-1 carries the licensee bit, as in Unreal.

        >>> EngineVersion.parse("5.3.2-29314046+++UE5+Release-5.3").to_string(VersionComponent.PATCH)
        '5.3.2'
        """
        if type(text) is not str:
            raise InvalidVersionError(f"invalid engine version {text!r}: not a string")
        # Split by hand rather than with the regex (as packaging.version does). A release text ("5.3.2") parsed
        # before is looked up whole; the first of each, or a branch without a changelist ("5.3.2+Branch-X", whose
        # "-" is the branch's), takes the longer way through _release, which checks and remembers it.
        release_text, dash, rest = text.partition("-")
        release = _RELEASES.get(release_text)
        if release is not None:
            changelist_text, _, branch = rest.partition("+")
        else:
            head, _, branch = text.partition("+")
            release_text, dash, changelist_text = head.partition("-")
            release = _release(text, release_text)
        major, minor, patch, release_number = release
        version = _new(cls)
        if dash:
            if not (changelist_text.isascii() and changelist_text.isdigit()):
                raise _invalid(text)
            try:
                changelist = int(changelist_text)
            except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
                changelist = 1 << 32
            if changelist > MAX_CHANGELIST:  # bit 31 is the licensee flag
                if changelist > 0xFFFFFFFF:
                    raise InvalidVersionError(f"invalid engine version {text!r}: the changelist must be below 2^32")
                changelist &= MAX_CHANGELIST
                version._key = (major, minor, patch, changelist, branch, True)
            else:
                version._key = (major, minor, patch, changelist, branch, False)
        else:
            changelist = 0
            version._key = (major, minor, patch, 0, branch, False)
        version._release = release_number
        version._changelist = changelist
        return version

    def to_string(self, last_component: VersionComponent = VersionComponent.BRANCH) -> str:
        """FEngineVersion::ToString: the components up to ``last_component``; the licensee bit is not shown."""
        text = str(self.major)
        if last_component >= VersionComponent.MINOR:
            text += f".{self.minor}"
        if last_component >= VersionComponent.PATCH:
            text += f".{self.patch}"
        if last_component >= VersionComponent.CHANGELIST:
            text += f"-{self.changelist}"
        if last_component >= VersionComponent.BRANCH and self.branch:
            text += f"+{self.branch}"
        return text

    def __str__(self) -> str:
        # ToString(Branch), read from the key directly: asset scans print two versions per package.
        major, minor, patch, changelist, branch, _ = self._key
        if branch:
            return f"{major}.{minor}.{patch}-{changelist}+{branch}"
        return f"{major}.{minor}.{patch}-{changelist}"

    @property
    def branch_path(self) -> str:
        """FEngineVersion::GetBranch: the branch with ``+`` turned back into ``/``."""
        return self.branch.replace("+", "/")

    # -- Unreal's comparison rules ---------------------------------------------------------------------

    @staticmethod
    def get_newest(
        first: EngineVersion | str, second: EngineVersion | str
    ) -> tuple[VersionComparison, VersionComponent | None]:
        """FEngineVersionBase::GetNewest: which version is newer, and the component that decided it.

        Major, then minor, then patch; changelists only when both are non-zero and from the same vendor.
        Otherwise ``(VersionComparison.NEITHER, None)``. A string is parsed as ``parse`` does.
        """
        try:
            a = first._release  # type: ignore[union-attr]
            b = second._release  # type: ignore[union-attr]
        except AttributeError:  # a version string (or a wrong type): the fast path above costs nothing otherwise
            first, second = _version(first), _version(second)
            a, b = first._release, second._release
        # The highest differing bit tells which component decided: patch below bit 16, minor below bit 32, major
        # above; a table indexed by its position answers in one step.
        if a > b:
            return _FIRST_BY_HIGHEST_BIT[(a ^ b).bit_length()]
        if a < b:
            return _SECOND_BY_HIGHEST_BIT[(a ^ b).bit_length()]
        a, b = first._changelist, second._changelist  # type: ignore[union-attr]
        if a and b and a != b and first._key[5] == second._key[5]:  # type: ignore[union-attr]
            return _FIRST_BY_CHANGELIST if a > b else _SECOND_BY_CHANGELIST
        return _NEITHER

    def is_compatible_with(self, other: EngineVersion | str) -> bool:
        """FEngineVersion::IsCompatibleWith: true unless ``other`` (a version or a version string) is newer.

        The Changelist-0 rule comes first: when either side has changelist 0 they are compatible, both ways.
        """
        try:
            b = other._changelist  # type: ignore[union-attr]
        except AttributeError:
            other = _version(other)
            b = other._changelist
        a = self._changelist
        if not a or not b:
            return True
        # GetNewest(self, other) != SECOND, written out: this runs millions of times in asset scans.
        x, y = self._release, other._release  # type: ignore[union-attr]
        if x != y:
            return x > y
        return a >= b or self._key[5] != other._key[5]  # type: ignore[union-attr]

    def exact_match(self, other: EngineVersion | str) -> bool:
        """FEngineVersion::ExactMatch (UE5): every field equal, the branch compared as FString's ``==`` does.

        That is FCString::Stricmp: case-insensitive for the ASCII letters only (``"A"`` matches ``"a"``,
        ``"É"`` does not match ``"é"``). Sources: ``docs/unreal-rules.md`` §5 (ExactMatch, UE5) and UE5's
        ``Core/Private/GenericPlatform/GenericPlatformStricmp.cpp``, which lowers two characters through its ASCII
        table only when both are ASCII and otherwise compares them as they are.
        """
        a, b = self._key, _version(other)._key
        return a[:4] == b[:4] and a[5] == b[5] and _ascii_lower(a[4]) == _ascii_lower(b[4])

    # The comparisons follow GetNewest, written out on the two integers it looks at (see get_newest).

    def __lt__(self, other: object) -> bool:
        if other.__class__ is not EngineVersion:
            return NotImplemented
        a, b = self._release, other._release
        if a != b:
            return a < b
        a, b = self._changelist, other._changelist
        return 0 < a < b and self._key[5] == other._key[5]

    def __gt__(self, other: object) -> bool:
        if other.__class__ is not EngineVersion:
            return NotImplemented
        a, b = self._release, other._release
        if a != b:
            return a > b
        a, b = self._changelist, other._changelist
        return a > b > 0 and self._key[5] == other._key[5]

    def __le__(self, other: object) -> bool:
        if other.__class__ is not EngineVersion:
            return NotImplemented
        a, b = self._release, other._release
        if a != b:
            return a < b
        a, b = self._changelist, other._changelist
        return not (a > b > 0 and self._key[5] == other._key[5])

    def __ge__(self, other: object) -> bool:
        if other.__class__ is not EngineVersion:
            return NotImplemented
        a, b = self._release, other._release
        if a != b:
            return a > b
        a, b = self._changelist, other._changelist
        return not (0 < a < b and self._key[5] == other._key[5])

    def sort_key(self) -> tuple[int, int, int, bool, int, str]:
        """A total order for display: major, minor, patch, then Epic before licensee, changelist, branch."""
        return (self.major, self.minor, self.patch, self.licensee, self.changelist, self.branch)


def _version(value: object) -> EngineVersion:
    """``value`` as an EngineVersion: itself, or a version string parsed; anything else is a TypeError naming it."""
    if type(value) is EngineVersion:
        return value
    if isinstance(value, str):
        return EngineVersion.parse(value)
    if isinstance(value, EngineVersion):
        return value
    raise TypeError(f"expected an EngineVersion or a version string, not {type(value).__name__}")


def _ascii_lower(text: str) -> str:
    """FChar::ToLower as FCString::Stricmp uses it: A-Z become a-z, every other character stays."""
    return text.lower() if text.isascii() else text.translate(_ASCII_UPPER_TO_LOWER)
