"""The version header: generated whole, or patched with Unreal 4.18's rules; compiled with the machine's compiler."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildver.errors import HeaderError, InvalidVersionError
from buildver.stamp.header import (
    GENERATED_MARKER,
    c_string_literal,
    c_wide_string_literal,
    header_for,
    is_generated,
    patch_header,
    render_header,
)
from buildver.versions.build_version import BuildVersion

DATA = Path(__file__).parents[1] / "data" / "header"
VERSION_H = (DATA / "Version-4.18.h").read_text(encoding="utf-8")

COMPILERS = {
    "c": ("cc", ["-std=c99"]),
    "c++": ("c++", ["-x", "c++", "-std=c++11"]),
}
# -trigraphs: a "??/" that slipped through would turn into a backslash; -Werror: no "unknown escape" warnings.
STRICT_FLAGS = ["-pedantic", "-Wall", "-Wextra", "-Werror", "-trigraphs"]

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler 'cc' on PATH to compile headers")

# --- Records used by the tables --------------------------------------------------------------------------------

LICENSEE = BuildVersion(4, 18, 3, 4012345, 0, True, True, "++Studio+Game-Main")
EPIC = BuildVersion(4, 18, 3, 3711111, 3710101, False, False, "++UE4+Release-4.18")
UE5 = BuildVersion(5, 3, 2, 29314046, 27405482, True, True, "++UE5+Release-5.3")


# --- Compiling headers and reading their values back ------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """The macros a test program prints from a header: as numbers, narrow strings (bytes) or wide (text)."""

    numbers: tuple[str, ...]
    narrow: tuple[str, ...]
    wide: tuple[str, ...]


GENERATED_PROBE = Probe(
    numbers=(
        "ENGINE_MAJOR_VERSION",
        "ENGINE_MINOR_VERSION",
        "ENGINE_PATCH_VERSION",
        "BUILT_FROM_CHANGELIST",
        "ENGINE_COMPATIBLE_CL_VERSION",
        "ENGINE_IS_LICENSEE_VERSION",
        "ENGINE_IS_PROMOTED_BUILD",
    ),
    narrow=("BRANCH_NAME", "ENGINE_VERSION_STRING"),
    wide=("BUILD_VERSION",),
)
# In 4.18's Version.h, ENGINE_VERSION_STRING is wide (built with VERSION_TEXT) and the net version follows.
VERSION_H_PROBE = Probe(
    numbers=(*GENERATED_PROBE.numbers, "ENGINE_CURRENT_CL_VERSION", "ENGINE_NET_VERSION"),
    narrow=("BRANCH_NAME",),
    wide=("BUILD_VERSION", "ENGINE_VERSION_STRING"),
)

Values = dict[str, object]

_PRELUDE = r"""
#include <stdio.h>
#include <wchar.h>
static void number(const char *name, long long value) { printf("%s %lld\n", name, value); }
static void narrow(const char *name, const char *text, unsigned long count) {
    unsigned long i;
    printf("%s", name);
    for (i = 0; i < count; i++) printf(" %u", (unsigned)(unsigned char)text[i]);
    printf("\n");
}
static void wide(const char *name, const wchar_t *text, unsigned long count) {
    unsigned long i;
    printf("%s", name);
    for (i = 0; i < count; i++) printf(" %lu", (unsigned long)text[i]);
    printf("\n");
}
"""
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)


def _program(headers: Sequence[str], probe: Probe) -> str:
    """One C program that includes every header in turn and prints its macros (each #undef'd before the next)."""
    parts = [_PRELUDE]
    for index, header in enumerate(headers):
        parts.append(f'#include "h{index}.h"\nstatic void dump{index}(void) {{')
        parts += [f'    number("{name}", (long long)({name}));' for name in probe.numbers]
        parts += [
            f'    {{ static const char s[] = {name}; narrow("{name}", s, sizeof s - 1); }}' for name in probe.narrow
        ]
        parts += [
            f'    {{ static const wchar_t s[] = {name}; wide("{name}", s, sizeof s / sizeof s[0] - 1); }}'
            for name in probe.wide
        ]
        parts.append("}")
        parts += [f"#undef {name}" for name in sorted(set(_DEFINE.findall(header)))]
    calls = "".join(f'    puts("@@"); dump{index}();\n' for index in range(len(headers)))
    parts.append(f'int main(void) {{\n    printf("wchar %u\\n", (unsigned)sizeof(wchar_t));\n{calls}    return 0;\n}}')
    return "\n".join(parts) + "\n"


def _wide_text(units: list[int], size: int) -> str:
    if size == 4:
        return "".join(map(chr, units))
    return struct.pack(f"<{len(units)}H", *units).decode("utf-16-le")


def compile_headers(folder: Path, headers: Sequence[str], probe: Probe, language: str = "c") -> list[Values]:
    """Compile and run a program printing ``probe`` from each header; the values of each header in order."""
    # gcc's #pragma once skips a file whose content and time equal an included one's: compile each text once.
    unique = list(dict.fromkeys(headers))
    values = _compile_unique(folder, unique, probe, language)
    return [values[unique.index(header)] for header in headers]


def _compile_unique(folder: Path, headers: Sequence[str], probe: Probe, language: str) -> list[Values]:
    command, language_flags = COMPILERS[language]
    compiler = shutil.which(command)
    if compiler is None:
        pytest.skip(f"no {language} compiler {command!r} on PATH")
    for index, header in enumerate(headers):
        # newline="": the header's own newlines reach the compiler (CRLF headers are compiled as CRLF).
        (folder / f"h{index}.h").write_text(header, encoding="ascii", newline="")
    (folder / "main.c").write_text(_program(headers, probe), encoding="ascii")
    executable = folder / "main"
    build = subprocess.run(
        [compiler, *language_flags, *STRICT_FLAGS, "main.c", "-o", str(executable)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    output = subprocess.run([str(executable)], capture_output=True, text=True, check=True).stdout
    first, *blocks = output.split("@@\n")
    wchar_size = int(first.split()[1])
    results = []
    for block in blocks:
        values: Values = {}
        for line in block.splitlines():
            name, *numbers = line.split(" ")
            units = [int(number) for number in numbers]
            if name in probe.numbers:
                values[name] = units[0]
            elif name in probe.narrow:
                values[name] = bytes(units)
            else:
                values[name] = _wide_text(units, wchar_size)
        results.append(values)
    assert len(results) == len(headers)
    return results


def expected_generated(record: BuildVersion, build: str | None) -> Values:
    """What a generated header must compile to: the record's values, BUILD_VERSION as UBT chooses it."""
    build_version = build or record.effective_build_version
    version = f"{record.major_version}.{record.minor_version}.{record.patch_version}"
    return {
        "ENGINE_MAJOR_VERSION": record.major_version,
        "ENGINE_MINOR_VERSION": record.minor_version,
        "ENGINE_PATCH_VERSION": record.patch_version,
        "BUILT_FROM_CHANGELIST": record.changelist,
        "ENGINE_COMPATIBLE_CL_VERSION": record.effective_compatible_changelist,
        "ENGINE_IS_LICENSEE_VERSION": int(record.is_licensee_version),
        "ENGINE_IS_PROMOTED_BUILD": int(record.is_promoted_build),
        "BRANCH_NAME": record.branch_name.encode(),
        "BUILD_VERSION": build_version,
        "ENGINE_VERSION_STRING": f"{version}-{build_version}".encode(),
    }


def expected_version_h(record: BuildVersion, build: str | None) -> Values:
    """What the 4.18 Version.h patched for ``record`` compiles to (changelist > 0; the Epic record is a hotfix)."""
    compatible = record.changelist if record.is_licensee_version else record.effective_compatible_changelist
    return {
        "ENGINE_MAJOR_VERSION": 4,
        "ENGINE_MINOR_VERSION": 18,
        "ENGINE_PATCH_VERSION": 3,
        "BUILT_FROM_CHANGELIST": record.changelist,
        "ENGINE_CURRENT_CL_VERSION": record.changelist,
        "ENGINE_COMPATIBLE_CL_VERSION": compatible,
        "ENGINE_NET_VERSION": compatible,
        "ENGINE_IS_LICENSEE_VERSION": int(record.is_licensee_version),
        "ENGINE_IS_PROMOTED_BUILD": int(record.is_promoted_build),
        "BRANCH_NAME": record.branch_name.encode(),
        "BUILD_VERSION": f"{record.branch_name}-CL-{record.changelist}" if build is None else build,
        "ENGINE_VERSION_STRING": f"4.18.3-{record.changelist}+{record.branch_name}",
    }


# --- Escaping ---------------------------------------------------------------------------------------------------

LITERAL_CASES = [
    # (text, narrow literal, wide literal)
    ("++UE5+Main", '"++UE5+Main"', 'L"++UE5+Main"'),
    ("", '""', 'L""'),
    ('say "hi"', r'"say \"hi\""', r'L"say \"hi\""'),
    ("C:\\path\\", r'"C:\\path\\"', r'L"C:\\path\\"'),
    ("??/", r'"\?\?/"', r'L"\?\?/"'),
    ("line\nnext", r'"line\012next"', r'L"line\012next"'),
    ("\x01" + "23", r'"\00123"', r'L"\00123"'),
    ("tab\tdel\x7f", r'"tab\011del\177"', r'L"tab\011del\177"'),
    # Unreal's own bytes wherever they are safe: printable ASCII as it is, a lone "?" too.
    ("$@`", '"$@`"', 'L"$@`"'),
    ("user@host:~/ok?", '"user@host:~/ok?"', 'L"user@host:~/ok?"'),
    ("a?b?c", '"a?b?c"', 'L"a?b?c"'),
    ("why??=", r'"why\?\?="', r'L"why\?\?="'),
    ("???-", r'"\?\?\?-"', r'L"\?\?\?-"'),
    ("é", r'"\303\251"', r'L"\u00E9"'),
    ("\x85\xa0", r'"\302\205\302\240"', r'L"\205\u00A0"'),
    ("😀", r'"\360\237\230\200"', r'L"\U0001F600"'),
    ("é" + "ABCDEF", r'"\303\251ABCDEF"', r'L"\u00E9ABCDEF"'),
]


@pytest.mark.parametrize(("text", "narrow", "wide"), LITERAL_CASES)
def test_literals_keep_printable_ascii_and_escape_the_rest_with_fixed_length_escapes(
    text: str, narrow: str, wide: str
) -> None:
    assert (c_string_literal(text), c_wide_string_literal(text)) == (narrow, wide)


REFUSED_CASES = [
    # (text, reason)
    ("a\0b", "contains NUL at index 1, which would end the C string early"),
    (
        "ab\ud800",
        "contains a lone surrogate '\\ud800' at index 2, which is not a character "
        "(it has no UTF-8 encoding and no C universal character name)",
    ),
    (
        "\udcff",
        "contains a lone surrogate '\\udcff' at index 0, which is not a character "
        "(it has no UTF-8 encoding and no C universal character name)",
    ),
]


@pytest.mark.parametrize(("text", "reason"), REFUSED_CASES)
def test_literals_refuse_nul_and_lone_surrogates(text: str, reason: str) -> None:
    for literal in (c_string_literal, c_wide_string_literal):
        with pytest.raises(HeaderError) as caught:
            literal(text)
        assert str(caught.value) == f"string {text!r} {reason}"


@pytest.mark.parametrize(("text", "reason"), REFUSED_CASES)
def test_headers_refuse_a_branch_or_build_that_no_literal_can_hold(text: str, reason: str) -> None:
    cases: list[tuple[Callable[[], str], str]] = [
        (lambda: render_header(UE5, text, path_for_messages="Version.h"), f"build version {text!r}"),
        (lambda: patch_header(VERSION_H, EPIC, text, "Version.h"), f"build version {text!r}"),
    ]
    if "lone surrogate" in reason:
        # A Build.version record cannot hold a lone surrogate at all: build_version refuses it before any header.
        with pytest.raises(InvalidVersionError, match="must be text UTF-8 can encode"):
            UE5.replace(branch_name=text)
    else:
        record = UE5.replace(branch_name=text)
        cases += [
            (lambda: render_header(record, path_for_messages="Version.h"), f"branch name {text!r}"),
            (lambda: patch_header(VERSION_H, record, None, "Version.h"), f"branch name {text!r}"),
        ]
    for call, what in cases:
        with pytest.raises(HeaderError) as caught:
            call()
        assert str(caught.value) == f"Version.h: {what} {reason}"


def test_patching_refuses_a_non_ascii_branch_that_version_text_would_widen_byte_by_byte() -> None:
    with pytest.raises(HeaderError) as caught:
        patch_header(VERSION_H, EPIC.replace(branch_name="café"), None, "Version.h")
    assert str(caught.value) == (
        "Version.h: branch name 'café' is not ASCII, and a patched header widens BRANCH_NAME with VERSION_TEXT "
        "(L ## x), which would turn each UTF-8 byte into its own wide character"
    )


# --- Hostile strings, compiled -----------------------------------------------------------------------------------

HOSTILE = [
    ("double quote", 'a"b'),
    ("backslash", "a\\b"),
    ("trailing backslash", "a\\"),
    ("newline with a define", '"\n#define ENGINE_MAJOR_VERSION 99\n'),
    ("carriage return", "a\rb"),
    ("comment close and code", '*/ int injected; /* "'),
    ("comment open", "/* x"),
    ("line comment", "// x"),
    ("line continuation", "\\\n#define ENGINE_PATCH_VERSION 7"),
    ("trigraph backslash", "??/"),
    ("trigraph backslash before quote", '??/" ENGINE_MAJOR_VERSION'),
    ("trigraph hash", "??=define X 1"),
    ("digits after a control", "\x01" + "234567"),
    ("controls and escape sequence", "\t\x1b[31m\x7f\x0b\x0c"),
    ("characters outside the basic set", "$@`"),
    ("lone question marks", '?a?b?"?'),
    ("question mark runs before trigraph characters", "a???/b??=c?"),
    ("an address", "build@studio.example:~/x"),
    ("printf format", "%s%n%%"),
    ("latin-1", "café"),
    ("c1 controls", "\x80\x85\x9f"),
    ("no-break space", "\xa0"),
    ("emoji", "😀🏳️‍🌈"),
    ("bom and bidi override", "\ufeff\u202etxt"),
    ("line and paragraph separators", "\u2028\u2029"),
    ("noncharacters and the last code point", "\ufdd0\ufffe\uffff\U0010ffff"),
    ("hex digits after a ucn", "é" + "ABCDEF0123"),
    ("empty", ""),
]
HOSTILE_IDS = [name for name, _ in HOSTILE]


@pytest.fixture(scope="module", params=["c", "c++"])
def compiled_generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Values]:
    """Every generated header of RENDER_CASES and HOSTILE (as branch and as build), compiled in one program."""
    headers = [render_header(record, build) for _, record, build in RENDER_CASES]
    headers += [render_header(UE5.replace(branch_name=text), text) for _, text in HOSTILE]
    if shutil.which("cc") is None:
        pytest.skip("no C compiler 'cc' on PATH to compile headers")
    return compile_headers(tmp_path_factory.mktemp("generated"), headers, GENERATED_PROBE, request.param)


@pytest.fixture(scope="module", params=["c", "c++"])
def compiled_version_h(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Values]:
    """The 4.18 Version.h patched for VERSION_H_CASES and with every HOSTILE build, compiled in one program."""
    headers = [patch_header(VERSION_H, record, build, "Version.h") for _, record, build in VERSION_H_CASES]
    headers += [patch_header(VERSION_H, LICENSEE, text, "Version.h") for _, text in HOSTILE]
    headers += [patch_header(VERSION_H, EPIC.replace(branch_name=text), None, "Version.h") for text in ASCII_HOSTILE]
    if shutil.which("cc") is None:
        pytest.skip("no C compiler 'cc' on PATH to compile headers")
    return compile_headers(tmp_path_factory.mktemp("version_h"), headers, VERSION_H_PROBE, request.param)


RENDER_CASES = [
    ("licensee promoted build with a build string", UE5, "Game-1.0"),
    ("epic build without a build string", BuildVersion(4, 27, 2, 18319896, 0, False, True, "++UE4+Release-4.27"), None),
    ("an empty build string counts as none", UE5, ""),
    ("the record's build version when none is given", UE5.replace(build_version="Nightly 42"), None),
    ("changelist 0 stays a number", BuildVersion(5, 0, 0), None),
    ("a compatible changelist without a changelist is 0", BuildVersion(5, 1, 0, 0, 123), None),
    ("largest values", BuildVersion(65535, 65535, 65535, 2**31 - 1, 2**31 - 2, True, True, "x"), None),
]
VERSION_H_CASES = [
    ("licensee with a build string", LICENSEE, 'Game 1.2 "beta"'),
    ("epic hotfix without a build string", EPIC, None),
]
ASCII_HOSTILE = [text for _, text in HOSTILE if text.isascii()]


@needs_cc
@pytest.mark.parametrize(
    ("index", "record", "build"),
    [(i, r, b) for i, (_, r, b) in enumerate(RENDER_CASES)],
    ids=[name for name, _, _ in RENDER_CASES],
)
def test_generated_header_compiles_to_the_record_values(
    compiled_generated: list[Values], index: int, record: BuildVersion, build: str | None
) -> None:
    assert compiled_generated[index] == expected_generated(record, build)


@needs_cc
@pytest.mark.parametrize(
    ("index", "text"), [(len(RENDER_CASES) + i, t) for i, (_, t) in enumerate(HOSTILE)], ids=HOSTILE_IDS
)
def test_generated_header_compiles_a_hostile_branch_and_build_to_exactly_themselves(
    compiled_generated: list[Values], index: int, text: str
) -> None:
    assert compiled_generated[index] == expected_generated(UE5.replace(branch_name=text), text)


@needs_cc
@pytest.mark.parametrize(
    ("index", "record", "build"),
    [(i, r, b) for i, (_, r, b) in enumerate(VERSION_H_CASES)],
    ids=[name for name, _, _ in VERSION_H_CASES],
)
def test_patched_version_h_compiles_to_the_record_values(
    compiled_version_h: list[Values], index: int, record: BuildVersion, build: str | None
) -> None:
    assert compiled_version_h[index] == expected_version_h(record, build)


@needs_cc
@pytest.mark.parametrize(
    ("index", "text"), [(len(VERSION_H_CASES) + i, t) for i, (_, t) in enumerate(HOSTILE)], ids=HOSTILE_IDS
)
def test_patched_version_h_compiles_a_hostile_build_to_exactly_itself(
    compiled_version_h: list[Values], index: int, text: str
) -> None:
    assert compiled_version_h[index] == expected_version_h(LICENSEE, text)


@needs_cc
@pytest.mark.parametrize(
    ("index", "text"),
    [(len(VERSION_H_CASES) + len(HOSTILE) + i, t) for i, t in enumerate(ASCII_HOSTILE)],
    ids=[name for name, text in HOSTILE if text.isascii()],
)
def test_patched_version_h_compiles_a_hostile_ascii_branch_to_exactly_itself(
    compiled_version_h: list[Values], index: int, text: str
) -> None:
    assert compiled_version_h[index] == expected_version_h(EPIC.replace(branch_name=text), None)


# --- Properties over arbitrary text, with the real compiler ------------------------------------------------------

ANY_CHARACTER = st.one_of(
    st.characters(exclude_categories=()),  # surrogates included: Python strings can hold them
    st.sampled_from('"\\?\n\r\0*/#%$@`\x7f\x85é😀'),
)
ANY_TEXT = st.text(ANY_CHARACTER, max_size=12)
# Patching refuses non-ASCII branch names, so give the branch mostly ASCII to reach the compiler often.
MOSTLY_ASCII_TEXT = st.text(st.one_of(st.characters(max_codepoint=0x7F), ANY_CHARACTER), max_size=12)


def representable(text: str) -> bool:
    """The documented refusal rule: no NUL and no lone surrogate."""
    return "\0" not in text and not any(0xD800 <= ord(char) <= 0xDFFF for char in text)


@needs_cc
@settings(max_examples=30, deadline=None)
@given(pairs=st.lists(st.tuples(ANY_TEXT, ANY_TEXT), min_size=1, max_size=8))
def test_any_branch_and_build_compile_to_exactly_themselves_or_are_refused(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[str, str]]
) -> None:
    headers, expected = [], []
    for branch, build in pairs:
        record = UE5.replace(branch_name=branch)
        if representable(branch) and representable(build):
            headers.append(render_header(record, build))
            expected.append(expected_generated(record, build))
        else:
            with pytest.raises(HeaderError):
                render_header(record, build)
    for header in headers:
        assert header.isascii()
    if headers:
        assert compile_headers(tmp_path_factory.mktemp("property"), headers, GENERATED_PROBE) == expected


@needs_cc
@settings(max_examples=15, deadline=None)
@given(pairs=st.lists(st.tuples(MOSTLY_ASCII_TEXT, st.none() | ANY_TEXT), min_size=1, max_size=8))
def test_any_branch_and_build_patch_version_h_to_exactly_themselves_or_are_refused(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[str, str | None]]
) -> None:
    headers, expected = [], []
    for branch, build in pairs:
        record = LICENSEE.replace(branch_name=branch)
        if representable(branch) and branch.isascii() and (build is None or representable(build)):
            patched = patch_header(VERSION_H, record, build, "Version.h")
            assert changed_lines(VERSION_H, patched) <= PATCHED_LINES
            headers.append(patched)
            expected.append(expected_version_h(record, build))
        else:
            with pytest.raises(HeaderError):
                patch_header(VERSION_H, record, build, "Version.h")
    if headers:
        assert compile_headers(tmp_path_factory.mktemp("property"), headers, VERSION_H_PROBE) == expected


