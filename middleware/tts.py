"""``TTS``: speak the agent's answer (AgentScope's TTSMiddleware).

On ``on_reply`` it watches text blocks go by, never changes them, and adds
``DataBlockStart/Delta/End`` events carrying audio in one of the seed's two orders:
non-realtime (at ``TextBlockEnd`` the joined text is synthesised once; one data
block follows, with several deltas if the engine streams) or realtime (text is
pushed as it streams, audio emitted as soon as the engine has some, interleaved
with the text; at ``TextBlockEnd`` the engine is flushed and drained, then
``DataBlockEnd``). It speaks prose, not markup (:class:`Speakable`), and a cancel
or a closed stream cuts speech off at once.

Engines live above the library (``shell.speech``: espeak-ng, OpenAI-compatible
endpoints) and meet the small protocols below. With no engine given, the first
reply looks for one; finding none, the middleware says so once and stays out of
the way.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from contextlib import aclosing
from typing import Any, ClassVar, Protocol, runtime_checkable
from urllib.parse import urlsplit

import anyio

from shell.core.events import (
    DataBlockDelta,
    DataBlockEnd,
    DataBlockStart,
    Event,
    Notice,
    ReplyStart,
    TextBlockDelta,
    TextBlockEnd,
    TextBlockStart,
)
from shell.core.secrets import REDACTED, redact

from .base import Middleware, ReplyNext
from .context import HookContext
from .types import ReplyRequest


# -- the engine protocols ---------------------------------------------------------
@runtime_checkable
class TTSEngine(Protocol):
    """Text to audio: ``synthesize`` returns chunks (async iterator) or the whole (awaitable)."""

    @property
    def media_type(self) -> str: ...
    @property
    def realtime(self) -> bool: ...
    def synthesize(self, text: str) -> AsyncIterator[bytes] | Awaitable[bytes]: ...


class SpeechStream(Protocol):
    """One realtime utterance. ``ready`` never waits (it is called between events, so a
    slow engine cannot hold the text back); ``flush``: no more text, yield the rest of
    the audio; ``aclose``: stop at once, drop the rest."""

    @property
    def media_type(self) -> str: ...
    def push(self, text: str) -> None: ...
    def ready(self) -> list[bytes]: ...
    def flush(self) -> AsyncIterator[bytes]: ...
    async def aclose(self) -> None: ...


@runtime_checkable
class RealtimeTTSEngine(TTSEngine, Protocol):
    """An engine that can speak while the text is still arriving."""

    def open(self) -> SpeechStream: ...


def detect_engine() -> TTSEngine | None:
    """The best engine installed here, or None. The engines (``shell.speech``) sit above
    this package, so they are looked up by name at run time, never imported statically."""
    try:
        speech = importlib.import_module("shell.speech")
    except ImportError:
        return None
    engine: TTSEngine | None = speech.detect_engine()
    return engine


# -- markup to prose --------------------------------------------------------------
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_TABLE = re.compile(r"^\s*\|")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_LINE_PREFIX = re.compile(r"^\s*(>\s*)*([-*+]\s+(\[[ xX]\]\s+)?)?")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^>\s]+)>")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>()\]\"']+|\bwww\.[^\s<>()\]\"']+")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|~~)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_STRAY = re.compile(r"\*+|~~|(?<!\w)_+|_+(?!\w)")
_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
_SENTENCE_END = re.compile(r"[.!?;:][\"')\]]*\s")
_SPACES = re.compile(r"[ \t]{2,}")


def _host(url: str) -> str:
    """A URL as a listener wants to hear it: just the host."""
    host = urlsplit(url if "://" in url else f"http://{url}").hostname or url
    return host.removeprefix("www.")


def _shorten(match: re.Match[str]) -> str:
    url = match.group(0)
    bare = url.rstrip(".,;:!?")  # sentence punctuation after a URL is not part of it
    return _host(bare) + url[len(bare) :]


def speak_inline(text: str) -> str:
    """One line's inline Markdown as plain words."""
    text = redact(text).replace(REDACTED, "a secret")  # audio is kept and played back too
    text = _CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: _host(m.group(1)) if _URL.fullmatch(m.group(1)) else m.group(1), text)
    text = _AUTOLINK.sub(lambda m: _host(m.group(1)), text)
    text = _URL.sub(_shorten, text)
    text = _TAG.sub("", text)
    for _ in range(3):  # nested emphasis, innermost last
        text = _EMPHASIS.sub(lambda m: m.group(2), text)
    text = _STRAY.sub("", text)
    return _SPACES.sub(" ", text)


