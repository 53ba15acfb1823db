"""The assistant's text, streamed as Markdown while the deltas arrive.

Deltas are batched per frame (one flush per ~1/30 s, however many deltas came),
each flush goes to the current chunk's ``MarkdownStream``, and once a chunk has
grown past ``CHUNK_LIMIT`` a fresh ``Markdown`` widget starts at the next safe
top-level block (see ``mdsplit``). Every append then touches a small document, so
streaming time grows linearly with the reply's size.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownStream

from ..mdsplit import Splitter, split_markdown
from ..textsafe import clean

CHUNK_LIMIT = 4000
FRAME_S = 1 / 30


class AssistantMessage(Vertical):
    """One text block of a reply: a column of Markdown documents."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; padding: 0 1; }
    AssistantMessage > Markdown { margin: 0; padding: 0; background: transparent; }
    AssistantMessage > Markdown > MarkdownBlock:last-child { margin-bottom: 0; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__()
        self._text = clean(text)
        self.streaming = streaming
        self._pending: list[str] = []
        self._flush_scheduled = False
        self._chunk_size = len(self._text)
        self._splitter = Splitter()
        self._stream: MarkdownStream | None = None
        self._current: Markdown | None = None

    @property
    def text(self) -> str:
        return self._text + "".join(self._pending)

    def compose(self) -> ComposeResult:
        parts = split_markdown(self._text, CHUNK_LIMIT) if self._text else [""]
        for part in parts:
            yield Markdown(part)

    def on_mount(self) -> None:
        if self.streaming:
            self._current = self.query(Markdown).last()
            self._stream = Markdown.get_stream(self._current)

    def append(self, delta: str) -> None:
        """Queue a delta; it is rendered at the next frame with the others."""
        self._pending.append(delta)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.set_timer(FRAME_S, self._flush)

    async def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._pending or self._stream is None:
            return
        text = clean("".join(self._pending))
        self._pending.clear()
        self._text += text
        cut = self._splitter.feed(text, self._chunk_size >= CHUNK_LIMIT)
        if cut is None:
            self._chunk_size += len(text)
            await self._stream.write(text)
            return
        if cut:
            await self._stream.write(text[:cut])
        await self._stream.stop()
        self._current = Markdown()
        await self.mount(self._current)
        self._stream = Markdown.get_stream(self._current)
        rest = text[cut:]
        self._chunk_size = len(rest)
        await self._stream.write(rest)

    async def finish(self, text: str | None = None) -> None:
        """The block ended: render what is left and stop streaming."""
        await self._flush()
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.streaming = False
        if text is not None and not self._text:
            self._text = clean(text)
            await self.query_one(Markdown).update(self._text)
