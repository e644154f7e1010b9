"""Read the versions from an Unreal package header (FPackageFileSummary of a ``.uasset`` or ``.umap``).

Every rule is in ``docs/package-rules.md``: the byte layout by LegacyFileVersion (§2), the gates a reader
applies, unversioned packages and newer headers (§3), the three custom-version layouts (§4), the engine versions
and FixCorruptEngineVersion (§5), and files that are not packages (§9).

Only the header is read: one ``read`` of the first :data:`HEADER_CHUNK` bytes (more only when the summary is
longer) and, for an uncooked package larger than that, the 4-byte tag at the end of the file.
"""

from __future__ import annotations

import functools
import os
import stat
import struct
from dataclasses import dataclass, replace

from buildver._records import trusted_builder
from buildver.errors import PackageFormatError
from buildver.packages.object_versions import (
    KNOWN_MAX_FILE_VERSION_UE4,
    KNOWN_MAX_FILE_VERSION_UE5,
    KNOWN_MIN_LEGACY_FILE_VERSION,
)
from buildver.packages.summary import PACKAGE_FILE_TAG, PKG_FILTER_EDITOR_ONLY, PackageSummary
from buildver.reading import LFS_POINTER_MAX_SIZE, lfs_object_id
from buildver.versions.custom_versions import StoredCustomVersion
from buildver.versions.engine_version import EngineVersion

__all__ = [
    "HEADER_CHUNK",
    "parse_package_head",
    "parse_package_summary",
    "read_package_summary",
]

_TAG_BYTES = PACKAGE_FILE_TAG.to_bytes(4, "little")
_SWAPPED_TAG_BYTES = PACKAGE_FILE_TAG.to_bytes(4, "big")
HEADER_CHUNK = 64 * 1024
"""Bytes read at once: every summary seen so far ends within the first few KiB."""
MAX_SUMMARY_SIZE = 16 * 1024 * 1024
"""A summary longer than this is corrupt: it bounds what a bad count or length can make the reader load."""
MINIMUM_PACKAGE_SIZE = 32
"""Unreal's MinimumPackageSize: a smaller file "is too small" to be a package."""

# FileVersionUE4 gates (EUnrealEngineObjectUE4Version).
_UE4_OLDEST_LOADABLE = 214
_UE4_WORLD_LEVEL_INFO = 224
_UE4_ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE = 278
_UE4_CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS = 326
_UE4_ENGINE_VERSION_OBJECT = 336
_UE4_ADD_STRING_ASSET_REFERENCES_MAP = 384
_UE4_PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION = 444
_UE4_SERIALIZE_TEXT_IN_PACKAGES = 459
_UE4_PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS = 507
_UE4_ADDED_SEARCHABLE_NAMES = 510
_UE4_ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID = 516
_UE4_ADDED_PACKAGE_OWNER = 518
_UE4_NON_OUTER_PACKAGE_IMPORT = 520
_UE4_CORRECT_LICENSEE_FLAG = 522
# FileVersionUE5 gates (EUnrealEngineObjectUE5Version).
_UE5_NAMES_REFERENCED_FROM_EXPORT_DATA = 1001
_UE5_PAYLOAD_TOC = 1002
_UE5_ADD_SOFTOBJECTPATH_LIST = 1008
_UE5_DATA_RESOURCES = 1009
_UE5_METADATA_SERIALIZATION_OFFSET = 1014
_UE5_VERSE_CELLS = 1015
_UE5_PACKAGE_SAVED_HASH = 1016
_UE5_IMPORT_TYPE_HIERARCHIES = 1018

_VALID_COMPRESSION_FLAGS = 0x1FF
"""ECompressionFlags: DeprecatedFormatFlagsMask | OptionsFlagsMask | ForPurposeMask."""
_MAX_STRING_UNITS = 1 << 20
"""Longest FString accepted; Unreal's own limit is the archive's MaxSerializeSize ("String is too large")."""
_MIN_INT32 = -(1 << 31)
_ACE7_TAG = 0x37454341

_GUID_NAMES: dict[bytes, str] = {}
"""FGuid text by its 16 bytes: the same few dozen custom-version keys recur in every package."""


