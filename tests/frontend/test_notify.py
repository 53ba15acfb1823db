"""Notifications while the terminal is unfocused: the sequence the terminal takes, tmux
passthrough, notify-send, hostile text made safe, the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
