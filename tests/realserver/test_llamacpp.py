"""agent-shell against a real llama.cpp server (llama-cpp-python 0.3.36 serving
SmolLM2-135M-Instruct on 127.0.0.1), through the real console script.

What a local-model user does: chat over two turns, continue a session with tool
calls in it, force a tool call (SmolLM2's template has no tools, so the server
calls one only when ``tool_choice`` names it: the ``tool_choice`` provider option),
cancel mid-stream, lose the server mid-reply and bring it back, send more than the
context holds. Every reply is capped at a few dozen tokens.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from typing import Any

from .conftest import Home
from .llama import LlamaServer

PROMPT = "\u203a"  # the line mode's prompt sign


def answer(result: Any) -> dict[str, Any]:
    said = result.stderr[-2000:]
    if result.returncode != 0 and result.stdout.strip().startswith("{"):
        out = json.loads(result.stdout)  # -p's JSON carries the reply's errors and its end
        said += f" errors={out.get('errors')} stop={out.get('stop_reason')} answer={out.get('answer')!r}"
    assert result.returncode == 0, f"exit {result.returncode}: {said}"
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def served(result: Any) -> dict[str, Any]:
    """The JSON of a headless run that reached the server: an answer, or the one error
    an empty reply gives (the model's choice, not the shell's)."""
    data: dict[str, Any] = json.loads(result.stdout)
    if result.returncode != 0:
        assert result.returncode == 1 and data["answer"] == "", result.stderr[-2000:]
        assert [e for e in data["errors"] if "without any text or tool call" not in e] == [], data["errors"]
    return data


def roles(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages:
        if m["role"] == "assistant" and any(b["type"] == "ToolCallBlock" for b in m["content"]):
            out.append("assistant+call")
        else:
            out.append(m["role"])
    return out


def test_two_turn_chat(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url)
    first = answer(home.run("-p", "Name a color.", "--output-format", "json"))
    assert first["answer"].strip() and first["errors"] == []
    assert first["model"] == f"llama:{llama.model_id()}"  # no model configured: the server's own
    assert first["usage"] is None  # llama-cpp-python reports none: unknown, not zero
    again = ("-p", "And another one?", "--continue", "--output-format", "json")
    result = home.run(*again)
    if result.returncode != 0 and "without any text or tool call" in result.stdout:
        # SmolLM2-135M's whim (an answer of nothing: seen in CI at this turn too): the message
        # was taken back out, so the session is as before; a rejected history fails twice
        result = home.run(*again)
    second = answer(result)
    assert second["answer"].strip()
    assert roles(second["messages"]) == ["user", "assistant", "user", "assistant"]


def test_a_session_with_tool_calls_continues(home: Home, llama: LlamaServer) -> None:
    """The tool-call turn is sent back on every later request (``content: ""``, not null)."""
    (home.workspace / "notes.txt").write_text("milk\n")
    home.configure(llama.url, tool_choice="list_dir")
    first = answer(home.run("-p", "Which files are here?", "--output-format", "json", "--approve", "always"))
    assert roles(first["messages"]) == ["user", "assistant+call", "tool", "assistant"]
    assert first["messages"][2]["name"] == "list_dir"  # it ran (a 135M model may mistype the path)
    assert first["stop_reason"] in ("end_turn", "max_tokens")
    again = ("-p", "Look again.", "--continue", "--output-format", "json", "--approve", "always")
    result = home.run(*again)
    if result.returncode != 0 and "without any text or tool call" in result.stdout:
        # SmolLM2-135M's whim (an answer of nothing, seen once in CI): the message was
        # taken back out, so the session is as before; a rejected history (what this
        # test is about) fails the same way twice
        result = home.run(*again)
    second = answer(result)
    assert roles(second["messages"]) == ["user", "assistant+call", "tool", "assistant"] * 2
    assert second["errors"] == []


def test_forced_tool_call_round_trip_in_text_mode(home: Home, llama: LlamaServer) -> None:
    (home.workspace / "todo.md").write_text("- ship it\n")
    home.configure(llama.url, tool_choice="read_file")
    r = home.run("-p", "Read todo.md and tell me what it says.", "--approve", "always")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()  # the answer after the tool result
    sessions = list((home.data / "agent-shell").rglob("*.jsonl"))
    saved = "\n".join(p.read_text() for p in sessions)
    assert '"read_file"' in saved and '"role":"tool"' in saved


def test_output_cut_at_max_tokens_says_so(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url, max_tokens=8)
    # SmolLM2 now and then spends its few tokens on blank lines (CI, 2026-11-30: an empty
    # reply, an error by design): ask again, as a user would, and judge a reply with text
    for _ in range(3):
        result = served(home.run("-p", "Tell me a long story about a lighthouse.", "--output-format", "json"))
        if result["answer"]:
            break
    assert result["answer"] and result["stop_reason"] == "max_tokens", result
    for _ in range(3):
        r = home.run("-p", "Tell me a long story about a lighthouse.")
        if r.returncode == 0:
            break
    assert "warning: The model stopped at its output token limit" in r.stderr


def test_base_url_alone_needs_no_key_and_no_model(home: Home, llama: LlamaServer) -> None:
    home.env["OPENAI_BASE_URL"] = llama.url
    # No config file at all: only the environment.
    # Nothing configured: the server's own sampling, where SmolLM2-135M may answer with
    # nothing at all (reported as an error, exit 1). What is checked is whom it asked.
    data = served(home.run("-p", "Say hello.", "--output-format", "json", "--model", "openai"))
    assert data["model"] == f"openai:{llama.model_id()}"
    auto = served(home.run("-p", "Say hello.", "--output-format", "json"))
    assert auto["model"] == f"openai:{llama.model_id()}"  # not the demo model
    listed = home.run("models")
    assert listed.returncode == 0 and f"openai:{llama.model_id()}" in listed.stdout


def test_models_shows_what_the_server_said(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url.replace("/v1", "/nope"))
    r = home.run("models")
    assert r.returncode == 0
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("- llama"))
    assert line == f"- llama: HTTP 404 from {llama.url.replace('/v1', '/nope')}/models: Not Found"


def test_prompt_longer_than_the_context(home: Home, llama: LlamaServer) -> None:
    """G11: the message that did not fit is taken back out of the session, so the
    conversation goes on (--continue) instead of failing at every later message."""
    home.configure(llama.url, max_tokens=24)
    for _ in range(3):  # SmolLM2 now and then answers with nothing (CI, 2026-11-30): ask again
        start = home.run("-p", "Name a color.", "--output-format", "json")
        if start.returncode == 0:
            break
    first = answer(start)
    long = "Summarise this: " + " ".join(f"word{i}" for i in range(3000))
    r = home.run("-p", long, "--continue")
    assert r.returncode == 1
    assert (
        "error (model): llama accepted the request (HTTP 200) but ended the stream without sending anything."
        in (r.stderr)
    )
    assert "taken back out of the conversation" in r.stderr
    assert "dropped" not in r.stderr
    # SmolLM2 now and then answers with nothing (CI, 2026-11-29): send again, as a user would
    for _ in range(3):
        after = served(home.run("-p", "Name a fruit.", "--continue", "--output-format", "json"))
        said = after["messages"]  # the whole conversation: the long message is not in it
        if after["answer"]:
            break
        # an empty reply is withdrawn like an overflow: the session is as it was before it
        assert roles(said) == roles(first["messages"]), roles(said)
    assert roles(said)[:3] == ["user", "assistant", "user"] and roles(first["messages"]) == roles(said)[:2]
    assert not any("word2999" in json.dumps(m) for m in said)


def test_ctrl_c_mid_stream_in_headless(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url, max_tokens=1500)
    proc = home.popen("-p", "Write a very long story about the sea.", "--output-format", "jsonl")
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if json.loads(line)["type"] == "TextBlockDelta":
                break
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        rest = proc.stdout.read()
        code = proc.wait(timeout=10)
        ended = time.monotonic()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    end = json.loads(rest.strip().splitlines()[-1])
    assert code == 130 and end["type"] == "ReplyEnd" and end["stop_reason"] == "cancelled"
    assert ended - sent < 5  # the process exits too, not only the reply


SPINNER = re.compile(r"\S? ?waiting for the model…\s*(Ctrl\+C cancels)?")
"""The line mode's waiting line, drawn again each frame until the first word."""


