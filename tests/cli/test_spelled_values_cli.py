"""Finding Z1 through the console script and bubblewrap: a tracked ``.env`` reads empty in
the sandbox, but its blob is in ``.git/objects``; a command that inflates the objects
itself (no git, no file name) printed the value reversed, spaced, base64- and
hex-encoded, upper-cased and in halves, and only the plain spelling was redacted. Now
each line holding one of those spellings is withheld, in what the model reads and in
the session file, and ordinary lines around them stay."""

from __future__ import annotations

import base64
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
import base64, pathlib, zlib
for path in sorted(pathlib.Path(".git/objects").glob("??/*")):
    body = zlib.decompress(path.read_bytes()).split(b"\\0", 1)[1]
    if b"SERVICE_TOKEN=" in body:
        value = body.decode().split("SERVICE_TOKEN=", 1)[1].split()[0]
        print("PLAIN", value)
        print("REV", value[::-1])
        print("SP", " ".join(value))
        print("B64", base64.b64encode(value.encode()).decode())
        print("HEX", value.encode().hex())
        print("UP", value.upper())
        print("HALF", value[:17] + " | " + value[17:])
print("ordinary line kept")
"""


def test_a_tracked_secret_files_value_spelled_otherwise_is_withheld_from_command_output(
    run_cli: RunCli, script: Script, workspace: Path, tmp_path: Path
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
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": "python3 peek.py"}}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "PLAIN [REDACTED]" in r.stdout, r.stdout  # the command ran and read the blob
    assert "ordinary line kept" in r.stdout
    spellings = [VALUE, VALUE[::-1], " ".join(VALUE), base64.b64encode(VALUE.encode()).decode(),
                 VALUE.encode().hex(), VALUE.upper(), VALUE[:17], VALUE[17:]]
    for spelled in spellings:
        assert spelled not in r.stdout, spelled
    assert "[REDACTED: a line holding a value of a hidden secret file, reversed]" in r.stdout
    saved = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert b"ordinary line kept" in saved
    for spelled in spellings:
        assert spelled.encode() not in saved, spelled
