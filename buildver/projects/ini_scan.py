"""The line rules of Unreal's two config readers as regular expressions: a file is read in passes of the
regular-expression engine, in time linear in its size whatever its shape (issue 30 item 3).

``buildver.projects.unreal_ini`` holds the rules (its docstring's table and sources); this module only says them as
patterns, for three jobs:

- every logical line of a file, for the full readings (``engine_lines``, ``ubt_lines``);
- the lines of one key in one section (``engine_key_runs``, ``ubt_key_runs``): the other lines are skipped in bulk
  by one pattern, and the key's own lines come as runs (identical lines as one run with a count, plain lines in
  chunks read by ``findall``, a stretch of lines that comes again and again as one run of its line of the key:
  ``_skip_repeats``; the section coming again and again with other sections between, in chunks read on through
  the other sections: ``block_chunk``; a stretch without the key's lines that comes again, from one stop at the
  section's header to another, passed over: ``_pass_sections``), so that a file of millions of the key's lines
  costs a few Python steps;
- what a writer needs: the headers (``engine_headers``, ``ubt_headers``), where one section's last header is
  (``engine_last_header``, ``ubt_last_header``: the other sections' headers passed over in C) and the line that
  holds or runs across one place (``engine_line_across``, ``ubt_line_across``).

Two limits of Python's ``re`` shape every pattern here. A loop over a group is possessive (``*+``) and captures
nothing inside it: greedy and lazy loops over groups keep one backtracking entry per turn (1.4 GB for 4 million
short lines), and captures inside possessive loops give wrong spans on CPython 3.11 ("The span of capturing group
is wrong", seen on 3.11.7). So the state a loop would have to remember (the section) is carried by choosing between
two loops, one for inside the asked section and one for outside it. Stretches of lines that cannot matter are
taken by a greedy run of one character class up to the last separator before a character that may (the run backs
off in C, keeping nothing a character).

Names are matched exactly as ``str.lower`` compares them: a letter is ``[aA]``, and ``k`` also takes the Kelvin
sign (U+212A), the only other character whose ``lower()`` is an ASCII letter. Only names of plain ASCII characters
(``fast_name``) are scanned; the others are read from the full reading.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

CPP_SPACE = " \t\n\v\f\r"
"""What ``FChar::IsWhitespace`` (``iswspace`` in the C locale) trims."""
UBT_SPACE = " \t"

# The engine: ParseLineExtended (5.1, bExact false) ------------------------------------------------------------------

_SP = r"[ \t\v\f]"
_CONT = r"\\[\r\n][\r\n]?"
"""A backslash before a line break, outside quotes: the break (and one more) read as one space."""
_QITEM = r'[^"\\\r\n]++|\\["\\]|\\(?!["\\])'
"""Inside quotes: ``\\"`` and ``\\\\`` are taken as pairs, so they do not end the quotes."""
_QUOTED = rf'"(?:{_QITEM})*+"'
_OPEN_QUOTE = rf'"(?:{_QITEM})*+'
"""A quote not closed on its line: the line break ends the line (outside braces)."""
_ITEM = rf'(?:[^"|\\{{\r\n/]*+{_CONT})++|[^"|\\{{\r\n/]++|\\(?:[\r\n][\r\n]?)?|/(?!/)|{_QUOTED}'
"""One piece of a line outside braces that changes nothing: ``}`` there is a character like any other; continued
lines are taken by a loop of their own (a run of characters and the escaped line break after it)."""
_IGNORE = rf'//(?:[^"|\\{{\r\n]++|\\(?![\r\n])|{_CONT}|"[^"\r\n]*+")*+(?:"[^"\r\n]*+)?'
"""``//`` outside quotes: nothing more is kept, but quotes still pair (without escapes), ``|`` still ends the line
and ``{`` still opens braces."""
_END = r"(?=[\r\n|]|\Z)"
_LL = rf"(?:{_ITEM})*+(?:{_OPEN_QUOTE}|{_IGNORE})?{_END}"
"""A simple logical line: one that no unquoted ``{`` joins to the next lines (its end is a ``|``, a line break or
the end); its text is its characters with each escaped line break as a space, up to its ``//``."""
_SEP = r"[\r\n|]++"
_HITEM = rf'[^"|\\{{\r\n/\]]++|\]|\\(?:[\r\n][\r\n]?)?|/(?!/)|{_QUOTED}'
_HQITEM = r'[^"\\\r\n\]]++|\]|\\["\\]|\\(?!["\\])'
_TAIL = rf"(?:{_SP}++|{_CONT})*+(?:{_IGNORE})?{_END}"
_HEADER = (
    rf"\[(?:(?!\]{_TAIL})(?:{_HITEM}))*+\]{_TAIL}"
    rf'|\[(?:{_HITEM})*+"(?:(?!\]{_SP}*+(?:[\r\n]|\Z))(?:{_HQITEM}))*+\]{_SP}*+(?=[\r\n]|\Z)'
)
"""A simple line that is a section header: ``[`` first, ``]`` its last character but whitespace (CombineFromBuffer),
outside quotes or inside a quote left open. The ``]`` is found by a look-ahead at each piece, not by a lazy loop."""


class _Patterns:
    """The patterns every reading uses, compiled on first use (a command that reads no large file pays little)."""

    def __init__(self) -> None:
        self.ll_parts = re.compile(rf"(?P<body>(?:{_ITEM})*+(?:{_OPEN_QUOTE})?)(?:{_IGNORE})?{_END}")
        self.separators = re.compile(r"[\r\n|]*+")
        self.continued = re.compile(_CONT)
        self.break_pairs = re.compile(r"[\r\n][\r\n]?")
        # the engine's states in ParseLineExtended, each with the run of characters that leaves it as it is
        self.plain = re.compile(rf"(?:{_ITEM})*+")
        # inside braces a line break changes nothing: it is one more character of the run
        self.plain_braced = re.compile(rf'(?:[^"|\\{{}}/]++|\\(?:[\r\n][\r\n]?)?|/(?!/)|{_QUOTED})*+')
        self.quoted = re.compile(rf"(?:{_QITEM})*+")
        self.quoted_braced = re.compile(r'(?:[^"\\]++|\\["\\]|\\(?!["\\]))*+')
        self.ignored = re.compile(r'(?:[^"|\\{\r\n]++|\\(?:[\r\n][\r\n]?)?|"[^"\r\n]*+")*+')
        self.ignored_braced = re.compile(r'(?:[^"|\\{}]++|\\|"[^"]*+")*+')
        self.ignored_quoted = re.compile(r'[^"\r\n]*+')
        self.ignored_quoted_braced = re.compile(r'[^"]*+')
        self.quoted_plain = re.compile(r'[^"\r\n\\]*+')
        self.hex_run = re.compile(r"[0-9a-fA-F]*+")
        self.ubt_line = re.compile(_ULL)
        self.ubt_break = re.compile(_UBR)
        self.line_rest = re.compile(r"[^\r\n]*+")
        self.groups = re.compile(r'(?:\{[^"|\\{}\r\n/]*+\})++')


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


def _reach(pattern: re.Pattern[str], text: str, position: int, end: int | None = None) -> int:
    """Where a pattern that matches at ``position`` (most: a loop that may take nothing) stops."""
    found = pattern.match(text, position, len(text) if end is None else end)
    assert found is not None
    return found.end()


def engine_line(text: str, position: int) -> tuple[str, int, int]:
    """``ParseLineExtended`` from a logical line's start: its text, where its text ends, and where the next line
    starts. Each run of characters that leaves the state (quoted, ignoring after ``//``, inside braces) as it is
    is taken by one pattern, so a line costs a Python step per change of state, not per character."""
    patterns = _patterns()
    size = len(text)
    out: list[str] = []
    depth = 0
    quoted = ignore = False
    while True:
        if ignore:
            if quoted:
                run = _reach(patterns.ignored_quoted_braced if depth else patterns.ignored_quoted, text, position)
            else:
                run = _reach(patterns.ignored_braced if depth else patterns.ignored, text, position)
            # after '//' only spaces are kept, and the line is trimmed: nothing of it is needed
        elif quoted:
            run = _reach(patterns.quoted_braced if depth else patterns.quoted, text, position)
            out.append(breaks_as_spaces(text[position:run]) if depth else text[position:run])
        else:
            run = _reach(patterns.plain_braced if depth else patterns.plain, text, position)
            chunk = text[position:run]
            if depth:
                if "\\\r" in chunk or "\\\n" in chunk:
                    chunk = patterns.continued.sub("\0", chunk)  # kept apart: they do not pair with breaks
                chunk = breaks_as_spaces(chunk).replace("\0", " ")
            elif "\\" in chunk:
                chunk = continued_as_spaces(chunk)
            out.append(chunk)
        position = run
        if position >= size:
            end = size
            break
        char = text[position]
        if char == '"':
            if not ignore:
                out.append(char)
            quoted = not quoted
            position += 1
        elif quoted or char in "\r\n|":  # a line break here is outside braces: it ends the line, as '|' does
            end = position
            break
        elif char == "{":
            groups = patterns.groups.match(text, position)
            if groups is not None:  # '{a}{b}...': each pair opens and closes again, its braces dropped
                if not ignore:
                    out.append(groups.group().replace("{", "").replace("}", ""))
                position = groups.end()
            else:
                depth += 1
                position += 1
        elif char == "}":  # at depth 0 a '}' is part of the run
            depth -= 1
            position += 1
        else:  # '//'
            ignore = True
            position += 2
    return "".join(out), end, _reach(patterns.separators, text, end)