# --- The generated header --------------------------------------------------------------------------------------


def test_render_header_matches_the_golden_file() -> None:
    expected = (DATA / "generated.h").read_bytes().decode("ascii")
    assert render_header(UE5, 'Büild ?? "x"\n😀') == expected


def test_generated_header_is_ascii_with_the_marker_pragma_once_lf_and_one_final_newline() -> None:
    text = render_header(UE5, "ü\r\n")
    assert text.isascii()
    assert text.startswith(GENERATED_MARKER + "\n#pragma once\n")
    assert "\r" not in text
    assert text.endswith('"\n')
    assert not text.endswith("\n\n")


IS_GENERATED_CASES = [
    ("a generated header", render_header(UE5), True),
    ("a generated header with a bom", "\ufeff" + render_header(UE5), True),
    ("a generated header with crlf", render_header(UE5).replace("\n", "\r\n"), True),
    ("unreal's version.h", VERSION_H, False),
    ("an empty file", "", False),
    ("the marker below the first line", "#pragma once\n" + GENERATED_MARKER + "\n", False),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in IS_GENERATED_CASES], ids=[name for name, _, _ in IS_GENERATED_CASES]
)
def test_is_generated_recognises_only_the_marker_on_the_first_line(text: str, expected: bool) -> None:
    assert is_generated(text) is expected


