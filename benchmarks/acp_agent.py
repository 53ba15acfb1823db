"""``agent-shell acp``: how soon an editor can talk, see an answer, and stop one.

Why: an editor starts the agent when the user opens its panel, and the user
watches the first words and presses stop. The floor is the protocol SDK itself:
importing its schema is most of a start, so the start is set against
``python -c "import acp"`` measured in the same run.

Each sample is a fresh ``agent-shell acp`` driven by the SDK's client over pipes,
with the scripted model (no network), an empty config and data directory:
- *initialize*: process start to the ``initialize`` response;
- *session/new*: the request to its response (runtime, middleware, tools);
- *first chunk*: ``session/prompt`` sent to the first ``agent_message_chunk``;
- *cancel*: ``session/cancel`` sent, while a command runs, to the prompt's response.
Probes take turns (round-robin) after a warm-up run, so a busy moment on the
shared machine slows all of them alike; medians are reported.

    python benchmarks/acp_agent.py [--runs 9] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## acp"


class Client:
    """The least an editor does: keep the updates, allow what is asked."""

    def __init__(self) -> None:
        self.first_chunk = asyncio.Event()
        self.running = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", "")
        if kind == "agent_message_chunk":
            self.first_chunk.set()
        if kind == "tool_call_update" and getattr(update, "status", None) == "in_progress":
            self.running.set()

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

    def on_connect(self, conn: Any) -> None:
        pass


async def one_run(env: dict[str, str], script: str, workspace: str) -> dict[str, float]:
    from acp import PROTOCOL_VERSION, spawn_agent_process
    from acp.schema import ClientCapabilities, TextContentBlock

    client = Client()
    started = time.perf_counter()
    command = [sys.executable, "-m", "shell", "acp", "--model", script, "--permission-mode", "bypass"]
    async with spawn_agent_process(client, *command, env=env, cwd=workspace) as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities())
        initialized = time.perf_counter()
        session = await conn.new_session(cwd=workspace, mcp_servers=[])
        created = time.perf_counter()
        words = [TextContentBlock(type="text", text="hello")]
        asked = time.perf_counter()
        answer = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=words))
        await client.first_chunk.wait()
        first = time.perf_counter()
        await answer
        slow = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=words))
        await client.running.wait()
        await asyncio.sleep(0.1)
        stop = time.perf_counter()
        await conn.cancel(session_id=session.session_id)
        await slow
        stopped = time.perf_counter()
        process.terminate()
    return {
        "initialize": initialized - started,
        "session/new": created - initialized,
        "first chunk": first - asked,
        "cancel": stopped - stop,
    }


def import_floor() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import acp"], check=True)
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_"))
        }
        env.update(
            AGENT_SHELL_CONFIG_DIR=f"{tmp}/config",
            AGENT_SHELL_DATA_DIR=f"{tmp}/data",
            OLLAMA_HOST="http://127.0.0.1:9",
            PYTHONPATH=str(ROOT),
        )
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        turns = [
            "The first words of an answer.",
            {"tool_calls": [{"name": "run_shell", "args": {"command": "sleep 30"}}]},
        ]
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(turns))
        spec = f"scripted:{script}"
        import_floor()
        asyncio.run(one_run(env, spec, str(workspace)))  # warm-up: bytecode caches
        samples: dict[str, list[float]] = {"import acp": []}
        for _ in range(runs):
            samples["import acp"].append(import_floor())
            for key, value in asyncio.run(one_run(env, spec, str(workspace))).items():
                samples.setdefault(key, []).append(value)
    return samples


def report(samples: dict[str, list[float]], runs: int) -> str:
    ms = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    floor = ms["import acp"]
    lines = [
        f"`python benchmarks/acp_agent.py --runs {runs}`: fresh `agent-shell acp` processes driven by "
        f"the SDK's client over pipes, median of {runs} taken round-robin after a warm-up run, "
        f"scripted model, empty config. {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}.",
        "",
        "| what | ms | x `import acp` |",
        "|---|---:|---:|",
        f'| python -c "import acp" (the SDK and its schema) | {floor:.0f} |  |',
        f"| start to the `initialize` response | {ms['initialize']:.0f} | {ms['initialize'] / floor:.2f} |",
        f"| `session/new` | {ms['session/new']:.0f} |  |",
        f"| `session/prompt` to the first `agent_message_chunk` | {ms['first chunk']:.0f} |  |",
        f"| `session/cancel` (a command running) to `stopReason: cancelled` | {ms['cancel']:.0f} |  |",
        "",
        "The TUI, the line mode and `--help` never import the SDK (`tests/acp/test_acp_agent.py::"
        "test_the_sdk_loads_only_for_acp`).",
    ]
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
    path.write_text(text, encoding="utf-8")


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
