"""The line mode driven through a prompt-toolkit pipe: chat, approvals, toggles, cancel."""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from shell.config import Settings
from shell.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.plain import PlainShell
from shell.plain_reply import MarkdownStream
from shell.plain_start import PROMPT
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


def write_call(content: str = "new", path: str = "a.txt") -> AssistantMessage:
    return AssistantMessage(
        (TextBlock("Writing."), ToolCallBlock("c1", "write_file", {"path": path, "content": content}))
    )


@dataclass
class Driver:
    shell: PlainShell
    pipe: PipeInput
    out: io.StringIO
    runtime: ShellRuntime
    result: list[int]

    @property
    def text(self) -> str:
        return self.out.getvalue()

    async def wait_for(self, text: str, timeout: float = 5.0) -> None:
        with anyio.fail_after(timeout):
            while text not in self.text:  # noqa: ASYNC110 (polling what the console printed)
                await anyio.sleep(0.01)

    async def until(self, condition: Callable[[], bool], timeout: float = 30.0) -> None:
        """Let the shell run until ``condition()`` (a state, not what it printed)."""
        with anyio.fail_after(timeout):
            while not condition():  # noqa: ASYNC110 (polling the shell's state)
                await anyio.sleep(0.01)

    async def send(self, keys: str, then: str | None = None) -> None:
        self.pipe.send_text(keys)
        if then is not None:
            await self.wait_for(then)


@asynccontextmanager
async def line_mode(
    tmp_path: Path, turns: list[Any], history: Sequence[Message] = (), resume: str | None = None,
    **model_kw: Any,
) -> AsyncIterator[Driver]:
    """``resume``: a session's id in the data dir, resumed (and recorded) as --resume does."""
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=resume is not None),
        settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel(turns, **model_kw),
    )
    runtime.agent.messages.extend(history)  # as a resumed session leaves it
    if resume is not None:
        runtime.resume(resume)
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    with create_pipe_input() as pipe:
        history = InMemoryHistory()
        shell = PlainShell(runtime, console=console, input=pipe, output=DummyOutput(), history=history)
        result: list[int] = []
        done = anyio.Event()

        async def run() -> None:
            result.append(await shell.run())
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            driver = Driver(shell, pipe, out, runtime, result)
            yield driver
            with anyio.fail_after(5):
                await done.wait()


async def test_chat_streams_markdown(tmp_path: Path) -> None:
    answer = (
        "# Title\n\nSome **bold** text\n- one\n- two\n\n```python\nprint('hi')\n```\n\x1b]0;pwned\x07done"
    )
    async with line_mode(tmp_path, [answer]) as d:
        await d.send("hello\r", then="done")
        await d.send("/quit\r")
    assert d.result == [0]
    text = d.text
    assert "Title" in text and "Some bold text" in text
    assert "• one" in text and "• two" in text
    assert "print('hi')" in text and "```" not in text
    assert "\x1b" not in text and "\x07" not in text and "␛]0;pwned␇done" in text  # shown, harmless


