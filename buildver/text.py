"""Text that reaches a terminal: paths, values and messages printed so that they cannot drive it."""

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` as it is when printable; else each unprintable character as its Python escape, so that a value
    cannot move the terminal's cursor or start a line of its own."""
    return text if text.isprintable() else "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
