"""A message an ``on_reply`` policy refuses (PII's ``block`` of a card number, a
``StopReply``) stays out of the history on purpose, and comes back to the --plain
prompt with the reason shown, as a message too long for the context does (r17).
Before, it was gone from the prompt too: the user had to type it all again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.plain import PROMPT

TYPED = "pay with 4111 1111 1111 1111 please"


@pytest.fixture
def pii_blocks(cli_env: dict[str, str]) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[middleware]\nenabled = ["PII"]\n\n[middleware.PII]\npii_type = "credit_card"\nstrategy = "block"\n',
        encoding="utf-8",
    )


@pytest.mark.usefixtures("pii_blocks")
def test_a_refused_message_is_back_at_the_plain_prompt_with_the_reason(
    terminal: Any, script: Callable[[list[Any]], str]
) -> None:
    t = terminal("--plain", "--no-session", "--model", script(["Never."]), columns=200)
    t.expect(PROMPT.strip())
    t.send(TYPED + "\r")
    t.expect("back at the prompt")
    t.expect("back at the prompt")
    t.expect(f" {PROMPT.strip()} {TYPED}")  # drawn again after the mode's label: in the prompt, to edit
    t.send("\x01\x0b")  # Ctrl+A Ctrl+K: the user clears it (it was there to clear)
    t.send("/quit\r")
    assert t.close() == 0
    assert "Detected 1 credit_card value in" in t.text and "blocked" in t.text
    assert "Never." not in t.text  # the model never saw it


@pytest.mark.usefixtures("pii_blocks")
def test_a_session_whose_only_message_was_refused_is_not_listed(
    run_cli: Any, cli_env: dict[str, str], script: Callable[[list[Any]], str]
) -> None:
    """R11: /sessions, `agent-shell sessions` and --resume listed it as "(no messages)
    0 msgs", a row with nothing to resume. Its file stays (README: Sessions)."""
    refused = run_cli("-p", TYPED, "--model", script(["Never."]))
    assert "blocked" in refused.stderr
    sessions = Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions"
    assert len(list(sessions.glob("*.jsonl"))) == 1  # the empty session's file
    kept = run_cli("-p", "hello", "--model", script(["Hello."]))
    assert kept.returncode == 0, kept.stderr
    listed = run_cli("sessions")
    assert listed.returncode == 0, listed.stderr
    assert "hello" in listed.stdout and "1." in listed.stdout
    assert "(no messages)" not in listed.stdout and "2." not in listed.stdout
    asked = run_cli("--resume", "-p", "again", "--model", script(["Again."]))  # no terminal: it lists them
    assert "(no messages)" not in asked.stderr and "hello" in asked.stderr
