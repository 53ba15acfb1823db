"""Builders for session files in tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shell.core.messages import Message
from shell.sessions.codec import message_to_dict


def header(session_id: str = "s1", **extra: Any) -> dict[str, Any]:
    return {"kind": "header", "version": 1, "id": session_id, "created": "2026-01-01T00:00:00+00:00",
            "cwd": "/tmp", "model": "scripted", **extra}


def msg(message: Message) -> dict[str, Any]:
    return {"kind": "message", "message": message_to_dict(message)}


def write(path: Path, records: list[dict[str, Any] | str | bytes]) -> Path:
    """Records as lines; a ``str``/``bytes`` item is written raw (garbage, torn lines)."""
    out = b""
    for r in records:
        if isinstance(r, bytes):
            out += r
        elif isinstance(r, str):
            out += r.encode()
        else:
            out += json.dumps(r).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out)
    return path
