"""Which files are code: Unreal Game Sync's rule, which decides the last code change (``docs/unreal-rules.md`` §4.4).

UGS calls a changelist a code change when one of its files ends with one of EpicGames.Perforce's
``PerforceUtils.CodeExtensions`` (any case). A project's ``[Perforce] CodeFilter`` lines are rules added after those,
in EpicGames.Core's ``FileFilter`` syntax, and buildver's ``code-filter`` setting takes the same lines:

- a rule starting with ``-`` excludes, any other includes; the **last** rule that matches a path decides, and a
  path no rule matches is not code;
- Perforce wildcards: ``...`` any number of folders, ``*`` any characters but ``/``, ``?`` one character; letters
  match in any case; a name ending in ``.`` matches only names without a dot (``*.``: no extension);
- a rule without ``/`` applies in every folder (``*.ini``), one starting with ``/`` starts at the root (UGS: the
  depot's; buildver: the git repository's), one ending with ``/`` takes the folder's whole tree.

The rules are a value: parsing checks them, and :meth:`CodeFilter.matches` answers for a path. Nothing here reads
a file or runs git.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["LAST_CODE_CHANGE", "UGS_CODE_EXTENSIONS", "CodeFilter", "code_filter_problem"]

LAST_CODE_CHANGE = "last-code-change"
"""What ``--compatible-cl`` and the ``compatible-changelist`` setting take for the last code change in git."""

UGS_CODE_EXTENSIONS = (
    ".c",
    ".cc",
    ".cpp",
    ".inl",
    ".m",
    ".mm",
    ".rc",
    ".cs",
    ".csproj",
    ".h",
    ".hpp",
    ".usf",
    ".ush",
    ".uproject",
    ".uplugin",
    ".sln",
    ".native.verse",
)
"""UGS's code files, in PerforceUtils.CodeExtensions' order (5.8.0, which lists ``.inl`` twice in a set)."""

_LOWER_EXTENSIONS = tuple(extension.lower() for extension in UGS_CODE_EXTENSIONS)
_ANY_FOLDERS = "..."

_Token = Callable[[str], bool] | str
"""A compiled name pattern, or ``"..."`` (any number of names)."""


def _normalize(pattern: str) -> str:
    """A rule's pattern as FileFilter.AddRule rewrites it before splitting it at ``/``, step by step as UGS does,
    including what it does to a ``...`` glued to a name (``Foo...`` comes out as ``Foo*/../*.``, which matches
    nothing more below ``Foo``: write ``Foo*/...``)."""
    pattern = pattern.replace("\\", "/")
    if pattern.startswith("/"):
        pattern = pattern[1:]
    elif "/" not in pattern and not pattern.startswith(_ANY_FOLDERS):
        pattern = ".../" + pattern
    if pattern.endswith("/"):
        pattern += _ANY_FOLDERS
    index = pattern.find(_ANY_FOLDERS)
    while index != -1:
        if index > 0 and pattern[index - 1] != "/":
            pattern = pattern[:index] + "*/" + pattern[index:]
            index += 1  # UGS moves one character on here, not two (see the docstring)
        index += 3
        if index < len(pattern) and pattern[index] != "/":
            pattern = pattern[:index] + "/*" + pattern[index:]
            index += 2
        index = pattern.find(_ANY_FOLDERS, index)
    return pattern


def _compile_name(name: str) -> Callable[[str], bool]:
    """One name's pattern (FileFilterNode.IsMatch): ``*`` and ``?`` wildcards, letters in any case; a pattern
    ending in ``.`` matches a name without a dot that matches the rest."""
    import re  # here, not at the top: the constant and the rules' check are wanted by runs that match no path

    without_dot = name.endswith(".")
    body = name[:-1] if without_dot else name
    regex = "".join(".*" if char == "*" else "." if char == "?" else re.escape(char) for char in body)
    matcher = re.compile(regex, re.IGNORECASE | re.DOTALL).fullmatch
    if without_dot:
        return lambda token: "." not in token and matcher(token) is not None
    return lambda token: matcher(token) is not None


class _Rule:
    __slots__ = ("include", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text
        self.include = not text.startswith("-")
        pattern = text if self.include else text[1:].lstrip()
        self.tokens: tuple[_Token, ...] = tuple(
            _ANY_FOLDERS if name == _ANY_FOLDERS else _compile_name(name) for name in _normalize(pattern).split("/")
        )

    def matches(self, names: Sequence[str]) -> bool:
        return _match(self.tokens, 0, names, 0)


def _match(tokens: Sequence[_Token], index: int, names: Sequence[str], position: int) -> bool:
    """FileFilter.FindMatchingNode for one rule: every token used up exactly when the path's names are. As in
    UGS, ``...`` takes none or more names, but only while names are left (``Source/...`` never matches
    ``Source`` itself)."""
    if index == len(tokens):
        return position == len(names)
    if position == len(names):
        return False
    token = tokens[index]
    if isinstance(token, str):
        return any(_match(tokens, index + 1, names, end) for end in range(len(names), position - 1, -1))
    return token(names[position]) and _match(tokens, index + 1, names, position + 1)


def code_filter_problem(rule: object) -> str | None:
    """Why ``rule`` cannot be one of ``code-filter``'s lines, or None."""
    if not isinstance(rule, str):
        return f"{rule!r} is not a string"
    text = rule.strip()
    if not text or text == "-" or not text.lstrip("-").strip():
        return f"{rule!r} names no path"
    if "\0" in text or any(char in text for char in "\r\n"):
        return f"{rule!r} holds a line break or a NUL, which no UnrealGameSync.ini line can"
    if text.startswith("+"):
        return f"{rule!r}: UGS has no '+': a rule without '-' includes (write {text[1:].lstrip()!r})"
    return None


class CodeFilter:
    """UGS's code files, then a project's own rules, in order; immutable, compared by its rules."""

    __slots__ = ("_rules", "rules")

    def __init__(self, rules: Iterable[str] = ()) -> None:
        """``rules``: the project's lines (``code-filter``), after UGS's extensions; ValueError names a bad one."""
        own = tuple(rules)
        for rule in own:
            problem = code_filter_problem(rule)
            if problem:
                raise ValueError(problem)
        self.rules: tuple[str, ...] = tuple(rule.strip() for rule in own)
        """The project's own rules (UGS's extensions come first, and are not listed here)."""
        defaults = tuple(f"*{extension}" for extension in UGS_CODE_EXTENSIONS)
        self._rules = tuple(_Rule(text) for text in (*defaults, *self.rules))

    def __eq__(self, other: object) -> bool:
        return self.rules == other.rules if isinstance(other, CodeFilter) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.rules)

    def __repr__(self) -> str:
        return f"CodeFilter({list(self.rules)!r})"

    def matches(self, path: str) -> bool:
        """Whether ``path`` (``/``-separated, from the root the rules start at) is a code file."""
        if not self.rules:
            # UGS's own test when a project has no CodeFilter lines (PerforceChangeDetails.IsCodeFile), which the
            # default rules below match exactly; 20 times faster, and a history's every path may be asked.
            return path.lower().endswith(_LOWER_EXTENSIONS)
        names = path.replace("\\", "/").lstrip("/").split("/")
        return next((rule.include for rule in reversed(self._rules) if rule.matches(names)), False)

    def describe(self) -> str:
        """What counts as code, in a few words, for a message."""
        return "UGS's code extensions" + (f" and {len(self.rules)} code-filter rules" if self.rules else "")
