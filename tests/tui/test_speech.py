"""Pilot tests of spoken replies: TTS audio blocks, ``/speak``, auto-play, Esc."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

import middleware.tts as tts_module
from middleware.tts import TTS
from shell.speech import audio
from shell.tui.app import AgentShellApp
from shell.tui.widgets.audio_block import AudioBlock
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, make_agent, send, wait_for, wav_bytes

pytestmark = pytest.mark.anyio


class FakeEngine:
    """A speech engine that 'speaks' half a second of WAV, in three chunks."""

    media_type = "audio/wav"
    realtime = False

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        self.texts.append(text)
        data = wav_bytes(0.5)
        third = len(data) // 3
        for part in (data[:third], data[third : 2 * third], data[2 * third :]):
            yield part


def _app(turns: list[Any], *, on: bool = True) -> tuple[AgentShellApp, FakeEngine]:
    engine = FakeEngine()
    agent, _ = make_agent(turns, middleware=[TTS(engine)])
    agent.middleware.set_enabled("TTS", on)
    return AgentShellApp(agent, model_label="scripted"), engine


def _player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float) -> Path:
    """A stand-in player: records that it ran, then 'plays' for ``seconds``."""
    log = tmp_path / "played.log"
    script = tmp_path / "fake-player"
    script.write_text(f'#!/bin/sh\necho "$1" >> {log}\nexec sleep {seconds}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv(audio.PLAYER_ENV, str(script))
    return log


def _notices(app: AgentShellApp) -> list[str]:
    return [n.text for n in app.query(NoticeLine)]


async def test_tts_reply_has_an_audio_block_with_its_duration() -> None:
    app, engine = _app(["Hello **there**."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_for(pilot, lambda: not app.busy and app.query(AudioBlock))
        block = app.query_one(AudioBlock)
        head_now = lambda: str(block.query_one("#audio-head", Static).content)  # noqa: E731
        # the head's last refresh, after the reply's end
        await wait_for(pilot, lambda: "0.5s" in head_now() and "receiving" not in head_now())
        assert engine.texts == ["Hello there."]
        head = head_now()
        assert "0.5s" in head and "receiving" not in head
        assert block.query_one("#audio-wave", Static).content


async def test_duration_and_level_line_grow_as_deltas_arrive() -> None:
    for media_type, data in (
        ("audio/wav", wav_bytes(1.0)),
        ("audio/pcm;rate=8000;channels=1", wav_bytes(1.0)[44:]),
    ):
        app, _ = _app([])
        async with app.run_test(size=SIZE) as pilot:
            block = AudioBlock("b1", media_type)
            await app.conversation.mount(block)
            seen = []
            for i in range(4):
                block.append(data[i * len(data) // 4 : (i + 1) * len(data) // 4])
                before = seen[-1] if seen else None

                def drawn(before: Any = before, block: AudioBlock = block) -> tuple[str, str] | None:
                    head = str(block.query_one("#audio-head", Static).content)
                    wave = str(block.query_one("#audio-wave", Static).content)
                    return (head, wave) if wave.strip() and (head, wave) != before else None

                await wait_for(pilot, drawn)  # on the block's next refresh (later under load)
                seen.append(drawn() or ("", ""))
            durations = [float(h.split("·")[1].strip().rstrip("s")) for h, _ in seen]
            assert durations == sorted(set(durations)) and durations[-1] == 1.0, seen
            assert all("receiving" in h for h, _ in seen)
            waves = [w for _, w in seen]
            assert all(w.strip() and set(w) <= set(audio.LEVELS) for w in waves), waves
            block.finish()
            assert "receiving" not in str(block.query_one("#audio-head", Static).content)


async def test_speak_on_off_and_remembered() -> None:
    app, _ = _app([], on=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/speak on")
        await pilot.pause()
        assert app.agent.middleware.is_enabled("TTS") and app.speak_mode == "on"
        saved = json.loads(Path(os.environ["AGENT_SHELL_TUI_PREFS"]).read_text())  # noqa: ASYNC240
        assert saved["speak"] == "on"
        await send(pilot, "/speak off")
        await pilot.pause()
        assert not app.agent.middleware.is_enabled("TTS") and app.speak_mode == "off"
        await send(pilot, "/speak loud")
        await pilot.pause()
        assert any("Usage: /speak" in t for t in _notices(app))
        await send(pilot, "/speak auto")
        await pilot.pause()
    app2, _ = _app([], on=False)
    async with app2.run_test(size=SIZE):
        assert app2.speak_mode == "auto" and app2.agent.middleware.is_enabled("TTS")


async def test_auto_play_plays_each_spoken_reply_and_esc_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _player(tmp_path, monkeypatch, 30)
    app, _ = _app(["One.", "Two."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/speak auto")
        await send(pilot, "first")
        await wait_for(pilot, lambda: app.playback.playing)
        await wait_for(pilot, log.exists)
        block = app.query_one(AudioBlock)
        await wait_for(pilot, lambda: "playing" in block.note)
        assert str(block.query_one("#audio-play").label) == "■ Stop"  # type: ignore[attr-defined]
        process = app.playback._process
        assert process is not None and process.poll() is None
        await pilot.press("escape")
        assert not app.playback.playing
        assert process.wait(5) is not None  # the player was terminated
        await pilot.pause()
        assert block.note == "stopped"
        assert str(block.query_one("#audio-play").label) == "▶ Play"  # type: ignore[attr-defined]
        await pilot.click("#prompt")
        await send(pilot, "second")  # plays too, and a new reply silences the old one
        await wait_for(pilot, lambda: app.playback.started == 2 and not app.busy)
        assert app.playback.current is not None
        await send(pilot, "/speak off")
        await pilot.pause()
        assert not app.playback.playing


async def test_a_new_reply_stops_playback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _player(tmp_path, monkeypatch, 30)
    app, _ = _app(["One.", "Two."], on=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/speak on")  # on, not auto: nothing plays by itself
        await send(pilot, "first")
        await wait_for(pilot, lambda: not app.busy and app.query(AudioBlock))
        assert app.playback.started == 0
        await pilot.click("#audio-play")
        await wait_for(pilot, lambda: app.playback.playing)
        await pilot.click("#prompt")
        await send(pilot, "second")
        await pilot.pause()
        assert app.playback.started == 1 and not app.playback.playing


async def test_short_clips_play_one_after_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _player(tmp_path, monkeypatch, 0)
    app, _ = _app([])
    async with app.run_test(size=SIZE) as pilot:
        from shell.speech.playback import Clip

        data = wav_bytes(0.1)
        for key in ("a", "b", "c"):
            app.playback.enqueue(Clip(key, "audio/wav", data))
        assert app.playback.current is not None and app.playback.current.key == "a"
        await wait_for(pilot, lambda: app.playback.started == 3 and not app.playback.playing)
        assert len(log.read_text().splitlines()) == 3


async def test_clear_notes_when_no_engine_or_no_player(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tts_module, "detect_engine", lambda: None)
    monkeypatch.setenv(audio.PLAYER_ENV, "no-such-player-anywhere")
    agent, _ = make_agent([], middleware=[TTS()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/speak auto")
        await pilot.pause()
        text = " ".join(_notices(app))
        assert "No text-to-speech engine found" in text
        assert "no-such-player-anywhere" in text and "was not found" in text
        await send(pilot, "/speak")
        await pilot.pause()
    bare, _ = make_agent([])
    app2 = AgentShellApp(bare, model_label="scripted")
    async with app2.run_test(size=SIZE) as pilot:
        await send(pilot, "/speak on")
        await pilot.pause()
        assert any("no TTS middleware" in t for t in _notices(app2))
        assert app2.speak_mode == "off"