async def test_approve_runs_the_tool(tmp_path: Path) -> None:
    async with line_mode(tmp_path, [write_call(), "Done."]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("y", then="Done.")
        await d.send("/quit\r")
    assert (tmp_path / "a.txt").read_text() == "new"
    assert "✓ write_file" in d.text


async def test_always_is_remembered(tmp_path: Path) -> None:
    """"Always" proposes a rule (accepted as is with Esc Enter), kept for the session."""
    turns = [write_call("1"), "First.", write_call("2"), "Second.",
             write_call("3", path="sub/b.txt"), "Third."]
    async with line_mode(tmp_path, turns) as d:
        await d.send("write\r", then="? write_file")
        await d.send("a", then="rule(s) to remember")
        await d.send("\x1b\r", then="this session")
        await d.send("s", then="First.")
        assert "remembered in session: write_file(a.txt)" in d.text
        await d.send("again\r", then="Second.")
        await d.send("elsewhere\r", then="? write_file")  # the rule names a.txt, not sub/b.txt
        await d.send("y", then="Third.")
        await d.send("/permissions\r", then="this session")
        await d.send("/quit\r")
    assert d.text.count("? write_file") == 2
    assert (tmp_path / "a.txt").read_text() == "2"
    assert "allow write_file(a.txt)" in d.text


async def test_a_thought_is_printed_before_the_answer_it_led_to(tmp_path: Path) -> None:
    # The loop holds a block's end until the whole message is kept, so a thought printed
    # at its end came out after the answer that followed it.
    answer = TextBlock("Take the second.\n\nIt is shorter.\n\nDone.")
    turn = AssistantMessage((ThinkingBlock("Weigh the two options."), answer))
    async with line_mode(tmp_path, [turn]) as d:
        await d.send("which?\r", then="Done.")
        await d.send("/quit\r")
    text = d.text
    assert text.count("Weigh the two options.") == 1
    assert text.index("┊ Weigh the two options.") < text.index("Take the second.")


async def test_a_resumed_conversation_shows_where_it_left_off(tmp_path: Path) -> None:
    # The line mode starts on an empty scrollback: --continue said nothing at all.
    answer = "\x1b]0;pwned\x07\n" + "\n".join(f"- item{i}." for i in range(1, 31))
    history = [UserMessage("first question"), AssistantMessage((TextBlock("old answer"),)),
               UserMessage("what next?"), AssistantMessage((TextBlock(answer),))]
    async with line_mode(tmp_path, ["Fine."], history=history) as d:
        await d.wait_for("Where it left off")
        await d.send("/quit\r")
    text = d.text
    assert "4 messages" in text and f"{PROMPT}what next?" in text and "first question" not in text
    assert "item11." in text and "item12." not in text and "19 more lines" in text
    assert "\x1b" not in text


async def test_reject_with_a_reason(tmp_path: Path) -> None:
    async with line_mode(tmp_path, [write_call(), "Fine."]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("n")
        await d.send("not today\r", then="Fine.")
        await d.send("/quit\r")
    assert not (tmp_path / "a.txt").exists()
    result = next(m for m in d.runtime.agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and "not today" in str(result.content)
    assert "⊘ write_file" in d.text


async def test_edit_inline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    async with line_mode(tmp_path, [write_call("one"), "Edited."]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("e", then="Esc then Enter")
        # Up to the "content" line, to its end, replace `one"` by `EDITED"`, accept.
        await d.send("\x1b[A\x1b[F" + "\x7f" * 4 + 'EDITED"')
        await d.send("\x1b\r", then="Edited.")
        await d.send("/quit\r")
    assert (tmp_path / "a.txt").read_text() == "EDITED"


async def test_edit_with_editor_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "editor.py"
    # First edit: a wrong type (schema error, re-prompted); second: good.
    editor.write_text(
        "import json, pathlib, sys\n"
        f"marker = pathlib.Path({str(tmp_path / 'marker')!r})\n"
        "p = pathlib.Path(sys.argv[1]); args = json.loads(p.read_text())\n"
        "args['content'] = 'edited' if marker.exists() else 42\n"
        "marker.touch(); p.write_text(json.dumps(args))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    async with line_mode(tmp_path, [write_call(), "Edited."]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("e", then="not used")
        await d.send("e", then="Edited.")
        await d.send("/quit\r")
    assert (tmp_path / "a.txt").read_text() == "edited"


async def test_toggle_middleware_off_skips_approval(tmp_path: Path) -> None:
    async with line_mode(tmp_path, [write_call(), "Done."]) as d:
        await d.send("/middleware humanintheloop off\r", then="HumanInTheLoop: off")
        await d.send("write\r", then="Done.")
        await d.send("/middleware\r", then="○ HumanInTheLoop")
        await d.send("/quit\r")
    assert "? write_file" not in d.text
    assert (tmp_path / "a.txt").read_text() == "new"


async def test_unknown_command_and_help(tmp_path: Path) -> None:
    async with line_mode(tmp_path, []) as d:
        await d.send("/nope\r", then="Unknown command /nope")
        await d.send("/help\r", then="/middleware")
        await d.send("/tools\r", then="write_file")
        await d.send("/model\r", then="scripted")
        await d.send("/quit\r")
    assert d.runtime.agent.messages == []


async def test_ctrl_c_in_the_approval_prompt_cancels(tmp_path: Path) -> None:
    async with line_mode(tmp_path, [write_call(), "never"]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("\x03", then="cancelled")
        await d.send("/quit\r")
    assert not (tmp_path / "a.txt").exists()


async def test_ctrl_c_in_an_approvals_words_goes_back_to_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C in the edit box, the rules box or the reason raised KeyboardInterrupt
    and ended the shell (exit 130, a traceback); each goes back to the question."""
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    async with line_mode(tmp_path, [write_call(), "Fine."]) as d:
        await d.send("write\r", then="? write_file")
        for key in ("e", "a", "n"):
            before = d.text.count("(back to the question)")
            await d.send(key)
            await d.until(lambda: d.shell.approval.app.is_running)  # the words' box, which Ctrl+C leaves
            await d.send("\x03")
            with anyio.fail_after(5):
                while d.text.count("(back to the question)") == before:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
        await d.send("n")
        await d.send("not now\r", then="Fine.")
        await d.send("/quit\r")
    assert d.result == [0]
    result = next(m for m in d.runtime.agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and "not now" in str(result.content)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_ctrl_c_cancels_a_streaming_reply(tmp_path: Path) -> None:
    long = "word " * 400
    async with line_mode(tmp_path, [long, "next answer"], delay=0.01) as d:
        await d.send("go\r")
        with anyio.fail_after(30):  # the reply has begun (a fixed 0.3 s came too early under load)
            while not d.runtime.agent.model.requests:  # type: ignore[attr-defined]  # noqa: ASYNC110
                await anyio.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)
        await d.wait_for("cancelled", timeout=30)
        await d.send("again\r", then="next answer")
        await d.send("/quit\r")
    assert d.result == [0]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_ctrl_c_keeps_what_was_printed_not_the_line_still_coming(tmp_path: Path) -> None:
    """The line mode prints a completed line at a time: the line still streaming at
    Ctrl+C was never printed, so the history (what the model reads next) ends where
    the screen does."""
    shown = "Line one is here.\nLine two is here.\n"
    long = shown + "an unfinished line that goes on " * 200
    async with line_mode(tmp_path, [long, "next answer"], delay=0.01, chunk_size=8) as d:
        await d.send("go\r", then="Line two is here.")
        await d.until(lambda: d.shell.drawing is not None and d.shell.drawing.stream is not None
                      and d.shell.drawing.stream.unprinted > 0)  # part of the unfinished line has come
        os.kill(os.getpid(), signal.SIGINT)
        await d.wait_for("Reply cancelled.")
        cut = d.runtime.agent.messages[-1]
        await d.send("/quit\r")
    assert isinstance(cut, AssistantMessage) and cut.stop_reason == "cancelled"
    assert cut.text == shown
    assert "an unfinished" not in d.text


async def test_two_ctrl_c_on_an_empty_prompt_quit(tmp_path: Path) -> None:
    async with line_mode(tmp_path, []) as d:
        await d.send("some text\x03", then="")  # with text: clears the line only
        await d.send("\x03", then="Ctrl+C again")
        await d.send("\x03")
    assert d.result == [0]


async def test_ctrl_d_quits(tmp_path: Path) -> None:
    async with line_mode(tmp_path, []) as d:
        await d.send("\x04")
    assert d.result == [0]


def test_markdown_stream_renders_blocks_once_complete() -> None:
    out = io.StringIO()
    stream = MarkdownStream(Console(file=out, width=60, force_terminal=False, color_system=None))
    text = "Intro line\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode here\n```\nafter"
    seen: list[str] = []
    for i in range(0, len(text), 3):
        stream.feed(text[i : i + 3])
        seen.append(out.getvalue())
    stream.finish()
    final = out.getvalue()
    # The table appears only once its last row is complete, in one piece.
    first_table = next(s for s in seen if "─" in s)
    assert "1" in first_table.split("─", 1)[1]
    assert "code here" in final and final.index("code here") < final.index("after")
    assert final.startswith("Intro line\n")


def test_markdown_stream_shows_a_code_block_as_it_streams() -> None:
    """A long code block is not a silent wait: each line shows once complete."""
    out = io.StringIO()
    stream = MarkdownStream(Console(file=out, width=60, force_terminal=False, color_system=None))
    stream.feed("Here:\n```python\nx = 1\ny = ")
    assert "x = 1" in out.getvalue() and "y =" not in out.getvalue()
    stream.feed("2\n")
    assert "y = 2" in out.getvalue()
    stream.feed("```\nafter\n")
    stream.finish()
    final = out.getvalue()
    assert "```" not in final and final.index("y = 2") < final.index("after")


def test_markdown_stream_keeps_an_unfinished_fence() -> None:
    out = io.StringIO()
    stream = MarkdownStream(Console(file=out, width=60, force_terminal=False, color_system=None))
    stream.feed("```python\nx = 1\nlast")
    stream.finish()
    assert "x = 1" in out.getvalue() and "last" in out.getvalue()



async def test_rewind_is_a_numbered_list_then_a_preview_then_done(tmp_path: Path) -> None:
    """``/rewind`` in the line mode: the messages numbered, what would change and one
    question (its numbers the preview's), and the chosen message back in the prompt
    (sent again here with Enter)."""
    turns = [write_call("1"), "First.", write_call("2"), "Second.", "Again."]
    async with line_mode(tmp_path, turns) as d:
        await d.send("/middleware humanintheloop off\r", then="HumanInTheLoop: off")
        await d.send("make one\r", then="First.")
        await d.send("make two\r", then="Second.")
        await d.send("/rewind\r", then="make two")
        assert " 1. " in d.text and " 2. " in d.text
        await d.send("/rewind 2\r", then="There is no undo.")
        assert "restore a.txt" in d.text
        said = " ".join(d.text.split())
        counts = "1 message of yours, 2 model turns and 1 tool result"
        assert said.count(counts) == 2, said  # the preview and the question say the same
        assert said.count("?") == 1 and "/rewind 2 both" not in said  # one question, not two
        assert (tmp_path / "a.txt").read_text() == "2"
        await d.send("b", then="back to before that message")
        assert (tmp_path / "a.txt").read_text() == "1"
        await d.send("\r", then="Again.")  # the prompt held "make two"
        await d.send("/quit\r")
    sent = [m.text for m in d.runtime.agent.messages if type(m).__name__ == "UserMessage"]
    assert sent == ["make one", "make two"]


async def test_rewind_after_compact_previews_what_it_then_does(tmp_path: Path) -> None:
    """Issue 19: hello one, hello two, /compact, /rewind 2 said "nothing to remove";
    the preview now says the pre-compaction messages come back, and they do."""

    async def said(d: Driver, words: str) -> str:
        with anyio.fail_after(5):
            while words not in " ".join(d.text.split()):  # noqa: ASYNC110 (the console wraps lines)
                await anyio.sleep(0.01)
        return " ".join(d.text.split())

    long = " Here is a long answer, for a summary to be shorter than the history." * 5
    one, two = "Reply one." + long, "Reply two." + long
    async with line_mode(tmp_path, [one, two, "SUMMARY: two hellos.", "Again."]) as d:
        await d.send("hello one\r", then="Reply one.")
        await d.send("hello two\r", then="Reply two.")
        await d.send("/compact\r", then="Compacted")
        await d.send("/rewind 2\r")
        shown = await said(d, "There is no undo.")
        assert "nothing to remove" not in shown
        assert "summarised by a compaction, so the conversation goes back to how it was before the" in shown
        assert "the 2 message(s) before it that the summary had replaced come back in full" in shown
        await d.send("c")
        await said(d, "as it was before the compaction that summarised it")
        assert [m.text for m in d.runtime.agent.messages] == ["hello one", one]
        await d.send("\r", then="Again.")  # the prompt held "hello two"
        await d.send("/quit\r")
    assert [m.text for m in d.runtime.agent.messages] == ["hello one", one, "hello two", "Again."]


async def test_at_completes_files_and_the_message_carries_them(tmp_path: Path) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from shell.plain_complete import SlashCompleter

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    return 42\n")
    (tmp_path / "my notes.md").write_text("n")
    async with line_mode(tmp_path, ["It returns 42."]) as d:
        assert d.runtime.file_index.wait(10)
        completer = SlashCompleter(d.runtime, d.shell.commands)
        offered = [c.text for c in completer.get_completions(Document("what does @ap"), CompleteEvent())]
        assert offered[0] == "@src/app.py"
        spaced = [c.text for c in completer.get_completions(Document("@notes"), CompleteEvent())]
        assert spaced == ['@"my notes.md"']
        await d.send("what does @src/app.py do?\r", then="It returns 42.")
        await d.send("/quit\r")
    assert "▤ @src/app.py · 2 lines" in d.text
    sent = d.runtime.agent.messages[0]
    assert "return 42" in sent.text  # type: ignore[union-attr]


async def test_a_refused_attachment_is_not_sent(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01")
    async with line_mode(tmp_path, ["never"]) as d:
        await d.send("look at @blob.bin\r", then="Not sent")
        await d.send("\x03")  # the text came back to the prompt: Ctrl+C clears it
        await d.send("/quit\r")
    assert "binary file" in d.text and d.runtime.agent.messages == []


async def test_a_command_typed_after_a_message_put_back_runs_and_the_message_stays(tmp_path: Path) -> None:
    """The refusal's advice (``/image clear``) typed at the prompt that held the message
    made ``describe it/image clear``, refused again (finding V6)."""
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01")
    async with line_mode(tmp_path, ["never"]) as d:
        await d.send("look at @blob.bin\r", then="Not sent")
        await d.send("/help\r", then="/quit")
        await d.send("\r")  # the message came back again: Enter sends it as it was
        await d.until(lambda: d.text.count("Not sent") == 2)
        await d.send("\x03")
        await d.send("/quit\r")
    assert d.text.count("Not sent") == 2 and d.runtime.agent.messages == []


async def test_custom_command_and_copy_in_the_line_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(config))
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "greet.md").write_text("Say hello to $ARGUMENTS.")
    async with line_mode(tmp_path, ["Hello, team!"]) as d:
        await d.send("/greet the team\r", then="Hello, team!")
        await d.send("/copy\r", then="Nothing was copied")  # no terminal here: said, not pretended
        await d.send("/quit\r")
    assert d.runtime.agent.messages[0].text == "Say hello to the team."


async def test_a_message_whose_call_failed_comes_back_to_the_prompt(tmp_path: Path) -> None:
    """Finding B2: kept, it went out glued to the next message."""
    from shell.core.model import ModelError

    refused = ModelError("Could not connect to http://127.0.0.1:9/v1. Is the server running?", retryable=True)
    async with line_mode(tmp_path, [refused, "It is noon."]) as d:
        await d.send("delete the logs\r", then="back at the prompt")
        assert d.runtime.agent.messages == []
        await d.send("\x15what time is it?\r", then="It is noon.")  # Ctrl+U: the line cleared first
        await d.send("/quit\r")
    assert "taken back out of the conversation" in d.text
    assert [m.text for m in d.runtime.agent.messages] == ["what time is it?", "It is noon."]


async def test_a_message_too_long_for_the_context_comes_back_to_the_prompt(tmp_path: Path) -> None:
    """G11: it is not kept in the conversation (every later message would fail too);
    Enter sends it again as it was."""
    from shell.core.model import ModelError

    overflow = ModelError("llama says the conversation does not fit the model's context window.",
                          context_overflow=True)
    async with line_mode(tmp_path, [overflow, "Fits now."]) as d:
        await d.send("a long paste\r", then="back at the prompt")
        assert d.runtime.agent.messages == []
        await d.send("\r", then="Fits now.")
        await d.send("/quit\r")
    assert "taken back out of the conversation" in d.text
    assert [m.text for m in d.runtime.agent.messages] == ["a long paste", "Fits now."]  # type: ignore[union-attr]


async def test_rewind_answered_no_keeps_the_conversation_and_the_files(tmp_path: Path) -> None:
    turns = [write_call("1"), "First.", write_call("2"), "Second."]
    async with line_mode(tmp_path, turns) as d:
        await d.send("/middleware humanintheloop off\r", then="HumanInTheLoop: off")
        await d.send("make one\r", then="First.")
        await d.send("make two\r", then="Second.")
        before = list(d.runtime.agent.messages)
        await d.send("/rewind 1\r", then="There is no undo.")
        await d.send("n", then="Nothing changed")
        assert d.runtime.agent.messages == before and (tmp_path / "a.txt").read_text() == "2"
        await d.send("/rewind 2\r")
        await d.until(lambda: d.text.count("There is no undo.") == 2)
        d.pipe.send_text("\x1b")  # Esc: the same
        await d.until(lambda: d.text.count("Nothing changed") == 2)
        await d.send("/quit\r")
    assert d.runtime.agent.messages == before and (tmp_path / "a.txt").read_text() == "2"


async def test_an_enter_typed_with_the_rewind_answer_does_not_send_the_message_back(tmp_path: Path) -> None:
    """`b` and a habitual Enter in one burst: the Enter re-sent the message /rewind had
    just put back in the prompt (finding T9). The answer is one key; what came with it
    is dropped, and the message waits in the prompt to be edited."""
    turns = [write_call("1"), "First.", write_call("2"), "Second.", "Again."]
    async with line_mode(tmp_path, turns) as d:
        await d.send("/middleware humanintheloop off\r", then="HumanInTheLoop: off")
        await d.send("make one\r", then="First.")
        await d.send("make two\r", then="Second.")
        await d.send("/rewind 2\r", then="There is no undo.")
        await d.send("b\r", then="back to before that message")
        await d.wait_for("Your message is back in the prompt")  # said, as /fork says it (T9)
        await d.send(", carefully\r", then="Again.")
        await d.send("/quit\r")
    sent = [m.text for m in d.runtime.agent.messages if type(m).__name__ == "UserMessage"]
    assert sent == ["make one", "make two, carefully"]
