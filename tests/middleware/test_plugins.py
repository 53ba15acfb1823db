"""Plugins: loading users' middleware (files and entry points) and building a stack
from configuration; broken plugins and bad options are problems, never crashes."""

from __future__ import annotations

import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from middleware import Middleware
from middleware import plugins as plugins_module
from middleware.plugins import available_middleware, build_stack, load_plugins
from middleware.tool_retry import ToolRetry
from shell.agent.loop import Agent
from shell.providers.scripted import ScriptedModel

GOOD = '''
from dataclasses import dataclass

from middleware import Middleware


@dataclass
class Settings:
    suffix: str


class Shout(Middleware):
    """Ends the system prompt with a shout."""

    def __init__(self, suffix: str = "!") -> None:
        self.settings = Settings(suffix)

    async def transform_system_prompt(self, ctx, prompt):
        return prompt.upper() + self.settings.suffix


class _Helper(Middleware):
    pass
'''


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / "middleware" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins_module, "entry_points", lambda group: [])


def test_good_plugin_file_loads(tmp_path: Path) -> None:
    write(tmp_path, "shout.py", GOOD)
    found, problems = load_plugins(tmp_path)
    assert problems == []
    assert list(found) == ["Shout"]
    assert found["Shout"].__module__.startswith("agent_shell_plugin_shout_")


@pytest.mark.anyio
async def test_a_loaded_plugin_works_in_an_agent(tmp_path: Path) -> None:
    write(tmp_path, "shout.py", GOOD)
    found, _ = load_plugins(tmp_path)
    stack, problems = build_stack(["Shout"], {"Shout": {"suffix": "!!"}}, found)
    assert problems == []
    model = ScriptedModel(["ok"])
    agent = Agent(model, system_prompt="be brief", middleware=stack)
    [e async for e in agent.reply("hi")]
    assert model.requests[0].system_prompt == "BE BRIEF!!"


def test_broken_plugins_are_reported_and_skipped(tmp_path: Path) -> None:
    write(tmp_path, "shout.py", GOOD)
    syntax = write(tmp_path, "syntax.py", "class Broken(:\n    pass\n")
    missing = write(tmp_path, "missing.py", "import agent_shell_no_such_module\n")
    raising = write(tmp_path, "raising.py", "x = 1\nraise RuntimeError('plugin exploded')\n")
    exiting = write(tmp_path, "exiting.py", "import sys\nsys.exit(3)\n")
    empty = write(tmp_path, "empty.py", "VALUE = 1\n")
    write(tmp_path, "_private.py", "raise RuntimeError('never imported')\n")
    found, problems = load_plugins(tmp_path)
    assert list(found) == ["Shout"]
    text = "\n".join(problems)
    assert len(problems) == 5
    assert f"{syntax}:1: syntax error" in text
    assert f"{missing}:1: ModuleNotFoundError: No module named 'agent_shell_no_such_module'" in text
    assert f"{raising}:2: RuntimeError: plugin exploded" in text
    assert f"{exiting}:2: SystemExit: 3" in text
    assert f"{empty}: defines no Middleware subclass" in text
    assert "never imported" not in text


def test_same_name_in_two_files(tmp_path: Path) -> None:
    write(tmp_path, "a.py", GOOD)
    write(tmp_path, "b.py", GOOD)
    found, problems = load_plugins(tmp_path)
    assert list(found) == ["Shout"]
    assert len(problems) == 1 and "taken by" in problems[0] and "a.py" in problems[0]


def test_no_config_dir_is_fine(tmp_path: Path) -> None:
    assert load_plugins(tmp_path / "nowhere") == ({}, [])


def test_entry_points(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "agent_shell_test_ep.py").write_text(textwrap.dedent(GOOD).replace("Shout", "Whisper"))
    monkeypatch.syspath_prepend(str(tmp_path))
    group = "agent_shell.middleware"
    points = [
        EntryPoint("whisper", "agent_shell_test_ep:Whisper", group),
        EntryPoint("module", "agent_shell_test_ep", group),
        EntryPoint("gone", "agent_shell_no_such_module:Thing", group),
        EntryPoint("notmw", "pathlib:Path", group),
    ]
    monkeypatch.setattr(plugins_module, "entry_points", lambda group: points)
    found, problems = load_plugins(tmp_path / "cfg", group)
    assert list(found) == ["Whisper"]
    assert len(problems) == 2
    assert "entry point 'gone'" in problems[0] and "ModuleNotFoundError" in problems[0]
    assert "entry point 'notmw'" in problems[1] and "not a Middleware subclass" in problems[1]