def read_package_summary(path: str | os.PathLike[str], *, listed_as_file: bool = False) -> PackageSummary:
    """Read the summary at the start of the package file ``path``; never reads the whole file.

    Raises :class:`PackageFormatError` (naming the file, the byte offset and the reason) for a file that is not
    a package, is truncated or corrupt, or cannot be read; no other exception escapes.

    ``listed_as_file``: the caller has just seen ``path`` as a regular file (in a folder listing), so a file
    shorter than :data:`HEADER_CHUNK` is read without asking for its size first, one system call fewer (the scan
    of a tree). Should it have become a FIFO since, it still is never waited on, and reads as empty.
    """
    name = path if type(path) is str else os.fsdecode(path)
    try:
        fd = os.open(name, _OPEN_FLAGS)
    except (OSError, ValueError) as exc:  # ValueError: an embedded NUL in the path
        raise PackageFormatError(name, 0, f"cannot read: {_os_reason(exc)}") from exc
    try:
        if listed_as_file:
            data = os.read(fd, HEADER_CHUNK)
            if len(data) < HEADER_CHUNK:  # a short read of a regular file stops at its end: this is all of it
                return _parse(data, len(data), data[-4:], name, None)
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise PackageFormatError(name, 0, "cannot read: is a directory")
        if not stat.S_ISREG(status.st_mode):
            raise PackageFormatError(name, 0, "not a regular file (a FIFO, socket or device)", not_a_package=True)
        size = status.st_size
        if not listed_as_file:
            data = os.read(fd, HEADER_CHUNK)
        if size <= len(data):
            return _parse(data, size, data[-4:], name, None)
        os.lseek(fd, size - 4, os.SEEK_SET)
        return _parse(data, size, os.read(fd, 4), name, fd)
    except OSError as exc:
        raise PackageFormatError(name, 0, f"cannot read: {_os_reason(exc)}") from exc
    finally:
        os.close(fd)


# O_NONBLOCK: opening a FIFO named like a package must not wait for a writer (regular files ignore the flag).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)


def parse_package_summary(data: bytes, path: str = "<bytes>") -> PackageSummary:
    """Parse the summary from ``data``, the complete contents of a package file (``path`` names it in errors)."""
    return _parse(bytes(data), len(data), bytes(data[-4:]), path, None)


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc)


class _NeedMore(Exception):
    """The summary goes on past the bytes read so far (but not past the end of the file)."""

    def __init__(self, upto: int) -> None:
        super().__init__(upto)
        self.upto = upto


class _Malformed(Exception):
    """Bytes that cannot be a package summary; turned into a PackageFormatError naming the file."""

    def __init__(self, offset: int, reason: str, not_a_package: bool = False, lfs_pointer: bool = False) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason
        self.not_a_package = not_a_package
        self.lfs_pointer = lfs_pointer


def parse_package_head(head: bytes, size: int, tail: bytes, name: str) -> PackageSummary:
    """The summary of a ``size``-byte package from its first bytes ``head`` and its last 4 bytes ``tail``, when the
    rest is not at hand (a blob streamed from git): a summary longer than ``head`` is a PackageFormatError."""
    return _parse(head, size, tail, name, None)


def _parse(data: bytes, size: int, tail: bytes, name: str, fd: int | None) -> PackageSummary:
    """Parse ``data``, the first bytes of a ``size``-byte file; reads more from ``fd`` when the summary needs it."""
    while True:
        try:
            return _parse_summary(data, size, tail)
        except _NeedMore as more:
            longer = data
            if fd is not None:
                # Double the bytes read at each step, to bound the number of reads.
                os.lseek(fd, 0, os.SEEK_SET)
                longer = os.read(fd, min(size, max(more.upto, 2 * len(data))))
            if len(longer) <= len(data):  # the file shrank while being read
                raise PackageFormatError(name, len(data), "the file ends inside the summary") from None
            data = longer
        except _Malformed as exc:
            raise PackageFormatError(
                name, exc.offset, exc.reason, not_a_package=exc.not_a_package, lfs_pointer=exc.lfs_pointer
            ) from None
        except (struct.error, ValueError, IndexError, OverflowError) as exc:  # pragma: no cover - a safety net
            raise PackageFormatError(name, 0, f"unexpected bytes in the summary ({exc})") from None


_LITTLE_VERSIONS: dict[bytes, EngineVersion] = {}
_BIG_VERSIONS: dict[bytes, EngineVersion] = {}
_LITTLE = (
    struct.Struct("<i").unpack_from,
    struct.Struct("<I").unpack_from,
    struct.Struct("<4I").unpack_from,
    struct.Struct("<3HI").unpack_from,
    "utf-16-le",
    _LITTLE_VERSIONS,
)
_BIG = (
    struct.Struct(">i").unpack_from,
    struct.Struct(">I").unpack_from,
    struct.Struct(">4I").unpack_from,
    struct.Struct(">3HI").unpack_from,
    "utf-16-be",
    _BIG_VERSIONS,
)


