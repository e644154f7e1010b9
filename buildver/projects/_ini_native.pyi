# The config-file readers' compiled core (buildver/projects/_ini_native.c); optional: absent where no compiler built it.
from collections.abc import Sequence

def key_values(
    texts: Sequence[str], section: str, key: str, ubt: bool, everything: bool, /
) -> list[tuple[str, int, int]] | None: ...
def key_line(text: str, section: str, key: str, ubt: bool, /) -> tuple[tuple[str, str, int, int] | None, bool]: ...
