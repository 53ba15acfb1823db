"""Benchmark: how fast Ctrl+C / Esc ends a reply while the provider floods.

A local OpenAI-compatible server (``tests/flood.py``) streams text deltas as fast
as it can, without pause; a calm one sends a delta every 10 ms (the baseline:
cancelling a reply that streams at a human pace). For each:

* **headless**: ``agent-shell -p … --output-format jsonl`` through the console
  script; after ``--warmup`` seconds of streaming, SIGINT. Measured: SIGINT to the
  ``ReplyEnd`` line on stdout, SIGINT to the process's exit, and how many event
  lines arrived after the cancel (target: none but the ``ReplyEnd``).
* **tui**: the Textual app under its pilot (the real ``ShellRuntime``, the real
  OpenAI provider); after ``--warmup`` seconds, Esc. Measured: Esc to the shell
  being idle again (status ``ready``), the text backlog at the moment of Esc, and
  whether anything was drawn after it.
* **tty**: the console script's TUI in a pseudo-terminal (``benchmarks/terminal_app.py``),
  as the user runs it: the key reader thread, the driver and the writer thread
  count too. After ``--warmup`` seconds a character is typed (measured: until the
  app writes it, the prompt's echo), then Esc (measured: until the app writes
  "Reply cancelled.", the screen saying the reply ended).

``--warmup 1,5,20`` measures after each of those floods (F9: the wait grew with
how long the flood had run). ``--shape line`` floods with one ~200-character event
per write and never a newline (the tester's server) instead of paragraphs.

Prints each figure, the flood/calm ratio and the ratio to the 500 ms target.

    python benchmarks/cancel_latency.py [--runs 5] [--warmup 1,5,20] [--shape line]
                                        [--parts headless,tui,tty] [--no-calm]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import LineTimes, clean_env, wait_exit  # noqa: E402
from benchmarks.terminal_app import TtyApp  # noqa: E402
from tests.flood import flood_server  # noqa: E402

TARGET_S = 0.5
CHILD_ENV: dict[str, str] = {}
"""More environment for the console script (``--root``: another checkout's code)."""


@dataclass
class Headless:
    to_end: float
    to_exit: float
    after: int
    lines: int


def headless_once(base_url: str, warmup: float, home: Path) -> Headless:
    env = clean_env(home, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench-000000000000000000",
                    OLLAMA_HOST="http://127.0.0.1:9", **CHILD_ENV)
    proc = subprocess.Popen(
        [sys.executable, "-m", "shell", "-p", "write forever", "--model", "openai:flood",
         "--output-format", "jsonl", "--no-session"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, cwd=home,
    )
    assert proc.stdout is not None
    lines = LineTimes(proc.stdout)
    lines.wait_for(b"TextBlockDelta")
    time.sleep(warmup)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    exited = wait_exit(proc)
    lines.join()
    end = lines.first(b'"ReplyEnd"') or exited
    return Headless(end - sent, exited - sent, lines.after(sent, but=b'"ReplyEnd"'), len(lines.arrivals))


@dataclass
class Tui:
    to_idle: float
    to_handled: float
    backlog: int
    drawn_after: int


async def tui_once(base_url: str, warmup: float, home: Path) -> Tui:
    os.environ.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench-000000000000000000",
                      AGENT_SHELL_DATA_DIR=str(home / "data"), AGENT_SHELL_CONFIG_DIR=str(home / "config"))
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tui.app import AgentShellApp
    from shell.tui.mdsplit import cancel_note
    from shell.tui.widgets.assistant_message import AssistantMessage

    runtime = ShellRuntime.create(RuntimeOptions(model="openai:flood", record=False, cwd=str(home)))
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.start_reply("write forever")
        deadline = time.perf_counter() + 30
        while not app.query(AssistantMessage) and time.perf_counter() < deadline:
            await pilot.pause(0.01)
        await pilot.pause(warmup)
        widget = app.query(AssistantMessage).last()
        renderer = app.renderer
        assert renderer is not None
        at_cancel: dict[str, Any] = {}
        cancel = renderer.cancel

        def record() -> None:  # the moment Esc is handled: what was drawn, what waited
            at_cancel.update(time=time.perf_counter(), backlog=widget.backlog,
                             drawn=len(widget.text) - widget.backlog)
            cancel()

        renderer.cancel = record  # type: ignore[method-assign]
        pressed = time.perf_counter()
        await pilot.press("escape")
        while app.busy and time.perf_counter() < pressed + 120:
            await pilot.pause(0.005)
        idle = time.perf_counter()
        shown = widget.text  # less the note on what was not shown (and a fence it closed)
        note = cancel_note(widget.dropped, widget.received - widget.dropped)
        if widget.dropped and note in shown:
            shown = re.sub(r"\n(`{3,}|~{3,})\n$", "", shown[: shown.rindex(note)])
        shown = shown.rstrip()
        drawn_after = max(0, len(shown) - at_cancel["drawn"])
        await pilot.press("ctrl+q")
    return Tui(idle - pressed, at_cancel["time"] - pressed, at_cancel["backlog"], drawn_after)


@dataclass
class Tty:
    echo: float
    to_notice: float


ECHO = "\u00a4"  # a character neither the flood nor the screen around the prompt holds


def tty_once(base_url: str, warmup: float, home: Path, shape: str = "paragraphs") -> Tty:
    env = clean_env(home, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench-000000000000000000",
                    OLLAMA_HOST="http://127.0.0.1:9", HOME=str(home), **CHILD_ENV)
    app = TtyApp(["--model", "openai:flood"], env, cwd=str(home))  # sessions on, as by default
    try:
        if app.wait_for(b"ready") is None:
            raise SystemExit("tty: the TUI did not get ready in 60 s")
        mark = app.written
        app.type(b"write forever\r")
        streamed = b"flood 0 flood" if shape == "line" else b"flood flood"  # (the status names the model)
        if app.wait_for(streamed, mark) is None:
            raise SystemExit("tty: the reply did not start in 60 s")
        time.sleep(warmup)
        mark = app.written
        typed = app.type(ECHO.encode())
        echoed = app.wait_for(ECHO.encode(), mark)
        time.sleep(0.3)
        mark = app.written
        pressed = app.type(b"\x1b")
        shown = app.wait_for(b"Reply cancelled", mark)
        if echoed is None or shown is None:
            raise SystemExit(f"tty: no {'echo' if echoed is None else 'cancel notice'} in 60 s")
        return Tty(echoed - typed, shown - pressed)
    finally:
        app.close()


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:6.0f} ms (max {max(values) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", default="1.0",
                        help="seconds of streaming before the cancel (a list: 1,5,20)")
    parser.add_argument("--shape", choices=("paragraphs", "line"), default="paragraphs")
    parser.add_argument("--parts", default="headless,tui,tty")
    parser.add_argument("--no-calm", action="store_true", help="the flood only (no calm baseline)")
    parser.add_argument("--root", help="run the console script (headless, tty) of this checkout instead")
    args = parser.parse_args()
    if args.root:
        CHILD_ENV["PYTHONPATH"] = str(Path(args.root).resolve())
    parts = set(args.parts.split(","))
    warmups = [float(w) for w in args.warmup.split(",")]
    if parts & {"headless", "tui"} and len(warmups) == 1:
        report(args, parts, warmups[0])
    else:  # several floods: each part's figures per flood, flood only
        for warmup in warmups:
            report_long(args, parts, warmup)


def report_long(args: argparse.Namespace, parts: set[str], warmup: float) -> None:
    """The flood only, after ``warmup`` seconds, in each part asked for."""
    import anyio

    home = Path(tempfile.mkdtemp(prefix="cancel-bench-"))
    said = f"{warmup:5.1f} s {args.shape} flood:"
    with flood_server(0.0, args.shape) as url:
        if "headless" in parts:
            runs = [headless_once(url, warmup, home) for _ in range(args.runs)]
            print(f"{said} headless SIGINT→ReplyEnd {_ms([r.to_end for r in runs])}, "
                  f"→exit {_ms([r.to_exit for r in runs])}, {sum(r.after for r in runs)} lines after",
                  flush=True)
        if "tui" in parts:
            tuis = [anyio.run(tui_once, url, warmup, home) for _ in range(args.runs)]
            print(f"{said} pilot Esc→idle {_ms([t.to_idle for t in tuis])}, "
                  f"drawn after Esc {sum(t.drawn_after for t in tuis)} chars", flush=True)
        if "tty" in parts:
            ttys = [tty_once(url, warmup, home, args.shape) for _ in range(args.runs)]
            worst = max(t.to_notice for t in ttys)
            print(f"{said} tty Esc→'Reply cancelled' {_ms([t.to_notice for t in ttys])}, "
                  f"typed→echo {_ms([t.echo for t in ttys])}; worst {worst / TARGET_S:.2f}x the target",
                  flush=True)


def report(args: argparse.Namespace, parts: set[str], warmup: float) -> None:
    """Calm and flood after ``warmup`` seconds (headless and pilot; tty too if asked)."""
    import anyio

    home = Path(tempfile.mkdtemp(prefix="cancel-bench-"))
    results: dict[str, dict[str, Any]] = {}
    for name, pause in (("calm", 0.01), ("flood", 0.0)):
        if name == "calm" and args.no_calm:
            continue
        with flood_server(pause, args.shape) as url:
            runs = [headless_once(url, warmup, home) for _ in range(args.runs)]
            tuis = [anyio.run(tui_once, url, warmup, home) for _ in range(args.runs)]
            tty = "tty" in parts
            ttys = [tty_once(url, warmup, home, args.shape) for _ in range(args.runs)] if tty else []
        results[name] = {"headless": runs, "tui": tuis}
        end = statistics.median(r.to_end for r in runs)
        ex = statistics.median(r.to_exit for r in runs)
        idle = statistics.median(t.to_idle for t in tuis)
        print(f"{name:>5}: headless SIGINT→ReplyEnd median {end * 1000:6.0f} ms (max "
              f"{max(r.to_end for r in runs) * 1000:.0f}), →exit {ex * 1000:.0f} ms, "
              f"{sum(r.after for r in runs)} lines after the cancel "
              f"({statistics.median(r.lines for r in runs):.0f} lines streamed per run)")
        handled = statistics.median(t.to_handled for t in tuis)
        print(f"{'':>5}  tui Esc→handled median {handled * 1000:.0f} ms, "
              f"Esc→idle median {idle * 1000:6.0f} ms (max {max(t.to_idle for t in tuis) * 1000:.0f}), "
              f"backlog at Esc median {statistics.median(t.backlog for t in tuis):,.0f} chars, "
              f"drawn after Esc {sum(t.drawn_after for t in tuis)} chars")
        if ttys:
            print(f"{'':>5}  tty Esc→'Reply cancelled' {_ms([t.to_notice for t in ttys])}, "
                  f"typed→echo {_ms([t.echo for t in ttys])}")
    if "calm" not in results:
        return
    for kind, key in (("headless", "to_end"), ("tui", "to_idle")):
        flood = max(getattr(r, key) for r in results["flood"][kind])
        typical = statistics.median(getattr(r, key) for r in results["flood"][kind])
        calm = statistics.median(getattr(r, key) for r in results["calm"][kind])
        print(f"{kind}: worst flood {flood * 1000:.0f} ms = {flood / TARGET_S:.2f}x the 500 ms target; "
              f"flood/calm median ratio {typical / calm:.2f}")


if __name__ == "__main__":
    main()
