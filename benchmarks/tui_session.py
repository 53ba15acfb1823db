"""Benchmark: a long session (1,000 messages: 60% Markdown replies, 30% tool
spans, 10% user messages) against plain Textual, each in its own process.

Measures, after the session is on screen:
- how long the next streamed reply takes to render, against the same reply in a
  10-message session (target: within 1.5x);
- resident memory (target < 300 MB);
- keystroke echo in the prompt (target < 50 ms).

Ours is ``AgentShellApp`` (entries virtualised: only the newest are mounted,
Markdown far from view parked); plain is a ``VerticalScroll`` holding one
Textual widget per message, fed with ``Markdown.get_stream`` for the reply.

    python benchmarks/tui_session.py [--messages 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Markdown, Static, TextArea

from benchmarks.common import in_fresh_process
from benchmarks.tui_common import deltas, markdown_text

SIZE = (120, 40)
REPLY = markdown_text(5000, seed=3)


def _rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _kind(i: int) -> str:
    r = i % 10
    return "user" if r == 0 else ("span" if r in (3, 6, 9) else "reply")


async def _echo_ms(pilot: Any, area: TextArea) -> float:
    """Median time from a key event to the prompt holding the character (the
    pilot's own settling pauses are not counted)."""
    times = []
    for ch in "hello world":
        await pilot.pause(0.05)
        before = area.text
        t0 = perf_counter()
        area.post_message(events.Key(ch, ch))
        while area.text == before:  # noqa: ASYNC110 - polling is the measurement
            await asyncio.sleep(0.0005)
        times.append((perf_counter() - t0) * 1000)
    return statistics.median(times)


# -- ours ---------------------------------------------------------------------------
async def ours(messages: int) -> dict[str, float]:
    from shell.agent.loop import Agent
    from shell.frontend.reply import CallView
    from shell.providers.scripted import ScriptedModel
    from shell.tui.app import AgentShellApp
    from shell.tui.entries import AssistantEntry, SpanEntry, UserEntry

    model = ScriptedModel([REPLY], chunk_size=5)
    app = AgentShellApp(Agent(model), model_label="bench")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        t0 = perf_counter()
        entries: list[Any] = []
        for i in range(messages):
            kind = _kind(i)
            if kind == "user":
                entries.append(UserEntry(f"question {i}"))
            elif kind == "span":
                state = CallView(f"c{i}", "read_file", "done", args={"path": f"f{i}.py"})
                state.result, state.duration_s = "x = 1\n" * 20, 0.1
                entries.append(SpanEntry(state))
            else:
                entries.append(AssistantEntry(markdown_text(600, seed=i)))
        for start in range(0, messages, 50):  # as a resumed session arrives: in batches
            await conversation.add_many(entries[start : start + 50])
        build = perf_counter() - t0
        await pilot.pause(0.3)
        t0 = perf_counter()
        app.start_reply("next")
        while app.busy:  # noqa: ASYNC110 - polling is the measurement
            await asyncio.sleep(0.005)
        reply = perf_counter() - t0
        await pilot.pause(0.3)
        widgets = len(list(app.screen.walk_children()))
        echo = await _echo_ms(pilot, app.prompt)
        return {"reply_s": reply, "rss_mb": _rss_mb(), "echo_ms": echo, "widgets": widgets, "build_s": build}


# -- plain Textual ------------------------------------------------------------------
class Plain(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="scroll")
        yield TextArea(id="prompt")


async def plain(messages: int) -> dict[str, float]:
    app = Plain()
    async with app.run_test(size=SIZE) as pilot:
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()
        t0 = perf_counter()
        widgets: list[Any] = []
        for i in range(messages):
            kind = _kind(i)
            if kind == "user":
                widgets.append(Static(f"question {i}"))
            elif kind == "span":
                widgets.append(Collapsible(Static("x = 1\n" * 20), title=f"read_file f{i}.py"))
            else:
                widgets.append(Markdown(markdown_text(600, seed=i)))
        for start in range(0, messages, 50):
            await scroll.mount_all(widgets[start : start + 50])
        build = perf_counter() - t0
        await pilot.pause(0.3)
        t0 = perf_counter()
        widget = Markdown()
        await scroll.mount(widget)
        stream = Markdown.get_stream(widget)
        for delta in deltas(REPLY):
            await stream.write(delta)
        await stream.stop()
        await pilot.pause()
        reply = perf_counter() - t0
        widgets = len(list(app.screen.walk_children()))
        area = app.query_one("#prompt", TextArea)
        area.focus()
        echo = await _echo_ms(pilot, area)
        return {"reply_s": reply, "rss_mb": _rss_mb(), "echo_ms": echo, "widgets": widgets, "build_s": build}


def measure(which: str, messages: int) -> dict[str, float]:
    """Each measurement in a fresh process, so memory figures do not mix."""
    return in_fresh_process(ours if which == "ours" else plain, messages)


def main(messages: int) -> dict[str, Any]:
    rows: dict[str, dict[str, float]] = {}
    for which in ("ours", "plain"):
        for n in (10, messages):
            rows[f"{which}_{n}"] = r = measure(which, n)
            print(
                f"{which:>5} {n:>5} msgs: next reply {r['reply_s']:.2f}s, rss {r['rss_mb']:.0f} MB, "
                f"echo {r['echo_ms']:.1f} ms, widgets {r['widgets']:.0f}, build {r['build_s']:.1f}s",
                flush=True,
            )
    o_ratio = rows[f"ours_{messages}"]["reply_s"] / rows["ours_10"]["reply_s"]
    p_ratio = rows[f"plain_{messages}"]["reply_s"] / rows["plain_10"]["reply_s"]
    print(f"next reply, {messages} vs 10 messages: ours {o_ratio:.2f}x (target <= 1.5), plain {p_ratio:.2f}x")
    print(
        f"memory at {messages}: ours {rows[f'ours_{messages}']['rss_mb']:.0f} MB (target < 300), "
        f"plain {rows[f'plain_{messages}']['rss_mb']:.0f} MB"
    )
    print(
        f"keystroke echo at {messages}: ours {rows[f'ours_{messages}']['echo_ms']:.1f} ms (target < 50), "
        f"plain {rows[f'plain_{messages}']['echo_ms']:.1f} ms"
    )
    return {"rows": rows, "ours_ratio": o_ratio, "plain_ratio": p_ratio}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = main(args.messages)
    if args.json:
        print(json.dumps(result))