def test_header_for_renders_when_there_is_no_header_or_buildver_generated_it() -> None:
    assert header_for(None, UE5, "b") == render_header(UE5, "b")
    assert header_for(render_header(EPIC), UE5, "b") == render_header(UE5, "b")


def test_header_for_keeps_crlf_of_a_generated_header_so_an_unchanged_one_stays_unchanged() -> None:
    crlf = render_header(UE5, "b").replace("\n", "\r\n")
    assert header_for(crlf, UE5, "b") == crlf


def test_header_for_patches_a_header_buildver_did_not_generate() -> None:
    assert header_for(VERSION_H, EPIC, None, "Version.h") == patch_header(VERSION_H, EPIC, None, "Version.h")


# --- Patching: Unreal 4.18's VersionFileUpdater ----------------------------------------------------------------

PATCHED_LINES = {13, 16, 19, 28, 30, 44, 53}
"""The line numbers of Version-4.18.h that UpdateLocalVersion may change."""


def changed_lines(before: str, after: str) -> set[int]:
    """The 1-based numbers of the lines that differ (both texts must have the same number of lines)."""
    old, new = before.split("\n"), after.split("\n")
    assert len(old) == len(new)
    return {number for number, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b}


GOLDEN_CASES = [
    ("Version-4.18-licensee.h", LICENSEE, 'Game 1.2 "beta"'),
    ("Version-4.18-epic.h", EPIC, None),
]


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(("golden", "record", "build"), GOLDEN_CASES, ids=[g for g, _, _ in GOLDEN_CASES])
def test_patch_header_matches_the_golden_file_keeping_every_other_byte(
    tmp_path: Path, golden: str, record: BuildVersion, build: str | None, newline: str
) -> None:
    source = tmp_path / "Version.h"
    source.write_bytes((DATA / "Version-4.18.h").read_bytes().replace(b"\n", newline.encode()))
    text = source.read_bytes().decode("utf-8")
    expected = (DATA / golden).read_bytes().replace(b"\n", newline.encode())
    assert patch_header(text, record, build, str(source)).encode("utf-8") == expected


