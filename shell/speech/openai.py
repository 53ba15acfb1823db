"""``OpenAISpeechEngine``: any OpenAI-compatible ``POST /v1/audio/speech``.

OpenAI itself, and the many local servers that copy its API (Kokoro-FastAPI,
openedai-speech, LocalAI, aimock for tests), take ``{model, input, voice,
response_format}`` and answer with the audio bytes. The body is streamed, so the
middleware can emit the first delta before the last byte has arrived.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal

import httpx

from shell.core.textsafety import encodable

ResponseFormat = Literal["wav", "mp3", "pcm", "opus", "aac", "flac"]

MEDIA_TYPES: dict[str, str] = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "pcm": "audio/pcm;rate=24000;channels=1",  # OpenAI's pcm: 24 kHz, 16-bit, mono
    "opus": "audio/opus",
    "aac": "audio/aac",
    "flac": "audio/flac",
}


class SpeechError(Exception):
    """The speech endpoint refused or failed; the message says what to check."""


class OpenAISpeechEngine:
    """Non-realtime speech from an OpenAI-compatible endpoint, streamed as it downloads."""

    realtime = False

    def __init__(
        self,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        model: str = "gpt-4o-mini-tts",
        voice: str = "alloy",
        response_format: ResponseFormat = "wav",
        timeout: float = 60.0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if response_format not in MEDIA_TYPES:
            raise ValueError(f"response_format must be one of {', '.join(MEDIA_TYPES)}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.voice = voice
        self.response_format = response_format
        self.timeout = timeout
        self._client = client

    @property
    def media_type(self) -> str:
        return MEDIA_TYPES[self.response_format]

    @property
    def url(self) -> str:
        return f"{self.base_url}/audio/speech"

    async def synthesize(self, text: str) -> AsyncGenerator[bytes, None]:
        if not text.strip():
            return
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {
            "model": self.model,
            "input": encodable(text),  # a lone surrogate from a model made httpx raise
            "voice": self.voice,
            "response_format": self.response_format,
        }
        client = self._client or httpx.AsyncClient(timeout=self.timeout)
        try:
            async with client.stream("POST", self.url, json=body, headers=headers) as response:
                if response.status_code >= 400:
                    detail = (await response.aread()).decode(errors="replace")[:300]
                    raise SpeechError(f"{self.url} answered {response.status_code}: {detail}")
                async for chunk in response.aiter_bytes():
                    if chunk:
                        yield chunk
        except httpx.HTTPError as exc:
            raise SpeechError(f"could not reach {self.url}: {exc}") from exc
        finally:
            if self._client is None:
                await client.aclose()
