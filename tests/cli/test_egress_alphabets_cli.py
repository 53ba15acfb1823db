"""Finding X5 through the console script: ``fetch_url`` under an allow rule sent the
environment's key out unasked as base58, base32hex, octal bytes, uuencode or with its
halves swapped. Each asks now (here: refused, as ``--approve never`` answers no); an
ordinary URL under the rule still goes."""

from __future__ import annotations

import base64
import codecs
import json
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

KEY = "sk-test-OUTERKEY0123456789abcdefgh"


def base58(raw: bytes) -> str:
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    number, out = int.from_bytes(raw), ""
    while number:
        number, digit = divmod(number, 58)
        out = alphabet[digit] + out
    return out


def test_a_known_key_in_another_alphabet_does_not_leave_unasked(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], tmp_path: Path
) -> None:
    cli_env["OPENAI_API_KEY"] = KEY
    config = tmp_path / "fetch.toml"
    config.write_text('[permissions]\nallow = ["fetch_url(domain:127.0.0.1)"]\n')
    raw = KEY.encode()
    spellings = [base58(raw), base64.b32hexencode(raw).decode().rstrip("="), "".join(f"{c:03o}" for c in raw),
                 urllib.parse.quote(codecs.encode(raw, "uu").decode()), KEY[16:] + KEY[:16], "ordinary-words"]
    turns = [{"tool_calls": [{"name": "fetch_url", "args": {"url": f"http://127.0.0.1:9/?q={s}"}}]}
             for s in spellings]
    r = run_cli("-p", "go", "--model", script([*turns, "Done."]), "--permission-mode", "auto",
                "--approve", "never", "--no-session", "--output-format", "json", "--config", str(config))
    assert r.returncode == 0, r.stderr
    results = [m["content"] for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 6, results
    assert all("was not run" in text for text in results[:5]), results
    assert "was not run" not in results[5]  # an ordinary query still goes, as the rule allows
    assert KEY not in r.stdout and KEY not in r.stderr