class Plain(Middleware):
    pass


def test_build_stack_reports_problems_and_builds_the_rest() -> None:
    available: dict[str, type[Middleware]] = {"ToolRetry": ToolRetry, "Plain": Plain}
    stack, problems = build_stack(
        ["ToolRetry", "Plain", "ToolRetyr", "Plain", "Other"],
        {"ToolRetry": {"max_retries": 5, "jitter": False}},
        available,
    )
    assert [type(m) for m in stack] == [ToolRetry, Plain]
    assert isinstance(stack[0], ToolRetry) and stack[0].max_retries == 5
    assert problems[0].startswith("Unknown middleware 'ToolRetyr'. Did you mean 'ToolRetry'?")
    assert "listed twice" in problems[1]
    assert "Unknown middleware 'Other'." in problems[2] and "Available: Plain, ToolRetry." in problems[2]


def test_build_stack_bad_options() -> None:
    available: dict[str, type[Middleware]] = {"ToolRetry": ToolRetry}
    cases = [
        ({"retries": 3}, "Bad options for ToolRetry: got an unexpected keyword argument 'retries'"),
        ({"max_retries": -2}, "ToolRetry could not be created with {'max_retries': -2}: ValueError"),
        ("fast", "Options of ToolRetry must be a table"),
    ]
    for opts, expected in cases:
        stack, problems = build_stack(["ToolRetry"], {"ToolRetry": opts}, available)  # type: ignore[dict-item]
        assert stack == [] and len(problems) == 1
        assert expected in problems[0]
    _, problems = build_stack(["ToolRetry"], {"ToolRetry": {"retries": 3}}, available)
    assert "Options it takes: max_retries, tools, retry_on" in problems[0]


def test_available_middleware_merges_builtins_and_plugins(tmp_path: Path) -> None:
    write(tmp_path, "shout.py", GOOD)
    clash = "from middleware import Middleware\n\nclass ToolRetry(Middleware):\n    pass\n"
    write(tmp_path, "clash.py", clash)
    found, problems = available_middleware(tmp_path)
    assert found["ToolRetry"] is ToolRetry
    assert "Shout" in found and "TodoList" in found
    assert any("name of a built-in" in p for p in problems)


def _distribution(site: Path, name: str, entry_points_txt: str | None) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points_txt is not None:
        (info / "entry_points.txt").write_text(entry_points_txt)


def test_the_quick_look_before_the_entry_point_lookup(tmp_path: Path) -> None:
    """A start with no plugin installed skips importlib.metadata; a package that
    declares the group, or anything the look cannot read, is never missed."""
    group = "agent_shell.middleware"
    site = tmp_path / "site"
    _distribution(site, "tool", "[console_scripts]\ntool = tool:main\n")
    _distribution(site, "bare", None)
    assert not plugins_module.may_declare(group, [str(site), str(tmp_path / "missing")])
    _distribution(site, "plugin", f"[{group}]\nwhisper = agent_shell_test_ep:Whisper\n")
    assert plugins_module.may_declare(group, [str(site)])
    archive = tmp_path / "packages.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert plugins_module.may_declare(group, [str(archive)])


def test_a_declared_entry_point_is_found_through_the_quick_look(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.undo()  # the real lookup, not the autouse stand-in
    group = "agent_shell.middleware"
    (tmp_path / "agent_shell_test_ep2.py").write_text(textwrap.dedent(GOOD).replace("Shout", "Murmur"))
    _distribution(tmp_path, "murmur", f"[{group}]\nmurmur = agent_shell_test_ep2:Murmur\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found, problems = load_plugins(tmp_path / "cfg", group)
    assert problems == [] and list(found) == ["Murmur"]
