"""Hostile input through the console script (issue 14): nothing a model, a tool, a
server or a file sends crashes, freezes, reaches the terminal raw or leaks a secret;
a full disk is said once and loses nothing shown."""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from shell.agent import Agent
from shell.config import Settings
from shell.core.model import ModelChunk, ModelRequest, TextDelta
from shell.core.partial import CANCELLED_KEEP, cut_marker
from shell.headless import run_headless
from shell.plain import PROMPT
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, load_session
from shell.tools.workspace import Workspace
from tests.disk import SmallDisk, small_disk
from tests.flood import flood_server

from .conftest import RunCli
from .terminal import Terminal

Script = Callable[[list[Any]], str]
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\u2066\x07"
SHOWN = "␛]0;pwned␇␛[2J\\x9b31m\\u202eevil\\u2066␇"
RAW = ("\x1b]0;pwned", "\x1b[2J", "\x9b", "\u202e", "\u2066", "\x07")


def no_raw(text: str) -> None:
    for seq in RAW:
        assert seq not in text, f"{seq!r} reached the terminal"


def sessions(env: dict[str, str]) -> SessionStore:
    """The CLI's session store (the environment the CLI was given, not this process's)."""
    return SessionStore(Path(env["AGENT_SHELL_DATA_DIR"]) / "sessions")


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"d": value}
    return value


# -- escapes -----------------------------------------------------------------------


def test_headless_text_json_and_jsonl_neutralise_every_control(run_cli: RunCli, script: Script) -> None:
    model = script([f"a{HOSTILE}b"])
    text = run_cli("-p", "hi", "--model", model)
    assert text.returncode == 0 and text.stdout == f"a{SHOWN}b\n"
    for fmt in ("json", "jsonl"):
        r = run_cli("-p", "hi", "--model", model, "--output-format", fmt)
        assert r.returncode == 0, r.stderr
        no_raw(r.stdout)  # C0 as \\u001b, C1 and bidi as \\u escapes: the same JSON strings
        last = json.loads(r.stdout.strip().splitlines()[-1])
        answer = last["answer"] if fmt == "json" else last["message"]["content"][0]["text"]
        assert answer == f"a{HOSTILE}b"