class Speakable:
    """Streamed Markdown in, speakable prose out, as early as it is safe.

    Whole lines are converted once they end; inside the line still arriving, text is
    released up to its last sentence end (so a realtime engine can start on the first
    sentence of a long paragraph), unless the line may still turn out to be a fence or
    a table, or a link or code span is still open.
    """

    def __init__(self) -> None:
        self._line = ""
        self._released = 0  # characters of ``_line`` already spoken
        self._fence: str | None = None
        self._table = False

    def feed(self, text: str) -> str:
        self._line += text
        out: list[str] = []
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            out.append(self._complete(line))
        out.append(self._partial())
        return "".join(out)

    def finish(self) -> str:
        """The rest, at the end of the text block."""
        line, self._line = self._line, ""
        return self._complete(line) if line[self._released :].strip() else ""

    def _complete(self, line: str) -> str:
        released, self._released = self._released, 0
        if released:  # the head was spoken already: only inline markup is left
            return speak_inline(line[released:]) + "\n"
        fence = _FENCE.match(line)
        if self._fence is not None:
            if fence and fence.group(1)[0] == self._fence[0] and len(fence.group(1)) >= len(self._fence):
                self._fence = None
            return ""
        if fence:
            self._fence = fence.group(1)
            return "A code block.\n"
        if _TABLE.match(line):
            if self._table:
                return ""
            self._table = True
            return "A table.\n"
        self._table = False
        if _RULE.match(line):
            return "\n"
        heading = _HEADING.match(line)
        if heading:
            title = speak_inline(heading.group(1)).strip()
            return f"{title}{'' if title[-1:] in '.!?:' else '.'}\n" if title else "\n"
        prefix = _LINE_PREFIX.match(line)
        spoken = speak_inline(line[prefix.end() if prefix else 0 :]).rstrip()
        if prefix and prefix.group(2) and spoken and spoken[-1] not in ".!?:;":
            spoken += "."  # list items are read as sentences, not run together
        return spoken + "\n"

    def _partial(self) -> str:
        line = self._line
        if self._fence is not None or self._table or not line.strip():
            return ""
        if not self._released and line.lstrip()[:1] in ("`", "~", "|"):
            return ""  # may still become a fence or a table row: wait for the line
        end = 0
        for m in _SENTENCE_END.finditer(line, self._released):
            if _closed(line[: m.end()]):
                end = m.end()
        if end <= self._released:
            return ""
        head = self._released == 0  # a line's head may carry a heading or bullet marker
        spoken = (
            self._complete(line[:end]).rstrip() + " " if head else speak_inline(line[self._released : end])
        )
        self._released = end
        return spoken


def _closed(text: str) -> bool:
    """No code span, link text or link target is still open in ``text``."""
    unclosed = text.count("[") - text.count("]"), text.count("(") - text.count(")")
    return text.count("`") % 2 == 0 and max(unclosed) <= 0


def speakable(text: str) -> str:
    """A whole text's Markdown as prose (the non-realtime path)."""
    s = Speakable()
    return s.feed(text) + s.finish()