class _Reader:
    """A position in the bytes read so far; ``size`` is the length of the whole file."""

    __slots__ = (
        "_engine",
        "_guid",
        "_i32",
        "_u32",
        "_utf16",
        "_versions",
        "available",
        "big_endian",
        "data",
        "pos",
        "size",
    )

    def __init__(self, data: bytes, size: int, big_endian: bool) -> None:
        self.data = data
        self.available = len(data)
        self.size = size
        self.pos = 0
        self.big_endian = big_endian
        (self._i32, self._u32, self._guid, self._engine, self._utf16, self._versions) = _BIG if big_endian else _LITTLE

    def _short(self, length: int, what: str) -> None:
        end = self.pos + length
        if end > self.size:
            raise _Malformed(self.pos, f"the file ends at byte {self.size}, inside {what}")
        if end > MAX_SUMMARY_SIZE:
            raise _Malformed(self.pos, f"{what} would make the summary longer than {MAX_SUMMARY_SIZE} bytes")
        raise _NeedMore(end)

    def i32(self, what: str) -> int:
        pos = self.pos
        if pos + 4 > self.available:
            self._short(4, what)
        self.pos = pos + 4
        value: int = self._i32(self.data, pos)[0]
        return value

    def u32(self, what: str) -> int:
        pos = self.pos
        if pos + 4 > self.available:
            self._short(4, what)
        self.pos = pos + 4
        value: int = self._u32(self.data, pos)[0]
        return value

    def fields(self, layout: struct.Struct, what: str) -> tuple[int, ...]:
        """A run of fixed-size fields, in one ``unpack_from``."""
        pos = self.pos
        if pos + layout.size > self.available:
            self._short(layout.size, what)
        self.pos = pos + layout.size
        values: tuple[int, ...] = layout.unpack_from(self.data, pos)
        return values

    def u32_of(self, four_bytes: bytes) -> int:
        """A uint32 in this archive's byte order, from other bytes (the tag at the end of the file)."""
        value: int = self._u32(four_bytes, 0)[0]
        return value

    def skip(self, length: int, what: str) -> None:
        if self.pos + length > self.available:
            self._short(length, what)
        self.pos += length

    def raw(self, length: int, what: str) -> bytes:
        pos = self.pos
        if pos + length > self.available:
            self._short(length, what)
        self.pos = pos + length
        return self.data[pos : pos + length]

    def guid(self, what: str) -> str:
        """An FGuid (four uint32) in Unreal's DigitsWithHyphens form."""
        pos = self.pos
        if pos + 16 > self.available:
            self._short(16, what)
        self.pos = pos + 16
        key = self.data[pos : pos + 16]
        text = _GUID_NAMES.get(key)
        if text is None:
            text = _guid_text(*self._guid(key))
            if len(_GUID_NAMES) < _CACHE_LIMIT:
                _GUID_NAMES[key] = text
        return text

    def count(self, what: str, element_size: int) -> int:
        """A TArray count: not negative, and its elements (at least ``element_size`` bytes each) fit the file."""
        start = self.pos
        count = self.i32(f"the count of {what}")
        if count < 0:
            raise _Malformed(start, f"the count of {what} is negative ({count})")
        if self.pos + count * element_size > self.size:
            raise _Malformed(start, f"{count} {what} of {element_size} bytes or more run past the end of the file")
        return count

    def fstring(self, what: str) -> str:
        """An FString: int32 length with the NUL; > 0 bytes (latin-1), < 0 UTF-16 code units."""
        start = self.pos
        if start + 4 <= self.available:  # the common case in one step: a 1-byte string within the bytes read
            length = self._i32(self.data, start)[0]
            end = start + 4 + length
            if 0 < length <= _MAX_STRING_UNITS and end <= self.available:
                self.pos = end
                # Unreal forces the last character to NUL rather than checking it.
                return self.data[start + 4 : end - 1].decode("latin-1")
        length = self.i32(what)
        if length == 0:
            return ""
        if length == _MIN_INT32 or not -_MAX_STRING_UNITS <= length <= _MAX_STRING_UNITS:
            raise _Malformed(start, f"{what} has an impossible length ({length})")
        if length > 0:
            return self.raw(length, what)[:-1].decode("latin-1")
        raw = self.raw(-2 * length, what)
        return raw[:-2].decode(self._utf16, errors="replace")

    def engine_version(self, what: str, branch_what: str) -> EngineVersion:
        """An FEngineVersion: uint16 major, minor, patch, uint32 changelist (bit 31: licensee), FString branch.

        The packages of a project name a few engine versions: one shared value per distinct byte string keeps
        parsing fast and lets ``assets scan --jobs`` pickle each version once per batch.
        """
        pos, data = self.pos, self.data
        key = None
        if pos + 14 <= self.available:
            end = pos + 14 + self._i32(data, pos + 10)[0]
            if pos + 14 <= end <= self.available:
                key = data[pos:end]
                known = self._versions.get(key)
                if known is not None:
                    self.pos = end
                    return known
        if pos + 10 > self.available:
            self._short(10, what)
        self.pos = pos + 10
        major, minor, patch, raw_changelist = self._engine(data, pos)
        version = _engine_version(major, minor, patch, raw_changelist, self.fstring(branch_what))
        if key is not None and len(self._versions) < _CACHE_LIMIT:
            self._versions[key] = version
        return version