def test_the_line_mode_shows_tool_names_text_and_errors_harmlessly(
    cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    model = script([
        {"text": f"x{HOSTILE}y", "tool_calls": [{"name": f"evil{HOSTILE}", "args": {"a": HOSTILE}}]},
        f"done{HOSTILE}",
    ])
    term = Terminal([sys.executable, "-m", "shell", "--plain", "--model", model, "--no-session", "go"],
                    cli_env, workspace)
    term.wait_for(f"done{SHOWN}")
    term.type("/quit\r")
    assert term.close() == 0
    no_raw(term.text)
    assert f"x{SHOWN}y" in term.text and f"evil{SHOWN}" in term.text


class ModelsServer(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps({"data": [{"id": f"gpt{HOSTILE}"}, {"id": "plain-model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def models_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ModelsServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_model_ids_from_a_server_are_shown_harmlessly(
    run_cli: RunCli, cli_env: dict[str, str], models_url: str
) -> None:
    cli_env.update(OPENAI_BASE_URL=models_url, OPENAI_API_KEY="sk-test-0123456789abcdefghij")
    r = run_cli("models")
    assert r.returncode == 0, r.stderr
    no_raw(r.stdout)
    assert f"openai:gpt{SHOWN}" in r.stdout and "openai:plain-model" in r.stdout


def test_session_titles_in_the_resume_list_are_shown_harmlessly(run_cli: RunCli, script: Script) -> None:
    assert run_cli("-p", f"title{HOSTILE}\nsecond line", "--model", script(["ok"])).returncode == 0
    r = run_cli("--resume")  # no terminal to pick on: the list comes with the error
    assert r.returncode == 2
    no_raw(r.stderr)
    assert f"title{SHOWN} second line" in " ".join(r.stderr.split())  # the title may be wrapped


# -- crashes -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["-p", "--plain"])
def test_deep_arguments_and_a_lone_surrogate_neither_crash_nor_poison_the_session(
    mode: str, run_cli: RunCli, cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    model = script([
        {"text": "lone \ud800 surrogate",
         "tool_calls": [{"name": "glob", "args": {"pattern": "*", "x": deep(600)}}]},
        "after the deep call",
        "and the next reply is saved too",
    ])
    if mode == "-p":
        first = run_cli("-p", "go", "--model", model, "--approve", "always")
        assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr
        assert first.stdout == "after the deep call\n"
        model = script(["and the next reply is saved too"])
        second = run_cli("--continue", "-p", "again", "--model", model)
        assert second.returncode == 0 and "Traceback" not in second.stderr, second.stderr
    else:
        args = [sys.executable, "-m", "shell", "--plain", "--model", model, "go"]
        term = Terminal(args, cli_env, workspace)
        term.wait_for("after the deep call")
        term.type("again\r")
        term.wait_for("and the next reply is saved too")
        term.type("/quit\r")
        assert term.close() == 0
        assert "Traceback" not in term.text
    [info] = sessions(cli_env).list()
    loaded = load_session(info.path)
    assert not loaded.problems
    texts = [m.text for m in loaded.messages]
    # the lone surrogate became U+FFFD where the model's text entered the history (kept, it
    # made every later request of the session raise UnicodeEncodeError)
    assert "lone \ufffd surrogate" in texts and "and the next reply is saved too" in texts


@pytest.mark.parametrize("output", ["jsonl", "json"])
def test_json_output_holds_no_lone_surrogate(output: str, run_cli: RunCli, script: Script) -> None:
    """`\\ud800` in a jsonl TextBlockDelta is valid JSON, but Python's writer of the
    decoded string and serde_json refuse it: every event says U+FFFD, as the session does."""
    import json

    model = script(["text \ud800 lone", "unused"])
    r = run_cli("-p", "go", "--model", model, "--output-format", output, "--no-session")
    assert r.returncode == 0, r.stderr
    assert "\\ud800" not in r.stdout.lower()
    for line in r.stdout.splitlines():  # what a reader decodes can be written out as UTF-8
        json.dumps(json.loads(line), ensure_ascii=False).encode("utf-8")
    assert "text \ufffd lone" in r.stdout or "text \\ufffd lone" in r.stdout


def test_a_session_line_nested_too_deep_costs_only_itself(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    assert run_cli("-p", "remember kiwi", "--model", script(["kiwi noted"])).returncode == 0
    [info] = sessions(cli_env).list()
    with info.path.open("a") as f:
        f.write('{"kind":"message","message":' + "[" * 100_000 + "]" * 100_000 + "}\n")
    # each run takes 2-3 s here; 60 s was outrun on a loaded CI machine. A deadline
    # against a hang, not a speed check
    listed = run_cli("--resume", "x-none", timeout=300)  # every listing reads every session
    assert "Traceback" not in listed.stderr
    r = run_cli("--continue", "-p", "what did I say?", "--model", script(["kiwi."]), timeout=300)
    assert r.returncode == 0 and r.stdout == "kiwi.\n", r.stderr
    assert "line 5 is nested too deep to read; skipped" in r.stderr


# -- freezes -----------------------------------------------------------------------


def test_grep_with_a_backtracking_pattern_answers(run_cli: RunCli, workspace: Path, script: Script) -> None:
    (workspace / "dashes.txt").write_text(("-" * 10_000 + "\n") * 100)
    model = script([{"tool_calls": [{"name": "grep", "args": {"pattern": "(-+)+x"}}]}, "searched"])
    r = run_cli("-p", "search", "--model", model, "--output-format", "jsonl", timeout=60)
    assert r.returncode == 0, r.stderr
    [end] = [json.loads(x) for x in r.stdout.splitlines() if '"ToolExecutionEnd"' in x]
    assert end["result"]["content"].startswith("No matches for '(-+)+x' in . (1 files searched).")


def test_ctrl_c_under_a_flood_ends_the_reply_and_prints_nothing_after(
    cli_env: dict[str, str], workspace: Path
) -> None:
    with flood_server() as url:
        cli_env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test-0123456789abcdefghij")
        proc = subprocess.Popen(
            [sys.executable, "-m", "shell", "-p", "go", "--model", "openai:flood", "--output-format",
             "jsonl"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=cli_env,
            cwd=workspace,
        )
        assert proc.stdout is not None
        first = b""  # read from the descriptor, as communicate() reads the rest (a buffered
        while first.count(b"\n") < 200:  # reader's read-ahead would be lost between the two)
            first += os.read(proc.stdout.fileno(), 65536) or b"\n"
        assert first.count(b'"TextBlockDelta"') > 100  # the reply is well under way
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    last = json.loads(out.decode().strip().splitlines()[-1])
    assert last["type"] == "ReplyEnd" and last["stop_reason"] == "cancelled"
    # the end carries the partial message as printed, cut to CANCELLED_KEEP characters
    # with a marker (the whole flood's JSON was tens of MB, and the end and the exit
    # waited for it)
    lines = [json.loads(line) for line in (first + out).decode().splitlines()]
    printed = "".join(e["delta"] for e in lines if e["type"] == "TextBlockDelta")
    kept = "".join(block["text"] for block in last["message"]["content"])
    over = len(printed) - CANCELLED_KEEP
    cut = printed[:CANCELLED_KEEP] + (cut_marker(over) if over > 0 else "")
    assert kept == cut and len(out.splitlines()[-1]) < CANCELLED_KEEP + 2000
    assert b"Traceback" not in err


class Burst:
    """A provider as fast as a network read: thousands of deltas per turn of the loop."""

    name = "burst"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        while True:
            for _ in range(2000):
                yield TextDelta("word ")
            await anyio.lowlevel.checkpoint()


@pytest.mark.anyio
async def test_nothing_but_the_replys_end_is_printed_after_ctrl_c(tmp_path: Path) -> None:
    """In process, so the moment of the cancel is known exactly: every line written
    after Ctrl+C's handler ran is counted."""
    agent = Agent(Burst())
    options = RuntimeOptions(record=False, cwd=str(tmp_path))
    runtime = ShellRuntime(agent, settings=Settings(), workspace=Workspace(tmp_path), options=options)
    lines: list[str] = []
    streaming = anyio.Event()

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            lines.extend(text.splitlines())
            if len(lines) >= 500:
                streaming.set()
            return len(text)

    at_cancel: list[int] = []
    cancel = runtime.cancel

    def counted_cancel(shown: Any = None) -> None:
        at_cancel.append(len(lines))
        cancel(shown)

    runtime.cancel = counted_cancel  # type: ignore[method-assign]

    async def press_ctrl_c() -> None:
        await streaming.wait()
        os.kill(os.getpid(), signal.SIGINT)

    async with anyio.create_task_group() as tg:
        tg.start_soon(press_ctrl_c)
        code = await run_headless(runtime, "go", output_format="jsonl", out=Out(), err=io.StringIO())
    after = lines[at_cancel[0]:]
    assert code == 130
    assert [json.loads(x)["type"] for x in after] == ["ReplyEnd"], after[:3]
    assert json.loads(after[0])["stop_reason"] == "cancelled"


# -- secrets -----------------------------------------------------------------------


def test_config_output_hides_passwords_in_urls_and_known_keys(
    run_cli: RunCli, cli_env: dict[str, str], tmp_path: Path
) -> None:
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[providers.openai]\nbase_url = "http://bob:hunter2pass@10.0.0.5:8000/v1?api-key=abc123def456"\n'
        'api_key = "sk-proj-abcdefghijklmnopqrstuvwx"\n'
        '[mcp_servers.gh]\ncommand = "gh-mcp"\n'
        'args = ["--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]\n'
        'env = { GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }\n'
    )
    r = run_cli("config")
    assert r.returncode == 0, r.stderr
    for secret in ("hunter2pass", "abc123def456", "abcdefghijklmnopqrstuvwx", "ghp_abcdefghijklmnop"):
        assert secret not in r.stdout
    assert "http://bob:[REDACTED]@10.0.0.5:8000/v1?api-key=[REDACTED]" in r.stdout
    assert "api_key = sk-…uvwx" in r.stdout


def test_the_line_modes_history_is_private_and_without_secrets(
    cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    term = Terminal([sys.executable, "-m", "shell", "--plain", "--model", script(["noted", "ok"]),
                     "--no-session"], cli_env, workspace)
    term.wait_for(PROMPT.strip())
    term.type("my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz and password=hunter22\r")
    term.wait_for("noted")
    term.type("/quit\r")
    assert term.close() == 0
    history = Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "prompt-history.jsonl"  # shared with the TUI
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    text = history.read_text()
    assert '"my key is [REDACTED] and password=[REDACTED]"' in text
    assert "sk-ant" not in text and "hunter22" not in text


# -- files ---------------------------------------------------------------------------


def test_export_never_overwrites_without_force(
    cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    (workspace / "important.md").write_text("my notes\n")
    term = Terminal([sys.executable, "-m", "shell", "--plain", "--model", script(["hello"]), "--no-session",
                     "hi"], cli_env, workspace)
    term.wait_for("hello")
    term.type("/export important.md\r")
    at = term.wait_for(f"{workspace / 'important.md'} already exists; nothing was written. Give another "
                       "name, or `/export important.md --force` to overwrite it.")
    assert (workspace / "important.md").read_text() == "my notes\n"
    term.type("/export important.md --force\r")
    term.wait_for("Exported 2 messages to", after=at)
    term.type("/quit\r")
    assert term.close() == 0
    assert "## Assistant\n\nhello" in (workspace / "important.md").read_text()


def test_a_symlink_loop_does_not_fail_the_search(run_cli: RunCli, workspace: Path, script: Script) -> None:
    (workspace / "a.txt").write_text("needle\n")
    (workspace / "loop").symlink_to("loop")
    model = script([{"tool_calls": [{"name": "grep", "args": {"pattern": "needle"}}]}, "found"])
    r = run_cli("-p", "find", "--model", model, "--output-format", "jsonl")
    [end] = [json.loads(x) for x in r.stdout.splitlines() if '"ToolExecutionEnd"' in x]
    assert end["result"]["content"] == "a.txt:1: needle\n(1 symlink loop skipped (loop))"


# -- a full disk ------------------------------------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path, cli_env: dict[str, str]) -> Iterator[SmallDisk]:
    with small_disk(tmp_path / "small") as disk:
        cli_env["AGENT_SHELL_DATA_DIR"] = str(disk.root / "agent-shell")
        (disk.root / "agent-shell" / "sessions").mkdir(parents=True)
        yield disk


FULL = "The session could not be saved: the disk is full ("
KEPT = "Nothing is lost: the conversation stays in memory and is saved as soon as writing works again."


def test_a_full_disk_in_headless_is_one_message_and_exit_1(
    full_disk: SmallDisk, run_cli: RunCli, script: Script
) -> None:
    full_disk.fill()
    r = run_cli("-p", "hi", "--model", script(["the answer"]))
    assert r.stdout == "the answer\n"  # shown: nothing is withheld because saving failed
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"error: {FULL}") and line.endswith(KEPT)
    assert r.returncode == 1


def test_a_full_disk_in_the_line_mode_is_said_once_and_nothing_is_lost_when_space_returns(
    full_disk: SmallDisk, cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    full_disk.fill()
    model = script(["first answer", "second answer", "third answer"])
    term = Terminal([sys.executable, "-m", "shell", "--plain", "--model", model, "first"], cli_env, workspace)
    term.wait_for("first answer")
    term.type("second\r")
    term.wait_for("second answer")
    assert term.text.count(FULL) == 1 and KEPT in term.text
    full_disk.free()
    term.type("third\r")
    term.wait_for("third answer")
    term.wait_for("Saving works again: the session is complete in")
    term.type("/quit\r")
    assert term.close() == 0
    [info] = sessions(cli_env).list()
    texts = [m.text for m in load_session(info.path).messages]
    assert texts == ["first", "first answer", "second", "second answer", "third", "third answer"]


def test_continue_on_a_full_disk_says_so_in_one_line(
    full_disk: SmallDisk, run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    assert run_cli("-p", "remember kiwi", "--model", script(["kiwi noted"])).returncode == 0
    [info] = sessions(cli_env).list()
    with info.path.open("a") as f:  # a reply cut off: --continue must write its repair
        f.write('{"kind":"checkpoint","reply_id":"r","content":[{"type":"text","text":"half"}]}\n')
        room = -(f.tell() + 1) % 4096  # and the file's last page full, so any write needs a new one
        f.write(" " * room + "\n")
    full_disk.fill()
    r = run_cli("--continue", "-p", "what did I say?", "--model", script(["kiwi."]))
    assert r.stdout == "kiwi.\n"
    said = [x for x in r.stderr.splitlines() if FULL in x]
    assert len(said) == 1 and said[0].startswith(f"agent-shell: warning: {FULL}") and said[0].endswith(KEPT)
    assert "Errno" not in r.stderr and "Traceback" not in r.stderr
    assert r.returncode == 1


def test_a_mention_with_a_nul_byte_in_piped_text_is_words_not_a_traceback(
    run_cli: RunCli, script: Script
) -> None:
    """H8: a log or binary piped into ``-p`` can hold ``@~ab\\0c``; ``~ab\\0c`` is no
    user name or file, so the run goes on with it as words."""
    r = run_cli("-p", "summarise", "--model", script(["Summary."]), "--no-session",
                stdin="see @~ab\0c ok\nand @x\0y.txt too\n")
    assert "Traceback" not in r.stderr
    assert r.returncode == 0, r.stderr
    assert "Summary." in r.stdout
