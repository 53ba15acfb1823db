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

import os
from collections.abc import Mapping

from .espeak import EspeakEngine, EspeakStream, find_espeak
from .openai import MEDIA_TYPES, OpenAISpeechEngine, SpeechError
from .wav import WavFormat, fix_sizes, parse_header

__all__ = [
    "MEDIA_TYPES",
    "EspeakEngine",
    "EspeakStream",
    "OpenAISpeechEngine",
    "SpeechError",
    "WavFormat",
    "detect_engine",
    "find_espeak",
    "fix_sizes",
    "parse_header",
]


def detect_engine(env: Mapping[str, str] | None = None) -> EspeakEngine | OpenAISpeechEngine | None:
    """The best speech engine available here, or None (see the module docstring)."""
    env = os.environ if env is None else env
    choice = env.get("AGENT_SHELL_TTS", "").strip().lower()
    if choice in ("none", "off", "0", "false"):
        return None
    base_url = env.get("AGENT_SHELL_TTS_BASE_URL", "")
    if base_url or choice == "openai":
        return OpenAISpeechEngine(
            base_url=base_url or env.get("OPENAI_BASE_URL", "") or "https://api.openai.com/v1",
            api_key=env.get("AGENT_SHELL_TTS_API_KEY") or env.get("OPENAI_API_KEY"),
            model=env.get("AGENT_SHELL_TTS_MODEL", "gpt-4o-mini-tts"),
            voice=env.get("AGENT_SHELL_TTS_VOICE", "alloy"),
        )
    binary = find_espeak()
    if binary is None:
        return None
    return EspeakEngine(binary=binary, voice=env.get("AGENT_SHELL_TTS_VOICE") or None)
