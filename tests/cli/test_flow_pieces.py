"""The small daily things, below the UI: notifications (only while unfocused, made safe),
/copy (OSC 52, tmux, a clear word where it cannot), the prompt history (0600, redacted),
custom slash commands (trusted projects only, $ARGUMENTS), the exit hint."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.secrets import Secrets
from shell.custom_commands import parse
from shell.frontend.clipboard import code_blocks, copy_text
from shell.frontend.notify import Notifier, NotifySettings, clean, detect_method, sequence, tmux_passthrough
from shell.frontend.prompt_history import MAX_ENTRIES, PromptHistory
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

SECRET = "sk-ant-api03-" + "Z" * 40


def runtime(ws: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), **options)
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))


# -- notifications ------------------------------------------------------------------------


def notifier(env: dict[str, str], **settings: Any) -> tuple[Notifier, list[str], list[list[str]]]:
    written: list[str] = []
    spawned: list[list[str]] = []
    n = Notifier(NotifySettings(**settings), written.append, env=env,
                 which=lambda name: f"/usr/bin/{name}" if name == "notify-send" else None,
                 spawn=lambda argv: spawned.append(list(argv)))
    return n, written, spawned


def test_only_while_unfocused() -> None:
    n, written, spawned = notifier({"TERM_PROGRAM": "iTerm.app"})
    assert not n.notify("reply", "done", "the answer")
    n.focused = False
    assert n.notify("reply", "agent-shell: reply finished", "the answer")
    assert written == ["\x1b]9;agent-shell: reply finished: the answer\x07"]
    assert spawned == []  # no desktop session in this environment


def test_the_terminal_decides_the_sequence() -> None:
    assert detect_method({"TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert detect_method({"VTE_VERSION": "7600", "TERM": "xterm-256color"}) == "osc777"
    assert detect_method({"TERM": "foot"}) == "osc777"
    assert detect_method({"KITTY_WINDOW_ID": "1"}) == "osc99"
    inside = {"TERM": "tmux-256color", "TERM_PROGRAM": "tmux"}
    assert detect_method(inside, outer_term="xterm-ghostty") == "osc777"
    assert detect_method({"TERM": "xterm-256color"}) == "bell"
    assert sequence("osc777", "t", "b") == "\x1b]777;notify;t;b\x07"
    assert sequence("bell", "t", "b") == "\x07"
    assert sequence("osc99", "t", "b").count("\x1b\\") == 2


def test_tmux_gets_passthrough_and_desktop_gets_notify_send() -> None:
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "VTE_VERSION": "7600", "DISPLAY": ":0"}
    n, written, spawned = notifier(env)
    n.focused = False
    n.notify("approval", "approval needed", "run_shell: ls")
    assert written == [tmux_passthrough("\x1b]777;notify;approval needed;run_shell: ls\x07")]
    assert written[0].startswith("\x1bPtmux;\x1b\x1b]777;") and written[0].endswith("\x1b\\")
    assert spawned == [["/usr/bin/notify-send", "--app-name=agent-shell", "--", "approval needed",
                        "run_shell: ls"]]


def test_hostile_text_cannot_end_or_smuggle_a_sequence() -> None:
    evil = "x\x07\x1b]52;c;ZXZpbA==\x07\x1b\\;more\u202e\nline" + "A" * 500
    n, written, _ = notifier({"VTE_VERSION": "1"})
    n.focused = False
    n.notify("reply", evil, evil)
    [seq] = written
    inner = seq[len("\x1b]777;notify;"):-1]
    assert "\x07" not in inner and "\x1b" not in inner and "\n" not in inner and "\u202e" not in inner
    assert inner.count(";") == 1  # only the separator between title and body
    assert len(clean(evil, 160)) <= 160


def test_settings_and_kinds(tmp_path: Path) -> None:
    problems: list[str] = []
    s = NotifySettings.from_config({"method": "smoke", "on": ["reply"], "enabled": "yes"}, problems)
    assert s.method == "auto" and s.on == ("reply",) and s.enabled and len(problems) == 2
    n, written, _ = notifier({}, on=("reply",))
    n.focused = False
    assert not n.notify("approval", "x")
    n, written, _ = notifier({}, enabled=False)
    n.focused = False
    assert not n.notify("reply", "x") and written == []


# -- /copy --------------------------------------------------------------------------------


def test_code_blocks() -> None:
    text = "intro\n```python\nprint(1)\n```\nmid\n~~~\nraw ``` inside\n~~~\n````\nopen to the end"
    assert code_blocks(text) == ["print(1)", "raw ``` inside", "open to the end"]


def test_copy_by_osc52_and_through_tmux() -> None:
    written: list[str] = []
    done = copy_text("héllo", written.append, env={"TERM": "xterm"}, which=lambda _: None)
    assert done.ok and written == ["\x1b]52;c;" + base64.b64encode("héllo".encode()).decode() + "\x07"]
    ran: list[tuple[list[str], bytes]] = []

    def run(argv: list[str], input: bytes, **_: Any) -> subprocess.CompletedProcess[bytes]:
        ran.append((argv, input))
        return subprocess.CompletedProcess(argv, 0)

    written.clear()
    done = copy_text("in tmux", written.append, env={"TMUX": "x", "TERM": "tmux"},
                     which=lambda name: f"/bin/{name}", run=run)
    assert done.ok and "tmux" in done.how and ran == [(["/bin/tmux", "load-buffer", "-w", "-"], b"in tmux")]
    assert written == []


def test_copy_says_when_it_cannot() -> None:
    done = copy_text("x", None, env={}, which=lambda _: None)
    assert not done.ok and "Nothing was copied" in done.note


@pytest.mark.anyio
async def test_the_copy_command(tmp_path: Path) -> None:
    rt = runtime(tmp_path, ["Here:\n```sh\nls -la\n```\nand\n```\necho \x1b[2J\n```"])
    commands = default_commands()
    assert (await commands.run(rt, "/copy")).error  # nothing yet
    async for _ in rt.reply("show me"):
        pass
    whole = await commands.run(rt, "/copy")
    assert whole.action == "copy" and whole.data.startswith("Here:")
    second = await commands.run(rt, "/copy 2")
    assert second.data == "echo ␛[2J"  # a control in a code block cannot reach the clipboard
    bad = await commands.run(rt, "/copy 3")
    assert bad.error and "it has 2" in bad.text


# -- prompt history -----------------------------------------------------------------------


def test_history_is_private_redacted_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "d" / "prompt-history.jsonl"
    history = PromptHistory(path, Secrets())
    history.add("first prompt")
    history.add(f"my key {SECRET}")
    history.add(f"my key {SECRET}")
    assert path.stat().st_mode & 0o777 == 0o600
    assert SECRET not in path.read_text()
    again = PromptHistory(path)
    assert again.entries() == ["first prompt", "my key [REDACTED]"]
    assert again.search("KEY") == ["my key [REDACTED]"] and again.search("first pr") == ["first prompt"]
    with path.open("ab") as f:
        f.write(b"garbage\n")
    for i in range(2 * MAX_ENTRIES + 5):
        again.add(f"p{i}")
    assert len(PromptHistory(path).entries()) == MAX_ENTRIES
    assert len(path.read_text().splitlines()) <= 2 * MAX_ENTRIES
    with path.open("a") as f:  # as an older version might have left it
        f.write(json.dumps({"text": f"old {SECRET}"}) + "\n")
    assert PromptHistory(path, Secrets()).entries()[-1] == "old [REDACTED]"
    assert SECRET not in path.read_text()


# -- custom commands ----------------------------------------------------------------------


def test_parse_front_matter_and_arguments() -> None:
    text = b"---\ndescription: Review the diff\n---\nLook at $ARGUMENTS closely.\n"
    cmd = parse("review", text, "user", "f")
    assert not isinstance(cmd, str)
    assert cmd.description == "Review the diff" and cmd.expand("main.py") == "Look at main.py closely."
    plain = parse("note", b"# Take a note\nWrite it down.", "user", "f")
    assert not isinstance(plain, str)
    assert plain.description == "Take a note" and plain.expand("x") == "# Take a note\nWrite it down.\n\nx"
    assert isinstance(parse("bad name", b"x", "user", "f"), str)
    assert isinstance(parse("empty", b"  \n", "user", "f"), str)


@pytest.mark.anyio
async def test_custom_commands_user_and_trusted_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(config))
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "greet.md").write_text("Say hello to $ARGUMENTS.")
    (config / "commands" / "rewind.md").write_text("A file cannot take a built-in name.")
    ws = tmp_path / "ws"
    (ws / ".agent-shell" / "commands").mkdir(parents=True)
    (ws / ".agent-shell" / "commands" / "deploy.md").write_text("Run the deploy for $ARGUMENTS")
    rt = runtime(ws, [])
    commands = default_commands()
    result = await commands.run(rt, "/greet the team")
    assert result.action == "send" and result.data == "Say hello to the team."
    rewind = await commands.run(rt, "/rewind")
    assert rewind.action != "send"
    refused = await commands.run(rt, "/deploy prod")
    assert refused.error and "Unknown command" in refused.text  # the workspace is not trusted
    from shell.permissions.trust import TrustStore

    TrustStore().decide(rt.workspace_trust().config, True)
    trusted = await commands.run(rt, "/deploy prod")
    assert trusted.action == "send" and trusted.data == "Run the deploy for prod"
    assert "/deploy" in [f"/{n}" for n in commands.names()]
    (ws / ".agent-shell" / "commands" / "deploy.md").write_text("Changed: now it does $ARGUMENTS")
    changed = await commands.run(rt, "/deploy prod")
    assert changed.error  # the file changed since it was trusted: not used until trusted again


# -- exit hint ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_exit_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    rt = runtime(tmp_path, ["ok"])
    assert rt.resume_hint() == ""
    async for _ in rt.reply("hi"):
        pass
    assert rt.session_recorder is not None
    session = rt.session_recorder.session_id
    await rt.aclose()
    assert rt.resume_hint() == f"Session {session} saved. Resume it with: agent-shell --resume {session}"
    assert json.dumps(rt.resume_hint())
