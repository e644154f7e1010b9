"""``--version``, ``-h`` and shell completion, through the installed console script as a shell runs it."""

from __future__ import annotations

import gc
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILDVER = str(Path(sys.executable).parent / "buildver")
# typer's shell detection looks at the parent process (here pytest); with this set, the shell is given instead.
NO_SHELL_DETECTION = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def buildver(
    *argv: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BUILDVER, *argv], capture_output=True, text=True, check=False, env={**os.environ, **(env or {})}, cwd=cwd
    )


class TestVersion:
    """``--version`` prints the installed package's version, and nothing is run."""

    def test_version_is_the_installed_distributions(self) -> None:
        result = buildver("--version")
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout == f"buildver {version('buildver')}\n"

    def test_the_package_metadata_takes_its_version_from_the_code(self) -> None:
        import buildver as package

        pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
        assert "version" in pyproject["project"]["dynamic"]
        assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "buildver.__version__"}
        assert version("buildver") == package.__version__

    def test_the_command_runs_with_the_garbage_collector_on(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # The entry point pauses the collector while it imports the CLI, and only then.
        import buildver.cli.app
        from buildver.__main__ import run

        seen: list[bool] = []

        def command() -> int:
            seen.append(gc.isenabled())
            return 3

        monkeypatch.setattr(buildver.cli.app, "main", command)
        try:
            with pytest.raises(SystemExit) as exit_info:
                run()
        finally:
            gc.unfreeze()  # this test process's own objects go back to the collector
        assert (exit_info.value.code, seen, gc.isenabled()) == (3, [True], True)

    def test_module_run_prints_the_same_version(self) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "buildver", "--version"], capture_output=True, text=True, check=False
        )
        assert (result.returncode, result.stdout) == (0, buildver("--version").stdout)


@pytest.mark.parametrize(
    "argv",
    [[], ["show"], ["compare"], ["update-local"], ["assets", "scan"], ["data"], ["project", "check"], ["guard"]],
)
def test_h_is_the_same_help_as_help(argv: list[str]) -> None:
    short, long = buildver(*argv, "-h"), buildver(*argv, "--help")
    assert (short.returncode, short.stderr) == (0, "")
    assert short.stdout.startswith(f"Usage: buildver {' '.join(argv)}".rstrip() + " ")
    assert short.stdout == long.stdout
    assert "-h, --help" in short.stdout


# Each shell's script, by a line only that shell's has.
COMPLETION_SCRIPTS = [
    ("bash", "complete -o default -F _buildver_completion buildver"),
    ("zsh", "#compdef buildver"),
    ("fish", "complete --command buildver --no-files"),
    ("powershell", "Register-ArgumentCompleter -Native -CommandName buildver"),
    ("pwsh", "Register-ArgumentCompleter -Native -CommandName buildver"),
]


class TestCompletion:
    """typer's completion: the options in the main help, the scripts, and a real bash completing with them."""

    def test_main_help_lists_the_completion_options(self) -> None:
        out = buildver("--help").stdout
        assert "--install-completion" in out
        assert "--show-completion" in out

    @pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "powershell"])
    def test_show_completion_prints_a_script_for_each_shell(self, shell: str) -> None:
        result = buildver("--show-completion", shell, env=NO_SHELL_DETECTION)
        assert (result.returncode, result.stderr) == (0, "")
        assert "_BUILDVER_COMPLETE" in result.stdout

    @pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
    @pytest.mark.parametrize(
        ("words", "expected"),
        [
            ("buildver update-l", "update-local"),
            ("buildver comp", "compare compatible"),
            ("buildver assets scan --j", "--jobs --json"),
            ("buildver show --f", "--field --file --format"),
            ("buildver show --field Compat", "CompatibleChangelist CompatibleEngineVersion"),
            ("buildver show --format ''", "env json text"),
        ],
    )
    def test_bash_completes_commands_and_options_with_the_shown_script(self, words: str, expected: str) -> None:
        script = buildver("--show-completion", "bash", env=NO_SHELL_DETECTION).stdout
        program = (
            f'{script}\nCOMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; _buildver_completion "{BUILDVER}"\n'
            'printf "%s\\n" "${COMPREPLY[@]}"'
        )
        result = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=False)
        assert (result.returncode, result.stderr) == (0, "")
        assert sorted(result.stdout.split()) == expected.split()

    @pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
    @pytest.mark.parametrize(("shell", "line"), COMPLETION_SCRIPTS)
    @pytest.mark.parametrize("spelling", ["--show-completion {}", "--show-completion={}"])
    def test_the_shell_named_wins_over_the_shell_running(self, shell: str, line: str, spelling: str) -> None:
        # Run from bash, with typer's shell detection on, as a user types it.
        command = f"{shlex.quote(BUILDVER)} {spelling.format(shell)}"
        result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
        assert (result.returncode, result.stderr) == (0, "")
        assert line in result.stdout

    @pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
    def test_install_completion_installs_for_the_shell_named(self, tmp_path: Path) -> None:
        command = f"{shlex.quote(BUILDVER)} --install-completion zsh"
        result = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout.startswith(f"zsh completion installed in {tmp_path / '.zfunc' / '_buildver'}\n")
        assert "#compdef buildver" in (tmp_path / ".zfunc" / "_buildver").read_text()

    def test_a_shell_typer_does_not_know_is_a_usage_error(self) -> None:
        result = buildver("--show-completion", "tcsh")
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == (
            "buildver: error: Invalid value for '--show-completion': 'tcsh' is not one of bash, zsh, fish, "
            "powershell, pwsh\n"
        )

    def test_install_completion_writes_the_script_and_sources_it(self, tmp_path: Path) -> None:
        result = buildver("--install-completion", "bash", env={**NO_SHELL_DETECTION, "HOME": str(tmp_path)})
        assert result.returncode == 0, result.stderr
        script = tmp_path / ".bash_completions" / "buildver.sh"
        assert "_BUILDVER_COMPLETE=complete_bash" in script.read_text()
        assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()
