"""Unreal's C++ as far as its version tables need it: comments, ``#if 0``, tokens, scopes, enums, GUIDs, constants.

Reads what an engine's, a plugin's or a game's source files define and register: each ``FCustomVersionRegistration``
and ``FDevVersionRegistration`` with its arguments as written, the GUIDs (``const FGuid X::GUID(0x..., ...)``, braced
or string initializers, function-local constants), the integer constants and every enum's entries, counted as the
compiler counts them (an entry without a value is the one before plus one; ``.inl`` X-macro lists included). Then
:class:`Symbols` resolves a registration's GUID and version by qualified name, the innermost enclosing scope first,
as a reader of the code would. Nothing is guessed: a name that cannot be resolved to one value is
:class:`Unresolved`, and a version computed when the engine runs (a function's result) is :class:`RunTimeValue`.

No I/O: :mod:`buildver.packages.tree_tables` walks the trees and hands the texts in;
``tools/generate_custom_versions.py`` makes buildver's shipped tables with the same reader.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "REGISTRATION_CLASSES",
    "FileScanner",
    "FileSymbols",
    "Name",
    "RawRegistration",
    "Registration",
    "RunTimeValue",
    "Symbols",
    "Token",
    "Unresolved",
    "friendly_name",
    "guid_text",
    "is_the_registration_class",
]

REGISTRATION_CLASSES = frozenset({"FCustomVersionRegistration", "FDevVersionRegistration"})
_INTEGER_TYPES = frozenset(
    {"int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "unsigned", "signed", "long"}
)
_SPECIFIERS = frozenset({"static", "inline", "const", "constexpr", "extern", "thread_local", "volatile"})


# -- reading C++ ------------------------------------------------------------------------------------------------


_COMMENTS_AND_STRINGS = re.compile(
    r"""
    (?P<line>//[^\n]*)
    |(?P<block>/\*.*?\*/)
    |(?P<raw>R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)")
    |(?P<str>"(?:\\.|[^"\\\n])*")
    |(?P<chr>'(?:\\.|[^'\\\n])+')
    """,
    re.VERBOSE | re.DOTALL,
)


def strip_comments(text: str) -> str:
    """``text`` without comments (newlines kept, so that line numbers stay) and without raw strings."""

    def blank(match: re.Match[str]) -> str:
        if match.lastgroup in ("str", "chr"):
            return match.group()
        return re.sub(r"[^\n]", " ", match.group())

    return _COMMENTS_AND_STRINGS.sub(blank, text)


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")
_INCLUDE = re.compile(r'^\s*"([^"]+\.inl)"')
_DEFINE = re.compile(r"^\s*(\w+)\s+(\(?\s*-?\s*(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?)\s*$")
INCLUDE_MARK = "__buildver_include__"


def preprocess(text: str) -> tuple[str, dict[str, str]]:
    """Comments out, ``#if 0`` blocks out, other directives blanked; ``#include "x.inl"`` kept as a marker.

    Returns the text and the simple integer ``#define``\\ s. Conditionals other than ``#if 0`` keep every branch:
    the generator cannot know the build's configuration, and reports a GUID registered twice differently.
    """
    lines = strip_comments(text).split("\n")
    defines: dict[str, str] = {}
    out: list[str] = []
    skipping: list[bool] = []  # one entry per open #if: whether it is an #if 0 (or inside one)
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _DIRECTIVE.match(line)
        if not match:
            out.append("" if any(skipping) else line)
            index += 1
            continue
        # A directive continues on the next line after a backslash.
        directive, rest = match.group(1), match.group(2)
        consumed = 1
        while rest.endswith("\\") and index + consumed < len(lines):
            rest = rest[:-1] + " " + lines[index + consumed]
            consumed += 1
        if directive in ("if", "ifdef", "ifndef"):
            skipping.append(directive == "if" and rest.strip() in ("0", "(0)"))
        elif directive in ("else", "elif") and skipping and skipping[-1]:
            skipping[-1] = directive == "elif" and rest.strip() in ("0", "(0)")
        elif directive == "endif" and skipping:
            skipping.pop()
        elif not any(skipping):
            if directive == "define" and (define := _DEFINE.match(rest)):
                defines[define.group(1)] = define.group(2)
            elif directive == "include" and (include := _INCLUDE.match(rest)):
                out.append(f'{INCLUDE_MARK}("{include.group(1)}");')
                out.extend([""] * (consumed - 1))
                index += consumed
                continue
        out.extend([""] * consumed)
        index += consumed
    return "\n".join(out), defines


_TOKEN = re.compile(
    r"""
    (?P<str>(?:L|u8|u|U)?"(?:\\.|[^"\\\n])*")
    |(?P<num>0[xX][0-9a-fA-F']+[uUlL]*|\d[\d']*[uUlL]*)
    |(?P<chr>'(?:\\.|[^'\\\n])+')
    |(?P<id>[A-Za-z_]\w*)
    |(?P<op>::|<<|>>|->|\.\.\.|[{}()\[\];,=<>+\-*/|&~!?:.^%#@$\\])
    |(?P<space>\s+)
    |(?P<other>.)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    line: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    line = 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        value = match.group()
        if kind != "space":
            tokens.append(Token(kind, value, line))
        line += value.count("\n")
    return tokens


def integer(text: str) -> int:
    """A C++ integer literal: hexadecimal or decimal, digit separators and suffixes allowed."""
    digits = text.replace("'", "").rstrip("uUlL")
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10)


def matching(tokens: Sequence[Token], start: int) -> int:
    """The index of the bracket that closes the one at ``start``."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = [pairs[tokens[start].text]]
    index = start + 1
    while index < len(tokens):
        text = tokens[index].text
        if text in pairs:
            stack.append(pairs[text])
        elif stack and text == stack[-1]:
            stack.pop()
            if not stack:
                return index
        index += 1
    return len(tokens) - 1


def split_arguments(tokens: Sequence[Token]) -> list[list[Token]]:
    """Top-level comma-separated parts of an argument list (without its brackets)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.text in "([{":
            depth += 1
        elif token.text in ")]}":
            depth -= 1
        if token.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return [part for part in parts if part]


# -- what a file defines ---------------------------------------------------------------------------------------

Name = tuple[str, ...]
"""A qualified name, outermost first: ``("UE", "NNE", "ModelData", "GUID")``."""


@dataclass
class EnumEntry:
    name: Name
    """The scope, the enum (for every enum) and the member."""
    aliases: tuple[Name, ...]
    """Other names that refer to it (an unscoped enum's members are also members of the enclosing scope)."""
    expression: list[Token]
    previous: Name | None
    """The entry before, whose value plus one is this one's when it has no expression."""
    enum_name: Name
    where: str


@dataclass(frozen=True, slots=True)
class Definition:
    """A GUID or an integer constant, as written."""

    name: Name
    tokens: tuple[Token, ...]
    scope: Name
    where: str


@dataclass(frozen=True, slots=True)
class RawRegistration:
    """An ``FCustomVersionRegistration`` (or Dev) as written: its arguments, still unresolved."""

    guid: tuple[Token, ...]
    version: tuple[Token, ...]
    name: tuple[Token, ...]
    scope: Name
    where: str


@dataclass
class FileSymbols:
    path: str
    guids: list[Definition] = field(default_factory=list)
    integers: list[Definition] = field(default_factory=list)
    enums: list[EnumEntry] = field(default_factory=list)
    registrations: list[RawRegistration] = field(default_factory=list)
    defines: dict[str, str] = field(default_factory=dict)


_KEYWORDS_BEFORE_BLOCK = frozenset(
    {"if", "for", "while", "switch", "do", "else", "try", "catch", "return", "operator", "sizeof", "decltype"}
)


class FileScanner:
    """Walks one file's tokens, tracking namespaces, types and enums, and records what is defined where.

    ``find_include(including, include)`` gives the text of an included ``.inl`` (None when not found).
    """

    def __init__(self, path: str, text: str, find_include: Callable[[str, str], str | None]) -> None:
        code, defines = preprocess(text)
        self.path = path
        self.tokens = tokenize(code)
        self.find_include = find_include
        self.symbols = FileSymbols(path, defines=defines)
        self.member_registrations: dict[Name, set[str]] = {}

    def where(self, token: Token) -> str:
        return f"{self.path}:{token.line}"

    def scan(self) -> FileSymbols:
        self._block(0, len(self.tokens), ())
        return self.symbols

    def _block(self, start: int, end: int, scope: Name) -> None:
        """Statements from ``start`` to ``end`` (exclusive) inside ``scope``."""
        tokens = self.tokens
        statement_start = start
        index = start
        while index < end:
            text = tokens[index].text
            if text == ";":
                self._statement(tokens[statement_start:index], scope)
                statement_start = index + 1
            elif text in ("(", "["):
                index = matching(tokens, index)
            elif text == "{":
                close = matching(tokens, index)
                prefix = tokens[statement_start:index]
                kind, name = self._opening(prefix)
                if kind == "initializer":
                    index = close + 1
                    continue  # the statement goes on to its ';'
                if kind == "enum":
                    self._enum(prefix, index, close, scope)
                elif kind in ("namespace", "type"):
                    self._block(index + 1, close, scope + name)
                    if kind == "type":  # `struct X { ... } Variable;`: the statement goes on
                        index = close + 1
                        statement_start = index
                        continue
                else:
                    self._function_prefix(prefix, scope)
                    self._block(index + 1, close, scope + name)
                index = close + 1
                statement_start = index
                continue
            elif text == "}":  # unbalanced: stop this block
                break
            index += 1
        if statement_start < end:
            self._statement(tokens[statement_start:end], scope)

    def _opening(self, prefix: Sequence[Token]) -> tuple[str, Name]:
        """What a ``{`` opens, and its name: a namespace, a type, an enum, a function, an initializer, a block."""
        texts = _without_attributes([token.text for token in prefix])
        if not texts:
            return "block", ()
        if "namespace" in texts:
            after = texts[texts.index("namespace") + 1 :]
            return "namespace", tuple(part for part in after if part not in ("::", "inline") and part.isidentifier())
        if "enum" in texts and "(" not in texts:
            return "enum", ()
        if texts[-1] in ("=", ",", "(", "return"):
            return "initializer", ()
        for keyword in ("struct", "class", "union"):
            if keyword in texts:
                at = len(texts) - 1 - texts[::-1].index(keyword)  # not the `class` of `template <class T>`
                if "(" not in texts[at:]:
                    return "type", (self._type_name(texts[at + 1 :]),)
        if prefix[-1].kind == "id" and len(texts) > 1 and texts[-2] in (":", ","):
            return "initializer", ()  # a member initialized in a constructor's initializer list: `: GUID{...}`
        if "(" in texts:
            opening = texts.index("(")
            before = texts[opening - 1] if opening else ""
            if texts[0] in _KEYWORDS_BEFORE_BLOCK or before in _KEYWORDS_BEFORE_BLOCK or not before.isidentifier():
                return "block", ()
            if texts[-1] == ")" or texts[-1] in ("const", "override", "final", "noexcept", "mutable") or ":" in texts:
                return "function", (before,)
        ends_like_a_name = texts[-1] == "]" or (prefix[-1].kind == "id" and texts[-1] not in _KEYWORDS_BEFORE_BLOCK)
        if ends_like_a_name and texts[0] not in _KEYWORDS_BEFORE_BLOCK:
            return "initializer", ()  # `FGuid GUID{...}`, `int32 Values[]{...}`
        return "block", ()

    @staticmethod
    def _type_name(after_keyword: Sequence[str]) -> str:
        """The name in ``struct CORE_API alignas(16) FName final : public FBase``."""
        name = ""
        depth = 0
        for text in after_keyword:
            if text in ("(", "<"):
                depth += 1
            elif text in (")", ">"):
                depth -= 1
            elif depth == 0 and text in (":", "{"):
                break
            elif depth == 0 and text.isidentifier() and text != "final":
                name = text
        return name

    def _enum(self, prefix: Sequence[Token], open_at: int, close: int, scope: Name) -> None:
        """An enum's entries, each with its expression (or none: the previous entry plus one)."""
        texts = _without_attributes([token.text for token in prefix])
        after = texts[texts.index("enum") + 1 :]
        scoped = bool(after) and after[0] in ("class", "struct")
        if scoped:
            after = after[1:]
        enum_name = ""
        for text in after:
            if text == ":":
                break
            if text.isidentifier():
                enum_name = text
        body = self._expand_includes(self.tokens[open_at + 1 : close])
        previous: Name | None = None
        full_enum = scope + ((enum_name,) if enum_name else ())
        for entry in split_arguments(body):
            words = [token for token in entry if token.kind == "id"]
            if not words:
                continue
            member = words[0].text
            expression: list[Token] = []
            if any(token.text == "=" for token in entry):
                expression = entry[[token.text for token in entry].index("=") + 1 :]
            name = (*full_enum, member)
            aliases = () if scoped or not enum_name else ((*scope, member),)
            self.symbols.enums.append(EnumEntry(name, aliases, expression, previous, full_enum, self.where(words[0])))
            previous = name

    def _expand_includes(self, body: Sequence[Token]) -> list[Token]:
        """An X-macro ``.inl`` included in an enum's body: ``MACRO(Name, Value)`` calls become ``Name,`` entries."""
        out: list[Token] = []
        index = 0
        while index < len(body):
            token = body[index]
            if token.text == INCLUDE_MARK and index + 2 < len(body):
                included = self.find_include(self.path, body[index + 2].text.strip('"'))
                if included is not None:
                    out.extend(_x_macro_entries(included, body[index + 2].line))
                index = matching(body, index + 1) + 2  # past the ')' and the ';' the preprocessor added
                continue
            out.append(token)
            index += 1
        return out

    def _function_prefix(self, prefix: Sequence[Token], scope: Name) -> None:
        """A constructor's initializer list may register: ``: GUID{...}, Registration(GUID, Latest, TEXT("X"))``."""
        texts = [token.text for token in prefix]
        members = self.member_registrations.get(scope)
        if not members or ")" not in texts:
            return
        # the initializer list starts at the first top-level ':' after the parameter list
        depth = 0
        start = None
        for index, text in enumerate(texts):
            if text in "([{":
                depth += 1
            elif text in ")]}":
                depth -= 1
            elif text == ":" and depth == 0 and index > 0 and texts[index - 1] == ")":
                start = index + 1
                break
        if start is None:
            return
        for item in split_arguments(prefix[start:]):
            if len(item) >= 3 and item[0].kind == "id" and item[1].text in ("(", "{"):
                arguments = split_arguments(item[2 : matching(item, 1)])
                if item[0].text in members:
                    self._registration(arguments, scope, item[0])
                elif item[0].text == "GUID" or any(token.kind == "num" for token in item):
                    self.symbols.guids.append(
                        Definition((*scope, item[0].text), tuple(item[1:]), scope, self.where(item[0]))
                    )

    def _statement(self, statement: Sequence[Token], scope: Name) -> None:
        if not statement:
            return
        texts = [token.text for token in statement]
        for index, text in enumerate(texts):
            if text in REGISTRATION_CLASSES and index + 1 < len(texts):
                if statement[index + 1].kind != "id" or (index > 0 and texts[index - 1] in ("class", "friend", "::")):
                    continue
                if index + 2 >= len(texts):  # a member: `FCustomVersionRegistration Registration;`
                    self.member_registrations.setdefault(scope, set()).add(texts[index + 1])
                    return
                if texts[index + 2] in ("(", "{"):
                    close = matching(statement, index + 2)
                    self._registration(split_arguments(statement[index + 3 : close]), scope, statement[index])
                    return
        if "FGuid" in texts:
            self._guid_definition(statement, texts, scope)
        elif "=" in texts and any(text in _INTEGER_TYPES for text in texts[: texts.index("=")]):
            self._integer_definition(statement, texts, scope, texts.index("="), len(texts))
        elif "(" in texts and texts[-1] == ")" and any(text in _INTEGER_TYPES for text in texts[: texts.index("(")]):
            # Direct initialization: ``const int32 ULidarPointCloud::PointCloudFileVersion(20);``
            self._integer_definition(statement, texts, scope, texts.index("("), len(texts) - 1)

    def _registration(self, arguments: list[list[Token]], scope: Name, at: Token) -> None:
        if len(arguments) < 3:
            return
        self.symbols.registrations.append(
            RawRegistration(tuple(arguments[0]), tuple(arguments[1]), tuple(arguments[2]), scope, self.where(at))
        )

    def _guid_definition(self, statement: Sequence[Token], texts: list[str], scope: Name) -> None:
        at = texts.index("FGuid")
        # A macro call before it is another statement whose author left out the ';' (``IMPLEMENT_MODULE(...)``).
        if any(text not in _SPECIFIERS for text in _without_attributes(texts[:at])) or at + 1 >= len(texts):
            return
        name: list[str] = []
        index = at + 1
        while index < len(texts) and (statement[index].kind == "id" or texts[index] == "::"):
            if texts[index] != "::" and texts[index] not in ("const", "constexpr"):
                name.append(texts[index])
            index += 1
        if not name or index >= len(texts) or texts[index] not in ("(", "{", "="):
            return
        initializer = tuple(statement[index:])
        if (
            not any(token.kind in ("num", "str", "chr") for token in initializer)
            and _called_function(initializer) is None
        ):
            return
        self.symbols.guids.append(Definition(scope + tuple(name), initializer, scope, self.where(statement[at])))

    def _integer_definition(
        self, statement: Sequence[Token], texts: list[str], scope: Name, equals: int, end: int
    ) -> None:
        """``int32 X = expression`` (``equals`` at the ``=``), or ``int32 X(expression)`` (at the ``(``)."""
        head = texts[:equals]
        if "(" in head or not all(
            text in _SPECIFIERS or text in _INTEGER_TYPES or text == "::" or statement[i].kind == "id"
            for i, text in enumerate(head)
        ):
            return
        name: list[str] = []
        for text in reversed(head):
            if text in _INTEGER_TYPES or text in _SPECIFIERS:
                break
            if text != "::":
                name.insert(0, text)
        if not name:
            return
        self.symbols.integers.append(
            Definition(scope + tuple(name), tuple(statement[equals + 1 : end]), scope, self.where(statement[0]))
        )


_X_MACRO_CALL = re.compile(r"^\s*(\w+)\s*\(\s*(\w+)\s*(?:,[^)]*)?\)", re.MULTILINE)
_X_MACRO_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s*\(", re.MULTILINE)


def _x_macro_entries(text: str, line: int) -> list[Token]:
    """``UE5_MAIN_VERSION(Name, 12)`` lines of an X-macro ``.inl``, as the enum entries ``Name ,``."""
    macros = set(_X_MACRO_DEFINE.findall(text))
    tokens: list[Token] = []
    for match in _X_MACRO_CALL.finditer(strip_comments(text)):
        if match.group(1) in macros:
            tokens += [Token("id", match.group(2), line), Token("op", ",", line)]
    return tokens


_ATTRIBUTE_MACRO = re.compile(r"^(?:[A-Z][A-Z0-9_]*|alignas|__declspec|__attribute__)$")


def _without_attributes(texts: Sequence[str]) -> list[str]:
    """Tokens without ``UE_DEPRECATED(...)``-like macro calls, ``alignas(16)`` and ``[[nodiscard]]``."""
    out: list[str] = []
    index = 0
    while index < len(texts):
        text = texts[index]
        if _ATTRIBUTE_MACRO.match(text) and index + 1 < len(texts) and texts[index + 1] == "(":
            depth = 0
            while index < len(texts):
                depth += (texts[index] == "(") - (texts[index] == ")")
                index += 1
                if depth == 0 and texts[index - 1] == ")":
                    break
            continue
        if text == "[" and index + 1 < len(texts) and texts[index + 1] == "[":
            close = index + 2
            while close + 1 < len(texts) and not (texts[close] == "]" and texts[close + 1] == "]"):
                close += 1
            index = close + 2
            continue
        out.append(text)
        index += 1
    return out


def _called_function(initializer: Sequence[Token]) -> Name | None:
    """``= A::B::GetGuid()``: the function whose result initializes a GUID."""
    texts = [token.text for token in initializer]
    if len(texts) < 4 or texts[0] != "=" or texts[-2:] != ["(", ")"]:
        return None
    return _qualified_name(initializer[1:-2])


# -- resolving names -------------------------------------------------------------------------------------------


class RunTimeValue(Exception):
    """A registration whose version is computed when the engine runs (a function's result): not in any table."""


class Unresolved(Exception):
    """A name or an expression the generator cannot resolve to one value."""

    def __init__(self, reason: str, missing: str | None = None) -> None:
        super().__init__(reason)
        self.missing = missing
        """The outermost part of a name that nothing parsed so far defines: the files naming it may."""


@dataclass(frozen=True, slots=True)
class Registration:
    """One custom version the engine registers."""

    guid: str
    """DigitsWithHyphens, as buildver's StoredCustomVersion writes keys."""
    friendly_name: str
    version: int
    where: str


def guid_text(a: int, b: int, c: int, d: int) -> str:
    """Unreal's ``EGuidFormats::DigitsWithHyphens`` over the four uint32."""
    return f"{a:08X}-{b >> 16:04X}-{b & 0xFFFF:04X}-{c >> 16:04X}-{c & 0xFFFF:04X}{d:08X}"


_GUID_STRING = re.compile(r"^[0-9A-Fa-f]{8}-?([0-9A-Fa-f]{4}-?){3}[0-9A-Fa-f]{12}$")


class Symbols:
    """Every definition seen, looked up by qualified name the way a reader of the code would."""

    def __init__(self) -> None:
        self.guids: dict[str, list[Definition]] = {}
        self.integers: dict[str, list[Definition]] = {}
        self.enums: dict[str, list[EnumEntry]] = {}
        self.defines: dict[str, list[tuple[str, str]]] = {}
        self._values: dict[int, int] = {}
        self._busy: set[int] = set()

    def forget_values(self) -> None:
        """New files were parsed: a value computed before may now resolve differently."""
        self._values.clear()

    def add(self, symbols: FileSymbols) -> None:
        for guid in symbols.guids:
            self.guids.setdefault(guid.name[-1], []).append(guid)
        for definition in symbols.integers:
            self.integers.setdefault(definition.name[-1], []).append(definition)
        for entry in symbols.enums:
            self.enums.setdefault(entry.name[-1], []).append(entry)
        for name, value in symbols.defines.items():
            self.defines.setdefault(name, []).append((symbols.path, value))

    @staticmethod
    def _best(candidates: Iterable[tuple[Name, str, object]], name: Name, scope: Name, path: str) -> list[object]:
        """The candidates ``name`` can mean from ``scope`` in ``path``: the innermost enclosing scope wins."""
        best: list[object] = []
        best_rank = -1
        for full, where, value in candidates:
            if full[-len(name) :] != name:
                continue
            prefix = full[: -len(name)]
            # C++ looks in the enclosing scopes from the innermost out: the longest match of the scope wins; then
            # a definition in the same file, then one anywhere (a using-directive the generator does not follow).
            # Within one scope, the same file's first: a file-local constant (an anonymous namespace, a static) of
            # the same name in several files, each registering its own.
            same_file = int(where.rsplit(":", 1)[0] == path)
            rank = 2 * (2 * len(prefix) + 2 if scope[: len(prefix)] == prefix else same_file) + same_file
            if rank > best_rank:
                best, best_rank = [value], rank
            elif rank == best_rank:
                best.append(value)
        return best

    def guid(self, tokens: Sequence[Token], scope: Name, path: str) -> str:
        """The GUID a registration's first argument names or spells out."""
        literal = _guid_literal(tokens)
        if literal is not None:
            return literal
        name = _qualified_name(tokens)
        if name is None:
            raise Unresolved(f"GUID expression {_text(tokens)!r}")
        candidates = [(d.name, d.where, d) for d in self.guids.get(name[-1], [])]
        found = self._best(candidates, name, scope, path)
        values: set[str | None] = set()
        for definition in found:
            if isinstance(definition, Definition):
                values.add(_guid_literal(definition.tokens) or self._returned_guid(definition))
        values.discard(None)
        if len(values) != 1:
            raise Unresolved(f"GUID {'::'.join(name)}: {len(values)} definitions", name[0] if not found else None)
        return values.pop()  # type: ignore[return-value]

    def _returned_guid(self, definition: Definition) -> str | None:
        """``const FGuid X::Guid = GetGuid();`` where ``GetGuid`` returns a function-local ``static FGuid``."""
        function = _called_function(definition.tokens)
        if function is None:
            return None
        literals = {
            _guid_literal(local.tokens)
            for locals_ in self.guids.values()
            for local in locals_
            if local.name[-1 - len(function) : -1] == function
        }
        literals.discard(None)
        return literals.pop() if len(literals) == 1 else None

    def value(self, tokens: Sequence[Token], scope: Name, path: str, enum: EnumEntry | None = None) -> int:
        """The integer an expression evaluates to: literals, enum members, constants, casts and arithmetic."""
        parts: list[str] = []
        index = 0
        tokens = list(tokens)
        while index < len(tokens):
            token = tokens[index]
            if token.text in ("static_cast", "int32", "uint32", "int", "int64", "uint8", "uint16") and (
                index + 1 < len(tokens) and tokens[index + 1].text in ("<", "(")
            ):
                if tokens[index + 1].text == "<":  # static_cast<int32>(...)
                    index = [t.text for t in tokens].index(">", index) + 1
                else:  # int32(...)
                    index += 1
                continue
            if (
                token.text == "("
                and index + 2 < len(tokens)
                and tokens[index + 2].text == ")"
                and (tokens[index + 1].text in _INTEGER_TYPES)
            ):
                index += 3  # a C cast: (int32)X
                continue
            if token.kind == "num":
                parts.append(str(integer(token.text)))
                index += 1
            elif token.kind == "id":
                end = index
                while end + 2 < len(tokens) and tokens[end + 1].text == "::" and tokens[end + 2].kind == "id":
                    end += 2
                name = tuple(t.text for t in tokens[index : end + 1] if t.text != "::")
                if end + 1 < len(tokens) and tokens[end + 1].text == "(":
                    raise RunTimeValue(f"{'::'.join(name)}() is called")
                parts.append(str(self.named_value(name, scope, path, enum)))
                index = end + 1
            elif token.text == "::" and index + 1 < len(tokens):  # ::GlobalName
                index += 1
            elif token.text in ("+", "-", "*", "/", "|", "&", "<<", ">>", "~", "(", ")"):
                parts.append("//" if token.text == "/" else token.text)
                index += 1
            else:
                raise Unresolved(f"expression {_text(tokens)!r}")
        if not parts:
            raise Unresolved("an empty expression")
        return _evaluate(" ".join(parts))

    def named_value(self, name: Name, scope: Name, path: str, enum: EnumEntry | None = None) -> int:
        if enum is not None and len(name) == 1:  # an earlier member of the same enum
            for entry in self.enums.get(name[0], []):
                if entry.enum_name == enum.enum_name and entry.where.rsplit(":", 1)[0] == enum.where.rsplit(":", 1)[0]:
                    return self.entry_value(entry)
        candidates: list[tuple[Name, str, object]] = []
        for entry in self.enums.get(name[-1], []):
            candidates += [(full, entry.where, entry) for full in (entry.name, *entry.aliases)]
        candidates += [(d.name, d.where, d) for d in self.integers.get(name[-1], [])]
        found = self._best(candidates, name, scope, path)
        values: set[int] = set()
        for item in found:
            if isinstance(item, EnumEntry):
                values.add(self.entry_value(item))
            elif isinstance(item, Definition):
                values.add(self.value(item.tokens, item.scope, item.where.rsplit(":", 1)[0]))
        if not values and len(name) == 1:
            for define_path, text in self.defines.get(name[0], []):
                if define_path == path or not values:
                    values.add(_evaluate(text))
        if len(values) != 1:
            raise Unresolved(
                f"{'::'.join(name)}: {len(values)} values {sorted(values)}", name[0] if not found else None
            )
        return values.pop()

    def entry_value(self, entry: EnumEntry) -> int:
        key = id(entry)
        if key in self._values:
            return self._values[key]
        if key in self._busy:
            raise Unresolved(f"{'::'.join(entry.name)} refers to itself")
        self._busy.add(key)
        try:
            path = entry.where.rsplit(":", 1)[0]
            if entry.expression:
                value = self.value(entry.expression, entry.enum_name, path, entry)
            elif entry.previous is None:
                value = 0
            else:
                previous = next(
                    e
                    for e in self.enums[entry.previous[-1]]
                    if e.name == entry.previous and e.where.rsplit(":", 1)[0] == path
                )
                value = self.entry_value(previous) + 1
        finally:
            self._busy.discard(key)
        self._values[key] = value
        return value


def _text(tokens: Iterable[Token]) -> str:
    return " ".join(token.text for token in tokens)


def _qualified_name(tokens: Sequence[Token]) -> Name | None:
    words = [token for token in tokens if token.text not in ("::", "&")]
    if not words or any(token.kind != "id" for token in words):
        return None
    return tuple(token.text for token in words)


def _guid_literal(tokens: Sequence[Token]) -> str | None:
    """Four integers, or a GUID string, in an initializer: ``(0x..., 0x..., 0x..., 0x...)``, ``{...}``, TEXT."""
    # A character literal is its code: ``FGuid('P', 'C', 'P', 'F')`` (the LiDAR plugin's file GUID).
    numbers = [
        integer(token.text) if token.kind == "num" else ord(token.text[1])
        for token in tokens
        if token.kind == "num" or (token.kind == "chr" and len(token.text) == 3)
    ]
    others = [t for t in tokens if t.kind == "id" and t.text not in ("FGuid", "uint32", "TEXT", "static_cast")]
    if len(numbers) == 4 and not others and all(0 <= number <= 0xFFFFFFFF for number in numbers):
        return guid_text(*numbers)
    strings = [token.text for token in tokens if token.kind == "str"]
    if len(strings) == 1 and not numbers:
        text = strings[0].split('"')[1]
        if _GUID_STRING.match(text):
            digits = text.replace("-", "")
            return guid_text(*(int(digits[i : i + 8], 16) for i in range(0, 32, 8)))
    return None


_OPERATORS: dict[type[ast.AST], Callable[..., int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


def _evaluate(expression: str) -> int:
    """Integer arithmetic only, never ``eval``."""

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.operand))
        raise Unresolved(f"expression {expression!r}")

    try:
        return walk(ast.parse(expression.strip().rstrip("uUlL"), mode="eval"))
    except SyntaxError as exc:
        raise Unresolved(f"expression {expression!r}") from exc


def friendly_name(tokens: Sequence[Token]) -> str:
    """``TEXT("Dev-Core")``, ``"Dev-Core"`` or ``FName("Dev-Core")``: the registration's friendly name."""
    strings = [token.text.split('"', 1)[1][:-1] for token in tokens if token.kind == "str"]
    if not strings:
        raise Unresolved(f"friendly name {_text(tokens)!r}")
    return "".join(strings)


def is_the_registration_class(item: RawRegistration) -> bool:
    """The registration classes' own code (a base constructor call), which registers nothing by itself."""
    return not any(token.kind == "str" for token in item.name) and item.where.rsplit(":", 1)[0].endswith(
        ("Serialization/CustomVersion.h", "Serialization/CustomVersion.cpp", "UObject/DevObjectVersion.h")
    )
