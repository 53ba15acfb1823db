"""The one WAV parser: where the PCM starts and how to read it, for the speech
engines, the players and the audio blocks of every front end.

espeak-ng writes its WAV to a pipe before it knows how long the audio will be, so
the RIFF and ``data`` sizes in its header are placeholders (0x7FFFF000-ish or
0xFFFFFFFF, or 0). Players and the ``wave`` module trust those fields, so the
complete file gets its real sizes written back in (:func:`fix_sizes`) before
anyone sees it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PcmFormat:
    """How to read PCM samples: from a WAV header, or from a media type's parameters."""

    channels: int = 1
    rate: int = 24000
    bits: int = 16
    data_offset: int = 0
    """Where the samples start (just past a WAV's ``data`` chunk header; 0 for bare PCM)."""

    @property
    def bytes_per_second(self) -> int:
        return max(1, self.channels * self.rate * self.bits // 8)

    @property
    def pcm_media_type(self) -> str:
        """The media type of the bare samples (little-endian signed PCM)."""
        return f"audio/pcm;rate={self.rate};channels={self.channels}"


WavFormat = PcmFormat
"""The name the speech engines knew it by."""


def parse_header(data: bytes) -> PcmFormat | None:
    """The format of a RIFF/WAVE byte string, or None while its header is incomplete."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    fmt: tuple[int, int, int] | None = None
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if chunk == b"data":
            if fmt is None:
                return None
            return PcmFormat(*fmt, data_offset=pos + 8)
        if chunk == b"fmt ":
            if pos + 24 > len(data):
                return None
            _, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", data, pos + 8)
            fmt = (channels or 1, rate or 24000, bits or 16)
        pos += 8 + size + (size & 1)
    return None


def fix_sizes(data: bytes) -> bytes:
    """``data`` with its RIFF and ``data`` chunk sizes set from the real byte count."""
    fmt = parse_header(data)
    if fmt is None:
        return data
    fixed = bytearray(data)
    struct.pack_into("<I", fixed, 4, len(data) - 8)
    struct.pack_into("<I", fixed, fmt.data_offset - 4, len(data) - fmt.data_offset)
    return bytes(fixed)