def _guid_text(a: int, b: int, c: int, d: int) -> str:
    return f"{a:08X}-{b >> 16:04X}-{b & 0xFFFF:04X}-{c >> 16:04X}-{c & 0xFFFF:04X}{d:08X}"


_engine_version = EngineVersion.from_raw_changelist
_EMPTY_ENGINE_VERSION = _engine_version(0, 0, 0, 0, "")


def _not_a_package(data: bytes, size: int) -> _Malformed:
    """Say what a file without the package tag looks like."""
    if size < 4 and (_TAG_BYTES.startswith(data) or _SWAPPED_TAG_BYTES.startswith(data)):
        return _Malformed(0, f"the file is {size} bytes; a package has at least {MINIMUM_PACKAGE_SIZE}")
    if not data[:HEADER_CHUNK].strip(b"\0"):
        return _Malformed(0, "the file starts with zeros only, as after an interrupted write")
    first = int.from_bytes(data[:4].ljust(4, b"\0"), "little")
    # FZenPackageSummary: uint32 bHasVersioningInfo, uint32 HeaderSize, ...
    zen_header_size = int.from_bytes(data[4:8], "little") if len(data) >= 8 else 0
    if first in (0, 1) and 0 < zen_header_size <= size:
        return _Malformed(
            0, "no package tag: an IoStore (Zen) package, which only a cooked game loads", not_a_package=True
        )
    if size <= LFS_POINTER_MAX_SIZE and lfs_object_id(data[:size]) is not None:
        # A pointer as Git LFS reads one (at most 1024 bytes, its version line first, a sha256 oid): the package is
        # in LFS and this checkout has not fetched it (cloned without git lfs pull, or GIT_LFS_SKIP_SMUDGE=1).
        return _Malformed(
            0, "a Git LFS pointer, not the package: run git lfs pull to fetch it", not_a_package=True, lfs_pointer=True
        )
    if first == _ACE7_TAG:
        return _Malformed(0, "no package tag: an encrypted package (Ace Combat 7)", not_a_package=True)
    if _looks_like_text(data[:256], cut=size > 256):
        return _Malformed(0, "no package tag: a text file", not_a_package=True)
    return _Malformed(0, f"no package tag: starts with 0x{first:08X}, not 0x{PACKAGE_FILE_TAG:08X}", not_a_package=True)


def _looks_like_text(sample: bytes, cut: bool) -> bool:
    """UTF-8 (or a BOM) without control characters; ``cut``: the sample may end inside a character."""
    if sample.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return True
    for drop in range(4 if cut else 1):
        try:
            text = sample[: len(sample) - drop].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return all(char.isprintable() or char in "\t\n\r" for char in text)
    return False


def _version_fields(legacy: int, byte_order: str) -> struct.Struct:
    # LegacyUE3Version (absent in -4, ignored by Unreal), FileVersionUE4, FileVersionUE5 (-8 and below), licensee.
    return struct.Struct(byte_order + ("" if legacy == -4 else "4x") + ("3i" if legacy <= -8 else "2i"))


_VERSION_FIELDS = {
    (legacy, swapped): _version_fields(legacy, ">" if swapped else "<")
    for legacy in range(KNOWN_MIN_LEGACY_FILE_VERSION, 0)
    for swapped in (False, True)
}


