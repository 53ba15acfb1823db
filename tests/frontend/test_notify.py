"""Notifications while the terminal is unfocused: the sequence the terminal takes, tmux
passthrough, notify-send, hostile text made safe, the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.frontend.notify import Notifier, NotifySettings, clean, detect_method, sequence, tmux_passthrough


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


def test_markup_in_a_desktop_body_is_text_not_a_link_or_an_image() -> None:
    """A freedesktop body is markup: the model's link would be live, its image drawn."""
    n, written, spawned = notifier({"VTE_VERSION": "1", "DISPLAY": ":0"})
    n.focused = False
    words = 'see <a href="https://evil.example/x">docs</a> <img src="file:///etc/x"/> & more'
    n.notify("reply", "reply <b>finished</b>", words)
    [[*_, title, body]] = spawned
    assert body == ('see &lt;a href="https://evil.example/x"&gt;docs&lt;/a&gt; '
                    '&lt;img src="file:///etc/x"/&gt; &amp; more')
    assert title == "reply <b>finished</b>"  # the summary is plain text, shown as it is
    assert written == [f"\x1b]777;notify;reply <b>finished</b>;{words}\x07"]  # a terminal shows text
    n.notify("reply", "t", "&" * 400)
    assert spawned[-1][-1] == "&amp;" * 159 + "…"  # cut before escaping: no half entity


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


KEY = "sk-proj-Abc123def456ghi789jkl012mno345pqr678stu901vwx"
TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def test_a_secret_never_reaches_a_notification() -> None:
    """A notification outlives the screen (the desktop's history, the lock screen) and
    fires when the user is away (L13): the reply's first line is redacted whole."""
    body = clean(f"Your key is {KEY}, keep it safe", 200)
    assert KEY not in body and KEY[:12] not in body and "keep it safe" in body


@pytest.mark.anyio
async def test_an_approval_notice_redacts_the_arguments_before_cutting_them_short() -> None:
    """Cut at 100 characters first, a token was left half: too short to be recognised,
    long enough to be most of it."""
    from types import SimpleNamespace

    from shell.agent import ApprovalRequest
    from shell.agent import events as ev
    from shell.core.messages import ToolCallBlock
    from shell.tui.flow import Flow

    sent: list[tuple[str, str, str]] = []
    flow = Flow(SimpleNamespace(app_focus=False))  # type: ignore[arg-type]
    flow.notify = lambda kind, title, body: sent.append((kind, title, body)) or True  # type: ignore[method-assign]
    command = "echo " + "x" * 30 + f" && curl -H 'Authorization: Bearer {TOKEN}' https://api.github.com"
    call = ToolCallBlock("c1", "run_shell", {"command": command})
    request = ApprovalRequest(call=call, tool=None, args={"command": command},  # type: ignore[arg-type]
                              allowed_decisions=("approve",), description="")
    await flow.on_event(ev.ApprovalRequested(call_id="c1", request=request))
    [(kind, _, body)] = sent
    assert kind == "approval" and TOKEN[:12] not in body, body


@pytest.mark.anyio
@pytest.mark.parametrize("command", [
    "sshpass -p Zq8vT3kLw9pR2mXy ssh deploy@web01", "curl -u admin:Zq8vT3kLw9pR2mXy https://api.example.com",
    "redis-cli -h cache01 -a Zq8vT3kLw9pR2mXy ping", "htpasswd -b /etc/nginx/.htpasswd bob Zq8vT3kLw9pR2mXy",
    "printf 'machine h login bob password Zq8vT3kLw9pR2mXy' > ~/.netrc",
])
async def test_an_approval_notice_hides_a_password_a_command_line_carries(command: str) -> None:
    """The command lines verify7 found shown whole in a notification (sshpass, curl -u,
    redis-cli -a, htpasswd -b, a .netrc line): the password is said as [REDACTED]."""
    from types import SimpleNamespace

    from shell.agent import ApprovalRequest
    from shell.agent import events as ev
    from shell.core.messages import ToolCallBlock
    from shell.tui.flow import Flow

    sent: list[tuple[str, str, str]] = []
    flow = Flow(SimpleNamespace(app_focus=False))  # type: ignore[arg-type]
    flow.notify = lambda kind, title, body: sent.append((kind, title, body)) or True  # type: ignore[method-assign]
    call = ToolCallBlock("c1", "run_shell", {"command": command})
    request = ApprovalRequest(call=call, tool=None, args={"command": command},  # type: ignore[arg-type]
                              allowed_decisions=("approve",), description="")
    await flow.on_event(ev.ApprovalRequested(call_id="c1", request=request))
    [(kind, _, body)] = sent
    assert kind == "approval" and "Zq8vT3kL" not in body and "[REDACTED]" in body, body
