# The config-file readers' compiled core (buildver/projects/_ini_native.c); optional: absent where no compiler built it.
from collections.abc import Sequence

def key_values(
    texts: Sequence[str], section: str, key: str, ubt: bool, everything: bool, struct_work: int = 1_000_000, /
) -> list[tuple[str, int, int]] | tuple[int, int]: ...
def key_line(
    text: str, section: str, key: str, ubt: bool, /
) -> tuple[tuple[str, str, int, int, int, int] | None, bool]: ...
def section_headers(
    text: str, section: str, ubt: bool, /
) -> tuple[int, int, int, tuple[int, int] | None, bool] | None: ...
