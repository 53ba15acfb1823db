"""EspeakEngine: real synthesis with espeak-ng, decoded and timed; realtime streaming."""

from __future__ import annotations

import io
import struct
import wave

import anyio
import pytest

from middleware.tts import TTS, RealtimeTTSEngine
from shell.agent.loop import Agent
from shell.core.events import DataBlockDelta, DataBlockStart, TextBlockEnd
from shell.providers.scripted import ScriptedModel
from shell.speech import EspeakEngine, fix_sizes, parse_header

pytestmark = pytest.mark.anyio

TEXT = "The weather in Paris is sunny today. Tomorrow it will rain, and then the wind comes back."


def seconds_per_char(duration: float, text: str) -> float:
    return duration / len(text)


def plausible(duration: float, text: str) -> bool:
    """Speech runs at roughly 0.04 to 0.2 seconds per character of text."""
    return 0.04 <= seconds_per_char(duration, text) <= 0.2


async def test_synthesize_gives_one_wav_with_real_sizes(espeak: str) -> None:
    engine = EspeakEngine(binary=espeak)
    chunks = [c async for c in engine.synthesize(TEXT)]
    assert len(chunks) == 1
    data = chunks[0]
    riff_size, data_size = struct.unpack_from("<I", data, 4)[0], None
    fmt = parse_header(data)
    assert fmt is not None
    data_size = struct.unpack_from("<I", data, fmt.data_offset - 4)[0]
    assert riff_size == len(data) - 8 and data_size == len(data) - fmt.data_offset  # placeholders fixed
    with wave.open(io.BytesIO(data)) as w:
        duration = w.getnframes() / w.getframerate()
        assert w.getnchannels() == 1 and w.getsampwidth() == 2
        frames = w.readframes(w.getnframes())
    assert plausible(duration, TEXT), f"{duration:.2f} s for {len(TEXT)} characters"
    assert any(frames[i : i + 2] != b"\x00\x00" for i in range(0, len(frames), 2))  # not silence


async def test_whitespace_gives_no_audio(espeak: str) -> None:
    engine = EspeakEngine(binary=espeak)
    assert [c async for c in engine.synthesize("  \n ")] == []


async def test_realtime_stream_speaks_sentences_while_text_arrives(espeak: str) -> None:
    engine = EspeakEngine(binary=espeak)
    assert isinstance(engine, RealtimeTTSEngine) and engine.realtime
    stream = engine.open()
    early: list[bytes] = []
    for i in range(0, len(TEXT), 6):
        stream.push(TEXT[i : i + 6])
        stream.push("")  # empty pushes are harmless
        with anyio.move_on_after(0.05):
            while not early:
                early += stream.ready()
                await anyio.sleep(0.005)
    assert early, "the first sentence's audio was ready before the text ended"
    rest = [c async for c in stream.flush()]
    await stream.aclose()
    assert stream.media_type == "audio/pcm;rate=22050;channels=1"
    pcm = b"".join(early + rest)
    assert b"RIFF" not in pcm[:64]  # bare samples: the pieces concatenate
    assert plausible(len(pcm) / 2 / 22050, TEXT)


async def test_flush_without_text_and_aclose_midway(espeak: str) -> None:
    engine = EspeakEngine(binary=espeak)
    empty = engine.open()
    assert [c async for c in empty.flush()] == [] and empty.ready() == []
    busy = engine.open()
    busy.push("One sentence here. Another sentence there. And a third one. ")
    jobs = list(busy._jobs)
    await busy.aclose()
    assert all(job.process.poll() is not None for job in jobs)
    busy.push("Ignored after closing. ")
    assert busy.ready() == [] and not busy._jobs


async def test_through_the_middleware_realtime_and_not(espeak: str) -> None:
    for realtime in (True, False):
        agent = Agent(
            ScriptedModel([f"# Forecast\n\n{TEXT}"], chunk_size=5, delay=0.02),  # text at reading pace
            middleware=[TTS(EspeakEngine(binary=espeak), realtime=realtime)],
        )
        events = [e async for e in agent.reply("weather?")]
        start = next(e for e in events if isinstance(e, DataBlockStart))
        audio = b"".join(e.data for e in events if isinstance(e, DataBlockDelta))
        text_end = next(i for i, e in enumerate(events) if isinstance(e, TextBlockEnd))
        first_audio = events.index(start)
        if realtime:
            assert start.media_type.startswith("audio/pcm") and first_audio < text_end
            seconds = len(audio) / 2 / 22050
        else:
            assert start.media_type == "audio/wav" and first_audio > text_end
            with wave.open(io.BytesIO(audio)) as w:
                seconds = w.getnframes() / w.getframerate()
        assert plausible(seconds, "Forecast. " + TEXT), (realtime, seconds)


def test_fix_sizes_handles_streaming_placeholders() -> None:
    pcm = b"\x10\x00" * 100
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI", b"RIFF", 0xFFFFFFFF, b"WAVE", b"fmt ", 16, 1, 1, 22050, 44100, 2, 16, b"data", 0
    )
    fixed = fix_sizes(header + pcm)
    with wave.open(io.BytesIO(fixed)) as w:
        assert w.getnframes() == 100
    assert fix_sizes(b"not a wav") == b"not a wav"
    assert parse_header(header[:30]) is None