def _parse_summary(data: bytes, size: int, tail: bytes) -> PackageSummary:
    tag = data[:4]
    if tag != _TAG_BYTES and tag != _SWAPPED_TAG_BYTES:
        raise _not_a_package(data, size)
    swapped = tag == _SWAPPED_TAG_BYTES
    if size < MINIMUM_PACKAGE_SIZE:
        raise _Malformed(size, f"the file is {size} bytes; a package has at least {MINIMUM_PACKAGE_SIZE}")
    reader = _Reader(data, size, swapped)
    reader.pos = 4
    legacy = reader.i32("LegacyFileVersion")
    if legacy >= 0:
        raise _Malformed(
            4,
            f"an Unreal Engine 3 package (file version {legacy & 0xFFFF}, licensee {legacy >> 16}); "
            "UE4 and later cannot load it",
            not_a_package=True,
        )
    if legacy < KNOWN_MIN_LEGACY_FILE_VERSION:
        return PackageSummary(
            legacy,
            0,
            0,
            0,
            byte_swapped=swapped,
            newer_format=(
                f"LegacyFileVersion {legacy} is newer than the newest this reader knows "
                f"({KNOWN_MIN_LEGACY_FILE_VERSION}); nothing after it was read"
            ),
        )
    ue4_at = reader.pos + (0 if legacy == -4 else 4)
    versions = reader.fields(_VERSION_FIELDS[legacy, swapped], "LegacyUE3Version to FileVersionLicenseeUE4")
    if legacy <= -8:
        ue4, ue5, licensee = versions
    else:
        (ue4, licensee), ue5 = versions, 0
    if ue4 == 0 and ue5 == 0 and licensee == 0:
        return _read_unversioned(reader, legacy, swapped)
    if ue4 < _UE4_OLDEST_LOADABLE:
        raise _Malformed(ue4_at, f"FileVersionUE4 {ue4} is below {_UE4_OLDEST_LOADABLE}, the oldest any engine loads")
    if ue5 < 0:
        raise _Malformed(ue4_at + 4, f"FileVersionUE5 {ue5} is negative")
    if ue4 > KNOWN_MAX_FILE_VERSION_UE4 or ue5 > KNOWN_MAX_FILE_VERSION_UE5:
        newer = (
            f"file versions {ue4}/{ue5} are newer than the newest this reader knows "
            f"({KNOWN_MAX_FILE_VERSION_UE4}/{KNOWN_MAX_FILE_VERSION_UE5})"
        )
        # A 5.6+ loader (-9) stops right after the licensee version, older ones (4.x, 5.0-5.5) after DependsOffset:
        # nothing past that is promised. Try the newest known layout and keep it only if it checks out.
        try:
            summary = _read_versioned(reader, legacy, ue4, ue5, licensee, swapped, tail)
        except _Malformed:
            return PackageSummary(legacy, ue4, ue5, licensee, byte_swapped=swapped, newer_format=newer)
        return replace(summary, newer_format=newer + "; the rest was read with the newest known layout")
    return _read_versioned(reader, legacy, ue4, ue5, licensee, swapped, tail)


def _read_custom_versions(reader: _Reader, legacy: int) -> tuple[StoredCustomVersion, ...]:
    """The custom-version container in the layout that LegacyFileVersion selects (reference section 4)."""
    if legacy > -2:
        return ()
    if legacy == -2:
        count = reader.count("custom versions", 8)
        return tuple(
            StoredCustomVersion(
                _guid_text(0, 0, 0, reader.u32("an enum custom version tag")), reader.i32("a custom version")
            )
            for _ in range(count)
        )
    if legacy >= -5:
        count = reader.count("custom versions", 24)
        guids = []
        for _ in range(count):
            key = reader.guid("a custom version key")
            version = reader.i32("a custom version")
            guids.append(StoredCustomVersion(key, version, reader.fstring("a custom version friendly name")))
        return tuple(guids)
    count = reader.count("custom versions", 20)
    entries = reader.raw(20 * count, "the custom versions")
    if reader.big_endian:
        return tuple(StoredCustomVersion(_guid_text(a, b, c, d), v) for a, b, c, d, v in _OPTIMIZED_BIG(entries))
    # The packages of a project repeat a few containers, made of a few dozen entries: share their values.
    found = _OPTIMIZED_CONTAINERS.get(entries)
    if found is None:
        found = tuple(_optimized_entry(entries[start : start + 20]) for start in range(0, 20 * count, 20))
        if len(_OPTIMIZED_CONTAINERS) < _CACHE_LIMIT:
            _OPTIMIZED_CONTAINERS[entries] = found
    return found


