"""The one prompt history of the TUI and the line mode: 0600, redacted, bounded."""

from __future__ import annotations

import json
from pathlib import Path

from shell.core.secrets import Secrets
from shell.frontend.prompt_history import MAX_ENTRIES, PromptHistory

SECRET = "sk-ant-api03-" + "Z" * 40



def test_history_is_private_redacted_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "d" / "prompt-history.jsonl"
    history = PromptHistory(path, Secrets())
    history.add("first prompt")
    history.add(f"my key {SECRET}")
    history.add(f"my key {SECRET}")
    assert path.stat().st_mode & 0o777 == 0o600
    assert SECRET not in path.read_text()
    again = PromptHistory(path)
    assert again.entries() == ["first prompt", "my key [REDACTED]"]
    assert again.search("KEY") == ["my key [REDACTED]"] and again.search("first pr") == ["first prompt"]
    with path.open("ab") as f:
        f.write(b"garbage\n")
    for i in range(2 * MAX_ENTRIES + 5):
        again.add(f"p{i}")
    assert len(PromptHistory(path).entries()) == MAX_ENTRIES
    assert len(path.read_text().splitlines()) <= 2 * MAX_ENTRIES
    with path.open("a") as f:  # as an older version might have left it
        f.write(json.dumps({"text": f"old {SECRET}"}) + "\n")
    assert PromptHistory(path, Secrets()).entries()[-1] == "old [REDACTED]"
    assert SECRET not in path.read_text()