def continued_as_spaces(chunk: str) -> str:
    """Each escaped line break as one space, in characters where every line break follows a backslash (a line
    outside braces): the backslash and one or two breaks (string replaces: no pattern step a break)."""
    if "\r" in chunk:
        for pair in ("\\\r\n", "\\\n\r", "\\\r\r", "\\\n\n", "\\\r"):
            chunk = chunk.replace(pair, " ")
    else:
        chunk = chunk.replace("\\\n\n", " ")
    return chunk.replace("\\\n", " ")


def breaks_as_spaces(chunk: str) -> str:
    """Each line break inside braces as a space, two in a row as one (ParseLineExtended takes a second break with
    the first)."""
    if "\n\r" in chunk or "\r\r" in chunk or "\n\n" in chunk:
        return _patterns().break_pairs.sub(" ", chunk)
    return chunk.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")  # every run is CRLF, CR or LF


def engine_simple_text(raw: str) -> str:
    """The text of a simple logical line (``_LL``) from its characters."""
    parts = _patterns().ll_parts.match(raw)
    body = parts.group("body") if parts is not None else raw
    return continued_as_spaces(body) if "\\" in body else body


def engine_lines(text: str, position: int = 0) -> Iterator[tuple[str, int, int]]:
    """Every logical line from ``position`` (a logical line's start): its text, its start and the end of its text."""
    patterns = _patterns()
    size = len(text)
    position = _reach(patterns.separators, text, position)
    while position < size:
        simple = patterns.ll_parts.match(text, position)
        if simple is not None:
            body = simple.group("body")
            end = simple.end()
            yield (continued_as_spaces(body) if "\\" in body else body), position, end
            position = _reach(patterns.separators, text, end)
        else:
            logical, end, following = engine_line(text, position)
            yield logical, position, end
            position = following


class EngineLine(NamedTuple):
    """A logical line as ``CombineFromBuffer`` takes it: a header (its name), a key line, or nothing."""

    header: str | None
    action: str
    key: str
    value: str


_ENGINE_PREFIXES = frozenset("+.-!@*")


def engine_parse(logical: str) -> EngineLine | None:
    """What ``CombineFromBuffer`` (A) makes of a logical line's text: a header, a key line (prefix as written, key,
    value), or None (blank, a comment, no ``=``). Whether a section is open is the caller's."""
    line = logical.rstrip(CPP_SPACE)
    if len(line) >= 2 and line[0] == "[" and line[-1] == "]":
        return EngineLine(line[1:-1], "", "", "")
    if not line or line[0] == ";":
        return None
    equals = line.find("=")
    if equals < 0:
        return None
    key = line[:equals].lstrip(CPP_SPACE)
    key = key.removeprefix("~")  # "~ is a packaging [marker] and should be skipped at runtime"
    action = key[:1] if key[:1] in _ENGINE_PREFIXES else ""
    key = key[len(action) :].rstrip(CPP_SPACE)
    value = line[equals + 1 :].strip(CPP_SPACE)
    if value.startswith('"'):
        value = quoted_string(value)
    return EngineLine(None, action, key, value)


_OCTAL, _HEX = "01234567", "0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "r": "\r", "t": "\t"}


def quoted_string(value: str) -> str:
    """``FParse::QuotedString`` (C): the text between the quotes, escapes resolved; the rest of the value dropped."""
    quoted_plain = _patterns().quoted_plain
    out: list[str] = []
    position, size = 1, len(value)
    while position < size:
        plain = _reach(quoted_plain, value, position)  # characters that are kept as they are, taken at once
        if plain > position:
            out.append(value[position:plain])
            position = plain
            continue
        char = value[position]
        if char in '"\r\n':
            break
        position += 1  # a backslash
        escape = value[position] if position < size else ""
        following = value[position + 1] if position + 1 < size else ""
        if escape and escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            position += 1
        elif escape and escape in _OCTAL:
            digits = _take(value, position, _OCTAL, 3)
            out.append(chr(int(digits, 8)))
            position += len(digits)
        elif escape in ("x", "u", "U") and following and following in _HEX:
            digits = _take(value, position + 1, _HEX, {"x": size, "u": 4, "U": 8}[escape])
            code = int(digits, 16) & (0xFFFF if escape == "x" else 0xFFFFFFFF)  # \x is cast to a 16-bit TCHAR
            out.append(chr(code) if code <= 0x10FFFF else "?")
            position += 1 + len(digits)
        else:  # an unknown escape keeps its backslash
            out.append("\\" + escape)
            position += 1
    return "".join(out)


def _take(text: str, position: int, allowed: str, limit: int) -> str:
    if allowed is _HEX and limit > 8:  # '\x' takes every hex digit: one pattern, not a character at a time
        end = _reach(_patterns().hex_run, text, position)
        return text[position:end]
    end = position
    while end < len(text) and end - position < limit and text[end] in allowed:
        end += 1
    return text[position:end]


# UnrealBuildTool: ReadLine, ReadIntoSections ------------------------------------------------------------------------

_UBR = r"(?:\r\n?|\n)"
_UBS = r"[^\r\n\\]*+(?:\\(?![ \t]*+(?:[\r\n]|\Z))[^\r\n\\]*+)*+\\[ \t]*+(?=[\r\n]|\Z)"
"""A physical line whose last character but spaces and tabs is a backslash: the next line is appended to it."""
_UPL = r"[^\r\n\\]*+(?:\\(?![ \t]*+(?:[\r\n]|\Z))[^\r\n\\]*+)*+"
_ULL = (
    rf"{_UPL}(?=[\r\n]|\Z)"
    rf"|{_UBS}(?:(?:{_UBR}[^\r\n\\]*+\\(?=[\r\n]|\Z))++|{_UBR}(?:[ \t]*+(?=[\r\n]|\Z)|{_UBS}))*+"
    rf"(?:{_UBR}{_UPL})?"
)
"""A logical line: a physical line, or one ending in a backslash with the lines appended to it (blank ones and
ones ending in a backslash too, up to the first other one)."""


def ubt_lines(text: str) -> Iterator[tuple[str, int, int]]:
    """Every line ``ReadIntoSections`` reads, continued lines appended: its text, its start and its end."""
    patterns = _patterns()
    size = len(text)
    position = 0
    while position < size:
        end = _reach(patterns.ubt_line, text, position)  # the pattern takes every line, empty ones too
        raw = text[position:end]
        yield (joined(raw) if "\r" in raw or "\n" in raw else raw), position, end
        following = patterns.ubt_break.match(text, end)
        position = following.end() if following is not None else size


def joined(raw: str) -> str:
    """A line with the lines appended to it: their text without the line breaks (CRLF, CR, LF)."""
    return raw.replace("\r\n", "").replace("\r", "").replace("\n", "")


class UbtLine(NamedTuple):
    """A line as ``ReadIntoSections`` and ``TryAddConfigLine`` take it."""

    header: str | None
    """A header's name; also set (to ``""``, with ``resets`` true) for a ``[`` line without ``]``."""
    resets: bool
    """A ``[`` line: the section ends here (a header starts the next one)."""
    action: str
    key: str
    value: str


_UBT_PREFIXES = frozenset("+-!")