def test_patch_header_keeps_bom_mixed_newlines_and_a_missing_final_newline() -> None:
    text = (
        '\ufeff// é\r\n#define BRANCH_NAME "a"\r#define BUILT_FROM_CHANGELIST 1\n\n\r\n'
        "#define ENGINE_COMPATIBLE_CL_VERSION 1\r\r"
        "#define ENGINE_IS_LICENSEE_VERSION 0\r\n#define ENGINE_IS_PROMOTED_BUILD 0"
    )
    record = BuildVersion(1, 2, 3, 5, 0, True, True, "b")
    assert patch_header(text, record, None, "Version.h") == (
        '\ufeff// é\r\n#define BRANCH_NAME "b"\r#define BUILT_FROM_CHANGELIST 5\n\n\r\n'
        "#define ENGINE_COMPATIBLE_CL_VERSION 5\r\r"
        "#define ENGINE_IS_LICENSEE_VERSION 1\r\n#define ENGINE_IS_PROMOTED_BUILD 1"
    )


def test_patch_header_matches_a_first_line_behind_a_bom_as_net_strips_it() -> None:
    text = '\ufeff#define BRANCH_NAME "a"\n' + MINIMAL
    assert patch_header(text, UE5, None, "h").startswith('\ufeff#define BRANCH_NAME "++UE5+Release-5.3"\n')


