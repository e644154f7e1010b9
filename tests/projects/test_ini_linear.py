"""Unreal's config files are read in time linear in their size, whatever their shape (issue 30, item 3): files that
the quadratic reader took minutes or hours over are read here, with the values both readers give. No timing is
asserted; a quadratic reader makes these tests hang (each was minutes before the fix, about a second after)."""

from __future__ import annotations

import pytest

from buildver.projects import unreal_ini
from buildver.projects.ini_edit import with_value
from buildver.projects.unreal_ini import IniError, IniReader, IniValue, effective_value, lookup, parse_ini

pytestmark = pytest.mark.usefixtures("ini_readers")  # with the compiled core and in pure Python

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


def test_a_million_distinct_array_values_give_the_last_new_one_without_a_full_reading() -> None:
    lines = MIB // 10
    data = b"[S]\n" + b"".join(b"+K=v%d\n" % i for i in range(lines)) + b"+K=v1\n"
    document = parse_ini(data, "DefaultEngine.ini")
    assert document.value("S", "K") == IniValue(f"v{lines - 1}", "DefaultEngine.ini", lines + 1)  # v1 was there
    assert document.value("S", "K", reader=IniReader.UBT) == IniValue("v0", "DefaultEngine.ini", 2)
    assert not document._readings


@pytest.mark.parametrize(("tail", "engine"), [(b"", None), (b".K=w\n", "w"), (b".K=w\n-K=w\n", None)])
def test_a_million_lines_emptied_again_and_again_read_as_the_lines_after_the_last(
    tail: bytes, engine: str | None
) -> None:
    data = b"[S]\n" + b".K=v\n!K=\n" * (MIB // 10) + tail
    document = parse_ini(data, "DefaultEngine.ini")
    assert document.get("S", "K") == engine
    assert document.get("S", "K", reader=IniReader.UBT) is None  # '.K' is another key for UnrealBuildTool


@pytest.mark.parametrize(
    ("head", "unit", "tail", "written"),
    [
        pytest.param(b"[S]\nK=1\n[T]\n", b"X=a|" * 16, b"\n", b"[S]\nK=2\n[T]\n", id="edit-before-a-long-line"),
        pytest.param(b"[S]\n", b"[S]\n", b"", None, id="a-million-headers"),
        pytest.param(b"[S]\nX=", b"a\\\n", b"b\n\n[T]\n", None, id="continued-lines"),
        pytest.param(b"[S]\n", b".K=v\n!K=\n", b"", None, id="emptied-key"),
    ],
)
def test_a_megabyte_file_is_edited_without_a_full_reading(
    head: bytes, unit: bytes, tail: bytes, written: bytes | None
) -> None:
    data = head + unit * (MIB // len(unit)) + tail
    document = parse_ini(data, "DefaultEngine.ini")
    result = with_value(document, "S", "K", "2")
    assert not document._readings
    if written is not None:
        assert result.startswith(written)
        assert result[len(written) :] == data[len(head) :]
    after = parse_ini(result, "DefaultEngine.ini")
    assert after.get("S", "K") == after.get("S", "K", reader=IniReader.UBT) == "2"
    assert len(result) == len(data) + (0 if written else len(b"K=2\n"))  # one value edited, or one line added


def test_struct_keys_that_change_over_many_values_are_refused_with_their_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unreal_ini, "_STRUCT_WORK", 10_000)
    data = (
        b"[S]\n"
        + b"".join(b".K=Id=%d\n" % i for i in range(2000))
        + b"".join(b"@K=N%d\n.K=N%d=1\n" % (i, i) for i in range(100))
    )
    document = parse_ini(data, "DefaultEngine.ini")
    with pytest.raises(IniError, match=r"^DefaultEngine\.ini: line \d+: the '@' struct keys of K in \[S\]"):
        effective_value((document,), "S", "K")


@pytest.mark.parametrize(
    ("unit", "section", "engine", "ubt", "edited"),
    [
        pytest.param(b"[S]\nK=1\n[T]\nK=2\n", "S", ("1", -1, 2), ("1", -1, 2), b"[S]\nK=9\n[T]\nK=2\n", id="switches"),
        pytest.param(
            b"[S]\nK=1\n[T]\nK=2\n", "T", ("2", -1, 4), ("2", -1, 4), b"[S]\nK=1\n[T]\nK=9\n", id="switches-to-t"
        ),
        pytest.param(
            b"[S]\nK=1\n[T]\nK=2\n[U]\nK=3\n",
            "T",
            ("2", -1, 4),
            ("2", -1, 4),
            b"[S]\nK=1\n[T]\nK=9\n[U]\nK=3\n",
            id="three-sections",
        ),
        pytest.param(
            b"[S]\r\nK=1\r\n[T]\r\nK=2\r\n",
            "S",
            ("1", -1, 2),
            ("1", -1, 2),
            b"[S]\r\nK=9\r\n[T]\r\nK=2\r\n",
            id="crlf",
        ),
        pytest.param(
            b"[S]\nK=1\n\n;c\n[T]\nK=2\n//x\n",
            "T",
            ("2", -1, 6),
            ("2", -1, 6),
            b"[S]\nK=1\n\n;c\n[T]\nK=9\n//x\n",
            id="comments-between",
        ),
        pytest.param(
            b"[S]\nK=1\n[T]\nX=1\n[S]\nK=2\n[T]\nX=2\n",
            "S",
            ("2", -1, 6),
            ("2", -1, 6),
            b"[S]\nK=1\n[T]\nX=1\n[S]\nK=9\n[T]\nX=2\n",
            id="two-values",
        ),
        pytest.param(b"[S]\n!K=\n.K=v\n[T]\nK=2\n", "S", ("v", -1, 3), None, None, id="emptied"),
        pytest.param(b"[S]\n+K=v\n[T]\n+K=w\n", "S", ("v", 0, 2), ("v", 0, 2), None, id="plus"),  # '+' adds once
        pytest.param(b"[S]\n.K=v\n[T]\n.K=w\n", "S", ("v", -1, 2), None, None, id="dot"),  # '.K': another key
    ],
)
def test_a_megabyte_of_sections_switching_every_few_lines_reads_the_key_in_a_few_runs(
    unit: bytes,
    section: str,
    engine: tuple[str, int, int] | None,
    ubt: tuple[str, int, int] | None,
    edited: bytes | None,
) -> None:
    times = MIB // len(unit)
    data = unit * times
    lines = unit.count(b"\n")
    document = parse_ini(data, "DefaultEngine.ini")
    for reader, expected in ((IniReader.ENGINE, engine), (IniReader.UBT, ubt)):
        want = None
        if expected is not None:
            value, index, line = expected
            want = IniValue(value, "DefaultEngine.ini", (index % times) * lines + line)
        assert document.value(section, "K", reader=reader) == want
        assert len(document.key_runs(reader, section, "K")) <= 4  # the first, the repetitions, the last two
    assert not document._readings
    if edited is None:
        with pytest.raises(IniError, match=r"K is also set by"):
            with_value(document, section, "K", "9")
    else:
        assert with_value(document, section, "K", "9") == unit * (times - 1) + edited


def test_a_megabyte_of_a_section_coming_again_with_another_value_each_time_reads_its_last() -> None:
    times = MIB // 24
    data = b"".join(b"[S]\nK=%d\n[T]\nK=%d\n" % (i, -i) for i in range(times))
    document = parse_ini(data, "DefaultEngine.ini")
    for reader in IniReader:
        assert document.value("S", "K", reader=reader) == IniValue(str(times - 1), "DefaultEngine.ini", 4 * times - 2)
        assert len(document.key_runs(reader, "S", "K")) <= 8  # chunks through the other sections, the last kept
    assert not document._readings
    last = b"[S]\nK=%d\n[T]\nK=%d\n" % (times - 1, 1 - times)
    assert with_value(document, "S", "K", "x") == data[: -len(last)] + b"[S]\nK=x\n[T]\nK=%d\n" % (1 - times)


def test_a_megabyte_of_values_moved_to_the_end_again_and_again_reads_as_one_move() -> None:
    unit = b"[S]\n-K=v\n.K=v\n[T]\nX=1\n"
    times = MIB // len(unit)
    document = parse_ini(unit * times, "DefaultEngine.ini")
    assert document.value("S", "K") == IniValue("v", "DefaultEngine.ini", 5 * times - 2)
    assert lookup((document,), "S", "K") == (IniValue("v", "DefaultEngine.ini", 5 * times - 2),)
    assert document.value("S", "K", reader=IniReader.UBT) is None  # '.K' is another key; '-K' removes nothing
    assert len(document.key_runs(IniReader.ENGINE, "S", "K")) <= 4  # the first, the last two
    assert not document._readings
    with pytest.raises(IniError, match=r"K is also set by"):
        with_value(document, "S", "K", "9")


@pytest.mark.parametrize(
    ("section", "written"),
    [
        pytest.param("S7", b"[S7]\nx=1\nK=2\n[S8]\n", id="to-one-of-them"),
        pytest.param("S", None, id="a-new-section"),
    ],
)
def test_a_key_is_added_to_a_megabyte_of_distinct_sections_without_a_full_reading(
    section: str, written: bytes | None
) -> None:
    data = b"".join(b"[S%d]\nx=1\n" % i for i in range(MIB // 12))
    document = parse_ini(data, "DefaultEngine.ini")
    result = with_value(document, section, "K", "2")
    assert not document._readings
    if written is None:
        assert result == data + b"\n[S]\nK=2\n"
    else:
        at = data.index(b"[S7]")
        assert result == data[:at] + written + data[at + len(b"[S7]\nx=1\n[S8]\n") :]


@pytest.mark.parametrize(
    ("tail", "value"),
    [pytest.param(b"", None, id="never-set"), pytest.param(b"[T]\nY=1\nK=7\n", "7", id="set-at-the-end")],
)
def test_a_megabyte_of_a_section_without_the_key_among_sections_with_it_reads_what_its_lines_say(
    tail: bytes, value: str | None
) -> None:
    unit = b"[S]\nK=1\n[T]\nX=1\n"
    times = MIB // len(unit)
    data = unit * times + tail
    document = parse_ini(data, "DefaultEngine.ini")
    want = None if value is None else IniValue(value, "DefaultEngine.ini", 4 * times + 3)
    for reader in IniReader:
        assert document.value("T", "K", reader=reader) == want
        assert document.value("S", "K", reader=reader) == IniValue("1", "DefaultEngine.ini", 4 * times - 2)
    assert not document._readings
    written = with_value(document, "T", "K", "2")
    if value is None:
        assert written == data + b"K=2\n"  # after the last line of the last [T]
    else:
        assert written == unit * times + b"[T]\nY=1\nK=2\n"
