"""Finding U3 through the console script: ``fetch_url`` under an allow rule sent the
environment's key out unasked as HTML entities, quoted-printable, base85, look-alike
Cyrillic letters or lower-cased then base64. Each asks now (here: refused, as
``--approve never`` answers no); an ordinary URL under the rule still goes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

KEY = "Xq9vLr2mTs8wPz4kHc7n"


def test_a_known_key_in_one_more_spelling_does_not_leave_unasked(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], tmp_path: Path
) -> None:
    cli_env["MY_API_KEY"] = KEY
    config = tmp_path / "fetch.toml"
    config.write_text('[permissions]\nallow = ["fetch_url(domain:127.0.0.1)"]\n')
    spellings = ["".join(f"&%23{ord(c)}%3B" for c in KEY), "".join(f"%3D{ord(c):02X}" for c in KEY),
                 base64.b85encode(KEY.encode()).decode().replace("&", "%26").replace("#", "%23"),
                 KEY.translate(str.maketrans("XqvLrmTsw", "Хԛνᒪгмтѕԝ")),
                 base64.urlsafe_b64encode(KEY.lower().encode()).decode(), "ordinary-words"]
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
