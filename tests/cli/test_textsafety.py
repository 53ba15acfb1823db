"""Terminal control sequences never reach the screen; ordinary text is untouched."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shell.textsafety import StreamSanitizer, sanitize

DANGEROUS = [
    "\x1b[2J",  # clear screen
    "\x1b[31m",  # colour
    "\x1b]0;title\x07",  # window title
    "\x1b]52;c;ZXZpbA==\x1b\\",  # clipboard write
    "\x1bPq#0;2;0;0;0\x1b\\",  # DCS (sixel)
    "\x9b2J",  # 8-bit CSI
    "\x1b7",  # save cursor
    "\x00\x08\x7f\x85",  # NUL, backspace, DEL, C1 NEL
]


@pytest.mark.parametrize("seq", DANGEROUS)
def test_sequences_are_removed(seq: str) -> None:
    assert sanitize(f"a{seq}b") == "ab"


def test_newlines_and_tabs_survive_carriage_returns_do_not() -> None:
    assert sanitize("a\tb\r\nc\rd\n") == "a\tb\ncd\n"


def test_unicode_text_is_kept() -> None:
    assert sanitize("héllo — ✓ 你好 🎉") == "héllo — ✓ 你好 🎉"


@pytest.mark.parametrize("seq", DANGEROUS)
def test_a_sequence_split_across_deltas_does_not_leak(seq: str) -> None:
    text = f"before {seq} after"
    for cut in range(1, len(text)):
        s = StreamSanitizer()
        assert s.feed(text[:cut]) + s.feed(text[cut:]) + s.flush() == "before  after"


@given(st.text())
def test_no_control_characters_ever_come_out(text: str) -> None:
    out = sanitize(text)
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in out)
    s = StreamSanitizer()
    streamed = "".join(s.feed(text[i : i + 3]) for i in range(0, len(text), 3)) + s.flush()
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in streamed)
