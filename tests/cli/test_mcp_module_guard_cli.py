"""Finding Q27 through the console script and bubblewrap: a ``.mcp.json`` server started
as ``python3 -m tools.srv`` (or ``bash -c "node tools/a.js"``, ``node tools/pkg``) runs
workspace files as the user at the next start; ``auto`` mode's unasked commands could
rewrite them. They are guarded like ``python3 tools/srv.py``'s script."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

FILES = {"tools/__init__.py": "", "tools/srv.py": "print('srv')\n", "tools/a.js": "0;\n",
         "tools/pkg/index.js": "1;\n", "tools/notes.txt": "n\n"}


def test_a_command_cannot_rewrite_what_a_module_server_runs(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    for name, text in FILES.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "s": {"command": "python3", "args": ["-m", "tools.srv"]},
        "a": {"command": "bash", "args": ["-c", "node tools/a.js"]},
        "n": {"command": "node", "args": ["tools/pkg"]}}}))
    command = 'for f in tools/* tools/pkg/*; do [ -f "$f" ] && echo "#x" >> "$f"; done; true'
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    for name, text in FILES.items():
        expected = text + "#x\n" if name == "tools/notes.txt" else text
        assert (workspace / name).read_text() == expected, name
