"""The ``buildver`` command line: thin typer commands over the library, one module per command group; the only
wing that prints or exits. ``main`` runs it (``buildver.__main__`` is the console script).

``main`` is imported on first use (``_lazy_face``): the console script imports ``buildver.cli.failure`` (how
Ctrl-C ends a run) before typer, which ``buildver.cli.app`` imports.
"""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.cli.app import main

__all__ = ["main"]

__getattr__, __dir__ = _lazy_face(__name__, {"main": "app"})
