"""The runtime's middleware stack: every built-in in the panel, users' plugins, options."""

from __future__ import annotations

from pathlib import Path

import pytest

from middleware.registry import builtin_middleware
from shell.config import load_config
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime


def _runtime(tmp_path: Path, config: str = "") -> ShellRuntime:
    (tmp_path / "config.toml").write_text(config)
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=load_config(tmp_path / "config.toml"),
        model=ScriptedModel(["hi"]),
    )


def test_every_built_in_is_in_the_panel_and_only_approvals_and_instructions_are_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    runtime = _runtime(tmp_path)
    stack = runtime.agent.middleware
    assert {n.split("[")[0] for n in stack.names()} == set(builtin_middleware())  # PII[email]
    assert [n for n in stack.names() if stack.is_enabled(n)] == ["HumanInTheLoop", "ProjectInstructions"]
    assert runtime.problems == []


def test_a_plugin_file_is_loaded_enabled_and_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    (tmp_path / "middleware").mkdir()
    (tmp_path / "middleware" / "friday.py").write_text(
        "from middleware import Middleware\n\n"
        "class NoShellOnFriday(Middleware):\n"
        '    """Blocks run_shell on Fridays."""\n\n'
        "    def __init__(self, strict: bool = False) -> None:\n"
        "        self.strict = strict\n\n"
        "    async def before_tool_call(self, ctx):\n"
        "        return None\n"
    )
    (tmp_path / "middleware" / "broken.py").write_text("this is not python\n")
    config = (
        '[middleware]\nenabled = ["HumanInTheLoop", "NoShellOnFriday"]\n\n'
        "[middleware.NoShellOnFriday]\nstrict = true\n"
    )
    runtime = _runtime(tmp_path, config)
    stack = runtime.agent.middleware
    assert stack.names()[:2] == ["HumanInTheLoop", "NoShellOnFriday"]
    assert stack.is_enabled("NoShellOnFriday") and stack.get("NoShellOnFriday").strict  # type: ignore[attr-defined]
    assert stack.get("NoShellOnFriday").description == "Blocks run_shell on Fridays."
    assert any("broken.py" in p for p in runtime.problems), runtime.problems


def test_model_options_given_as_strings_become_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    script = tmp_path / "backup.json"
    script.write_text('["from the backup"]')
    config = (
        '[middleware]\nenabled = ["ModelFallback"]\n\n'
        f'[middleware.ModelFallback]\nmodels = ["scripted:{script}"]\n'
    )
    runtime = _runtime(tmp_path, config)
    fallback = runtime.agent.middleware.get("ModelFallback")
    assert [m.name for m in fallback.fallback_models] == ["backup.json"]  # type: ignore[attr-defined]
    assert fallback.is_active("on_model_call")


def test_a_middleware_is_switched_by_the_name_the_panel_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/middleware PII on`` for the stack's ``PII[email]`` (round 21, E9): the panel shows
    PII, and the name it shows is the one a user types."""
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    runtime = _runtime(tmp_path)
    (pii,) = [n for n in runtime.agent.middleware.names() if n.startswith("PII")]
    assert pii != "PII" and runtime.find_middleware("pii") == pii
    runtime.set_middleware("PII", True)
    assert runtime.agent.middleware.is_enabled(pii)
    with pytest.raises(KeyError, match="No middleware named 'PI'"):
        runtime.find_middleware("PI")
