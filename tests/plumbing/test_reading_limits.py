"""The size limit of every reader, in process (issue 23, item 5): the limit checked on the path, on the open file
and while reading, and the sizes the messages show."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from buildver.reading import FileTooLargeError, file_kind, read_regular_file, size_text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (16 << 20, "16 MiB"),
        ((2 << 30) + (1 << 29), "2.5 GiB"),
        (2 << 30, "2 GiB"),
    ],
)
def test_sizes_read_as_a_person_would_write_them(size: int, text: str) -> None:
    assert size_text(size) == text


def test_a_file_above_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "Build.version"
    big.write_bytes(b"x" * 2049)
    with pytest.raises(FileTooLargeError) as raised:
        read_regular_file(big, limit=2048)
    assert raised.value.strerror == "2.0 KiB, more than the 2 KiB buildver reads of such a file"
    assert raised.value.filename == str(big)
    assert read_regular_file(big, limit=2049) == b"x" * 2049  # at the limit: read


@pytest.mark.skipif(sys.platform != "linux", reason="/proc files: Linux's")
def test_a_file_that_grows_past_its_stat_is_refused_while_reading() -> None:
    # /proc files say they are 0 bytes long and yet hold text: the read itself must stop at the limit.
    with pytest.raises(FileTooLargeError) as raised:
        read_regular_file("/proc/self/status", limit=10)
    assert raised.value.strerror == "more than the 10 bytes buildver reads of such a file"


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        (stat.S_IFIFO, "a FIFO (named pipe)"),
        (stat.S_IFCHR, "a character device"),
        (stat.S_IFBLK, "a block device"),
        (stat.S_IFSOCK, "a socket"),
        (0, "a special file"),
    ],
)
def test_each_kind_of_special_file_is_named(mode: int, kind: str) -> None:
    assert file_kind(mode) == kind
