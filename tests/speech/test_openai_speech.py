"""OpenAISpeechEngine against aimock's ``/v1/audio/speech``, its request, and detect_engine."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from middleware.tts import TTS, TTSEngine
from shell.agent.loop import Agent
from shell.core.events import DataBlockDelta, DataBlockStart, Notice, ReplyEnd
from shell.providers.scripted import ScriptedModel
from shell.speech import EspeakEngine, OpenAISpeechEngine, SpeechError, detect_engine, find_espeak

from .conftest import tiny_wav

pytestmark = pytest.mark.anyio

SAID = "Hello from the speech test."


async def test_aimock_speech_endpoint_returns_the_fixture_audio(aimock: str) -> None:
    engine = OpenAISpeechEngine(base_url=f"{aimock}/v1", api_key="test", model="tts-1", response_format="wav")
    assert isinstance(engine, TTSEngine) and not engine.realtime
    audio = b"".join([c async for c in engine.synthesize(SAID)])
    assert audio == tiny_wav()


async def test_aimock_through_the_middleware_and_a_refusal(aimock: str) -> None:
    engine = OpenAISpeechEngine(base_url=f"{aimock}/v1", api_key="test", response_format="wav")
    agent = Agent(ScriptedModel([f"**{SAID}**", "Something unscripted."]), middleware=[TTS(engine)])
    events = [e async for e in agent.reply("hi")]
    start = next(e for e in events if isinstance(e, DataBlockStart))
    assert start.media_type == "audio/wav"
    assert b"".join(e.data for e in events if isinstance(e, DataBlockDelta)) == tiny_wav()
    # no fixture matches: aimock answers 404, the reply goes on with a notice
    events = [e async for e in agent.reply("again")]
    notice = next(e for e in events if isinstance(e, Notice))
    assert "404" in notice.text and "audio/speech" in notice.text
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"


async def test_request_shape_and_streamed_chunks() -> None:
    seen: list[httpx.Request] = []

    async def pieces() -> AsyncIterator[bytes]:
        for piece in (b"ab", b"cd", b"ef"):
            yield piece

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=pieces(), headers={"content-type": "audio/pcm"})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    engine = OpenAISpeechEngine(
        base_url="http://tts.local/v1/", api_key="sk-test", voice="nova", response_format="pcm", client=client
    )
    chunks = [c async for c in engine.synthesize("Hi.")]
    assert b"".join(chunks) == b"abcdef"
    (request,) = seen
    assert str(request.url) == "http://tts.local/v1/audio/speech"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert body == {"model": "gpt-4o-mini-tts", "input": "Hi.", "voice": "nova", "response_format": "pcm"}
    assert engine.media_type == "audio/pcm;rate=24000;channels=1"
    await client.aclose()


async def test_unreachable_endpoint_is_a_speech_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    engine = OpenAISpeechEngine(base_url="http://nowhere/v1", client=client)
    with pytest.raises(SpeechError, match="could not reach"):
        [c async for c in engine.synthesize("Hi.")]
    await client.aclose()
    with pytest.raises(ValueError):
        OpenAISpeechEngine(response_format="ogg")  # type: ignore[arg-type]


def test_detect_engine_prefers_configuration_then_espeak() -> None:
    assert detect_engine({"AGENT_SHELL_TTS": "off"}) is None
    configured = detect_engine(
        {"AGENT_SHELL_TTS_BASE_URL": "http://localhost:8880/v1", "OPENAI_API_KEY": "k"}
    )
    assert isinstance(configured, OpenAISpeechEngine)
    assert configured.base_url == "http://localhost:8880/v1" and configured.api_key == "k"
    found = detect_engine({"OPENAI_API_KEY": "sk-not-used-for-speech"})
    if find_espeak():
        assert isinstance(found, EspeakEngine)  # a paid API is never picked by default
    else:
        assert found is None
