"""The offline demo model: banner, Markdown, thinking, tool calls, summaries."""

from __future__ import annotations

import json

import pytest

from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage, UserMessage
from shell.core.model import ModelRequest, ThinkingDelta
from shell.core.tools import Tool, tool
from shell.providers.demo import DemoModel, plan, steps

from .helpers import Assembled, collect

pytestmark = pytest.mark.anyio


def make_tools() -> tuple[Tool, ...]:
    @tool(read_only=True)
    def read_file(path: str, offset: int = 1, limit: int = 2000) -> str:
        """Read."""
        return ""

    @tool(read_only=True)
    def list_dir(path: str = ".") -> str:
        """List."""
        return ""

    @tool
    def run_shell(command: str, timeout: float = 30) -> str:
        """Run."""
        return ""

    return (read_file, list_dir, run_shell)


async def ask(text: str, tools: tuple[Tool, ...] = ()) -> Assembled:
    model = DemoModel(delay=0)
    return Assembled(
        await collect(model, ModelRequest(model=model, messages=(UserMessage(text),), tools=tools))
    )


async def test_first_reply_says_it_is_a_demo_and_how_to_connect() -> None:
    got = await ask("What is the meaning of life?")
    assert "Demo model" in got.text and "ANTHROPIC_API_KEY" in got.text and "--model" in got.text
    assert "## What you can try" in got.text
    assert got.thinking and got.stop == "end_turn" and not got.calls


async def test_markdown_showcase_has_headings_lists_code_and_a_table() -> None:
    got = await ask("show me some markdown")
    for part in ("# Markdown showcase", "1. First item", "```python", "| Provider  |"):
        assert part in got.text


async def test_streams_in_small_deltas() -> None:
    model = DemoModel(delay=0, chunk_size=5)
    request = ModelRequest(model=model, messages=(UserMessage("hello"),))
    chunks = await collect(model, request)
    assert len(chunks) > 50
    assert any(isinstance(c, ThinkingDelta) for c in chunks)


async def test_calls_a_tool_that_is_offered() -> None:
    got = await ask("read README.md", make_tools())
    assert got.stop == "tool_use"
    ((_call_id, name, args),) = got.tool_calls()
    assert (name, args) == ("read_file", {"path": "README.md", "offset": 1, "limit": 200})
    assert make_tools()[0].validate(args) == args


async def test_never_calls_a_tool_that_is_not_offered() -> None:
    got = await ask("write hello to notes.txt", make_tools())
    assert not got.calls and got.stop == "end_turn"
    assert "`write_file`" in got.text and "not enabled" in got.text


async def test_summarises_a_tool_result() -> None:
    model = DemoModel(delay=0)
    messages = (
        UserMessage("run `ls`"),
        AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": "ls"}),)),
        ToolResultMessage("c1", "run_shell", "a.txt\nb.txt\n"),
    )
    got = Assembled(await collect(model, ModelRequest(model=model, messages=messages, tools=make_tools())))
    assert got.stop == "end_turn" and not got.calls
    assert "### Result of `run_shell`" in got.text and "a.txt\nb.txt" in got.text and "2 lines" in got.text


async def test_summarises_an_error_result() -> None:
    model = DemoModel(delay=0)
    messages = (
        UserMessage("read x.txt"),
        ToolResultMessage("c1", "read_file", "No such file", is_error=True),
    )
    got = Assembled(await collect(model, ModelRequest(model=model, messages=messages)))
    assert "### `read_file` returned an error" in got.text and "No such file" in got.text


