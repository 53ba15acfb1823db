"""Finding X5: a known secret value sent out as base58, base36, base32hex, Crockford's
base32, octal bytes, uuencode, or with its two halves swapped passed an MCP tool and
``fetch_url`` under an allow rule unasked, while base64, base32 and hex asked. Each now
asks; ordinary text that looks like those alphabets still runs."""

from __future__ import annotations

import base64
import codecs
from pathlib import Path

import pytest

from .test_secrets_going_out import McpTool, policy

KEY = "sk-test-OUTERKEY0123456789abcdefgh"
"""The tester's key: its prefix alone is no known shape, so only the environment's value finds it."""
RAW = KEY.encode()


def as_number(raw: bytes, alphabet: str) -> str:
    number, out = int.from_bytes(raw, "big"), ""
    while number:
        number, digit = divmod(number, len(alphabet))
        out = alphabet[digit] + out
    return out


CROCKFORD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
SPELLINGS = {
    "base58": as_number(RAW, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"),
    "base36": as_number(RAW, "0123456789abcdefghijklmnopqrstuvwxyz"),
    "base36, upper case": as_number(RAW, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "base32hex": base64.b32hexencode(RAW).decode(),
    "base32hex, no padding, lower case": base64.b32hexencode(RAW).decode().rstrip("=").lower(),
    "Crockford base32": base64.b32encode(RAW).decode().rstrip("=").translate(CROCKFORD),
    "octal bytes": "".join(f"{c:03o}" for c in RAW),
    "octal bytes, spaced": " ".join(f"{c:03o}" for c in RAW),
    "uuencode": codecs.encode(RAW, "uu").decode(),
    "uuencode, one line": codecs.encode(RAW, "uu").decode().splitlines()[1],
    "halves swapped": KEY[len(KEY) // 2 :] + KEY[: len(KEY) // 2],
    "halves swapped, in a sentence": "see " + KEY[20:] + KEY[:20] + " please",
}


@pytest.fixture(autouse=True)
def known_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_known_value_in_another_alphabet_asks(tmp_path: Path, name: str) -> None:
    decision = policy(tmp_path, allow=("search__query",)).decide(McpTool(), {"text": SPELLINGS[name]})
    assert decision.action == "ask", name
    assert "holding a secret" in decision.reason and KEY not in decision.reason


def test_ordinary_text_in_those_alphabets_still_runs(tmp_path: Path) -> None:
    """Words, ids, timestamps, file modes, upper-case prose, a commit hash and a
    uuencoded picture: none of them holds the key."""
    body = {
        "words": "internationalization responsibilities incomprehensibilities " * 40,
        "ids": "order 1234567890123 ref ABCDEF0123456789 build 20261130083813 " * 30,
        "modes": "chmod 755 644 600 700 755 644 600 700 755 on the tree " * 20,
        "shouting": "PLEASE READ THE MANUAL BEFORE FILING 42 ISSUES, THANKS! " * 20,
        "hash": "3f2a9c0e1b7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f " * 20,
        "uu": codecs.encode(bytes(range(256)) * 4, "uu").decode(),
        "doubled words": "abcdefghijklmnop qrstuvwxyz012345 " * 20,
    }
    assert policy(tmp_path, allow=("search__query",)).decide(McpTool(), body).action == "allow"
