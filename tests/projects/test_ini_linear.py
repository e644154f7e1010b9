"""Unreal's config files are read in time linear in their size, whatever their shape (issue 30, item 3): files that
the quadratic reader took minutes or hours over are read here, with the values both readers give. No timing is
asserted; a quadratic reader makes these tests hang (each was minutes before the fix, about a second after)."""

from __future__ import annotations

import pytest

from buildver.projects.unreal_ini import IniReader, IniValue, lookup, parse_ini

MIB = 1024 * 1024


def test_one_line_of_a_megabyte_split_at_bars_gives_its_last_key() -> None:
    data = b"[S]\nX=" + b"a|" * (MIB // 2) + b"K=1|K=2\n"
    document = parse_ini(data, "DefaultGame.ini")
    assert document.get("S", "K") == "2"  # the engine splits at '|' (5.1): the last K wins
    assert document.get("S", "X") == "a"
    assert document.get("S", "K", reader=IniReader.UBT) is None  # UnrealBuildTool reads one long X
    assert len(document.get("S", "X", reader=IniReader.UBT) or "") == MIB + len("K=1|K=2")


def test_a_megabyte_of_continued_lines_is_one_value() -> None:
    data = b"[S]\nK=" + b"a\\\n" * (MIB // 3) + b"b\n"
    document = parse_ini(data, "DefaultGame.ini")
    engine = document.get("S", "K") or ""
    ubt = document.get("S", "K", reader=IniReader.UBT) or ""
    assert engine == "a " * (MIB // 3) + "b"  # the engine joins with a space
    assert ubt == "a\\" * (MIB // 3) + "b"  # UnrealBuildTool keeps the backslash


@pytest.mark.parametrize(
    ("lines", "engine", "ubt"),
    [
        pytest.param(
            [b".K=v%d" % i for i in range(100_000)] + [b"-K=v%d" % i for i in range(99_999)], 1, 0, id="minus"
        ),
        pytest.param([b"+K=v%d" % i for i in range(100_000)] + [b"+K=v0"], 100_000, 100_001, id="plus"),
        pytest.param(
            [line for i in range(100_000) for line in (b"+K=v%d" % i, b"-K=V%d" % i)] + [b"+K=w"],
            100_001,
            1,
            id="minus-any-case",
        ),
    ],
)
def test_a_hundred_thousand_array_lines_merge_as_unreal_merges_them(lines: list[bytes], engine: int, ubt: int) -> None:
    document = parse_ini(b"[S]\n" + b"\n".join(lines) + b"\n", "DefaultEngine.ini")
    assert len(lookup((document,), "S", "K")) == engine
    assert len(lookup((document,), "S", "K", reader=IniReader.UBT)) == ubt


def test_a_key_of_a_million_lines_is_read_from_its_own_lines_without_a_record_per_line() -> None:
    lines = MIB // 6
    data = b"\xef\xbb\xbf[S]\r\n" + b"+K=v\r\n" * lines + b"[T]\r\nK=w\r\n"
    document = parse_ini(data, "DefaultEngine.ini")
    assert document.value("S", "K") == IniValue("v", "DefaultEngine.ini", 2)  # '+' adds once: the first line
    assert document.value("S", "K", reader=IniReader.UBT) == IniValue("v", "DefaultEngine.ini", 2)
    assert len(document.get_all("S", "K", reader=IniReader.UBT)) == lines  # UnrealBuildTool's '+' adds them all
    assert document.value("T", "k") == IniValue("w", "DefaultEngine.ini", lines + 3)
    assert document.sections() == ("S", "T")
    assert document.get("S", "Other") is None
    assert not document._readings  # no reader read every line
