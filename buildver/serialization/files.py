"""Documents in files: reading JSON strictly, writing atomically, and planning the upgrade of a file."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from buildver.changes import FileChange, apply_changes, locked, remove_leftovers, write_atomic
from buildver.errors import DocumentError
from buildver.reading import DATA_DOCUMENT_LIMIT, read_regular_file
from buildver.serialization.document import LoadOptions, LoadResult, load, save
from buildver.serialization.document_header import DocumentVersions, inspect
from buildver.serialization.schema import Schema

__all__ = [
    "UpgradePlan",
    "dumps",
    "inspect_file",
    "load_file",
    "plan_upgrade",
    "read_document",
    "remove_upgrade_leftovers",
    "save_file",
    "upgrade_file",
]


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
        document = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{source}: line {exc.lineno}, column {exc.colno}: {exc.msg.lower()}") from exc
    except ValueError as exc:
        raise DocumentError(f"{source}: {exc}") from exc
    # Only a \uD800-\uDFFF escape can put a lone surrogate in a string, and saving it back would fail.
    if "\\u" in text:
        _refuse_lone_surrogates(document, source, "$")
    return document


def _refuse_lone_surrogates(value: Any, source: str, path: str) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise DocumentError(f"{source}: {path}: {value!r} holds a lone surrogate, which is not text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_lone_surrogates(key, source, path)
            _refuse_lone_surrogates(item, source, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_lone_surrogates(item, source, f"{path}[{index}]")


def _read_bytes(path: Path) -> bytes:
    try:
        data = read_regular_file(path, limit=DATA_DOCUMENT_LIMIT)
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if data is None:
        raise DocumentError(f"{path}: no such file")
    return data


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{source}: not UTF-8 text (byte {exc.start})") from exc


def read_document(path: Path) -> Any:
    """The JSON data of a file; duplicate member names and NaN are refused, since an upgrade would lose them."""
    return _parse(_decode(_read_bytes(path), str(path)), str(path))


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
    # json.dumps builds an encoder per call; the common scalars are written directly, the way json writes them.
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


@contextlib.contextmanager
def _nesting_checked(source: str) -> Iterator[None]:
    """Turn Python's recursion limit, reached by absurdly nested JSON, into the document's own error."""
    try:
        yield
    except RecursionError:
        raise DocumentError(f"{source}: the JSON is nested too deeply to read") from None


def inspect_file(path: Path) -> DocumentVersions:
    """The versions stored in a file; only an unreadable file or invalid JSON raises."""
    with _nesting_checked(str(path)):
        return inspect(read_document(path), source=str(path))


def load_file(schema: Schema, path: Path, *, options: LoadOptions | None = None) -> LoadResult:
    """Load a document file with a schema."""
    with _nesting_checked(str(path)):
        return load(schema, read_document(path), source=str(path), options=options)


def save_file(schema: Schema, path: Path, data: Any) -> None:
    """Save data as a document at the latest versions, atomically."""
    write_atomic(path, dumps(save(schema, data, source=str(path))).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class UpgradePlan:
    """A file loaded and saved again at the latest versions: the planned file change and what the load changed."""

    change: FileChange
    result: LoadResult

    @property
    def path(self) -> Path:
        """The document file."""
        return self.change.path

    @property
    def changed(self) -> bool:
        """True when saving would change the file's data (not only its layout)."""
        source = str(self.change.path)
        before: object = _parse(_decode(self.change.old or b"", source), source)
        after: object = _parse(_decode(self.change.new, source), source)
        return before != after

    def diff(self) -> str:
        """A unified diff from the file to the upgraded document."""
        return self.change.diff()

    def apply(self, *, force: bool = False) -> None:
        """Write the upgraded document atomically; refused if the file changed since it was read."""
        # Under the folder's lock, so that another run's remove_upgrade_leftovers never takes the live temporary file.
        with locked(self.path.parent):
            apply_changes([self.change], force=force)


def remove_upgrade_leftovers(paths: Iterable[Path]) -> list[Path]:
    """Remove what killed runs left beside these documents (temporary and backup files); return what was removed.

    Each folder is listed once, under its lock, however many documents it holds; only the leftovers of the given
    documents are removed. A folder that does not exist is skipped (the document's own error says so later).
    """
    names_by_folder: dict[Path, set[str]] = {}
    for path in paths:
        names_by_folder.setdefault(path.parent, set()).add(path.name)
    removed: list[Path] = []
    for folder, names in names_by_folder.items():
        if folder.is_dir():
            with locked(folder):
                removed += remove_leftovers(folder, names)
    return removed


def upgrade_file(schema: Schema, path: Path, *, options: LoadOptions | None = None, force: bool = False) -> UpgradePlan:
    """Upgrade one document file in place: its killed runs' leftovers removed, then read, planned and written (when
    its data changes) under its folder's lock, so that concurrent upgrades of one file take turns, each reading what
    the one before wrote, instead of refusing because the file changed under them. Returns what was planned."""
    if not path.parent.is_dir():
        return plan_upgrade(schema, path, options=options)  # raises the document's own "no such file"
    with locked(path.parent):
        remove_leftovers(path.parent, path.name)
        plan = plan_upgrade(schema, path, options=options)
        if plan.changed:
            apply_changes([plan.change], force=force)
    return plan


def plan_upgrade(schema: Schema, path: Path, *, options: LoadOptions | None = None) -> UpgradePlan:
    """Load a file with a schema and save it at the latest versions, in memory."""
    old = _read_bytes(path)
    source = str(path)
    with _nesting_checked(source):
        return _plan_upgrade(schema, path, old, source, options)


def _plan_upgrade(schema: Schema, path: Path, old: bytes, source: str, options: LoadOptions | None) -> UpgradePlan:
    result = load(schema, _parse(_decode(old, source), source), source=source, options=options)
    if result.data is None:
        raise DocumentError(f"{source}: the root object was dropped ({result.dropped[-1].reason}); nothing to save")
    new = dumps(save(schema, result.data, source=source)).encode("utf-8")
    return UpgradePlan(FileChange(path, old, new), result)
