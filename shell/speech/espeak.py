"""``EspeakEngine``: offline speech through the espeak-ng command line.

espeak-ng is small, everywhere (``apt-get install espeak-ng``), needs no network
and starts in milliseconds, which makes it the default engine. It is driven as a
subprocess writing WAV to stdout (``--stdout``); the text goes in on stdin so no
text can be mistaken for an option.

Two modes, as the TTS middleware expects:

* ``synthesize(text)``: one process for the whole text, read to EOF, the header's
  placeholder sizes fixed (see :mod:`shell.speech.wav`), one WAV out;
* ``open()`` (realtime): text is cut into sentences as it arrives; each sentence
  gets its own process as soon as it is complete (at most ``lookahead`` running at
  once, so a long answer does not fork a crowd), and their samples are read from
  non-blocking pipes whenever the middleware asks, as bare PCM
  (``audio/pcm;rate=…``) so the pieces concatenate into one stream.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import deque
from collections.abc import AsyncGenerator, Sequence

import anyio

from shell.core.programs import host_environment, which

from .wav import fix_sizes, parse_header

_SENTENCE = re.compile(r"[.!?;:][\"')\]]*\s+|\n\s*")
MAX_SENTENCE = 1000
"""Longer runs without punctuation are cut at a space: stdin writes then never fill
the pipe while espeak-ng is blocked writing its own output."""


def find_espeak() -> str | None:
    """The espeak-ng binary (or the older espeak) on PATH, or None."""
    return which("espeak-ng") or which("espeak")


class EspeakEngine:
    """Speech from the local espeak-ng; ``realtime`` speaks sentence by sentence."""

    media_type = "audio/wav"

    def __init__(
        self,
        *,
        voice: str | None = None,
        speed: int | None = None,
        pitch: int | None = None,
        realtime: bool = True,
        binary: str | None = None,
        lookahead: int = 2,
    ) -> None:
        found = binary or find_espeak()
        if found is None:
            raise FileNotFoundError("espeak-ng is not installed (apt-get install espeak-ng)")
        self.binary = found
        self.voice = voice
        self.speed = speed
        """Words per minute (espeak-ng's default is 175)."""
        self.pitch = pitch
        self.realtime = realtime
        self.lookahead = max(1, lookahead)

    def command(self) -> list[str]:
        args = [self.binary, "--stdout", "--stdin"]
        if self.voice:
            args += ["-v", self.voice]
        if self.speed is not None:
            args += ["-s", str(self.speed)]
        if self.pitch is not None:
            args += ["-p", str(self.pitch)]
        return args

    async def synthesize(self, text: str) -> AsyncGenerator[bytes, None]:
        """The whole text as one WAV with correct header sizes."""
        if not text.strip():
            return
        process = await anyio.open_process(self.command(), env=host_environment())
        try:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(text.encode())
            await process.stdin.aclose()
            chunks: list[bytes] = []
            async for chunk in process.stdout:
                chunks.append(chunk)
            code = await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                with anyio.CancelScope(shield=True):
                    await process.wait()
            await process.aclose()
        data = b"".join(chunks)
        if code != 0 or parse_header(data) is None:
            raise RuntimeError(f"espeak-ng failed (exit {code}) and produced no audio")
        yield fix_sizes(data)

    def open(self) -> EspeakStream:
        return EspeakStream(self)


class _Job:
    """One sentence's espeak-ng process and what has been read of its output."""

    def __init__(self, command: Sequence[str], text: str) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=host_environment(),
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.fd = self.process.stdout.fileno()
        os.set_blocking(self.fd, False)
        try:
            self.process.stdin.write(text.encode())
        except BrokenPipeError:
            pass
        finally:
            self.process.stdin.close()
        self.header = b""
        self.header_done = False
        self.eof = False

    def read(self) -> tuple[list[bytes], str | None]:
        """What is readable now, without waiting, as PCM; and the format once known."""
        out: list[bytes] = []
        media: str | None = None
        while not self.eof:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True
                break
            if self.header_done:
                out.append(chunk)
                continue
            self.header += chunk
            fmt = parse_header(self.header)
            if fmt is not None:
                self.header_done = True
                media = fmt.pcm_media_type
                if len(self.header) > fmt.data_offset:
                    out.append(self.header[fmt.data_offset :])
        if self.eof:
            self.close()
        return out, media

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class EspeakStream:
    """One realtime utterance: sentences in, PCM out as each process produces it."""

    def __init__(self, engine: EspeakEngine) -> None:
        self.engine = engine
        self.media_type = "audio/pcm;rate=22050;channels=1"
        """espeak-ng's usual format; replaced by what the first header says."""
        self._text = ""
        self._sentences: deque[str] = deque()
        self._jobs: deque[_Job] = deque()
        self._closed = False

    def push(self, text: str) -> None:
        if self._closed or not text:
            return
        self._text += text
        end = 0
        for match in _SENTENCE.finditer(self._text):
            self._queue(self._text[end : match.end()])
            end = match.end()
        self._text = self._text[end:]
        while len(self._text) > MAX_SENTENCE:
            cut = self._text.rfind(" ", 0, MAX_SENTENCE) + 1 or MAX_SENTENCE
            self._queue(self._text[:cut])
            self._text = self._text[cut:]
        self._start()

    def _queue(self, sentence: str) -> None:
        if sentence.strip():
            self._sentences.append(sentence.strip())

    def _start(self) -> None:
        while self._sentences and len(self._jobs) < self.engine.lookahead:
            self._jobs.append(_Job(self.engine.command(), self._sentences.popleft()))

    def ready(self) -> list[bytes]:
        """The samples available now, in sentence order; never waits."""
        out: list[bytes] = []
        while self._jobs:
            chunks, media = self._jobs[0].read()
            if media:
                self.media_type = media
            out.extend(c for c in chunks if c)
            if not self._jobs[0].eof:
                break
            self._jobs.popleft()
            self._start()
        return out

    async def flush(self) -> AsyncGenerator[bytes, None]:
        """No more text: speak what is left and yield the audio until the end."""
        self._queue(self._text)
        self._text = ""
        self._start()
        while True:
            for chunk in self.ready():
                yield chunk
            if not self._jobs:
                return
            await _readable(self._jobs[0].fd)

    async def aclose(self) -> None:
        self._closed = True
        self._sentences.clear()
        while self._jobs:
            self._jobs.popleft().close()


async def _readable(fd: int) -> None:
    """Wait until ``fd`` has data (or EOF); a short sleep where the loop cannot watch pipes."""
    try:
        with anyio.move_on_after(0.25):
            await anyio.wait_readable(fd)
    except (NotImplementedError, OSError):
        await anyio.sleep(0.01)
