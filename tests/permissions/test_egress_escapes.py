"""Finding U3: a known secret value sent out in one more standard step (HTML entities,
``\\uXXXX``, quoted-printable, octal, bits, base85/ascii85, floats or booleans,
look-alike letters of other scripts, lower-cased then base64 or hex) passed an MCP
tool and ``fetch_url`` unasked, while hex and base32 asked. Each now asks; ordinary
text in those forms still runs."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

import pytest

from .test_secrets_going_out import McpTool, policy

KEY = "Xq9vLr2mTs8wPz4kHc7n"
"""A value with no known shape: found only because the environment holds it."""


def bits(text: str, sep: str = " ") -> str:
    return sep.join(f"{ord(c):08b}" for c in text)


SPELLINGS: dict[str, Any] = {
    "html decimal": "".join(f"&#{ord(c)};" for c in KEY),
    "html hex": "".join(f"&#x{ord(c):x};" for c in KEY),
    "json escapes": "".join(f"\\u{ord(c):04x}" for c in KEY),
    "python escapes": "".join(f"\\x{ord(c):02x}" for c in KEY),
    "quoted-printable": "".join(f"={ord(c):02X}" for c in KEY),
    "octal": "".join(f"\\{ord(c):o}" for c in KEY),
    "binary": bits(KEY),
    "binary, one run": bits(KEY, ""),
    "base85": base64.b85encode(KEY.encode()).decode(),
    "ascii85": base64.a85encode(KEY.encode()).decode(),
    "ascii85, adobe": base64.a85encode(KEY.encode(), adobe=True).decode(),
    "floats": [float(ord(c)) for c in KEY],
    "floats as text": json.dumps([float(ord(c)) for c in KEY]),
    "booleans": [b == "1" for b in bits(KEY, "")],
    "cyrillic look-alikes": KEY.translate(str.maketrans("XqvLrmTswPzkHcn", "Хԛνᒪгмтѕԝрᴢкнсп")),
    "greek look-alikes": KEY.translate(str.maketrans("XvTPkH", "ΧνΤΡκΗ")),
    "lower-cased, base64": base64.b64encode(KEY.lower().encode()).decode(),
    "lower-cased, hex": KEY.lower().encode().hex(),
    "spaced, base64": base64.b64encode(" ".join(KEY).encode()).decode(),
    "inside a sentence": "please see " + "".join(f"&#{ord(c)};" for c in KEY) + " thanks",
}


@pytest.fixture(autouse=True)
def known_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_API_KEY", KEY)


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_known_value_in_one_more_standard_step_asks(tmp_path: Path, name: str) -> None:
    decision = policy(tmp_path, allow=("search__query",)).decide(McpTool(), {"text": SPELLINGS[name]})
    assert decision.action == "ask", name
    assert "holding a secret" in decision.reason and KEY not in decision.reason


def test_ordinary_text_in_those_forms_still_runs(tmp_path: Path) -> None:
    """HTML, JSON with escapes, a quoted-printable mail, a bit mask, base85 of noise, Greek
    and Russian prose, lists of floats and booleans: none of it holds the key."""
    body = {
        "html": html.escape("<p>Fish & chips — café</p>") + " &#169; 2026 &nbsp;" * 50,
        "json": "\\u00e9t\\u00e9 \\n \\t caf\\u00e9 " * 100,
        "mail": "Subject: =?utf-8?Q?caf=C3=A9?=\nHello=2C world=\nsoft break =3D equals\n" * 50,
        "mask": "flags 00000001 00000010 00000100 11111111 " * 20,
        "noise85": base64.b85encode(bytes(range(256)) * 8).decode(),
        "greek": "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. " * 50,  # noqa: RUF001
        "russian": "Москва — столица России, крупнейший город страны. " * 50,
        "floats": [1.5, 2.25, 3.0, 4.0, 1e10, 0.1] * 50,
        "bools": [True, False, False] * 60,
        "octal": "chmod \\755 and \\644 and \\0 " * 20,
    }
    assert policy(tmp_path, allow=("search__query",)).decide(McpTool(), body).action == "allow"
