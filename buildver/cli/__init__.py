"""The ``buildver`` command line: thin typer commands over the library, one module per command group; the only
wing that prints or exits. ``main`` runs it (``buildver.__main__`` is the console script)."""

from buildver.cli.app import main

__all__ = ["main"]
