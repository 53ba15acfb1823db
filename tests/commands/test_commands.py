"""Slash commands against a real runtime (no UI): the answers both front ends render."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shell.commands import CommandResult, default_commands, is_command
from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellError, ShellRuntime

pytestmark = pytest.mark.anyio


@pytest.fixture
def runtime(tmp_path: Path) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["hi"]),
    )


async def run(runtime: ShellRuntime, line: str) -> CommandResult:
    return await default_commands().run(runtime, line)


def test_is_command() -> None:
    assert is_command("/help") and is_command("  /middleware Timing on ")
    assert not is_command("/etc/hosts is odd") and not is_command("hello /help") and not is_command("/")


async def test_unknown_command(runtime: ShellRuntime) -> None:
    result = await run(runtime, "/frobnicate")
    assert result.error and "/help" in result.text


async def test_help_lists_every_command(runtime: ShellRuntime) -> None:
    text = (await run(runtime, "/help")).text
    for name in ("/help", "/model", "/clear", "/new", "/middleware", "/tools", "/quit"):
        assert name in text
    assert "/middleware" in (await run(runtime, "/help mw")).text


async def test_middleware_toggle(runtime: ShellRuntime) -> None:
    stack = runtime.agent.middleware
    assert stack.is_enabled("HumanInTheLoop")
    off = [n for n in stack.names() if not stack.is_enabled(n)]
    assert off, "other built-ins are offered switched off"
    result = await run(runtime, "/middleware humanintheloop off")
    assert not result.error and not runtime.middleware_on("HumanInTheLoop")  # "don't ask"
    assert stack.is_enabled("HumanInTheLoop") and "deny rules and plan mode still hold" in result.text
    await run(runtime, f"/middleware {off[0]} on")
    assert stack.is_enabled(off[0])
    assert (await run(runtime, "/middleware Nope on")).error
    assert (await run(runtime, "/middleware HumanInTheLoop sideways")).error
    assert "○ **HumanInTheLoop**" in (await run(runtime, "/middleware")).text


async def test_quit_clear_new_are_actions(runtime: ShellRuntime) -> None:
    runtime.agent.messages.append(object())  # type: ignore[arg-type]
    assert (await run(runtime, "/clear")) == (await run(runtime, "/new"))  # one command: they cannot disagree
    assert (await run(runtime, "/clear")).action == "new"
    assert runtime.agent.messages == []
    assert (await run(runtime, "/exit")) == CommandResult(action="quit")


async def test_model_switch(runtime: ShellRuntime) -> None:
    assert "scripted" in (await run(runtime, "/model")).text
    result = await run(runtime, "/model demo")
    assert not result.error and runtime.is_demo
    bad = await run(runtime, "/model nonsense:x")
    assert bad.error and runtime.is_demo


async def test_tools_listing(runtime: ShellRuntime) -> None:
    text = (await run(runtime, "/tools")).text
    assert "`write_file` (builtin, asks)" in text and "`read_file` (builtin)" in text


def test_completions(runtime: ShellRuntime) -> None:
    names = [w for w, _ in default_commands().completions(runtime, "/m")]
    assert "/model" in names and "/middleware" in names
    assert "HumanInTheLoop" in [w for w, _ in default_commands().completions(runtime, "/middleware Hum")]
    assert [w for w, _ in default_commands().completions(runtime, "/middleware Timing o")] == ["on", "off"]
    assert default_commands().completions(runtime, "hello") == []


def test_unknown_middleware_option_is_a_shell_error(tmp_path: Path) -> None:
    with pytest.raises(ShellError, match="NoSuch"):
        ShellRuntime.create(
            RuntimeOptions(cwd=str(tmp_path), middleware_on=["NoSuch"], record=False),
            settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel([]),
        )


def test_config_middleware_list_is_respected(tmp_path: Path) -> None:
    settings = Settings(path=tmp_path / "none.toml")
    settings.middleware.enabled = ["ToolRetry", "Missing"]
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=settings, model=ScriptedModel([])
    )
    stack = rt.agent.middleware
    assert stack.names()[0] == "ToolRetry" and stack.is_enabled("ToolRetry")
    assert not rt.middleware_on("HumanInTheLoop")  # an explicit list replaces the defaults: nothing asks
    assert stack.is_enabled("HumanInTheLoop") and rt.policy_enforced  # but the policy's gate still judges
    assert any("Missing" in p for p in rt.problems)


async def test_sessions_resume_and_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    first = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path)), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["The answer is 42."]),
    )
    assert "No saved sessions" in (await run(first, "/sessions")).text
    async for _ in first.reply("What is the answer?"):
        pass
    await first.aclose()

    second = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path)), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["ok"]),
    )
    listing = (await run(second, "/sessions")).text
    assert "What is the answer?" in listing
    session_id = re.findall(r"\b\d{8}-\d{6}-[0-9a-f]{6}\b", listing)[0]  # the newest, under its title
    result = await run(second, f"/resume {session_id}")
    assert result.action == "resume" and not result.error, result.text
    assert [m.role for m in second.agent.messages] == ["user", "assistant"]
    assert "Could not open" in (await run(second, "/resume nope")).text

    exported = await run(second, "/export notes.md")
    assert not exported.error, exported.text
    text = (tmp_path / "notes.md").read_text()
    assert "What is the answer?" in text and "The answer is 42." in text
    await second.aclose()


async def test_export_without_a_path_goes_to_the_data_dir_not_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare ``/export`` once dropped ``agent-shell-<time>.md`` into the workspace,
    where ``git add .`` picked it up; the reply names the full path."""
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(workspace), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["The answer is 42."]),
    )
    async for _ in rt.reply("What is the answer?"):
        pass
    first, second = await run(rt, "/export"), await run(rt, "/export")  # within one second too
    assert not first.error and not second.error, (first.text, second.text)
    assert list(workspace.iterdir()) == []
    written = set((tmp_path / "data" / "exports").iterdir())
    said = {Path(r.text.split("`")[1]) for r in (first, second)}
    assert len(written) == 2 and said == written
    for result, path in zip((first, second), written, strict=True):
        assert "/export PATH" in result.text
        assert "The answer is 42." in path.read_text()
    assert (await run(rt, "/export notes.md")).error is False  # an explicit path: the workspace's
    assert "The answer is 42." in (workspace / "notes.md").read_text()
    await rt.aclose()


