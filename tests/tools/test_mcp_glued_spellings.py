"""Finding A8: a key in base64 without its ``=`` padding, followed by a line whose first
word had the length that made the two read together one letter past a multiple of four
(``…aA`` + ``\\nHey there``), reached the model from an MCP answer: read only joined,
the letters failed to decode or decoded as noise, and the line-by-line pass never ran.
Its twins: base32 with a letter glued before it or a word after it, hex with a lone
digit before it, base64url with a word glued on, bits (and booleans) with a digit (a
word) before them, base85 with letters before it (and with a ``+`` in it: read as a
space), base32hex and Crockford's with letters glued on, octal bytes after a digit.
A real stdio server (tests/tools/spelled_mcp_server.py, tool ``glued``) says the first
four."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import anyio
import pytest

from shell.core.messages import TextBlock, ToolResult
from shell.core.secrets import Secrets, secret_going_out
from shell.core.secretspellings import decoded_lines
from shell.tools import mcp_redaction
from shell.tools.mcp import McpManager

from .conftest import Recorder

SERVER = Path(__file__).with_name("spelled_mcp_server.py")
KEY = "Kp83hdPq2LmXz7RtWq5"
KNOWN = Secrets([KEY], patterns=False)
B64 = base64.b64encode(KEY.encode()).decode().rstrip("=")
B32 = base64.b32encode(KEY.encode()).decode().rstrip("=")
BITS = "".join(f"{byte:08b}" for byte in KEY.encode())
TO_BASE32_HEX = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789ABCDEFGHIJKLMNOPQRSTUV")
TO_CROCKFORD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
WHOSE = "a value of a hidden secret file"


def spelled_out(text: str) -> bool:
    raw = KEY.encode()
    return any(s in text for s in (KEY, B64, B32, raw.hex(), base64.urlsafe_b64encode(raw).decode()[:20]))


@pytest.mark.parametrize("word", ["H", "He", "Hey", "Heyo", "Hello", "Hellos", "Hellooo"])
def test_base64_without_padding_beside_any_next_word_is_found(word: str) -> None:
    text = f"key: {B64}\n{word} there"
    found = secret_going_out(text, KNOWN)
    assert found is not None and found[1] == KEY, word
    assert secret_going_out(f"key: {B64}{word} there", KNOWN) is not None  # glued on the same line too


@pytest.mark.parametrize("text", [
    *(f"b32: {glue}{B32} ok" for glue in ("x", "xy", "xyz", "1", "_")),
    *(f"b32: {B32}{glue} ok" for glue in ("xy", "1", "_")),
    f"b32: XYZ{B32.lower()} ok",
    *(f"bits: {'1' * n}{BITS} ok" for n in (1, 3, 7)),
    "bools: true " + " ".join("true" if bit == "1" else "false" for bit in BITS),
    *(f"b32hex: {glue}{B32.translate(TO_BASE32_HEX)} ok" for glue in ("1", "XY", "_")),
    f"crockford: XY{B32.translate(TO_CROCKFORD)} ok",
    "octal: 1" + "".join(f"{byte:03o}" for byte in KEY.encode()),
    "b85: " + base64.b85encode(KEY.encode()).decode(),  # its "+" is no space
    *(f"b85: {glue}" + base64.b85encode(b"x" + KEY.encode()).decode() for glue in ("x", "xy", "xyzw")),
    "hex: 1" + KEY.encode().hex() + " ok",
    "url: " + base64.urlsafe_b64encode(b"\xff\xfe" + KEY.encode()).decode().rstrip("=") + "H ok",
])
def test_other_encodings_with_a_letter_glued_on_are_found(text: str) -> None:
    found = secret_going_out(text, KNOWN)
    assert found is not None and found[1] == KEY, text


def test_an_own_key_in_an_answer_is_withheld_and_the_next_line_kept() -> None:
    """The finding's answer as the MCP net gets it: the server's own key."""
    text = f"env token: something\nHello there\nkey: {B64}\nHey there"
    out = mcp_redaction.without_known_secrets(ToolResult(text), KNOWN)
    assert isinstance(out.content, str) and not spelled_out(out.content)
    assert out.content.startswith("env token: something\nHello there\n[REDACTED: a line holding one of this")
    assert "\nHey there\n[agent-shell: 1 value of this run's own keys" in out.content


def test_a_hidden_files_value_wrapped_over_lines_withholds_the_text() -> None:
    """No one line holds it: the text read whole does, and then the whole goes."""
    wrapped = "\n".join(B64[i : i + 8] for i in range(0, len(B64), 8))
    out, found = decoded_lines(wrapped, KNOWN, WHOSE)
    assert found == [KEY] and out == f"[REDACTED: a line holding {WHOSE}, base64-encoded]"


def test_ordinary_lines_beside_base64_pass() -> None:
    text = "B64:" + base64.b64encode(b"hello world, plainly").decode().rstrip("=") + "\nHey there"
    assert decoded_lines(text, KNOWN, WHOSE) == (text, [])


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_servers_glued_spellings_of_its_key_do_not_reach_the_model(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_redaction, "known_secret_values", lambda: frozenset({KEY}))
    spec = {"command": sys.executable, "args": [str(SERVER)], "env": {"MY_API_KEY": KEY}}
    mcp = McpManager({"spelled": spec}, connect_timeout=60)
    await mcp.__aenter__()
    try:
        await mcp.wait_settled(90)
        glued = {t.name: t for t in mcp.tools()}["spelled__glued"]
        with anyio.fail_after(60):
            result = await glued.run({}, recorder.context(glued.name, {}))
        seen = result.content if isinstance(result.content, str) else "\n".join(
            b.text for b in result.content if isinstance(b, TextBlock))
        assert not spelled_out(seen), seen
        assert seen.count("[REDACTED: a line holding one of this run's own keys") == 4
        assert "base64-encoded]\nHey there\n" in seen  # the line after the key's is the model's
        assert "4 values of this run's own keys" in seen
    finally:
        await mcp.__aexit__(None, None, None)
