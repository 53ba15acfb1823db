"""Startup: time to the line mode's first prompt and the TUI's first frame.

Why: a shell you open many times a day must be ready at once. The floor is what
the UI libraries cost to import, so each figure is set against that in the same
run: ``agent-shell --plain`` against ``from prompt_toolkit import PromptSession``,
``agent-shell`` (the TUI) against ``from textual.app import App``.

Each sample is a fresh subprocess on a pseudo-terminal; the clock stops when the
prompt character (line mode) or the footer's "Quit" (TUI) reaches the terminal.
The offline demo model is chosen explicitly (``--model demo``), so no provider is
probed over the network; config and data directories point at an empty temp dir.

    python benchmarks/startup.py [--runs 9] [--no-write]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import platform
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## startup"


def _env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_"))}
    env.update(
        AGENT_SHELL_CONFIG_DIR=f"{tmp}/config", AGENT_SHELL_DATA_DIR=f"{tmp}/data",
        XDG_DATA_HOME=f"{tmp}/xdg", TERM="xterm-256color", COLUMNS="100", LINES="30",
    )
    return env


def time_import(statement: str, env: dict[str, str]) -> float:
    """Seconds for a fresh interpreter to run ``statement`` and exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True, env=env)
    return time.perf_counter() - start


def time_to_output(
    args: list[str], marker: bytes, env: dict[str, str], cwd: str, timeout: float = 30
) -> float:
    """Seconds from spawning ``args`` on a pty until ``marker`` appears in its output."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        args, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd, start_new_session=True
    )
    os.close(follower)
    seen = b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                seen += chunk
                # Answer a terminal's cursor-position query, as a real terminal would.
                if b"\x1b[6n" in chunk:
                    os.write(leader, b"\x1b[1;1R")
                if marker in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", seen):
                    return time.perf_counter() - start
            if proc.poll() is not None:
                break
        raise RuntimeError(f"{args[-1]}: no {marker!r} within {timeout}s; output: {seen[-400:]!r}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        os.close(leader)


def median(fn: object, runs: int) -> float:
    samples = [fn() for _ in range(runs)]  # type: ignore[operator]
    return statistics.median(samples)


def tui_available() -> bool:
    try:
        import shell.tui.app  # noqa: F401
    except ImportError:
        return False
    return True


def measure(runs: int) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(tmp)
        cli = [sys.executable, "-m", "shell", "--model", "demo", "--no-session"]
        rows.append(("python -c pass", median(lambda: time_import("pass", env), runs)))
        rows.append(("import prompt_toolkit PromptSession",
                     median(lambda: time_import("from prompt_toolkit import PromptSession", env), runs)))
        rows.append(("agent-shell --plain: first prompt",
                     median(lambda: time_to_output([*cli, "--plain"], "\u203a".encode(), env, tmp), runs)))
        if tui_available():
            textual = "from textual.app import App"
            rows.append(("import textual App", median(lambda: time_import(textual, env), runs)))
            rows.append(("agent-shell (TUI): first frame",
                         median(lambda: time_to_output(cli, b"Quit", env, tmp), runs)))
    return rows


def report(rows: list[tuple[str, float]], runs: int) -> str:
    t = dict(rows)
    lines = [
        f"`python benchmarks/startup.py --runs {runs}`: fresh subprocesses on a pseudo-terminal, "
        f"median of {runs}, `--model demo` (no network), empty config. {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}.",
        "",
        "| what | ms | \u00d7 its UI library import |",
        "|---|---:|---:|",
    ]
    base = {"agent-shell --plain: first prompt": "import prompt_toolkit PromptSession",
            "agent-shell (TUI): first frame": "import textual App"}
    for name, seconds in rows:
        ratio = f"{seconds / t[base[name]]:.2f}" if name in base else ""
        lines.append(f"| {name} | {seconds * 1000:.0f} | {ratio} |")
    plain = t["agent-shell --plain: first prompt"] - t["import prompt_toolkit PromptSession"]
    lines += ["", f"The line mode's own cost over importing prompt-toolkit: {plain * 1000:.0f} ms."]
    if "agent-shell (TUI): first frame" in t:
        tui = t["agent-shell (TUI): first frame"] - t["import textual App"]
        lines.append(f"The TUI's own cost over importing Textual, to its first frame: {tui * 1000:.0f} ms.")
    return "\n".join(lines) + "\n"


def write_section(body: str, path: Path = ROOT / "BENCHMARKS.md") -> None:
    """Replace (or add) this script's section, leaving the others as they are."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    section = f"{SECTION}\n\n{body}"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    args = parser.parse_args()
    body = report(measure(args.runs), args.runs)
    print(body)
    if not args.no_write:
        write_section(body)


if __name__ == "__main__":
    main()
