"""Startup: time to the line mode's first prompt and the TUI's first frame.

Why: a shell you open many times a day must be ready at once. The floor is what
the UI libraries cost to import, so each figure is set against that in the same
run: ``agent-shell --plain`` against ``from prompt_toolkit import PromptSession``,
``agent-shell`` (the TUI) against ``from textual.app import App``.

Each sample is a fresh subprocess on a pseudo-terminal; the clock stops when the
prompt character (line mode) or the footer's "Quit" (TUI) reaches the terminal.
One warm-up run of each writes the bytecode cache, then the probes take turns
(round-robin), so a busy moment on a shared machine slows all of them alike.
The offline demo model is chosen explicitly (``--model demo``), so no provider is
probed over the network; config and data directories point at an empty temp dir.

    python benchmarks/startup.py [--runs 9] [--no-write] [--against LABEL=DIR]

``--against`` runs the shell's own probes a second time from another checkout
(``PYTHONPATH=DIR``, e.g. a ``git worktree`` of main), interleaved with the rest,
so a change is measured against its baseline in one run.
"""

from __future__ import annotations

import argparse
import contextlib
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
Sample = tuple[float, float]
"""Wall-clock seconds and CPU seconds (all threads) of one probe."""
SECTION = "## startup"


BARE_APP = """
from textual.app import App
from textual.binding import Binding
from textual.widgets import Footer, TextArea
class Bare(App):
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]
    def compose(self):
        yield TextArea()
        yield Footer()
Bare().run()
"""
"""The floor for a full-screen app with a prompt: Textual's own TextArea and Footer."""


def _env(tmp: str) -> dict[str, str]:
    """A user's environment: no provider keys, empty config, and bytecode caching
    on (``PYTHONDONTWRITEBYTECODE`` would make every start compile our modules from
    source, which no installed shell does after its first start)."""
    dropped = ("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.update(
        AGENT_SHELL_CONFIG_DIR=f"{tmp}/config", AGENT_SHELL_DATA_DIR=f"{tmp}/data",
        XDG_DATA_HOME=f"{tmp}/xdg", TERM="xterm-256color", COLUMNS="100", LINES="30",
    )
    return env


def time_import(statement: str, env: dict[str, str]) -> Sample:
    """Seconds for a fresh interpreter to run ``statement`` and exit: wall clock,
    and the CPU time of all its threads."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", statement], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{statement!r} failed with exit code {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _cpu_seconds(pid: int) -> float:
    """CPU time of every live thread of ``pid`` so far (/proc schedstat, in ns)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def time_to_output(
    args: list[str], marker: bytes, env: dict[str, str], cwd: str, timeout: float = 30
) -> Sample:
    """Seconds from spawning ``args`` on a pty until ``marker`` appears in its output,
    and the CPU time its threads had used by then."""
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
                    return time.perf_counter() - start, _cpu_seconds(proc.pid)
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


def interleaved_medians(probes: dict[str, Callable[[], Sample]], runs: int) -> list[tuple[str, Sample]]:
    """Median seconds of each probe, sampled round-robin so that a slow moment of a
    shared machine falls on every probe alike (the ratios are what we report)."""
    for probe in probes.values():
        probe()  # warm-up: bytecode written, files in the page cache
    samples: dict[str, list[Sample]] = {name: [] for name in probes}
    for _ in range(runs):
        for name, probe in probes.items():
            samples[name].append(probe())
    return [
        (name, (statistics.median(w for w, _ in got), statistics.median(c for _, c in got)))
        for name, got in samples.items()
    ]


def tui_available() -> bool:
    try:
        import shell.tui.app  # noqa: F401
    except ImportError:
        return False
    return True


SHELL_PROBES = (
    "agent-shell --plain: first prompt",
    "agent-shell --plain: ready (banner shown)",
    "agent-shell (TUI): first frame",
    "agent-shell (TUI): ready (welcome shown)",
)


def measure(runs: int, against: tuple[str, str] | None = None) -> list[tuple[str, Sample]]:
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(tmp)
        probes = _probes(env, tmp)
        if against is not None:
            label, directory = against
            other = _probes({**env, "PYTHONPATH": str(Path(directory).resolve())}, tmp)
            probes.update({f"{name} [{label}]": other[name] for name in SHELL_PROBES if name in other})
        return interleaved_medians(probes, runs)


