"""Linter configs that load code, through the console script (finding P14).

markdownlint-cli2 requires the modules its ``.markdownlint-cli2.yaml``/``.jsonc`` name in
``customRules`` (as it runs its ``.cjs`` config), php-cs-fixer 2 runs ``.php_cs`` and
``.php_cs.dist`` (PHP, as ``.php-cs-fixer.php``), and golangci-lint loads the Go plugin a
``custom`` linter's ``path`` names: each at the user's next lint, an editor's
lint-on-save included, outside the sandbox. They were created unasked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
WRITES = {
    ".markdownlint-cli2.yaml": "customRules:\n  - ./evil.js\n",
    ".php_cs.dist": "<?php system('touch /tmp/pwned'); return PhpCsFixer\\Config::create();\n",
    ".golangci.yml": "linters-settings:\n  custom:\n    ex:\n      path: ./ex.so\n",
}


def test_accept_edits_asks_before_writing_them(run_cli: RunCli, script: Script, workspace: Path) -> None:
    calls = [{"name": "write_file", "args": {"path": p, "content": c}} for p, c in WRITES.items()]
    calls.append({"name": "write_file", "args": {"path": "docs/.markdownlint-cli2.yaml",
                                                 "content": "config:\n  MD013: false\n"}})
    r = run_cli("-p", "set up linting", "--model", script([{"tool_calls": calls}, "Done."]),
                "--permission-mode", "accept-edits", "--approve", "never", "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    for path in WRITES:
        assert not (workspace / path).exists(), path
    assert (workspace / "docs" / ".markdownlint-cli2.yaml").exists(), "a style-only config is routine"


def test_auto_keeps_a_command_from_planting_them(run_cli: RunCli, script: Script, workspace: Path) -> None:
    require_sandbox()
    command = ("printf 'customRules:\\n  - ./evil.js\\n' > .markdownlint-cli2.yaml; "
               "printf '{\"customRules\": [\"./evil.js\"]}' > .markdownlint-cli2.jsonc; "
               "echo '<?php' > .php_cs; echo done")
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "set up linting", "--model", script(turns), "--permission-mode", "auto",
                "--approve", "never", "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "done" in r.stdout, "it ran, unasked"
    for path in (".markdownlint-cli2.yaml", ".markdownlint-cli2.jsonc", ".php_cs"):
        assert not (workspace / path).exists(), path
