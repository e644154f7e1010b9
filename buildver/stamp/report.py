"""What ``buildver update-local`` reports: the values that change and where they came from, the files written,
and the rules that were applied, as text or JSON (no printing here)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from buildver.text import printable
from buildver.versions.report import show_fields

if TYPE_CHECKING:
    from pathlib import Path

    from buildver.stamp.bump import BumpPlan
    from buildver.stamp.update import UpdatePlan

__all__ = ["bump_document", "bump_headline", "bump_summary", "describe_rules", "update_document", "update_summary"]


def update_document(plan: UpdatePlan) -> dict[str, object]:
    """``update-local --json``: the new file's fields as ``show --json`` gives them (the derived ones too), the
    files that change, and the rules that were applied."""
    document = show_fields(plan.new_version_file)
    document["FilesChanged"] = [str(change.path) for change in plan.changes if change.changed]
    chosen = plan.rules
    document["Rules"] = {"Name": chosen.rules.name, "Reason": chosen.reason, "Source": chosen.rules.source}
    return document


def update_summary(plan: UpdatePlan, written: list[Path]) -> str:
    """``update-local``'s lines: each Build.version value that changes, where it came from, and what was written.

    Values are shown as in the file (strings in JSON quotes, so that an empty branch is visible; flags as 0/1).
    """
    lines = []
    for name, old, new in plan.changed_fields:
        source = plan.sources.get(name)
        change = f"{printable(str(plan.version_file.path))}: {name} {_as_in_file(old)} -> {_as_in_file(new)}"
        lines.append(change + (f" ({printable(source)})" if source else ""))
    lines += [printable(line) for line in plan.game_changes]
    lines.append(
        "wrote " + ", ".join(printable(str(path)) for path in written) if written else "up to date: nothing written"
    )
    return "\n".join(lines) + "\n"


def _as_in_file(value: object) -> str:
    if isinstance(value, str):
        return printable(json.dumps(value, ensure_ascii=False))
    return str(int(value)) if isinstance(value, bool) else str(value)


def describe_rules(plan: UpdatePlan) -> str:
    """``rules: Unreal 5.0 UpdateLocalVersion (engine tree at 5.0.3: ...)``: which rules, and why."""
    return printable(f"rules: {plan.rules.rules.describe()} ({plan.rules.reason})") + "\n"


def bump_headline(plan: BumpPlan, *, dry_run: bool = False) -> str:
    """``bump``'s first line: the version before and after, and where the command stands; or, when the version
    stays as it was, that there is nothing to change."""
    if plan.same_version:
        rest = "bringing the other values in line with it" if plan.changes else "nothing to change"
        return printable(f"{plan.path}: already at {plan.new}; {rest}") + "\n"
    where = f" in {plan.where}" if plan.where else ""
    return printable(f"{plan.old} -> {plan.new}{where}{' (dry run: nothing written)' if dry_run else ''}") + "\n"


def bump_summary(plan: BumpPlan, written: list[Path]) -> str:
    """``bump``'s lines after the headline: each value that changes, then what was written."""
    lines = [printable(line) for line in plan.lines]
    if written:
        lines.append("wrote " + ", ".join(printable(str(path)) for path in written))
    return "".join(line + "\n" for line in lines)


def bump_document(plan: BumpPlan, written: list[Path], *, dry_run: bool = False) -> dict[str, object]:
    """``bump --json``: where it stood, the version before and after, each value that changes, the files that
    change and the files written (none for a dry run)."""
    return {
        "place": str(plan.kind),
        "file": str(plan.path),
        "from": plan.old,
        "to": plan.new,
        "changed": list(plan.lines),
        "files_changed": [str(change.path) for change in plan.changes if change.changed],
        "written": [str(path) for path in written],
        "dry_run": dry_run,
    }
