"""What mise runs as the user, through the console script and bubblewrap (finding P12).

mise renders ``[env]`` templates at every prompt under ``mise activate`` (an
``exec(command=…)`` in one runs that command), as it sources ``_.source``; a tool's
``postinstall`` runs at the next ``mise install``. An unasked command in ``auto``
appended a line to the scripts those name and kept it, while the ``_.source`` one was
refused with a note about git."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
MISE = """\
[env]
_.source = "./scripts/src.sh"
FOO = "{{ exec(command='sh ./scripts/t.sh') }}"

[tools]
node = { version = "20", postinstall = "sh ./scripts/post.sh" }
"""


def test_the_scripts_a_mise_template_and_postinstall_name_are_kept_and_the_note_says_mise(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    (workspace / "mise.toml").write_text(MISE)
    (workspace / "scripts").mkdir()
    for name in ("src", "t", "post", "other"):
        (workspace / "scripts" / f"{name}.sh").write_text("echo ok\n")
    command = "for f in src t post other; do echo PWN >> scripts/$f.sh; done; echo done"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "tidy", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "done" in r.stdout, "it ran, unasked"
    for name in ("src", "t", "post"):
        assert (workspace / "scripts" / f"{name}.sh").read_text() == "echo ok\n", name
    assert (workspace / "scripts" / "other.sh").read_text() == "echo ok\nPWN\n", "nothing runs it"
    assert ("scripts/t.sh, which mise runs as you when you are in that directory (env.FOO in mise.toml)"
            in r.stdout)
    assert "mise runs as you at the next `mise install` (tools.node.postinstall in mise.toml)" in r.stdout
    assert "what git runs" not in r.stdout
