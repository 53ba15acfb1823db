"""SIGKILL a real ``agent-shell -p`` at random moments; the session keeps what it printed.

The headless mode prints every event as a JSON line (``--output-format jsonl``)
after the runtime's recorder has seen it. Killed at any point, the session file
must load into a valid history holding every prompt, finished text block and
tool result that had been printed; a reply printed as ended is complete; and
``--continue`` picks the session up again (the dead process's lock is gone).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from shell.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from shell.sessions import INTERRUPTED_RESULT, load_session
from tests.helpers import history_is_valid

TRIALS = 50
BATCH = 10
CONTINUE_EVERY = 5
REPO = Path(__file__).parents[2]


def script(rng: random.Random) -> list[Any]:
    turns: list[Any] = []
    for r in range(rng.randint(2, 4)):
        calls = [
            {"name": "run_shell", "args": {"command": f"sleep {rng.randint(2, 12) / 100}; echo r{r}c{n}"}}
            for n in range(rng.randint(1, 2))
        ]
        turns.append({"text": f"Round {r}: " + "words " * rng.randint(1, 30), "tool_calls": calls})
    turns.append("The end: " + "done " * rng.randint(1, 20))
    return turns


def env_for(trial_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["AGENT_SHELL_DATA_DIR"] = str(trial_dir / "data")
    env["AGENT_SHELL_CONFIG_DIR"] = str(trial_dir / "config")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AGENT_SHELL_MODEL"):
        env.pop(key, None)
    return env


def agent_shell(trial_dir: Path, prompt: str, model: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "shell", "-p", prompt, "--model", f"scripted:{model}", "--approve", "always",
         "--output-format", "jsonl", *extra],
        cwd=trial_dir, env=env_for(trial_dir), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )


def kill_later(proc: subprocess.Popen[bytes], delay: float, outputs: dict[int, bytes], key: int) -> None:
    """SIGKILL ``delay`` seconds after the reply started (before it, if negative)."""
    assert proc.stdout is not None
    if delay < 0:
        time.sleep(-delay * 10)  # somewhere in start-up
        first = b""
    else:
        first = proc.stdout.readline()  # the ReplyStart line: the reply is under way
        time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    outputs[key] = first + proc.stdout.read()
    proc.wait(timeout=30)


def printed(raw: bytes) -> list[dict[str, Any]]:
    """Events whose line was printed completely before the kill."""
    return [json.loads(line) for line in raw.split(b"\n")[:-1] if line.strip()]


def session_file(trial_dir: Path) -> Path | None:
    found = sorted((trial_dir / "data" / "sessions").glob("*.jsonl"))
    assert len(found) <= 1, found
    return found[0] if found else None


def check(trial_dir: Path, events: list[dict[str, Any]]) -> bool:
    """Assert the file holds what was printed; True if the kill landed mid-reply."""
    where = str(trial_dir)
    path = session_file(trial_dir)
    if path is None:
        assert not events, f"{where}: events printed but no session file"
        return False
    loaded = load_session(path)
    assert history_is_valid(loaded.messages), where
    kinds = [e["type"] for e in events]
    users = [m for m in loaded.messages if isinstance(m, UserMessage)]
    if "ReplyStart" in kinds:
        assert [u.text for u in users] == ["go"], where
    text = "".join(m.text for m in loaded.messages if isinstance(m, AssistantMessage))
    ended = "".join(e["text"] for e in events if e["type"] == "TextBlockEnd")
    assert text.startswith(ended), f"{where}: printed text lost\nfile: {text!r}\nprinted: {ended!r}"
    results = {m.call_id: m.text for m in loaded.messages if isinstance(m, ToolResultMessage)}
    for e in events:
        if e["type"] == "ToolExecutionEnd":
            assert results.get(e["call_id"]) == e["result"]["content"], f"{where}: {e['call_id']} lost"
            assert results[e["call_id"]] != INTERRUPTED_RESULT
    if "ReplyEnd" in kinds:
        assert not loaded.interrupted, f"{where}: {loaded.problems}"
        return False
    return True


@pytest.mark.slow
def test_sigkill_agent_shell_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(414)
    mid_reply = resumed = 0
    for first in range(0, TRIALS, BATCH):
        procs: dict[int, tuple[Path, subprocess.Popen[bytes]]] = {}
        for t in range(first, min(first + BATCH, TRIALS)):
            trial_dir = tmp_path / f"t{t}"
            trial_dir.mkdir()
            model = trial_dir / "script.json"
            model.write_text(json.dumps(script(rng)))
            procs[t] = (trial_dir, agent_shell(trial_dir, "go", model))
        outputs: dict[int, bytes] = {}
        threads = [
            threading.Thread(target=kill_later, args=(proc, rng.uniform(-0.05, 0.8), outputs, t))
            for t, (_dir, proc) in procs.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        for t, (trial_dir, _proc) in procs.items():
            mid_reply += check(trial_dir, printed(outputs[t]))
        again = {}
        for t, (trial_dir, _proc) in procs.items():
            if t % CONTINUE_EVERY == 0 and session_file(trial_dir) is not None:
                model = trial_dir / "next.json"
                model.write_text(json.dumps(["carrying on"]))
                again[trial_dir] = agent_shell(trial_dir, "next", model, "--continue")
        for trial_dir, proc in again.items():
            out, _ = proc.communicate(timeout=30)
            assert proc.returncode == 0, f"{trial_dir}: --continue failed"
            assert printed(out)[-1]["type"] == "ReplyEnd"
            path = session_file(trial_dir)
            assert path is not None
            loaded = load_session(path)
            assert history_is_valid(loaded.messages) and not loaded.interrupted, loaded.problems
            assert loaded.messages[-1].text == "carrying on"  # type: ignore[union-attr]
            resumed += 1
    print(f"\n{TRIALS} kills of agent-shell -p: {mid_reply} mid-reply, {resumed} resumed (--continue)")
    assert mid_reply >= TRIALS // 4, mid_reply  # most kills landed inside a reply
    assert resumed >= TRIALS // CONTINUE_EVERY // 2