def test_ctrl_c_mid_stream_in_the_line_mode(home: Home, llama: LlamaServer) -> None:
    home.configure(llama.url, max_tokens=1500)
    term = home.terminal("--plain")
    try:
        # The full prompt is up (under the banner: the first prompt comes before the runtime).
        term.expect(lambda t: "Ctrl+C cancels" in t and PROMPT in t.split("Ctrl+C cancels")[-1])
        time.sleep(1)  # and reading keys (a line typed sooner meets a cooked terminal: Enter is Ctrl+J)
        term.send("Write a very long story about the sea.\r")
        # the story itself streaming, not the spinner ("waiting for the model…" is 40 characters
        # a frame): a Ctrl+C before the first word now takes the request back (finding Y9)
        story = lambda t: SPINNER.sub("", t.split("about the sea.")[-1]).strip()  # noqa: E731
        term.expect(lambda t: "sea." in t and len(story(t)) > 60, timeout=120)
        term.send("\x03")
        term.expect(lambda t: "cancelled" in t.split("about the sea.")[-1], timeout=10)
        term.expect(lambda t: PROMPT in t.split("cancelled")[-1])
        time.sleep(1)
        term.send("Name a fruit.\r")  # the session goes on
        term.expect(lambda t: "fruit." in t and len(t.split("Name a fruit.")[-1].strip()) > 20, timeout=120)
        assert "error" not in term.text.split("Name a fruit.")[-1].lower()
    finally:
        term.close()


