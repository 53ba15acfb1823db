"""Neutralise terminal control sequences in model and tool text before display.

Rich ``Text`` and Markdown never pass raw escapes to the terminal, but a stray ESC
or BEL still garbles a layout (and a Markdown code block shows it verbatim), so
every string from a model or a tool goes through :func:`clean` first. When the CLI
engineer's ``shell.textsafety`` exists we defer to it, so both UIs agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _fallback(text: str) -> str:
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if m.group() != "\x1b" else "␛", text)


def _pick() -> Callable[[str], str]:
    try:
        from shell import textsafety
    except ImportError:
        return _fallback
    for name in ("neutralize", "neutralise", "sanitize", "clean"):
        fn = getattr(textsafety, name, None)
        if callable(fn):
            return fn  # type: ignore[no-any-return]
    return _fallback


_impl: Callable[[str], str] | None = None


def clean(text: str) -> str:
    """Text safe to show: escapes removed, other control characters made visible."""
    global _impl
    if _impl is None:
        _impl = _pick()
    if text.isprintable():
        return text
    return _impl(text)
