"""``/sessions QUERY``: how fast a word said many sessions ago is found.

Why: a user looking for "that conversation about the parser" types a word and
waits. The budget is 100 ms for a word said 50 sessions ago, with the index
caught up first (a ``stat`` per session: the search always reads what was
written since). The baseline, in the same run, is what one would do without an
index: read every session file and look for the word in each message.

Sessions are written by the real recorder (JSON lines, redaction on) with 40
messages of about 60 words each; the word sits in the session 50 before the
newest. Timings are medians over ``--runs`` searches, after one warm-up.

    python benchmarks/session_search.py [--sessions 200] [--runs 21]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORDS = ["parser", "token", "buffer", "stream", "model", "reply", "window", "session", "index", "branch",
         "commit", "test", "build", "cache", "layer", "frame", "widget", "prompt", "shell", "file", "path",
         "error", "value", "config", "thread", "async"]
NEEDLE = "xylophone"


def make_sessions(count: int, messages: int, rng: random.Random) -> list[str]:
    from shell.agent import Agent
    from shell.core.messages import AssistantMessage, TextBlock, UserMessage
    from shell.providers.scripted import ScriptedModel
    from shell.sessions import SessionRecorder, SessionStore

    store = SessionStore()
    ids = []
    for n in range(count):
        agent = Agent(ScriptedModel([]))
        recorder = SessionRecorder(store, agent, session_id=f"2026{n:04d}-000000-{n:06x}", cwd="/w",
                                   fsync=False)
        for i in range(messages):
            text = " ".join(rng.choice(WORDS) for _ in range(60))
            if n == count - 50 and i == messages // 2:
                text += f" the {NEEDLE} note"
            agent.messages.append(UserMessage(text) if i % 2 == 0 else AssistantMessage((TextBlock(text),)))
        recorder.open()
        recorder.sync()
        recorder.close()
        ids.append(recorder.session_id)
    return ids


def naive(root: Path, word: str) -> list[str]:
    """Without an index: every file, every message."""
    found = []
    for path in sorted(root.glob("*.jsonl")):
        with path.open("rb") as f:
            for line in f:
                record = json.loads(line)
                message = record.get("message") if record.get("kind") == "message" else None
                if not message:
                    continue
                content = message.get("content")
                text = content if isinstance(content, str) else " ".join(
                    b.get("text", "") for b in content if isinstance(b, dict))
                if word in text:
                    found.append(path.stem)
                    break
    return found


def timed(fn: object, runs: int) -> float:
    samples = []
    fn()  # type: ignore[operator]
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_SHELL_DATA_DIR"] = tmp
        from shell.core.secrets import Secrets
        from shell.sessions import SessionStore
        from shell.sessions.search import SearchIndex

        ids = make_sessions(args.sessions, args.messages, random.Random(7))
        target = ids[-50]
        root = SessionStore().root
        size = sum(p.stat().st_size for p in root.glob("*.jsonl"))
        index = SearchIndex(redactor=Secrets.from_environment())
        start = time.perf_counter()
        index.refresh()
        build = (time.perf_counter() - start) * 1000
        assert [h.session_id for h in index.search(NEEDLE)] == [target]
        assert naive(root, NEEDLE) == [target]
        indexed = timed(lambda: index.search(NEEDLE), args.runs)
        scan = timed(lambda: naive(root, NEEDLE), args.runs)
        print(f"{args.sessions} sessions x {args.messages} messages ({size / 1e6:.1f} MB of JSON lines); "
              f"the word is in the session 50 before the newest; medians of {args.runs}")
        print(f"  index built from nothing:           {build:8.1f} ms (once; then only what is new)")
        print(f"  search (catch-up stat + FTS5 query): {indexed:8.2f} ms   budget 100 ms: "
              f"{'ok' if indexed < 100 else 'OVER'}")
        print(f"  naive scan of every file:           {scan:8.2f} ms")
        print(f"  ratio naive / indexed:              {scan / indexed:8.1f}x")
        index.close()
        db = Path(tmp) / "search.sqlite"
        print(f"  index size: {db.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