def _optimized_entry(entry: bytes) -> StoredCustomVersion:
    value = _OPTIMIZED_ENTRIES.get(entry)
    if value is None:
        a, b, c, d, version = _OPTIMIZED_LITTLE_ONE(entry)
        value = StoredCustomVersion(_guid_text(a, b, c, d), version)
        if len(_OPTIMIZED_ENTRIES) < _CACHE_LIMIT:
            _OPTIMIZED_ENTRIES[entry] = value
    return value


_OPTIMIZED_BIG = struct.Struct(">4Ii").iter_unpack
_OPTIMIZED_LITTLE_ONE = struct.Struct("<4Ii").unpack
_OPTIMIZED_ENTRIES: dict[bytes, StoredCustomVersion] = {}
_OPTIMIZED_CONTAINERS: dict[bytes, tuple[StoredCustomVersion, ...]] = {}
_CACHE_LIMIT = 4096
"""Entries kept by each cache: bounded, so that memory stays flat over any number of packages."""


_new_summary = trusted_builder(PackageSummary)
"""``PackageSummary(...)`` at half the cost, for the values the reader has checked (see buildver._records)."""


def _read_unversioned(reader: _Reader, legacy: int, swapped: bool) -> PackageSummary:
    """An unversioned (cooked) package: the reader never learns its true versions, so read only up to PackageFlags.

    The layout is guessed from LegacyFileVersion, as a loader of that era would: -9 carries the 5.6+ SavedHash
    and TotalHeaderSize before the (empty) custom versions. A guess that does not check out leaves the flags unknown.
    """
    unknown = PackageSummary(legacy, 0, 0, 0, byte_swapped=swapped)
    try:
        saved_hash = None
        if legacy <= -9:
            saved_hash = reader.raw(20, "SavedHash")
            total_header_size = reader.i32("TotalHeaderSize")
        custom_versions = _read_custom_versions(reader, legacy)
        if legacy > -9:
            total_header_size = reader.i32("TotalHeaderSize")
        package_name = reader.fstring("PackageName")
        package_flags = reader.u32("PackageFlags")
    except _Malformed:
        return unknown
    if not 0 < total_header_size <= reader.size:
        return unknown
    return _new_summary(
        legacy,
        0,
        0,
        0,
        custom_versions,
        package_name=package_name,
        package_flags=package_flags,
        total_header_size=total_header_size,
        saved_hash=saved_hash,
        byte_swapped=swapped,
    )


@dataclass(frozen=True, slots=True)
class _Layout:
    """The fixed-size runs of fields between the variable-size ones, for one set of versions.

    Merging each run into one ``struct`` format (with pad bytes for the fields not needed) makes reading a
    summary a dozen calls; a project's packages share a few sets of versions, so layouts are cached.
    """

    names: struct.Struct
    """NameCount, NameOffset; SoftObjectPaths (5.1+)."""
    tables: struct.Struct
    """Gatherable text (459+); export and import counts and offsets; cells (1015+); MetaDataOffset (1014+);
    DependsOffset; SoftPackageReferences (384+); SearchableNamesOffset (510+); ThumbnailTableOffset; import
    type hierarchies (1018+); Guid (before 1016); PersistentGuid (518+, uncooked); OwnerPersistentGuid
    (518 to 519, uncooked); the count of generations."""
    compression: struct.Struct
    """CompressionFlags; the count of CompressedChunks; PackageSource; the count of AdditionalPackagesToCook."""
    trailer: struct.Struct
    """NumTextureAllocations (before -7); AssetRegistryDataOffset; BulkDataStartOffset; WorldTileInfoDataOffset
    (224+); the count of chunk IDs (326+) or the ChunkID (278 to 325)."""
    end: struct.Struct
    """PreloadDependencies (507+); NamesReferencedFromExportDataCount (1001+); PayloadTocOffset (1002+);
    DataResourceOffset (1009+): nothing that is needed, only their size."""
    localization_id: bool
    texture_allocations: bool
    chunk_ids: bool


def _pad(present: bool, size: int) -> str:
    return f"{size}x" if present else ""


