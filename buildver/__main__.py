"""``python -m buildver``."""

from buildver.cli import run

run()
