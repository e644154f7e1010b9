"""Run the config-file readers' compiled core under AddressSanitizer and UndefinedBehaviorSanitizer.

The core (``buildver/projects/_ini_native.c``) reads files a user does not control, so a read past a buffer or an
undefined operation must not hide behind a test that happens to pass. This script copies the installed ``buildver``
package into a scratch folder, builds the core from the checkout there with ``-fsanitize=address,undefined``, and
runs, with the sanitizers' runtimes preloaded and any report fatal:

- ``tests/projects/test_ini_native.py`` (the core against the pure-Python readers) and ``test_ini_linear.py``
  (megabyte files of every shape), with ``--examples N`` hypothesis examples a test (default 200);
- every shape of ``benchmarks/bench_ini.py`` at 1 MiB, as UTF-8 and with a character that widens the text, each
  question the core answers (``key_values`` of both readers, every value and the single one, in a hierarchy of two
  texts, with a low struct-work bound; ``key_line``; ``section_headers``).

Run from the repository root, with the Python of an install of buildver and its test extras:
``python tools/sanitize_ini_core.py``. Needs ``cc`` (GCC or Clang) with the sanitizers' runtimes; Linux only (the
runtimes are preloaded with ``LD_PRELOAD``). Exit 0 when everything passes without a report.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "buildver" / "projects" / "_ini_native.c"

SHAPES = """
import sys
sys.path.insert(0, sys.argv[1])
import bench_ini
from buildver.projects import _ini_native as core
assert "sanitized" in core.__file__, core.__file__
for name, make in bench_ini.SHAPES.items():
    data = make(1 << 20)
    text = data[2:].decode("utf-16-le") if data[:2] == b"\\xff\\xfe" else data.decode("utf-8")
    for widened in (text, text + "\\u0100\\U0001f600"):
        for section, key in (("S", "K"), ("T", "K"), ("S7", "K")):
            for ubt in (False, True):
                for everything in (False, True):
                    core.key_values([widened, widened[: len(widened) // 2]], section, key, ubt, everything, 5)
                core.key_line(widened, section, key, ubt)
                core.section_headers(widened, section, ubt)
    print(name, "ok", flush=True)
"""


def runtime(compiler: str, name: str) -> str:
    """The path of a sanitizer's shared runtime, as the compiler names it."""
    found = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True, text=True, check=True)
    path = found.stdout.strip()
    if not os.path.isabs(path):
        sys.exit(f"sanitize_ini_core: {compiler} has no {name}")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=200, help="hypothesis examples a test")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    options = parser.parse_args()
    spec = importlib.util.find_spec("buildver")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("sanitize_ini_core: buildver is not installed for this Python")
    installed = Path(next(iter(spec.submodule_search_locations)))
    with tempfile.TemporaryDirectory(prefix="sanitized-") as scratch:
        package = Path(scratch) / "buildver"
        shutil.copytree(installed, package, ignore=shutil.ignore_patterns("__pycache__", "_ini_native*"))
        target = package / "projects" / f"_ini_native{sysconfig.get_config_var('EXT_SUFFIX')}"
        flags = ["-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-shared", "-fPIC"]
        include = f"-I{sysconfig.get_paths()['include']}"
        subprocess.run([options.cc, *flags, include, str(SOURCE), "-o", str(target)], check=True)
        environment = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([scratch, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "LD_PRELOAD": " ".join(runtime(options.cc, name) for name in ("libasan.so", "libubsan.so")),
            "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
        }
        # a plugin module in the scratch folder registers the profile before the tests' conftest loads its own
        (Path(scratch) / "sanitized_profile.py").write_text(
            "from hypothesis import HealthCheck, settings\n"
            f"settings.register_profile('sanitized', deadline=None, derandomize=True, max_examples={options.examples}, "
            "suppress_health_check=list(HealthCheck))\n"
        )
        tests = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
            "-p",
            "sanitized_profile",
            "--hypothesis-profile=sanitized",
            str(ROOT / "tests" / "projects" / "test_ini_native.py"),
            str(ROOT / "tests" / "projects" / "test_ini_linear.py"),
        ]
        failed = subprocess.run(tests, env=environment, cwd=ROOT, check=False).returncode
        shapes = [sys.executable, "-c", SHAPES, str(ROOT / "benchmarks")]
        failed = failed or subprocess.run(shapes, env=environment, cwd=scratch, check=False).returncode
    print("sanitize_ini_core:", "failed" if failed else "no report, every test passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