@functools.cache
def _layout(legacy: int, ue4: int, ue5: int, cooked: bool, byte_order: str) -> _Layout:
    editor = not cooked
    names = "2i" + _pad(ue5 >= _UE5_ADD_SOFTOBJECTPATH_LIST, 8)
    tables = (
        _pad(ue4 >= _UE4_SERIALIZE_TEXT_IN_PACKAGES, 8)
        + "4i"
        + _pad(ue5 >= _UE5_VERSE_CELLS, 16)
        + _pad(ue5 >= _UE5_METADATA_SERIALIZATION_OFFSET, 4)
        + "4x"
        + _pad(ue4 >= _UE4_ADD_STRING_ASSET_REFERENCES_MAP, 8)
        + _pad(ue4 >= _UE4_ADDED_SEARCHABLE_NAMES, 4)
        + "4x"
        + _pad(ue5 >= _UE5_IMPORT_TYPE_HIERARCHIES, 8)
        + _pad(ue5 < _UE5_PACKAGE_SAVED_HASH, 16)
        + _pad(editor and ue4 >= _UE4_ADDED_PACKAGE_OWNER, 16)
        + _pad(editor and _UE4_ADDED_PACKAGE_OWNER <= ue4 < _UE4_NON_OUTER_PACKAGE_IMPORT, 16)
        + "i"
    )
    texture_allocations = legacy > -7
    chunk_ids = ue4 >= _UE4_CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS
    trailer = (
        ("i" if texture_allocations else "")
        + "12x"
        + _pad(ue4 >= _UE4_WORLD_LEVEL_INFO, 4)
        + ("i" if chunk_ids else _pad(ue4 >= _UE4_ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE, 4))
    )
    end = (
        _pad(ue4 >= _UE4_PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS, 8)
        + _pad(ue5 >= _UE5_NAMES_REFERENCED_FROM_EXPORT_DATA, 4)
        + _pad(ue5 >= _UE5_PAYLOAD_TOC, 8)
        + _pad(ue5 >= _UE5_DATA_RESOURCES, 4)
    )
    return _Layout(
        struct.Struct(byte_order + names),
        struct.Struct(byte_order + tables),
        struct.Struct(byte_order + "Ii4xi"),
        struct.Struct(byte_order + trailer),
        struct.Struct(byte_order + end),
        localization_id=editor and ue4 >= _UE4_ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID,
        texture_allocations=texture_allocations,
        chunk_ids=chunk_ids,
    )


