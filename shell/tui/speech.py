"""``/speak``: spoken replies in the TUI (the TTS middleware plus auto-play).

``off`` switches the TTS middleware off; ``on`` switches it on (replies get audio
blocks to play or save); ``auto`` also plays each finished audio block through the
app's :class:`~shell.speech.playback.Playback`, one after another. The choice is
remembered in the TUI's preferences and applied at start-up. What is missing (no
TTS middleware, no engine, no player) is said in words, since silence is the
symptom and would otherwise explain nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shell.speech import audio

from . import prefs

TTS = "TTS"
MODES = prefs.SPEAK_MODES
USAGE = "/speak [on|off|auto]"


@dataclass(frozen=True, slots=True)
class SpeakOutcome:
    mode: str
    text: str
    level: str = "info"


def engine_problem(stack: Any) -> str | None:
    """Why no speech can come out, or None when an engine is there (or may be)."""
    if TTS not in stack:
        return "There is no TTS middleware in the stack, so replies cannot be spoken."
    tts = stack.get(TTS)
    if getattr(tts, "engine", None) is not None:
        return None
    from middleware.tts import detect_engine

    if detect_engine() is None:
        return (
            "No text-to-speech engine found: install espeak-ng (apt-get install espeak-ng) "
            "or set AGENT_SHELL_TTS_BASE_URL to an OpenAI-compatible speech endpoint."
        )
    return None


def engine_name(stack: Any) -> str:
    tts = stack.get(TTS) if TTS in stack else None
    engine = getattr(tts, "engine", None)
    if engine is None:
        return "found on first reply"
    return type(engine).__name__


def current_mode(stack: Any, saved: str | None) -> str:
    on = TTS in stack and bool(stack.is_enabled(TTS))
    if not on:
        return "off"
    return "auto" if saved == "auto" else "on"


def apply(stack: Any, mode: str) -> None:
    if TTS in stack:
        stack.set_enabled(TTS, mode != "off")


def set_mode(stack: Any, mode: str) -> SpeakOutcome:
    """Switch to ``mode`` and remember it; the words to show the user."""
    problem = engine_problem(stack) if mode != "off" else None
    if problem and TTS not in stack:
        return SpeakOutcome(current_mode(stack, prefs.saved_speak()), problem, "error")
    apply(stack, mode)
    prefs.save("speak", mode)
    if mode == "off":
        return SpeakOutcome(mode, "Speech off (remembered).")
    words = "Speech on: replies get an audio block to play or save (remembered)."
    if mode == "auto":
        words = "Speech on, auto-play: each spoken reply plays as it finishes; Esc stops it (remembered)."
    notes = [words]
    level = "info"
    if problem:
        notes.append(problem)
        level = "warning"
    if mode == "auto" and audio.find_player() is None:
        notes.append(audio.no_player_message())
        level = "warning"
    return SpeakOutcome(mode, " ".join(notes), level)


def describe(stack: Any, mode: str) -> str:
    player = audio.find_player()
    lines = [
        f"Speech: **{mode}** (`{USAGE}`).",
        f"- engine: {engine_problem(stack) or engine_name(stack)}",
        f"- player: {' '.join(player) if player else audio.no_player_message()}",
    ]
    return "\n".join(lines)