async def test_resume_by_the_number_sessions_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/resume 1`` is the first row of ``/sessions`` (this directory's newest), never
    a session elsewhere whose id happens to end in 1."""
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()

    async def talk(cwd: Path, text: str) -> None:
        rt = ShellRuntime.create(
            RuntimeOptions(cwd=str(cwd)), settings=Settings(path=tmp_path / "none.toml"),
            model=ScriptedModel(["ok"]),
        )
        async for _ in rt.reply(text):
            pass
        await rt.aclose()

    await talk(here, "older here")
    await talk(here, "newest here")
    for n in range(12):  # plenty of ids elsewhere, some ending in 1 or 2
        await talk(elsewhere, f"elsewhere {n}")
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(here)), settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel([])
    )
    result = await run(rt, "/resume 1")
    assert not result.error, result.text
    assert rt.agent.messages[0].text == "newest here"
    assert (await run(rt, "/resume 2")).error is False
    assert rt.agent.messages[0].text == "older here"
    missing = await run(rt, "/resume 3")
    assert missing.error and "no session number 3 here" in missing.text
    await rt.aclose()


async def test_switching_to_a_cloud_model_without_a_key_says_so(
    runtime: ShellRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The switch worked, but the next message would fail with an error that does not
    say the key is missing: /model says it at once."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = await run(runtime, "/model openai:gpt-4o")
    assert result.error and "openai:gpt-4o" in result.text
    assert "No API key is set (OPENAI_API_KEY is empty)" in result.text
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert not (await run(runtime, "/model openai:gpt-4o")).error


async def test_export_outside_the_workspace_says_the_real_path_and_asks_for_outside(tmp_path: Path) -> None:
    """``/export ../../x/.bashrc`` wrote outside the workspace and reported the path
    unresolved; a link in the workspace led out silently. Now the real path is named,
    nothing is written without ``--outside``, and with it the reply says where."""
    workspace, elsewhere = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    elsewhere.mkdir()
    (workspace / "notes.md").symlink_to(elsewhere / "notes.md")  # dangling: writing creates the target
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(workspace), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["The answer is 42."]),
    )
    async for _ in rt.reply("What is the answer?"):
        pass
    for typed in ("../home/.bashrc", "notes.md"):
        refused = await run(rt, f"/export {typed}")
        real = elsewhere / Path(typed).name
        assert refused.error and f"`{real}`" in refused.text and "outside the workspace" in refused.text
        assert f"/export {typed} --outside" in refused.text
    assert list(elsewhere.iterdir()) == []
    written = await run(rt, "/export ../home/.bashrc --outside")
    assert not written.error and f"`{elsewhere / '.bashrc'}`" in written.text and "outside" in written.text
    assert "The answer is 42." in (elsewhere / ".bashrc").read_text()
    again = await run(rt, "/export ../home/.bashrc --outside")
    assert again.error and "--force --outside" in again.text  # never over a file unasked, there too
    (workspace / "sub").mkdir()
    inside = await run(rt, "/export sub/../chat.md")
    assert not inside.error and f"`{workspace / 'chat.md'}`" in inside.text
    await rt.aclose()


async def test_export_outside_never_writes_a_shells_start_up_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """V14: with ``--outside --force`` too, ``~/.bashrc`` would run the conversation at the
    next shell start; a file beside it is written."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    monkeypatch.setenv("HOME", str(home))
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(workspace), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["The answer is 42."]),
    )
    async for _ in rt.reply("What is the answer?"):
        pass
    refused = await run(rt, "/export ../home/.bashrc --outside --force")
    assert refused.error and "your shell runs at every start" in refused.text
    assert "nothing was written" in refused.text
    assert (home / ".bashrc").read_text() == "# mine\n"
    written = await run(rt, "/export ../home/chat.md --outside")
    assert not written.error and (home / "chat.md").is_file()
    await rt.aclose()