async def test_an_error_result_keeps_its_lines_and_is_made_safe() -> None:
    """A failed command's output was folded into one paragraph (``1 2 3 … % Total``),
    unlike an ok result; its text is hostile, so escapes are shown, not obeyed."""
    model = DemoModel(delay=0)
    output = "exit code 7\n1\n2\n3\n  % Total    % Received\nevil \x1b[2J\x1b]0;title\x07 ```\n" + "x\n" * 30
    messages = (
        UserMessage("run curl"),
        AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": "curl"}),)),
        ToolResultMessage("c1", "run_shell", output, is_error=True),
    )
    got = Assembled(await collect(model, ModelRequest(model=model, messages=messages, tools=make_tools())))
    assert "### `run_shell` returned an error" in got.text
    assert "````\nexit code 7\n1\n2\n3\n  % Total    % Received\n" in got.text  # lines kept, fence longer
    assert "\x1b" not in got.text and "\x07" not in got.text and "2J" in got.text
    assert "more lines" in got.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("list the files in src", ("list_dir", {"path": "src"})),
        ("what's in this directory?", ("list_dir", {"path": "."})),
        ("find all *.py files in shell", ("glob", {"pattern": "**/*.py", "path": "shell"})),
        ("search for TODO in *.py files", ("grep", {"pattern": "TODO", "path": ".", "glob": "*.py"})),
        ("grep 'def main' in shell", ("grep", {"pattern": "def main", "path": "shell"})),
        ("write hello to notes.txt", ("write_file", {"path": "notes.txt", "content": "hello\n"})),
        (
            "replace foo with bar in notes.txt",
            (
                "edit_file",
                {"path": "notes.txt", "old_string": "foo", "new_string": "bar", "replace_all": False},
            ),
        ),
        ("run `ls -la`", ("run_shell", {"command": "ls -la", "timeout": 30})),
        # dotfiles, the first thing a user tries to see the secret guard ask
        ("read .env", ("read_file", {"path": ".env", "offset": 1, "limit": 200})),
        ("read ~/.ssh/id_rsa", ("read_file", {"path": "~/.ssh/id_rsa", "offset": 1, "limit": 200})),
        ("show src/.env.local", ("read_file", {"path": "src/.env.local", "offset": 1, "limit": 200})),
        ("tell me a joke", None),
    ],
)
def test_plan(text: str, expected: object) -> None:
    assert plan(text) == expected


async def test_tool_arguments_are_valid_json() -> None:
    got = await ask("run `echo 'hi there'`", make_tools())
    raw = got.calls[0]["args"]
    assert json.loads(raw) == {"command": "echo 'hi there'", "timeout": 30}


def write_tools() -> tuple[Tool, ...]:
    @tool
    def write_file(path: str, content: str) -> str:
        """Write."""
        return ""

    return (*make_tools(), write_file)


async def test_each_step_of_a_request_names_its_own_file() -> None:
    """ "read app.py and then write notes.txt" reads app.py, then writes notes.txt:
    the write never targets the file the user asked to read."""
    said = "read app.py and then write a file notes.txt saying hello"
    model = DemoModel(delay=0)
    first = Assembled(
        await collect(model, ModelRequest(model=model, messages=(UserMessage(said),), tools=write_tools()))
    )
    assert [(name, args["path"]) for _, name, args in first.tool_calls()] == [("read_file", "app.py")]
    messages = (
        UserMessage(said),
        AssistantMessage((ToolCallBlock("c1", "read_file", {"path": "app.py"}),)),
        ToolResultMessage("c1", "read_file", "print('hi')\n"),
    )
    second = Assembled(
        await collect(model, ModelRequest(model=model, messages=messages, tools=write_tools()))
    )
    assert second.stop == "tool_use" and "### Result of `read_file`" in second.text
    assert [(n, a) for _, n, a in second.tool_calls()] == [
        ("write_file", {"path": "notes.txt", "content": "hello\n"})
    ]
    done = (
        *messages,
        AssistantMessage((ToolCallBlock("c2", "write_file", {"path": "notes.txt", "content": "hello\n"}),)),
        ToolResultMessage("c2", "write_file", "Wrote notes.txt"),
    )
    third = Assembled(await collect(model, ModelRequest(model=model, messages=done, tools=write_tools())))
    assert third.stop == "end_turn" and not third.calls


async def test_a_rejected_step_ends_the_request() -> None:
    said = "read app.py and then write a file notes.txt saying hello"
    model = DemoModel(delay=0)
    messages = (
        UserMessage(said),
        AssistantMessage((ToolCallBlock("c1", "read_file", {"path": "app.py"}),)),
        ToolResultMessage("c1", "read_file", "The user rejected the call.", is_error=True),
    )
    got = Assembled(await collect(model, ModelRequest(model=model, messages=messages, tools=write_tools())))
    assert got.stop == "end_turn" and not got.calls


def test_a_quoted_command_then_is_not_a_step() -> None:
    assert steps("run `if true; then echo y; fi`") == ["run `if true; then echo y; fi`"]
    assert steps("read a.py, then list the files in src") == ["read a.py", "list the files in src"]
