"""The little WAV handling speech engines need: find the PCM, fix the sizes.

espeak-ng writes its WAV to a pipe before it knows how long the audio will be, so
the RIFF and ``data`` sizes in its header are placeholders (0x7FFFF000-ish or
0xFFFFFFFF, or 0). Players and the ``wave`` module trust those fields, so the
complete file gets its real sizes written back in before anyone sees it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WavFormat:
    channels: int
    rate: int
    bits: int
    data_offset: int
    """Where the PCM samples start (just past the ``data`` chunk header)."""

    @property
    def pcm_media_type(self) -> str:
        """The media type of the bare samples (little-endian signed PCM)."""
        return f"audio/pcm;rate={self.rate};channels={self.channels}"


def parse_header(data: bytes) -> WavFormat | None:
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
            return WavFormat(*fmt, data_offset=pos + 8)
        if chunk == b"fmt ":
            if pos + 24 > len(data):
                return None
            _, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", data, pos + 8)
            fmt = (channels or 1, rate, bits or 16)
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