def _read_versioned(
    reader: _Reader, legacy: int, ue4: int, ue5: int, licensee: int, swapped: bool, tail: bytes
) -> PackageSummary:
    """Fields 7 to 40 of the reference's section 2, then the checks of its section 7."""
    saved_hash = None
    if ue5 >= _UE5_PACKAGE_SAVED_HASH:
        saved_hash = reader.raw(20, "SavedHash")
        header_size_at = reader.pos
        total_header_size = reader.i32("TotalHeaderSize")
    custom_versions = _read_custom_versions(reader, legacy)
    if ue5 < _UE5_PACKAGE_SAVED_HASH:
        header_size_at = reader.pos
        total_header_size = reader.i32("TotalHeaderSize")
    package_name = reader.fstring("PackageName")
    package_flags = reader.u32("PackageFlags")
    cooked = bool(package_flags & PKG_FILTER_EDITOR_ONLY)
    layout = _layout(legacy, ue4, ue5, cooked, ">" if swapped else "<")

    names_at = reader.pos
    name_count, name_offset = reader.fields(layout.names, "NameCount to SoftObjectPathsOffset")
    if layout.localization_id:
        reader.fstring("LocalizationId")
    tables_at = reader.pos
    export_count, export_offset, import_count, import_offset, generations = reader.fields(
        layout.tables, "GatherableTextDataCount to the count of generations"
    )
    if generations < 0 or reader.pos + 8 * generations > reader.size:
        raise _Malformed(reader.pos - 4, f"impossible count of generations ({generations})")
    reader.skip(8 * generations, "Generations")

    if ue4 >= _UE4_ENGINE_VERSION_OBJECT:
        saved_by = reader.engine_version("SavedByEngineVersion", "the branch of SavedByEngineVersion")
    else:
        changelist = reader.u32("EngineChangelist")
        saved_by = _engine_version(4, 0, 0, changelist, "") if changelist else _EMPTY_ENGINE_VERSION
    if ue4 >= _UE4_PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION:
        compatible_with = reader.engine_version(
            "CompatibleWithEngineVersion", "the branch of CompatibleWithEngineVersion"
        )
    else:
        compatible_with = saved_by
    if ue4 < _UE4_CORRECT_LICENSEE_FLAG:
        saved_by = _fix_corrupt_engine_version(saved_by)
        compatible_with = _fix_corrupt_engine_version(compatible_with)

    flags_at = reader.pos
    compression_flags, compressed_chunks, additional_packages = reader.fields(
        layout.compression, "CompressionFlags to the count of AdditionalPackagesToCook"
    )
    if compression_flags & ~_VALID_COMPRESSION_FLAGS:
        raise _Malformed(flags_at, f"invalid compression flags 0x{compression_flags:08X}")
    if compressed_chunks:
        raise _Malformed(flags_at + 4, "the package uses package-level compression, which UE4 and later refuse")
    if additional_packages < 0 or reader.pos + 4 * additional_packages > reader.size:
        raise _Malformed(reader.pos - 4, f"impossible count of additional packages to cook ({additional_packages})")
    for _ in range(additional_packages):
        reader.fstring("an additional package to cook")
    trailer_at = reader.pos
    trailer = reader.fields(layout.trailer, "NumTextureAllocations to ChunkIDs")
    if layout.texture_allocations and trailer[0]:
        raise _Malformed(trailer_at, f"NumTextureAllocations is {trailer[0]}, not 0")
    if layout.chunk_ids:
        chunk_ids = trailer[-1]
        if chunk_ids < 0 or reader.pos + 4 * chunk_ids > reader.size:
            raise _Malformed(reader.pos - 4, f"impossible count of chunk IDs ({chunk_ids})")
        reader.skip(4 * chunk_ids, "ChunkIDs")
    reader.skip(layout.end.size, "PreloadDependencyCount to DataResourceOffset")

    # The summary's own numbers must describe a file of this size (reference section 7).
    end, size = reader.pos, reader.size
    if not end <= total_header_size <= size:
        raise _Malformed(
            header_size_at,
            f"TotalHeaderSize {total_header_size} is not between the end of the summary ({end}) "
            f"and the file size ({size})",
        )
    if name_count < 0 or (name_count and not end <= name_offset <= total_header_size):
        raise _Malformed(names_at, f"impossible name table: {name_count} names at byte {name_offset}")
    # Epic's summaries end exactly where the name table starts; a licensee build may add fields of its own.
    if name_count and licensee == 0 and name_offset != end:
        raise _Malformed(names_at, f"NameOffset {name_offset} is not where the summary ends ({end})")
    if export_count < 0 or import_count < 0 or not (0 <= export_offset <= size and 0 <= import_offset <= size):
        raise _Malformed(
            tables_at,
            f"impossible export or import table: {export_count} exports at byte {export_offset}, "
            f"{import_count} imports at byte {import_offset}",
        )
    # An uncooked package ends with the tag too ("Post Tag is not valid. File might be corrupted.").
    if not cooked and (len(tail) != 4 or reader.u32_of(tail) != PACKAGE_FILE_TAG):
        raise _Malformed(size - 4, "the file does not end with the package tag: it is truncated or corrupt")
    return _new_summary(
        legacy,
        ue4,
        ue5,
        licensee,
        custom_versions,
        package_name=package_name,
        package_flags=package_flags,
        total_header_size=total_header_size,
        saved_hash=saved_hash,
        saved_by_engine_version=saved_by,
        compatible_with_engine_version=compatible_with,
        byte_swapped=swapped,
    )


def _fix_corrupt_engine_version(version: EngineVersion) -> EngineVersion:
    """FixCorruptEngineVersion: some 4.26.0 builds set the licensee bit by mistake (before object version 522).

    Unreal rebuilds the version with ``Set(4, 26, 0, GetChangelist(), GetBranch())``: the changelist without the
    licensee bit, and the branch as GetBranch() returns it, with every ``+`` turned into ``/``
    (``++UE4+Release-4.26`` becomes ``//UE4/Release-4.26``). Reference: package-summary.md section 2;
    ``PackageFileSummary.cpp`` of 4.26 and later, ``EngineVersion.h`` (GetBranch).
    """
    if (
        version.licensee
        and version.major == 4
        and version.minor == 26
        and version.patch == 0
        and version.changelist >= 12740027
    ):
        return _engine_version(4, 26, 0, version.changelist, version.branch_path)
    return version
