"""``DemoModel``: the offline default, so the shell does something real out of the box.

It says plainly that it is a demo and how to connect a real model, and it
exercises everything the UI renders: streamed Markdown (headings, lists, code, a
table) in small deltas with a little delay, a short thinking block, and tool calls
to the built-in tools when the user asks to list, read, search, write, edit or run
something (so approvals and tool spans show up). After a tool result it
summarises the result in Markdown and ends the turn, so the loop never spins.

It only calls a tool present in ``request.tools``; otherwise it explains which
tool it would have used. Intents are read with a few regular expressions: good
enough for a demo, and deterministic for tests (``delay=0``).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio

from shell.core.attached import own_words, parts_of
from shell.core.messages import ToolResultMessage, Usage, UserMessage
from shell.core.model import (
    ModelChunk,
    ModelRequest,
    StopChunk,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageChunk,
)
from shell.core.textsafety import sanitize

from .scripted import estimate_tokens

BANNER = (
    "> **Demo model** — offline and scripted, not a real AI. To connect a real one, set "
    "`ANTHROPIC_API_KEY` or `OPENAI_API_KEY` (plus `OPENAI_BASE_URL` for a compatible server), "
    "start [Ollama](https://ollama.com), or pass `--model provider:name` "
    "(e.g. `--model ollama:llama3.2`).\n\n"
)

HELP = """## What you can try

The demo understands a few requests and calls the matching built-in tool:

- **list** files: *"list the files in src"* → `list_dir`
- **read** a file: *"read README.md"* → `read_file`
- **find** files: *"find `*.py` files"* → `glob`
- **search** text: *"search for hello"* → `grep`
- **write** a file: *"write hello to notes.txt"* → `write_file`
- **edit** a file: *"replace foo with bar in notes.txt"* → `edit_file`
- **run** a command: *"run `ls -la`"* → `run_shell`
- *"show some markdown"* for a rendering showcase

Tools that change things ask for your approval first.
"""

SHOWCASE = """# Markdown showcase

