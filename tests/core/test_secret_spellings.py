"""Known values in other spellings, in what commands, files and servers print (findings
Z1, Z7): each line holding one is withheld whole; ordinary lines are not touched."""

from __future__ import annotations

import base64
import codecs
from pathlib import Path

import pytest

from shell.core.secretspellings import first_spelled, holds_any, spelled_lines
from shell.permissions.hiddenvalues import StreamRedaction, hidden_values

TOKEN = "ghp_R3alS3cretT0kenValue1234567890abcd"
PASSWORD = "Xk9mP2vQ7wLr4Tz8hunter"
VALUES = (TOKEN, PASSWORD)
WHOSE = "a value of a hidden secret file"


def spellings(value: str) -> dict[str, str]:
    raw = value.encode()
    return {
        "reversed": value[::-1],
        "spaced": " ".join(value),
        "dashed in fours": "-".join(value[i : i + 4] for i in range(0, len(value), 4)),
        "upper": value.upper(),
        "lower": value.lower(),
        "base64": base64.b64encode(raw).decode(),
        "base64 after one byte": base64.b64encode(b"=" + raw).decode(),
        "base64 after two bytes": base64.b64encode(b"k=" + raw).decode(),
        "base64 url-safe": base64.urlsafe_b64encode(b"\xfb\xff" + raw).decode(),
        "base32 after three bytes": base64.b32encode(b"abc" + raw).decode(),
        "hex": raw.hex(),
        "hex upper, spaced": " ".join(f"{b:02X}" for b in raw),
        "hex as \\x": "".join(f"\\x{b:02x}" for b in raw),
        "its first half and a letter on its own line": value[: len(value) // 2 + 2],
        "its second half and a letter on its own line": value[len(value) // 2 - 2 :],
        "rot13": codecs.encode(value, "rot13"),
        "\\u escapes": "".join(f"\\u{ord(c):04x}" for c in value),
        "HTML references": "".join(f"&#{ord(c)};" for c in value),
        "percent-encoded": "".join(f"%{b:02X}" for b in raw),
    }


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("how", list(spellings(TOKEN)))
def test_each_spelling_withholds_its_line_and_keeps_the_others(value: str, how: str) -> None:
    spelled = spellings(value)[how]
    text = f"build ok\nx = {spelled} # here\ndone\n"
    out, found = spelled_lines(text, VALUES, WHOSE)
    assert spelled not in out
    assert out.startswith("build ok\n[REDACTED: a line holding a value of a hidden secret file, ")
    assert out.endswith("]\ndone\n")
    assert found == [value]


BUILD_LOG = """\
   Compiling serde v1.0.193
   Compiling tokio v1.35.1 (registry+https://github.com/rust-lang/crates.io-index)
gcc -O2 -Wall -o build/main.o -c src/main.c
[ 42%] Linking CXX executable bin/app
sha256:3f2a9c0e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0
npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.
PASSED tests/test_api.py::test_token_refresh[hunter] 0.12s
"""


def test_ordinary_output_holds_no_spelling() -> None:
    assert spelled_lines(BUILD_LOG, VALUES, WHOSE) == (BUILD_LOG, [])
    assert not holds_any(BUILD_LOG, VALUES, ())
    assert first_spelled(BUILD_LOG * 100, VALUES) is None


def test_a_half_a_shown_value_holds_is_not_looked_for() -> None:
    """A value the call may show (a shown file's) that shares a half with a hidden one
    must not have its lines withheld."""
    shown = "sk-proj-Hv0123456789abcdefXYZ"
    hidden = "other-0123456789abcdef"
    assert spelled_lines(shown, (hidden,), WHOSE, kept=(shown,)) == (shown, [])
    assert spelled_lines(hidden[::-1], (hidden,), WHOSE, kept=(shown,))[1] == [hidden]


def test_a_commands_output_stream_withholds_lines_of_a_hidden_files_value(tmp_path: Path) -> None:
    """run_shell's output net (``StreamRedaction``, fed as the pipe gives it): the plain
    value redacted in place, a spelled one's line withheld, the note counts the file."""
    env = tmp_path / ".env"
    env.write_text(f"SERVICE_TOKEN={TOKEN}\n")
    stream = StreamRedaction(hidden_values([env], name=lambda p: p.name))
    text = f"PLAIN {TOKEN}\nREV {TOKEN[::-1]}\nB64 {base64.b64encode(TOKEN.encode()).decode()}\nok\n"
    out = "".join(stream.feed(text[i : i + 7]) for i in range(0, len(text), 7)) + stream.flush()
    assert out == ("PLAIN [REDACTED]\n"
                   f"[REDACTED: a line holding {WHOSE}, reversed]\n"
                   f"[REDACTED: a line holding {WHOSE}, base64-encoded]\nok\n")
    assert stream.note() == ("[agent-shell: 1 value of hidden secret files (.env) was redacted "
                             "from this output]")


@pytest.mark.parametrize("shift", [0, 7, 20, 41, 60])
def test_a_spelling_where_a_line_with_no_end_is_cut_is_still_withheld(tmp_path: Path, shift: int) -> None:
    """A line longer than what the stream holds back is cut (the live view must move on);
    a spelled value straddling that cut was split in two and passed, each part too short
    to be read (256 KB of padding, then the value spaced, no newline)."""
    from shell.permissions.hiddenvalues import HOLD

    env = tmp_path / ".env"
    env.write_text(f"SERVICE_TOKEN={TOKEN}\n")
    values = hidden_values([env])
    spaced = " ".join(TOKEN[::-1])
    text = "x" * (HOLD + 1 - values.longest - shift) + " " + spaced + " tail"
    stream = StreamRedaction(values)
    out = "".join(stream.feed(text[i : i + 4096]) for i in range(0, len(text), 4096)) + stream.flush()
    assert spaced[:20] not in out and spaced[-20:] not in out
    assert "[REDACTED: a line holding a value of a hidden secret file, reversed]" in out
