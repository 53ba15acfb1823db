"""Benchmark: one turn with many tool calls, in the TUI under the pilot, 100 → 1,000 calls.

A ``ScriptedModel`` answers "go" with N calls of a read-only tool (no approval
asked) in one assistant message, then a short text. Each run is a fresh process
(its own peak RSS). Consumers of the same agent, in the same run:

* **tui**: the whole app (``AgentShellApp``) under Textual's pilot: Enter to idle;
* **tui-ask** (not run unless named): the same, each call asking the user first;
  once all N questions wait in the approval dialog, "approve all remaining" (its
  wall time includes the dialog's 0.6 s typing guard);
* **headless** (the floor): the same events through ``Agent.reply`` into the
  front-end reducer (``ReplyState``), drawing nothing, as ``-p`` does.

The tester's case (finding F11) is the ``read`` pair: the whole runtime (default
mode and middleware, the real ``read_file``) in a workspace holding this repo's
README.md; one reply of a short text, then N ``read_file {"path": "README.md"}``
calls, each streamed as the providers do (its arguments in deltas, the calls one
after another) and each with the README's many lines as its result; then a final
text. (The text first matters: it stays live until the last call has streamed.)

* **tui-read**: that, in the whole app under the pilot, Enter to the final text;
* **headless-read**: the same runtime's events into ``ReplyState`` (the floor).

Prints per N: wall time, peak RSS, the p99 and longest event-loop stall (a 5 ms
sleep's lateness, wall clock), the longest "window cpu" (the CPU of the loop steps
that ran back to back in one probe window: the lateness of a quiet machine, see
``tui_common.StallProbe.max_window_cpu_ms``), the same per step in CPU time (a wall
stall with little CPU is the shared machine),
the number of full collections, and how many spans were mounted at the end; then the growth exponent
of time against N. Goals (issue 21): 1,000 calls <= 10 s, <= 200 MB, no stall over
100 ms, time linear.

``--against DIR`` runs each consumer also with another checkout's code (e.g. ``git
archive`` of main before a change, unpacked in DIR), the two taking turns, on the same
workload (this tree's README.md) and the same probe, and prints ours against it.

    python benchmarks/tui_tools.py [--calls 100,300,1000] [--consumers tui,tui-ask,headless] [-v]
    python benchmarks/tui_tools.py --calls 50,150,500,1000 --consumers tui-read,headless-read
    python benchmarks/tui_tools.py --calls 1000 --consumers tui-read --against /tmp/main-before
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import run_script_child  # noqa: E402


def _asking() -> Any:
    """A middleware that asks the user before every call (as HumanInTheLoop does for
    tools that change things; these are read-only, so they run in parallel and all
    their questions wait in the dialog's queue together)."""
    from middleware.base import Middleware
    from shell.core.approvals import ApprovalRequest

    class AskEach(Middleware):
        async def before_tool_call(self, ctx: Any) -> Any:
            await ctx.ask(ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args)))
            return None

    return AskEach()


