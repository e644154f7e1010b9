"""The GitHub Action (``action.yml``): its structure, and its shell steps run here as a runner runs them.

The runner is imitated closely: each step's ``env`` with its ``${{ }}`` expressions filled in, ``bash --noprofile
--norc -eo pipefail`` on the ``run`` text, a fresh ``$GITHUB_OUTPUT`` file per step read back (both of GitHub's
forms) into ``steps.<id>.outputs``, and the action's outputs evaluated from those.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import GitRepository, git, install_launcher_engine, read_github_output

from buildver.projects.game import GAME_FIELD_NAMES
from buildver.stamp.update import GAME_OUTPUTS
from buildver.versions.build_version import BuildVersion, load_build_version, render_new_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


class TestStructure:
    """What GitHub needs from a composite action, and what keeps it safe."""

    def test_it_is_a_composite_action_with_the_inputs_and_outputs_of_the_issue(self) -> None:
        assert ACTION["runs"]["using"] == "composite"
        assert {"changelist", "promoted", "branch", "args"} <= set(ACTION["inputs"])
        engine_outputs = {"version", "changelist", "compatible_changelist", "branch"}
        assert set(ACTION["outputs"]) == engine_outputs | set(GAME_OUTPUTS.values())
        for name, output in ACTION["outputs"].items():
            assert output["value"] == f"${{{{ steps.stamp.outputs.{name} }}}}"
            assert output["description"]
        for name, given in ACTION["inputs"].items():
            assert given["description"], name
            assert given["required"] is False

    def test_every_step_runs_bash_and_no_input_is_pasted_into_a_script(self) -> None:
        for step in ACTION["runs"]["steps"]:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], step["id"]  # inputs arrive through env, never as shell code

    def test_buildver_is_installed_from_the_actions_own_checkout(self) -> None:
        install = ACTION["runs"]["steps"][0]
        assert install["env"]["BUILDVER_SOURCE"] == "${{ github.action_path }}"
        assert 'pip install --quiet --disable-pip-version-check "$BUILDVER_SOURCE"' in install["run"]

    def test_the_game_outputs_are_the_games_versions_as_show_names_them(self) -> None:
        assert list(GAME_OUTPUTS) == list(GAME_FIELD_NAMES)
        for field, output in GAME_OUTPUTS.items():
            assert f"[{field}]" in ACTION["outputs"][output]["description"]

    def test_this_repositorys_workflow_uses_the_action_from_its_checkout(self) -> None:
        steps = [step for job in WORKFLOW["jobs"].values() for step in job["steps"]]
        assert steps[0]["uses"].startswith("actions/checkout@")
        assert steps[0]["with"]["fetch-depth"] == 0
        assert [step["uses"] for step in steps if step.get("uses") == "./"] == ["./", "./"]

    def test_the_readme_workflow_uses_the_action(self) -> None:
        readme = (ROOT / "README.md").read_text()
        workflow = yaml.safe_load(re.search(r"```yaml\n(name: build\n.*?)```", readme, re.DOTALL)[1])  # type: ignore[index]
        steps = workflow["jobs"]["build"]["steps"]
        stamp = next(step for step in steps if step.get("uses") == "./tools/buildver")
        assert set(stamp["with"]) <= set(ACTION["inputs"])
        used = set(re.findall(r"steps\.version\.outputs\.(\w+)", yaml.safe_dump(workflow)))
        assert used
        assert used <= set(ACTION["outputs"])


_INSTALLED: dict[Path, dict[str, Any]] = {}
"""The install step's outputs per runner folder: buildver is installed once per module, as on one runner."""


