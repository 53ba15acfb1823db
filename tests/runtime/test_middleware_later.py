"""The stack in two steps (``RuntimeOptions.middleware_later``, the TUI's start):
the switched-on middleware first, the switched-off rest once the first screen is
out. What a user relies on: once completed, the stack is the one a full build
makes (every middleware, same order, same switches); ``--middleware`` and
``--no-middleware`` work; a plugin or a broken module is still reported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import middleware
from middleware.base import Middleware
from middleware.registry import builtin_middleware
from shell.config import load_config
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellError, ShellRuntime


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))


def _runtime(tmp_path: Path, *, later: bool, config: str = "", on: tuple[str, ...] = (),
             off: tuple[str, ...] = ()) -> ShellRuntime:
    (tmp_path / "config.toml").write_text(config)
    options = RuntimeOptions(cwd=str(tmp_path), record=False, middleware_on=list(on),
                             middleware_off=list(off), middleware_later=later)
    settings = load_config(tmp_path / "config.toml")
    return ShellRuntime.create(options, settings=settings, model=ScriptedModel(["hi"]))


def _switches(runtime: ShellRuntime) -> list[tuple[str, bool]]:
    stack = runtime.agent.middleware
    return [(name, stack.is_enabled(name)) for name in stack.names()]


def test_the_name_map_agrees_with_discovery() -> None:
    """``middleware.BUILTINS`` is how the first step finds a class without importing
    every module: each discovered built-in is there, under its own module, and each
    middleware there is discovered."""
    found = builtin_middleware()
    assert len(found) >= 10  # (the checks below run over something)
    for name, cls in found.items():
        assert f"middleware.{middleware.BUILTINS.get(name)}" == cls.__module__, name
    for name in middleware.BUILTINS:
        value = getattr(middleware, name)
        if isinstance(value, type) and issubclass(value, Middleware) and value.__dict__.get("builtin"):
            assert found.get(value.name) is value, name


@pytest.mark.parametrize(
    ("config", "on", "off"),
    [
        ("", (), ()),
        ("", ("timing", "TodoList"), ("ProjectInstructions",)),
        ('[middleware]\nenabled = ["ToolCallLimit", "HumanInTheLoop"]\n\n'
         '[middleware.ToolCallLimit]\nrun_limit = 3\n', (), ("humanintheloop",)),
    ],
)
def test_completed_the_stack_is_the_full_build(tmp_path: Path, config: str, on: tuple[str, ...],
                                                 off: tuple[str, ...]) -> None:
    full = _runtime(tmp_path, later=False, config=config, on=on, off=off)
    runtime = _runtime(tmp_path, later=True, config=config, on=on, off=off)
    assert runtime.middleware_later is not None  # the two-step start was taken
    first = _switches(runtime)
    assert [n for n, on_ in first if on_] == [n for n, on_ in _switches(full) if on_]
    assert len(first) < len(_switches(full))
    assert runtime.complete_middleware() == []
    assert _switches(runtime) == _switches(full)
    assert runtime.problems == full.problems
    assert runtime.permissions_gate is not None  # HumanInTheLoop is the policy's gate from the start
    assert runtime.complete_middleware() == [] and _switches(runtime) == _switches(full)  # once


def test_listing_or_switching_completes_the_stack_first(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path, later=True)
    assert "Tracing" not in runtime.agent.middleware
    assert "Tracing" in [row.name for row in runtime.middleware_info()]
    runtime = _runtime(tmp_path, later=True)
    assert runtime.set_middleware("tracing", True) == "Tracing"
    assert runtime.agent.middleware.is_enabled("Tracing")


def test_an_unknown_name_on_the_command_line_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(ShellError, match=r"unknown middleware 'Nope'.*HumanInTheLoop"):
        _runtime(tmp_path, later=True, on=("Nope",))
    # in middleware.BUILTINS, but not a middleware:
    with pytest.raises(ShellError, match="unknown middleware 'ClearToolUses'"):
        _runtime(tmp_path, later=True, off=("ClearToolUses",))


def test_an_unknown_name_in_the_config_is_still_reported(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path, later=True, config='[middleware]\nenabled = ["HumanInTheLoop", "Typo"]\n')
    assert any("'Typo', which does not exist" in p for p in runtime.problems), runtime.problems


def test_a_plugin_in_the_config_dir_builds_everything_at_once(tmp_path: Path) -> None:
    (tmp_path / "middleware").mkdir()
    source = 'from middleware import Middleware\n\nclass Mine(Middleware):\n    """Mine."""\n'
    (tmp_path / "middleware" / "mine.py").write_text(source)
    runtime = _runtime(tmp_path, later=True)
    assert runtime.middleware_later is None
    assert "Mine" in runtime.agent.middleware and "Tracing" in runtime.agent.middleware


def test_a_built_in_that_fails_to_import_later_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = _runtime(tmp_path, later=True)
    monkeypatch.setitem(sys.modules, "middleware.rate_limit", None)  # importing it now fails
    problems = runtime.complete_middleware()
    assert any("middleware.rate_limit could not be loaded" in p for p in problems), problems
    assert all(p in runtime.problems for p in problems)
    assert "RateLimit" not in runtime.agent.middleware and "Tracing" in runtime.agent.middleware


def test_a_switched_on_built_in_that_fails_to_import_is_reported_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "middleware.timing", None)
    runtime = _runtime(tmp_path, later=True, config='[middleware]\nenabled = ["HumanInTheLoop", "Timing"]\n')
    assert runtime.middleware_later is None  # the full build ran, and says what is wrong
    assert any("middleware.timing could not be loaded" in p for p in runtime.problems), runtime.problems