def _agent(calls: int, ask: bool = False) -> Any:
    from shell.agent import tool
    from shell.agent.loop import Agent
    from shell.core.messages import AssistantMessage, ToolCallBlock
    from shell.providers.scripted import ScriptedModel

    @tool(read_only=True)
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: what to look up
        """
        return f"value of {key}"

    blocks = tuple(ToolCallBlock(f"call{i}", "lookup", {"key": f"k{i}"}) for i in range(calls))
    turn = AssistantMessage(blocks)
    model = ScriptedModel([turn, "All looked up."], chunk_size=16)
    return Agent(model, tools=[lookup], system_prompt="be brief", middleware=[_asking()] if ask else [])


FINAL_TEXT = "All read."


def _read_runtime(calls: int) -> Any:
    """The whole runtime in a workspace with this repo's README.md, its model answering
    with a text and N ``read_file`` calls of it (arguments in 8-character deltas), then
    a text."""
    import tempfile

    from shell.config import Settings
    from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    workspace = Path(tempfile.mkdtemp())
    (workspace / "README.md").write_text((ROOT / "README.md").read_text())
    blocks = tuple(ToolCallBlock(f"call_{i}", "read_file", {"path": "README.md"}) for i in range(calls))
    model = ScriptedModel([AssistantMessage((TextBlock("Reading it."), *blocks)), FINAL_TEXT], chunk_size=8)
    return ShellRuntime.create(RuntimeOptions(cwd=str(workspace), record=False),
                               settings=Settings(path=workspace / "none.toml"), model=model)


async def tui_read(calls: int) -> dict[str, Any]:
    from benchmarks.tui_common import probed_send
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.assistant_message import AssistantMessage
    from shell.tui.widgets.tool_span import ToolSpan

    runtime = _read_runtime(calls)
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        wall, cpu, probe = await probed_send(app)
        reply = app.last_reply
        assert reply is not None and reply.stop_reason == "end_turn", reply
        texts = [m.text for m in app.query(AssistantMessage)]
        assert texts and FINAL_TEXT in texts[-1], f"the final text is not shown: {texts[-1:]}"
        mounted = len(app.query(ToolSpan))
        return {"wall": wall, "cpu_s": cpu, "mounted": mounted, **probe.summary()}


async def headless_read(calls: int) -> dict[str, Any]:
    from benchmarks.tui_common import StallProbe
    from shell.frontend.reply import ReplyState

    runtime = _read_runtime(calls)
    async with runtime.running():
        probe = StallProbe()
        probe.start()
        t0, c0 = time.perf_counter(), time.process_time()
        state = ReplyState()
        async for event in runtime.reply("go"):
            state.apply(event)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        await probe.stop()
    done = sum(1 for c in state.calls.values() if c.status == "done")
    assert done == calls and state.stop_reason == "end_turn", (done, state.stop_reason)
    return {"wall": wall, "cpu_s": cpu, "mounted": 0, **probe.summary()}


async def tui(calls: int) -> dict[str, Any]:
    from benchmarks.tui_common import probed_send
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.tool_span import ToolSpan

    app = AgentShellApp(_agent(calls), model_label="scripted")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        wall, cpu, probe = await probed_send(app)
        mounted = len(app.query(ToolSpan))
        return {"wall": wall, "cpu_s": cpu, "mounted": mounted, **probe.summary()}


async def tui_ask(calls: int) -> dict[str, Any]:
    """The same turn, every call asking: once all N questions wait in the dialog,
    "approve all remaining" (its key, once the dialog's typing guard has passed)."""
    from textual import events

    from benchmarks.common import until
    from benchmarks.tui_common import StallProbe
    from shell.frontend.approval import APPROVE_ALL_KEY
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.tool_span import ToolSpan

    app = AgentShellApp(_agent(calls, ask=True), model_label="scripted")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        probe = StallProbe()
        probe.start()
        c0 = time.process_time()
        t0 = time.perf_counter()
        for key in ("g", "o", "enter"):
            app.prompt.post_message(events.Key(key, key if len(key) == 1 else None))
        broker = app.approvals
        await until(lambda: broker.screen is not None and broker.screen.is_attached
                    and len(broker.queue) >= calls)
        screen = broker.screen
        assert screen is not None
        await asyncio.sleep(max(0.0, screen.quiet_until - time.monotonic()) + 0.05)
        app.post_message(events.Key(APPROVE_ALL_KEY, APPROVE_ALL_KEY))  # as the terminal driver does
        await until(lambda: not app.busy)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        await probe.stop()
        assert app.last_reply is not None and app.last_reply.stop_reason == "end_turn"
        mounted = len(app.query(ToolSpan))
        return {"wall": wall, "cpu_s": cpu, "mounted": mounted, **probe.summary()}


async def headless(calls: int) -> dict[str, Any]:
    from benchmarks.tui_common import StallProbe
    from shell.frontend.reply import ReplyState

    agent = _agent(calls)
    probe = StallProbe()
    probe.start()
    t0, c0 = time.perf_counter(), time.process_time()
    state = ReplyState()
    async for event in agent.reply("go"):
        state.apply(event)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    await probe.stop()
    assert len(state.calls) == calls and state.stop_reason == "end_turn", state.stop_reason
    return {"wall": wall, "cpu_s": cpu, "mounted": 0, **probe.summary()}


def run(consumer: str, calls: int, code: Path | None = None) -> dict[str, Any]:
    where = ["--code", str(code)] if code is not None else []
    return run_script_child(__file__, [*where, consumer, str(calls)], f"{consumer} {calls}")


def main(counts: list[int], consumers: list[str], verbose: bool, against: Path | None = None) -> None:
    from benchmarks.tui_common import exponent

    if against is not None:
        compare(counts, consumers, against.resolve())
        return
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'calls':>6} {'consumer':>9} | {'wall s':>7} {'cpu s':>6} {'peak MB':>8} | {'p99 ms':>7} "
          f"{'max stall ms':>12} {'window cpu':>10} | {'p99 step cpu':>12} {'longest step cpu':>16} "
          f"{'full GCs':>8} | "
          f"{'spans mounted':>13}")
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in consumers}
    for n in counts:
        for consumer in consumers:
            r = run(consumer, n)
            results[consumer].append(r)
            print(f"{n:>6} {consumer:>9} | {r['wall']:>7.2f} {r['cpu_s']:>6.2f} {r['peak']:>8.0f} | "
                  f"{r['p99']:>7.1f} "
                  f"{r['max']:>12.0f} {r.get('max_window_cpu', 0):>10.0f} | "
                  f"{r['p99_step_cpu']:>12.1f} {r['max_step_cpu']:>16.0f} "
                  f"{r['gc_full']:>8} | {int(r['mounted']):>13}", flush=True)
            if verbose:
                print("        longest steps: " + "\n                       ".join(r["longest"]))
    for consumer, rs in results.items():
        if len(rs) > 1:
            print(f"{consumer}: time exponent {exponent(counts, [r['wall'] for r in rs]):.2f}, "
                  f"cpu {exponent(counts, [r['cpu_s'] for r in rs]):.2f} (1.0 = linear)")
    for tui_name, floor in (("tui", "headless"), ("tui-read", "headless-read")):
        if tui_name in results and floor in results:
            for n, t, h in zip(counts, results[tui_name], results[floor], strict=True):
                print(f"{n} calls: {tui_name}/{floor} wall {t['wall'] / h['wall']:.1f}x, "
                      f"cpu {t['cpu_s'] / h['cpu_s']:.1f}x, "
                      f"peak RSS {t['peak'] / h['peak']:.1f}x; per call {t['wall'] / n * 1000:.1f} ms "
                      f"vs {h['wall'] / n * 1000:.1f} ms")
    print("goals at 1,000 calls (tui): <= 10 s, <= 200 MB, no stall over 100 ms")