REQUIRED_FLAGS = "#define ENGINE_IS_LICENSEE_VERSION 0\n#define ENGINE_IS_PROMOTED_BUILD 0\n"
MINIMAL = (
    '#define BRANCH_NAME ""\n'
    "#define BUILT_FROM_CHANGELIST 0\n"
    '#define BUILD_VERSION L""\n'
    "#define ENGINE_COMPATIBLE_CL_VERSION 11\n"
    "#define ENGINE_COMPATIBLE_CL_VERSION 22\n"
    "#define ENGINE_COMPATIBLE_CL_VERSION 33\n" + REQUIRED_FLAGS
)


def compatible_values(text: str) -> list[str]:
    return re.findall(r"#define ENGINE_COMPATIBLE_CL_VERSION (\d+)", text)


OCCURRENCE_CASES = [
    # (licensee, changelist, compatible changelist, the three ENGINE_COMPATIBLE_CL_VERSION values after patching)
    (True, 100, 0, ["100", "22", "33"]),
    (True, 100, 90, ["90", "22", "33"]),
    (False, 100, 90, ["11", "90", "33"]),
    (False, 100, 0, ["11", "100", "33"]),
    (False, 0, 90, ["11", "22", "33"]),  # the effective compatible changelist is 0: nothing is written
    (True, 0, 0, ["11", "22", "33"]),
]


