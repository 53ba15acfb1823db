"""TERM or HUP while ``-p`` starts up ends it as a reply cancelled before its first
word (finding B5): ``timeout 3 agent-shell -p … --output-format json`` killed while
it read stdin, the config, the sandbox check or MCP start-up exited 143 with stdout
and stderr empty, so a CI script's ``jq`` got no object and no reason."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.headless import run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (Linux's SigCgt mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(mask, 16) >> (signum - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the signal mask from /proc")
@pytest.mark.parametrize(("signum", "code", "output_format"), [
    (signal.SIGTERM, 143, "json"), (signal.SIGHUP, 129, "json"), (signal.SIGTERM, 143, "jsonl"),
])
def test_a_run_ended_while_it_starts_prints_the_cancelled_result(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str],
    signum: int, code: int, output_format: str,
) -> None:
    """Held at start-up by a stdin that stays open (a slow producer in a pipe): the
    signal comes before any reply could begin."""
    model = script(["never sent"])
    proc = subprocess.Popen(
        [sys.executable, "-m", "shell", "--model", model, "-p", "hello", "--output-format", output_format],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=workspace, env=cli_env, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60  # a bound on a hang, not a measurement
        while not catches(proc.pid, signum) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code
    last = json.loads(out.splitlines()[-1])
    if output_format == "json":
        assert last["answer"] == "" and last["stop_reason"] == "cancelled" and last["messages"] == []
    else:
        assert last["type"] == "ReplyEnd" and last["stop_reason"] == "cancelled"
    assert f"reply cancelled ({signal.Signals(signum).name})" in err
    assert "Traceback" not in err


@pytest.mark.anyio
async def test_term_while_the_message_is_composed_sends_nothing(tmp_path: Path) -> None:
    """The reply's own handling is in place from the start of the run (its @ files
    are read before the request): the message is not sent after a TERM there."""
    model = ScriptedModel(["should not be sent"])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path), record=False),
                                  settings=Settings(path=tmp_path / "none.toml"), model=model)
    compose = runtime.compose

    async def compose_then_term(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)
        return await compose(*args, **kwargs)

    runtime.compose = compose_then_term  # type: ignore[method-assign]
    seen: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        out, err = io.StringIO(), io.StringIO()
        code = await run_headless(runtime, "hello", output_format="json", approve="never", out=out, err=err)
    finally:
        signal.signal(signal.SIGTERM, before)
    result = json.loads(out.getvalue())
    assert result["stop_reason"] == "cancelled" and result["answer"] == ""
    assert code == 143 and not seen  # the run's handler took it, not the one before
    assert "reply cancelled (SIGTERM)" in err.getvalue()