def test_server_killed_mid_reply_and_restarted(home: Home, own_llama: LlamaServer) -> None:
    home.configure(own_llama.url, max_tokens=1500)
    proc = home.popen("-p", "Write a very long story about the sea.", "--output-format", "jsonl")
    assert proc.stdout is not None and proc.stderr is not None
    streamed = ""
    try:
        for line in proc.stdout:
            event = json.loads(line)
            if event["type"] == "TextBlockDelta":
                streamed += event["delta"]
                if len(streamed) > 40:
                    break
        own_llama.kill()
        rest = proc.stdout.read()
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    events = [json.loads(ln) for ln in rest.splitlines() if ln.strip()]
    errors = [e["error"] for e in events if e["type"] == "ErrorEvent"]
    assert code == 1 and errors == [
        "The connection to llama dropped in the middle of the reply; the text so far is kept. Try again."
    ]
    end = events[-1]
    assert end["type"] == "ReplyEnd" and end["message"]["content"][0]["text"].startswith(streamed)

    down = home.run("-p", "Are you there?", "--continue")  # no model named: the server is asked for one
    assert down.returncode == 2
    assert (
        f"No model is set for llama and the server at {own_llama.url} could not be asked for its models "
        "(nothing accepted the connection there). Start the server, or name one" in down.stderr
    )

    own_llama.start()
    again = ("-p", "Go on.", "--continue", "--output-format", "json")
    result = home.run(*again)
    for _ in range(2):  # SmolLM2 now and then answers a half story with nothing (CI, 2026-11-30):
        if result.returncode == 0 or "without any text or tool call" not in result.stdout:
            break  # the message was taken back out, so asking again is what a user would do
        result = home.run(*again)
    back = answer(result)
    assert back["answer"].strip() and back["errors"] == []
    kept = back["messages"][1]["content"][0]["text"]
    assert kept.startswith(streamed)  # the text so far was kept in the session