@pytest.mark.parametrize(("licensee", "changelist", "compatible", "expected"), OCCURRENCE_CASES)
def test_compatible_changelist_goes_to_the_licensee_occurrence_0_or_the_epic_occurrence_1(
    licensee: bool, changelist: int, compatible: int, expected: list[str]
) -> None:
    record = BuildVersion(4, 18, 0, changelist, compatible, licensee, False, "b")
    assert compatible_values(patch_header(MINIMAL, record, None, "Version.h")) == expected


def test_built_from_changelist_0_is_written_as_0_so_that_version_h_compiles() -> None:
    # UAT writes nothing after the name, and Version.h's "#if ENGINE_CURRENT_CL_VERSION > 0" then fails to compile.
    patched = patch_header(MINIMAL, BuildVersion(4, 18, 0, branch_name="++UE4+Main"), None, "Version.h")
    assert "\n#define BUILT_FROM_CHANGELIST 0\n" in patched


@pytest.mark.parametrize(("build", "line"), [(None, 'L""'), ("", 'L""'), ("x", 'L"x"'), ("é", 'L"\\u00E9"')])
def test_build_version_is_written_only_when_a_build_string_is_given(build: str | None, line: str) -> None:
    text = MINIMAL.replace('BUILD_VERSION L""', "BUILD_VERSION old")
    expected = "old" if build is None else line
    assert f"\n#define BUILD_VERSION {expected}\n" in patch_header(text, UE5, build, "Version.h")


