"""Stamping a build: Unreal's ``UpdateLocalVersion`` (the values, where they come from, the rules of the engine
being stamped, the header and MetaData.cs), ``buildver init``, and ``buildver bump`` (a new release's version)."""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.stamp.bump import BumpPlan, BumpRequest, bump_release
    from buildver.stamp.header import render_header
    from buildver.stamp.init import init_project
    from buildver.stamp.rules import ChosenRules, choose_rules
    from buildver.stamp.uat_arguments import translate_unreal_arguments
    from buildver.stamp.update import UpdatePlan, UpdateRequest, update_local, write_header

__all__ = [
    "BumpPlan",
    "BumpRequest",
    "ChosenRules",
    "UpdatePlan",
    "UpdateRequest",
    "bump_release",
    "choose_rules",
    "init_project",
    "render_header",
    "translate_unreal_arguments",
    "update_local",
    "write_header",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "BumpPlan": "bump",
            "BumpRequest": "bump",
            "bump_release": "bump",
            "ChosenRules": "rules",
            "choose_rules": "rules",
            "UpdatePlan": "update",
            "UpdateRequest": "update",
            "update_local": "update",
            "write_header": "update",
            "render_header": "header",
            "translate_unreal_arguments": "uat_arguments",
            "init_project": "init",
        },
    )
