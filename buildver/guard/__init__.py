"""The pre-commit guard: what a commit would lose (a version going backwards, a package from a newer editor, ...)."""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.guard.run import run_guard
    from buildver.guard.settings import CHECKS, Finding, GuardReport, GuardSettings, Severity

__all__ = [
    "CHECKS",
    "Finding",
    "GuardReport",
    "GuardSettings",
    "Severity",
    "run_guard",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "CHECKS": "settings",
            "Finding": "settings",
            "GuardReport": "settings",
            "GuardSettings": "settings",
            "Severity": "settings",
            "run_guard": "run",
        },
    )
