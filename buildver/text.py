"""Text that reaches a terminal: paths, values and messages printed so that they cannot drive it."""

__all__ = ["printable", "terminal_controls", "unencodable"]

_WORKFLOW_COMMAND = "::"
"""What starts a GitHub Actions workflow command (``::add-mask::``, ``::stop-commands::``): the runner reads one at
the start of any line of a step's output, after leading blanks (it trims the line first)."""


_OLD_WORKFLOW_COMMAND = "##["
"""The older form of a workflow command (``##[add-mask]secret``, ``##[stop-commands]token``): the runner still
reads it when a line is not a ``::`` command, and anywhere in the line, not only at its start (actions/runner,
``ActionCommand.TryParse``: ``message.IndexOf("##[")``)."""
_OLD_WORKFLOW_COMMAND_SHOWN = "#\\x23["


_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Unicode's explicit bidirectional formatting characters: shown raw, they reorder what the terminal shows."""


def terminal_controls(text: str) -> str:
    """The characters of ``text`` that would drive a terminal shown as they are: control characters (C0 but tab,
    DEL, C1: escape sequences, a bell, an 8-bit CSI) and bidi controls; empty when there are none."""
    return "".join(
        char for char in text if (char < " " and char != "\t") or "\x7f" <= char < "\xa0" or char in _BIDI_CONTROLS
    )


def printable(text: str, *, tabs: bool = False, inside_command: bool = False) -> str:
    """``text`` as it is when printable and not starting a workflow command; else each unprintable character as
    its Python escape, so that a value cannot move the terminal's cursor or start a line of its own, and a leading
    ``::`` (after blanks) with its first colon as ``\\x3a``, so that a line that begins with a value (a path the
    guard names, ``show``'s file) cannot be a command to GitHub Actions; ``##[`` anywhere, the runner's older form,
    with its second ``#`` as ``\\x23``. With ``tabs``, a tab is kept as it is (a file's own line in a diff: it moves
    nothing but the cursor). With ``inside_command``, ``##[`` is kept: the text is a property of a ``::`` command
    buildver writes (an annotation's ``file=``), a line the runner reads as that command, never in the older form,
    and the property must name the file exactly."""
    shown = (
        text
        if text.isprintable()
        else "".join(char if char.isprintable() or (tabs and char == "\t") else repr(char)[1:-1] for char in text)
    )
    if not inside_command and _OLD_WORKFLOW_COMMAND in shown:
        shown = shown.replace(_OLD_WORKFLOW_COMMAND, _OLD_WORKFLOW_COMMAND_SHOWN)
    start = len(shown) - len(shown.lstrip(" "))
    if shown.startswith(_WORKFLOW_COMMAND, start):
        return f"{shown[:start]}\\x3a{shown[start + 1 :]}"
    return shown


def unencodable(text: str) -> int | None:
    """The index of the first character of ``text`` that UTF-8 cannot encode, or None: a lone surrogate, which is
    how Python holds each byte of a command-line argument, a file name or an environment variable that is not UTF-8
    (``os.fsdecode``), and what a ``\\ud800`` JSON escape gives. No UTF-8 (or UTF-16) file can hold it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None
