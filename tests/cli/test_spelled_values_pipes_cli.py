"""Finding C5 through the console script and bubblewrap: after a read of the copy git
keeps of a tracked ``.env``, the pipes the finding used printed its value in clear
(``sed 's/./&    /g'``: four spaces a letter; ``rev | tr`` rot13: reversed and rot13'd;
``fold -w7``: no line holds eight letters). Each line holding one is now withheld."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
VALUE = "R3alS3cretT0kenValue1234567890abcd"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}
PEEK = """\
import pathlib, zlib
for path in sorted(pathlib.Path(".git/objects").glob("??/*")):
    body = zlib.decompress(path.read_bytes()).split(b"\\0", 1)[1]
    if b"SERVICE_TOKEN=" in body:
        print(body.decode().split("SERVICE_TOKEN=", 1)[1].split()[0])
"""
PIPES = ("python3 peek.py | sed 's/./&    /g'; echo first done; "
         "python3 peek.py | rev | tr a-zA-Z n-za-mN-ZA-M; echo second done; "
         "python3 peek.py | fold -w7; echo third done")


def test_the_findings_pipes_print_no_spelling_of_a_tracked_secret_files_value(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / ".env").write_text(f"SERVICE_TOKEN={VALUE}\n")
    (workspace / "peek.py").write_text(PEEK)
    git("add", "-f", ".env", "peek.py")
    git("commit", "-qm", "env")
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": PIPES}}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    ends = [e for e in map(json.loads, r.stdout.splitlines()) if e.get("type") == "ToolExecutionEnd"]
    shown = ends[0]["result"]["content"]
    assert "first done" in shown and "second done" in shown and "third done" in shown, shown
    spelled = ["    ".join(VALUE[:12]), codecs.encode(VALUE[::-1], "rot13")[:12],
               *(VALUE[i : i + 7] for i in range(0, len(VALUE) - 6, 7))]
    for piece in spelled:
        assert piece not in r.stdout, piece
    assert shown.count("[REDACTED: a line holding a value of a hidden secret file") >= 3, shown
