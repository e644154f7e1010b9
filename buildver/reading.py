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
    "LFS_POINTER_MAX_SIZE",
    "LFS_POINTER_START",
    "NotRegularFileError",
    "file_kind",
    "is_lfs_pointer",
    "read_regular_file",
]

# O_NONBLOCK: opening a FIFO must not wait for a writer (regular files ignore the flag). O_BINARY: Windows.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFileError(OSError):
    """A path that names a FIFO, a socket or a device: reading it could block or never end."""


def read_regular_file(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of the regular file at ``path`` (symbolic links followed), or None when there is none.

    Raises IsADirectoryError for a folder, NotRegularFileError for a FIFO, socket or device, and OSError
    (``strerror`` says why, ``filename`` names the path) for anything else, a NUL in the path included.
    """
    name = os.fspath(path)
    try:
        _require_regular(os.stat(name).st_mode, name)
        descriptor = os.open(name, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except ValueError:  # os functions refuse an embedded NUL with ValueError, not OSError
        raise OSError(errno.EINVAL, "the path contains a NUL character", name) from None
    try:
        _require_regular(os.fstat(descriptor).st_mode, name)  # the path may name another file since the stat
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            return stream.read()
    finally:
        os.close(descriptor)


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