def _without(line_start: str) -> str:
    return "".join(line for line in MINIMAL.splitlines(keepends=True) if not line.startswith(line_start))


MISSING_CASES = [
    (_without("#define BRANCH_NAME"), EPIC, None, "unable to find line '#define BRANCH_NAME'"),
    (_without("#define BUILT_FROM"), EPIC, None, "unable to find line '#define BUILT_FROM_CHANGELIST'"),
    (_without("#define BUILD_VERSION"), EPIC, "b", "unable to find line '#define BUILD_VERSION'"),
    (
        _without("#define ENGINE_COMPATIBLE"),
        LICENSEE,
        None,
        "unable to find line '#define ENGINE_COMPATIBLE_CL_VERSION'",
    ),
    (
        _without("#define ENGINE_COMPATIBLE_CL_VERSION 2").replace("VERSION 33\n", "VERSION_X 33\n"),
        EPIC,
        None,
        "unable to find line '#define ENGINE_COMPATIBLE_CL_VERSION' (occurrence 1 counting from 0; the file has 1)",
    ),
    (_without("#define ENGINE_IS_LICENSEE"), EPIC, None, "unable to find line '#define ENGINE_IS_LICENSEE_VERSION'"),
    (_without("#define ENGINE_IS_PROMOTED"), EPIC, None, "unable to find line '#define ENGINE_IS_PROMOTED_BUILD'"),
    ("\n", EPIC, None, "unable to find line '#define BRANCH_NAME'"),
    ("", EPIC, None, "the header is empty"),
    ("\ufeff", EPIC, None, "the header is empty"),
]


@pytest.mark.parametrize(("text", "record", "build", "message"), MISSING_CASES)
def test_patch_header_names_the_file_and_the_define_it_cannot_find(
    text: str, record: BuildVersion, build: str | None, message: str
) -> None:
    with pytest.raises(HeaderError) as caught:
        patch_header(text, record, build, "Source/Version.h")
    assert str(caught.value) == f"Source/Version.h: {message}"


def test_missing_build_version_is_no_error_when_no_build_string_is_given() -> None:
    text = _without("#define BUILD_VERSION")
    patched = patch_header(text, EPIC, None, "Version.h")
    assert "BUILD_VERSION" not in patched
    assert f'#define BRANCH_NAME "{EPIC.branch_name}"' in patched
    with pytest.raises(HeaderError, match="unable to find line '#define BUILD_VERSION'"):
        patch_header(text, EPIC, "Nightly", "Version.h")


