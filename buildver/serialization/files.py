"""Documents in files: reading JSON strictly, writing atomically, and planning the upgrade of a file."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildver.errors import DocumentError, WriteError
from buildver.serialization.document import LoadOptions, LoadResult, load, save
from buildver.serialization.header import DocumentVersions, inspect
from buildver.serialization.schema import Schema

__all__ = ["UpgradePlan", "dumps", "inspect_file", "load_file", "plan_upgrade", "read_document", "save_file"]


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for key, value in pairs:
        if key in members:
            # json.loads would keep the last one silently, and the upgrade would then lose the first.
            raise ValueError(f"member {key!r} appears twice")
        members[key] = value
    return members


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse(text: str, source: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{source}: line {exc.lineno}, column {exc.colno}: {exc.msg.lower()}") from exc
    except ValueError as exc:
        raise DocumentError(f"{source}: {exc}") from exc


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DocumentError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def read_document(path: Path) -> Any:
    """The JSON data of a file; duplicate member names and NaN are refused, since an upgrade would lose them."""
    return _parse(_read_text(path), str(path))


def dumps(document: Any) -> str:
    """The text buildver writes for a document: JSON indented by 2, short lists of values on one line."""
    return _dump(document, 0) + "\n"


_INLINE_WIDTH = 80


def _dump(value: Any, level: int) -> str:
    # json.dumps(indent=2) puts every number of a colour or a vector on its own line, which makes diffs long.
    if isinstance(value, dict) and value:
        inner = "  " * (level + 1)
        members = (f"{inner}{_scalar(key)}: {_dump(item, level + 1)}" for key, item in value.items())
        return "{\n" + ",\n".join(members) + "\n" + "  " * level + "}"
    if isinstance(value, list) and value:
        if not any(isinstance(item, dict | list) for item in value):
            inline = "[" + ", ".join(_scalar(item) for item in value) + "]"
            if len(inline) + 2 * level <= _INLINE_WIDTH:
                return inline
        inner = "  " * (level + 1)
        return "[\n" + ",\n".join(f"{inner}{_dump(item, level + 1)}" for item in value) + "\n" + "  " * level + "]"
    return _scalar(value)


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def inspect_file(path: Path) -> DocumentVersions:
    """The versions stored in a file; only an unreadable file or invalid JSON raises."""
    return inspect(read_document(path), source=str(path))


def load_file(schema: Schema, path: Path, *, options: LoadOptions | None = None) -> LoadResult:
    """Load a document file with a schema."""
    return load(schema, read_document(path), source=str(path), options=options)


def save_file(schema: Schema, path: Path, data: Any) -> None:
    """Save data as a document at the latest versions, atomically."""
    _write_atomic(path, dumps(save(schema, data, source=str(path))).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class UpgradePlan:
    """A file loaded and saved again at the latest versions: the old and new text and what the load changed."""

    path: Path
    old_text: str
    new_text: str
    result: LoadResult

    @property
    def changed(self) -> bool:
        """True when saving would change the file's data (not only its layout)."""
        before: object = _parse(self.old_text, str(self.path))
        after: object = _parse(self.new_text, str(self.path))
        return before != after

    def diff(self) -> str:
        """A unified diff from the file to the upgraded document."""
        return "".join(
            difflib.unified_diff(
                self.old_text.splitlines(keepends=True),
                self.new_text.splitlines(keepends=True),
                f"a/{self.path.as_posix().lstrip('/')}",
                f"b/{self.path.as_posix().lstrip('/')}",
            )
        )

    def apply(self) -> None:
        """Write the upgraded document atomically."""
        _write_atomic(self.path, self.new_text.encode("utf-8"))


def plan_upgrade(schema: Schema, path: Path, *, options: LoadOptions | None = None) -> UpgradePlan:
    """Load a file with a schema and save it at the latest versions, in memory."""
    old_text = _read_text(path)
    source = str(path)
    result = load(schema, _parse(old_text, source), source=source, options=options)
    if result.data is None:
        raise DocumentError(f"{source}: the root object was dropped ({result.dropped[-1].reason}); nothing to save")
    return UpgradePlan(path, old_text, dumps(save(schema, result.data, source=source)), result)


def _write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` all at once (a temporary file in the same folder, fsync, rename).

    The file keeps its permission bits. To be replaced by the shared helper in ``buildver.changes``.
    """
    folder = path.parent if str(path.parent) else Path(".")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()  # what open() would have given a new file; mkstemp makes it 0o600
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
