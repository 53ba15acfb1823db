"""Benchmark: findings J9's hostile workspace end to end (a sandboxed command makes a
2,047-level folder, a symlink loop and 30,000 files; then glob, grep, list_dir and a
second command), headless and in the TUI.

``--headless``: ``agent-shell -p`` in a child process (as the finding ran it:
``--permission-mode auto --approve never --no-session --trust-workspace``), the
wall time of the whole run and of each tool call. ``--tui``: the same script in the
app (``run_test``, 120x40, sandboxed as in auto): the whole run, the longest loop
step (a 10 ms ticker's worst lateness: how long a key would wait), and Esc pressed
while the first command's aftermath (the checks and the rewind capture) runs: Esc to
idle. ``--root DIR``: another checkout (``git archive`` of main before a change), so
both can be measured in one run. Needs bubblewrap (the sandbox); each run makes the
tree again in a fresh temporary folder.

    python benchmarks/hostile_repo.py [--headless] [--tui] [--root DIR] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE = """import os
base = os.getcwd()
os.mkdir('d'); os.chdir('d')
for i in range(3000):
    try:
        os.mkdir('x'); os.chdir('x')
    except OSError:
        break
open('f.txt','w').write('needle')
os.chdir(base)
os.symlink('.', 'loop')
os.symlink('..', 'd/up')
os.mkdir('m')
for i in range(30000): open('m/many_%d.txt'%i,'w').write('needle')
print("made")
"""
SCRIPT = [
    {"text": "r", "tool_calls": [{"name": "run_shell", "args": {"command": "python3 mk.py"}}]},
    {"text": "g", "tool_calls": [
        {"name": "glob", "args": {"pattern": "**/f.txt"}},
        {"name": "grep", "args": {"pattern": "needle", "path": "d"}},
        {"name": "list_dir", "args": {"path": "loop/loop/loop/d"}},
        {"name": "run_shell", "args": {"command": "echo second"}}]},
    "done",
]


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A temporary folder, removed by ``rm -rf`` (``shutil`` recurses once per level)."""
    top = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        yield top
    finally:
        subprocess.run(["rm", "-rf", str(top)], check=False)


def workspace(top: Path) -> Path:
    ws = top / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "mk.py").write_text(MAKE)
    (top / "script.json").write_text(json.dumps(SCRIPT))
    (top / "home").mkdir()
    return ws


def env_for(top: Path, root: Path) -> dict[str, str]:
    home = top / "home"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), XDG_STATE_HOME=str(home / ".local/state"),
               XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(root))
    return env


def headless(root: Path) -> str:
    with scratch() as top:
        ws = workspace(top)
        command = [sys.executable, "-c", "from shell.cli import run; run()", "-p", "go",
                   "--model", f"scripted:{top / 'script.json'}", "--permission-mode", "auto",
                   "--approve", "never", "--output-format", "jsonl", "--no-session", "--trust-workspace"]
        t0 = time.perf_counter()
        done = subprocess.run(command, cwd=ws, env=env_for(top, root), capture_output=True, text=True,
                              timeout=1800)
        wall = time.perf_counter() - t0
        calls = []
        for line in done.stdout.splitlines():
            event = json.loads(line)
            if event["type"] == "ToolExecutionEnd":
                calls.append(f"{event['call_id'][5:]} {event['duration_s']:.1f}")
        return f"headless {wall:6.1f} s  (calls, s: {', '.join(calls)})  rc {done.returncode}"


async def tui(root: Path, top: Path, ws: Path, esc: bool) -> str:
    from shell.config import Settings
    from shell.providers.registry import load_scripted
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tui.app import AgentShellApp
    from shell.tui.screens.approval import ApprovalScreen

    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), record=False, permission_mode="auto", trust_workspace=True),
        settings=Settings(path=top / "none.toml"), model=load_scripted(str(top / "script.json")))
    app = AgentShellApp(runtime=runtime)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        worst = 0.0
        last = time.perf_counter()

        async def ticker() -> None:
            nonlocal worst, last
            last = time.perf_counter()  # not when defined: the wait for start-up is no loop step
            while True:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                worst, last = max(worst, now - last - 0.01), now

        while not app.is_attached or getattr(app, "main", None) is None:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        await asyncio.sleep(2.0)  # start-up and its warm-up done
        t0 = time.perf_counter()
        tick = asyncio.ensure_future(ticker())
        app.start_reply("go")
        esc_s = None
        if esc:
            while not (ws / "m" / "many_29999.txt").exists() and time.perf_counter() - t0 < 900:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)  # the command printed "made"; its aftermath runs
            t1 = time.perf_counter()
            await pilot.press("escape")
            while app.busy and time.perf_counter() - t1 < 900:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
            esc_s = time.perf_counter() - t1
        await asyncio.sleep(0.05)
        asked = 0
        while app.busy and time.perf_counter() - t0 < 1800:
            if isinstance(app.screen, ApprovalScreen):  # auto asks when the secret search was cut
                asked += 1
                await asyncio.sleep(2.5)  # past the dialog's typing guard
                await pilot.press("y")
            await asyncio.sleep(0.02)
        wall = time.perf_counter() - t0
        tick.cancel()
    what = f"Esc->idle {esc_s:5.2f} s" if esc_s is not None else f"whole run {wall:6.1f} s, {asked} asked"
    return f"TUI {what}  longest loop step {worst * 1000:6.0f} ms"


def tui_run(root: Path, esc: bool) -> str:
    with scratch() as top:
        ws = workspace(top)
        saved = dict(os.environ)
        os.environ.update(env_for(top, root))
        cwd = os.getcwd()
        os.chdir(ws)
        try:
            return asyncio.run(tui(root, top, ws, esc))
        finally:
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--tui", action="store_true")
    parser.add_argument("--esc", action="store_true",
                        help="with --tui: Esc during the first command's aftermath")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    import shell

    print(f"{shell.__file__}, load average {os.getloadavg()[0]:.1f}", flush=True)
    for _ in range(args.rounds):
        if args.headless:
            print(headless(root), f"(load {os.getloadavg()[0]:.1f})", flush=True)
        if args.tui:
            print(tui_run(root, args.esc), f"(load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
