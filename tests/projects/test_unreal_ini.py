"""Unreal's config files read as the engine and UnrealBuildTool read them, and edited in place byte for byte.

Real files (tests/data/ini, listed with their sources and licences in MANIFEST.tsv) and synthetic ones for every
line rule the module's docstring cites.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buildver.projects.ini_edit import set_ini_value, with_value, write_line
from buildver.projects.unreal_ini import (
    IniAction,
    IniDocument,
    IniEncoding,
    IniError,
    IniReader,
    effective_value,
    lookup,
    parse_ini,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "ini"
SAMPLES = sorted(path.relative_to(DATA).as_posix() for path in DATA.rglob("*.ini"))
ENGINE, UBT = IniReader.ENGINE, IniReader.UBT
ANDROID = "/Script/AndroidRuntimeSettings.AndroidRuntimeSettings"
IOS = "/Script/IOSRuntimeSettings.IOSRuntimeSettings"
GAME = "/Script/EngineSettings.GeneralProjectSettings"


def sample(name: str) -> IniDocument:
    return parse_ini((DATA / name).read_bytes(), name)


def ini(text: str) -> IniDocument:
    return parse_ini(text.encode(), "t.ini")


class TestSamples:
    """The real files: listed with their licences, read with their versions, and written back unchanged."""

    def test_every_sample_is_listed_in_the_manifest_with_a_licence_file(self) -> None:
        with (DATA / "MANIFEST.tsv").open(newline="", encoding="utf-8") as stream:
            rows = list(csv.DictReader(stream, delimiter="\t"))
        assert sorted(row["path"] for row in rows) == SAMPLES
        for row in rows:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+", row["source"])
            assert (DATA / row["path"].split("/")[0] / "LICENSE").is_file()
            assert row["licence"].startswith("MIT")

    @pytest.mark.parametrize(
        ("name", "section", "key", "reader", "expected", "line"),
        [
            ("tankfire/Config/DefaultGame.ini", GAME, "ProjectVersion", ENGINE, "1.0.3.0", 9),
            ("tankfire/Config/DefaultEngine.ini", IOS, "VersionInfo", UBT, "2.0", 90),
            ("tankfire/Config/DefaultEngine.ini", ANDROID, "StoreVersion", UBT, "3", 106),
            ("tankfire/Config/DefaultEngine.ini", ANDROID, "VersionDisplayName", UBT, "1.0", 108),
            ("pioza/Config/DefaultGame.ini", GAME, "ProjectVersion", ENGINE, "0.8.3", 12),
            ("pioza/Config/DefaultEngine.ini", ANDROID, "StoreVersionOffsetArm64", UBT, "0", 310),
            ("pioza/Config/DefaultEngine.ini", ANDROID, "VersionDisplayName", UBT, "0.8.0", 313),
            ("sentry/Config/DefaultEngine.ini", ANDROID, "StoreVersionOffsetArmV7", UBT, "0", 148),
            (
                "tankfire/Config/UWP/UWPEngine.ini",
                "/Script/UWPPlatformEditor.UWPTargetSettings",
                "TitleId",
                UBT,
                "76ed6752",
                4,
            ),
        ],
    )
    def test_samples_give_the_values_and_lines_unreal_reads(
        self, name: str, section: str, key: str, reader: IniReader, expected: str, line: int
    ) -> None:
        found = sample(name).value(section, key, reader=reader)
        assert found is not None
        assert (found.value, found.path, found.line) == (expected, name, line)

    def test_a_utf16_sample_with_crlf_is_decoded_whole(self) -> None:
        document = sample("tankfire/Config/UWP/UWPEngine.ini")
        assert document.encoding is IniEncoding.UTF16_LE
        assert document.newline == "\r\n"
        assert (
            "坦克在线射击游戏"
            in document.get_all("/Script/UWPPlatformEditor.UWPTargetSettings", "PerCultureResources")[1]
        )

    @pytest.mark.parametrize("name", SAMPLES)
    def test_writing_back_what_the_engine_reads_leaves_every_sample_unchanged(self, name: str) -> None:
        """with_value(document, section, key, get(section, key)) is the identity for every key set by one plain
        line; any other key is refused with one line naming the reason."""
        data = (DATA / name).read_bytes()
        document = parse_ini(data, name)
        unchanged = 0
        for section, key in _keys(document):
            value = document.get(section, key)
            if value is None:
                continue
            result, refusal = _write(document, section, key, value)
            if refusal is not None:
                assert re.fullmatch(rf"{re.escape(name)}: line \d+: .+", refusal)
                assert not _plain_in_both(document, section, key), refusal
                continue
            assert result == data, (section, key)
            unchanged += 1
        assert unchanged >= 1

    @pytest.mark.parametrize(
        ("name", "section", "key", "value"),
        [
            ("tankfire/Config/DefaultGame.ini", GAME, "ProjectVersion", "1.0.4.0"),
            ("tankfire/Config/DefaultEngine.ini", ANDROID, "StoreVersion", "2100000000"),
            ("tankfire/Config/DefaultEngine.ini", IOS, "VersionInfo", "2.1"),
            ("pioza/Config/DefaultEngine.ini", ANDROID, "VersionDisplayName", "0.9.0-rc1"),
            ("sentry/Config/DefaultEngine.ini", ANDROID, "StoreVersion", "42"),
            ("tankfire/Config/UWP/UWPEngine.ini", "/Script/UWPPlatformEditor.UWPTargetSettings", "TitleId", "坦克"),
            ("pioza/Config/Localization/Launcher_Import.ini", "CommonSettings", "NativeCulture", "pl"),
        ],
    )
    def test_editing_one_key_changes_only_its_value_bytes(self, name: str, section: str, key: str, value: str) -> None:
        data = (DATA / name).read_bytes()
        document = parse_ini(data, name)
        old = document.get(section, key)
        assert old is not None
        result = with_value(document, section, key, value)
        codec = document.encoding.codec
        prefix = _common_prefix(data, result)
        suffix = _common_prefix(data[prefix:][::-1], result[prefix:][::-1])
        assert data[prefix : len(data) - suffix] in old.encode(codec)
        assert result[prefix : len(result) - suffix] in value.encode(codec)
        after = parse_ini(result, name)
        assert after.encoding is document.encoding
        assert after.get(section, key) == after.get(section, key, reader=UBT) == value
        for reader in IniReader:
            before_entries = [(e.section, e.key, e.value) for e in document.entries(reader) if e.key != key]
            assert [(e.section, e.key, e.value) for e in after.entries(reader) if e.key != key] == before_entries


def _write(document: IniDocument, section: str, key: str, value: str) -> tuple[bytes | None, str | None]:
    """The bytes with_value returns, or the message it refuses with."""
    try:
        return with_value(document, section, key, value), None
    except IniError as error:
        return None, str(error)


def _common_prefix(first: bytes, second: bytes) -> int:
    return next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), min(len(first), len(second))
    )


def _keys(document: IniDocument) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for entry in document.entries(ENGINE):
        seen.setdefault((entry.section.lower(), entry.key.lower()), (entry.section, entry.key))
    return list(seen.values())


def _plain_in_both(document: IniDocument, section: str, key: str) -> bool:
    """A key both readers take from the same single plain line, and read alike."""
    lines = {
        reader: [e for e in document.entries(reader) if e.section.lower() == section.lower() and e.key == key]
        for reader in IniReader
    }
    engine, ubt = lines[ENGINE], lines[UBT]
    return (
        bool(engine and ubt)
        and all(e.action is IniAction.SET for e in engine + ubt)
        and engine[-1].line == ubt[-1].line
        and engine[-1].value == ubt[-1].value
    )


class TestEncodings:
    """Bytes decoded as FFileHelper::BufferToString decodes them; bytes Unreal would mangle refused with a line."""

    @pytest.mark.parametrize(
        ("data", "encoding"),
        [
            (b"[S]\nK=v\n", IniEncoding.UTF8),
            (b"\xef\xbb\xbf[S]\nK=v\n", IniEncoding.UTF8_BOM),
            ("\ufeff[S]\r\nK=v\r\n".encode("utf-16-le"), IniEncoding.UTF16_LE),
            ("\ufeff[S]\r\nK=v\r\n".encode("utf-16-be"), IniEncoding.UTF16_BE),
        ],
    )
    def test_utf8_and_utf16_with_their_marks_read_the_same_value(self, data: bytes, encoding: IniEncoding) -> None:
        document = parse_ini(data, "t.ini")
        assert document.encoding is encoding
        assert document.get("S", "K") == document.get("S", "K", reader=UBT) == "v"

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            (b"[S]\nK=1\nV=\xff\n", r"t\.ini: line 3: bytes that are not UTF-8 \(byte 10\)"),
            (b"[S]\nK=\x001\n", r"t\.ini: line 2: a NUL character: Unreal stops reading the file there"),
            ("[S]\nK=1\n".encode("utf-16-le"), r"t\.ini: line 1: a NUL character: .+"),
            (b"\xff\xfe[\x00S\x00]", r"t\.ini: line 1: a UTF-16 byte-order mark but an odd number of bytes \(7\): .+"),
            (b"\xff\xfe[\x00\x00\xd8", r"t\.ini: line 1: bytes that are not UTF-16-LE \(byte 2\)"),
            (b"\xef\xbb\xbf[S]\r\n\xc3", r"t\.ini: line 2: bytes that are not UTF-8 \(byte 5\)"),
        ],
    )
    def test_bytes_unreal_would_mangle_are_refused_with_their_line(self, data: bytes, message: str) -> None:
        with pytest.raises(IniError, match=rf"^{message}$"):
            parse_ini(data, "t.ini")


# (text, section, key, the engine's value, UnrealBuildTool's value, the engine's array, UnrealBuildTool's array)
READING_CASES: list[tuple[str, str, str, str | None, str | None, tuple[str, ...], tuple[str, ...]]] = [
    ("[S]\nK=1\n", "S", "K", "1", "1", ("1",), ("1",)),
    ("[S]\nK=1\nK=2\n", "S", "K", "2", "2", ("2",), ("2",)),
    ("[S]\nK=1\n[T]\nK=9\n[S]\nK=2\n", "S", "K", "2", "2", ("2",), ("2",)),
    ("[s]\nk=1\n", "S", "K", "1", "1", ("1",), ("1",)),
    ("[S]\n+K=a\n+K=a\n+K=b\n", "S", "K", "b", "a", ("a", "b"), ("a", "a", "b")),
    ("[S]\n.K=a\n.K=a\n", "S", "K", "a", None, ("a", "a"), ()),
    ("[S]\n+K=a\n+K=b\n-K=a\n", "S", "K", "b", "b", ("b",), ("b",)),
    ("[S]\n+K=a\n-K=A\n", "S", "K", "a", None, ("a",), ()),
    ("[S]\n.K=a\n.K=b\n.K=a\n-K=a\n", "S", "K", "b", None, ("a", "b"), ()),
    ("[S]\n+K=a\n!K=ClearArray\n+K=b\n", "S", "K", "b", "b", ("b",), ("b",)),
    ("[S]\n+K=a\n!K\n", "S", "K", "a", None, ("a",), ()),
    ("[S]\n+K=a\n+K=b\nK=c\n", "S", "K", "c", "c", ("a", "c"), ("c",)),
    (
        "[S]\n@K=Name\n+K=(Name=a,V=1)\n+K=(Name=b,V=1)\n+K=(name=a,V=2)\n",
        "S",
        "K",
        "(Name=b,V=1)",
        "(Name=a,V=1)",
        ("(name=a,V=2)", "(Name=b,V=1)"),
        ("(Name=a,V=1)", "(Name=b,V=1)", "(name=a,V=2)"),
    ),
    ("[S]\n~K=1\n", "S", "K", "1", None, ("1",), ()),
    ("[S]\n;K=1\n", "S", "K", None, None, (), ()),
    ("[S]\n  ;K=1\n", "S", "K", None, None, (), ()),
    ("[S]\n//K=1\n", "S", "K", None, None, (), ()),
    ("[S]\n#K=1\n", "S", "#K", "1", "1", ("1",), ("1",)),
    ("[S]\nK=1 // note\n", "S", "K", "1", "1 // note", ("1",), ("1 // note",)),
    ("[S]\n  K  =  v w \t\n", "S", "K", "v w", "v w", ("v w",), ("v w",)),
    ('[S]\nK="a b"\n', "S", "K", "a b", "a b", ("a b",), ("a b",)),
    ('[S]\nK="a\\"b"\n', "S", "K", 'a"b', 'a\\"b', ('a"b',), ('a\\"b',)),
    ('[S]\nK="x" tail\n', "S", "K", "x", '"x" tail', ("x",), ('"x" tail',)),
    ('[S]\nK="http://a|b"\n', "S", "K", "http://a|b", "http://a|b", ("http://a|b",), ("http://a|b",)),
    (
        '[S]\nK="\\t\\101\\x42\\u0043\\q"\n',
        "S",
        "K",
        "\tABC\\q",
        "\\t\\101\\x42\\u0043\\q",
        ("\tABC\\q",),
        ("\\t\\101\\x42\\u0043\\q",),
    ),
    ("[S]\nK=a\\\nb\n", "S", "K", "a b", "a\\b", ("a b",), ("a\\b",)),
    ("[S]\nK={a\nb}\n", "S", "K", "a b", "{a", ("a b",), ("{a",)),
    ("[S]\nK=a|J=b\n", "S", "J", "b", None, ("b",), ()),
    ("  [S]\nK=1\n", "S", "K", None, "1", (), ("1",)),
    ("[S]\nK=1\n[T\nK=2\n", "S", "K", "2", "1", ("2",), ("1",)),
    ("K=1\n[S]\n", "S", "K", None, None, (), ()),
    ("[S]\r\nK=1\r\n", "S", "K", "1", "1", ("1",), ("1",)),
    ("[S]\rK=1\r", "S", "K", "1", "1", ("1",), ("1",)),
    ("[S]\nK=\n", "S", "K", "", "", ("",), ("",)),
    ("[S]\n+ K=1\n", "S", " K", "1", None, ("1",), ()),
    ("[S]\n+ K=1\n", "S", "K", None, "1", (), ("1",)),
]


@pytest.mark.parametrize(("text", "section", "key", "engine", "ubt", "engine_all", "ubt_all"), READING_CASES)
def test_each_reader_applies_unreals_line_rules(
    text: str,
    section: str,
    key: str,
    engine: str | None,
    ubt: str | None,
    engine_all: tuple[str, ...],
    ubt_all: tuple[str, ...],
) -> None:
    document = ini(text)
    assert (document.get(section, key), document.get(section, key, reader=UBT)) == (engine, ubt)
    assert (document.get_all(section, key), document.get_all(section, key, reader=UBT)) == (engine_all, ubt_all)


def test_repeated_sections_are_one_section_in_both_readers() -> None:
    document = ini("[A]\nX=1\n[B]\nY=1\n[a]\nZ=1\n")
    assert document.sections() == document.sections(UBT) == ("A", "B")


def test_a_hierarchy_combines_files_in_order_as_each_reader_does() -> None:
    base = parse_ini(b"[S]\n+K=a\nV=1\n", "Config/DefaultEngine.ini")
    platform = parse_ini(b"[S]\n+K=b\nV=2\n", "Config/Android/AndroidEngine.ini")
    assert [(v.value, v.path, v.line) for v in lookup((base, platform), "S", "K", reader=UBT)] == [
        ("a", "Config/DefaultEngine.ini", 2),
        ("b", "Config/Android/AndroidEngine.ini", 2),
    ]
    found = effective_value((base, platform), "S", "V", reader=UBT)
    assert found is not None
    assert (found.value, found.path) == ("2", "Config/Android/AndroidEngine.ini")
    assert effective_value((base, platform), "S", "K") == lookup((base, platform), "S", "K")[-1]


class TestWriting:
    """Edits in place, additions at the end of the section or the file, and refusals that change nothing."""

    @pytest.mark.parametrize(
        ("before", "section", "key", "value", "after"),
        [
            (b"[S]\nK=1\n", "S", "K", "2", b"[S]\nK=2\n"),
            (b"[S]\r\n  K = 1  ; kept\r\n", "S", "k", "2", b"[S]\r\n  K = 2\r\n"),
            (b'[S]\nK = "1.0"\n', "S", "K", "1.1", b'[S]\nK = "1.1"\n'),
            (b'[S]\nK="1"\n', "S", "K", "a//b", b'[S]\nK="a//b"\n'),
            (b"[S]\nK=1\nK=2\n", "S", "K", "3", b"[S]\nK=1\nK=3\n"),
            (b"[S]\n+K=a\n+K=b\nK=c\n", "S", "K", "d", b"[S]\n+K=a\n+K=b\nK=d\n"),
            (b"\xef\xbb\xbf[S]\nK=1", "S", "K", "22", b"\xef\xbb\xbf[S]\nK=22"),
            (b"[S]\nA=1\n", "S", "K", "2", b"[S]\nA=1\nK=2\n"),
            (b"[S]\nA=1", "S", "K", "2", b"[S]\nA=1\nK=2"),
            (b"[S]\r\nA=1\r\n\r\n[T]\r\n", "S", "K", "2", b"[S]\r\nA=1\r\nK=2\r\n\r\n[T]\r\n"),
            (
                b"[S]\nA=1\n\n[T]\nB=1\n\n[s]\nC=1\n\n; the next section\n[U]\n",
                "S",
                "K",
                "2",
                b"[S]\nA=1\n\n[T]\nB=1\n\n[s]\nC=1\nK=2\n\n; the next section\n[U]\n",
            ),
            (b"[S]\n", "S", "K", "2", b"[S]\nK=2\n"),
            (b"[S]\n+K=a\n-K=a\n", "S", "K", "b", b"[S]\n+K=a\n-K=a\nK=b\n"),
            (b"", "S", "K", "1", b"[S]\nK=1\n"),
            (b"[A]\nX=1\n", "S", "K", "1", b"[A]\nX=1\n\n[S]\nK=1\n"),
            (b"[A]\r\nX=1", "S", "K", "1", b"[A]\r\nX=1\r\n\r\n[S]\r\nK=1"),
            (b"[A]\nX=1\n\n", "S", "K", "1", b"[A]\nX=1\n\n[S]\nK=1\n"),
            (b"; only a comment\n", "S", "K", "1", b"; only a comment\n\n[S]\nK=1\n"),
        ],
    )
    def test_a_value_is_edited_in_place_or_added_where_unreal_reads_it(
        self, before: bytes, section: str, key: str, value: str, after: bytes
    ) -> None:
        assert set_ini_value(before, section, key, value, "t.ini") == after
        written = parse_ini(after, "t.ini")
        assert written.get(section, key) == written.get(section, key, reader=UBT) == value

    def test_writing_the_same_value_returns_the_same_bytes(self) -> None:
        data = b"[S]\r\nK = 1\r\n"
        assert set_ini_value(data, "S", "K", "1", "t.ini") is not None
        assert set_ini_value(data, "S", "K", "1", "t.ini") == data

    @pytest.mark.parametrize(
        ("data", "encoding"),
        [
            ("\ufeff[S]\r\nK=1\r\n".encode("utf-16-le"), "utf-16-le"),
            ("\ufeff[S]\nK=1".encode("utf-16-be"), "utf-16-be"),
        ],
    )
    def test_utf16_files_keep_their_mark_and_line_breaks(self, data: bytes, encoding: str) -> None:
        for key in ("K", "New"):
            result = set_ini_value(data, "S", key, "é2", "t.ini")
            assert result[:2] == data[:2]
            text = result[2:].decode(encoding)
            assert text.count("\r\n") == data[2:].decode(encoding).count("\r\n") + (key == "New") * ("\r\n" in text)
            assert parse_ini(result, "t.ini").get("S", key) == "é2"

    @pytest.mark.parametrize(
        ("data", "section", "key", "value", "message"),
        [
            (b"[S]\nK=1\n", "S", "K", "1\n2", r"line 2: cannot write '1\\n2': it holds a line break"),
            (b"[S]\nK=1\n", "S", "K", "1\x002", r"line 2: cannot write '1\\x002': it holds a NUL character"),
            (b"[S]\nK=1\n", "S", "K", "1\x1b", r"line 2: cannot write '1\\x1b': it holds a control character"),
            (b"[S]\nK=1\n", "S", "K", " 1", r"line 2: cannot write ' 1': it starts or ends with whitespace, .+"),
            (b"[S]\nK=1\n", "S", "K", "a\\", r"line 2: cannot write 'a\\\\': it ends with a backslash, .+"),
            (b"[S]\nK=1\n", "S", "K", "a//b", r"line 2: cannot write 'a//b': the engine would read 'a'"),
            (b"[S]\nK=1\n", "S", "K", "{a}", r"line 2: cannot write '\{a\}': the engine would read 'a'"),
            (b"[S]\nK=1\n", "S", "K", "a|b", r"line 2: cannot write 'a\|b': the engine would read 'a'"),
            (b"[S]\nK=1\n", "S", "K", '"a"', r"line 2: cannot write '\"a\"': the engine would read 'a'"),
            (b'[S]\nK="1"\n', "S", "K", 'a"b', r"line 2: cannot write 'a\"b': the engine would read 'a'"),
            (b"[S]\nA=1\n", "S", "K", "x{", r"line 3: cannot write 'x\{': the engine would read 'x'"),
            (b"[S]\n+K=a\n", "S", "K", "b", r"line 2: K is also set by '\+', .+ plain Key=Value line"),
            (b"[S]\nK=1\n+K=2\n", "S", "K", "b", r"line 3: K is also set by .+"),
            (b"[S]\n@K=Name\nK=(Name=a)\n", "S", "K", "b", r"line 3: K is also set by .+"),
            (b"[S]\nK=a\\\nb\n", "S", "K", "c", r"line 2: K is also set by .+ continued lines, .+"),
            (b"[S]\nK=1 // c\n", "S", "K", "2", r"line 2: the engine reads '1' and UnrealBuildTool reads '1 // c' .+"),
            (b"  [S]\nA=1\n", "S", "K", "2", r"line 1: the engine and UnrealBuildTool do not agree where section .+"),
            (b"[S]\nK=1\n", "S", "+K", "2", r"line 3: cannot write the key '\+K': a key cannot start with .+"),
            (b"[S]\nK=1\n", "S", "K=", "2", r"line 3: cannot write the key 'K=': it holds a quote, .+"),
            (b"[S]\nK=1\n", "S", "", "2", r"line 3: cannot write the key '': an empty key"),
            (b"[A]\nK=1\n", "S]", "K", "2", r"line 5: cannot write the section 'S\]': a section name cannot .+"),
            (b"[S]\nK=1\n", "S", "K", "\ud800", r"line 2: cannot write '\\ud800': it holds a control character"),
        ],
    )
    def test_a_value_that_would_read_differently_is_refused_with_one_line(
        self, data: bytes, section: str, key: str, value: str, message: str
    ) -> None:
        document = parse_ini(data, "t.ini")
        with pytest.raises(IniError, match=rf"^t\.ini: {message}$"):
            with_value(document, section, key, value)
        assert document.data == data

    @pytest.mark.parametrize(
        ("data", "section", "key", "line"),
        [
            (b"[S]\nK=1\n", "S", "K", 2),
            (b"[S]\nA=1\n\n[T]\n", "S", "K", 3),
            (b"[A]\nX=1\n", "S", "K", 5),
            (b"[A]\nX=1\n\n", "S", "K", 5),
            (b"", "S", "K", 2),
        ],
    )
    def test_write_line_names_the_line_a_write_would_touch(
        self, data: bytes, section: str, key: str, line: int
    ) -> None:
        document = parse_ini(data, "t.ini")
        assert write_line(document, section, key) == line
        result = parse_ini(with_value(document, section, key, "v"), "t.ini")
        assert result.value(section, key) == result.value(section, key, reader=UBT)
        found = result.value(section, key)
        assert found is not None
        assert found.line == line


_NAME = st.sampled_from(["A", "B", "Key", "key", "Version", "X.Y"])
_VALUE = st.text(alphabet="ab1.-_ /=;{}|\"\\'", max_size=8)
_LINE = st.one_of(
    st.builds(lambda s: f"[{s}]", st.sampled_from(["S", "T", "s", "/Script/A.B"])),
    st.builds(
        lambda p, k, sp, v: f"{p}{k}{sp}={sp}{v}",
        st.sampled_from(["", "", "+", "-", ".", "!"]),
        _NAME,
        st.sampled_from(["", " "]),
        _VALUE,
    ),
    st.sampled_from(["", "; comment", "// comment", "   ", "\t"]),
)
_DOCUMENT = st.builds(
    lambda lines, newline, final: newline.join(lines) + (newline if final else ""),
    st.lists(_LINE, max_size=12),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)


@given(text=_DOCUMENT, bom=st.sampled_from([b"", b"\xef\xbb\xbf"]))
def test_any_document_round_trips_every_key_both_readers_take_from_one_plain_line(text: str, bom: bytes) -> None:
    data = bom + text.encode()
    document = parse_ini(data, "t.ini")
    for section, key in _keys(document):
        value = document.get(section, key)
        if value is None:
            continue
        result, refusal = _write(document, section, key, value)
        assert result == data if refusal is None else refusal.startswith("t.ini: line ")


@given(text=_DOCUMENT, section=st.sampled_from(["S", "T", "New"]), key=_NAME, value=_VALUE)
def test_a_write_either_fails_with_one_line_or_reads_back_in_both_readers(
    text: str, section: str, key: str, value: str
) -> None:
    document = ini(text)
    result, refusal = _write(document, section, key, value)
    if result is None:
        assert refusal is not None
        assert re.fullmatch(r"t\.ini: line \d+: .+", refusal)
        return
    written = parse_ini(result, "t.ini")
    assert written.get(section, key) == written.get(section, key, reader=UBT) == value
