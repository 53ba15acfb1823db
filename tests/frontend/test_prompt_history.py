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


def test_a_redactor_made_on_demand_still_redacts_everything(tmp_path: Path) -> None:
    """The TUI gives a function (the policy is made when first needed, not on the
    way to the first screen): an empty history does not make it; the first prompt,
    or an older file holding a key, does, and nothing secret is kept."""
    path = tmp_path / "prompt-history.jsonl"
    made: list[Secrets] = []

    def make() -> Secrets:
        made.append(Secrets())
        return made[-1]

    history = PromptHistory(path, make_redactor=make)
    assert history.entries() == [] and made == []
    assert history.add(f"my key {SECRET}") == "my key [REDACTED]" and len(made) == 1
    path.write_text(json.dumps({"text": f"old {SECRET}"}) + "\n")
    older = PromptHistory(path, make_redactor=make)
    assert older.entries() == ["old [REDACTED]"] and len(made) == 2
    assert SECRET not in path.read_text()