def _probes(env: dict[str, str], tmp: str) -> dict[str, Callable[[], Sample]]:
    """The probes, each a fresh process in ``env`` (the ``PYTHONPATH`` picks the checkout)."""
    cli = [sys.executable, "-m", "shell", "--model", "demo", "--no-session"]
    probes: dict[str, Callable[[], Sample]] = {
        "python -c pass": lambda: time_import("pass", env),
        "import prompt_toolkit PromptSession":
            lambda: time_import("from prompt_toolkit import PromptSession", env),
        "agent-shell --plain: first prompt":
            lambda: time_to_output([*cli, "--plain"], "\u203a".encode(), env, tmp),
        "agent-shell --plain: ready (banner shown)":
            lambda: time_to_output([*cli, "--plain"], b"permissions:", env, tmp),
    }
    if tui_available():
        probes["import textual App"] = lambda: time_import("from textual.app import App", env)
        probes["bare Textual app (TextArea + Footer): first frame"] = (
            lambda: time_to_output([sys.executable, "-c", BARE_APP], b"Quit", env, tmp)
        )
        probes["agent-shell (TUI): first frame"] = lambda: time_to_output(cli, b"Quit", env, tmp)
        probes["agent-shell (TUI): ready (welcome shown)"] = (
            lambda: time_to_output(cli, b"Welcome", env, tmp)
        )
    return probes


def report(rows: list[tuple[str, Sample]], runs: int) -> str:
    t = {name: wall for name, (wall, _) in rows}
    cpu = {name: spent for name, (_, spent) in rows}
    lines = [
        f"`python benchmarks/startup.py --runs {runs}`: fresh subprocesses on a pseudo-terminal, "
        f"median of {runs} taken round-robin after a warm-up run, `--model demo` (no network), "
        f"empty config. {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}. CPU: what all the process's "
        "threads had used when the marker reached the terminal (a shared machine's load stretches "
        "the wall clock far more than this).",
        "",
        "| what | ms | \u00d7 its UI library import | CPU ms | CPU \u00d7 |",
        "|---|---:|---:|---:|---:|",
    ]
    base = {"agent-shell --plain: first prompt": "import prompt_toolkit PromptSession",
            "agent-shell --plain: ready (banner shown)": "import prompt_toolkit PromptSession",
            "bare Textual app (TextArea + Footer): first frame": "import textual App",
            "agent-shell (TUI): first frame": "import textual App",
            "agent-shell (TUI): ready (welcome shown)": "import textual App"}
    for name, (seconds, spent) in rows:
        own = name.split(" [")[0]
        ratio = f"{seconds / t[base[own]]:.2f}" if own in base else ""
        cpu_ratio = f"{spent / cpu[base[own]]:.2f}" if own in base else ""
        lines.append(f"| {name} | {seconds * 1000:.0f} | {ratio} | {spent * 1000:.0f} | {cpu_ratio} |")
    plain = t["agent-shell --plain: first prompt"] - t["import prompt_toolkit PromptSession"]
    lines += [
        "",
        f"The line mode's own cost over importing prompt-toolkit to its first prompt: {plain * 1000:.0f} ms.",
        "The line mode's prompt comes before the runtime exists too (`shell/plain_start.py`): keys typed "
        "at once stay in it, and Enter sends once the runtime is built (the banner is shown then).",
    ]
    if "agent-shell (TUI): first frame" in t:
        tui = t["agent-shell (TUI): first frame"] - t["import textual App"]
        lines.append(f"The TUI's own cost over importing Textual, to its first frame: {tui * 1000:.0f} ms.")
        lines.append(
            "The first frame comes before the runtime exists: the prompt takes input at once, and "
            "what is typed before the shell is ready (the welcome is shown) is queued and sent then."
        )
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
    parser.add_argument("--against", metavar="LABEL=DIR",
                        help="also run the shell's probes from the checkout DIR (PYTHONPATH), labelled LABEL")
    args = parser.parse_args()
    against: tuple[str, str] | None = None
    if args.against:
        label, _, directory = args.against.partition("=")
        if not (label and directory):
            parser.error("--against takes LABEL=DIR")
        against = (label, directory)
    body = report(measure(args.runs, against), args.runs)
    print(body)
    if not args.no_write:
        write_section(body)


if __name__ == "__main__":
    main()
