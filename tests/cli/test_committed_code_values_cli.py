"""Finding Q11's rest through the console script and bubblewrap: a repository's committed
``.env`` with ``API_TOKEN=print(1)`` (anyone's to write: a clone) made the values net
redact ``print(1)`` from the very code the model reads (``read_file app.py``, ``cat``), and
turned the model's edit of that line into a question about a secret. A value the
workspace's committed, non-secret files hold is no secret from the model: not redacted,
not asked about. A key-shaped value stays hidden wherever else it stands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli

TOKEN = "Zq8vLm3Xt7Rw2Np5Kd9Hy4Wc"
APP = f'print(1)\nURL = "localhost:8080"\nFALLBACK = "{TOKEN}"\n'


def test_values_the_committed_code_holds_are_not_redacted_nor_asked_about(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    (workspace / ".env").write_text(f"API_TOKEN=print(1)\nAUTH_TOKEN=localhost:8080\nSECRET_KEY={TOKEN}\n")
    (workspace / "app.py").write_text(APP)
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    calls = [("read_file", {"path": "app.py"}), ("run_shell", {"command": "cat app.py"}),
             ("edit_file", {"path": "app.py", "old_string": "print(1)", "new_string": "print(2)"})]
    turns = [*({"tool_calls": [{"name": n, "args": a}]} for n, a in calls), "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    results = [str(m["content"]) for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 3, results
    for shown in results[:2]:
        assert "print(1)" in shown and "localhost:8080" in shown, shown
        assert TOKEN not in shown and "[REDACTED]" in shown, shown  # the key stays hidden
    assert "--approve never" not in results[2], results[2]  # the edit ran, unasked
    assert (workspace / "app.py").read_text().startswith("print(2)\n")
