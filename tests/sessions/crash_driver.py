"""A process for the SIGKILL test: one slow, tool-using reply, recorded, printed live.

``python -m tests.sessions.crash_driver STORE_DIR SESSION_ID SEED`` prints one JSON
line per event it has shown (flushed at once), the way a front end shows it:
``{"t": seconds since start, "e": kind, ...}``. The test kills it at a random
moment and compares what was printed with what the session file holds.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

import anyio

from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.events import ReplyEnd, ReplyStart, TextBlockDelta, ToolExecutionEnd
from shell.core.tools import tool
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore
from shell.sessions.redact import NO_REDACTION

CHECKPOINT_INTERVAL = 0.2


@tool(read_only=True)
async def work(ms: int, tag: str) -> str:
    """Work for ``ms`` milliseconds."""
    await anyio.sleep(ms / 1000)
    return f"result of {tag} after {ms} ms"


def script(rng: random.Random, reply: int) -> list[Any]:
    turns: list[Any] = []
    for r in range(3):
        words = " ".join(f"r{r}w{i}" for i in range(rng.randint(5, 25)))
        calls = tuple(
            ToolCallBlock(f"c{reply}_{r}_{n}", "work", {"ms": rng.randint(10, 150), "tag": f"t{r}{n}"})
            for n in range(rng.randint(1, 3))
        )
        turns.append(AssistantMessage((TextBlock(words + ". "), *calls)))
    turns.append(" ".join(f"final{i}" for i in range(rng.randint(10, 40))))
    return turns


def show(start: float, kind: str, **data: Any) -> None:
    sys.stdout.write(json.dumps({"t": time.monotonic() - start, "e": kind, **data}) + "\n")
    sys.stdout.flush()


async def main(root: str, session_id: str, seed: int) -> None:
    rng = random.Random(seed)
    agent = Agent(ScriptedModel([]), tools=[work])
    recorder = SessionRecorder(
        SessionStore(root), agent, session_id=session_id, redactor=NO_REDACTION,
        checkpoint_interval=CHECKPOINT_INTERVAL,
    )
    start = time.monotonic()
    show(start, "ready")
    with recorder:
        for n, prompt in enumerate(("first question", "second question")):
            agent.model = ScriptedModel(script(rng, n), delay=0.004, chunk_size=3)
            async for event in recorder.record(agent.reply(prompt)):
                if isinstance(event, ReplyStart):
                    # shown once the recorder has seen the reply start (it writes the
                    # prompt then), as the other events are: printed before that, a
                    # kill in between (a wide window on a loaded machine) "lost" it
                    show(start, "user", text=prompt)
                elif isinstance(event, TextBlockDelta):
                    show(start, "text", text=event.delta)
                elif isinstance(event, ToolExecutionEnd):
                    show(start, "result", call_id=event.call_id, text=event.result.text)
                elif isinstance(event, ReplyEnd):
                    show(start, "end", stop=event.stop_reason)
    show(start, "done")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3]))
