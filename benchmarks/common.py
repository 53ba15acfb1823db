"""Scaffolding several benchmarks share: a clean environment, a fresh process per
measurement, the arrival times of a child's output lines, a prompt typed into the TUI.

(What measures the TUI's stalls is :mod:`benchmarks.tui_common`; this module holds
only the plumbing around a measurement, so that each benchmark script shows what it
measures.)
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, Any


def clean_env(home: Path | str, **extra: str) -> dict[str, str]:
    """This environment without provider keys or agent-shell settings, with the data
    and config dirs under ``home`` (a run never touches the user's own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_"))}
    env.update(AGENT_SHELL_DATA_DIR=f"{home}/data", AGENT_SHELL_CONFIG_DIR=f"{home}/config", **extra)
    return env


def run_script_child(script: str, args: Sequence[str], what: str) -> dict[str, Any]:
    """``python SCRIPT --child ARGS...`` in a fresh home; its last stdout line is JSON
    (the measurement). A failure stops the benchmark with the child's stderr."""
    with tempfile.TemporaryDirectory() as home:
        out = subprocess.run([sys.executable, script, "--child", *args], capture_output=True, text=True,
                             env=clean_env(home), cwd=home, check=False)
    if out.returncode:
        raise SystemExit(f"{what}: failed\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _spawned(fn: Callable[..., Awaitable[dict[str, float]]], args: tuple[Any, ...], out: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_SHELL_DATA_DIR"] = f"{tmp}/data"
        os.environ["AGENT_SHELL_CONFIG_DIR"] = f"{tmp}/config"
        out.put(asyncio.run(fn(*args)))


def in_fresh_process(fn: Callable[..., Awaitable[dict[str, float]]], *args: Any) -> dict[str, float]:
    """``await fn(*args)`` in a newly spawned interpreter with its own data and config
    dirs: nothing warm (imports, caches, the heap) carries over between measurements.
    ``fn`` must be a module-level coroutine function (it is pickled by name)."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_spawned, args=(fn, args, queue))
    proc.start()
    result: dict[str, float] = queue.get()
    proc.join()
    return result


class LineTimes:
    """When each line of a child's stdout arrived (``perf_counter``), read by a thread
    as it comes; only the first 24 bytes of a line are kept (enough for its type)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.arrivals: list[tuple[float, bytes]] = []
        self._thread = threading.Thread(target=self._read, args=(out,), daemon=True)
        self._thread.start()

    def _read(self, out: IO[bytes]) -> None:
        for line in out:
            self.arrivals.append((time.perf_counter(), line[:24]))

    def wait_for(self, marker: bytes, timeout: float = 30.0, poll: float = 0.01) -> None:
        """Until a line holding ``marker`` has come (or ``timeout`` seconds)."""
        deadline = time.perf_counter() + timeout
        while not any(marker in a for _, a in self.arrivals) and time.perf_counter() < deadline:
            time.sleep(poll)

    def join(self) -> None:
        self._thread.join(timeout=10)

    def first(self, marker: bytes) -> float | None:
        """When the first line holding ``marker`` came."""
        return next((t for t, a in self.arrivals if marker in a), None)

    def after(self, moment: float, but: bytes) -> int:
        """Lines that came 20 ms or more after ``moment``, other than ``but``: written
        after it (a line written just before can still be in the pipe for a moment)."""
        return sum(1 for t, a in self.arrivals if t > moment + 0.02 and but not in a)


async def until(condition: Callable[[], bool]) -> None:
    """Poll (the app posts no event a benchmark could wait on for these)."""
    while not condition():  # noqa: ASYNC110
        await asyncio.sleep(0.02)


async def send_prompt(app: Any, keys: Sequence[str] = ("g", "o", "enter")) -> float:
    """Type ``keys`` into the TUI's prompt as a terminal sends them (``pilot.press``
    would wait for idle), then wait for the reply to start and end; returns the wall
    time from the first key to the end."""
    from textual import events

    t0 = time.perf_counter()
    for key in keys:
        app.prompt.post_message(events.Key(key, key if len(key) == 1 else None))
    await until(lambda: app.busy or time.perf_counter() - t0 > 5)
    await until(lambda: not app.busy)
    return time.perf_counter() - t0


def wait_exit(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> float:
    """``perf_counter()`` at the moment ``proc`` exited, to the millisecond.

    ``Popen.wait(timeout=...)`` polls with a sleep that doubles up to 50 ms, so an
    exit that comes a second into the run is seen up to 50 ms late: that, not the
    process, was most of a measured "reply end to exit" (a median of 23-31 ms where
    the process took ~5). A blocking ``wait()`` returns when the kernel reports the
    exit; a timer kills a process that hangs instead."""
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    try:
        proc.wait()
    finally:
        watchdog.cancel()
    return time.perf_counter()