TOKEN_CASES = [
    # (the BRANCH_NAME line, the line after patching with branch "b", or None when it does not match)
    ('#define BRANCH_NAME "old"', '#define BRANCH_NAME "b"'),
    ('#  define   BRANCH_NAME   "old"', '#  define   BRANCH_NAME   "b"'),
    ('\t#define\tBRANCH_NAME\t"old" // a comment is lost, as in Unreal', '\t#define\tBRANCH_NAME\t"b"'),
    ("# define BRANCH_NAME", '# define BRANCH_NAME "b"'),
    ('#define BRANCH_NAME"old"', '#define BRANCH_NAME "b"'),
    ("#define BRANCH_NAME(x) x", '#define BRANCH_NAME "b"'),
    ('#define BRANCH_NAME\u00a0"old"', '#define BRANCH_NAME\u00a0"b"'),  # .NET white space
    ("#define BRANCH_NAME\U00010400", '#define BRANCH_NAME "b"'),  # two UTF-16 surrogates end a .NET token
    ('#define BRANCH_NAME "a/*b" /* c */ // d /*', '#define BRANCH_NAME "b"'),
    ('#define BRANCH_NAME "a\\"/*"', '#define BRANCH_NAME "b"'),
    ('#define BRANCH_NAMEé "old"', None),  # é is a letter: the token is BRANCH_NAMEé
    ('#define BRANCH_NAME_OLD "old"', None),
    ('//#define BRANCH_NAME "old"', None),
    ('#defineBRANCH_NAME "old"', None),
    ('#define\x1cBRANCH_NAME "old"', None),  # U+001C is white space to Python, not to .NET
]


@pytest.mark.parametrize(("line", "expected"), TOKEN_CASES)
def test_lines_match_by_cpp_tokens_like_version_file_updater(line: str, expected: str | None) -> None:
    text = MINIMAL.replace('#define BRANCH_NAME ""', line)
    record = EPIC.replace(branch_name="b")
    if expected is None:
        with pytest.raises(HeaderError, match="unable to find line '#define BRANCH_NAME'"):
            patch_header(text, record, None, "Version.h")
    else:
        assert patch_header(text, record, None, "Version.h").splitlines()[0] == expected


def test_the_occurrence_counts_every_matching_line_and_replaces_only_that_one() -> None:
    text = '#define BRANCH_NAME "one"\n#define BRANCH_NAME "two"\n' + MINIMAL
    assert patch_header(text, EPIC, None, "h").splitlines()[:3] == [
        '#define BRANCH_NAME "++UE4+Release-4.18"',
        '#define BRANCH_NAME "two"',
        '#define BRANCH_NAME ""',
    ]


CONTINUED_CASES = [
    ('#define BRANCH_NAME "old" \\', "it ends with a backslash"),
    ('#define BRANCH_NAME "old" \\  ', "it ends with a backslash"),
    ("#define BRANCH_NAME \\", "it ends with a backslash"),
    ('#define BRANCH_NAME "old" /* a comment', "a /* comment is still open"),
    ('#define BRANCH_NAME "old" /* a */ /* b', "a /* comment is still open"),
]


@pytest.mark.parametrize(("line", "problem"), CONTINUED_CASES)
def test_a_line_that_continues_on_the_next_is_refused_rather_than_orphaning_it(line: str, problem: str) -> None:
    text = "// first\n" + MINIMAL.replace('#define BRANCH_NAME ""', line)
    with pytest.raises(HeaderError) as caught:
        patch_header(text, EPIC, None, "Version.h")
    assert str(caught.value) == (
        f"Version.h: line 2: '#define BRANCH_NAME' continues on the next line ({problem}), "
        "which buildver cannot patch safely"
    )


@pytest.mark.parametrize(
    "line",
    ["#define BUILT_FROM_CHANGELIST", "#define ENGINE_IS_LICENSEE_VERSION", "#define ENGINE_IS_PROMOTED_BUILD"],
)
def test_a_value_is_never_glued_to_the_macro_name(line: str) -> None:
    name = line.split()[1]
    text = re.sub(rf"#define {name} \d+", line, MINIMAL)
    record = BuildVersion(4, 18, 0, 7, 0, True, True, "b")
    patched = patch_header(text, record, None, "Version.h")
    assert re.search(rf"^#define {name} \d+$", patched, re.MULTILINE)


def test_patching_twice_gives_the_same_text() -> None:
    once = patch_header(VERSION_H, LICENSEE, "x", "Version.h")
    assert patch_header(once, LICENSEE, "x", "Version.h") == once
