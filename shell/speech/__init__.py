"""Speech engines for the ``TTS`` middleware (``middleware.tts`` defines their protocol).

This package sits at the providers' layer (it runs processes and talks HTTP); the
middleware finds it by name through :func:`detect_engine`, so the library works
without it.

``detect_engine`` picks, in order:

1. ``AGENT_SHELL_TTS=none`` (or ``off``): no speech;
2. ``AGENT_SHELL_TTS_BASE_URL`` set (or ``AGENT_SHELL_TTS=openai``): an
   OpenAI-compatible endpoint, with ``AGENT_SHELL_TTS_API_KEY`` (falling back to
   ``OPENAI_API_KEY``), ``AGENT_SHELL_TTS_MODEL``, ``AGENT_SHELL_TTS_VOICE``;
   a paid API is never chosen just because an OpenAI key exists;
3. espeak-ng on PATH: offline, free, the default;
4. otherwise None (the middleware then says speech is off).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .espeak import EspeakEngine, EspeakStream, find_espeak
    from .openai import MEDIA_TYPES, OpenAISpeechEngine, SpeechError
    from .wav import PcmFormat, WavFormat, fix_sizes, parse_header

_LAZY = {
    "EspeakEngine": "espeak", "EspeakStream": "espeak", "find_espeak": "espeak",
    "MEDIA_TYPES": "openai", "OpenAISpeechEngine": "openai", "SpeechError": "openai",
    "PcmFormat": "wav", "WavFormat": "wav", "fix_sizes": "wav", "parse_header": "wav",
}
"""Loaded on first use: the audio helpers (:mod:`.audio`, :mod:`.playback`) are
imported by front ends that draw before any engine is needed (the HTTP engine
pulls in httpx)."""

__all__ = [
    "MEDIA_TYPES",
    "EspeakEngine",
    "EspeakStream",
    "OpenAISpeechEngine",
    "PcmFormat",
    "SpeechError",
    "WavFormat",
    "detect_engine",
    "find_espeak",
    "fix_sizes",
    "parse_header",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


def detect_engine(env: Mapping[str, str] | None = None) -> EspeakEngine | OpenAISpeechEngine | None:
    """The best speech engine available here, or None (see the module docstring)."""
    env = os.environ if env is None else env
    choice = env.get("AGENT_SHELL_TTS", "").strip().lower()
    if choice in ("none", "off", "0", "false"):
        return None
    base_url = env.get("AGENT_SHELL_TTS_BASE_URL", "")
    if base_url or choice == "openai":
        from .openai import OpenAISpeechEngine

        return OpenAISpeechEngine(
            base_url=base_url or env.get("OPENAI_BASE_URL", "") or "https://api.openai.com/v1",
            api_key=env.get("AGENT_SHELL_TTS_API_KEY") or env.get("OPENAI_API_KEY"),
            model=env.get("AGENT_SHELL_TTS_MODEL", "gpt-4o-mini-tts"),
            voice=env.get("AGENT_SHELL_TTS_VOICE", "alloy"),
        )
    from .espeak import EspeakEngine, find_espeak

    binary = find_espeak()
    if binary is None:
        return None
    return EspeakEngine(binary=binary, voice=env.get("AGENT_SHELL_TTS_VOICE") or None)
