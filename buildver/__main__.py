"""The ``buildver`` command's entry point (``run``), and ``python -m buildver``."""

import gc
import sys


def run() -> None:
    """Import the CLI with the cyclic garbage collector paused, then run it and exit with its status.

    Importing typer, click and pydantic creates some hundred thousand long-lived objects and no garbage, and the
    collector would walk them some thirty times before any command starts: about 4 ms of every run
    (benchmarks/bench_cli.py). It is on again before the command does any work.
    """
    gc.disable()
    try:
        from buildver.cli import main
    finally:
        gc.enable()
    sys.exit(main())


if __name__ == "__main__":
    run()
