"""The ``buildver`` command's entry point (``run``), and ``python -m buildver``."""

import gc
import sys


def run() -> None:
    """Import the CLI with the cyclic garbage collector paused, then run it and exit with its status.

    Importing typer and click creates some hundred thousand objects that live as long as the process, and no
    garbage; the collector would walk them again and again before any command starts, about 4 ms of every run
    (benchmarks/bench_cli.py). So they are imported with it paused and then set aside for good (``gc.freeze``),
    which is what freeze is for; the collector is on again, for the command's own objects, before it runs.
    """
    gc.disable()
    try:
        from buildver.cli.app import main
    finally:
        gc.freeze()
        gc.enable()
    sys.exit(main())


if __name__ == "__main__":
    run()