def ubt_parse(line: str) -> UbtLine | None:
    """What ``ReadIntoSections`` (F) makes of a line: a header or a ``[`` line without ``]``, a key line, or None."""
    start = len(line) - len(line.lstrip(UBT_SPACE))
    if start == len(line):
        return None
    end = max(len(line.rstrip(UBT_SPACE)), start)
    if line[start] == ";" or line.startswith("//", start):
        return None
    if line[start] == "[":
        if line[end - 1] == "]" and end - 1 > start:
            return UbtLine(line[start + 1 : end - 1], True, "", "", "")
        return UbtLine(None, True, "", "", "")
    equals = line.find("=", start, end)
    if equals < 0 and line[start] != "!":
        return None
    key_start = start
    action = line[start] if line[start] in _UBT_PREFIXES else ""
    if action:
        key_start += 1
        while key_start < len(line) and line[key_start] in UBT_SPACE:
            key_start += 1
    if action == "!" and equals < 0:
        return UbtLine(None, False, action, line[key_start:].strip(), "")
    key_end = equals
    while key_end > key_start and line[key_end - 1] in UBT_SPACE:
        key_end -= 1
    if key_start >= equals:
        return None
    value_start = equals + 1
    while value_start < end and line[value_start] in UBT_SPACE:
        value_start += 1
    value_end = end
    if value_end >= value_start + 2 and line[value_start] == '"' and line[value_end - 1] == '"':
        value_start += 1
        value_end -= 1
    return UbtLine(None, False, action, line[key_start:key_end], line[value_start:value_end])


# Names --------------------------------------------------------------------------------------------------------------

_FAST_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:#$%&'()*+,<>?@^`~!-]*")
_FAST_SECTION = re.compile(r"[A-Za-z0-9_./:#$%&'()*+,<>?@^`~!-]+")


def fast_name(section: str, key: str) -> bool:
    """Whether a section and key can be scanned for: plain ASCII names whose characters mean nothing to either
    reader (no quotes, backslashes, braces, bars, ``//``, spaces, ``=``, brackets; a key not starting with a
    prefix)."""
    return _FAST_KEY.fullmatch(key) is not None and _FAST_SECTION.fullmatch(section) is not None and "//" not in section


def may_hold(text: str, name: str) -> bool:
    """Whether ``text`` may hold ``name`` (a ``fast_name``) in any case: its first two characters in each case are
    looked for (string searches, no copy of the text); False means the name is surely absent."""
    variants = [""]
    for char in name[:2]:
        cases = {char.lower(), char.upper()} | ({"\u212a"} if char in "kK" else set())
        variants = [variant + case for variant in variants for case in cases]
    return any(variant in text for variant in variants)


