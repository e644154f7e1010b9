"""The ``buildver`` command's entry point (``run``), and ``python -m buildver``."""

import gc
import sys


def run() -> None:
    """Import the CLI with the cyclic garbage collector paused, then run it and exit with its status.

    Importing typer and click creates some hundred thousand objects that live as long as the process, and no
    garbage; the collector would walk them again and again before any command starts, about 4 ms of every run
    (benchmarks/bench_cli.py). So they are imported with it paused and then set aside for good (``gc.freeze``),
    which is what freeze is for; the collector is on again, for the command's own objects, before it runs.

    Ctrl-C is buildver's from the first line here (``buildver.cli.failure``): during the imports too, it ends in
    one ``buildver: error: interrupted`` line and exit 130, not a traceback; an import that fails (a broken
    installation) writes a crash report, as any unexpected exception does.
    """
    try:
        from buildver.cli.failure import handle_interrupts

        handle_interrupts()
        gc.disable()
        try:
            from buildver.cli.app import main
        finally:
            gc.freeze()
            gc.enable()
        code = main()
    except BaseException as exc:
        code = _stopped(exc)
    sys.exit(code)


def _stopped(exc: BaseException) -> int:
    """The one line of a run stopped outside ``main`` (which ends every other run itself): Ctrl-C or a broken
    installation while the command line is imported."""
    from buildver.cli.failure import (
        CRASH_EXIT_CODE,
        INTERRUPTED_EXIT_CODE,
        Interrupted,
        crash_message,
        interrupted_message,
        write_crash_report,
    )
    from buildver.text import printable

    if isinstance(exc, (Interrupted, KeyboardInterrupt)):
        message, code = interrupted_message(), INTERRUPTED_EXIT_CODE
    elif isinstance(exc, Exception):
        message, code = crash_message(exc, write_crash_report(exc, sys.argv[1:])), CRASH_EXIT_CODE
    else:
        raise exc
    sys.stderr.write(f"buildver: error: {printable(message)}\n")
    return code


if __name__ == "__main__":
    run()
