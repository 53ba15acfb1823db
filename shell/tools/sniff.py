"""Whether a file's first bytes are text, and in which encoding: kept apart from the
file tools so every reader (read_file, edit_file, the editor's tools) judges alike."""

from __future__ import annotations

import mimetypes
from pathlib import Path


def sniff_media_type(path: Path, head: bytes) -> str | None:
    """``None`` for text; a media type for images and other binary content."""
    signatures = {
        b"\x89PNG\r\n\x1a\n": "image/png",
        b"\xff\xd8\xff": "image/jpeg",
        b"GIF87a": "image/gif",
        b"GIF89a": "image/gif",
        b"%PDF-": "application/pdf",
    }
    for magic, media in signatures.items():
        if head.startswith(magic):
            return media
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if b"\x00" in head:
        return mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the sniff boundary
            return mimetypes.guess_type(path.name)[0] or "application/octet-stream (not UTF-8 text)"
    return None


def legacy_encoding(head: bytes) -> str | None:
    """``cp1252`` (or ``latin-1``) when bytes that are not UTF-8 are text in the old
    Windows / ISO 8-bit encodings (no NUL, nearly all printable): legacy source and
    CSVs are often so, and they are text to read, not "a binary file". None: not text."""
    if not head or b"\x00" in head:
        return None
    for encoding in ("cp1252", "latin-1"):
        try:
            text = head.decode(encoding)
        except UnicodeDecodeError:
            continue
        printable = sum(c.isprintable() or c in "\r\n\t\f" for c in text)
        return encoding if printable >= 0.95 * len(text) else None
    return None


def as_utf8(data: bytes, head_bytes: int = 8192) -> bytes:
    """``data`` as UTF-8 bytes: unchanged when it already is; a cp1252 / Latin-1 text
    (judged by :func:`legacy_encoding` on its head, as read_file judges) re-encoded,
    so a search matches and shows "café" there too rather than replacement marks."""
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        legacy = legacy_encoding(data[:head_bytes])
        if legacy is not None:
            return data.decode(legacy, "replace").encode("utf-8")
    return data
