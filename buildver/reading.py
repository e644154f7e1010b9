"""Reading a file buildver was pointed at: regular files only, and never a wait.

Every reader (Build.version, the header, the settings, data documents) and every writer's check of its target
reads through :func:`read_regular_file`. A FIFO would block the open until some writer appears, and a device such
as ``/dev/zero`` or ``/dev/urandom`` never ends, so both are refused before a byte is read: the path is stat'ed
first (so that a device is not even opened), opened with ``O_NONBLOCK`` where it exists (a FIFO swapped in after
the stat does not block the open), and the open descriptor is checked again.

This is its own small module, not part of ``changes``, because reading commands (``show``) import it on every
run and the writing machinery costs about 3 ms more to import.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = [
    "DATA_DOCUMENT_LIMIT",
    "LFS_POINTER_MAX_SIZE",
    "LFS_POINTER_START",
    "TEXT_FILE_LIMIT",
    "FileTooLargeError",
    "NotRegularFileError",
    "file_kind",
    "is_lfs_pointer",
    "lfs_object_id",
    "read_regular_file",
    "size_text",
]

# O_NONBLOCK: opening a FIFO must not wait for a writer (regular files ignore the flag). O_BINARY: Windows.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


TEXT_FILE_LIMIT = 16 * 1024 * 1024
"""The most buildver reads of a text file it is pointed at: Build.version, a header, the settings, a journal, a
``.uproject``, ``.uplugin`` or ini file. The largest real ones are a few hundred kilobytes (an engine's
BaseEngine.ini); a file above this is a mistake or an attack, and reading it whole could exhaust the memory."""

DATA_DOCUMENT_LIMIT = 512 * 1024 * 1024
"""The most buildver reads of a versioned data document (``buildver.serialization``): user data, so the limit is
far higher, but still below what a JSON parse of it could hold in memory on a build machine."""


class NotRegularFileError(OSError):
    """A path that names a FIFO, a socket or a device: reading it could block or never end."""


class FileTooLargeError(OSError):
    """A regular file larger than the limit for its kind: refused before a byte of it is read."""


def size_text(size: int) -> str:
    """A size for a message: ``512 bytes``, ``16 MiB``, ``2.0 GiB``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}" if size % scale == 0 else f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def read_regular_file(path: str | os.PathLike[str], *, limit: int = TEXT_FILE_LIMIT) -> bytes | None:
    """The bytes of the regular file at ``path`` (symbolic links followed), or None when there is none.

    Raises IsADirectoryError for a folder, NotRegularFileError for a FIFO, socket or device, FileTooLargeError
    for a file of more than ``limit`` bytes (checked before reading, and again while reading, for a file that
    grows), and OSError (``strerror`` says why, ``filename`` names the path) for anything else, a NUL in the path
    included.
    """
    name = os.fspath(path)
    try:
        status = os.stat(name)
        _require_regular(status.st_mode, name)
        _require_size(status.st_size, limit, name)
        descriptor = os.open(name, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except ValueError:  # os functions refuse an embedded NUL with ValueError, not OSError
        raise OSError(errno.EINVAL, "the path contains a NUL character", name) from None
    try:
        status = os.fstat(descriptor)
        _require_regular(status.st_mode, name)  # the path may name another file since the stat
        _require_size(status.st_size, limit, name)
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            data = stream.read(limit + 1)
        if len(data) > limit:  # it grew since the fstat
            raise FileTooLargeError(errno.EFBIG, f"more than the {size_text(limit)} {_LIMIT_REASON}", name)
        return data
    finally:
        os.close(descriptor)


_LIMIT_REASON = "buildver reads of such a file"


def _require_size(size: int, limit: int, name: str) -> None:
    if size > limit:
        reason = f"{size_text(size)}, more than the {size_text(limit)} {_LIMIT_REASON}"
        raise FileTooLargeError(errno.EFBIG, reason, name)


def _require_regular(mode: int, name: str) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder", name)
    raise NotRegularFileError(errno.EINVAL, f"not a regular file but {file_kind(mode)}", name)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file or a folder is, from its ``st_mode``: "a FIFO (named pipe)" …"""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


LFS_POINTER_START = b"version https://git-lfs.github.com/spec/v1\n"
LFS_POINTER_MAX_SIZE = 1024
"""Git LFS pointers are under 200 bytes; its own limit for recognizing one is 1024."""


def is_lfs_pointer(data: bytes) -> bool:
    """Whether ``data`` is a Git LFS pointer: the file is in LFS and ``git lfs pull`` has not fetched it here."""
    return len(data) <= LFS_POINTER_MAX_SIZE and data.startswith(LFS_POINTER_START)


def lfs_object_id(data: bytes) -> str | None:
    """The sha256 object id of a Git LFS pointer, or None when ``data`` is not one that ``git lfs pull`` can fetch.

    Git LFS itself refuses a pointer whose oid is not ``sha256:`` and 64 lowercase hexadecimal digits
    (git-lfs ``lfs/pointer.go``, ``DecodePointer``): such a file is the text it is.
    """
    if not is_lfs_pointer(data):
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key == "oid" and value.startswith("sha256:"):
            oid = value.removeprefix("sha256:")
            if len(oid) == 64 and all(char in "0123456789abcdef" for char in oid):
                return oid
    return None