def run_action(workspace: Path, inputs: dict[str, str], temp: Path) -> dict[str, str]:
    """Run the action's steps in ``workspace`` as a runner would; its outputs."""
    given = {name: inputs.get(name, spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    context: dict[str, Any] = {"inputs": given, "github": {"action_path": str(ROOT)}, "runner": {"temp": str(temp)}}
    context["steps"] = {}

    def evaluate(text: str) -> str:
        def value(match: re.Match[str]) -> str:
            found: Any = context
            for part in match[1].split("."):
                found = found.get(part, "") if isinstance(found, dict) else ""
            return str(found)

        return EXPRESSION.sub(value, text)

    base = {name: value for name, value in os.environ.items() if not name.startswith(("GITHUB_", "VIRTUAL_ENV"))}
    for index, step in enumerate(ACTION["runs"]["steps"]):
        if step["id"] in _INSTALLED.get(temp, {}):  # the install step ran once for this runner folder: reuse it
            context["steps"][step["id"]] = _INSTALLED[temp][step["id"]]
            continue
        output = temp / f"output-{index}"
        environment = {**base, "GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(ROOT), "CI": "true"}
        environment |= {name: evaluate(str(value)) for name, value in step.get("env", {}).items()}
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert result.returncode == 0, f"step {step['id']}: {result.stdout}{result.stderr}"
        context["steps"][step["id"]] = {"outputs": read_github_output(output.read_text()) if output.exists() else {}}
        if step["id"] == "install":
            _INSTALLED.setdefault(temp, {})["install"] = context["steps"]["install"]
    return {name: evaluate(output["value"]) for name, output in ACTION["outputs"].items()}


@pytest.fixture(scope="module")
def action_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runner's temporary folder, shared so that the (slow) install runs once per module."""
    return tmp_path_factory.mktemp("runner-temp")


needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@needs_bash
@pytest.mark.slow
def test_the_steps_stamp_the_file_and_output_what_they_wrote(git_repository: GitRepository, action_temp: Path) -> None:
    root = git_repository(commits=4)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 2)))
    outputs = run_action(
        root,
        {
            "changelist": "27405482",
            "branch": "++Game+Main",
            "promoted": "1",
            "args": "--skip-header\n--compatible-cl 100",
        },
        action_temp,
    )
    assert outputs == {
        "version": "5.3.2-27405482+++Game+Main",
        "changelist": "27405482",
        "compatible_changelist": "100",
        "branch": "++Game+Main",
        **dict.fromkeys(GAME_OUTPUTS.values(), ""),  # not a game
    }
    record = load_build_version(root / "Build" / "Build.version").record
    assert (record.changelist, record.compatible_changelist, record.is_promoted_build) == (27405482, 100, True)
    assert not (root / "Build" / "BuildVersion.h").exists()  # --skip-header reached buildver


@needs_bash
@pytest.mark.slow
def test_without_inputs_the_changelist_and_branch_come_from_git(
    git_repository: GitRepository, action_temp: Path
) -> None:
    root = git_repository(commits=7, branch="release/5.3")
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 2)))
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "eighth")
    outputs = run_action(root, {"args": "--skip-header"}, action_temp)
    assert outputs["changelist"] == "8"
    assert outputs["branch"] == "++Game+release+5.3"
    assert outputs["version"] == "5.3.2-8+++Game+release+5.3"


@needs_bash
@pytest.mark.slow
def test_an_input_cannot_run_shell_code_or_add_an_output(git_repository: GitRepository, action_temp: Path) -> None:
    root = git_repository(commits=1)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 2)))
    marker = root / "pwned"
    # The branch reaches buildver as one argument, as it is; the extra arguments are words, never expanded.
    outputs = run_action(
        root, {"changelist": "5", "branch": f"$(touch {marker})", "args": "--skip-header"}, action_temp
    )
    assert outputs["branch"] == f"$(touch {marker})"
    assert not marker.exists()
    with pytest.raises(AssertionError, match=r"Got unexpected extra argument"):
        run_action(root, {"changelist": "5", "args": f"--skip-header $(touch {marker})"}, action_temp)
    assert not marker.exists()


@needs_bash
@pytest.mark.slow
def test_in_a_game_the_outputs_hold_the_games_versions_as_stamped(
    git_repository: GitRepository, action_temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TankFire on a launcher 5.3: update-local stamps ProjectVersion, and the outputs are what show then reads."""
    install_launcher_engine(action_temp.parent / "machine", monkeypatch)
    monkeypatch.delenv("IsBuildMachine", raising=False)
    root = git_repository(commits=2)
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", root / "Config")
    (root / "TankFire.uproject").write_text('{"FileVersion": 3, "EngineAssociation": "5.3"}')
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(BuildVersion(1, 4, 2)))
    (root / "pyproject.toml").write_text('[tool.buildver]\nproject-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n')
    outputs = run_action(root, {"changelist": "77", "branch": "++Game+Main", "args": "--skip-header"}, action_temp)
    assert {name: value for name, value in outputs.items() if value} == {
        "version": "1.4.2-77+++Game+Main",
        "changelist": "77",
        "compatible_changelist": "77",
        "branch": "++Game+Main",
        "project_version": "1.4.2.77",
        "android_version_code_arm64": "3",
        "android_version_code_x64": "3",
        "android_version_name": "1.0",
        "ios_version_info": "2.0",
    }
    assert "ProjectVersion=1.4.2.77" in (root / "Config" / "DefaultGame.ini").read_text()