Streaming **bold**, *italic*, `inline code` and [a link](https://example.com).

## A list

1. First item
2. Second item with a nested list:
   - nested one
   - nested two

## Code

```python
async def main() -> None:
    async for event in agent.reply("hello"):
        print(event)
```

## A table

| Provider  | Spec                 | Needs               |
|-----------|----------------------|---------------------|
| Anthropic | `anthropic:NAME`     | `ANTHROPIC_API_KEY` |
| OpenAI    | `openai:NAME`        | `OPENAI_API_KEY`    |
| Ollama    | `ollama:NAME`        | a running Ollama    |

> Block quotes render too.
"""

_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'")
# A path as people type it: with an extension (``src/app.py``), a dotfile (``.env``,
# ``~/.ssh/id_rsa``: the first thing a user tries to see the secret guard), or a folder.
_PATHLIKE = re.compile(
    r"(?<![\w*])((?:\.{1,2}/|~/|/)?(?:[\w.\-]+/)*(?:[\w.\-]+\.\w+|\.\w[\w\-]*(?:/[\w.\-]+)*)"
    r"|(?:\.{1,2}/|/)[\w.\-/]*)"
)
_GLOB = re.compile(r"(\S*[*?]\S*)")


def _quoted(text: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text)]


def _path(text: str, default: str | None = None) -> str | None:
    m = _PATHLIKE.search(text)
    return m.group(1).rstrip(".,;:") if m else default


def _where(text: str) -> str:
    """The folder after "in"/"of"/"under", ignoring words like "this" and globs."""
    for m in re.finditer(r"\b(?:in|of|under|inside)\s+([\w./~\-]+)(?=[\s?.!,]|$)", text):
        word = m.group(1).rstrip(".")
        if word and word.lower() not in {"this", "the", "current", "here", "my", "a", "all"}:
            return word
    return "."


_THEN = re.compile(
    r"\s*(?:[,;]\s*|\band\s+)?\bthen\b\s*"
    r"|\s*(?:,|;|\band)\s+(?=(?:read|open|cat|show|view|write|create|save|list|run|execute|search|grep|find|"
    r"edit|replace|change)\b)",
    re.I,
)


def steps(text: str) -> list[str]:
    """A request cut into its steps ("read app.py and then write notes.txt"): each
    step is planned on its own, so each names its own file (a quoted command's
    ``then`` is no cut)."""
    inside = [m.span() for m in _QUOTED.finditer(text)]
    parts, start = [], 0
    for m in _THEN.finditer(text):
        if m.start() == 0 or any(a <= m.start() < b for a, b in inside):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()] or [text]


def plan(text: str) -> tuple[str, dict[str, Any]] | None:
    """The built-in tool call a request asks for, or ``None``."""
    lower = text.lower()
    quoted = _quoted(text)
    if re.search(r"\b(run|execute|exec)\b", lower) or lower.startswith("$"):
        command = quoted[0] if quoted else re.split(r"\b(?:run|execute|exec)\b\s*", text, maxsplit=1)[-1]
        command = command.lstrip("$ ").strip() or "ls"
        return "run_shell", {"command": command, "timeout": 30}
    if re.search(r"\b(replace|edit|change)\b", lower):
        m = re.search(r"(?:replace|change)\s+(\S+)\s+(?:with|to|by)\s+(\S+)(?:\s+in\s+(\S+))?", text, re.I)
        if m:
            old, new = m.group(1).strip("'\"`"), m.group(2).strip("'\"`")
            path = (m.group(3) or _path(text, "notes.txt") or "notes.txt").strip("'\"`")
            return "edit_file", {"path": path, "old_string": old, "new_string": new, "replace_all": False}
    if re.search(r"\b(write|create|save)\b", lower):
        path = _path(text, "notes.txt") or "notes.txt"
        m = re.search(r"\b(?:write|save)\s+(.+?)\s+(?:to|into|in)\s+\S+", text, re.I) or re.search(
            r"\b(?:saying|that says|with the text|containing)\s+(.+)$", text, re.I
        )
        said = m.group(1).rstrip(".!") if m else "Hello from the agent-shell demo!"
        content = quoted[0] if quoted else said
        return "write_file", {"path": path, "content": content.rstrip("\n") + "\n"}
    if re.search(r"\b(search|grep|look for)\b", lower) or re.search(
        r"\bfind\b.*\b(text|word|string)\b", lower
    ):
        m = re.search(r"\b(?:for|grep)\s+(\S+)", text, re.I)
        pattern = quoted[0] if quoted else (m.group(1) if m else "def ")
        args: dict[str, Any] = {"pattern": pattern.strip("'\"`"), "path": _where(text)}
        glob = _GLOB.search(text.replace(pattern, ""))
        if glob:
            args["glob"] = glob.group(1)
        return "grep", args
    glob = _GLOB.search(text)
    if glob and re.search(r"\b(find|glob|which|files?)\b", lower):
        pattern = glob.group(1).strip("'\"`")
        return "glob", {"pattern": pattern if "/" in pattern else f"**/{pattern}", "path": _where(text)}
    if re.search(r"\b(read|open|cat|show|view)\b", lower) and _path(text):
        return "read_file", {"path": _path(text), "offset": 1, "limit": 200}
    if re.search(r"\b(list|ls|dir|directory|folder|files)\b", lower):
        where = _where(text)
        return "list_dir", {"path": where if where != "." else _path(text, ".") or "."}
    return None


READ_CHARS = 4000
"""How much of the user's message the demo reads."""


class DemoModel:
    """The offline demo model (``--model demo``, and the default with nothing configured)."""

    provider = "demo"

    def __init__(self, *, delay: float = 0.012, chunk_size: int = 6, name: str = "demo") -> None:
        """``delay`` seconds between deltas (0 in tests); ``chunk_size`` characters per delta."""
        self.name = name
        self.delay = delay
        self.chunk_size = max(1, chunk_size)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        last = request.messages[-1] if request.messages else None
        first = (
            not any(isinstance(m, ToolResultMessage) for m in request.messages)
            and sum(isinstance(m, UserMessage) for m in request.messages) <= 1
        )
        tools = {t.name for t in request.tools}
        call: tuple[str, dict[str, Any]] | None = None
        if isinstance(last, ToolResultMessage):
            thinking = f"The `{last.name}` tool answered; I'll summarise what it returned."
            text = summarise(last)
            call = None if last.is_error else _next_call(request.messages)
            if call is not None and call[0] in tools:
                shown = ", ".join(f"{k}={v!r}" for k, v in call[1].items())
                thinking += f" Then the next step: `{call[0]}`."
                text += f"\nNext step — calling `{call[0]}` with {shown}.\n\n"
            else:
                call = None
        else:
            # What it understands is a short request: its patterns read the start only
            # (over an 8 MB paste they held the event loop for seconds).
            said = typed(last)[:READ_CHARS] if isinstance(last, UserMessage) else ""
            call = plan(steps(said)[0])
            thinking, text = self._answer(said, call, tools)
            if call and call[0] not in tools:
                call = None
            if first:
                text = BANNER + text
        for i in range(0, len(thinking), 24):
            yield ThinkingDelta(thinking[i : i + 24])
            await self._pause()
        n = self.chunk_size
        for i in range(0, len(text), n):
            yield TextDelta(text[i : i + n])
            await self._pause()
        if call is not None:
            args = json.dumps(call[1], ensure_ascii=False)
            yield ToolCallDelta(0, id=f"demo_{len(request.messages)}", name=call[0])
            for i in range(0, len(args), 8):
                yield ToolCallDelta(0, args_delta=args[i : i + 8])
                await self._pause()
        yield UsageChunk(Usage(estimate_tokens(request), max(1, (len(text) + len(thinking)) // 4)))
        yield StopChunk("tool_use" if call is not None else "end_turn")

    async def _pause(self) -> None:
        if self.delay:
            await anyio.sleep(self.delay)

    def _answer(self, said: str, call: tuple[str, dict[str, Any]] | None, tools: set[str]) -> tuple[str, str]:
        lower = said.lower()
        if call is not None:
            name, args = call
            shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
            if name not in tools:
                return (
                    f"This needs the `{name}` tool, which this session does not offer.",
                    f"I would use the `{name}` tool ({shown}), but it is not enabled in this session. "
                    "Start the shell with the built-in tools to try it.\n",
                )
            return (
                f"The user wants `{name}`. Arguments: {shown}.",
                f"Sure — calling `{name}` with {shown}.\n\n",
            )
        if re.search(r"\b(markdown|showcase|table|format)\b", lower):
            return ("The user wants to see Markdown rendering.", SHOWCASE)
        if re.search(r"^\s*(hi|hello|hey|hallo|bonjour)\b", lower):
            return ("A greeting. I'll introduce the demo.", "Hello! I'm the demo model.\n\n" + HELP)
        thinking = "I don't understand this request as a demo; I'll list what I can do."
        if not said.strip():
            return (thinking, HELP)
        return (thinking, f"I'm only a demo, so I can't really answer *{_clip(said, 80)}*.\n\n" + HELP)


def _next_call(messages: tuple[Any, ...] | list[Any]) -> tuple[str, dict[str, Any]] | None:
    """The call for the user's next step, once the steps before it each had their
    result (the demo makes one call a step)."""
    done = 0
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            todo = steps(typed(message)[:READ_CHARS])
            return plan(todo[done]) if done < len(todo) else None
        done += isinstance(message, ToolResultMessage)
    return None


def typed(message: UserMessage) -> str:
    """What the user typed: never an attached file's tag and text, which the demo
    quoted back on screen as if the user had said it (finding B4)."""
    return own_words(parts_of(message.content))[0]


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split()).replace("*", "")
    return text if len(text) <= n else text[: n - 1] + "…"


def summarise(result: ToolResultMessage) -> str:
    """A Markdown summary of a tool result: what came back, the first lines, the size.
    An error keeps its lines too (a failed command's output folded into one
    paragraph read ``1 2 3 … % Total % Received``)."""
    text = result.text
    lines = text.splitlines()
    if result.is_error and text.startswith("The user rejected"):
        return f"### You rejected `{result.name}`\n\n> {_clip(text, 300)}\n\nFine: it did not run.\n"
    if result.is_error:
        details = _excerpt(lines) if text.strip() else "No details."
        return (
            f"### `{result.name}` returned an error\n\n{details}\n\n"
            "That's fine for a demo: try another path or command.\n"
        )
    size = f"{len(lines)} line{'s' if len(lines) != 1 else ''}, {len(text)} characters"
    if not text.strip():
        return f"### Result of `{result.name}`\n\nThe tool finished with no output.\n"
    return (
        f"### Result of `{result.name}`\n\n"
        f"- **Size:** {size}\n"
        f"- **Status:** ok\n\n"
        f"{_excerpt(lines)}\n\n"
        "A real model would now reason about this output; the demo just shows it.\n"
    )


def _excerpt(lines: list[str], keep: int = 15) -> str:
    """The first ``keep`` lines in a code fence longer than any run of backticks in
    them, made safe by the one sanitising place (a tool's output is hostile), and
    how many lines were left out."""
    head = sanitize("\n".join(lines[:keep]))
    fence = "```"
    while fence in head:
        fence += "`"
    more = f"\n\n*…and {len(lines) - keep} more lines.*" if len(lines) > keep else ""
    return f"{fence}\n{head}\n{fence}{more}"