def _name_pattern(name: str) -> str:
    """The characters whose ``lower()`` is each character's ``lower()``: exactly the case-insensitive name."""
    out = []
    for char in name:
        if char in "kK":
            out.append("[kK\u212a]")
        elif char.isalpha():
            out.append(f"[{char.lower()}{char.upper()}]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def _first_chars(key: str, syntax: str) -> str:
    """For a character class: what may start a line that is a header or a key line of ``key``."""
    first = key[0]
    variants = {first.lower(), first.upper()} | ({"\u212a"} if first in "kK" else set())
    return syntax + "".join(re.escape(char) for char in sorted(variants))


# Runs of a key's lines ----------------------------------------------------------------------------------------------


class Copies(NamedTuple):
    """``times`` identical lines of the key, one after the other: line i starts at ``start + i * unit``."""

    action: str
    value: str
    start: int
    unit: int
    times: int
    length: int
    """One line's text length (its last character is at ``start + i * unit + length - 1``)."""


class Lines(NamedTuple):
    """Plain lines of the key in ``[start, end)`` (other plain lines between them), read with ``pattern``:
    ``findall`` gives each line's prefix and raw value, ``finditer`` where each one is."""

    start: int
    end: int
    pattern: re.Pattern[str]
    removes: bool
    """Whether a ``-`` line is among them."""
    struct: bool = False
    """Whether an ``@`` line is among them (the engine's struct keys)."""
    added: bool = False
    """Only ``+`` lines of the key (an array written out): ``pattern`` gives each one's value alone."""
    plain: bool = False
    """Only plain lines of the key (the engine: each replaces the last value)."""


Run = Copies | Lines


class _Runs(list[Run]):
    """A key's runs as they are found, kept short: what a later line makes meaningless is let go at once, so
    that a file of many short runs of the key (one in each of many sections) is not held in memory. The engine
    forgets everything before ``!`` (unless an ``@`` struct key came, which outlives it) and a plain line right
    after a plain line; UnrealBuildTool forgets everything before a plain line or ``!``."""

    def __init__(self, *, engine: bool) -> None:
        super().__init__()
        self.engine = engine
        self.structs = False
        self.added = 0
        """How many runs were added (some since let go)."""
        self.firsts: list[str] = []
        """The first prefixes of the last runs added (``_FIRSTS`` at least)."""

    def add(self, run: Run, first: str) -> None:
        """Add ``run``, whose first line's prefix is ``first``."""
        self.added += 1
        self.firsts.append(first)
        if len(self.firsts) > 2 * _FIRSTS:
            del self.firsts[:_FIRSTS]
        if self.engine:
            self.structs = self.structs or first == "@" or (isinstance(run, Lines) and run.struct)
            if not self.structs:
                if first == "!":
                    self.clear()
                elif first == "" and self and _plain(self[-1]):
                    self.pop()  # the plain line after it replaces what it set (the last value)
        elif first in ("", "!"):
            self.clear()
        self.append(run)


def _plain(run: Run) -> bool:
    return run.action == "" if isinstance(run, Copies) else run.plain


_FIRSTS = 32
"""How many of the last runs' first prefixes are kept: the runs of a repeated stretch looked at (``_pass_stretch``)."""
_STOPS_BACK = 4
"""How many stops back a repeated stretch may start (sections that change every few lines)."""
_MARK = 16
"""The characters of a stop compared first: a stretch can come again from a stop only if they are the same."""


class _Stops:
    """The last few stops of a scanning loop: where each starts, its first characters, and a count kept with it."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.marks: list[str] = []
        self.counts: list[int] = []
        self.mark = ""
        """The first characters of the stop last asked about (:meth:`again`), kept for :meth:`push`."""

    def again(self, text: str, position: int) -> list[tuple[int, int]]:
        """The stops (latest first, with their counts) from which the text to ``position`` comes again right after
        it: in a file where nothing repeats, a comparison in C."""
        mark = self.mark = text[position : position + _MARK]
        if mark not in self.marks:
            return []
        found = zip(self.starts, self.marks, self.counts, strict=True)
        return [
            (start, count) for start, other, count in found if other == mark and _comes_again(text, start, position)
        ][::-1]

    def push(self, position: int, count: int = 0) -> None:
        """Keep the stop last asked about, at ``position``."""
        self.starts.append(position)
        self.marks.append(self.mark)
        self.counts.append(count)
        if len(self.starts) > _STOPS_BACK:
            del self.starts[0], self.marks[0], self.counts[0]

    def full(self) -> bool:
        """Whether the last ``_STOPS_BACK`` stops were kept, none of them the start of a stretch passed over."""
        return len(self.starts) == _STOPS_BACK

    def clear(self) -> None:
        self.starts.clear()
        self.marks.clear()
        self.counts.clear()


def _pass_stretch(
    text: str, runs: _Runs, stops: _Stops, position: int, alone: Callable[[Run, int], Copies | None]
) -> int:
    """Where the scanning loop reads on from, at a stop at the key's line at ``position`` inside the section, after
    the ``stops`` at the key's lines inside it before (the last few: where, and how many runs were added before
    it). When the text from one of them to this one comes again and again from here on: if the stretch holds one
    line of the key, its first, its repetitions are added as one run (``_skip_repeats``); if a run of the key's lines
    in it undoes whatever came before it (the engine: one starts with ``!`` and no ``@`` struct key came,
    or every one is a plain line, each setting the last value; UnrealBuildTool: one starts with a plain line or
    ``!``), every repetition but the last is passed over: the last one reads as the first did (the reason is
    ``_skip_repeats``'s) and undoes them, so the key ends as it would after all of them."""
    for first, added in stops.again(text, position):
        adds = runs.added - added
        if adds == 1:  # the key's line at `first` taken alone there, maybe: its repetitions as one run
            resumed = _skip_repeats(text, runs, first, position, alone(runs[-1], first))
            if resumed != position:
                stops.clear()
                return resumed
        if not 0 < adds <= min(_FIRSTS, len(runs.firsts)):
            continue
        firsts = runs.firsts[-adds:]
        if runs.engine:
            undone = not runs.structs and ("!" in firsts or all(action == "" for action in firsts))
            undone = undone or (not runs.structs and _moves_to_end(text, runs, adds))
        else:
            undone = "" in firsts or "!" in firsts
        if undone:
            count = _repeats(text, first, position - first)
            if count >= 3:
                stops.clear()
                return first + (count - 1) * (position - first)
    stops.push(position, runs.added)
    return position


def _moves_to_end(text: str, runs: _Runs, adds: int) -> bool:
    """Whether the engine's last ``adds`` runs (a stretch's lines of the key) are pairs ``-Key=x``, ``.Key=x``: each
    moves its value to the end of the array (the last equal one taken out, a new one appended), so after one
    stretch the array ends with its values in the order of their last moves, and another stretch takes out those
    and appends them again in the same order: every repetition leaves the array as the first did, but for the
    refs of its own lines."""
    firsts = runs.firsts[-adds:]
    if "!" in firsts or "" in firsts:  # such a run may have let go of the runs before it
        return False
    lines: list[tuple[str, str]] = []
    for run in runs[-adds:]:
        if isinstance(run, Copies):
            lines.extend([(run.action, run.value)] * run.times)
        elif run.added:
            return False
        else:
            lines.extend((action, value) for action, key, value in run.pattern.findall(text, run.start, run.end) if key)
        if len(lines) > 2 * _FIRSTS:
            return False
    removed, appended = lines[0::2], lines[1::2]
    values = [value for _action, value in removed]
    return (
        bool(lines)
        and len(removed) == len(appended)
        and all(action == "-" for action, _value in removed)
        and appended == [(".", value) for value in values]
    )


_PERIOD = 4096
"""The longest text from one of the key's lines to the next stop that is looked for again right after it."""


def _skip_repeats(text: str, runs: _Runs, first: int, stop: int, line: Copies | None) -> int:
    """Where the scanning loop reads on from, at a stop at the key's line at ``stop`` inside the section, when a
    stop before was at ``first``, also inside, and took the key's line there alone (``line``: the one run added
    since). When the text from ``first`` to ``stop`` comes again and again from ``stop`` on (a file of sections
    that change every few lines, the key in each one), every repetition but the last holds that same line alone
    and leaves the section open: they are added as one run (``line`` at ``stop``, a repetition's length apart),
    and the loop reads on at the last one, a Python step for all of them.

    Why that is exact: each reader takes a line (its end, what it is) from its characters up to its line break
    and the one character after it, and the section from the headers before it. A stretch from one line start to
    the next inside the section, whose lines the loop read as one line of the key and nothing more of it, reads
    the same wherever it is followed by the same characters: so every repetition followed by another does."""
    period = stop - first
    if line is None:
        return stop
    count = _repeats(text, first, period)
    if count < 3:
        return stop
    runs.add(Copies(line.action, line.value, stop, period, count - 2, line.length), line.action)
    return first + (count - 1) * period


def _comes_again(text: str, first: int, stop: int) -> bool:
    """Whether the text from ``first`` to ``stop`` (``_PERIOD`` characters at most) comes again from ``stop``."""
    return stop - first <= _PERIOD and text.startswith(text[first:stop], stop)


def _repeats(text: str, start: int, period: int) -> int:
    """How many times ``text[start:start + period]`` comes one after the other from ``start``: a run of them
    doubled while its copy follows it, then lengthened by halves (a few string comparisons in C)."""
    block = period
    while text.startswith(text[start : start + block], start + block):
        block *= 2
    step = block // 2
    while step >= period:
        if text.startswith(text[start : start + step], start + block):
            block += step
        step //= 2
    return block // period


_CHUNK = 4096
"""Plain lines read by one ``findall``: small enough that a run of identical lines after them is found soon."""
_CHUNK_CHARACTERS = 1 << 16
"""The characters of plain lines read by one ``findall`` when they are taken in bulk."""


_SECTION_BLOCKS = 64
"""How many times a key's scanning loop enters the section before it stops (at the section's header), so that a
stretch that comes again and again without the key's lines is passed over whole (``_pass_sections``), as a file of
short sections repeated would cost a pass of the skipping pattern a character."""


def _at_most_blocks(lines: str, blocks: str) -> str:
    """A skipping loop over ``lines`` and ``blocks`` (alternatives of which never two match at one place: a
    ``blocks`` one starts at a header of the section, no ``lines`` one does) that stops after ``_SECTION_BLOCKS``
    of ``blocks``: the same loop as ``(?:lines|blocks)*+`` but for where it stops. Each block starts a turn, so
    that a text without one is passed once (a turn of lines that no block ends would be given back and taken
    again)."""
    return rf"(?:(?:{lines})*+(?:(?:{blocks})(?:{lines})*+){{0,{_SECTION_BLOCKS}}}+)"


def _pass_sections(text: str, stops: _Stops, position: int, added: int) -> int:
    """Where a key's scanning loop reads on from, at a stop at the section's header at ``position``, after
    ``added`` runs. When the text from one of the stops before, with no run added since, to this one comes again
    and again from here on, every repetition but the last is passed over: each holds none of the key's lines in the
    section, as the first (each reader decides a line and a header from the line's characters up to its line break
    and the one after it, and the section from the headers before it), and the loop is in the section or out of it
    after each as after the first."""
    for first, before in stops.again(text, position):
        if before != added:
            continue
        period = position - first
        count = _repeats(text, first, period)
        if count >= 3:
            stops.clear()
            return first + (count - 1) * period
    stops.push(position, added)
    return position


class _EnginePatterns:
    """The patterns that find one key's lines in one section, as the engine reads them."""

    def __init__(self, section: str, key: str) -> None:
        name, key_name = _name_pattern(section), _name_pattern(key)
        key_start = rf"(?:{_SP}|{_CONT})*+~?[+.\-!@*]?{key_name}(?:{_SP}|{_CONT})*+="
        header_s = rf"\[{name}\]{_TAIL}"
        header = f"(?:{_HEADER})"
        line = rf"{_LL}[\r\n|]*+"  # a simple line and the separators after it (blank lines are empty ones)
        # fast ways past the common lines, tried first: plain lines that cannot be a header or a key line (their
        # first character), and the section's own plain headers
        first = _first_chars(key, r"\[ \t\v\f~+.\-!@*")
        plain = r'[^"|\\{\r\n/]*+(?:/(?!/)[^"|\\{\r\n/]*+)*+'
        letters = _first_chars(key, "")
        # and in bulk, lines (and their '|' parts) up to the last separator before a character that may matter
        others = (
            rf'[^"\\{{/\[{letters}]*[\r\n|]'
            rf'|(?:[^"|\\{{\r\n/{first}][^"|\\{{\r\n/]*+(?:[\r\n|]++|\Z))++'
        )
        any_line = r'[^"\\{/\[]*[\r\n|]|(?:[^"|\\{\r\n/\[][^"|\\{\r\n/]*+(?:[\r\n|]++|\Z))++'
        plain_header = r'\[[^"|\\{\r\n/\]]*+\](?:[\r\n|]++|\Z)'
        own_headers = rf"(?:\[{name}\](?:[\r\n|]++|\Z))++"
        out_blocks = rf"(?:(?!{header_s}){header}[\r\n|]*+(?:{any_line}|(?!{header}){line})*+)++(?={header_s}|\Z)"
        in_blocks = (
            rf"(?:{header_s}[\r\n|]*+(?:{others}|(?!{header})(?!{key_start}){line})*+)++"
            rf"(?=(?!{header_s}){header}|\Z)"
        )
        self.skip_in = re.compile(
            _at_most_blocks(
                rf"{others}|(?!{header})(?!{key_start}){line}|{out_blocks}", rf"{own_headers}|{header_s}[\r\n|]*+"
            )
        )
        self.skip_out = re.compile(
            _at_most_blocks(
                rf"{any_line}|(?!{header_s}){plain_header}|(?!{header}){line}|(?!{header_s}){header}[\r\n|]*+",
                in_blocks,
            )
        )
        self.header = re.compile(header)
        self.header_s = re.compile(header_s)
        self.key_start = re.compile(key_start)
        self.copies = re.compile(
            rf"(?P<unit>(?P<line>(?:{_SP}|{_CONT})*+~?(?P<action>[+.\-!@*]?){key_name}(?:{_SP}|{_CONT})*+="
            rf"(?P<body>(?:{_ITEM})*+(?:{_OPEN_QUOTE})?)(?:{_IGNORE})?{_END})(?:{_SEP}|\Z))(?:(?P=unit))*+"
        )
        # plain lines only (no quotes, backslashes, braces or '//'): each '|' and line break in them ends a line
        self.chunk = re.compile(rf"(?:(?:(?!{header})|(?={header_s})){plain}{_END}[\r\n|]*+){{1,{_CHUNK}}}+")
        # in bulk: lines without '[', quotes, backslashes, braces or '/' at all, up to the last separator before
        # the end given (the greedy run backs off to it, in C)
        self.bulk = re.compile(r'[^"\\{/\[]*[\r\n|][\r\n|]*+')
        value = r'[^"|\\{\r\n/ \t\v\f]*+(?:(?:/(?!/)|[ \t\v\f]++(?![\r\n|]|\Z))[^"|\\{\r\n/ \t\v\f]*+)*+'
        self.lines = re.compile(
            rf"(?:{_SP}*+~?([+.\-!@*]?)({key_name}){_SP}*+={_SP}*+({value}){_SP}*+|{plain}){_END}[\r\n|]*+"
        )
        """Read from a chunk's start, each match is one of its lines: (prefix, key, value), the key empty for the
        other lines."""
        # the section coming again and again with other sections between: its plain lines and its plain headers,
        # and the other sections' simple lines (each stretch of them, with the section's header after it, one
        # match without groups), so that each time the section comes costs a match, not a stop of the loop
        s_head = rf"\[{name}\](?:[\r\n|]++|\Z)|(?={header_s}){plain}{_END}[\r\n|]*+"  # the plain form first
        other_header = rf"(?!{header_s})(?:\[[^\"|\\{{\r\n/\]]*+\](?=[\r\n|]|\Z)|{header})"
        others = rf"{other_header}[\r\n|]*+(?:{any_line}|(?!{header_s}){line})*+(?:{s_head})"
        self.block_chunk = re.compile(rf"(?:{others}|{s_head}|(?!{header}){plain}{_END}[\r\n|]*+){{1,{_CHUNK}}}+")
        self.block_lines = re.compile(
            rf"(?:{others}|{s_head}|(?:{_SP}*+~?([+.\-!@*]?)({key_name}){_SP}*+={_SP}*+({value}){_SP}*+|{plain})"
            rf"{_END}[\r\n|]*+)"
        )
        """As ``lines``, a match a line of the section or a stretch of other sections (the groups empty)."""
        added = rf"{_SP}*+~?\+{key_name}{_SP}*+={_SP}*+{{}}{_SP}*+{_END}[\r\n|]*+"
        self.added_chunk = re.compile(rf"(?:{added.format(value)}){{2,{_CHUNK}}}+")
        self.added = re.compile(added.format(f"({value})"))
        """A chunk of ``+`` lines of the key only: each match one line, its value."""
        # a line with a given prefix is found by a fast search for its prefix and key, then checked to be a line
        self.clear_line = re.compile(rf"{_SP}*+~?!{key_name}{_SP}*+=")
        self.struct = re.compile(rf"@{key_name}{_SP}*+=")
        self.struct_line = re.compile(rf"{_SP}*+~?@{key_name}{_SP}*+=")
        self.remove = re.compile(rf"-{key_name}{_SP}*+=")
        self.remove_line = re.compile(rf"{_SP}*+~?-{key_name}{_SP}*+=")
        self.prefixed = re.compile(rf"[+.\-!@*]{key_name}")
        """Where a line of the key with a prefix may be (a key line's prefix is right before its name)."""


@functools.lru_cache(maxsize=128)
def _engine_patterns(section: str, key: str) -> _EnginePatterns:
    return _EnginePatterns(section, key)


def engine_key_runs(text: str, section: str, key: str) -> list[Run]:
    """The engine's lines of ``key`` in ``section`` (``fast_name`` names), in file order, as runs."""
    patterns = _engine_patterns(section, key)
    section_name, key_name = section.lower(), key.lower()
    runs = _Runs(engine=True)
    alone = functools.partial(_engine_alone, text, patterns)
    size = len(text)
    inside = False
    position = 0
    stops = _Stops()
    """The last stops at the key's lines inside the section, with how many runs were added before each."""
    sections = _Stops()
    """The last stops at the section's headers, with how many runs were added before each."""
    while True:
        position = _reach(patterns.skip_in if inside else patterns.skip_out, text, position)
        if position >= size:
            return runs
        header = patterns.header_s.match(text, position)
        if header is not None:
            resumed = _pass_sections(text, sections, position, runs.added)
            if resumed != position:
                position = resumed
                continue
            inside = True
            position = header.end()
            continue
        if inside:
            if patterns.key_start.match(text, position) is not None:
                position = _pass_stretch(text, runs, stops, position, alone)
                taken = _engine_key_lines(text, patterns, position, runs, blocks=stops.full())
                if taken is not None:
                    position = taken
                    continue
            else:
                header = patterns.header.match(text, position)
                if header is not None:  # a simple header, not of the section: a section of its own starts
                    inside = False
                    position = header.end()
                    continue
        logical, end, following = engine_line(text, position)  # a line joined by braces
        parsed = engine_parse(logical)
        if parsed is not None:
            if parsed.header is not None:
                inside = parsed.header.lower() == section_name
            elif inside and parsed.key.lower() == key_name:
                runs.add(Copies(parsed.action, parsed.value, position, 0, 1, end - position), parsed.action)
        position = following


def _engine_alone(text: str, patterns: _EnginePatterns, run: Run, start: int) -> Copies | None:
    """The key's line at ``start`` as a run of its own, when ``run`` (taken from there) holds that line alone."""
    if isinstance(run, Copies):
        return run if run.times == 1 and run.start == start else None
    if (
        run.start != start
        or run.added
        or sum(1 for _action, key, _value in run.pattern.findall(text, start, run.end) if key) != 1
    ):
        return None
    copies = patterns.copies.match(text, start)
    return None if copies is None else _engine_copies(text, copies, start, 0, 1)


def _engine_key_lines(
    text: str, patterns: _EnginePatterns, position: int, runs: _Runs, *, blocks: bool = False
) -> int | None:
    """Take the key's simple lines at ``position`` as a run; where they end, or None for a line joined by braces.
    With ``blocks`` (the last stops were no stretch that comes again), lines that end at another section's header
    are read on through the other sections to the section's next header and beyond (``block_chunk``)."""
    copies = patterns.copies.match(text, position)
    if copies is not None:
        unit = copies.end("unit") - position
        count = (copies.end() - position) // unit
        if count > 1:
            found = _engine_copies(text, copies, position, unit, count)
            runs.add(found, found.action)
            return copies.end()
    added = patterns.added_chunk.match(text, position)
    if added is not None:
        runs.add(Lines(position, added.end(), patterns.added, removes=False, added=True), "+")
        return added.end()
    chunk = patterns.bulk.match(text, position, min(len(text), position + _CHUNK_CHARACTERS))
    if chunk is None or (copies is not None and chunk.end() <= copies.end()):
        chunk = patterns.chunk.match(text, position)
    reached = max(chunk.end() if chunk is not None else 0, copies.end() if copies is not None else 0)
    if blocks and text.startswith("[", reached):  # another section's header, maybe
        block = patterns.block_chunk.match(text, position)
        if block is not None and block.end() > reached:
            start, end = position, block.end()
            removes = _first_line(text, patterns.remove, patterns.remove_line, start, end, "\r\n|") >= 0
            struct = _first_line(text, patterns.struct, patterns.struct_line, start, end, "\r\n|") >= 0
            if struct:  # maybe in another section's lines: the section's own lines say
                lines = patterns.block_lines.findall(text, start, end)
                struct = any(action == "@" and key for action, key, _value in lines)
            plain = patterns.prefixed.search(text, start, end) is None  # then the first line is plain too
            runs.add(Lines(start, end, patterns.block_lines, removes, struct, plain=plain), "" if plain else "?")
            return end
    if chunk is not None and (copies is None or chunk.end() > copies.end()):
        start, end = position, chunk.end()
        clear = _last_marked(text, "!", patterns.clear_line, start, end)
        if clear >= 0 and _first_line(text, patterns.struct, patterns.struct_line, start, clear, "\r\n|") < 0:
            start = clear  # '!' empties the key: the lines before it change nothing
        removes = _first_line(text, patterns.remove, patterns.remove_line, start, end, "\r\n|") >= 0
        struct = _first_line(text, patterns.struct, patterns.struct_line, start, end, "\r\n|") >= 0
        runs.add(Lines(start, end, patterns.lines, removes, struct), "!" if start == clear else "?")
        return end
    if copies is not None:
        found = _engine_copies(text, copies, position, copies.end("unit") - position, 1)
        runs.add(found, found.action)
        return copies.end()
    return None


def _engine_copies(text: str, copies: re.Match[str], position: int, unit: int, count: int) -> Copies:
    """A run of identical simple lines: its value read from the first one's characters (no copy of the line)."""
    body_start, body_end = copies.span("body")
    value = text[body_start:body_end]
    if "\\" in value:
        value = continued_as_spaces(value)
    value = value.strip(CPP_SPACE)
    if value.startswith('"'):
        value = quoted_string(value)
    return Copies(copies.group("action"), value, position, unit, count, copies.end("line") - position)


def _line_start(text: str, start: int, at: int, breaks: str) -> int:
    """Where the line holding ``at`` starts, in a chunk of plain lines from ``start``."""
    return max(start, *(text.rfind(char, start, at) + 1 for char in breaks))


def _first_line(text: str, search: re.Pattern[str], line: re.Pattern[str], start: int, end: int, breaks: str) -> int:
    """Where the first line in a chunk of plain lines ``[start, end)`` that ``line`` matches starts, or -1. The
    candidates are found by ``search`` (its first character a literal: a fast scan), then checked to be such a
    line."""
    at = start
    while (found := search.search(text, at, end)) is not None:
        first = _line_start(text, start, found.start(), breaks)
        if line.match(text, first, end) is not None:
            return first
        at = found.end()
    return -1


def _last_marked(text: str, mark: str, line: re.Pattern[str], start: int, end: int) -> int:
    """Where the last line in a chunk of the engine's plain lines ``[start, end)`` that ``line`` matches starts, or
    -1; it holds ``mark``, found from the end by ``rfind``."""
    while (at := text.rfind(mark, start, end)) >= 0:
        first = _line_start(text, start, at, "\r\n|")
        if line.match(text, first, end) is not None:
            return first
        end = first
    return -1


class _UbtPatterns:
    """The patterns that find one key's lines in one section, as UnrealBuildTool reads them."""

    def __init__(self, section: str, key: str) -> None:
        name, key_name = _name_pattern(section), _name_pattern(key)
        clear_all = rf"[ \t]*+![^\S\r\n]*+{key_name}[^\S\r\n]*+(?=[\r\n]|\Z)"
        key_start = rf"(?:[ \t]*+[+\-!]?[ \t]*+{key_name}[ \t]*+=|{clear_all})"
        header_s = rf"[ \t]*+\[{name}\][ \t]*+(?=[\r\n]|\Z)"
        header = r"(?=[ \t]*+\[)"
        line = rf"(?:{_ULL}){_UBR}?"  # a line and its line break (a blank line is an empty one)
        first = _first_chars(key, r"\[ \t+\-!")
        letters = _first_chars(key, "")
        others = rf"[^\\\[{letters}]*[\r\n]|(?:[^\r\n\\{first}][^\r\n\\]*+(?:{_UBR}|\Z))++"
        any_line = rf"[^\\\[]*[\r\n]|(?:[^\r\n\\ \t\[][^\r\n\\]*+(?:{_UBR}|\Z))++"
        own_headers = rf"(?:\[{name}\](?:{_UBR}|\Z))++"
        out_blocks = rf"(?:(?!{header_s}){header}{line}(?:{any_line}|(?!{header}){line})*+)++(?={header_s}|\Z)"
        in_blocks = (
            rf"(?:{header_s}{_UBR}?(?:{others}|(?!{header})(?!{key_start}){line})*+)++(?=(?!{header_s}){header}|\Z)"
        )
        self.skip_in = re.compile(
            _at_most_blocks(
                rf"{others}|(?!{header})(?!{key_start}){line}|{out_blocks}", rf"{own_headers}|{header_s}{_UBR}?"
            )
        )
        self.skip_out = re.compile(
            _at_most_blocks(rf"{any_line}|(?!{header}){line}|(?!{header_s}){header}{line}", in_blocks)
        )
        self.header_s = re.compile(header_s)
        self.key_start = re.compile(key_start)
        self.copies = re.compile(rf"(?P<unit>(?={key_start})(?P<line>{_ULL})(?:{_UBR}|\Z))(?:(?P=unit))*+")
        plain = r"[^\r\n\\]*+"
        self.chunk = re.compile(rf"(?:(?:{header_s}|(?!{header}){plain}(?=[\r\n]|\Z))(?:{_UBR}|\Z)){{1,{_CHUNK}}}+")
        self.bulk = re.compile(r"[^\\\[]*[\r\n]")  # lines without '\\' or '[', up to the last line break given
        value = r"(?:[^\r\n\\ \t]++|[ \t]++(?![\r\n]|\Z))*+"
        self.lines = re.compile(
            rf"(?:[ \t]*+([+\-!]?)[ \t]*+({key_name})[ \t]*+=[ \t]*+({value})[ \t]*+"
            rf"|[ \t]*+(!)[^\S\r\n]*+({key_name})[^\S\r\n]*+|{plain})(?=[\r\n]|\Z){_UBR}?"
        )
        """Read from a chunk's start, each match is one of its lines: (prefix, key, value, '!', key) for a line
        ``!Key`` without ``=``; the keys empty for the other lines."""
        # as the engine's ``block_chunk`` and ``block_lines``: every '[' line leaves the section
        s_head = rf"{header_s}(?:{_UBR}|\Z)"
        other_header = rf"(?!{header_s})(?:\[[^\r\n\\]*+(?:{_UBR}|\Z)|{header}{line})"  # without a backslash first
        others = rf"{other_header}(?:{any_line}|(?!{header_s}){line})*+{s_head}"
        self.block_chunk = re.compile(
            rf"(?:{others}|{s_head}|(?!{header}){plain}(?=[\r\n]|\Z)(?:{_UBR}|\Z)){{1,{_CHUNK}}}+"
        )
        self.block_lines = re.compile(
            rf"(?:{others}|{s_head}|(?:[ \t]*+([+\-!]?)[ \t]*+({key_name})[ \t]*+=[ \t]*+({value})[ \t]*+"
            rf"|[ \t]*+(!)[^\S\r\n]*+({key_name})[^\S\r\n]*+|{plain})(?=[\r\n]|\Z){_UBR}?)"
        )
        self.last_bracket = re.compile(r"(?s:.*)[\r\n](?P<mark>)[ \t]*+\[")
        reset = rf"(?:[ \t]*+!?[ \t]*+{key_name}[ \t]*+=|{clear_all})"
        self.reset_line = re.compile(reset)
        # a line that sets the key anew, after a line break: looked for forwards (the search runs on to the first
        # line break) and, when there is one, backwards from the end
        self.next_reset = re.compile(rf"[\r\n](?={reset})")
        self.last_reset = re.compile(rf"(?s:.*)[\r\n](?P<mark>){reset}")
        self.remove = re.compile(rf"-[ \t]*+{key_name}[ \t]*+=")
        self.remove_line = re.compile(rf"[ \t]*+-[ \t]*+{key_name}[ \t]*+=")


@functools.lru_cache(maxsize=128)
def _ubt_patterns(section: str, key: str) -> _UbtPatterns:
    return _UbtPatterns(section, key)


def ubt_key_runs(text: str, section: str, key: str) -> list[Run]:
    """UnrealBuildTool's lines of ``key`` in ``section`` (``fast_name`` names), in file order, as runs."""
    patterns = _ubt_patterns(section, key)
    key_name = key.lower()
    runs = _Runs(engine=False)
    alone = functools.partial(_ubt_alone, text, patterns, key_name=key_name)
    size = len(text)
    inside = False
    position = 0
    stops = _Stops()
    """The last stops at the key's lines inside the section, with how many runs were added before each."""
    sections = _Stops()
    """The last stops at the section's headers, with how many runs were added before each."""
    while True:
        position = _reach(patterns.skip_in if inside else patterns.skip_out, text, position)
        if position >= size:
            return runs
        if not inside or patterns.header_s.match(text, position) is not None:
            resumed = _pass_sections(text, sections, position, runs.added)
            if resumed != position:
                position = resumed
                continue
            position = _reach(patterns.header_s, text, position)  # the loop stops at the section's header only
            inside = True
            continue
        if patterns.key_start.match(text, position) is None:  # a '[' line: the section ends
            position = _reach(_patterns().ubt_line, text, position)
            inside = False
            continue
        position = _pass_stretch(text, runs, stops, position, alone)
        copies = patterns.copies.match(text, position)
        assert copies is not None  # every line that starts like a key line is one logical line
        unit = copies.end("unit") - position
        count = (copies.end() - position) // unit
        chunk = None
        if count == 1:
            chunk = patterns.bulk.match(text, position, min(size, position + _CHUNK_CHARACTERS))
            if chunk is None or chunk.end() <= copies.end():
                chunk = patterns.chunk.match(text, position)
            reached = max(chunk.end() if chunk is not None else 0, copies.end())
            if (
                stops.full()
                and patterns.key_start.match(text, reached) is None
                and text.startswith(("[", " ", "\t"), reached)
            ):
                block = patterns.block_chunk.match(text, position)  # on through other sections (the engine's)
                if block is not None and block.end() > reached and text.find("\\", position, block.end()) < 0:
                    end = block.end()
                    start = _ubt_block_reset(text, patterns, position, end)
                    first = "?"
                    if start >= 0:  # the lines before it change nothing
                        found = patterns.block_lines.match(text, start)
                        assert found is not None
                        first = "!" if found.group(4) else found.group(1)
                    start = max(start, position)
                    removes = _first_line(text, patterns.remove, patterns.remove_line, start, end, "\r\n") >= 0
                    runs.add(Lines(start, end, patterns.block_lines, removes), first)
                    position = end
                    continue
        if chunk is not None and chunk.end() > copies.end():
            start, end = position, chunk.end()
            reset = _ubt_last_reset(text, patterns, start, end)
            if reset >= 0:
                start = reset  # a plain line or '!' sets the key anew: the lines before it go
            removes = _first_line(text, patterns.remove, patterns.remove_line, start, end, "\r\n") >= 0
            runs.add(Lines(start, end, patterns.lines, removes), "!" if reset >= 0 else "?")
            position = end
            continue
        line = _ubt_copies(text, copies, position, key_name)
        if line is not None:
            runs.add(line, line.action)
        position = copies.end()


def _ubt_copies(text: str, copies: re.Match[str], position: int, key_name: str) -> Copies | None:
    """The run of identical lines ``copies`` matched at ``position``, when they are lines of the key."""
    unit = copies.end("unit") - position
    line_end = copies.end("line")
    raw = text[position:line_end]
    parsed = ubt_parse(joined(raw) if "\r" in raw or "\n" in raw else raw)
    if parsed is None or parsed.key.lower() != key_name:
        return None
    count = (copies.end() - position) // unit
    return Copies(parsed.action, parsed.value, position, unit, count, line_end - position)


def _ubt_alone(text: str, patterns: _UbtPatterns, run: Run, start: int, *, key_name: str) -> Copies | None:
    """The key's line at ``start`` as a run of its own, when ``run`` (taken from there) holds that line alone."""
    if isinstance(run, Copies):
        return run if run.times == 1 and run.start == start else None
    if run.start != start:
        return None
    lines = run.pattern.findall(text, start, run.end)
    if sum(1 for _action, key, _value, _bang, cleared in lines if key or cleared) != 1:
        return None
    copies = patterns.copies.match(text, start)
    return None if copies is None else _ubt_copies(text, copies, start, key_name)


def _ubt_block_reset(text: str, patterns: _UbtPatterns, start: int, end: int) -> int:
    """Where the last line of the section that sets the key anew starts in a chunk of lines of the section and of
    other sections between its headers (``block_chunk``, no backslash in it: each physical line is a line), or -1:
    each line that would, from the end, is the section's when the last ``[`` line before it is its header."""
    while (reset := _ubt_last_reset(text, patterns, start, end)) >= 0:
        bracket = patterns.last_bracket.match(text, start, reset)
        if bracket is None or patterns.header_s.match(text, bracket.start("mark")) is not None:
            return reset
        end = bracket.start("mark")
    return -1


def _ubt_last_reset(text: str, patterns: _UbtPatterns, start: int, end: int) -> int:
    """Where the last plain line that sets the key anew (``Key=``, ``!Key=``, ``!Key``) starts in a chunk, or -1."""
    if patterns.next_reset.search(text, start, end) is not None:
        found = patterns.last_reset.match(text, start, end)
        assert found is not None
        return found.start("mark")
    return start if patterns.reset_line.match(text, start, end) is not None else -1


# Headers ------------------------------------------------------------------------------------------------------------


class _HeaderPatterns:
    """The patterns that pass over every line but headers, for either reader (compiled once, for any section)."""

    def __init__(self) -> None:
        header = f"(?:{_HEADER})"
        any_line = r'(?:[^"|\\{\r\n/\[][^"|\\{\r\n/]*+(?:[\r\n|]++|\Z))++'
        bulk = r'[^"\\{/\[]*[\r\n|]'  # lines without '[' or specials, up to the last separator before one
        self.engine_skip = re.compile(rf"(?:{bulk}|{any_line}|(?!{header}){_LL}[\r\n|]*+)*+")
        # a header and the lines of its section, repeated alike ('[S]', 'x=1', '[S]', 'x=1', ...) as one run
        self.engine_run = re.compile(
            rf"(?P<unit>(?P<line>{header})(?:[\r\n|]++|\Z)(?:{bulk}|(?!{header}){_LL}(?:[\r\n|]++|\Z))*+)"
            rf"(?:(?P=unit))*+"
        )
        ubt_any = rf"(?:[^\r\n\\ \t\[][^\r\n\\]*+(?:{_UBR}|\Z))++"
        self.ubt_skip = re.compile(rf"(?:[^\\\[]*[\r\n]|{ubt_any}|(?![ \t]*+\[)(?:{_ULL}){_UBR}?)*+")
        self.ubt_run = re.compile(
            rf"(?P<unit>(?P<line>[ \t]*+\[(?:{_ULL}))(?:{_UBR}|\Z)"
            rf"(?:[^\\\[]*[\r\n]|(?![ \t]*+\[)(?:{_ULL})(?:{_UBR}|\Z))*+)(?:(?P=unit))*+"
        )


@functools.cache
def _header_patterns() -> _HeaderPatterns:
    return _HeaderPatterns()


class Header(NamedTuple):
    """A run of equal header lines one after the other (most often one): its name, where the first and the last
    start, where the last one's text ends, and the length of one line with its separators (0 for one line)."""

    name: str
    first: int
    last: int
    end: int
    unit: int = 0


def _pass_repeats(text: str, stops: _Stops, position: int, limit: int | None = None) -> int:
    """Where a headers scan reads on from, at a stop at ``position``. When the text from one of the stops before to
    this one comes again and again from here on, the repetitions but the last (and any that would start after
    ``limit``) are passed over: each holds the headers of the first, which the scan gave already, and its last
    line ends before the next starts (each reader finds a header and a line's end from the line's characters up to
    its line break and the one after it), so what is asked of the headers (the names in the order they first come,
    a section's last header and the header after it, whether a section is open after the last) is the same
    without them."""
    for first, _added in stops.again(text, position):
        period = position - first
        count = _repeats(text, first, period)
        if limit is not None:
            count = min(count, (limit - first) // period + 1)
        if count >= 3:
            stops.clear()
            return first + (count - 1) * period
    stops.push(position)
    return position


def engine_headers(text: str, position: int = 0, limit: int | None = None) -> Iterator[Header]:
    """The engine's section headers from ``position`` (a logical line's start), in file order; of a stretch that
    comes again and again, the headers of its first and last repetitions (``_pass_repeats``), but every header that
    starts after ``limit``."""
    patterns = _header_patterns()
    size = len(text)
    stops = _Stops()
    while True:
        position = _reach(patterns.engine_skip, text, position)
        if position >= size:
            return
        resumed = _pass_repeats(text, stops, position, limit)
        if resumed != position:
            position = resumed
            continue
        run = patterns.engine_run.match(text, position)
        if run is not None:
            unit = run.end("unit") - position
            last = position + ((run.end() - position) // unit - 1) * unit
            parsed = engine_parse(engine_simple_text(run.group("line")))
            assert parsed is not None
            assert parsed.header is not None
            yield Header(parsed.header, position, last, last + run.end("line") - position, unit)
            position = run.end()
            continue
        logical, end, following = engine_line(text, position)
        parsed = engine_parse(logical)
        if parsed is not None and parsed.header is not None:
            yield Header(parsed.header, position, position, end)
        position = following


def ubt_headers(text: str, position: int = 0, limit: int | None = None) -> Iterator[Header]:
    """UnrealBuildTool's section headers from ``position`` (a line's start), in file order (``[`` lines without
    ``]`` are not headers); of a stretch that comes again and again, the headers of its first and last
    repetitions (``_pass_repeats``), but every header that starts after ``limit``."""
    patterns = _header_patterns()
    size = len(text)
    stops = _Stops()
    while True:
        position = _reach(patterns.ubt_skip, text, position)
        if position >= size:
            return
        resumed = _pass_repeats(text, stops, position, limit)
        if resumed != position:
            position = resumed
            continue
        run = patterns.ubt_run.match(text, position)
        assert run is not None  # every line the skip stops at starts with '['
        unit = run.end("unit") - position
        last = position + ((run.end() - position) // unit - 1) * unit
        raw = run.group("line")
        parsed = ubt_parse(joined(raw) if "\r" in raw or "\n" in raw else raw)
        if parsed is not None and parsed.header is not None:
            yield Header(parsed.header, position, last, last + len(raw), unit)
        position = run.end()


class _LastHeaderPatterns:
    """The patterns that pass over every line but one section's headers, and over each of its headers whose
    section runs, in simple lines, up to another of its headers (at most ``_BLOCKS`` of them at a time): a scan
    stops at its last header (and, for the engine, at lines joined by braces), so that a file of many other
    sections costs no Python step a header."""

    def __init__(self, section: str) -> None:
        name = _name_pattern(section)
        # a header's section is taken only when the name is written as a header further on, so that the last
        # header is not read to the end of the text once in vain: runs of characters, not a step a character
        later = rf"(?=(?:[^\[]++|\[(?!{name}\]))*+\[{name}\])"
        self.candidate = re.compile(rf"\[{name}\]")
        engine_header_s = rf"\[{name}\]{_TAIL}"
        engine_line = r'[^"\\{/\[]*[\r\n|]|(?:[^"|\\{\r\n/\[][^"|\\{\r\n/]*+(?:[\r\n|]++|\Z))++'
        engine_line += rf'|(?!{engine_header_s})\[[^"|\\{{\r\n/]*+(?:[\r\n|]++|\Z)'  # a plain '[' line, at once
        engine_line += rf"|(?!{engine_header_s}){_LL}[\r\n|]*+"
        engine_block = rf"{engine_header_s}{later}[\r\n|]*+(?:{engine_line})*+(?={engine_header_s})"
        self.engine_header_s = re.compile(engine_header_s)
        self.engine_skip = re.compile(rf"(?:(?:{engine_line})*+(?:{engine_block})){{0,{_BLOCKS}}}+(?:{engine_line})*+")
        ubt_header_s = rf"[ \t]*+\[{name}\][ \t]*+(?=[\r\n]|\Z)"
        ubt_line = rf"[^\\\[]*[\r\n]|(?:[^\r\n\\ \t\[][^\r\n\\]*+(?:{_UBR}|\Z))++"
        ubt_line += rf"|(?!{ubt_header_s})\[[^\r\n\\]*+(?:{_UBR}|\Z)"  # a '[' line without a backslash, at once
        ubt_line += rf"|(?!{ubt_header_s})(?:{_ULL}){_UBR}?"
        ubt_block = rf"{ubt_header_s}{later}{_UBR}?(?:{ubt_line})*+(?={ubt_header_s})"
        self.ubt_header_s = re.compile(ubt_header_s)
        self.ubt_skip = re.compile(rf"(?:(?:{ubt_line})*+(?:{ubt_block})){{0,{_BLOCKS}}}+(?:{ubt_line})*+")


_BLOCKS = 64
"""How many of a section's headers a last-header scan passes before it stops: a stretch that comes again and
again from one stop to a later one is then passed over whole (``_pass_repeats``), as a file of one short section
repeated would cost a pass of the pattern a repetition."""


@functools.lru_cache(maxsize=32)
def _last_header_patterns(section: str) -> _LastHeaderPatterns:
    return _LastHeaderPatterns(section)


def engine_last_header(text: str, section: str) -> int | None:
    """Where the engine's last header of ``section`` (a ``fast_name``) starts, or None without one. The text is
    passed over by one pattern up to the section's last header; what stops it before is read in Python: a line
    joined by braces, a header whose section holds such a line before the section's next header, and every
    ``_BLOCKS``-th header of the section."""
    patterns = _last_header_patterns(section)
    if text.startswith("[") and text.find("[", 1) < 0 and patterns.engine_header_s.match(text) is not None:
        return 0  # the only '[' of the text, in a header of the section (a file of one section)
    last_brace = text.rfind("{")
    if patterns.candidate.search(text) is None and last_brace < 0:
        return None  # a header of the section is written so, or joined by braces
    name = section.lower()
    size = len(text)
    last = None
    position = 0
    stops = _Stops()
    while True:
        position = _reach(patterns.engine_skip, text, position)
        if position >= size:
            return last
        resumed = _pass_repeats(text, stops, position)
        if resumed != position:
            position = resumed
            continue
        header = patterns.engine_header_s.match(text, position)
        if header is not None:
            last = position
            if position > last_brace and patterns.candidate.search(text, header.end()) is None:
                return last  # a later header of the section would be written so, or joined by braces
            position = engine_next(text, header.end())
            continue
        logical, _end, following = engine_line(text, position)
        parsed = engine_parse(logical)
        if parsed is not None and parsed.header is not None and parsed.header.lower() == name:
            last = position
        position = following


def ubt_last_header(text: str, section: str) -> int | None:
    """Where UnrealBuildTool's last header of ``section`` (a ``fast_name``) starts, or None without one: every
    header of it is one physical line (a name of fast characters holds no backslash to join lines with), so the
    pattern stops at its headers only."""
    patterns = _last_header_patterns(section)
    if text.startswith("[") and text.find("[", 1) < 0 and patterns.ubt_header_s.match(text) is not None:
        return 0  # the only '[' of the text, in a header of the section (a file of one section)
    if patterns.candidate.search(text) is None:
        return None
    size = len(text)
    last = None
    position = 0
    stops = _Stops()
    while True:
        position = _reach(patterns.ubt_skip, text, position)
        if position >= size:
            return last
        resumed = _pass_repeats(text, stops, position)
        if resumed != position:
            position = resumed
            continue
        header = patterns.ubt_header_s.match(text, position)
        assert header is not None  # every other line is passed over
        last = position
        if patterns.candidate.search(text, header.end()) is None:
            return last
        following = _patterns().ubt_break.match(text, header.end())
        position = following.end() if following is not None else size


# A line around one place --------------------------------------------------------------------------------------------


class _AcrossPatterns:
    """Lines that end, with their separators, before a given place (read with that place as the text's end: a line
    the end cuts has no separator after it, so it is not taken)."""

    def __init__(self) -> None:
        self.engine = re.compile(rf'(?:[^"\\{{/]*[\r\n|][\r\n|]*+|{_LL}[\r\n|]++)*+')
        self.ubt = re.compile(rf"(?:[^\\\[]*[\r\n]|(?![ \t]*+\[)(?:{_ULL}){_UBR})*+")
        self.ubt_header = re.compile(r"[ \t]*+\[")  # where ``ubt`` stops before the place: a '[' line


@functools.cache
def _across_patterns() -> _AcrossPatterns:
    return _AcrossPatterns()


class Across(NamedTuple):
    """The line that holds a place or runs on past it (its start, the end of its text, its text; None when lines
    meet there), and a line start at or before the place to read from again, with whether a section is open
    there (UnrealBuildTool's ``[`` lines without ``]`` close it)."""

    line: tuple[int, int, str] | None
    sync: int
    open: bool = True


def engine_line_across(text: str, start: int, at: int) -> Across:
    """The engine's logical line that holds the character at ``at`` or runs on past it, read from ``start`` (a
    logical line's start, or the end of one's text)."""
    before = _across_patterns().engine
    position = start
    while True:
        position = _reach(before, text, position, at)
        if position > at or (position == at and text[at : at + 1] in ("\r", "\n", "|", "")):
            return Across(None, min(position, at))  # lines end before it, and it is a line break or '|'
        simple = _patterns().ll_parts.match(text, position)
        if simple is not None:
            body = simple.group("body")
            logical, end = (continued_as_spaces(body) if "\\" in body else body), simple.end()
            following = _reach(_patterns().separators, text, end)
        else:
            logical, end, following = engine_line(text, position)
        if end > at:
            return Across((position, end, logical), position)
        if following > at or following >= len(text):
            return Across(None, position)
        position = following


def ubt_line_across(text: str, start: int, at: int, open_section: bool = True) -> Across:
    """UnrealBuildTool's line that holds the character at ``at`` or runs on past it (as :func:`engine_line_across`),
    read from ``start`` (a line's start), where the section is open or not."""
    before = _across_patterns().ubt
    position = start
    line_start = max(text.rfind("\r", start, at), text.rfind("\n", start, at)) + 1  # of the line holding `at`
    stops = _Stops()
    while True:
        # the lines up to the one holding `at` (a greedy run to `at` itself would walk back over a long line)
        position = _reach(before, text, position, max(position, line_start))
        if position >= at and text[at : at + 1] in ("\r", "\n", ""):
            return Across(None, min(position, at), open_section)
        if position < line_start and _across_patterns().ubt_header.match(text, position) is not None:
            # a '[' line, which opens or closes the section: the stretch from one of them to another that comes
            # again leaves the section as the one before it did
            resumed = _pass_repeats(text, stops, position, line_start)
            if resumed != position:
                position = resumed
                continue
        end = _reach(_patterns().ubt_line, text, position)
        raw = text[position:end]
        line = joined(raw) if "\r" in raw or "\n" in raw else raw
        if end > at:
            return Across((position, end, line), position, open_section)
        parsed = ubt_parse(line)
        was_open = open_section
        if parsed is not None and parsed.resets:
            open_section = parsed.header is not None
        following = _patterns().ubt_break.match(text, end)
        following_start = following.end() if following is not None else len(text)
        if following_start > at:
            return Across(None, position, was_open)
        position = following_start


def engine_next(text: str, end: int) -> int:
    """Where the engine's next logical line starts after one whose text ends at ``end``."""
    return _reach(_patterns().separators, text, end)


def line_end(text: str, start: int) -> int:
    """Where the physical line holding ``start`` ends: its line break, or the end of the text."""
    found = _patterns().line_rest.match(text, start)
    return found.end() if found is not None else len(text)
