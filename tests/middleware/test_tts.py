"""TTS: the seed's two event orders, what is (not) spoken, and cutting speech off."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

import anyio
import pytest

from middleware.tts import TTS, RealtimeTTSEngine, Speakable, TTSEngine, speakable
from shell.agent.loop import Agent
from shell.core.events import (
    DataBlockDelta,
    DataBlockEnd,
    DataBlockStart,
    Event,
    Notice,
    ReplyEnd,
    TextBlockDelta,
    TextBlockEnd,
    TextBlockStart,
)
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

TEXT = "Hello there. How are you today? I am fine, thanks for asking."


class BatchEngine:
    """Non-realtime: records each call, answers ``chunks`` pieces of fake audio."""

    media_type = "audio/wav"
    realtime = False

    def __init__(self, chunks: int = 1) -> None:
        self.chunks = chunks
        self.calls: list[str] = []

    async def synthesize(self, text: str) -> AsyncGenerator[bytes, None]:
        self.calls.append(text)
        for i in range(self.chunks):
            yield f"audio{i}:{len(text)}".encode()


class WholeEngine:
    """Non-realtime, not streaming: ``synthesize`` is a coroutine returning all bytes."""

    media_type = "audio/mpeg"
    realtime = False

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def synthesize(self, text: str) -> bytes:
        self.calls.append(text)
        return b"ID3whole"


class FakeStream:
    """A realtime utterance: each complete sentence pushed becomes audio at once."""

    media_type = "audio/pcm;rate=24000;channels=1"

    def __init__(self, engine: LiveEngine) -> None:
        self.engine = engine
        self.pending = ""
        self.audio: list[bytes] = []
        self.closed = False

    def push(self, text: str) -> None:
        assert text, "the middleware never pushes empty text"
        self.engine.pushes.append(text)
        self.pending += text
        while ". " in self.pending or "? " in self.pending:
            cut = min(i for i in (self.pending.find(". "), self.pending.find("? ")) if i >= 0) + 2
            self.audio.append(f"[{self.pending[:cut].strip()}]".encode())
            self.pending = self.pending[cut:]

    def ready(self) -> list[bytes]:
        out, self.audio = self.audio, []
        return out

    async def flush(self) -> AsyncGenerator[bytes, None]:
        for chunk in self.ready():
            yield chunk
        if self.pending.strip():
            yield f"[{self.pending.strip()}]".encode()
            self.pending = ""
        self.engine.flushed += 1

    async def aclose(self) -> None:
        self.closed = True


class LiveEngine:
    media_type = "audio/pcm;rate=24000;channels=1"
    realtime = True

    def __init__(self) -> None:
        self.pushes: list[str] = []
        self.synthesized: list[str] = []
        self.streams: list[FakeStream] = []
        self.flushed = 0

    async def synthesize(self, text: str) -> bytes:
        self.synthesized.append(text)
        return b"whole"

    def open(self) -> FakeStream:
        self.streams.append(FakeStream(self))
        return self.streams[-1]


async def run(engine: object, *turns: str, realtime: bool | None = None, chunk: int = 4) -> list[Event]:
    agent = Agent(
        ScriptedModel(list(turns), chunk_size=chunk),
        middleware=[TTS(engine, realtime=realtime)],  # type: ignore[arg-type]
    )
    return [e async for e in agent.reply("speak")]


def shape(events: list[Event]) -> list[str]:
    """Text and data events only, with repeated deltas folded."""
    out: list[str] = []
    for e in events:
        if isinstance(
            e, (TextBlockStart, TextBlockDelta, TextBlockEnd, DataBlockStart, DataBlockDelta, DataBlockEnd)
        ):
            name = type(e).__name__
            if not (out and out[-1] == name and name.endswith("Delta")):
                out.append(name)
    return out


def audio(events: list[Event]) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, DataBlockDelta))


def test_protocols_recognise_the_fakes() -> None:
    assert isinstance(BatchEngine(), TTSEngine) and not isinstance(BatchEngine(), RealtimeTTSEngine)
    assert isinstance(LiveEngine(), RealtimeTTSEngine)


async def test_non_realtime_text_then_one_data_block_synthesized_once() -> None:
    engine = BatchEngine()
    events = await run(engine, TEXT)
    assert shape(events) == [
        "TextBlockStart",
        "TextBlockDelta",
        "TextBlockEnd",
        "DataBlockStart",
        "DataBlockDelta",
        "DataBlockEnd",
    ]
    assert engine.calls == [TEXT]
    start = next(e for e in events if isinstance(e, DataBlockStart))
    assert start.media_type == "audio/wav" and start.reply_id
    assert audio(events) == f"audio0:{len(TEXT)}".encode()
    assert isinstance(events[-1], ReplyEnd)


async def test_streamed_synthesis_is_one_block_with_several_deltas() -> None:
    engine = BatchEngine(chunks=3)
    events = await run(engine, TEXT)
    assert [type(e).__name__ for e in events if type(e).__name__.startswith("DataBlock")] == [
        "DataBlockStart",
        "DataBlockDelta",
        "DataBlockDelta",
        "DataBlockDelta",
        "DataBlockEnd",
    ]
    assert (
        len({e.block_id for e in events if isinstance(e, (DataBlockStart, DataBlockDelta, DataBlockEnd))})
        == 1
    )
    assert engine.calls == [TEXT]


async def test_an_engine_returning_bytes_gives_one_delta() -> None:
    engine = WholeEngine()
    events = await run(engine, TEXT)
    assert audio(events) == b"ID3whole" and engine.calls == [TEXT]
    assert next(e for e in events if isinstance(e, DataBlockStart)).media_type == "audio/mpeg"


async def test_whitespace_only_text_is_not_synthesized() -> None:
    engine = BatchEngine()
    events = await run(engine, "  \n\t \n")
    assert engine.calls == []
    assert not [e for e in events if isinstance(e, (DataBlockStart, DataBlockDelta, DataBlockEnd))]
    live = LiveEngine()
    events = await run(live, "   \n\n  ")
    assert live.streams == [] and not [e for e in events if isinstance(e, DataBlockStart)]


async def test_realtime_audio_interleaves_with_text_then_drains_at_text_end() -> None:
    engine = LiveEngine()
    events = await run(engine, TEXT)
    s = shape(events)
    assert s == [
        "TextBlockStart",
        "TextBlockDelta",
        "DataBlockStart",  # audio begins during the text stream
        "DataBlockDelta",
        "TextBlockDelta",
        "DataBlockDelta",
        "TextBlockDelta",
        "TextBlockEnd",
        "DataBlockDelta",  # the rest, from flushing the engine
        "DataBlockEnd",
    ]
    assert "".join(engine.pushes).strip() == TEXT
    assert audio(events) == b"[Hello there.][How are you today?][I am fine, thanks for asking.]"
    assert engine.flushed == 1 and engine.streams[0].closed
    assert next(e for e in events if isinstance(e, DataBlockStart)).media_type.startswith("audio/pcm")


async def test_realtime_can_be_turned_off_for_a_realtime_engine() -> None:
    engine = LiveEngine()
    events = await run(engine, TEXT, realtime=False)
    assert engine.streams == [] and engine.synthesized == [TEXT]
    assert shape(events)[-4:] == ["TextBlockEnd", "DataBlockStart", "DataBlockDelta", "DataBlockEnd"]


async def test_empty_and_markup_only_pushes_are_handled() -> None:
    engine = LiveEngine()
    events = await run(engine, "```\ncode()\n```\n\nDone. ", chunk=1)
    assert all(engine.pushes) and "code()" not in "".join(engine.pushes)
    assert audio(events) == b"[A code block.\n\nDone.]"
    nothing = Speakable()
    assert nothing.feed("") == "" and nothing.finish() == ""


async def test_markup_is_stripped_before_synthesis() -> None:
    text = (
        "# The weather\n\n"
        "It is **sunny** in [Paris](https://en.wikipedia.org/wiki/Paris), see https://www.meteo.fr/x?y=1.\n\n"
        "```python\nprint('secret code')\n```\n\n"
        "| city | sky |\n|---|---|\n| Paris | sun |\n\n"
        "- use `snake_case_names`\n- _really_ ~~not~~ now\n"
    )
    engine = BatchEngine()
    await run(engine, text)
    (spoken,) = engine.calls
    assert spoken.split("\n") == [
        "The weather.",
        "",
        "It is sunny in Paris, see meteo.fr.",
        "",
        "A code block.",
        "",
        "A table.",
        "",
        "use snake_case_names.",
        "really not now.",
    ]
    for leftover in ("*", "#", "`", "|", "](", "https", "print"):
        assert leftover not in spoken


def test_streamed_markup_reads_the_same_as_whole_and_releases_sentences_early() -> None:
    text = "## Plan\nFirst we read the [docs](http://x.io/a). Then we **write** code! Finally we test"
    s = Speakable()
    pieces = [s.feed(text[i : i + 3]) for i in range(len(text))[::3]]
    pieces.append(s.finish())
    assert " ".join("".join(pieces).split()) == " ".join(speakable(text).split())
    assert "First we read the docs." in "".join(pieces[:-1])  # released before the line ended


async def test_no_engine_says_so_once_and_passes_events_through() -> None:
    mw = TTS()
    mw._looked = True  # as if detection had found nothing
    agent = Agent(ScriptedModel([TEXT, TEXT]), middleware=[mw])
    first = [e async for e in agent.reply("a")]
    second = [e async for e in agent.reply("b")]
    notices = [e for e in first + second if isinstance(e, Notice)]
    assert len(notices) == 1 and "Speech is off" in notices[0].text
    assert not [e for e in first + second if isinstance(e, DataBlockStart)]
    assert sum(isinstance(e, TextBlockEnd) for e in first + second) == 2


async def test_engine_failure_is_a_notice_not_an_error() -> None:
    class Broken(BatchEngine):
        async def synthesize(self, text: str) -> AsyncGenerator[bytes, None]:
            yield b"half"
            raise RuntimeError("device on fire")

    events = await run(Broken(), TEXT)
    assert shape(events)[-3:] == ["DataBlockStart", "DataBlockDelta", "DataBlockEnd"]
    assert any(isinstance(e, Notice) and "device on fire" in e.text for e in events)
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"


class SlowEngine:
    """First chunk at once, the next only after a long time: a cancel must not wait for it."""

    media_type = "audio/wav"
    realtime = False

    def __init__(self) -> None:
        self.closed = False

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        try:
            yield b"first"
            await anyio.sleep(30)
            yield b"never"
        finally:
            self.closed = True


async def test_cancel_cuts_speech_off_at_once() -> None:
    engine = SlowEngine()
    agent = Agent(ScriptedModel([TEXT]), middleware=[TTS(engine)], cancel_grace=10)
    events: list[Event] = []
    with anyio.fail_after(3):  # far less than the engine's 30 s, and than the grace period
        async for event in agent.reply("go"):
            events.append(event)
            if isinstance(event, DataBlockDelta):
                agent.cancel()
    assert audio(events) == b"first"
    assert shape(events)[-2:] == ["DataBlockDelta", "DataBlockEnd"]
    assert engine.closed
    assert isinstance(events[-1], ReplyEnd)


async def test_closing_the_stream_closes_the_engine() -> None:
    engine = SlowEngine()
    agent = Agent(ScriptedModel([TEXT]), middleware=[TTS(engine)])
    stream = agent.reply("go")
    with anyio.fail_after(3):
        async for event in stream:
            if isinstance(event, DataBlockDelta):
                break
        await stream.aclose()
    assert engine.closed


async def test_a_new_reply_silences_a_stream_an_abandoned_reply_left_open() -> None:
    engine = LiveEngine()
    mw = TTS(engine)
    agent = Agent(ScriptedModel([TEXT, TEXT], chunk_size=4), middleware=[mw])
    gen = agent.reply("one")
    async for event in gen:
        if isinstance(event, DataBlockDelta):
            break
    await gen.aclose()
    assert engine.streams[0].closed and not mw._live
    events = [e async for e in agent.reply("two")]
    assert shape(events)[-1] == "DataBlockEnd"


def test_a_secret_in_the_answer_is_not_spoken() -> None:
    """The audio is kept with the session and played back: a key the model repeats is
    said as "a secret", not read out letter by letter (verify of L13)."""
    from middleware.tts import Speakable, speakable

    key = "sk-proj-Abc123def456ghi789jkl012mno345pqr678stu901vwx"
    said = speakable(f"Your key is `{key}`. Keep it safe.")
    assert key not in said and "Abc123" not in said and "a secret" in said and "Keep it safe" in said
    streamed = Speakable()
    out = streamed.feed(f"First sentence. The key: {key}. ") + streamed.feed("More.\n") + streamed.finish()
    assert key not in out and "Abc123" not in out, out


@pytest.mark.parametrize("line", [
    "Run `sshpass -p Zq8vT3kLw9pR2mXy ssh web01` to log in.",
    "Your ~/.netrc has: machine api.example.com login bob password Zq8vT3kLw9pR2mXy",
    "Settings: $databases['default']['default']['password'] = 'Zq8vT3kLw9pR2mXy';",
])
def test_a_password_in_a_command_or_config_line_is_not_spoken(line: str) -> None:
    """The forms verify7 found kept by redaction (sshpass, .netrc, Drupal's settings)
    are not read out either: the audio is kept with the session."""
    from middleware.tts import speakable

    said = speakable(line)
    assert "Zq8vT3kL" not in said and "a secret" in said, said
