"""What ``agent-shell acp`` writes to its log (stderr, which editors show in a log pane
or save to a file) holds no escape sequence, C1 control, bidi override or lone
surrogate from a client's frame or an agent's text, and a hostile value cannot start a
log line of its own: the SDK logged a notification's method name raw. The error
messages it answers with (which editors show) are one safe line too."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from shell.core.textsafety import SafeLogFormatter

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x9b31m\u202egnp.exe\ud800\r\nagent-shell acp: forged line"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _frames() -> bytes:
    frames: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": 1, "clientCapabilities": {}}},
        {"jsonrpc": "2.0", "method": "note" + HOSTILE, "params": {"x": HOSTILE}},  # logged by the SDK
        {"jsonrpc": "2.0", "id": HOSTILE, "method": "m" + HOSTILE, "params": {HOSTILE: HOSTILE}},
        {"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
         "params": {"sessionId": HOSTILE, "prompt": [{"type": "text", "text": HOSTILE}]}},
        {"jsonrpc": "2.0", "id": 4, "result": {"x": HOSTILE}},  # a reply to nothing we asked
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": HOSTILE}},
    ]
    return "".join(json.dumps(f) + "\n" for f in frames).encode()


def test_hostile_frames_reach_the_log_neutralised(acp_env: dict[str, str], workspace: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shell", "acp", "--model", "demo"], input=_frames(), capture_output=True,
        env=acp_env, cwd=workspace, timeout=60,
    )
    log = done.stderr.decode("utf-8", "surrogateescape")
    assert done.returncode == 0, log
    assert "note" in log, "the unknown notification is logged (else this test checks nothing)"
    assert not RAW.search(log), repr(log)
    assert "␛]0;PWNED␇" in log and "\\u202e" in log and "\\ud800" in log  # shown, not dropped
    forged = [line for line in log.splitlines() if line.startswith("agent-shell acp: forged")]
    assert not forged, log
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers][:1] == [1]  # the protocol went on
    said = [a["error"]["message"] for a in answers if "error" in a]
    assert any(m.startswith("No session ␛]0;PWNED␇") for m in said), said  # echoed, neutralised
    assert not any(RAW.search(m) or "\n" in m for m in said), said  # editors show the message as it is


def _record(msg: str, *args: Any, exc: BaseException | None = None) -> logging.LogRecord:
    info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("agent_shell.acp", logging.WARNING, __file__, 1, msg, args, info)


def test_a_logged_error_with_hostile_text_is_one_safe_line_and_its_traceback_safe() -> None:
    formatter = SafeLogFormatter("agent-shell acp: %(message)s")
    line = formatter.format(_record("session/request_permission failed: %s", RuntimeError(HOSTILE)))
    assert line.count("\n") == 0 and not RAW.search(line)
    assert line.startswith("agent-shell acp: session/request_permission failed: ␛]0;PWNED␇")
    try:
        raise ValueError(HOSTILE)
    except ValueError as error:
        record = _record("listing the models failed", exc=error)
    text = formatter.format(record)
    assert "Traceback" in text and "ValueError: ␛]0;PWNED␇" in text and not RAW.search(text)
    assert record.msg == "listing the models failed" and record.exc_text is None  # others see it as it was
    assert "not formatted" not in formatter.format(_record("%s", 5))
    assert "could not be formatted" in formatter.format(_record("%d", "x"))


def test_an_unknown_notification_is_one_clear_line_not_a_traceback(
    acp_env: dict[str, str], workspace: Path
) -> None:
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": 1, "clientCapabilities": {}}},
        {"jsonrpc": "2.0", "method": "editor/didSomething", "params": {"x": 1}},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "shell", "acp", "--model", "demo"],
        input="".join(json.dumps(f) + "\n" for f in frames).encode(), capture_output=True,
        env=acp_env, cwd=workspace, timeout=60,
    )
    log = done.stderr.decode("utf-8", "surrogateescape")
    assert done.returncode == 0, log
    assert "Traceback" not in log, log
    said = [line for line in log.splitlines() if "editor/didSomething" in line]
    assert len(said) == 1 and "does not know" in said[0], log
    assert [json.loads(line).get("id") for line in done.stdout.splitlines()] == [1]
