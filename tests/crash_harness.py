"""Run buildver's CLI and SIGKILL the process at its N-th file-system step (a test helper, not a test).

Usage: ``python tests/crash_harness.py N buildver-arguments...``. Python's audit hooks report every file open
for writing, rename, link, remove and chmod; at the N-th one the process kills itself with SIGKILL, exactly as
a build machine's watchdog would, so the crash-consistency test can stop a run at every step of its writes.
With N = 0 nothing is killed and the number of steps is printed to stderr at exit.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_EVENTS = {"os.rename", "os.link", "os.remove", "os.chmod", "os.replace"}


def main() -> None:
    kill_at = int(sys.argv[1])
    steps = 0

    def hook(event: str, arguments: tuple[object, ...]) -> None:
        nonlocal steps
        writes = (
            event == "open" and len(arguments) >= 3 and isinstance(arguments[2], int) and arguments[2] & _WRITE_FLAGS
        )
        writes = writes or (
            event == "open" and len(arguments) >= 2 and isinstance(arguments[1], str) and arguments[1][:1] in "wax"
        )
        if writes or event in _EVENTS:
            steps += 1
            if steps == kill_at:
                # SIGKILL on POSIX; on Windows os.kill with any other signal is TerminateProcess, as hard a kill.
                os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))

    if kill_at == 0:
        atexit.register(lambda: print(f"steps={steps}", file=sys.stderr))
    from buildver.cli.app import main as cli_main

    sys.addaudithook(hook)
    code = cli_main(sys.argv[2:])
    sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