# -- the middleware -----------------------------------------------------------------
class TTS(Middleware):
    """Speaks the answer: audio data blocks next to the text (non-realtime or realtime)."""

    builtin: ClassVar[bool] = True
    name = "TTS"
    description = "Speaks the answer: audio data blocks after (or while) the text streams."

    def __init__(
        self,
        engine: TTSEngine | None = None,
        *,
        realtime: bool | None = None,
        media_type: str | None = None,
    ) -> None:
        self.engine = engine
        self.realtime = realtime  # None: the engine's own mode
        self.media_type = media_type  # overrides the engine's on the data blocks
        self._looked = engine is not None
        self._said_missing = False
        self._live: set[_Voice] = set()

    def _resolve(self) -> TTSEngine | None:
        if not self._looked:
            self._looked = True
            self.engine = detect_engine()
        return self.engine

    async def on_reply(
        self, ctx: HookContext, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        for old in list(self._live):  # a new reply silences whatever an abandoned one left
            await old.end(silence=True)
            self._live.discard(old)
        engine = self._resolve()
        if engine is None:
            async for event in next(request):
                yield event
                if isinstance(event, ReplyStart) and not self._said_missing:
                    self._said_missing = True
                    yield Notice("info", _MISSING, self.name)
            return
        realtime = engine.realtime if self.realtime is None else self.realtime
        voice = _Voice(self, ctx, engine, realtime and isinstance(engine, RealtimeTTSEngine))
        self._live.add(voice)
        try:
            async for event in next(request):
                yield event
                if ctx.cancelled and not voice.silenced:  # the user cancelled: stop speaking now
                    for extra in await voice.end(silence=True):
                        yield extra
                async with aclosing(voice.after(event)) as extras:  # closed even if we are
                    async for extra in extras:
                        yield extra
        finally:
            self._live.discard(voice)
            await voice.end(silence=True)


CANCEL_POLL_S = 0.02  # how often a wait for audio looks whether the user cancelled

_MISSING = "Speech is off: no text-to-speech engine found (install espeak-ng or configure one)."


class _Voice:
    """One reply's speech: the text block being spoken and the data block open."""

    def __init__(self, owner: TTS, ctx: HookContext, engine: TTSEngine, realtime: bool) -> None:
        self.owner, self.ctx, self.engine, self.realtime = owner, ctx, engine, realtime
        self.silenced = False
        self.parts: list[str] = []
        self.speakable = Speakable()
        self.stream: SpeechStream | None = None
        self.block_id: str | None = None
        self.text_id = ""

    async def after(self, event: Event) -> AsyncGenerator[Event, None]:
        """The audio events that follow ``event`` in the stream."""
        if self.silenced:
            return
        try:
            if isinstance(event, TextBlockStart):
                self.text_id, self.parts, self.speakable = event.block_id, [], Speakable()
            elif isinstance(event, TextBlockDelta):
                if self.realtime:
                    self._push(self.speakable.feed(event.delta))
                else:
                    self.parts.append(event.delta)
            elif isinstance(event, TextBlockEnd):
                source = self._flush() if self.realtime else self._synthesize(event)
                try:
                    while (chunk := await self._next(source)) is not None:
                        for out in self._audio(chunk):
                            yield out
                    self.silenced = self.ctx.cancelled
                finally:
                    with anyio.CancelScope(shield=True):
                        await source.aclose()
                for out in await self.end():
                    yield out
                return
            for chunk in self.stream.ready() if self.stream is not None else ():
                for out in self._audio(chunk):
                    yield out
        except Exception as exc:  # speech failing must never take the answer with it
            self.silenced = True
            yield Notice("warning", f"Speech failed and is off for this reply: {exc}", self.owner.name)
            for out in await self.end():
                yield out

    async def _next(self, source: AsyncIterator[bytes]) -> bytes | None:
        """The next chunk; None at the end or as soon as the user cancels. Nothing else
        would wake this layer (the cancel lands in another task), so the wait races a
        watcher of ``ctx.cancelled``; the task group never spans a ``yield``."""
        got: list[bytes] = []
        failed: list[Exception] = []

        async def fetch() -> None:
            try:
                got.append(await source.__anext__())
            except StopAsyncIteration:
                pass
            except Exception as exc:
                failed.append(exc)
            group.cancel_scope.cancel()

        async def watch() -> None:
            while not self.ctx.cancelled:  # noqa: ASYNC110 - the flag has no event to wait on
                await anyio.sleep(CANCEL_POLL_S)
            group.cancel_scope.cancel()

        if not self.ctx.cancelled:
            async with anyio.create_task_group() as group:
                group.start_soon(fetch)
                group.start_soon(watch)
        if failed:
            raise failed[0]
        return got[0] if got and not self.ctx.cancelled else None

    def _push(self, text: str) -> None:
        if not text or (self.stream is None and not text.strip()):
            return
        if self.stream is None:
            assert isinstance(self.engine, RealtimeTTSEngine)
            self.stream = self.engine.open()
        self.stream.push(text)

    async def _flush(self) -> AsyncGenerator[bytes, None]:
        self._push(self.speakable.finish())
        if self.stream is not None:
            async for chunk in self.stream.flush():
                yield chunk

    async def _synthesize(self, event: TextBlockEnd) -> AsyncGenerator[bytes, None]:
        text = speakable("".join(self.parts) or event.text).strip()
        if not text:
            return
        result: Any = self.engine.synthesize(text)
        if inspect.isawaitable(result):
            result = _once(await result)
        try:
            async for chunk in result:
                if chunk:
                    yield chunk
        finally:
            if hasattr(result, "aclose"):
                await result.aclose()

    def _audio(self, chunk: bytes) -> list[Event]:
        out: list[Event] = []
        if self.block_id is None:
            self.block_id = f"{self.text_id or 'text'}-audio"
            media = self.owner.media_type or (self.stream or self.engine).media_type
            out.append(DataBlockStart(self.block_id, media))
        out.append(DataBlockDelta(self.block_id, chunk))
        return out

    async def end(self, *, silence: bool = False) -> list[Event]:
        """Close the engine's stream and the open data block (for good with ``silence``)."""
        self.silenced = self.silenced or silence
        stream, self.stream = self.stream, None
        if stream is not None:
            with anyio.CancelScope(shield=True):
                await stream.aclose()
        block, self.block_id = self.block_id, None
        return [DataBlockEnd(block)] if block is not None else []


async def _once(data: bytes) -> AsyncGenerator[bytes, None]:
    yield data