def compare(counts: list[int], consumers: list[str], against: Path) -> None:
    """Each consumer with the other checkout's code ("base") and ours, taking turns."""
    print(f"load average {os.getloadavg()[0]:.1f} at the start; base = {against}")
    print(f"{'calls':>6} {'consumer':>13} {'code':>5} | {'wall s':>7} {'cpu s':>6} {'peak MB':>8} | "
          f"{'max stall ms':>12} {'window cpu':>10} {'longest step cpu':>16} | {'spans mounted':>13}")
    for n in counts:
        for consumer in consumers:
            got = {}
            for name, code in (("base", against), ("ours", None)):
                r = got[name] = run(consumer, n, code)
                print(f"{n:>6} {consumer:>13} {name:>5} | "
                      f"{r['wall']:>7.2f} {r['cpu_s']:>6.2f} {r['peak']:>8.0f} | "
                      f"{r['max']:>12.0f} {r.get('max_window_cpu', 0):>10.0f} {r['max_step_cpu']:>16.0f} | "
                      f"{int(r['mounted']):>13}", flush=True)
            base, ours = got["base"], got["ours"]
            print(f"{'':>6} {consumer:>13} ours/base: cpu {ours['cpu_s'] / base['cpu_s']:.2f}x, "
                  f"peak RSS {ours['peak'] / base['peak']:.2f}x, longest step cpu "
                  f"{ours['max_step_cpu']:.0f} vs {base['max_step_cpu']:.0f} ms", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        if sys.argv[2:3] == ["--code"]:  # another checkout's code (the workload and probe stay ours)
            code = sys.argv[3]
            del sys.argv[2:4]
            import benchmarks.common
            import benchmarks.tui_common  # noqa: F401  (ours: ``benchmarks`` is a namespace package)

            sys.path.insert(0, code)
            import shell

            assert shell.__file__ is not None and shell.__file__.startswith(code), shell.__file__
        consumer, n = sys.argv[2], int(sys.argv[3])
        result = asyncio.run({"tui": tui, "tui-ask": tui_ask, "headless": headless, "tui-read": tui_read,
                              "headless-read": headless_read}[consumer](n))
        result["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        sys.exit(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", default="100,300,1000")
    parser.add_argument("--consumers", default="tui,headless")
    parser.add_argument("-v", "--verbose", action="store_true", help="name the five longest loop steps")
    parser.add_argument("--against", type=Path, help="another checkout, run taking turns with this one")
    args = parser.parse_args()
    main([int(s) for s in args.calls.split(",")], args.consumers.split(","), args.verbose, args.against)
